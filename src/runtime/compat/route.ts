import type { VersionMapping } from "./converter.js";
import { majorMinor } from "../profile.js";

/**
 * Which version a request to an agent serving two versions speaks (docs/compat.md): the `A2A-Version`
 * header (or query parameter), a missing one meaning 0.3 (1.0.1 §3.2.6), checked against the method name,
 * which is a version signal of its own (`message/send` is 0.3, `SendMessage` 1.0). Pure: the server maps
 * the errors to its codes (VersionNotSupportedError for the first, an invalid request for the second).
 */
export type VersionRoute =
  | { readonly version: "primary" | "compat" }
  | {
      readonly error: "versionNotSupported";
      readonly message: string;
      /** The versions served, `Major.Minor`, primary first. */
      readonly supported: readonly string[];
    }
  | { readonly error: "mixedVersions"; readonly message: string };

/** The version a missing header means (1.0.1 §3.2.6). */
const NO_HEADER = "0.3";

export function routeByVersion(mapping: VersionMapping, request: { readonly header: string | undefined; readonly method: string | undefined }): VersionRoute {
  const primary = majorMinor(mapping.primary);
  const compat = majorMinor(mapping.compat);
  const given = request.header?.trim();
  const asked = given === undefined || given === "" ? NO_HEADER : majorMinor(given);
  const version = asked === primary ? "primary" : asked === compat ? "compat" : undefined;
  if (!version) {
    return {
      error: "versionNotSupported",
      message: `A2A-Version ${given} is not supported; this agent serves ${primary} and ${compat}`,
      supported: [primary, compat],
    };
  }
  const method = request.method;
  const pair = method === undefined ? undefined : mapping.methods.find((m) => m.compat === method || m.primary === method);
  const methodVersion =
    method === undefined
      ? undefined
      : pair?.primary === method || mapping.primaryOnly.includes(method)
        ? "primary"
        : pair?.compat === method || mapping.compatOnly.includes(method)
          ? "compat"
          : undefined;
  if (methodVersion !== undefined && methodVersion !== version) {
    const spoken = version === "primary" ? primary : compat;
    const why = given === undefined || given === "" ? `a request without A2A-Version is A2A ${NO_HEADER} (§3.2.6)` : `the request says A2A-Version ${given}`;
    const other = pair ? (methodVersion === "primary" ? pair.compat : pair.primary) : undefined;
    const fix =
      methodVersion === "primary"
        ? `send A2A-Version: ${primary}${other ? `, or call ${other} in A2A ${spoken}` : ""}`
        : `call ${other ?? "it"} in A2A ${spoken}, or send A2A-Version: ${compat}`;
    return {
      error: "mixedVersions",
      message: `${method} is an A2A ${methodVersion === "primary" ? primary : compat} method but ${why}: ${fix}`,
    };
  }
  return { version };
}
