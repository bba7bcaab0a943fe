/**
 * The wording of VersionNotSupportedError (specification-1.0.1.md §3.2.6): a request names the version it
 * speaks in the A2A-Version header (or query parameter), a missing one meaning 0.3. An agent that serves a
 * second version (`--compat 0.3.0`) refuses a request only where that version has no such call (a 1.0
 * route asked without the header, read as 0.3): the refusal says so, names every version the agent serves
 * and how to ask for the one that has the call, never "this agent speaks 1.0" to a 0.3 client it serves.
 */
import type { CallContext } from "../call.js";

/** The version a request without the header speaks (1.0.1 §3.2.6). */
export const NO_VERSION_HEADER = "0.3";

export interface VersionRefusal {
  /** The versions the agent serves, `Major.Minor`, the refusing service's first. */
  readonly supported: readonly string[];
  readonly message: string;
}

/** What the refused call is, in the words of its binding: `GET /rest/v1/tasks` on HTTP+JSON. */
function callOf(ctx: CallContext): string {
  const request = ctx.request;
  return ctx.binding === "HTTP+JSON" && request ? `${request.method} ${request.path}` : `this ${ctx.binding} call`;
}

/**
 * The refusal of a call by the service speaking `speaks` (`Major.Minor`) on an agent serving `served` (every
 * version it serves, primary first; `speaks` among them): `asked` is the header as given (undefined when
 * there is none), `read` the version it reads as (`Major.Minor`; 0.3 for none).
 */
export function versionRefusal(header: string, asked: string | undefined, read: string, speaks: string, served: readonly string[], ctx: CallContext): VersionRefusal {
  const none = asked === undefined || asked.trim() === "";
  const given = none ? `No ${header} given (read as ${NO_VERSION_HEADER})` : `Version ${asked} is not supported`;
  if (served.length < 2) return { supported: [speaks], message: `${given}; this agent speaks ${speaks}: send ${header}: ${speaks}` };
  const all = `this agent serves ${served.join(" and ")}`;
  if (!served.includes(read)) return { supported: served, message: `${given}; ${all}: send ${header}: ${served.join(" or ")}` };
  // The request speaks another version the agent serves, which has no such call: only this version does.
  const call = callOf(ctx);
  const what = ctx.binding === "HTTP+JSON" ? `${call} is an A2A ${speaks} route that ${read} does not have` : `${call} is to A2A ${speaks}'s service, not ${read}'s`;
  return { supported: served, message: `${none ? given : `${header} ${asked} given`}, but ${what}; ${all}: send ${header}: ${speaks} to call it in ${speaks}` };
}

/**
 * The protocol version a request names: the version header (`A2A-Version`; HTTP headers or gRPC metadata,
 * names lower-cased), else the query parameter of that name (specification-1.0.1.md §3.2.6). Undefined when
 * it names none. Version negotiation, the compat routing and the compat HTTP+JSON routes all read it here.
 */
export function requestedVersion(
  name: string,
  headers: Readonly<Record<string, string | undefined>>,
  query: URLSearchParams | undefined,
): string | undefined {
  return headers[name.toLowerCase()] ?? query?.get(name) ?? undefined;
}
