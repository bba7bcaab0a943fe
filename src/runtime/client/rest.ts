/**
 * The HTTP+JSON (REST) client transport: the same `call` / `stream` as the JSON-RPC transport, over the
 * routes of the version's proto (A2A_HTTP_ROUTES): each call is expanded into verb, path, query and body
 * (specification-1.0.1.md §11.3–§11.5), results are the response bodies, streams are Server-Sent Events
 * of StreamResponse objects (§11.7), and errors (google.rpc.Status bodies, §11.6) become the same typed
 * errors as on JSON-RPC: the A2A code is read from the ErrorInfo's reason, a BadRequest is invalid params.
 * A version whose proto shapes differ from its JSON-RPC ones (0.3.0) sends and reads the proto's shapes,
 * translated by the version's `shapes` (the gRPC binding's translation), and reads 0.3's error bodies
 * (`{ code, message, data }` with the A2A code). Depends only on web platform globals, like the JSON-RPC
 * transport.
 */
import {
  receivedA2AError,
  checkedResult,
  A2ATransportError,
  type A2AErrorObject,
  type CallOptions,
  type ClientOptions,
  type ClientTransport,
  type ClientTransportFactory,
  type ResponseChecks,
  type TransportContext,
} from "./client.js";
import { bodyChunks, DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_RESPONSE_BYTES, isEventStream, readText, send, startAttempt, streamFailure, timeoutOf, type Attempt, type RequestScope } from "./http.js";
import type { HttpAnswer } from "./fetch.js";
import { refuseDuplicateMembers } from "./card.js";
import { requestScope } from "./transport.js";
import { expandRoute, type HttpRoute } from "../wire/http-routes.js";
import { parseJsonSafe } from "../wire/jsonrpc.js";
import { isObject } from "../json.js";
import type { ProtocolProfile } from "../profile.js";
import { parseSse } from "../wire/sse.js";
import type { WireShapeAdapter } from "../wire/shapes.js";

/** What the transport needs of the version besides the routes: its error codes and version header. */
export interface RestVersionFacts {
  profile: Pick<ProtocolProfile, "errorCodes" | "versionHeader" | "specVersion">;
  /** The translation between the proto's shapes on the wire and the version's JSON-RPC shapes (0.3.0). */
  shapes?: WireShapeAdapter;
}

const CONTENT_TYPE = "application/a2a+json";
/** The code of an auth failure on the other bindings (the JSON-RPC binding's -32000). */
const AUTH_ERROR_CODE = -32000;

export class RestTransport implements ClientTransport {
  readonly binding = "HTTP+JSON" as const;
  /** The interface's URL without a trailing slash; route paths are appended to it. */
  readonly baseUrl: string;
  /** The interface's tenant (1.0), set in every request's params unless they name one (§8.3.2). */
  private readonly tenant: string | undefined;

  private readonly routes: readonly HttpRoute[];
  private readonly facts: RestVersionFacts;
  private readonly options: ClientOptions;
  private readonly checks: ResponseChecks;
  /** Where credentials may go and what every request carries (as for the JSON-RPC transport). */
  private readonly scope: RequestScope;

  constructor(
    baseUrl: string,
    routes: readonly HttpRoute[],
    facts: RestVersionFacts,
    options: ClientOptions = {},
    checks: ResponseChecks = {},
    context: Partial<TransportContext> = {},
  ) {
    this.routes = routes;
    this.facts = facts;
    this.options = options;
    this.checks = checks;
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.tenant = context.tenant;
    this.scope = requestScope(this.baseUrl, options, context);
  }

  /** The URL calls go to (the interface's URL). */
  get endpoint(): string {
    return this.baseUrl;
  }

  /**
   * One unary call: resolves to the response body; throws the typed error of an error body. The request goes
   * through the client's HTTP layer, as on JSON-RPC: credentials only to trusted origins, the redirect
   * policy, the timeout and signal, and `maxResponseBytes` on the body.
   */
  async call(method: string, params: unknown, options: CallOptions = {}): Promise<unknown> {
    const attempt = startAttempt(method, options.signal, timeoutOf(options, this.options));
    try {
      const response = await this.send(method, this.withTenant(params), "application/json", options, attempt);
      const text = await readText(response, method, attempt, this.options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES);
      if (!response.ok) throw this.errorOf(method, response.status, text);
      const parsed = text === "" ? { ok: true as const, value: {} } : parseJsonSafe(text);
      if (!parsed.ok) throw new A2ATransportError(`${method}: the response is not JSON (${parsed.message})`, { status: response.status, body: text });
      if (method === this.checks.cardMethod) refuseDuplicateMembers(text, method, response.status);
      return this.checked(method, this.fromWire(method, parsed.value));
    } finally {
      attempt.dispose();
    }
  }

