/**
 * The framework-free A2A server of the generated code: it takes an HTTP request as plain data
 * ({ method, path, headers, body }) and answers with plain data (JSON, or a stream of Server-Sent Events);
 * the Express, Fastify, Hono and node:http adapters only translate. It runs the task runtime — the user
 * writes an AgentExecutor, everything else (tasks, streams, cancel, resubscribe, push notifications,
 * the agent card, security schemes, protocol hygiene) is here, for every A2A version, driven by the
 * version's profile.
 */
import { checkRequestEnvelope, failure, jsonRpcError, JSON_RPC_ERROR, parseJsonSafe, success, type JsonRpcId, type JsonRpcResponse } from "./jsonrpc.js";
import { isObject, newId, ProtocolShapes, type JsonObject, type MethodRole, type ProtocolProfile } from "./profile.js";
import { PushSender, UnsafeWebhookError, type PushSenderOptions } from "./push.js";
import { formatSseComment, formatSseEvent } from "./sse.js";
import { InMemoryPushConfigStore, InMemoryTaskStore, TaskEventBus, type PushConfigStore, type TaskStore } from "./tasks.js";
import type { ValidationIssue, Validator } from "./validation.js";

// ---------------------------------------------------------------------------------------------------
// Errors

/** An error the server answers as a JSON-RPC error (A2A codes come from the version's profile). */
export class A2AServerError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "A2AServerError";
  }
}

/** Auth failures answer with this JSON-RPC code (-32000: the implementation-defined server error range; A2A uses -32001…). */
export const AUTH_ERROR_CODE = -32000;

// ---------------------------------------------------------------------------------------------------
// The agent's side

/** What the executor knows of the request it serves. */
export interface RequestContext<TMessage = JsonObject, TTask = JsonObject> {
  readonly taskId: string;
  readonly contextId: string;
  /** The user's message. */
  readonly message: TMessage;
  /** The task as it was before this message (a follow-up turn), or undefined for a new task. */
  readonly task: TTask | undefined;
  /** The method that started the execution ("message/send", "message/stream", "tasks/send", ...). */
  readonly method: string;
  readonly streaming: boolean;
  /** Aborted when the task is canceled or the server closes. */
  readonly signal: AbortSignal;
  /** The authenticated principal the verifier returned, if any. */
  readonly principal: unknown;
  /** The text of the user's message (its text parts joined by newlines). */
  readonly text: string;
}

/** How the executor reports progress; every call becomes a task update in the version's shape. */
export interface EventPublisher<TMessage = JsonObject, TPart = JsonObject, TArtifact = JsonObject> {
  /** Answers with a message and no task (0.2+; in 0.1.0 it completes the task with that message). */
  reply(message: TMessage | string): void;
  /** Sets the task's state; terminal and interrupted states (input-required, auth-required) end the turn. */
  status(state: string, message?: TMessage | string): void;
  working(message?: TMessage | string): void;
  completed(message?: TMessage | string): void;
  failed(message?: TMessage | string): void;
  canceled(message?: TMessage | string): void;
  rejected(message?: TMessage | string): void;
  inputRequired(message: TMessage | string): void;
  /** Adds an artifact, or appends to one (same artifactId, `append: true`). */
  artifact(artifact: Omit<TArtifact, "artifactId"> & { artifactId?: string }, options?: { append?: boolean; lastChunk?: boolean }): void;
  /** A message of the agent's, in this version's shape, from parts or a text. */
  agentMessage(content: string | TPart[]): TMessage;
  textPart(text: string): TPart;
  dataPart(data: Record<string, unknown>): TPart;
}

export interface AgentExecutor<TMessage = JsonObject, TTask = JsonObject, TPart = JsonObject, TArtifact = JsonObject> {
  execute(context: RequestContext<TMessage, TTask>, events: EventPublisher<TMessage, TPart, TArtifact>): void | Promise<void>;
  /** Optional: how to cancel; by default the task is marked canceled and the execution's signal aborted. */
  cancel?(context: RequestContext<TMessage, TTask>, events: EventPublisher<TMessage, TPart, TArtifact>): void | Promise<void>;
}

/** A credential found in a request, for one security scheme of the card. */
export interface Credential {
  /** The card's name for the scheme (key of securitySchemes), or the 0.1.0 scheme name. */
  scheme: string;
  type: "bearer" | "basic" | "apiKey" | "oauth2" | "openIdConnect" | "mutualTLS" | "other";
  /** The token, key or `user:password`; empty for mutualTLS (check the TLS socket yourself). */
  value: string;
}

export type AuthDecision = boolean | { allow: true; principal?: unknown } | { allow: false; status?: 401 | 403; message?: string };

export interface AuthOptions {
  /** Decides whether a credential is good. Called for each scheme of the requirement being tried. */
  verify(credential: Credential, request: CoreRequest): AuthDecision | Promise<AuthDecision>;
  /** The realm in WWW-Authenticate; default "a2a". */
  realm?: string;
}

export interface ServerLogger {
  error(message: string, detail?: unknown): void;
  warn?(message: string, detail?: unknown): void;
}

export interface ServerOptions {
  /** The public agent card, served at the version's well-known path. */
  card: JsonObject;
  executor: AgentExecutor<never, never, never, never> | AgentExecutor;
  /** The card the authenticated extended-card method returns (0.3.0). */
  extendedCard?: JsonObject;
  taskStore?: TaskStore;
  pushConfigStore?: PushConfigStore;
  /** Push-notification sending: SSRF allow-list, retries; `false` disables sending (configs are still kept). */
  pushNotifications?: PushSenderOptions | false;
  auth?: AuthOptions;
  /** The path JSON-RPC requests are POSTed to; default: the path of card.url, else "/". */
  rpcPath?: string;
  /** Largest request body in bytes; default 1 MiB. */
  maxBodyBytes?: number;
  /** Largest batch; default 50. */
  maxBatchSize?: number;
  /** Interval of SSE heartbeat comments in ms; default 15_000; 0 = none. */
  heartbeatMs?: number;
  /** Methods the runtime does not know (a schema's new method): your handlers, by method name. */
  methods?: Record<string, (params: unknown, context: { principal: unknown; request: CoreRequest }) => unknown | Promise<unknown>>;
  /** Where internal errors are reported; default console.error. Responses never carry their text. */
  logger?: ServerLogger;
}

// ---------------------------------------------------------------------------------------------------
// HTTP as plain data

export interface CoreRequest {
  method: string;
  /** The path without the query. */
  path: string;
  query: URLSearchParams;
  /** Lower-case header names. */
  headers: Record<string, string | undefined>;
  /** The body, or "too-large" when the adapter stopped reading at the limit. */
  body: Uint8Array | string | "too-large" | undefined;
}

/** A sink the adapters give an SSE response to write into. */
export interface SseSink {
  write(chunk: string): void;
  end(): void;
}

