/**
 * The checks of `a2a-codegen verify`, declared once: what each checks, the specification section it cites
 * and the level of the requirement (MUST / SHOULD). An agent is checked against the version its card
 * declares: 1.0.1's checks (card, JSON-RPC, HTTP+JSON, gRPC, owner scoping) or 0.3.0's (card, JSON-RPC,
 * owner scoping). The probes run them; report.ts prints their results.
 */

export type Level = "MUST" | "SHOULD";
export type Scope = "card" | "JSONRPC" | "HTTP+JSON" | "GRPC";
/** The specification versions verify has checks for. */
export type CheckedVersion = "1.0.1" | "0.3.0";

export interface CheckDeclaration {
  readonly id: string;
  readonly scope: Scope;
  readonly level: Level;
  /** The specification the section is of. */
  readonly spec: CheckedVersion;
  /** The section of that specification it checks. */
  readonly section: string;
  readonly title: string;
}

export type Outcome = "pass" | "fail" | "skip";

export interface CheckResult extends CheckDeclaration {
  readonly outcome: Outcome;
  /** What was seen: the reason of a failure or a skip; empty on a pass. */
  readonly detail: string;
}

const PREFIX: Record<Scope, string> = { card: "card", JSONRPC: "jsonrpc", "HTTP+JSON": "rest", GRPC: "grpc" };
const v1 = (scope: Scope, id: string, level: Level, section: string, title: string): CheckDeclaration => ({ id: `${PREFIX[scope]}.${id}`, scope, level, spec: "1.0.1", section, title });
const v03 = (scope: Scope, id: string, level: Level, section: string, title: string): CheckDeclaration => ({ id: `${PREFIX[scope]}.${id}`, scope, level, spec: "0.3.0", section, title });

/** The owner-scoping checks of one binding (1.0.1 §13.1: MUST). */
const owner = (scope: Scope, how: { get: string; cancel: string; subscribe: string; notFound: string }) => ({
  get: v1(scope, "owner-get", "MUST", "§13.1, §3.1.3", `${how.get} of a task another credential created answers ${how.notFound}`),
  cancel: v1(scope, "owner-cancel", "MUST", "§13.1, §3.1.5", `${how.cancel} of a task another credential created answers ${how.notFound} and leaves it as it was`),
  subscribe: v1(scope, "owner-subscribe", "MUST", "§13.1, §3.1.6", `${how.subscribe} to a task another credential created answers ${how.notFound}`),
});

/** The owner-scoping checks of a binding: get, cancel, subscribe by a second credential. */
export interface OwnerChecks {
  readonly get: CheckDeclaration;
  readonly cancel: CheckDeclaration;
  readonly subscribe: CheckDeclaration;
}

