/**
 * The transport-free A2A service: every method of the version (send, stream, get, list, cancel,
 * subscribe, push-config CRUD, the extended card) over typed params plus a call context, answering results
 * or async iterables of events and throwing A2AErrors. It authenticates (the card's security schemes),
 * negotiates the version (A2A-Version) and validates params; the bindings (JSON-RPC, HTTP+JSON, gRPC) only
 * translate their wire form to `(method, params, context)` and back.
 */
import { A2AError, errorDetails, isRaisedA2AError, publicIssues } from "../a2a-error.js";
import { authenticate, securityRequirements, type AuthOptions, type SecurityRequirements } from "./auth.js";
import type { CallContext, CoreRequest } from "../call.js";
import type { ErrorStatus, HttpRoute } from "../wire/http-routes.js";
import { JSON_RPC_ERROR } from "../wire/jsonrpc.js";
import { isObject, type JsonObject } from "../json.js";
import { majorMinor, type MethodRole, type ProtocolProfile } from "../profile.js";
import { ProtocolShapes } from "../protocol-shapes.js";
import { declaredExtensions, extensionActivation, type DeclaredExtension } from "./extensions.js";
import { NO_VERSION_HEADER, requestedVersion, versionRefusal } from "./version-refusal.js";
import { protoJsonInput, type InputFields } from "../wire/proto-json-input.js";
import { PushSender, type PushSenderOptions } from "../tasks/push-sender.js";
import type { AgentExecutorOfAnyVersion, RuntimeLogger } from "../tasks/executor.js";
import type { PushPayloadHook } from "../tasks/push-configs.js";
import { TaskRuntime } from "../tasks/task-runtime.js";
import { lastEventSequence } from "../event-ids.js";
import { ExecutionLeaseHeldError, InvalidStoreQueryError, isStoreError, StoreUnavailableError, TaskVersionConflictError } from "../stores/errors.js";
import { InMemoryStore } from "../stores/memory.js";
import type { A2AStore, A2AStoreOfAnyVersion } from "../stores/contract.js";
import type { ServerTelemetry } from "../telemetry-hooks.js";
import type { Validator } from "../validation.js";
import type { WireShapeAdapter } from "../wire/shapes.js";

export { A2AError, AUTH_ERROR_CODE } from "../a2a-error.js";
export { requestedVersion } from "./version-refusal.js";

/** The binding names of the specification (1.0 `protocolBinding`, 0.3 `transport`). */
export type BindingName = "JSONRPC" | "HTTP+JSON" | "GRPC";

/** What the service needs to know of a version's methods (generated into protocol.ts as A2A_METHODS). */
export interface MethodFacts {
  requestType: string;
  /** The params definition, validated by the service (null: the method takes none). */
  paramsType?: string | null;
  streaming: boolean;
}

/** What a generated server/core.ts binds to the runtime for its version. */
export interface ProtocolBinding {
  profile: ProtocolProfile;
  methods: Record<string, MethodFacts>;
  validators: Record<string, Validator<unknown>>;
  /** The HTTP+JSON routes of the version (from the proto's google.api.http rules), where it has them. */
  httpRoutes?: readonly HttpRoute[];
  /** Each error's HTTP and gRPC status by code (the specification's error code mappings), where it has them. */
  errorStatus?: { readonly [code: number]: ErrorStatus };
  /** Where the HTTP+JSON binding carries the proto's shapes rather than the JSON-RPC ones (0.3.0): the translation. */
  wireShapes?: WireShapeAdapter;
  /** ProtoJSON versions: the fields params are read under (proto names accepted, unknown fields left out). */
  inputFields?: InputFields;
}

/** How a binding other than JSON-RPC reports an error (wire/http-routes.ts, where the client reads it too). */
export type { ErrorStatus } from "../wire/http-routes.js";

/** What the handler of a custom method gets beside its params. */
export interface MethodHandlerContext {
  principal: unknown;
  request: CoreRequest;
}

