/**
 * The HTTP+JSON (REST) binding: routes from the proto's google.api.http rules (generated into protocol.ts
 * as A2A_HTTP_ROUTES), path variables, the body mapping (`*` or one field) and query parameters turned into
 * the method's params; results as JSON, streams as Server-Sent Events (one StreamResponse per `data:`),
 * errors as an HTTP status with a google.rpc.Status body (specification-1.0.1.md §11.6, the status from the
 * §5.4 table). Unknown routes are 404, a known path with another verb 405, a body that is not JSON 415, an
 * oversized one 413 — all in the same error shape.
 *
 * A version whose proto shapes differ from its JSON-RPC shapes (0.3.0, `binding.wireShapes`) carries the
 * proto's shapes (ProtoJSON) on this binding, translated to and from the service's by the same translation
 * the gRPC binding uses; its errors are `{ code, message, data }` with the A2A error code (0.3 defines no
 * error body; specification-0.3.0.md §3.2.3 asks for one "that maps to A2A error types"). Errors name
 * fields as this binding's request has them ("message.contextId", 0.3.0's "message.content[0]"), never
 * the JSON-RPC envelope's "params.message.contextId".
 */
import { A2AError } from "../a2a-error.js";
import { bodyText, httpCallContext, isJsonMediaType, jsonResponse, mediaType, sseOf } from "./http.js";
import type { CoreRequest, CoreResponse, CallContext, CallRecorder } from "../call.js";
import { JSON_RPC_ERROR, parseJsonSafe } from "../wire/jsonrpc.js";
import { isObject, type JsonObject } from "../json.js";
import { afterFirstEvent } from "../wire/sse.js";
import { jsonFieldName, RouteTable, type HttpRoute } from "../wire/http-routes.js";
import type { A2AService, ErrorStatus } from "../service/service.js";
import type { ValidationIssue } from "../validation.js";
import { repointIssues, repointText } from "../wire/issue-pointers.js";
import { ProtoJsonError, type WireShapeAdapter } from "../wire/shapes.js";

export interface RestBindingOptions {
  /** The path the routes hang under ("" or e.g. "/rest"). */
  prefix: string;
  maxBodyBytes: number;
  /** Time the body may take to arrive, in ms (the adapters stop reading then); for the error message. */
  bodyTimeoutMs?: number;
  heartbeatMs: number;
}

const CONTENT_TYPE = "application/a2a+json";

/** Statuses of the JSON-RPC 2.0 codes, for a version whose facts do not list them. */
const FALLBACK: Readonly<Record<number, ErrorStatus>> = {
  [JSON_RPC_ERROR.parseError]: { http: 400, grpc: "INVALID_ARGUMENT" },
  [JSON_RPC_ERROR.invalidRequest]: { http: 400, grpc: "INVALID_ARGUMENT" },
  [JSON_RPC_ERROR.methodNotFound]: { http: 404, grpc: "UNIMPLEMENTED" },
  [JSON_RPC_ERROR.invalidParams]: { http: 400, grpc: "INVALID_ARGUMENT" },
};

export class RestBinding {
  private readonly table: RouteTable;
  /** The translation between the proto's shapes on this binding and the service's (0.3.0), else undefined. */
  private readonly shapes: WireShapeAdapter | undefined;
  /** 1.0's google.rpc.Status error bodies (§11.6), else 0.3's `{ code, message, data }`. */
  private readonly statusBodies: boolean;
  private readonly contentType: string;

  private readonly service: A2AService;
  private readonly options: RestBindingOptions;

  constructor(service: A2AService, routes: readonly HttpRoute[], options: RestBindingOptions) {
    this.service = service;
    this.options = options;
    this.table = new RouteTable(routes);
    this.shapes = service.binding.wireShapes;
    this.statusBodies = service.profile.errorDetails === true;
    // 1.0 answers application/a2a+json (§11.1); 0.3 "MUST use application/json" (specification-0.3.0.md §3.2.3).
    this.contentType = this.statusBodies ? CONTENT_TYPE : "application/json";
  }

