/**
 * The names of what the telemetry of an A2A agent emits, in one place: span names, attribute keys and
 * metric instruments (docs/observability.md lists them, and where they extend a2a-dotnet's).
 */

/** The instrumentation scope of every tracer and meter. */
export const INSTRUMENTATION_SCOPE = "a2a-codegen";

export const SPAN = {
  /** One server call: `a2a.server <method>` once the method is known. */
  server: "a2a.server",
  /** One client call or stream: `a2a.client <method>`. */
  client: "a2a.client",
  /** A turn of the agent executor (the executor runs inside it). */
  turn: "a2a.turn",
  /** One store operation: `a2a.store <part>.<operation>` (`a2a.store tasks.commit`). */
  store: "a2a.store",
  /** One push notification delivery (its retries included). */
  push: "a2a.push",
} as const;

export const ATTR = {
  /** The method as the version names it (`message/send`, `SendMessage`). */
  method: "a2a.method",
  /** The protocol binding: JSONRPC, HTTP+JSON, GRPC. */
  binding: "a2a.binding",
  /** The protocol version the agent speaks (`1.0.1`). */
  protocolVersion: "a2a.protocol.version",
  taskId: "a2a.task.id",
  contextId: "a2a.context.id",
  /** The A2A / JSON-RPC error code, or the HTTP / gRPC status of a refusal before the call. */
  errorCode: "a2a.error.code",
  /** The caller (only when `recordPrincipal` is configured). */
  principal: "a2a.principal",
  /** Whether the call is a stream. */
  streaming: "a2a.streaming",
  /** The store engine ("memory", "postgres", "redis", "sqlite"). */
  storeEngine: "a2a.store.engine",
  /** The store operation (`tasks.commit`). */
  storeOperation: "a2a.store.operation",
  /** delivered | failed (push), resumed | failed (take-over). */
  outcome: "a2a.outcome",
  /** The push webhook's status code. */
  httpStatus: "http.response.status_code",
  /** The standard attribute of a failed operation (OpenTelemetry's `error.type`). */
  errorType: "error.type",
} as const;

/** Metric instruments: a2a-dotnet's names, and ours beside them (marked "ours"). */
export const METRIC = {
  serverRequestCount: "a2a.server.request.count",
  serverRequestDuration: "a2a.server.request.duration",
  serverErrorCount: "a2a.server.error.count",
  serverTaskCreated: "a2a.server.task.created",
  serverStreamEventCount: "a2a.server.stream.event.count",
  /** Ours: streams open now. */
  serverStreamActive: "a2a.server.stream.active",
  /** Ours: how long a turn of the executor takes. */
  serverTurnDuration: "a2a.server.turn.duration",
  /** Ours: how long a store operation takes. */
  serverStoreDuration: "a2a.server.store.duration",
  /** Ours: push deliveries by outcome. */
  serverPushCount: "a2a.server.push.count",
  /** Ours: tasks taken over from a dead instance, by outcome. */
  serverLeaseTakeovers: "a2a.server.lease.takeover.count",
  clientRequestCount: "a2a.client.request.count",
  clientRequestDuration: "a2a.client.request.duration",
  clientErrorCount: "a2a.client.error.count",
  clientStreamEventCount: "a2a.client.stream.event.count",
} as const;