/**
 * The handler of a method the runtime does not know: its params (checked by the version's validators when
 * the method table has the method) in, its result out. Declared through a method so that a handler typed
 * from the method table (`MethodHandler<ParamsOf<"tasks/list">, ResultOf<"tasks/list">>`) is one too.
 */
export type MethodHandler<TParams = unknown, TResult = unknown> = { handle(params: TParams, context: MethodHandlerContext): TResult | Promise<TResult> }["handle"];

export interface ServiceOptions {
  /** The public agent card (the version's AgentCard model; read as JSON). */
  card: object;
  executor: AgentExecutorOfAnyVersion;
  /** The card the authenticated extended-card method returns. */
  extendedCard?: object;
  /**
   * Where tasks, push configs, task event logs, the push outbox and execution leases are kept: the
   * in-memory store by default (one process); a PostgreSQL or Redis store (`runtime/stores/`, generated
   * with `--store`) lets several instances serve the same tasks. The server does not close it.
   */
  store?: A2AStoreOfAnyVersion;
  /** This instance's name in execution leases and the push outbox; default a random id. */
  instanceId?: string;
  /** Execution lease length in ms: a dead instance's running tasks are failed this long after it stopped; default 30_000. */
  leaseMs?: number;
  /**
   * The owner scope of a caller (1.0.1 §13.1): a task, its push configs and its streams are visible only
   * to the scope that created it. Receives the auth verifier's principal; default: a string principal
   * itself, else its `sub`/`id`/`name`, else "" (unauthenticated callers share one scope).
   */
  owner?: (principal: unknown) => string;
  /** Push-notification sending: SSRF allow-list, retries; `false` disables sending (configs are still kept). */
  pushNotifications?: PushSenderOptions | false;
  auth?: AuthOptions;
  /** Methods the runtime does not know (a schema's new method, an extension method): your handlers, by method name. */
  methods?: { readonly [method: string]: MethodHandler | undefined };
  /** Where internal errors are reported; default console.error. Responses never carry their text. */
  logger?: RuntimeLogger;
  /** What a push notification carries for a config (compat: a config a 0.3 client registered gets 0.3's payload); default the version's. */
  pushPayload?: PushPayloadHook;
  /** Another service's task runtime to run on (a compat version's service runs on the primary's: one executor, one store). */
  runtime?: TaskRuntime;
  /**
   * Signs the agent card (and the extended card) once, before it is first served: e.g.
   * `(card) => signAgentCard(card, privateKey, { kid: "key-1", alg: "ES256" })` of runtime/card/signature.ts
   * (generated with `--card-signatures`). The signed card must be the card plus its `signatures`.
   */
  cardSigning?: (card: JsonObject) => Promise<object> | object;
  /** `Major.Minor` of a second version the agent serves beside this one (the server sets it with `compat`): a version refusal names both. */
  alsoServes?: string;
  /** Telemetry hooks (telemetry-hooks.ts): the generated server passes OpenTelemetry's when generated with `--telemetry`. */
  telemetry?: ServerTelemetry;
}

/** The seconds a client is asked to wait before retrying a call the unavailable store failed. */
const STORE_RETRY_AFTER_SECONDS = 5;

export class A2AService {
  readonly runtime: TaskRuntime;
  readonly shapes: ProtocolShapes;
  readonly profile: ProtocolProfile;
  /** The version's methods by JSON-RPC method name, and the custom ones (role undefined). */
  readonly methods: ReadonlyMap<string, { role: MethodRole | undefined; streaming: boolean }>;
  private readonly requirements: SecurityRequirements;
  private readonly logger: RuntimeLogger;
  /** The telemetry hooks every binding reports its calls to (ServiceOptions.telemetry). */
  readonly telemetry: ServerTelemetry | undefined;

  readonly binding: ProtocolBinding;
  private readonly options: ServiceOptions;
  /** What `declaredExtensions()` read (the card is the service's for its lifetime). */
  private declared: readonly DeclaredExtension[] | undefined;