  /** The status of an A2A error on this binding (§5.4). */
  statusOf(code: number): ErrorStatus {
    return this.service.binding.errorStatus?.[code] ?? FALLBACK[code] ?? { http: 500, grpc: "INTERNAL" };
  }

  /** Whether a path is the binding's (any verb); adapters pass other paths on. */
  handles(path: string): boolean {
    const relative = this.relative(path);
    if (relative === undefined) return false;
    // Under a prefix every path is the binding's (an unknown one is its 404); at the root only its routes are.
    return this.options.prefix !== "" || this.table.matching(relative).length > 0;
  }

  /** Whether a path is one of the binding's routes (any verb): a compat agent picks the version's binding by it. */
  matches(path: string): boolean {
    const relative = this.relative(path);
    return relative !== undefined && this.table.matching(relative).length > 0;
  }

  internalError(): CoreResponse {
    return this.error(new A2AError(JSON_RPC_ERROR.internalError, "Internal error"));
  }

  /** An A2A error answered outside a route's handling (a draining server's 503), in this binding's form. */
  errorResponse(error: A2AError): CoreResponse {
    return this.error(error);
  }

  /** Answers a request under the prefix (undefined for paths outside it); `span`: the call's, when the server is observed. */
  async handle(request: CoreRequest, span?: CallRecorder): Promise<CoreResponse | undefined> {
    const relative = this.relative(request.path);
    if (relative === undefined) return undefined;
    const matching = this.table.matching(relative);
    if (matching.length === 0) return this.status(404, "NOT_FOUND", `No A2A route for ${request.method} ${request.path}`);
    const hit = matching.find((x) => x.compiled.route.verb === request.method);
    if (!hit) {
      const allow = [...new Set(matching.map((x) => x.compiled.route.verb))].join(", ");
      return this.status(405, "INVALID_ARGUMENT", `${request.path} takes ${allow}, not ${request.method}`, { allow });
    }
    const route = hit.compiled.route;
    const rpc = this.shapes ? route.rpc : undefined;
    try {
      const principal = this.service.requiresAuth ? await this.service.authenticate(httpCallContext(request, "HTTP+JSON")) : undefined;
      const read = this.params(route, RouteTable.values(hit.compiled, hit.match), request);
      if ("response" in read) return read.response;
      const wire = rpc === undefined ? { value: read.params as unknown } : this.fromWire(rpc, read.params);
      if ("response" in wire) return wire.response;
      const method = route.method;
      // 1.0 ProtoJSON: fields under their proto names (`history_length`) read as their JSON names, unknown ones left out.
      const params = this.service.input(method, wire.value);
      const admitted: CallContext = httpCallContext(request, "HTTP+JSON", { principal }, span);
      this.service.negotiate(admitted);
      this.service.validate(method, params);
      const toWire = (result: unknown) => (rpc === undefined || !this.shapes ? result : this.shapes.resultToWire(rpc, result));
      if (this.service.methods.get(method)?.streaming) {
        // An error before the first event is the call's HTTP error; after it, an SSE event.
        const events = await afterFirstEvent(await this.service.openStream(method, params, admitted, principal));
        return sseOf(
          events,
          (event) => JSON.stringify(toWire(event)),
          (error) => JSON.stringify(this.errorBody(this.published(error instanceof A2AError ? error : new A2AError(JSON_RPC_ERROR.internalError, "Internal error"), rpc))),
          this.options.heartbeatMs,
        );
      }
      const result = toWire(await this.service.invoke(method, params, admitted, principal));
      return jsonResponse(200, result === undefined || result === null ? {} : result, {}, this.contentType);
    } catch (error) {
      if (error instanceof A2AError) return this.error(error, rpc);
      throw error;
    }
  }