export type CoreResponse =
  | { kind: "json"; status: number; headers: Record<string, string>; body: string }
  | { kind: "empty"; status: number; headers: Record<string, string> }
  | {
      kind: "sse";
      status: 200;
      headers: Record<string, string>;
      /** Starts the stream; returns the function the adapter calls when the client goes away. */
      open(sink: SseSink): () => void;
    };

/** What a generated server/core.ts binds to the runtime for its version. */
export interface ProtocolBinding {
  profile: ProtocolProfile;
  methods: Record<string, { requestType: string; streaming: boolean }>;
  validators: Record<string, Validator<unknown>>;
}

const JSON_HEADERS = { "content-type": "application/json" };
const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};

// ---------------------------------------------------------------------------------------------------
// Executions: one run of the executor for one task

interface Execution {
  taskId: string;
  contextId: string;
  /** The task, once the executor published something (or the request needed one at once). */
  task: JsonObject | undefined;
  /** Set when the executor answered with a message and no task. */
  reply: JsonObject | undefined;
  /** Resolves when the turn is over (final state, reply, or the executor returned). */
  settled: Promise<void>;
  settle(): void;
  done: boolean;
  abort: AbortController;
  /** Listeners for the first thing the execution publishes (the streams of the request that started it). */
  artifactCount: number;
}

export class A2AServerCore {
  readonly shapes: ProtocolShapes;
  readonly bus = new TaskEventBus();
  readonly tasks: TaskStore;
  readonly pushConfigs: PushConfigStore;
  private readonly executions = new Map<string, Execution>();
  private readonly pushSender: PushSender | undefined;
  private readonly pendingPushes = new Set<Promise<unknown>>();
  private readonly rpcPath: string;
  private readonly maxBodyBytes: number;
  private readonly logger: ServerLogger;
  private readonly shutdown = new AbortController();
  private readonly roleOf = new Map<string, MethodRole>();
  /** The agent card paths answered (the version's, and the other well-known spellings). */
  private readonly cardPaths: ReadonlySet<string>;
  /** The card's security requirements, read once: alternatives, each a list of schemes that must all pass. */
  private readonly requirements: Array<Array<{ name: string; scheme: JsonObject }>>;

  constructor(
    private readonly binding: ProtocolBinding,
    private readonly options: ServerOptions,
  ) {
    this.shapes = new ProtocolShapes(binding.profile);
    this.tasks = options.taskStore ?? new InMemoryTaskStore();
    this.pushConfigs = options.pushConfigStore ?? new InMemoryPushConfigStore();
    this.pushSender = options.pushNotifications === false ? undefined : new PushSender(options.pushNotifications ?? {});
    this.maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
    this.logger = options.logger ?? { error: (m, d) => console.error(m, d) };
    this.rpcPath = options.rpcPath ?? pathOf(ProtocolShapes.jsonRpcEndpoint(options.card)) ?? "/";
    for (const [role, method] of Object.entries(binding.profile.methods)) {
      if (method) this.roleOf.set(method, role as MethodRole);
    }
    this.cardPaths = new Set([binding.profile.wellKnownAgentCardPath, "/.well-known/agent-card.json", "/.well-known/agent.json"]);
    this.requirements = this.securityRequirements();
    if (this.requirements.length > 0 && !options.auth) {
      throw new Error("the agent card declares security schemes: pass `auth.verify` to check credentials (the server fails closed)");
    }
  }

  /** The paths this server answers: its JSON-RPC path and the agent card paths. Adapters pass other paths on. */
  handles(path: string): boolean {
    return path === this.rpcPath || this.cardPaths.has(path);
  }

  get limits(): { maxBodyBytes: number } {
    return { maxBodyBytes: this.maxBodyBytes };
  }

  /** Stops executions, waits for pending push notifications; the adapters close their sockets. */
  async close(): Promise<void> {
    this.shutdown.abort();
    for (const execution of this.executions.values()) execution.abort.abort();
    await Promise.allSettled([...this.pendingPushes]);
  }

  // ------------------------------------------------------------------------------------------------
  // HTTP

  async handle(request: CoreRequest): Promise<CoreResponse> {
    try {
      return await this.route(request);
    } catch (error) {
      this.logger.error("a2a: internal error while handling a request", error);
      return json(500, failure(null, jsonRpcError(JSON_RPC_ERROR.internalError, "Internal error")));
    }
  }