  constructor(binding: ProtocolBinding, options: ServiceOptions) {
    this.binding = binding;
    this.options = options;
    this.profile = binding.profile;
    this.shapes = new ProtocolShapes(binding.profile);
    this.logger = options.logger ?? { error: (m, d) => console.error(m, d), warn: (m, d) => (d === undefined ? console.warn(m) : console.warn(m, d)) };
    const telemetry = (this.telemetry = options.telemetry);
    // A store typed with a version's Task model keeps the tasks this runtime saves: JSON objects, as it reads them.
    const store = (options.store as A2AStore | undefined) ?? new InMemoryStore();
    this.runtime = options.runtime ?? new TaskRuntime({
      shapes: this.shapes,
      executor: options.executor,
      store: telemetry ? telemetry.store(store) : store,
      telemetry,
      ...(options.instanceId !== undefined ? { instanceId: options.instanceId } : {}),
      ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
      ...(options.owner !== undefined ? { owner: options.owner } : {}),
      pushSender: options.pushNotifications === false ? undefined : new PushSender(options.pushNotifications ?? {}),
      logger: this.logger,
      card: options.card as JsonObject,
      ...(options.pushPayload ? { pushPayload: options.pushPayload } : {}),
    });
    const roleOf = new Map<string, MethodRole>();
    for (const [role, method] of Object.entries(binding.profile.methods)) if (method) roleOf.set(method, role as MethodRole);
    const methods = new Map<string, { role: MethodRole | undefined; streaming: boolean }>();
    for (const [name, facts] of Object.entries(binding.methods)) methods.set(name, { role: roleOf.get(name), streaming: facts.streaming });
    for (const name of Object.keys(options.methods ?? {})) if (!methods.has(name)) methods.set(name, { role: undefined, streaming: false });
    this.methods = methods;
    this.requirements = securityRequirements(options.card as JsonObject);
    if (this.requirements.length > 0 && !options.auth) {
      throw new Error("the agent card declares security schemes: pass `auth.verify` to check credentials (the server fails closed)");
    }
  }

  /** The public agent card. */
  get card(): JsonObject {
    return this.options.card as JsonObject;
  }

  /** A card as served: signed by `cardSigning` when set (memoized: each card is signed once). */
  signedCard(card: JsonObject): Promise<JsonObject> {
    const sign = this.options.cardSigning;
    if (!sign) return Promise.resolve(card);
    let signed = this.signedCards.get(card);
    if (!signed) {
      // A copy: the card the server was given may change later, the signature must cover what is served.
      signed = Promise.resolve()
        .then(() => sign(JSON.parse(JSON.stringify(card)) as JsonObject))
        .then((out) => {
          if (!isObject(out) || !Array.isArray(out["signatures"])) throw new TypeError("cardSigning must resolve to the card with its `signatures`");
          return out;
        });
      this.signedCards.set(card, signed);
    }
    return signed;
  }

  private readonly signedCards = new WeakMap<JsonObject, Promise<JsonObject>>();

  /** Stops executions, waits for pending push notifications. */
  close(): Promise<void> {
    return this.runtime.close();
  }

  // ------------------------------------------------------------------------------------------------
  // The whole call, as the gRPC binding (and any binding without steps of its own) makes it

  /** Authenticates, negotiates the version, validates params, runs the method; throws A2AError. */
  async call(method: string, params: unknown, ctx: CallContext): Promise<unknown> {
    const input = this.input(method, params);
    const principal = await this.admit(method, input, ctx);
    return this.invoke(method, input, ctx, principal);
  }

  /** The same for a streaming method; errors before the first event reject, later ones are thrown by the iterator. */
  async stream(method: string, params: unknown, ctx: CallContext): Promise<AsyncIterable<unknown>> {
    const input = this.input(method, params);
    const principal = await this.admit(method, input, ctx);
    return this.openStream(method, input, ctx, principal);
  }

  /** The authenticated extended card (the extended-card method of the version). */
  async extendedCard(ctx: CallContext): Promise<JsonObject> {
    const method = this.profile.methods.extendedCard;
    if (method === undefined) throw this.publicError(new A2AError(JSON_RPC_ERROR.methodNotFound, "This version has no extended agent card"));
    return (await this.call(method, {}, ctx)) as JsonObject;
  }