  /** The wire request (the proto's shapes) as the service's params; a field the translation cannot read is a 400 naming it. */
  private fromWire(rpc: string, wire: JsonObject): { value: unknown } | { response: CoreResponse } {
    try {
      return { value: (this.shapes as WireShapeAdapter).paramsFromWire(rpc, wire) };
    } catch (error) {
      if (!(error instanceof ProtoJsonError)) throw error;
      const pointer = error.field === "" ? "" : `/${error.field.replace(/\[(\d+)\]/g, ".$1").split(".").join("/")}`;
      return { response: this.error(this.service.invalidParams([issue(pointer, "a field of the request", "an unreadable value", error.description)])) };
    }
  }

  /** The path without the prefix, or undefined when it is not under it. */
  private relative(path: string): string | undefined {
    const prefix = this.options.prefix;
    if (prefix === "") return path;
    if (path === prefix) return "/";
    return path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : undefined;
  }

  /** The method's params from the path variables, the body (per the rule's `body`) and the query; or an error response. */
  private params(route: HttpRoute, path: ReturnType<typeof RouteTable.values>, request: CoreRequest): { params: JsonObject } | { response: CoreResponse } {
    const refuse = (response: CoreResponse) => ({ response });
    if ("badField" in path) {
      return refuse(this.badRequest([issue(`/${path.badField}`, "a percent-encoded path segment", "invalid percent-encoding", `the path's ${path.badField} is not valid percent-encoding`)]));
    }
    let params: JsonObject = {};
    if (route.body !== undefined && route.body !== "") {
      if (request.body === "too-large") {
        return refuse({ ...this.status(413, "RESOURCE_EXHAUSTED", `Request body exceeds ${this.options.maxBodyBytes} bytes`), headers: { "content-type": this.contentType, connection: "close" } } as CoreResponse);
      }
      if (request.body === "timed-out") {
        return refuse({ ...this.status(408, "DEADLINE_EXCEEDED", `Request body not received within ${this.options.bodyTimeoutMs ?? 0} ms`), headers: { "content-type": this.contentType, connection: "close" } } as CoreResponse);
      }
      const text = bodyText(request);
      if (text.trim() !== "") {
        const type = mediaType(request);
        if (!isJsonMediaType(type)) return refuse(this.status(415, "INVALID_ARGUMENT", `Content-Type must be application/json or application/a2a+json, got ${type ? `"${type}"` : "none"}`));
        const parsed = parseJsonSafe(text);
        if (!parsed.ok) {
          const issues = [issue("", "a JSON object", "malformed JSON", `the body is not JSON: ${parsed.message}`)];
          return refuse(this.error(new A2AError(JSON_RPC_ERROR.parseError, "Malformed JSON body", { issues })));
        }
        if (route.body === "*") {
          if (!isObject(parsed.value)) return refuse(this.badRequest([issue("", "a JSON object", describe(parsed.value), "the body must be a JSON object")]));
          params = { ...parsed.value };
        } else params[jsonFieldName(route.body)] = parsed.value;
      }
    }
    if (route.query) {
      for (const [field, type] of Object.entries(route.query)) {
        const values = protoName(field) === field ? request.query.getAll(field) : request.query.getAll(field).concat(request.query.getAll(protoName(field)));
        if (values.length === 0) continue;
        params[field] = queryValue(type, values);
      }
    }
    for (const [field, value] of Object.entries(path.values)) {
      if (params[field] !== undefined && params[field] !== value) {
        return refuse(this.badRequest([issue(`/${field}`, JSON.stringify(value), JSON.stringify(params[field]), `${field} in the body differs from the path's`)]));
      }
      params[field] = value;
    }
    return { params };
  }

  private badRequest(issues: ValidationIssue[]): CoreResponse {
    return this.error(this.service.invalidParams(issues));
  }

