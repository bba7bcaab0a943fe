/**
 * The framework-free A2A server of the generated code: the HTTP host of the A2A service. It takes an
 * HTTP request as plain data ({ method, path, headers, body }) and answers with plain data (JSON, or a
 * stream of Server-Sent Events); the Express, Fastify, Hono and node:http adapters only translate. On one
 * port it serves the agent card and the HTTP bindings the card lists: JSON-RPC (`http/jsonrpc-binding.ts`) and
 * HTTP+JSON (`http/rest-binding.ts`), both thin translations over the transport-free service (`service/service.ts`),
 * which runs the task runtime (`tasks/task-runtime.ts`): the user writes an AgentExecutor, everything else is
 * here, for every A2A version, driven by the version's profile.
 */
import { A2AError, AUTH_ERROR_CODE } from "../a2a-error.js";
import { jsonResponse } from "./http.js";
import type { CoreRequest, CoreResponse, CallContext, CallRecorder } from "../call.js";
import { cardCacheHeaders, cardNotModified, type CardCacheHeaders } from "../card/cache-headers.js";
import { httpError, JsonRpcBinding } from "./jsonrpc-binding.js";
import { failure, jsonRpcError, JSON_RPC_ERROR } from "../wire/jsonrpc.js";
import { isObject, type JsonObject } from "../json.js";
import { ProtocolShapes } from "../protocol-shapes.js";
import { RestBinding } from "./rest-binding.js";
import { A2AService, type ProtocolBinding, type ServiceOptions } from "../service/service.js";
import type { AgentExecutorOfAnyVersion } from "../tasks/executor.js";
import type { PushPayloadHook } from "../tasks/push-configs.js";
import type { SubscriptionCounter } from "../tasks/task-streams.js";
import type { A2AStore, PushConfigStore, VersionedTaskStore } from "../stores/contract.js";
import { CorsPolicy, type CorsOptions } from "./cors.js";
import { Health, type HealthOptions } from "../service/health.js";
import { DRAINING_RETRY_AFTER_SECONDS, shuttingDownError, type DrainOutcome } from "../tasks/drain.js";

export { A2AError, A2AError as A2AServerError, AUTH_ERROR_CODE };
export { A2AService };
export type { CallContext } from "../call.js";
export type { BindingName, ErrorStatus, MethodFacts, MethodHandler, MethodHandlerContext, ProtocolBinding } from "../service/service.js";
export type { HttpRoute } from "../wire/http-routes.js";
export type { AuthDecision, AuthOptions, Credential } from "../service/auth.js";
export type { AgentExecutor, AgentExecutorOfAnyVersion, EventPublisher, RequestContext } from "../tasks/executor.js";
export type { CoreRequest, CoreResponse, SseSink } from "../call.js";
export type { CorsOptions } from "./cors.js";
export { A2A_CORS_EXPOSED, A2A_CORS_HEADERS } from "./cors.js";
export type { HealthOptions, Readiness } from "../service/health.js";
export type { DrainOutcome } from "../tasks/drain.js";

export interface ServerLogger {
  error(message: string, detail?: unknown): void;
  warn?(message: string, detail?: unknown): void;
}