  private async admit(method: string, params: unknown, ctx: CallContext): Promise<unknown> {
    const principal = ctx.authenticated ? ctx.authenticated.principal : await this.authenticate(ctx);
    if (!this.methods.has(method)) {
      throw this.publicError(new A2AError(JSON_RPC_ERROR.methodNotFound, `Method not found: ${method}`, { method }));
    }
    this.negotiate(ctx);
    this.validate(method, params);
    return principal;
  }

  // ------------------------------------------------------------------------------------------------
  // The steps, for bindings that order them their own way (JSON-RPC authenticates before reading the body)

  /** Whether the card declares security requirements (when not, `authenticate` always admits). */
  get requiresAuth(): boolean {
    return this.requirements.length > 0;
  }

  /** Checks the card's security requirements; resolves to the verifier's principal or throws A2AError (401/403). */
  authenticate(ctx: CallContext): Promise<unknown> {
    return authenticate(this.requirements, this.options.auth, ctx.request ?? requestOf(ctx));
  }

  /** `Major.Minor` of the version this service speaks (worked out at the first negotiation). */
  private supportedMinor: string | undefined;

  /**
   * Version negotiation (1.0 on): the client names the version it speaks in the A2A-Version header (or
   * query parameter); a Major.Minor other than the server's, or none (the spec reads none as 0.3), is
   * answered with VersionNotSupportedError, worded by `versionRefusal` (an agent serving 0.3 too says
   * that 0.3 has no such call, not that it does not speak 0.3).
   */
  negotiate(ctx: CallContext): void {
    const name = this.profile.versionHeader;
    if (!name) {
      this.extensions(ctx);
      return;
    }
    const asked = requestedVersion(name, ctx.headers, ctx.request?.query);
    // Kept: negotiate runs on every call of a version with a version header (1.0).
    const supported = (this.supportedMinor ??= majorMinor(this.profile.specVersion));
    if (asked !== undefined && (asked === supported || majorMinor(asked.trim()) === supported)) {
      this.extensions(ctx);
      return;
    }
    const read = asked === undefined || asked.trim() === "" ? NO_VERSION_HEADER : majorMinor(asked.trim());
    const beside = this.options.alsoServes;
    const refusal = versionRefusal(name, asked, read, supported, beside ? [supported, beside] : [supported], ctx);
    throw this.publicError(
      new A2AError(this.runtime.code("VersionNotSupported", JSON_RPC_ERROR.invalidRequest), refusal.message, { supported: refusal.supported, requested: asked ?? null }),
    );
  }

  /**
   * A method's params as the version reads them: in ProtoJSON versions (1.0) fields under their proto
   * names (`history_length`) take their JSON names and unknown fields are left out (never stored or
   * echoed); other versions' params as they are.
   */
  input(method: string, params: unknown): unknown {
    const type = this.binding.methods[method]?.paramsType;
    const fields = this.binding.inputFields;
    if (!fields || !type) return params;
    const read = protoJsonInput(params, type, fields);
    // An `id` in send params is no unknown field to drop: task ids are server-generated (1.0.1 §3.4.2), and a
    // client naming one is refused (serverGeneratedTaskIds), not silently given another id.
    const role = this.methods.get(method)?.role;
    if (this.profile.serverGeneratedTaskIds && (role === "send" || role === "stream") && isObject(params) && params["id"] !== undefined && isObject(read)) return { ...read, id: params["id"] };
    return read;
  }

  /** The card whose `capabilities.extensions` this service's calls are checked against. */
  protected get extensionsCard(): JsonObject {
    return this.card;
  }

  /**
   * The extensions `extensionsCard` declares, read at the first call (a compat service's card is its
   * primary's, set after this constructor) and kept: a send checked them twice, each time anew.
   */
  private declaredExtensions(): readonly DeclaredExtension[] {
    return (this.declared ??= declaredExtensions(this.extensionsCard));
  }