  /** A streaming call: yields each event's StreamResponse until the final one or the end of the stream. */
  async *stream(method: string, params: unknown, options: CallOptions = {}): AsyncGenerator<unknown, void, undefined> {
    const attempt = startAttempt(method, options.signal, timeoutOf(options, this.options));
    let response: HttpAnswer | undefined;
    try {
      response = await this.send(method, this.withTenant(params), "text/event-stream", options, attempt);
      const status = response.status;
      if (!response.ok || !isEventStream(response)) {
        const text = await readText(response, method, attempt, this.options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES);
        if (!response.ok) throw this.errorOf(method, status, text);
        throw new A2ATransportError(`${method}: expected an event stream, got ${response.headers.get("content-type") ?? "no content-type"}`, { status, body: text });
      }
      attempt.stopTimer(); // the headers are in: from here on only the signal bounds the stream
      if (response.body === null) return;
      const events = parseSse(bodyChunks(response.body, method, status), {
        maxEventBytes: this.options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES,
        signal: attempt.signal,
      });
      for await (const event of events) {
        if (event.event !== undefined && event.event !== "message" && event.event !== "error") continue;
        const parsed = parseJsonSafe(event.data);
        if (!parsed.ok) throw new A2ATransportError(`${method}: a stream event is not JSON (${parsed.message})`, { status, body: event.data });
        if (event.event === "error" || (isObject(parsed.value) && isObject(parsed.value["error"]) && Object.keys(parsed.value).length === 1)) {
          throw this.errorOf(method, status, event.data);
        }
        const result = this.checked(method, this.fromWire(method, parsed.value));
        yield result;
        if (this.checks.isFinal?.(result)) return;
      }
    } catch (error) {
      throw streamFailure(error, method, attempt, response?.status);
    } finally {
      attempt.dispose();
      if (response?.body && !response.bodyUsed) await response.body.cancel().catch(() => undefined);
      attempt.abortQuietly();
    }
  }

  private withTenant(params: unknown): unknown {
    if (this.tenant === undefined) return params;
    if (params === undefined) return { tenant: this.tenant };
    if (!isObject(params) || params["tenant"] !== undefined) return params;
    return { ...params, tenant: this.tenant };
  }

  /** The rpc of a method where the wire carries the proto's shapes (0.3.0), else undefined. */
  private rpcOf(method: string): string | undefined {
    return this.facts.shapes ? this.routes.find((r) => r.method === method)?.rpc : undefined;
  }

  /** A response body (or stream event) in the proto's shapes as the version's JSON-RPC result. */
  private fromWire(method: string, value: unknown): unknown {
    const rpc = this.rpcOf(method);
    return rpc === undefined || !this.facts.shapes ? value : this.facts.shapes.resultFromWire(rpc, value);
  }

  private async send(method: string, params: unknown, accept: string, options: CallOptions, attempt: Attempt): Promise<HttpAnswer> {
    const rpc = this.rpcOf(method);
    const wire = rpc === undefined || !this.facts.shapes ? params : this.facts.shapes.paramsToWire(rpc, params);
    const request = expandRoute(this.routes, method, wire);
    if (!request) throw new A2ATransportError(`${method}: no HTTP+JSON route of this version fits these params`);
    const url = new URL(this.baseUrl + request.path);
    for (const [key, value] of request.query) url.searchParams.append(key, value);
    // Protocol headers only: credentials (auth, the headers options) are added by send() for trusted origins.
    const headers: Record<string, string> = { accept };
    const version = this.facts.profile.versionHeader;
    if (version) headers[version] = this.facts.profile.specVersion.split(".").slice(0, 2).join(".");
    let body: string | undefined;
    if (request.verb !== "GET" && request.verb !== "DELETE") {
      body = JSON.stringify(request.body ?? {});
      // 1.0: application/a2a+json (§11.1); 0.3 "MUST use application/json" (specification-0.3.0.md §3.2.3).
      headers["content-type"] = version ? CONTENT_TYPE : "application/json";
    }
    return send({ url: url.href, method: request.verb, headers, ...(body !== undefined ? { body } : {}) }, this.scope, this.options, options, method, attempt);
  }