  private async route(request: CoreRequest): Promise<CoreResponse> {
    if (this.cardPaths.has(request.path)) {
      if (request.method !== "GET" && request.method !== "HEAD") return httpError(405, "Use GET for the agent card", { allow: "GET, HEAD" });
      return { kind: "json", status: 200, headers: { ...JSON_HEADERS, "cache-control": "public, max-age=60" }, body: JSON.stringify(this.options.card) };
    }
    if (request.path !== this.rpcPath) return httpError(404, `Not found: ${request.path}`);
    if (request.method !== "POST") return httpError(405, "A2A JSON-RPC requests are POSTed", { allow: "POST" });

    const auth = await this.authenticate(request);
    if (!auth.ok) return auth.response;

    if (request.body === "too-large") {
      return json(413, failure(null, jsonRpcError(JSON_RPC_ERROR.invalidRequest, `Request body exceeds ${this.maxBodyBytes} bytes`)), { connection: "close" });
    }
    const type = (request.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
    if (type !== "application/json" && !/^application\/[\w.+-]*\+json$/.test(type)) {
      return json(
        415,
        failure(null, jsonRpcError(JSON_RPC_ERROR.invalidRequest, `Content-Type must be application/json, got ${type ? `"${type}"` : "none"}`)),
      );
    }
    const text = typeof request.body === "string" ? request.body : new TextDecoder("utf-8", { fatal: false }).decode(request.body ?? new Uint8Array());
    const parsed = parseJsonSafe(text);
    if (!parsed.ok) return json(200, failure(null, jsonRpcError(JSON_RPC_ERROR.parseError, "Parse error", this.details(JSON_RPC_ERROR.parseError, { message: parsed.message }))));

    if (Array.isArray(parsed.value)) return this.batch(parsed.value, request, auth.principal);
    const single = await this.dispatch(parsed.value, request, auth.principal, false);
    if (single === undefined) return { kind: "empty", status: 204, headers: {} };
    if ("kind" in single) return single;
    return json(200, single);
  }

  private async batch(items: unknown[], request: CoreRequest, principal: unknown): Promise<CoreResponse> {
    if (items.length === 0) return json(200, failure(null, jsonRpcError(JSON_RPC_ERROR.invalidRequest, "Empty batch")));
    const max = this.options.maxBatchSize ?? 50;
    if (items.length > max) return json(200, failure(null, jsonRpcError(JSON_RPC_ERROR.invalidRequest, `Batch larger than ${max} requests`)));
    const answers: JsonRpcResponse[] = [];
    for (const item of items) {
      const answer = await this.dispatch(item, request, principal, true);
      if (answer !== undefined && !("kind" in answer)) answers.push(answer);
    }
    if (answers.length === 0) return { kind: "empty", status: 204, headers: {} };
    return { kind: "json", status: 200, headers: { ...JSON_HEADERS }, body: JSON.stringify(answers) };
  }

  /** One JSON-RPC request → its response, an SSE stream, or nothing (a notification). */
  private async dispatch(
    value: unknown,
    request: CoreRequest,
    principal: unknown,
    inBatch: boolean,
  ): Promise<JsonRpcResponse | Extract<CoreResponse, { kind: "sse" }> | undefined> {
    // Where the version's schema leaves `jsonrpc` optional (0.1.0), a request without it is accepted.
    const tolerant = !this.binding.profile.jsonrpcRequired && isObject(value) && !("jsonrpc" in value) ? { ...value, jsonrpc: "2.0" } : value;
    const envelope = checkRequestEnvelope(tolerant);
    if (!envelope.ok) {
      const error = asIssues(envelope.error);
      return failure(envelope.id, jsonRpcError(error.code, error.message, this.details(error.code, error.data)));
    }
    const { request: rpc, notification } = envelope;
    const id: JsonRpcId = rpc.id ?? null;
    const descriptor = Object.prototype.hasOwnProperty.call(this.binding.methods, rpc.method) ? this.binding.methods[rpc.method] : undefined;
    const custom = this.options.methods && Object.prototype.hasOwnProperty.call(this.options.methods, rpc.method) ? this.options.methods[rpc.method] : undefined;
    if (!descriptor && !custom) {
      return notification ? undefined : failure(id, jsonRpcError(JSON_RPC_ERROR.methodNotFound, `Method not found: ${rpc.method}`, this.details(JSON_RPC_ERROR.methodNotFound, { method: rpc.method })));
    }
    const streaming = descriptor?.streaming ?? false;
    const versionProblem = this.versionProblem(request);
    if (versionProblem) {
      return notification ? undefined : failure(id, jsonRpcError(this.code("VersionNotSupported", JSON_RPC_ERROR.invalidRequest), versionProblem.message, this.details(this.code("VersionNotSupported", JSON_RPC_ERROR.invalidRequest), versionProblem.data)));
    }
    if (streaming && (notification || inBatch)) {
      return notification ? undefined : failure(id, jsonRpcError(JSON_RPC_ERROR.invalidRequest, "A streaming method cannot be called in a batch"));
    }
    // A streaming method answers with a stream, its errors too (as one error event): clients expect SSE.
    const answer = (response: JsonRpcResponse) => (streaming ? this.sseOnce(response) : response);
    if (descriptor) {
      const validate = this.binding.validators[descriptor.requestType];
      if (validate && !validate(value)) {
        const issues = validate.errors ?? [];
        // Problems outside params are problems of the envelope.
        const envelopeIssues = issues.filter((i) => !(i.pointer === "/params" || i.pointer.startsWith("/params/")));
        const code = envelopeIssues.length > 0 ? JSON_RPC_ERROR.invalidRequest : JSON_RPC_ERROR.invalidParams;
        if (notification) return undefined;
        return answer(failure(id, jsonRpcError(code, code === JSON_RPC_ERROR.invalidParams ? "Invalid params" : "Invalid request", this.details(code, { issues: publicIssues(issues) }))));
      }
    }
    try {
      const params = isObject(rpc.params) ? rpc.params : {};
      const role = this.roleOf.get(rpc.method);
      if (streaming) return await this.openStream(role, rpc.method, params, id, principal);
      const result = custom && !role ? await custom(rpc.params, { principal, request }) : await this.call(role, rpc.method, params, principal, request);
      return notification ? undefined : success(id, result === undefined ? null : result);
    } catch (error) {
      if (notification) return undefined;
      if (error instanceof A2AServerError) return answer(failure(id, jsonRpcError(error.code, error.message, this.details(error.code, error.data))));
      this.logger.error(`a2a: internal error in ${rpc.method}`, error);
      return answer(failure(id, jsonRpcError(JSON_RPC_ERROR.internalError, "Internal error")));
    }
  }

  /**
   * Error `data` in the version's form: as it is (0.x), or (1.0, §9.5) a list of google.rpc details: the
   * validation issues as a BadRequest with field violations, anything else as an ErrorInfo.
   */
  private details(code: number, data: unknown): unknown {
    if (data === undefined || !this.binding.profile.errorDetails) return data;
    if (isObject(data) && Array.isArray(data.issues)) {
      return [
        {
          "@type": "type.googleapis.com/google.rpc.BadRequest",
          fieldViolations: (data.issues as ValidationIssue[]).map((i) => ({ field: fieldPath(i.pointer), description: i.message })),
        },
      ];
    }
    const name = Object.entries(this.binding.profile.errorCodes).find(([, c]) => c === code)?.[0] ?? "Error";
    const metadata: Record<string, string> = {};
    if (isObject(data)) for (const [key, value] of Object.entries(data)) metadata[key] = typeof value === "string" ? value : JSON.stringify(value);
    else metadata.detail = JSON.stringify(data);
    return [
      {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        reason: name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase(),
        domain: "a2a-protocol.org",
        metadata,
      },
    ];
  }

  /**
   * Version negotiation (1.0 on): the client names the version it speaks in the A2A-Version header (or
   * query parameter); a Major.Minor other than the server's, or none (the spec reads none as 0.3), is
   * answered with VersionNotSupportedError.
   */
  private versionProblem(request: CoreRequest): { message: string; data: unknown } | undefined {
    const name = this.binding.profile.versionHeader;
    if (!name) return undefined;
    const asked = request.headers[name.toLowerCase()] ?? request.query.get(name) ?? undefined;
    const supported = this.binding.profile.specVersion.split(".").slice(0, 2).join(".");
    const askedMinor = asked?.trim().split(".").slice(0, 2).join(".");
    if (askedMinor === supported) return undefined;
    return {
      message: asked ? `Version ${asked} is not supported; this agent speaks ${supported}` : `No ${name} given (read as 0.3); this agent speaks ${supported}`,
      data: { supported: [supported], requested: asked ?? null },
    };
  }

  // ------------------------------------------------------------------------------------------------
  // Methods by role

  private async call(role: MethodRole | undefined, method: string, params: JsonObject, principal: unknown, request: CoreRequest): Promise<unknown> {
    switch (role) {
      case "send":
        return this.shapes.wrap("send", await this.send(method, params, principal));
      case "list":
        return this.listTasks(params);
      case "get":
        return this.getTask(params);
      case "cancel":
        return this.cancelTask(params, principal);
      case "pushSet":
        return this.setPushConfig(params);
      case "pushGet":
        return this.getPushConfig(params);
      case "pushList":
        return this.listPushConfigs(params);
      case "pushDelete":
        await this.deletePushConfig(params);
        return this.binding.profile.emptyResults.includes("pushDelete") ? {} : null;
      case "extendedCard":
        return this.extendedCard();
      default: {
        const handler = this.options.methods?.[method];
        if (handler) return handler(params, { principal, request });
        throw new A2AServerError(this.code("UnsupportedOperation", JSON_RPC_ERROR.methodNotFound), `Method not implemented: ${method}`);
      }
    }
  }

  private code(name: string, fallback: number): number {
    return this.binding.profile.errorCodes[name] ?? fallback;
  }

  private capability(name: "streaming" | "pushNotifications"): boolean {
    const capabilities = this.options.card.capabilities;
    return isObject(capabilities) && capabilities[name] === true;
  }

  private async send(method: string, params: JsonObject, principal: unknown): Promise<unknown> {
    const request = this.shapes.sendParams(params);
    const execution = await this.startExecution(method, request, principal, false);
    if (!request.blocking) {
      const task = execution.task ?? (await this.materialize(execution));
      return this.shapes.withHistory(task, request.historyLength);
    }
    await execution.settled;
    if (execution.reply && !execution.task) return execution.reply;
    const task = (await this.tasks.get(execution.taskId)) ?? execution.task;
    return task ? this.shapes.withHistory(task, request.historyLength) : null;
  }

  /** ListTasks (1.0): newest first, filtered by context and state, paged by an opaque offset token. */
  private async listTasks(params: JsonObject): Promise<JsonObject> {
    if (!this.tasks.list) throw new A2AServerError(this.code("UnsupportedOperation", JSON_RPC_ERROR.methodNotFound), "This task store cannot list tasks");
    const contextId = typeof params.contextId === "string" && params.contextId !== "" ? params.contextId : undefined;
    let tasks = await this.tasks.list(contextId === undefined ? {} : { contextId });
    const status = typeof params.status === "string" && !/UNSPECIFIED$/.test(params.status) ? params.status : undefined;
    if (status !== undefined) tasks = tasks.filter((t) => isObject(t.status) && t.status.state === status);
    if (params.statusTimestampAfter !== undefined) {
      const after = typeof params.statusTimestampAfter === "string" ? Date.parse(params.statusTimestampAfter) : NaN;
      if (Number.isNaN(after)) {
        throw new A2AServerError(JSON_RPC_ERROR.invalidParams, "Invalid params: statusTimestampAfter is not an RFC 3339 timestamp", {
          issues: [{ pointer: "/params/statusTimestampAfter", expected: "an RFC 3339 timestamp", got: JSON.stringify(params.statusTimestampAfter), keyword: "format", message: "/params/statusTimestampAfter: expected an RFC 3339 timestamp" }],
        });
      }
      // "Greater than or equal" (the proto's comment).
      tasks = tasks.filter((t) => isObject(t.status) && Date.parse(String(t.status.timestamp)) >= after);
    }
    const pageSize = Math.min(Math.max(typeof params.pageSize === "number" && params.pageSize > 0 ? params.pageSize : 50, 1), 100);
    const offset = typeof params.pageToken === "string" && /^\d+$/.test(params.pageToken) ? Number(params.pageToken) : 0;
    const page = tasks.slice(offset, offset + pageSize).map((t) => {
      const trimmed = this.shapes.withHistory(t, typeof params.historyLength === "number" ? params.historyLength : undefined);
      if (params.includeArtifacts === true) return trimmed;
      const { artifacts: _omitted, ...rest } = trimmed;
      return rest;
    });
    const next = offset + pageSize < tasks.length ? String(offset + pageSize) : "";
    return { tasks: page, nextPageToken: next, pageSize, totalSize: tasks.length };
  }

  private async getTask(params: JsonObject): Promise<JsonObject> {
    const task = await this.requireTask(this.shapes.paramsTaskId(params));
    const length = params.historyLength;
    return this.shapes.withHistory(task, typeof length === "number" ? length : undefined);
  }

  private async requireTask(taskId: string | undefined): Promise<JsonObject> {
    const task = taskId === undefined ? undefined : await this.tasks.get(taskId);
    if (!task) throw new A2AServerError(this.code("TaskNotFound", JSON_RPC_ERROR.invalidParams), "Task not found", { taskId: taskId ?? null });
    return task;
  }

  private async cancelTask(params: JsonObject, principal: unknown): Promise<JsonObject> {
    const task = await this.requireTask(this.shapes.paramsTaskId(params));
    const status = isObject(task.status) ? task.status : {};
    if (this.shapes.isTerminal(status.state)) {
      throw new A2AServerError(this.code("TaskNotCancelable", JSON_RPC_ERROR.invalidParams), "Task cannot be canceled", {
        taskId: task.id,
        state: status.state,
      });
    }
    const taskId = task.id as string;
    let execution = this.executions.get(taskId);
    if (!execution) execution = this.newExecution(taskId, contextOf(task, this.shapes), task);
    const publisher = this.publisher(execution);
    const context = this.context(execution, "cancel", lastUserMessage(task), task, false, principal);
    execution.abort.abort();
    if (this.options.executor.cancel) {
      await (this.options.executor as AgentExecutor).cancel?.(context, publisher);
    }
    if (!execution.done) publisher.canceled();
    await publisher.drain();
    return (await this.tasks.get(taskId)) ?? task;
  }

  private pushEnabled(): void {
    if (!this.capability("pushNotifications")) {
      throw new A2AServerError(
        this.code("PushNotificationNotSupported", JSON_RPC_ERROR.invalidRequest),
        "Push Notification is not supported",
      );
    }
  }

  private async checkWebhook(config: JsonObject): Promise<void> {
    if (typeof config.url !== "string") throw new A2AServerError(JSON_RPC_ERROR.invalidParams, "Invalid params", { reason: "the push notification config needs a url" });
    try {
      await (this.pushSender ?? new PushSender()).checkUrl(config.url);
    } catch (error) {
      if (error instanceof UnsafeWebhookError) {
        throw new A2AServerError(JSON_RPC_ERROR.invalidParams, "Invalid params: webhook URL refused", { url: config.url, reason: error.message });
      }
      throw error;
    }
  }

  private async setPushConfig(params: JsonObject): Promise<JsonObject> {
    this.pushEnabled();
    const taskId = this.shapes.paramsTaskId(params);
    await this.requireTask(taskId);
    const config = this.shapes.pushConfigOf(params);
    await this.checkWebhook(config);
    const stored = await this.pushConfigs.set(taskId as string, this.withConfigId(config, taskId as string));
    return this.shapes.taskPushConfig(taskId as string, stored);
  }

  private withConfigId(config: JsonObject, taskId: string): JsonObject {
    const hasId = this.shapes.has("PushNotificationConfig", "id") || (this.shapes.flatPushConfigs && this.shapes.has("TaskPushNotificationConfig", "id"));
    if (!hasId) {
      const { id: _ignored, ...rest } = config;
      return rest;
    }
    return typeof config.id === "string" && config.id !== "" ? config : { ...config, id: taskId };
  }

  private async getPushConfig(params: JsonObject): Promise<JsonObject> {
    this.pushEnabled();
    const taskId = this.shapes.paramsTaskId(params);
    await this.requireTask(taskId);
    const configId = this.shapes.pushConfigIdOf(params);
    const config = await this.pushConfigs.get(taskId as string, configId);
    if (!config) {
      throw new A2AServerError(this.code("TaskNotFound", JSON_RPC_ERROR.invalidParams), "Push notification config not found", { taskId, configId: configId ?? null });
    }
    return this.shapes.taskPushConfig(taskId as string, config);
  }

  private async listPushConfigs(params: JsonObject): Promise<JsonObject[] | JsonObject> {
    this.pushEnabled();
    const taskId = this.shapes.paramsTaskId(params);
    await this.requireTask(taskId);
    const configs = (await this.pushConfigs.list(taskId as string)).map((c) => this.shapes.taskPushConfig(taskId as string, c));
    // 1.0 answers a page object; 0.x a bare list.
    return this.shapes.has("ListTaskPushNotificationConfigsResponse", "configs") ? { configs } : configs;
  }

  private async deletePushConfig(params: JsonObject): Promise<null> {
    this.pushEnabled();
    const taskId = this.shapes.paramsTaskId(params);
    await this.requireTask(taskId);
    const configId = this.shapes.pushConfigIdOf(params) ?? (taskId as string);
    // Deleting is idempotent (1.0 §3.1.10): a config that is already gone is not an error.
    await this.pushConfigs.delete(taskId as string, configId);
    return null;
  }

  private extendedCard(): JsonObject {
    const card = this.options.card;
    const declared = card.supportsAuthenticatedExtendedCard === true || (isObject(card.capabilities) && card.capabilities.extendedAgentCard === true);
    const codes = this.binding.profile.errorCodes;
    const notConfigured = codes.ExtendedAgentCardNotConfigured ?? codes.AuthenticatedExtendedCardNotConfigured;
    if (!declared && codes.ExtendedAgentCardNotConfigured !== undefined) {
      // 1.0 §3.3.4: a card that does not declare the capability → UnsupportedOperationError.
      throw new A2AServerError(this.code("UnsupportedOperation", JSON_RPC_ERROR.methodNotFound), "This agent has no extended agent card");
    }
    if (!this.options.extendedCard || !declared) {
      throw new A2AServerError(notConfigured ?? JSON_RPC_ERROR.methodNotFound, "Extended agent card is not configured");
    }
    return this.options.extendedCard;
  }

  // ------------------------------------------------------------------------------------------------
  // Streams

  private async openStream(
    role: MethodRole | undefined,
    method: string,
    params: JsonObject,
    id: JsonRpcId,
    principal: unknown,
  ): Promise<Extract<CoreResponse, { kind: "sse" }>> {
    if (!this.capability("streaming")) {
      throw new A2AServerError(this.code("UnsupportedOperation", JSON_RPC_ERROR.invalidRequest), "Streaming is not supported by this agent");
    }
    if (role === "resubscribe") return this.resubscribe(params, id, role);
    if (role !== "stream") throw new A2AServerError(this.code("UnsupportedOperation", JSON_RPC_ERROR.methodNotFound), `Method not implemented: ${method}`);

    const request = this.shapes.sendParams(params);
    // Subscribe before the executor starts, so that no event is missed.
    const queue: Array<{ event: JsonObject; final: boolean }> = [];
    let forward: ((event: JsonObject, final: boolean) => void) | undefined;
    const listener = (event: JsonObject, final: boolean) => (forward ? forward(event, final) : queue.push({ event, final }));
    let unsubscribe: () => void = () => undefined;
    await this.startExecution(method, request, principal, true, (taskId) => {
      unsubscribe = this.bus.subscribe(taskId, listener);
    });
    return this.sse(id, role, (emit, end) => {
      forward = (event, final) => {
        emit(event);
        if (final) end();
      };
      for (const { event, final } of queue.splice(0)) {
        forward(event, final);
        if (final) return unsubscribe;
      }
      return unsubscribe;
    });
  }

  private async resubscribe(params: JsonObject, id: JsonRpcId, role: MethodRole): Promise<Extract<CoreResponse, { kind: "sse" }>> {
    const task = await this.requireTask(this.shapes.paramsTaskId(params));
    const taskId = task.id as string;
    if (isObject(task.status) && this.shapes.isTerminal(task.status.state)) {
      // Nothing more will happen to a finished task (1.0 §3.1.6).
      throw new A2AServerError(this.code("UnsupportedOperation", JSON_RPC_ERROR.invalidParams), `Task ${taskId} is ${String(task.status.state)}: there is nothing to subscribe to`, { taskId });
    }
    const execution = this.executions.get(taskId);
    const taskEvent = this.streamsTasks();
    return this.sse(id, role, (emit, end) => {
      if (!execution || execution.done) {
        // Nothing more will happen: the current state, and the end.
        if (taskEvent) emit(task);
        else emit(this.shapes.statusEvent({ taskId, contextId: contextOf(task, this.shapes), status: task.status as JsonObject, final: true }));
        end();
        return () => undefined;
      }
      const unsubscribe = this.bus.subscribe(taskId, (event, final) => {
        emit(event);
        if (final) end();
      });
      if (taskEvent) emit(task);
      return unsubscribe;
    });
  }

  /** Whether this version's stream results include Task objects (0.2+) or only update events (0.1.0). */
  private streamsTasks(): boolean {
    return this.binding.profile.streamResults.includes("Task");
  }

  /** An SSE response of one JSON-RPC response (an error of a streaming method), then the end. */
  private sseOnce(response: JsonRpcResponse): Extract<CoreResponse, { kind: "sse" }> {
    return {
      kind: "sse",
      status: 200,
      headers: { ...SSE_HEADERS },
      open: (sink) => {
        sink.write(formatSseEvent({ data: JSON.stringify(response) }));
        sink.end();
        return () => undefined;
      },
    };
  }

  /** An SSE response: each emitted result is framed as a JSON-RPC response with the request's id. */
  private sse(
    id: JsonRpcId,
    role: MethodRole,
    start: (emit: (result: unknown) => void, end: () => void) => () => void,
  ): Extract<CoreResponse, { kind: "sse" }> {
    const heartbeatMs = this.options.heartbeatMs ?? 15_000;
    return {
      kind: "sse",
      status: 200,
      headers: { ...SSE_HEADERS },
      open: (sink) => {
        let closed = false;
        let stop: () => void = () => undefined;
        let timer: ReturnType<typeof setInterval> | undefined;
        const close = () => {
          if (closed) return;
          closed = true;
          if (timer) clearInterval(timer);
          stop();
        };
        const emit = (result: unknown) => {
          if (!closed) sink.write(formatSseEvent({ data: JSON.stringify(success(id, this.shapes.wrap(role, result))) }));
        };
        const end = () => {
          if (closed) return;
          close();
          sink.end();
        };
        if (heartbeatMs > 0) {
          timer = setInterval(() => !closed && sink.write(formatSseComment("ping")), heartbeatMs);
          (timer as { unref?: () => void }).unref?.();
        }
        const onShutdown = () => end();
        this.shutdown.signal.addEventListener("abort", onShutdown, { once: true });
        const unsubscribe = start(emit, end);
        stop = () => {
          unsubscribe();
          this.shutdown.signal.removeEventListener("abort", onShutdown);
        };
        if (closed) stop();
        return close;
      },
    };
  }

  // ------------------------------------------------------------------------------------------------
  // Executions

  private newExecution(taskId: string, contextId: string, task: JsonObject | undefined): Execution {
    let settle: () => void = () => undefined;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    const execution: Execution = {
      taskId,
      contextId,
      task,
      reply: undefined,
      settled,
      settle: () => {
        execution.done = true;
        settle();
      },
      done: false,
      abort: new AbortController(),
      artifactCount: Array.isArray(task?.artifacts) ? task.artifacts.length : 0,
    };
    return execution;
  }

  /**
   * Starts (or continues) the task a send/stream request names and runs the executor in the
   * background. `beforeRun` sees the task id first (streams subscribe there).
   */
  private async startExecution(
    method: string,
    request: ReturnType<ProtocolShapes["sendParams"]>,
    principal: unknown,
    streaming: boolean,
    beforeRun?: (taskId: string) => void,
  ): Promise<Execution> {
    let existing: JsonObject | undefined;
    if (request.taskId !== undefined) {
      existing = await this.tasks.get(request.taskId);
      if (!existing && !request.clientChosenTaskId) {
        throw new A2AServerError(this.code("TaskNotFound", JSON_RPC_ERROR.invalidParams), "Task not found", { taskId: request.taskId });
      }
    }
    if (existing) {
      const state = isObject(existing.status) ? existing.status.state : undefined;
      if (this.shapes.isTerminal(state)) {
        // A task in a terminal state cannot be restarted (1.0 §3.1.1: UnsupportedOperationError).
        throw new A2AServerError(this.code("UnsupportedOperation", JSON_RPC_ERROR.invalidParams), `Task ${String(existing.id)} is ${String(state)} and cannot take more messages`, {
          taskId: existing.id,
          state,
        });
      }
      if (this.executions.get(existing.id as string)?.done === false) {
        throw new A2AServerError(JSON_RPC_ERROR.invalidParams, `Task ${String(existing.id)} is still working on the previous message`, {
          taskId: existing.id,
        });
      }
    }
    const taskId = existing ? (existing.id as string) : (request.taskId ?? newId());
    const contextId = existing ? contextOf(existing, this.shapes) : (request.contextId ?? newId());
    const message = this.shapes.stamp(request.message, taskId, contextId);

    if (request.pushConfig) {
      this.pushEnabled();
      await this.checkWebhook(request.pushConfig);
    }

    const execution = this.newExecution(taskId, contextId, undefined);
    if (existing) {
      const history = Array.isArray(existing.history) ? existing.history : [];
      execution.task = { ...existing, history: [...history, message] };
      execution.artifactCount = Array.isArray(existing.artifacts) ? existing.artifacts.length : 0;
      await this.tasks.save(execution.task);
    }
    this.executions.set(taskId, execution);
    if (request.pushConfig) await this.pushConfigs.set(taskId, this.withConfigId(request.pushConfig, taskId));
    beforeRun?.(taskId);
    if (!request.blocking && !execution.task) await this.materialize(execution, message);

    const context = this.context(execution, method, message, existing, streaming, principal);
    const publisher = this.publisher(execution, message);
    void (async () => {
      try {
        await (this.options.executor as AgentExecutor).execute(context, publisher);
        if (!execution.done) {
          // The executor returned without ending the turn: the task is complete.
          if (execution.task || !execution.reply) publisher.completed();
        }
      } catch (error) {
        if (!execution.done) {
          this.logger.error(`a2a: the agent executor failed on task ${taskId}`, error);
          publisher.failed("The agent failed to process the message.");
        }
      } finally {
        await publisher.drain();
        if (this.executions.get(taskId) === execution) this.executions.delete(taskId);
        execution.settle();
      }
    })();
    return execution;
  }

  private context(execution: Execution, method: string, message: JsonObject, task: JsonObject | undefined, streaming: boolean, principal: unknown): RequestContext {
    const parts = Array.isArray(message.parts) ? message.parts : [];
    const text = parts
      .filter((p): p is JsonObject => isObject(p) && typeof p.text === "string")
      .map((p) => p.text as string)
      .join("\n");
    return {
      taskId: execution.taskId,
      contextId: execution.contextId,
      message,
      task,
      method,
      streaming,
      // close() aborts every execution: no need to tie each signal to the server's.
      signal: execution.abort.signal,
      principal,
      text,
    };
  }

  /** Creates the task of an execution (state submitted) the first time it is needed. */
  private async materialize(execution: Execution, message?: JsonObject): Promise<JsonObject> {
    if (execution.task) return execution.task;
    const task = this.shapes.task({
      id: execution.taskId,
      contextId: execution.contextId,
      status: this.shapes.status("submitted"),
      history: message ? [message] : [],
    });
    execution.task = task;
    await this.tasks.save(task);
    if (this.streamsTasks()) this.bus.publish(execution.taskId, task, false);
    return task;
  }

  /** The publisher of an execution, and `drain()`, which resolves when its updates are all recorded. */
  private publisher(execution: Execution, userMessage?: JsonObject): EventPublisher & { drain(): Promise<void> } {
    const shapes = this.shapes;
    const asMessage = (content: JsonObject | string): JsonObject =>
      typeof content === "string"
        ? shapes.message({ role: "agent", parts: [shapes.textPart(content)], taskId: execution.taskId, contextId: execution.contextId })
        : shapes.stamp(content, execution.taskId, execution.contextId);
    // Updates are applied in order, one after the other, even when the executor does not await.
    let chain: Promise<void> = Promise.resolve();
    const enqueue = (work: () => Promise<void>) => {
      chain = chain.then(work).catch((error: unknown) => this.logger.error("a2a: failed to record a task update", error));
    };
    const ensureTask = async (): Promise<JsonObject> => {
      if (execution.task) return execution.task;
      return this.materialize(execution, userMessage);
    };
    const finish = () => {
      void chain.then(() => {
        if (this.executions.get(execution.taskId) === execution) this.executions.delete(execution.taskId);
        execution.settle();
      });
    };
    const status = (state: string, content?: JsonObject | string) => {
      if (execution.done) return;
      const final = shapes.isTerminal(state) || shapes.isInterrupted(state);
      if (final) execution.done = true;
      const message = content === undefined ? undefined : asMessage(content);
      enqueue(async () => {
        const task = await ensureTask();
        const history = Array.isArray(task.history) ? task.history : [];
        const updated: JsonObject = { ...task, status: shapes.status(state, message) };
        if (message && shapes.has("Task", "history")) updated.history = [...history, message];
        execution.task = updated;
        await this.tasks.save(updated);
        this.bus.publish(execution.taskId, shapes.statusEvent({ taskId: execution.taskId, contextId: execution.contextId, status: updated.status as JsonObject, final }), final);
        this.notify(updated);
      });
      if (final) finish();
    };
    const publisher: EventPublisher & { drain(): Promise<void> } = {
      drain: async () => {
        // Work queued while draining is drained too.
        let seen: Promise<void> | undefined;
        while (seen !== chain) {
          seen = chain;
          await chain;
        }
      },
      reply: (content) => {
        if (execution.done) return;
        const message = asMessage(content);
        if (execution.task || !this.streamsTasks()) {
          // A task exists already (or the version has no direct replies): the reply completes it.
          status("completed", message);
          return;
        }
        execution.done = true;
        // No task will exist: the reply names only its context (a taskId would point at nothing).
        delete message.taskId;
        execution.reply = message;
        enqueue(async () => {
          this.bus.publish(execution.taskId, message, true);
        });
        finish();
      },
      status,
      working: (m) => status("working", m),
      completed: (m) => status("completed", m),
      failed: (m) => status("failed", m),
      canceled: (m) => status("canceled", m),
      rejected: (m) => status(shapes.hasState("rejected") ? "rejected" : "failed", m),
      inputRequired: (m) => status("input-required", m),
      artifact: (artifact, options = {}) => {
        if (execution.done) return;
        enqueue(async () => {
          const task = await ensureTask();
          const event = shapes.artifactEvent({
            taskId: execution.taskId,
            contextId: execution.contextId,
            artifact: artifact as JsonObject,
            ...(options.append !== undefined ? { append: options.append } : {}),
            ...(options.lastChunk !== undefined ? { lastChunk: options.lastChunk } : {}),
            index: execution.artifactCount,
          });
          const added = event.artifact as JsonObject;
          const artifacts = Array.isArray(task.artifacts) ? [...(task.artifacts as JsonObject[])] : [];
          const key = typeof added.artifactId === "string" ? "artifactId" : "name";
          const at = options.append ? artifacts.findIndex((a) => a[key] !== undefined && a[key] === added[key]) : -1;
          if (at >= 0) {
            const before = artifacts[at] as JsonObject;
            const parts = [...(Array.isArray(before.parts) ? before.parts : []), ...(Array.isArray(added.parts) ? added.parts : [])];
            artifacts[at] = { ...before, parts };
          } else {
            artifacts.push(stripChunkFlags(added));
            execution.artifactCount++;
          }
          const updated = { ...task, artifacts };
          execution.task = updated;
          await this.tasks.save(updated);
          this.bus.publish(execution.taskId, event, false);
          this.notify(updated);
        });
      },
      agentMessage: (content) =>
        shapes.message({
          role: "agent",
          parts: typeof content === "string" ? [shapes.textPart(content)] : (content as JsonObject[]),
          taskId: execution.taskId,
          contextId: execution.contextId,
        }),
      textPart: (text) => shapes.textPart(text),
      dataPart: (data) => shapes.dataPart(data),
    };
    return publisher;
  }

  /** Sends the task to every push config of it (in the background; failures are logged, never thrown). */
  private notify(task: JsonObject): void {
    if (!this.pushSender || !this.capability("pushNotifications")) return;
    const sender = this.pushSender;
    const taskId = task.id as string;
    const work = (async () => {
      for (const config of await this.pushConfigs.list(taskId)) {
        if (typeof config.url !== "string") continue;
        const target = {
          url: config.url,
          ...(typeof config.token === "string" ? { token: config.token } : {}),
          ...(isObject(config.authentication)
            ? {
                authentication: {
                  schemes: Array.isArray(config.authentication.schemes)
                    ? config.authentication.schemes.filter((s): s is string => typeof s === "string")
                    : typeof config.authentication.scheme === "string"
                      ? [config.authentication.scheme]
                      : [],
                  ...(typeof config.authentication.credentials === "string" ? { credentials: config.authentication.credentials } : {}),
                },
              }
            : {}),
        };
        // 1.0 posts a StreamResponse (`{ task }`) as application/a2a+json; 0.x the bare task.
        const body = this.shapes.wrap("stream", task);
        const wrapped = body !== task;
        const result = await sender.send(wrapped ? { ...target, contentType: "application/a2a+json" } : target, body, this.shutdown.signal);
        if (!result.ok) this.logger.warn?.(`a2a: push notification to ${config.url} failed: ${result.error}`);
      }
    })().catch((error: unknown) => this.logger.error("a2a: push notification failed", error));
    this.pendingPushes.add(work);
    void work.finally(() => this.pendingPushes.delete(work));
  }

  // ------------------------------------------------------------------------------------------------
  // Security schemes of the card

  /** The card's requirements: alternatives, each a list of scheme names that must all pass. */
  private securityRequirements(): Array<Array<{ name: string; scheme: JsonObject }>> {
    const card = this.options.card;
    if (isObject(card.securitySchemes) && Object.keys(card.securitySchemes).length > 0) {
      const schemes: Record<string, JsonObject> = {};
      for (const [name, value] of Object.entries(card.securitySchemes)) if (isObject(value)) schemes[name] = schemeOf(value);
      // 0.x: `security: [{ name: scopes }]`; 1.0: `securityRequirements: [{ schemes: { name: { list } } }]`.
      const listed = Array.isArray(card.security) && card.security.length > 0
        ? card.security.filter(isObject)
        : Array.isArray(card.securityRequirements) && card.securityRequirements.length > 0
          ? card.securityRequirements.filter(isObject).map((r) => (isObject(r.schemes) ? r.schemes : {}))
          : Object.keys(schemes).map((name) => ({ [name]: [] }));
      return listed
        .map((requirement) => Object.keys(requirement).filter((name) => schemes[name]).map((name) => ({ name, scheme: schemes[name] as JsonObject })))
        .filter((alternative) => alternative.length > 0);
    }
    // 0.1.0: `authentication: { schemes: ["Bearer", ...] }`, any one of them.
    if (isObject(card.authentication) && Array.isArray(card.authentication.schemes)) {
      return card.authentication.schemes
        .filter((s): s is string => typeof s === "string")
        .map((s) => [{ name: s, scheme: { type: "http", scheme: s.toLowerCase() } }]);
    }
    return [];
  }

  private async authenticate(request: CoreRequest): Promise<{ ok: true; principal: unknown } | { ok: false; response: CoreResponse }> {
    const requirements = this.requirements;
    if (requirements.length === 0 || !this.options.auth) return { ok: true, principal: undefined };
    const realm = this.options.auth.realm ?? "a2a";
    let forbidden: string | undefined;
    for (const alternative of requirements) {
      let principal: unknown;
      let passed = true;
      for (const { name, scheme } of alternative) {
        const credential = credentialFor(name, scheme, request);
        if (!credential) {
          passed = false;
          break;
        }
        const decision = await this.options.auth.verify(credential, request);
        if (decision === true || (isObject(decision) && decision.allow === true)) {
          if (isObject(decision) && "principal" in decision) principal = decision.principal;
          continue;
        }
        passed = false;
        if (isObject(decision) && decision.allow === false && decision.status === 403) forbidden = decision.message ?? "Forbidden";
        break;
      }
      if (passed) return { ok: true, principal };
    }
    if (forbidden !== undefined) return { ok: false, response: json(403, failure(null, jsonRpcError(AUTH_ERROR_CODE, forbidden))) };
    const challenges = requirements.flat().map(({ name, scheme }) => challengeFor(name, scheme, realm));
    return {
      ok: false,
      response: json(401, failure(null, jsonRpcError(AUTH_ERROR_CODE, "Unauthorized: missing or invalid credentials")), {
        "www-authenticate": [...new Set(challenges)].join(", "),
      }),
    };
  }
}

// ---------------------------------------------------------------------------------------------------
// Helpers

function json(status: number, body: unknown, headers: Record<string, string> = {}): CoreResponse {
  return { kind: "json", status, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) };
}