  /**
   * The response header that names the extensions a request activated (§3.2.6: the agent echoes them in the
   * same header), as `[lower-cased name, value]`; undefined when it activated none or the version has no header.
   */
  extensionsEcho(headers: Readonly<Record<string, string | undefined>>): readonly [string, string] | undefined {
    const header = this.profile.extensionsHeader;
    const named = header === undefined ? undefined : headers[header.toLowerCase()];
    // Most requests activate nothing: the card (a compat service builds its dual card) is not read for them.
    if (header === undefined || named === undefined || named.trim() === "") return undefined;
    const { activated } = extensionActivation(this.declaredExtensions(), named);
    return activated.length === 0 ? undefined : [header.toLowerCase(), activated.join(", ")];
  }

  /**
   * The extensions a call activates (the version's extensions header, §3.2.6): those it names that the card
   * declares. A call that leaves out an extension the card marks `required: true` is refused (§3.3.4: "the
   * agent MUST return ExtensionSupportRequiredError"; 0.3 has no such code: -32600 Invalid Request).
   */
  extensions(ctx: CallContext): string[] {
    const header = this.profile.extensionsHeader;
    if (!header) return [];
    const declared = this.declaredExtensions();
    // A card that declares no extension: nothing to activate, nothing required.
    if (declared.length === 0) return [];
    const { activated, missing } = extensionActivation(declared, ctx.headers[header.toLowerCase()]);
    if (missing.length > 0) {
      const list = missing.join(", ");
      throw this.publicError(
        // This service's version's code (a compat service runs on the primary's runtime, whose table is the primary's).
        new A2AError(this.profile.errorCodes["ExtensionSupportRequired"] ?? JSON_RPC_ERROR.invalidRequest, `This agent requires the extension${missing.length > 1 ? "s" : ""} ${list}: activate ${missing.length > 1 ? "them" : "it"} in the ${header} header`, {
          required: missing,
          header,
        }),
      );
    }
    return activated;
  }

  /** Validates a method's params with the version's validator; issues point into the params ("/message/parts"). */
  validate(method: string, params: unknown): void {
    const type = this.binding.methods[method]?.paramsType;
    const validate = type ? this.binding.validators[type] : undefined;
    if (!validate || (params === undefined && this.paramsOptional(method))) return;
    if (!validate(params)) throw this.invalidParams(validate.errors ?? []);
  }

  private paramsOptional(method: string): boolean {
    const facts = this.binding.methods[method] as MethodFacts & { paramsRequired?: boolean };
    return facts.paramsRequired === false;
  }

  /** An invalid-params error with the issues, in the version's form. */
  invalidParams(issues: Parameters<typeof publicIssues>[0]): A2AError {
    return this.publicError(new A2AError(JSON_RPC_ERROR.invalidParams, "Invalid params", { issues: publicIssues(issues) }));
  }

  /** Runs a unary method for an admitted caller. */
  async invoke(method: string, params: unknown, ctx: CallContext, principal: unknown): Promise<unknown> {
    ctx.span?.tell({ method, principal });
    const role = this.methods.get(method)?.role;
    const custom = this.options.methods && Object.prototype.hasOwnProperty.call(this.options.methods, method) ? this.options.methods[method] : undefined;
    try {
      if (custom && !role) return await custom(params, { principal, request: ctx.request ?? requestOf(ctx) });
      const result = await this.byRole(role, method, isObject(params) ? params : {}, ctx, principal);
      return role === "send" ? this.shapes.wrap("send", result) : result;
    } catch (error) {
      throw this.failure(method, error);
    }
  }