export interface ServerOptions extends Omit<ServiceOptions, "executor" | "alsoServes"> {
  executor: AgentExecutorOfAnyVersion;
  /** The path JSON-RPC requests are POSTed to; default: the path of the card's JSON-RPC interface (or card.url), else "/". */
  rpcPath?: string;
  /** The path the HTTP+JSON routes hang under; default: the path of the card's HTTP+JSON interface, else "". */
  restPath?: string;
  /**
   * The bindings the card lists that are served outside these HTTP adapters (e.g. ["GRPC"] when a gRPC
   * server serves the same core on its own port). A listed binding that is neither served over HTTP here
   * nor named here is a startup error.
   */
  transports?: readonly string[];
  /** Largest request body in bytes; default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * Time in ms the whole request body may take to arrive, from the first read; default 30_000; 0 = no
   * limit. A slower body is answered 408 and its connection closed (a client trickling a body at 1 byte/s
   * cannot hold a connection). This applies on every adapter; the frameworks' own timeouts stay as set
   * (node:http `server.requestTimeout` defaults to 300 s; Fastify's `requestTimeout` to 0, none).
   */
  bodyTimeoutMs?: number;
  /** Largest batch; default 50. */
  maxBatchSize?: number;
  /** Interval of SSE heartbeat comments in ms; default 15_000; 0 = none. */
  heartbeatMs?: number;
  /** Where errors and warnings (e.g. a card mode that is not a media type) go; default console.error and console.warn. */
  logger?: ServerLogger;
  /** A second, older version served beside the card's from the same executor and store (runtime/compat/service.ts; generated core.ts passes it with --compat). */
  compat?: SecondVersion;
  /**
   * Caching of the agent card endpoint (specification-1.0.1.md §8.6.1): `Cache-Control: public,
   * max-age=<maxAgeSeconds>` (default 300), a strong `ETag` of the card as served, `Last-Modified`
   * (default: when the server was created), and 304 to a matching `If-None-Match` / `If-Modified-Since`.
   * `false` sends `Cache-Control: no-cache` and no validators.
   */
  cardCache?: { maxAgeSeconds?: number; lastModified?: Date } | false;
  /**
   * Cross-origin calls from browsers (http/cors.ts): the origins allowed, the headers, credentials and
   * max-age; applied to every path this server answers, streams included, on every adapter. Default: off
   * (no `Access-Control-*` headers, preflights are not answered).
   */
  cors?: CorsOptions;
  /**
   * The liveness and readiness endpoints (service/health.ts): `/healthz` and `/readyz` by default, never
   * listed in the agent card; readiness checks the store and is 503 while shutting down. `false`: none.
   */
  health?: HealthOptions | false;
}

/** How `A2AServerCore.close` shuts down. */
export interface CloseOptions {
  /**
   * Graceful shutdown: new calls are refused at once (503 with Retry-After; gRPC UNAVAILABLE), running
   * turns get this many ms to finish, those still running are then handed over to another instance on the
   * same store (their leases expired at once) and the open streams end cleanly, to be resumed elsewhere with
   * Last-Event-ID. Without it, `close()` stops running turns at once.
   */
  graceMs?: number;
}

/** A second version a server serves (built by runtime/compat/service.ts, which the output has only with --compat). */
export interface SecondVersion {
  /** Its `Major.Minor` (0.3): the primary's version refusals name it among the versions served. */
  readonly version: string;
  /** What a push notification carries for a config that version's clients registered. */
  readonly pushPayload?: PushPayloadHook;
  /**
   * Its service over the primary one (its `card`: the card both versions' clients read, listing `bindings`,
   * the bindings it is served on), which service answers a JSON-RPC request, and those bindings.
   */
  serve(
    primary: A2AService,
    options: ServiceOptions,
    /** The bindings the primary version is served on: the compat version is served on those it has too. */
    offered: readonly string[],
  ): {
    readonly service: A2AService;
    route(ctx: CallContext, method: string): A2AService | A2AError;
    /** Whose HTTP+JSON routes an HTTP request tries first (a path both versions have goes to that one). */
    restFirst(request: Pick<CoreRequest, "headers" | "query">): "compat" | "primary";
    readonly bindings: readonly string[];
  };
}

/** One interface of the card: the binding's name as the spec spells it and its URL. */
export interface ListedInterface {
  binding: string;
  url: string | undefined;
}