  /** An A2A error as its HTTP status and error body (1.0: google.rpc.Status; 0.3: the A2A error object). */
  private error(error: A2AError, rpc?: string): CoreResponse {
    const published = this.published(error, rpc);
    const headers: Record<string, string> = published.challenge !== undefined ? { "www-authenticate": published.challenge } : {};
    if (published.retryAfter !== undefined) headers["retry-after"] = String(published.retryAfter);
    return jsonResponse(this.httpStatus(published), this.errorBody(published), headers, this.contentType);
  }

  /** The error in the version's form, its fields named as this binding's request has them. */
  private published(error: A2AError, rpc: string | undefined): A2AError {
    const published = this.service.publicError(error);
    const shapes = this.shapes;
    const toWire = rpc !== undefined && shapes ? (pointer: string) => shapes.pointerToWire(rpc, pointer) : undefined;
    const data = repointIssues(published.data, toWire);
    const message = repointText(published.message, toWire);
    if (data === published.data && message === published.message) return published;
    return new A2AError(published.code, message, data, {
      ...(published.http ? { http: published.http } : {}),
      ...(published.challenge !== undefined ? { challenge: published.challenge } : {}),
      ...(published.retryAfter !== undefined ? { retryAfter: published.retryAfter } : {}),
    });
  }

  private httpStatus(error: A2AError): number {
    return error.http ?? this.statusOf(error.code).http;
  }

  /** `{ error: { code, status, message, details } }`: google.rpc.Status as §11.6 writes it; 0.3: `{ code, message, data }`. */
  private errorBody(error: A2AError): JsonObject {
    if (!this.statusBodies) return error.data === undefined ? { code: error.code, message: error.message } : { code: error.code, message: error.message, data: error.data as JsonObject };
    const status = error.http === 401 ? "UNAUTHENTICATED" : error.http === 403 ? "PERMISSION_DENIED" : error.http === 503 ? "UNAVAILABLE" : this.statusOf(error.code).grpc;
    const details = Array.isArray(error.data) ? error.data : error.data === undefined ? [] : [{ "@type": "type.googleapis.com/google.protobuf.Struct", value: error.data }];
    return { error: { code: this.httpStatus(error), status, message: error.message, details } };
  }

  /** An HTTP-level refusal (no route, wrong verb, unreadable body) in the same shape (0.3: the JSON-RPC code of its kind). */
  private status(http: number, grpc: string, message: string, headers: Record<string, string> = {}): CoreResponse {
    if (!this.statusBodies) {
      const code = http === 404 || http === 405 ? JSON_RPC_ERROR.methodNotFound : http >= 500 ? JSON_RPC_ERROR.internalError : JSON_RPC_ERROR.invalidRequest;
      return jsonResponse(http, { code, message }, headers, this.contentType);
    }
    return jsonResponse(http, { error: { code: http, status: grpc, message, details: [] } }, headers, this.contentType);
  }
}

/** A query parameter as the JSON value of its field (§11.5); a value that does not convert stays a string for the validator to name. */
function queryValue(type: string, values: string[]): unknown {
  const last = values[values.length - 1] as string;
  switch (type) {
    case "integer":
      return /^-?\d+$/.test(last) ? Number(last) : last;
    case "number":
      return last.trim() !== "" && Number.isFinite(Number(last)) ? Number(last) : last;
    case "boolean":
      return last === "true" ? true : last === "false" ? false : last;
    case "string[]":
      return values.flatMap((v) => v.split(",")).filter((v) => v !== "");
    default:
      return last;
  }
}

function issue(pointer: string, expected: string, got: string, message: string): ValidationIssue {
  return { pointer, expected, got, keyword: "binding", message: `${pointer || "/"}: ${message}` };
}

function describe(value: unknown): string {
  return Array.isArray(value) ? "an array" : value === null ? "null" : typeof value;
}

/** The proto name of a field's JSON name (`historyLength` → `history_length`), which ProtoJSON readers accept too. */
function protoName(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
