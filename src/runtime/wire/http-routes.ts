/**
 * The route table of the HTTP+JSON binding, both ways: a server matches a request path against the path
 * templates of the proto's google.api.http rules (`/tasks/{id=*}:cancel` → GetTask with id), a client
 * expands a template with a method's params into a URL path, body and query. Templates follow the
 * google.api.http grammar: literal segments, `{field}` or `{field=pattern}` variables (pattern segments
 * `*`, `**` or literals), and a `:verb` suffix.
 */
import { isObject, type JsonObject } from "../json.js";

/** One HTTP rule of an rpc: `GET /tasks/{id=*}` → GetTask. */
export interface HttpRoute {
  /** The JSON-RPC method name of the rpc. */
  readonly method: string;
  /** The rpc's name where it differs from `method` (0.3.0: "SendMessage"), the key of the wire-shape translation. */
  readonly rpc?: string;
  readonly verb: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** The path template, e.g. "/tasks/{id=*}:cancel" or "/{tenant}/tasks". */
  readonly path: string;
  /** "*" (the body is the request), a field name (the body is that field), or absent (no body). */
  readonly body?: string;
  /** Request fields that may come as query parameters, with their JSON type. */
  readonly query?: { readonly [field: string]: "string" | "integer" | "number" | "boolean" | "string[]" | "int64" };
}

/** How a binding other than JSON-RPC reports an error: its HTTP status and gRPC status name. */
export interface ErrorStatus {
  readonly http: number;
  readonly grpc: string;
}

/** A route's path template compiled: `/tasks/{id=*}:cancel` → /^\/tasks\/([^/:]+):cancel$/ and ["id"]. */
export interface CompiledRoute {
  readonly route: HttpRoute;
  readonly pattern: RegExp;
  /** The JSON names of the path variables, in order. */
  readonly fields: readonly string[];
  /** Literal characters in the template: more specific routes are tried first. */
  readonly weight: number;
}

/** A path matched: the route and its path variables (percent-decoded), or the reason it cannot be read. */
export type RouteMatch = { route: HttpRoute; values: Record<string, string> } | { route: HttpRoute; badField: string };