  /** Validation (when on) of a result, checked as the JSON-RPC response it would be on that binding. */
  private checked(method: string, result: unknown): unknown {
    return checkedResult(this.checks, this.options, method, result);
  }

  /** The typed error of an error body (google.rpc.Status; 0.3's A2A error object), or a transport error when the body is not one. */
  private errorOf(method: string, status: number, text: string): Error {
    const parsed = parseJsonSafe(text);
    if (parsed.ok && isObject(parsed.value) && typeof parsed.value["code"] === "number" && Number.isInteger(parsed.value["code"]) && typeof parsed.value["message"] === "string") {
      // 0.3's form (the official SDK's too): the A2A error object itself, its code the A2A error code.
      const object: A2AErrorObject = { code: parsed.value["code"], message: parsed.value["message"] };
      if (parsed.value["data"] !== undefined) object.data = parsed.value["data"];
      return this.checks.makeError ? this.checks.makeError(method, object) : receivedA2AError(method, object);
    }
    const error = parsed.ok && isObject(parsed.value) && isObject(parsed.value["error"]) ? parsed.value["error"] : undefined;
    if (!error || typeof error["message"] !== "string") return new A2ATransportError(`${method}: HTTP ${status}`, { status, body: text });
    const details = Array.isArray(error["details"]) ? error["details"].filter(isObject) : [];
    const info = details.find((d) => d["@type"] === "type.googleapis.com/google.rpc.ErrorInfo" && typeof d["reason"] === "string");
    const name = typeof info?.["reason"] === "string" ? info["reason"].toLowerCase().replace(/(^|_)([a-z0-9])/g, (_m, _u, c: string) => c.toUpperCase()) : undefined;
    let code = name !== undefined ? this.facts.profile.errorCodes[name] : undefined;
    if (code === undefined) {
      if (status === 401 || status === 403) code = AUTH_ERROR_CODE;
      else if (details.some((d) => d["@type"] === "type.googleapis.com/google.rpc.BadRequest") || status === 400 || status === 413 || status === 415) code = -32602;
      else if (status === 404 || status === 405) code = -32601;
      else code = -32603;
    }
    const object: A2AErrorObject = { code, message: error["message"] };
    if (details.length > 0) object.data = details;
    return this.checks.makeError ? this.checks.makeError(method, object) : receivedA2AError(method, object);
  }
}

/**
 * The client's factory of the HTTP+JSON binding for one version's routes (the generated client exports
 * it as `restTransport` for versions whose proto defines the binding): pass it in the `transports`
 * option of `A2AClient.fromAgentUrl`.
 */
export function restTransportFactory(routes: readonly HttpRoute[], facts: RestVersionFacts): ClientTransportFactory {
  return {
    binding: "HTTP+JSON",
    create: (endpoint, options, checks, context) => new RestTransport(endpoint, routes, facts, options, checks, context),
  };
}

/**
 * The URL of the card's HTTP+JSON interface, if it lists one: 1.0 `supportedInterfaces` (the first with
 * protocolBinding "HTTP+JSON"), 0.3 `preferredTransport` (then `url`) or `additionalInterfaces`.
 */
export function restInterfaceOf(card: object): string | undefined {
  const c = card as Record<string, unknown>;
  const isRest = (name: unknown) => typeof name === "string" && name.toUpperCase() === "HTTP+JSON";
  if (Array.isArray(c["supportedInterfaces"])) {
    const found = c["supportedInterfaces"].find((i): i is Record<string, unknown> => isObject(i) && isRest(i["protocolBinding"]) && typeof i["url"] === "string");
    return found?.["url"] as string | undefined;
  }
  if (isRest(c["preferredTransport"]) && typeof c["url"] === "string") return c["url"];
  if (Array.isArray(c["additionalInterfaces"])) {
    const found = c["additionalInterfaces"].find((i): i is Record<string, unknown> => isObject(i) && isRest(i["transport"]) && typeof i["url"] === "string");
    return found?.["url"] as string | undefined;
  }
  return undefined;
}