export const CHECKS = {
  cardFetch: v1("card", "fetch", "MUST", "§8.2", "the agent card is served at /.well-known/agent-card.json as a JSON object"),
  cardSchema: v1("card", "schema", "MUST", "§4.4.1", "the agent card is a valid AgentCard of its version"),
  cardBindings: v1("card", "bindings", "MUST", "§4.4.6", "every interface names a known binding and an absolute URL"),
  cardVersion: v1("card", "version", "SHOULD", "§3.6", "interface protocol versions are Major.Minor, without a patch number"),
  cardCacheControl: v1("card", "cache-control", "SHOULD", "§8.6.1", "the card response has Cache-Control with max-age"),
  cardEtag: v1("card", "etag", "SHOULD", "§8.6.1", "the card response has an ETag"),

  rpcSend: v1("JSONRPC", "send", "MUST", "§3.1.1, §9.4.1", "SendMessage answers a schema-valid task or message"),
  rpcGet: v1("JSONRPC", "get", "MUST", "§3.1.3, §9.4.3", "GetTask answers the task created, schema-valid"),
  rpcCancel: v1("JSONRPC", "cancel", "MUST", "§3.1.5, §9.4.5", "CancelTask answers a valid task, or TaskNotCancelable for a finished one"),
  rpcStream: v1("JSONRPC", "stream", "MUST", "§3.1.2, §9.4.2", "SendStreamingMessage answers text/event-stream, each event a schema-valid JSON-RPC response of the request's id"),
  rpcTaskNotFound: v1("JSONRPC", "task-not-found", "MUST", "§3.3.2, §5.4", "GetTask of an unknown id answers TaskNotFoundError (-32001)"),
  rpcCancelNotFound: v1("JSONRPC", "cancel-not-found", "MUST", "§3.1.5, §5.4", "CancelTask of an unknown id answers TaskNotFoundError (-32001)"),
  rpcSubscribeNotFound: v1("JSONRPC", "subscribe-not-found", "MUST", "§3.1.6, §5.4", "SubscribeToTask of an unknown id answers TaskNotFoundError (-32001)"),
  rpcParseError: v1("JSONRPC", "parse-error", "MUST", "§9.5", "a body that is not JSON answers -32700"),
  rpcInvalidRequest: v1("JSONRPC", "invalid-request", "MUST", "§9.5", "an envelope without a method answers -32600"),
  rpcMethodNotFound: v1("JSONRPC", "method-not-found", "MUST", "§9.5", "an unknown method answers -32601"),
  rpcInvalidParams: v1("JSONRPC", "invalid-params", "MUST", "§9.5", "SendMessage without a message answers -32602"),
  rpcVersion: v1("JSONRPC", "version", "MUST", "§3.6, §6.4", "an unsupported A2A-Version answers VersionNotSupportedError"),

  restSend: v1("HTTP+JSON", "send", "MUST", "§3.1.1, §11.3", "POST /message:send answers 200 and a schema-valid task or message"),
  restGet: v1("HTTP+JSON", "get", "MUST", "§3.1.3, §11.3", "GET /tasks/{id} answers the task created, schema-valid"),
  restCancel: v1("HTTP+JSON", "cancel", "MUST", "§3.1.5, §11.3", "POST /tasks/{id}:cancel answers a valid task, or 400 for a finished one"),
  restStream: v1("HTTP+JSON", "stream", "MUST", "§3.1.2, §11.7", "POST /message:stream answers text/event-stream, each event a schema-valid StreamResponse"),
  restTaskNotFound: v1("HTTP+JSON", "task-not-found", "MUST", "§5.4, §11.6", "GET /tasks/{unknown} answers 404 with a google.rpc.Status error body"),
  restCancelNotFound: v1("HTTP+JSON", "cancel-not-found", "MUST", "§3.1.5, §5.4", "POST /tasks/{unknown}:cancel answers 404"),
  restSubscribeNotFound: v1("HTTP+JSON", "subscribe-not-found", "MUST", "§3.1.6, §5.4", "POST /tasks/{unknown}:subscribe answers 404"),
  restBadBody: v1("HTTP+JSON", "bad-body", "MUST", "§11.6", "a body that is not JSON answers 400 with a google.rpc.Status error body"),
  restVersion: v1("HTTP+JSON", "version", "MUST", "§3.6, §6.4", "an unsupported A2A-Version answers an error status, not a result"),

  grpcSend: v1("GRPC", "send", "MUST", "§3.1.1, §10.4.1", "SendMessage answers OK and a SendMessageResponse that is a schema-valid task or message"),
  grpcGet: v1("GRPC", "get", "MUST", "§3.1.3, §10.4.3", "GetTask answers the task created, schema-valid"),
  grpcCancel: v1("GRPC", "cancel", "MUST", "§3.1.5, §10.4.5", "CancelTask answers a valid task, or FAILED_PRECONDITION for a finished one"),
  grpcStream: v1("GRPC", "stream", "MUST", "§3.1.2, §10.4.2, §10.7", "SendStreamingMessage streams messages that are each a schema-valid StreamResponse, then ends OK"),
  grpcTaskNotFound: v1("GRPC", "task-not-found", "MUST", "§5.4, §10.6", "GetTask of an unknown id answers NOT_FOUND with a google.rpc.ErrorInfo TASK_NOT_FOUND in domain a2a-protocol.org"),
  grpcCancelNotFound: v1("GRPC", "cancel-not-found", "MUST", "§3.1.5, §5.4", "CancelTask of an unknown id answers NOT_FOUND"),
  grpcSubscribeNotFound: v1("GRPC", "subscribe-not-found", "MUST", "§3.1.6, §5.4", "SubscribeToTask of an unknown id answers NOT_FOUND"),
  grpcInvalidArgument: v1("GRPC", "invalid-argument", "MUST", "§5.4, §10.6", "SendMessage without a message answers INVALID_ARGUMENT"),
  grpcVersion: v1("GRPC", "version", "MUST", "§3.6, §5.4, §10.2", "an unsupported a2a-version (metadata) answers FAILED_PRECONDITION with ErrorInfo VERSION_NOT_SUPPORTED"),

  rpcOwner: owner("JSONRPC", { get: "GetTask", cancel: "CancelTask", subscribe: "SubscribeToTask", notFound: "TaskNotFoundError (-32001)" }),
  restOwner: owner("HTTP+JSON", { get: "GET /tasks/{id}", cancel: "POST /tasks/{id}:cancel", subscribe: "POST /tasks/{id}:subscribe", notFound: "404" }),
  grpcOwner: owner("GRPC", { get: "GetTask", cancel: "CancelTask", subscribe: "SubscribeToTask", notFound: "NOT_FOUND" }),
} as const;