/** A proto field name as its JSON name (ProtoJSON lowerCamelCase): task_id → taskId. */
export function jsonFieldName(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

interface Variable {
  field: string;
  /** The pattern's segments ("*", "**" or literals). */
  segments: string[];
}

/** The template as literal text and variables, in order. */
function parseTemplate(template: string): Array<string | Variable> {
  const out: Array<string | Variable> = [];
  let literal = "";
  for (let i = 0; i < template.length; ) {
    const char = template[i] as string;
    if (char === "{") {
      const close = template.indexOf("}", i);
      if (close < 0) throw new Error(`unclosed variable in the path template ${template}`);
      if (literal) out.push(literal);
      literal = "";
      const [name, pattern = "*"] = template.slice(i + 1, close).split("=") as [string, string | undefined];
      out.push({ field: jsonFieldName(name.trim()), segments: pattern.split("/") });
      i = close + 1;
      continue;
    }
    literal += char;
    i++;
  }
  if (literal) out.push(literal);
  return out;
}

export function compileRoute(route: HttpRoute): CompiledRoute {
  const fields: string[] = [];
  let source = "";
  let weight = 0;
  for (const piece of parseTemplate(route.path)) {
    if (typeof piece === "string") {
      source += escapeRegExp(piece);
      weight += piece.length;
      continue;
    }
    fields.push(piece.field);
    // `*` is one segment without a verb's colon (a colon in a value is sent percent-encoded).
    source += `(${piece.segments.map((s) => (s === "**" ? ".+" : s === "*" ? "[^/:]+" : escapeRegExp(s))).join("/")})`;
    weight += piece.segments.filter((s) => s !== "*" && s !== "**").join("/").length;
  }
  return { route, pattern: new RegExp(`^${source}$`), fields, weight };
}

type RouteHit = { compiled: CompiledRoute; match: RegExpExecArray };

/** The routes of a version, matched most specific first. */
export class RouteTable {
  readonly compiled: readonly CompiledRoute[];
  /**
   * The matches of each path that is a route's whole template (`/message:send`, `/extendedAgentCard`), found
   * once: the busiest calls skip trying every pattern. Only those fixed paths are kept, so the map cannot grow.
   */
  private readonly fixed = new Map<string, readonly RouteHit[]>();

  constructor(routes: readonly HttpRoute[]) {
    this.compiled = routes.map(compileRoute).sort((a, b) => b.weight - a.weight);
    for (const compiled of this.compiled) {
      if (compiled.fields.length === 0 && !this.fixed.has(compiled.route.path)) this.fixed.set(compiled.route.path, this.scan(compiled.route.path));
    }
  }

  /** Every route whose path matches (whatever its verb). The answer is not to be changed. */
  matching(path: string): readonly RouteHit[] {
    return this.fixed.get(path) ?? this.scan(path);
  }

  private scan(path: string): RouteHit[] {
    const out: RouteHit[] = [];
    for (const compiled of this.compiled) {
      const match = compiled.pattern.exec(path);
      if (match) out.push({ compiled, match });
    }
    return out;
  }

  /** The path variables of a match, percent-decoded. */
  static values(compiled: CompiledRoute, match: RegExpExecArray): RouteMatch {
    const values: Record<string, string> = {};
    for (const [i, field] of compiled.fields.entries()) {
      try {
        values[field] = decodeURIComponent(match[i + 1] ?? "");
      } catch {
        return { route: compiled.route, badField: field };
      }
    }
    return { route: compiled.route, values };
  }
}

/** What a client sends for one call: the route's verb, the path (variables filled in), the query and the body. */
export interface ExpandedRequest {
  verb: HttpRoute["verb"];
  path: string;
  query: URLSearchParams;
  body: unknown;
}

/**
 * The request of a method's call: the first route of the method whose path variables the params all
 * have (a tenant-prefixed route only when params name a tenant), filled in; the rest of the params go in
 * the body (`body: "*"`), the one body field, or the query (rules without a body; §11.5: repeated values
 * repeat the parameter, nested objects are not sent). Undefined when no route of the method fits.
 */
export function expandRoute(routes: readonly HttpRoute[], method: string, params: unknown): ExpandedRequest | undefined {
  const p: JsonObject = isObject(params) ? params : {};
  for (const route of routes) {
    if (route.method !== method) continue;
    const pieces = parseTemplate(route.path);
    const variables = pieces.filter((x): x is Variable => typeof x !== "string");
    if (!variables.every((v) => typeof p[v.field] === "string" && p[v.field] !== "")) continue;
    if (variables.some((v) => v.field === "tenant") !== (typeof p["tenant"] === "string" && p["tenant"] !== "")) continue;
    let path = "";
    for (const piece of pieces) {
      if (typeof piece === "string") path += piece;
      // A one-segment variable encodes its slashes; a resource name (`{name=tasks/*}`) keeps them.
      else if (piece.segments.length === 1 && piece.segments[0] !== "**") path += encodeURIComponent(String(p[piece.field]));
      else path += String(p[piece.field]).split("/").map(encodeURIComponent).join("/");
    }
    const used = new Set(variables.map((v) => v.field));
    const rest: JsonObject = {};
    for (const [key, value] of Object.entries(p)) if (!used.has(key) && value !== undefined) rest[key] = value;
    const query = new URLSearchParams();
    let body: unknown;
    if (route.body === "*") body = rest;
    else if (route.body !== undefined && route.body !== "") body = rest[jsonFieldName(route.body)] ?? {};
    else {
      for (const [key, value] of Object.entries(rest)) {
        if (Array.isArray(value)) for (const v of value) query.append(key, String(v));
        else if (value !== null && typeof value !== "object") query.set(key, String(value));
      }
    }
    return { verb: route.verb, path, query, body };
  }
  return undefined;
}