function httpError(status: number, message: string, headers: Record<string, string> = {}): CoreResponse {
  return json(status, failure(null, jsonRpcError(JSON_RPC_ERROR.invalidRequest, message)), headers);
}

function pathOf(url: unknown): string | undefined {
  if (typeof url !== "string") return undefined;
  try {
    return new URL(url).pathname || "/";
  } catch {
    return undefined;
  }
}

/** A JSON pointer as a google.rpc field path: "/params/message/parts/0/text" → "params.message.parts[0].text". */
function fieldPath(pointer: string): string {
  return pointer
    .split("/")
    .slice(1)
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce((path, token) => (/^\d+$/.test(token) ? `${path}[${token}]` : path ? `${path}.${token}` : token), "");
}

/** An envelope error's `{ pointer, expected, got }` data as the same `{ issues: [...] }` shape params errors have. */
function asIssues(error: { code: number; message: string; data?: unknown }): { code: number; message: string; data?: unknown } {
  const data = error.data;
  if (!isObject(data) || typeof data.pointer !== "string") return error;
  const { pointer, expected, got } = data as { pointer: string; expected?: unknown; got?: unknown };
  const issue = {
    pointer,
    expected: String(expected ?? ""),
    got: String(got ?? ""),
    keyword: "envelope",
    message: `${pointer || "/"}: expected ${String(expected ?? "")}, got ${String(got ?? "")}`,
  };
  return { code: error.code, message: "Invalid request", data: { issues: [issue] } };
}