/** The interfaces a card lists: 1.0 `supportedInterfaces`; 0.3 `preferredTransport` + `additionalInterfaces`; before, `url` (JSON-RPC). */
export function listedInterfaces(card: JsonObject): ListedInterface[] {
  const url = typeof card["url"] === "string" ? card["url"] : undefined;
  if (Array.isArray(card["supportedInterfaces"])) {
    return card["supportedInterfaces"].filter(isObject).map((i) => ({ binding: String(i["protocolBinding"] ?? "").toUpperCase(), url: typeof i["url"] === "string" ? i["url"] : undefined }));
  }
  const out: ListedInterface[] = [{ binding: typeof card["preferredTransport"] === "string" ? card["preferredTransport"].toUpperCase() : "JSONRPC", url }];
  if (Array.isArray(card["additionalInterfaces"])) {
    for (const i of card["additionalInterfaces"].filter(isObject)) {
      const entry = { binding: String(i["transport"] ?? "").toUpperCase(), url: typeof i["url"] === "string" ? i["url"] : undefined };
      if (!out.some((o) => o.binding === entry.binding && o.url === entry.url)) out.push(entry);
    }
  }
  return out;
}

export class A2AServerCore {
  /** The transport-free service every binding (HTTP here, gRPC on its own port) calls. */
  readonly service: A2AService;
  /** The second version's service over `service`, when the server serves one (ServerOptions.compat). */
  readonly compatService: A2AService | undefined;
  readonly shapes: ProtocolShapes;
  /** Open stream subscriptions by task. */
  readonly bus: SubscriptionCounter;
  /** Where this server keeps everything (`ServerOptions.store`, in-memory by default). */
  readonly store: A2AStore;
  readonly tasks: VersionedTaskStore;
  readonly pushConfigs: PushConfigStore;
  /** The bindings served by this core over HTTP ("JSONRPC", "HTTP+JSON"). */
  readonly bindings: readonly string[];
  private readonly jsonrpc: JsonRpcBinding | undefined;
  private readonly rest: RestBinding | undefined;
  /** The compat version's HTTP+JSON binding (ServerOptions.compat), beside `rest`. */
  private readonly compatRest: RestBinding | undefined;
  private readonly restFirst: ((request: CoreRequest) => "compat" | "primary") | undefined;
  private readonly rpcPath: string;
  /** The body limits the adapters (and the bindings) read a request under: size in bytes, time in ms (0 = none). */
  readonly limits: { readonly maxBodyBytes: number; readonly bodyTimeoutMs: number };
  private readonly logger: ServerLogger;
  /** The agent card paths answered (the version's, and the other well-known spellings). */
  private readonly cardPaths: ReadonlySet<string>;
  /** The card as served (signed when `cardSigning` is set) and its caching headers; prepared once, when first asked for. */
  private servedCard: Promise<{ body: string; headers: Record<string, string> } | Error> | undefined;
  private readonly cardCache: ServerOptions["cardCache"];
  private readonly createdAt = new Date();
  /** Liveness and readiness (service/health.ts), which the gRPC health service follows too. */
  readonly health: Health;
  private readonly healthPaths: { readonly liveness: string | undefined; readonly readiness: string | undefined };
  private readonly cors: CorsPolicy | undefined;
  private closing: Promise<DrainOutcome | undefined> | undefined;

