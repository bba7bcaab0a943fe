/**
 * The HTTP+JSON (REST) binding: routes from the proto's google.api.http rules (generated into protocol.ts
 * as A2A_HTTP_ROUTES), path variables, the body mapping (`*` or one field) and query parameters turned into
 * the method's params; results as JSON, streams as Server-Sent Events (one StreamResponse per `data:`),
 * errors as an HTTP status with a google.rpc.Status body (specification-1.0.1.md §11.6, the status from the
 * §5.4 table). Unknown routes are 404, a known path with another verb 405, a body that is not JSON 415, an
 * oversized one 413 — all in the same error shape.
 */
import { A2AError, errorName } from "./a2a-error.js";
import { bodyText, isJsonMediaType, jsonResponse, mediaType, NEVER_ABORTED, sseOf, type CoreRequest, type CoreResponse } from "./http.js";
import { JSON_RPC_ERROR, parseJsonSafe } from "./jsonrpc.js";
import { isObject, type JsonObject } from "./profile.js";
import type { A2AService, CallContext, HttpRoute } from "./service.js";
import type { ValidationIssue } from "./validation.js";

export interface RestBindingOptions {
  /** The path the routes hang under ("" or e.g. "/rest"). */
  prefix: string;
  maxBodyBytes: number;
  heartbeatMs: number;
}

/** HTTP status and gRPC status name of an error, by JSON-RPC code (the §5.4 table, as the version states it). */
export interface ErrorStatus {
  readonly http: number;
  readonly grpc: string;
}

/** A route's path template compiled: `/tasks/{id=*}:cancel` → /^\/tasks\/([^/:]+):cancel$/ and ["id"]. */
interface CompiledRoute {
  readonly route: HttpRoute;
  readonly pattern: RegExp;
  readonly fields: readonly string[];
  /** Literal characters in the template: more specific routes are tried first. */
  readonly weight: number;
}

const CONTENT_TYPE = "application/a2a+json";

/**
 * The §5.4 mapping for the errors the binding has (TaskNotFound → 404 NOT_FOUND, …) and the JSON-RPC 2.0
 * errors (a bad request → 400 INVALID_ARGUMENT, an unknown method → 404, an internal error → 500), by the
 * error's name in the version's table; codes the table does not know are 500.
 */
const BY_NAME: Readonly<Record<string, ErrorStatus>> = {
  TaskNotFound: { http: 404, grpc: "NOT_FOUND" },
  TaskNotCancelable: { http: 400, grpc: "FAILED_PRECONDITION" },
  PushNotificationNotSupported: { http: 400, grpc: "FAILED_PRECONDITION" },
  UnsupportedOperation: { http: 400, grpc: "FAILED_PRECONDITION" },
  ContentTypeNotSupported: { http: 400, grpc: "INVALID_ARGUMENT" },
  InvalidAgentResponse: { http: 500, grpc: "INTERNAL" },
  ExtendedAgentCardNotConfigured: { http: 400, grpc: "FAILED_PRECONDITION" },
  AuthenticatedExtendedCardNotConfigured: { http: 400, grpc: "FAILED_PRECONDITION" },
  ExtensionSupportRequired: { http: 400, grpc: "FAILED_PRECONDITION" },
  VersionNotSupported: { http: 400, grpc: "FAILED_PRECONDITION" },
};
const BY_CODE: Readonly<Record<number, ErrorStatus>> = {
  [JSON_RPC_ERROR.parseError]: { http: 400, grpc: "INVALID_ARGUMENT" },
  [JSON_RPC_ERROR.invalidRequest]: { http: 400, grpc: "INVALID_ARGUMENT" },
  [JSON_RPC_ERROR.methodNotFound]: { http: 404, grpc: "UNIMPLEMENTED" },
  [JSON_RPC_ERROR.invalidParams]: { http: 400, grpc: "INVALID_ARGUMENT" },
  [JSON_RPC_ERROR.internalError]: { http: 500, grpc: "INTERNAL" },
};

export class RestBinding {
  private readonly routes: readonly CompiledRoute[];

  constructor(
    private readonly service: A2AService,
    routes: readonly HttpRoute[],
    private readonly options: RestBindingOptions,
  ) {
    this.routes = routes.map(compileRoute).sort((a, b) => b.weight - a.weight);
  }

  /** The status of an A2A error on this binding (§5.4). */
  statusOf(code: number): ErrorStatus {
    const name = errorName(this.service.profile, code);
    return (name !== undefined ? BY_NAME[name] : undefined) ?? BY_CODE[code] ?? { http: 500, grpc: "INTERNAL" };
  }

  /** Whether a path is one of the routes (any verb); adapters pass other paths on. */
  handles(path: string): boolean {
    const relative = this.relative(path);
    return relative !== undefined && this.routes.some((r) => r.pattern.test(relative));
  }

  internalError(): CoreResponse {
    return this.error(new A2AError(JSON_RPC_ERROR.internalError, "Internal error"));
  }