  /** Opens a streaming method for an admitted caller: its events, each the JSON value of one stream result. */
  async openStream(method: string, params: unknown, ctx: CallContext, principal: unknown): Promise<AsyncIterable<unknown>> {
    ctx.span?.tell({ method, principal });
    const role = this.methods.get(method)?.role;
    try {
      if (!this.runtime.capability("streaming")) {
        throw new A2AError(this.runtime.code("UnsupportedOperation", JSON_RPC_ERROR.invalidRequest), "Streaming is not supported by this agent");
      }
      const p = isObject(params) ? params : {};
      // A reconnect names the last event it received (SSE Last-Event-ID): the stream resumes after it.
      if (role === "resubscribe") return await this.runtime.resubscribe(role, p, principal, lastEventSequence(ctx.headers["last-event-id"]));
      if (role !== "stream") throw new A2AError(this.runtime.code("UnsupportedOperation", JSON_RPC_ERROR.methodNotFound), `Method not implemented: ${method}`);
      return await this.runtime.stream(role, method, p, principal, this.extensions(ctx), ctx.span);
    } catch (error) {
      throw this.failure(method, error);
    }
  }

  /** An A2AError raised here as bindings send it (data in the version's form); anything else (another agent's error, a bug) is logged: -32603. */
  private failure(method: string, error: unknown): A2AError {
    if (isRaisedA2AError(error)) return this.publicError(error);
    if (isStoreError(error, InvalidStoreQueryError)) {
      const pointer = `/params/${error.field}`;
      return this.invalidParams([{ pointer, expected: "a value this server wrote", got: "another value", keyword: "a2a", message: `${pointer}: ${error.message}` }]);
    }
    const unavailable = isStoreError(error, StoreUnavailableError);
    if (unavailable || isStoreError(error, TaskVersionConflictError) || isStoreError(error, ExecutionLeaseHeldError)) {
      // Clean and retryable: the engine is down (it recovers by itself) or the task kept changing under this call.
      this.logger.error(`a2a: ${method} failed: ${error.message}`);
      if (unavailable) {
        // A temporary failure (1.0.1 §3.3.2 "System Errors": 503 / UNAVAILABLE, retry guidance such as
        // Retry-After). JSON-RPC keeps -32603, the code §3.3.2 gives it, with the guidance in the data.
        const data = { retryAfterSeconds: STORE_RETRY_AFTER_SECONDS };
        return new A2AError(JSON_RPC_ERROR.internalError, "The task store is unavailable; try again later", data, { http: 503, retryAfter: STORE_RETRY_AFTER_SECONDS });
      }
      return new A2AError(JSON_RPC_ERROR.internalError, "The task changed concurrently; try again");
    }
    this.logger.error(`a2a: internal error in ${method}`, error);
    return new A2AError(JSON_RPC_ERROR.internalError, "Internal error");
  }

  /** The error with its data in the version's form (1.0: google.rpc details); applied once. */
  publicError(error: A2AError): A2AError {
    if (published.has(error)) return error;
    const out = new A2AError(error.code, error.message, errorDetails(this.profile, error.code, error.data), {
      ...(error.http ? { http: error.http } : {}),
      ...(error.challenge !== undefined ? { challenge: error.challenge } : {}),
      ...(error.retryAfter !== undefined ? { retryAfter: error.retryAfter } : {}),
    });
    published.add(out);
    if (out !== error) origins.set(out, error);
    return out;
  }

  // ------------------------------------------------------------------------------------------------
  // Methods by role

  /**
   * The result of a method (a send's as the runtime gives it: `invoke` wraps it in the version's shape), or
   * the promise of it. Not an async function: it only picks the call, and each async layer costs every
   * request a suspended frame and two promises; a call that throws here throws inside `invoke`'s try.
   */
  private byRole(role: MethodRole | undefined, method: string, params: JsonObject, ctx: CallContext, principal: unknown): unknown {
    const runtime = this.runtime;
    switch (role) {
      case "send":
        return runtime.send(method, params, principal, this.extensions(ctx), ctx.span);
      case "list":
        return this.listTasks(params, principal);
      case "get":
        return this.getTask(params, principal);
      case "cancel":
        return runtime.cancel(params, principal);
      case "pushSet":
        return this.setPushConfig(params, principal);
      case "pushGet":
        return this.getPushConfig(params, principal);
      case "pushList":
        return this.listPushConfigs(params, principal);
      case "pushDelete":
        return this.deletePushConfig(params, principal).then(() => (this.profile.emptyResults.includes("pushDelete") ? {} : null));
      case "extendedCard":
        return this.signedCard(this.authenticatedCard());
      default: {
        const handler = this.options.methods?.[method];
        if (handler) return handler(params, { principal, request: ctx.request ?? requestOf(ctx) });
        throw new A2AError(runtime.code("UnsupportedOperation", JSON_RPC_ERROR.methodNotFound), `Method not implemented: ${method}`);
      }
    }
  }

