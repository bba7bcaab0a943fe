/**
 * The checks of `a2a-codegen verify`, declared once: what each checks, the specification section it cites
 * and the level of the requirement (MUST / SHOULD). verify.ts runs them; report.ts prints their results.
 */

export type Level = "MUST" | "SHOULD";
export type Scope = "card" | "JSONRPC" | "HTTP+JSON";

export interface CheckDeclaration {
  readonly id: string;
  readonly scope: Scope;
  readonly level: Level;
  /** The section of the A2A 1.0.1 specification it checks. */
  readonly section: string;
  readonly title: string;
}

export type Outcome = "pass" | "fail" | "skip";

export interface CheckResult extends CheckDeclaration {
  readonly outcome: Outcome;
  /** What was seen: the reason of a failure or a skip; empty on a pass. */
  readonly detail: string;
}

const check = (scope: Scope, id: string, level: Level, section: string, title: string): CheckDeclaration => ({ id: `${scope === "card" ? "card" : scope === "JSONRPC" ? "jsonrpc" : "rest"}.${id}`, scope, level, section, title });

export const CHECKS = {
  cardFetch: check("card", "fetch", "MUST", "§8.2", "the agent card is served at /.well-known/agent-card.json as a JSON object"),
  cardSchema: check("card", "schema", "MUST", "§4.4.1", "the agent card is a valid AgentCard of its version"),
  cardBindings: check("card", "bindings", "MUST", "§4.4.6", "every interface names a known binding and an absolute URL"),
  cardVersion: check("card", "version", "SHOULD", "§3.6", "interface protocol versions are Major.Minor, without a patch number"),
  cardCacheControl: check("card", "cache-control", "SHOULD", "§8.6.1", "the card response has Cache-Control with max-age"),
  cardEtag: check("card", "etag", "SHOULD", "§8.6.1", "the card response has an ETag"),

  rpcSend: check("JSONRPC", "send", "MUST", "§3.1.1, §9.4.1", "SendMessage answers a schema-valid task or message"),
  rpcGet: check("JSONRPC", "get", "MUST", "§3.1.3, §9.4.3", "GetTask answers the task created, schema-valid"),
  rpcCancel: check("JSONRPC", "cancel", "MUST", "§3.1.5, §9.4.5", "CancelTask answers a valid task, or TaskNotCancelable for a finished one"),
  rpcStream: check("JSONRPC", "stream", "MUST", "§3.1.2, §9.4.2", "SendStreamingMessage answers text/event-stream, each event a schema-valid JSON-RPC response of the request's id"),
  rpcTaskNotFound: check("JSONRPC", "task-not-found", "MUST", "§3.3.2, §5.4", "GetTask of an unknown id answers TaskNotFoundError (-32001)"),
  rpcParseError: check("JSONRPC", "parse-error", "MUST", "§9.5", "a body that is not JSON answers -32700"),
  rpcInvalidRequest: check("JSONRPC", "invalid-request", "MUST", "§9.5", "an envelope without a method answers -32600"),
  rpcMethodNotFound: check("JSONRPC", "method-not-found", "MUST", "§9.5", "an unknown method answers -32601"),
  rpcInvalidParams: check("JSONRPC", "invalid-params", "MUST", "§9.5", "SendMessage without a message answers -32602"),
  rpcVersion: check("JSONRPC", "version", "MUST", "§3.6, §6.4", "an unsupported A2A-Version answers VersionNotSupportedError"),

  restSend: check("HTTP+JSON", "send", "MUST", "§3.1.1, §11.3", "POST /message:send answers 200 and a schema-valid task or message"),
  restGet: check("HTTP+JSON", "get", "MUST", "§3.1.3, §11.3", "GET /tasks/{id} answers the task created, schema-valid"),
  restCancel: check("HTTP+JSON", "cancel", "MUST", "§3.1.5, §11.3", "POST /tasks/{id}:cancel answers a valid task, or 400 for a finished one"),
  restStream: check("HTTP+JSON", "stream", "MUST", "§3.1.2, §11.7", "POST /message:stream answers text/event-stream, each event a schema-valid StreamResponse"),
  restTaskNotFound: check("HTTP+JSON", "task-not-found", "MUST", "§5.4, §11.6", "GET /tasks/{unknown} answers 404 with a google.rpc.Status error body"),
  restBadBody: check("HTTP+JSON", "bad-body", "MUST", "§11.6", "a body that is not JSON answers 400 with a google.rpc.Status error body"),
  restVersion: check("HTTP+JSON", "version", "MUST", "§3.6, §6.4", "an unsupported A2A-Version answers an error status, not a result"),
} as const satisfies Record<string, CheckDeclaration>;

/** Every check, in the order they run and are reported. */
export const ALL_CHECKS: readonly CheckDeclaration[] = Object.values(CHECKS);