  constructor(binding: ProtocolBinding, options: ServerOptions) {
    const compat = options.compat;
    this.service = new A2AService(binding, compat ? { ...options, alsoServes: compat.version, ...(compat.pushPayload ? { pushPayload: compat.pushPayload } : {}) } : options);
    checkExtendedCardAuth(options.card as JsonObject, this.service.requiresAuth);
    this.shapes = this.service.shapes;
    this.bus = this.service.runtime.bus;
    this.store = this.service.runtime.store;
    this.tasks = this.service.runtime.tasks;
    this.pushConfigs = this.service.runtime.pushConfigs;
    // One object (the adapters read it on every request); frozen, so that no reader changes another's limits.
    this.limits = Object.freeze({ maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024, bodyTimeoutMs: options.bodyTimeoutMs ?? 30_000 });
    this.logger = options.logger ?? { error: (m, d) => console.error(m, d), warn: (m, d) => (d === undefined ? console.warn(m) : console.warn(m, d)) };
    const heartbeatMs = options.heartbeatMs ?? 15_000;
    this.cardCache = options.cardCache;
    this.cardPaths = new Set([binding.profile.wellKnownAgentCardPath, "/.well-known/agent-card.json", "/.well-known/agent.json"]);

    const listed = listedInterfaces(options.card as JsonObject);
    const external = new Set((options.transports ?? []).map((t) => t.toUpperCase()));
    const served: string[] = [];
    for (const entry of listed) {
      if (entry.binding === "JSONRPC" || entry.binding === "HTTP+JSON") {
        if (entry.binding === "HTTP+JSON" && !binding.httpRoutes) {
          throw new Error(
            `the agent card lists an HTTP+JSON interface (${entry.url ?? "no url"}), but A2A ${binding.profile.specVersion} has no HTTP+JSON binding here (its source has no google.api.http rules): remove it from the card`,
          );
        }
        if (!served.includes(entry.binding)) served.push(entry.binding);
      } else if (!external.has(entry.binding)) {
        throw new Error(
          `the agent card lists a ${entry.binding || "nameless"} interface (${entry.url ?? "no url"}) that this server does not serve: ` +
            (entry.binding === "GRPC" ? 'serve it with server/grpc.ts and pass transports: ["GRPC"], or remove it from the card' : "remove it from the card"),
        );
      }
    }
    this.bindings = served;
    // The second version, on each of these bindings it has (and on gRPC when its output serves it there too).
    const offered = [...served, ...(external.has("GRPC") && listed.some((i) => i.binding === "GRPC") ? ["GRPC"] : [])];
    const second = options.compat?.serve(this.service, options, offered);
    this.compatService = second?.service;
    this.rpcPath = options.rpcPath ?? pathOf(ProtocolShapes.jsonRpcEndpoint(options.card as JsonObject)) ?? "/";
    this.jsonrpc = served.includes("JSONRPC") ? new JsonRpcBinding(this.service, { ...this.limits, heartbeatMs, ...(options.maxBatchSize !== undefined ? { maxBatchSize: options.maxBatchSize } : {}), ...(second ? { route: second.route } : {}) }) : undefined;
    const restUrl = listed.find((i) => i.binding === "HTTP+JSON")?.url;
    const restOptions = { prefix: trimSlash(options.restPath ?? pathOf(restUrl) ?? ""), ...this.limits, heartbeatMs };
    this.rest = served.includes("HTTP+JSON") && binding.httpRoutes ? new RestBinding(this.service, binding.httpRoutes, restOptions) : undefined;
    // The compat version's HTTP+JSON routes beside the primary's, under the same prefix (0.3's are `/v1/…`).
    const compatRoutes = second?.bindings.includes("HTTP+JSON") ? second.service.binding.httpRoutes : undefined;
    this.compatRest = this.rest && second && compatRoutes ? new RestBinding(second.service, compatRoutes, restOptions) : undefined;
    this.restFirst = second?.restFirst;
    const health = options.health === false ? { livenessPath: false as const, readinessPath: false as const } : (options.health ?? {});
    this.health = new Health(this.service.runtime, health);
    this.healthPaths = {
      liveness: health.livenessPath === false ? undefined : (health.livenessPath ?? "/healthz"),
      readiness: health.readinessPath === false ? undefined : (health.readinessPath ?? "/readyz"),
    };
    this.cors = options.cors ? new CorsPolicy(options.cors) : undefined;
  }

  /** The paths this server answers: its JSON-RPC path, its HTTP+JSON routes, the agent card and health paths. Adapters pass other paths on. */
  handles(path: string): boolean {
    return (
      (this.jsonrpc !== undefined && path === this.rpcPath) ||
      this.cardPaths.has(path) ||
      (this.rest?.handles(path) ?? false) ||
      (this.compatRest?.handles(path) ?? false) ||
      path === this.healthPaths.liveness ||
      path === this.healthPaths.readiness
    );
  }

  /**
   * Whether `path` is one of the health endpoints (liveness, readiness). An app's own route at exactly that
   * path wins over it where the adapter can tell (Fastify: a route the app registered at that path).
   */
  isHealthPath(path: string): boolean {
    return path === this.healthPaths.liveness || path === this.healthPaths.readiness;
  }