  /** ListTasks (1.0): the caller's tasks only (1.0.1 §13.1), newest first, filtered by context, state and time, cursor-paged by the store. */
  private async listTasks(params: JsonObject, principal: unknown): Promise<JsonObject> {
    const contextId = typeof params["contextId"] === "string" && params["contextId"] !== "" ? params["contextId"] : undefined;
    const status = typeof params["status"] === "string" && !/UNSPECIFIED$/.test(params["status"]) ? params["status"] : undefined;
    let statusTimestampAfter: number | undefined;
    if (params["statusTimestampAfter"] !== undefined) {
      const after = typeof params["statusTimestampAfter"] === "string" ? Date.parse(params["statusTimestampAfter"]) : NaN;
      if (Number.isNaN(after)) {
        throw new A2AError(JSON_RPC_ERROR.invalidParams, "Invalid params: statusTimestampAfter is not an RFC 3339 timestamp", {
          issues: [{ pointer: "/params/statusTimestampAfter", expected: "an RFC 3339 timestamp", got: JSON.stringify(params["statusTimestampAfter"]), keyword: "format", message: "/params/statusTimestampAfter: expected an RFC 3339 timestamp" }],
        });
      }
      statusTimestampAfter = after; // "Greater than or equal" (the proto's comment).
    }
    const pageSize = Math.min(Math.max(typeof params["pageSize"] === "number" && params["pageSize"] > 0 ? params["pageSize"] : 50, 1), 100);
    const pageToken = typeof params["pageToken"] === "string" && params["pageToken"] !== "" ? params["pageToken"] : undefined;
    const result = await this.runtime.tasks.query({
      owner: this.runtime.scopeOf(principal),
      pageSize,
      ...(contextId !== undefined ? { contextId } : {}),
      ...(status !== undefined ? { status } : {}),
      ...(statusTimestampAfter !== undefined ? { statusTimestampAfter } : {}),
      ...(pageToken !== undefined ? { pageToken } : {}),
    });
    const page = result.tasks.map((t) => {
      const trimmed = this.shapes.withHistory(t, this.shapes.historyLengthOf(params));
      if (params["includeArtifacts"] === true) return trimmed;
      const { artifacts: _omitted, ...rest } = trimmed;
      return rest;
    });
    return { tasks: page, nextPageToken: result.nextPageToken, pageSize, totalSize: result.totalSize };
  }

  private async getTask(params: JsonObject, principal: unknown): Promise<JsonObject> {
    const task = await this.runtime.requireTask(this.shapes.paramsTaskId("get", params), principal);
    return this.shapes.withHistory(task, this.shapes.historyLengthOf(params));
  }

  private async setPushConfig(params: JsonObject, principal: unknown): Promise<JsonObject> {
    const runtime = this.runtime;
    runtime.pushEnabled();
    // Flat configs (1.0 `{ taskId, id, url, … }`): the task is `taskId` only (an empty one names none); `id` names the config, never the task.
    const flat = this.shapes.nestedPushConfigOf(params) === undefined && this.shapes.flatPushConfigs;
    const named = this.shapes.paramsTaskId("pushSet", params);
    const taskId = flat && named === "" ? undefined : named;
    if (flat && taskId === undefined) {
      const field = this.shapes.profile.taskFields.taskId.pushSet ?? "taskId";
      const got = params[field] === undefined ? "missing" : JSON.stringify(params[field]);
      const message = `/params/${field}: expected the id of the task the config is for, got ${got}`;
      throw this.invalidParams([{ pointer: `/params/${field}`, expected: "the id of the task the config is for", got, keyword: "required", message }]);
    }
    await runtime.requireTask(taskId, principal);
    const config = this.shapes.pushConfigOf(params);
    await runtime.checkWebhook(config);
    const stored = await runtime.pushConfigs.set(taskId as string, runtime.withConfigId(config, taskId as string));
    return this.shapes.taskPushConfig(taskId as string, stored);
  }

