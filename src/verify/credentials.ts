/**
 * The credentials `verify` sends (`--auth`, given once or twice): as headers (gRPC: metadata) where the
 * card's security scheme puts them. A credential is either `Name: value` (that header, as given; a space
 * after the colon) or a bare token/key, sent as the card's first security requirement asks:
 * `Authorization: Bearer …` for HTTP bearer, OAuth 2 and OpenID Connect, `Authorization: Basic …` for basic
 * (given as `user:password`), the API key's header for an API key in a header. `env:NAME` reads the value
 * from the environment (keeps it out of the shell history and CI logs); the values are never printed.
 */
import { securityRequirements } from "../runtime/service/auth.js";
import { CodegenError } from "../errors.js";
import type { Json } from "./schemas.js";

/** A credential ready to send: its headers, and how the report names it (never its value). */
export interface Credential {
  readonly headers: Readonly<Record<string, string>>;
  readonly label: string;
}

/** Whether the card declares security (0.x `security`/`securitySchemes`, 1.0 `securityRequirements`, 0.1 `authentication`). */
export function declaresSecurity(card: Json): boolean {
  return securityRequirements(card).length > 0;
}

/** The credentials' values, `env:NAME` read from the environment; a usage error names one that is not set (before anything is sent). */
export function credentialValues(given: readonly string[], env: Readonly<Record<string, string | undefined>> = process.env): string[] {
  return given.map((raw) => {
    const value = raw.startsWith("env:") ? env[raw.slice(4)] : raw;
    if (value === undefined || value === "") throw new CodegenError(`--auth ${raw}: the environment variable ${raw.slice(4)} is not set or empty`, { kind: "usage" });
    return value;
  });
}

/** The credentials (values from {@link credentialValues}) as headers for `card`; `label` names each as "credential A", "credential B". */
export function credentialsFor(card: Json, values: readonly string[]): Credential[] {
  return values.map((value, index) => {
    const label = `credential ${String.fromCharCode(65 + index)}`;
    // `Name: value` (a space after the colon), so that basic's bare `user:password` is not taken for a header.
    const header = /^([A-Za-z0-9-]+):\s+(.*)$/.exec(value);
    if (header && !/^(bearer|basic)$/i.test(header[1] as string)) return { headers: { [(header[1] as string).toLowerCase()]: header[2] as string }, label };
    return { headers: headersForScheme(card, value), label };
  });
}

function headersForScheme(card: Json, value: string): Record<string, string> {
  const scheme = securityRequirements(card)[0]?.[0]?.scheme;
  const type = String(scheme?.["type"] ?? "http");
  if (type === "apiKey" && String(scheme?.["in"] ?? "header") === "header" && typeof scheme?.["name"] === "string") return { [scheme["name"].toLowerCase()]: value };
  if (type === "http" && String(scheme?.["scheme"] ?? "").toLowerCase() === "basic") return { authorization: `Basic ${Buffer.from(value).toString("base64")}` };
  return { authorization: `Bearer ${value}` };
}