  /**
   * Stops executions, waits for pending push notifications; the adapters close their sockets. With
   * `graceMs`, a graceful shutdown first (CloseOptions): resolves once running turns finished or were handed
   * over and the open streams ended. Called again, it answers the first call's promise.
   */
  async close(options?: CloseOptions): Promise<void> {
    await (this.closing ??= this.shutDown(options));
  }

  private async shutDown(options: CloseOptions | undefined): Promise<DrainOutcome | undefined> {
    const outcome = options?.graceMs !== undefined ? await this.service.runtime.drain(options.graceMs) : undefined;
    await this.service.close();
    return outcome;
  }

  /**
   * Resolves once no turn runs on this instance and the push notifications queued so far were attempted:
   * the work that goes on after a response (a non-blocking send's turn, push delivery). A fetch handler on
   * Cloudflare Workers hands it to `ctx.waitUntil` (adapters/web.ts), so the isolate is kept for it.
   */
  idle(): Promise<void> {
    return this.service.runtime.idle();
  }

  /** Whether `cors` is set: the server answers CORS preflights (`OPTIONS`) of its paths itself. */
  get answersPreflights(): boolean {
    return this.cors !== undefined;
  }

  /** Whether the server is shutting down (`close({ graceMs })`): new calls are refused. */
  get draining(): boolean {
    return this.service.runtime.draining.aborted;
  }

  handle(request: CoreRequest): Promise<CoreResponse> {
    if (this.cors === undefined && !this.service.runtime.draining.aborted) return this.observed(request);
    return this.answerAround(request);
  }

  /** The answer with CORS (preflights answered, headers added) and the refusals of a draining server. */
  private async answerAround(request: CoreRequest): Promise<CoreResponse> {
    const cors = this.cors;
    if (cors && CorsPolicy.isPreflight(request)) return cors.preflight(request);
    const answer = this.draining ? this.refuseWhileDraining(request) : undefined;
    const response = answer ?? (await this.observed(request));
    return cors ? cors.apply(request, response) : response;
  }

  /**
   * A call to a draining server: 503 with Retry-After in the binding's error form (the agent card and the
   * health endpoints are still answered: undefined).
   */
  private refuseWhileDraining(request: CoreRequest): CoreResponse | undefined {
    if (this.cardPaths.has(request.path) || request.path === this.healthPaths.liveness || request.path === this.healthPaths.readiness) return undefined;
    const error = shuttingDownError();
    if (this.jsonRpcFor(request)) {
      // The error's data in the version's form (1.0: google.rpc details), as the binding's own errors have it.
      const published = this.service.publicError(error);
      return jsonResponse(503, failure(null, jsonRpcError(published.code, published.message, published.data)), { "retry-after": String(DRAINING_RETRY_AFTER_SECONDS) });
    }
    const rest = this.restFor(request);
    return rest?.handles(request.path) ? rest.errorResponse(error) : undefined;
  }

  /** The answer, in a span of its own when observed (ServerOptions.telemetry). */
  private observed(request: CoreRequest): Promise<CoreResponse> {
    const telemetry = this.service.telemetry;
    if (telemetry === undefined) return this.answer(request);
    // Observed (ServerOptions.telemetry): a span per call to a binding; card requests and 404s are not calls.
    const binding = this.jsonRpcFor(request) ? "JSONRPC" : this.restFor(request)?.handles(request.path) ? "HTTP+JSON" : undefined;
    if (binding === undefined) return this.answer(request);
    return telemetry.serverCall(binding, request.headers, (span) => telemetry.httpAnswer(this.answer(request, span), span, binding));
  }

  /** The answer; `span`: the call's, when observed. */
  private async answer(request: CoreRequest, span?: CallRecorder): Promise<CoreResponse> {
    try {
      // JSON-RPC, the path nearly every request takes, is answered here: an async layer (route's) costs
      // each request a suspended frame and two promises.
      const jsonrpc = this.jsonRpcFor(request);
      if (jsonrpc) return this.jsonRpcAnswer(request, await jsonrpc.handle(request, span));
      return await this.route(request, span);
    } catch (error) {
      this.logger.error("a2a: internal error while handling a request", error);
      const rest = this.restFor(request);
      if (rest && rest.handles(request.path) && !this.jsonRpcFor(request)) return rest.internalError();
      return jsonResponse(500, failure(null, jsonRpcError(JSON_RPC_ERROR.internalError, "Internal error")));
    }
  }