function publicIssues(issues: readonly ValidationIssue[]): ValidationIssue[] {
  return issues.slice(0, 20).map((i) => ({ ...i }));
}

function contextOf(task: JsonObject, shapes: ProtocolShapes): string {
  const field = shapes.contextField;
  const value = field ? task[field] : undefined;
  return typeof value === "string" ? value : (task.id as string);
}

function lastUserMessage(task: JsonObject): JsonObject {
  const history = Array.isArray(task.history) ? (task.history as unknown[]) : [];
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i];
    if (isObject(m) && m.role === "user") return m;
  }
  return { role: "user", parts: [] };
}

function stripChunkFlags(artifact: JsonObject): JsonObject {
  const { append: _a, lastChunk: _l, ...rest } = artifact;
  return rest;
}

function header(request: CoreRequest, name: string): string | undefined {
  return request.headers[name.toLowerCase()];
}

function credentialFor(name: string, scheme: JsonObject, request: CoreRequest): Credential | undefined {
  const type = String(scheme.type ?? "");
  const authorization = header(request, "authorization") ?? "";
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
  switch (type) {
    case "http": {
      const httpScheme = String(scheme.scheme ?? "bearer").toLowerCase();
      if (httpScheme === "basic") {
        const basic = /^Basic\s+(\S+)\s*$/i.exec(authorization)?.[1];
        if (!basic) return undefined;
        let decoded: string;
        try {
          decoded = new TextDecoder().decode(Uint8Array.from(atob(basic), (c) => c.charCodeAt(0)));
        } catch {
          return undefined;
        }
        return { scheme: name, type: "basic", value: decoded };
      }
      return bearer ? { scheme: name, type: httpScheme === "bearer" ? "bearer" : "other", value: bearer } : undefined;
    }
    case "apiKey": {
      const keyName = String(scheme.name ?? "");
      const where = String(scheme.in ?? "header");
      const value =
        where === "query"
          ? (request.query.get(keyName) ?? undefined)
          : where === "cookie"
            ? cookie(header(request, "cookie"), keyName)
            : header(request, keyName);
      return value ? { scheme: name, type: "apiKey", value } : undefined;
    }
    case "oauth2":
    case "openIdConnect":
      return bearer ? { scheme: name, type, value: bearer } : undefined;
    case "mutualTLS":
      return { scheme: name, type: "mutualTLS", value: "" };
    default:
      return bearer ? { scheme: name, type: "other", value: bearer } : undefined;
  }
}