  /** Answers a request under the prefix (undefined for paths outside it). */
  async handle(request: CoreRequest): Promise<CoreResponse | undefined> {
    const relative = this.relative(request.path);
    if (relative === undefined) return undefined;
    const matching = this.routes.map((r) => ({ r, m: r.pattern.exec(relative) })).filter((x): x is { r: CompiledRoute; m: RegExpExecArray } => x.m !== null);
    if (matching.length === 0) return this.status(404, "NOT_FOUND", `No A2A route for ${request.method} ${request.path}`);
    const hit = matching.find((x) => x.r.route.verb === request.method);
    if (!hit) {
      const allow = [...new Set(matching.map((x) => x.r.route.verb))].join(", ");
      return this.status(405, "INVALID_ARGUMENT", `${request.path} takes ${allow}, not ${request.method}`, { allow });
    }
    const { route } = hit.r;
    const ctx: CallContext = { headers: request.headers, signal: request.signal ?? NEVER_ABORTED, binding: "HTTP+JSON", request };
    try {
      const principal = await this.service.authenticate(ctx);
      const params = this.params(route, hit.r.fields, hit.m, request);
      if (!isObject(params)) return params;
      const method = route.method;
      const admitted: CallContext = { ...ctx, authenticated: { principal } };
      this.service.negotiate(admitted);
      this.service.validate(method, params);
      if (this.service.methods.get(method)?.streaming) {
        const events = await this.service.openStream(method, params, admitted, principal);
        return sseOf(
          events,
          (event) => JSON.stringify(event),
          (error) => JSON.stringify(this.errorBody(error instanceof A2AError ? error : new A2AError(JSON_RPC_ERROR.internalError, "Internal error"))),
          this.options.heartbeatMs,
        );
      }
      const result = await this.service.invoke(method, params, admitted, principal);
      return jsonResponse(200, result === undefined || result === null ? {} : result, {}, CONTENT_TYPE);
    } catch (error) {
      if (error instanceof A2AError) return this.error(error);
      throw error;
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
  private params(route: HttpRoute, fields: readonly string[], match: RegExpExecArray, request: CoreRequest): JsonObject | CoreResponse {
    let params: JsonObject = {};
    if (route.body !== undefined && route.body !== "") {
      if (request.body === "too-large") {
        return { ...this.status(413, "RESOURCE_EXHAUSTED", `Request body exceeds ${this.options.maxBodyBytes} bytes`), headers: { "content-type": CONTENT_TYPE, connection: "close" } };
      }
      const text = bodyText(request);
      if (text.trim() !== "") {
        const type = mediaType(request);
        if (!isJsonMediaType(type)) return this.status(415, "INVALID_ARGUMENT", `Content-Type must be application/json or application/a2a+json, got ${type ? `"${type}"` : "none"}`);
        const parsed = parseJsonSafe(text);
        if (!parsed.ok) return this.badRequest([issue("", "a JSON object", "malformed JSON", `the body is not JSON: ${parsed.message}`)]);
        if (route.body === "*") {
          if (!isObject(parsed.value)) return this.badRequest([issue("", "a JSON object", describe(parsed.value), "the body must be a JSON object")]);
          params = { ...parsed.value };
        } else params[camel(route.body)] = parsed.value;
      }
    }
    if (route.query) {
      for (const [field, type] of Object.entries(route.query)) {
        const values = request.query.getAll(field);
        if (values.length === 0) continue;
        params[field] = queryValue(type, values);
      }
    }
    for (const [i, field] of fields.entries()) {
      let value: string;
      try {
        value = decodeURIComponent(match[i + 1] ?? "");
      } catch {
        return this.badRequest([issue(`/${field}`, "a percent-encoded path segment", JSON.stringify(match[i + 1]), `the path's ${field} is not valid percent-encoding`)]);
      }
      if (field in params && params[field] !== value && params[field] !== undefined) {
        return this.badRequest([issue(`/${field}`, JSON.stringify(value), JSON.stringify(params[field]), `${field} in the body differs from the path's`)]);
      }
      params[field] = value;
    }
    return params;
  }

  private badRequest(issues: ValidationIssue[]): CoreResponse {
    return this.error(this.service.invalidParams(issues));
  }

  /** An A2A error as its HTTP status and google.rpc.Status body. */
  private error(error: A2AError): CoreResponse {
    const published = this.service.publicError(error);
    const headers: Record<string, string> = published.challenge !== undefined ? { "www-authenticate": published.challenge } : {};
    return jsonResponse(this.httpStatus(published), this.errorBody(published), headers, CONTENT_TYPE);
  }

  private httpStatus(error: A2AError): number {
    return error.http ?? this.statusOf(error.code).http;
  }

  /** `{ error: { code, status, message, details } }`: google.rpc.Status as §11.6 writes it. */
  private errorBody(error: A2AError): JsonObject {
    const status = error.http === 401 ? "UNAUTHENTICATED" : error.http === 403 ? "PERMISSION_DENIED" : this.statusOf(error.code).grpc;
    const details = Array.isArray(error.data) ? error.data : error.data === undefined ? [] : [{ "@type": "type.googleapis.com/google.protobuf.Struct", value: error.data }];
    return { error: { code: this.httpStatus(error), status, message: error.message, details } };
  }

  /** An HTTP-level refusal (no route, wrong verb, unreadable body) in the same shape. */
  private status(http: number, grpc: string, message: string, headers: Record<string, string> = {}): CoreResponse {
    return jsonResponse(http, { error: { code: http, status: grpc, message, details: [] } }, headers, CONTENT_TYPE);
  }
}

function compileRoute(route: HttpRoute): CompiledRoute {
  const fields: string[] = [];
  let source = "";
  let weight = 0;
  const template = route.path;
  for (let i = 0; i < template.length; ) {
    const char = template[i] as string;
    if (char === "{") {
      const close = template.indexOf("}", i);
      const [name, pattern = "*"] = template.slice(i + 1, close).split("=") as [string, string | undefined];
      fields.push(camel(name));
      source += `(${pattern
        .split("/")
        .map((segment) => (segment === "**" ? ".+" : segment === "*" ? "[^/:]+" : escape(segment)))
        .join("/")})`;
      weight += pattern.replace(/\*/g, "").length;
      i = close + 1;
      continue;
    }
    source += escape(char);
    weight++;
    i++;
  }
  return { route, pattern: new RegExp(`^${source}$`), fields, weight };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A proto field name as its JSON name: task_id → taskId. */
function camel(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
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