  /** The agent card, with its caching headers; 304 when the client's copy is current (§8.6.1). */
  private async card(request: CoreRequest): Promise<CoreResponse> {
    this.servedCard ??= prepareCard(this.compatService ?? this.service, this.cardCache, this.cardCache === false ? undefined : (this.cardCache?.lastModified ?? this.createdAt));
    const served = await this.servedCard;
    if (served instanceof Error) {
      this.logger.error("a2a: the agent card could not be prepared", served);
      return jsonResponse(500, failure(null, jsonRpcError(JSON_RPC_ERROR.internalError, "The agent card is not available")));
    }
    const validators = served.headers as Partial<CardCacheHeaders>;
    if (validators.etag !== undefined && cardNotModified({ ifNoneMatch: request.headers["if-none-match"], ifModifiedSince: request.headers["if-modified-since"] }, validators as CardCacheHeaders)) {
      return { kind: "empty", status: 304, headers: { ...served.headers } };
    }
    return { kind: "json", status: 200, headers: { "content-type": "application/json", ...served.headers }, body: served.body };
  }

  /** The JSON-RPC binding, when the request goes to it (the card's paths come first). */
  private jsonRpcFor(request: CoreRequest): JsonRpcBinding | undefined {
    return request.path === this.rpcPath && !this.cardPaths.has(request.path) ? this.jsonrpc : undefined;
  }

  /** The JSON-RPC binding's answer with each served version's extensions header (a compat agent: 1.0's A2A-Extensions and 0.3's X-A2A-Extensions). */
  private jsonRpcAnswer(request: CoreRequest, answer: CoreResponse): CoreResponse {
    const ours = withExtensions(this.service, request, answer);
    return this.compatService ? withExtensions(this.compatService, request, ours) : ours;
  }

  /** The agent card, the HTTP+JSON routes and 404 (JSON-RPC is answered by `handle`). */
  private async route(request: CoreRequest, span: CallRecorder | undefined): Promise<CoreResponse> {
    if (request.path === this.healthPaths.liveness || request.path === this.healthPaths.readiness) return this.healthAnswer(request);
    if (this.cardPaths.has(request.path)) {
      if (request.method !== "GET" && request.method !== "HEAD") return httpError(405, "Use GET for the agent card", { allow: "GET, HEAD" });
      return this.card(request);
    }
    const rest = this.restFor(request);
    if (rest) {
      const answer = await rest.handle(request, span);
      if (answer) return withExtensions(rest === this.compatRest && this.compatService ? this.compatService : this.service, request, answer);
    }
    return httpError(404, `Not found: ${request.path}`);
  }

  /** Liveness (200 while the process answers) or readiness (200 ready, else 503 with why), never cached. */
  private async healthAnswer(request: CoreRequest): Promise<CoreResponse> {
    if (request.method !== "GET" && request.method !== "HEAD") return httpError(405, "Use GET for the health endpoints", { allow: "GET, HEAD" });
    const headers = { "cache-control": "no-store" };
    if (request.path === this.healthPaths.liveness) return jsonResponse(200, { status: "ok" }, headers);
    const readiness = await this.health.readiness();
    const ready = readiness.status === "ready";
    // The store's error goes to the log, not to the (unauthenticated) caller.
    const { error, ...store } = readiness.store;
    if (error !== undefined) this.logger.warn?.(`a2a: readiness: the ${store.engine} store does not answer: ${error}`);
    return jsonResponse(ready ? 200 : 503, { ...readiness, store }, ready ? headers : { ...headers, "retry-after": String(DRAINING_RETRY_AFTER_SECONDS) });
  }