/**
 * 0.3.0's checks: its card (a top-level `url` and `preferredTransport`, `additionalInterfaces`) and its
 * JSON-RPC binding (method names `message/send`, `tasks/get`, …; error codes of §8). 0.3.0 states the
 * A2A error codes and authorization as SHOULD (§8.2, §4.6), the JSON-RPC 2.0 ones as the JSON-RPC
 * specification's MUST (§3.2.1).
 */
export const CHECKS_030 = {
  cardFetch: v03("card", "fetch", "MUST", "§5.3", "the agent card is served at /.well-known/agent-card.json as a JSON object"),
  cardSchema: v03("card", "schema", "MUST", "§5.5", "the agent card is a valid AgentCard of its version"),
  cardBindings: v03("card", "bindings", "MUST", "§5.6.4", "url and every additional interface give a transport name and an absolute URL"),
  // §5.6.1 calls preferredTransport REQUIRED, 0.3.0's schema makes it optional with the default JSONRPC: the
  // prose's requirement is reported, at SHOULD, since a card that follows the schema is not wrong.
  cardPreferredTransport: v03("card", "preferred-transport", "SHOULD", "§5.6.1", "the card states its preferredTransport (the schema's default is JSONRPC)"),

  rpcSend: v03("JSONRPC", "send", "MUST", "§7.1", "message/send answers a schema-valid task or message"),
  rpcGet: v03("JSONRPC", "get", "MUST", "§7.3", "tasks/get answers the task created, schema-valid"),
  rpcCancel: v03("JSONRPC", "cancel", "MUST", "§7.4", "tasks/cancel answers a valid task, or TaskNotCancelableError (-32002) for a finished one"),
  rpcStream: v03("JSONRPC", "stream", "MUST", "§7.2, §3.3.1", "message/stream answers text/event-stream, each event a schema-valid JSON-RPC response of the request's id"),
  rpcTaskNotFound: v03("JSONRPC", "task-not-found", "SHOULD", "§7.3, §8.2", "tasks/get of an unknown id answers TaskNotFoundError (-32001)"),
  rpcCancelNotFound: v03("JSONRPC", "cancel-not-found", "SHOULD", "§7.4, §8.2", "tasks/cancel of an unknown id answers TaskNotFoundError (-32001)"),
  rpcSubscribeNotFound: v03("JSONRPC", "subscribe-not-found", "SHOULD", "§7.9, §8.2", "tasks/resubscribe of an unknown id answers TaskNotFoundError (-32001)"),
  rpcParseError: v03("JSONRPC", "parse-error", "MUST", "§3.2.1, §8.1", "a body that is not JSON answers -32700"),
  rpcInvalidRequest: v03("JSONRPC", "invalid-request", "MUST", "§3.2.1, §8.1", "an envelope without a method answers -32600"),
  rpcMethodNotFound: v03("JSONRPC", "method-not-found", "MUST", "§3.2.1, §8.1", "an unknown method answers -32601"),
  rpcInvalidParams: v03("JSONRPC", "invalid-params", "MUST", "§3.2.1, §8.1", "message/send without a message answers -32602"),

  rpcOwner: {
    get: v03("JSONRPC", "owner-get", "SHOULD", "§4.6, §7.3", "tasks/get of a task another credential created answers TaskNotFoundError (-32001)"),
    cancel: v03("JSONRPC", "owner-cancel", "SHOULD", "§4.6, §7.4", "tasks/cancel of a task another credential created answers TaskNotFoundError (-32001) and leaves it as it was"),
    subscribe: v03("JSONRPC", "owner-subscribe", "SHOULD", "§4.6, §7.9", "tasks/resubscribe to a task another credential created answers TaskNotFoundError (-32001)"),
  },
} as const;

function flatten(table: object): CheckDeclaration[] {
  return Object.values(table).flatMap((value: CheckDeclaration | OwnerChecks) => ("id" in value ? [value] : [value.get, value.cancel, value.subscribe]));
}

/** Every check of a version, in the order they run and are reported (a binding's owner checks after its others). */
export function checksOf(version: CheckedVersion): readonly CheckDeclaration[] {
  const all = flatten(version === "1.0.1" ? CHECKS : CHECKS_030);
  const scopes: Scope[] = ["card", "JSONRPC", "HTTP+JSON", "GRPC"];
  return scopes.flatMap((scope) => all.filter((c) => c.scope === scope));
}

/** Every 1.0.1 check (kept for callers of the first release). */
export const ALL_CHECKS: readonly CheckDeclaration[] = checksOf("1.0.1");