/** A security scheme as `{ type, ... }`: 1.0 wraps each in a oneof (`{ httpAuthSecurityScheme: { scheme } }`). */
function schemeOf(value: JsonObject): JsonObject {
  if (typeof value.type === "string") return value;
  const wrapped: Record<string, string> = {
    apiKeySecurityScheme: "apiKey",
    httpAuthSecurityScheme: "http",
    oauth2SecurityScheme: "oauth2",
    openIdConnectSecurityScheme: "openIdConnect",
    mtlsSecurityScheme: "mutualTLS",
  };
  for (const [key, type] of Object.entries(wrapped)) {
    const inner = value[key];
    if (isObject(inner)) return { ...inner, type, ...(type === "apiKey" && typeof inner.location === "string" ? { in: inner.location } : {}) };
  }
  return value;
}

function cookie(headerValue: string | undefined, name: string): string | undefined {
  for (const pair of (headerValue ?? "").split(";")) {
    const [key, ...rest] = pair.trim().split("=");
    if (key === name) return rest.join("=");
  }
  return undefined;
}

function challengeFor(name: string, scheme: JsonObject, realm: string): string {
  const type = String(scheme.type ?? "");
  if (type === "http" && String(scheme.scheme ?? "").toLowerCase() === "basic") return `Basic realm="${realm}"`;
  if (type === "apiKey") return `ApiKey realm="${realm}", name="${String(scheme.name ?? "")}", in="${String(scheme.in ?? "header")}"`;
  void name;
  return `Bearer realm="${realm}"`;
}