  /**
   * The HTTP+JSON binding that answers a request: on a compat agent, the version the A2A-Version header
   * (or query parameter) names, a missing one meaning 0.3 (specification-1.0.1.md §3.2.6), when that
   * version has a route for the path; else the version that has one (whose service then refuses a
   * version it does not speak: VersionNotSupportedError); a path neither has is the named version's 404.
   * 1.0's `/{tenant}/message:send` also matches 0.3's `/v1/message:send`: the header decides.
   */
  private restFor(request: CoreRequest): RestBinding | undefined {
    const compat = this.compatRest;
    if (!compat || !this.rest) return this.rest;
    const order = this.restFirst?.(request) === "compat" ? [compat, this.rest] : [this.rest, compat];
    return order.find((b) => b.matches(request.path)) ?? order[0];
  }
}

/**
 * The options without `option`, that of a feature the output was generated without (generated core.ts:
 * `telemetry` without --telemetry, `compat` without --compat). It takes `false` (off) or nothing; any other
 * value (plain JavaScript, a cast) would reach the runtime's internal hook of that name, so it is a
 * TypeError now, naming the flag (`generateWith`: the flag, and what it would do).
 */
export function withoutUngenerated<T extends object, K extends string & keyof T>(options: T, option: K, generateWith: string): Omit<T, K> {
  const { [option]: value, ...rest } = options;
  if (value !== undefined && value !== false) throw new TypeError(`${option}: this server was generated without --${option}; generate it with ${generateWith}`);
  return rest;
}

/**
 * A card that declares an extended card (1.0 `capabilities.extendedAgentCard`, 0.3
 * `supportsAuthenticatedExtendedCard`) must have callers authenticated: specification-1.0.1.md §13.3
 * ("MUST require authentication" for GetExtendedAgentCard) and 0.3's "authenticated" extended card. Without
 * a security scheme every caller would get it anonymously, so the server refuses to start, saying why.
 */
export function checkExtendedCardAuth(card: JsonObject, authenticates: boolean): void {
  const v1 = isObject(card["capabilities"]) && card["capabilities"]["extendedAgentCard"] === true;
  const v03 = card["supportsAuthenticatedExtendedCard"] === true;
  if ((!v1 && !v03) || authenticates) return;
  const field = v1 ? "capabilities.extendedAgentCard" : "supportsAuthenticatedExtendedCard";
  throw new Error(
    `the agent card declares an extended card (${field}: true) but no security scheme: the extended card is for authenticated callers only ` +
      `(specification-1.0.1.md §13.3: GetExtendedAgentCard MUST require authentication), and without a scheme every caller would get it anonymously. ` +
      `Declare securitySchemes and ${v1 ? "securityRequirements" : "security"} in the card (and pass auth.verify), or set ${field} to false.`,
  );
}

/** The card as served (signed by the service's `cardSigning`, when set) and its caching headers; an Error when signing failed. */
async function prepareCard(service: A2AService, cache: ServerOptions["cardCache"], lastModified: Date | undefined): Promise<{ body: string; headers: Record<string, string> } | Error> {
  try {
    const body = JSON.stringify(await service.signedCard(service.card));
    if (cache === false || lastModified === undefined) return { body, headers: { "cache-control": "no-cache" } };
    const headers = await cardCacheHeaders(body, { ...(cache?.maxAgeSeconds !== undefined ? { maxAgeSeconds: cache.maxAgeSeconds } : {}), lastModified });
    return { body, headers: { ...headers } };
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** The response naming the extensions the request activated, in the version's extensions header (as the 0.3 and 1.x SDKs do). */
function withExtensions(service: A2AService, request: CoreRequest, response: CoreResponse): CoreResponse {
  const echo = service.extensionsEcho(request.headers);
  return echo === undefined ? response : { ...response, headers: { ...response.headers, [echo[0]]: echo[1] } };
}

function pathOf(url: unknown): string | undefined {
  if (typeof url !== "string") return undefined;
  try {
    return new URL(url).pathname || "/";
  } catch {
    return undefined;
  }
}

function trimSlash(path: string): string {
  return path.replace(/\/+$/, "");
}