  private async getPushConfig(params: JsonObject, principal: unknown): Promise<JsonObject> {
    const runtime = this.runtime;
    runtime.pushEnabled();
    const taskId = this.shapes.paramsTaskId("pushGet", params);
    await runtime.requireTask(taskId, principal);
    // No config id: the config whose id is the task id (what `set` gives a config without one), as the 0.3 SDKs do.
    const configId = this.shapes.pushConfigIdOf(params) ?? (runtime.pushConfigsHaveIds ? (taskId as string) : undefined);
    const config = await runtime.pushConfigs.get(taskId as string, configId);
    if (!config) {
      throw new A2AError(runtime.code("TaskNotFound", JSON_RPC_ERROR.invalidParams), "Push notification config not found", { taskId, configId: configId ?? null });
    }
    return this.shapes.taskPushConfig(taskId as string, config);
  }

  private async listPushConfigs(params: JsonObject, principal: unknown): Promise<JsonObject[] | JsonObject> {
    const runtime = this.runtime;
    runtime.pushEnabled();
    const taskId = this.shapes.paramsTaskId("pushList", params);
    await runtime.requireTask(taskId, principal);
    const configs = (await runtime.pushConfigs.list(taskId as string)).map((c) => this.shapes.taskPushConfig(taskId as string, c));
    // 1.0 answers a page object; 0.x a bare list.
    return this.shapes.has("ListTaskPushNotificationConfigsResponse", "configs") ? { configs } : configs;
  }

  private async deletePushConfig(params: JsonObject, principal: unknown): Promise<null> {
    const runtime = this.runtime;
    runtime.pushEnabled();
    const taskId = this.shapes.paramsTaskId("pushDelete", params);
    await runtime.requireTask(taskId, principal);
    const configId = this.shapes.pushConfigIdOf(params) ?? (taskId as string);
    // Deleting is idempotent (1.0 §3.1.10): a config that is already gone is not an error.
    await runtime.pushConfigs.delete(taskId as string, configId);
    return null;
  }

  private authenticatedCard(): JsonObject {
    const card = this.options.card as JsonObject;
    const declared = card["supportsAuthenticatedExtendedCard"] === true || (isObject(card["capabilities"]) && card["capabilities"]["extendedAgentCard"] === true);
    const codes = this.profile.errorCodes;
    const notConfigured = codes["ExtendedAgentCardNotConfigured"] ?? codes["AuthenticatedExtendedCardNotConfigured"];
    if (!declared && codes["ExtendedAgentCardNotConfigured"] !== undefined) {
      // 1.0 §3.3.4: a card that does not declare the capability → UnsupportedOperationError.
      throw new A2AError(this.runtime.code("UnsupportedOperation", JSON_RPC_ERROR.methodNotFound), "This agent has no extended agent card");
    }
    if (!this.options.extendedCard || !declared) {
      throw new A2AError(notConfigured ?? JSON_RPC_ERROR.methodNotFound, "Extended agent card is not configured");
    }
    return this.options.extendedCard as JsonObject;
  }
}

/** Errors whose data is already in the version's form. */
const published = new WeakSet<A2AError>();
/** A published error → the error as it was raised (its data in no version's form yet). */
const origins = new WeakMap<A2AError, A2AError>();

/** The error as it was raised, before `publicError` put its data in a version's form (another version's service publishes it its own way). */
export function raisedError(error: A2AError): A2AError {
  return origins.get(error) ?? error;
}

/** The request view of a call without an HTTP request (gRPC): its metadata as headers, no query, no body. */
function requestOf(ctx: CallContext): CoreRequest {
  return { method: "POST", path: "", query: new URLSearchParams(), headers: { ...ctx.headers }, body: undefined, signal: ctx.signal };
}

