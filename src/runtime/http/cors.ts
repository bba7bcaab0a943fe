/**
 * Cross-origin resource sharing (the Fetch standard's CORS protocol) for the HTTP bindings: a page served
 * from another origin calls the agent from a browser. The server core applies it to every path it answers
 * (agent card, JSON-RPC, HTTP+JSON, health), on every adapter: it answers the preflight (`OPTIONS` with
 * `Access-Control-Request-Method`) and adds the `Access-Control-*` headers to the actual answers, streams
 * included. Off unless `ServerOptions.cors` is set.
 */
import type { CoreRequest, CoreResponse } from "../call.js";

export interface CorsOptions {
  /**
   * The origins whose pages may call the agent: `"*"` (any page; with `credentials` the caller's origin is
   * echoed, as the standard forbids `*` with credentials), a list of origins (`"https://app.example.com"`,
   * exact, or a RegExp tested against the whole origin), or a function deciding per origin.
   */
  origins: "*" | ReadonlyArray<string | RegExp> | ((origin: string) => boolean);
  /**
   * The request headers a page may send (`Access-Control-Allow-Headers`); default `A2A_CORS_HEADERS`:
   * A2A-Version, A2A-Extensions, X-A2A-Extensions (0.3), Authorization, Content-Type, Last-Event-ID. Add
   * the header of an `apiKey` security scheme here.
   */
  allowedHeaders?: readonly string[];
  /**
   * The response headers a page may read (`Access-Control-Expose-Headers`); default `A2A_CORS_EXPOSED`:
   * the extensions echo (A2A-Extensions, X-A2A-Extensions), Retry-After, WWW-Authenticate, ETag.
   */
  exposedHeaders?: readonly string[];
  /** Whether the page may send cookies and HTTP authentication (`Access-Control-Allow-Credentials: true`); default false. */
  credentials?: boolean;
  /** How long a browser may keep a preflight's answer, in seconds (`Access-Control-Max-Age`); default 600. */
  maxAgeSeconds?: number;
}

/** The request headers an A2A client sends beside the CORS-safelisted ones. */
export const A2A_CORS_HEADERS: readonly string[] = ["A2A-Version", "A2A-Extensions", "X-A2A-Extensions", "Authorization", "Content-Type", "Last-Event-ID"];
/** The response headers an A2A client reads beside the CORS-safelisted ones. */
export const A2A_CORS_EXPOSED: readonly string[] = ["A2A-Extensions", "X-A2A-Extensions", "Retry-After", "WWW-Authenticate", "ETag"];
/** The methods the bindings answer: the card and reads (GET, HEAD), calls (POST), push config deletion (DELETE). */
const METHODS = "GET, HEAD, POST, DELETE";

/** A CORS policy: the preflight answer, and the headers of an actual answer. */
export class CorsPolicy {
  private readonly options: CorsOptions;
  private readonly allowHeaders: string;
  private readonly exposeHeaders: string;

  constructor(options: CorsOptions) {
    if (options.origins === undefined) throw new TypeError("cors.origins: name the origins allowed (\"*\", a list, or a function)");
    this.options = options;
    this.allowHeaders = (options.allowedHeaders ?? A2A_CORS_HEADERS).join(", ");
    this.exposeHeaders = (options.exposedHeaders ?? A2A_CORS_EXPOSED).join(", ");
  }

  /** Whether a request is a CORS preflight (`OPTIONS` naming the method it is for). */
  static isPreflight(request: CoreRequest): boolean {
    return request.method === "OPTIONS" && request.headers["access-control-request-method"] !== undefined;
  }

  /**
   * The preflight's answer: 204 with what the origin may do; an origin not allowed gets a 204 without
   * `Access-Control-Allow-Origin`, which the browser reads as a refusal.
   */
  preflight(request: CoreRequest): CoreResponse {
    const headers: Record<string, string> = { vary: "Origin, Access-Control-Request-Headers", "content-length": "0" };
    const allowed = this.allowOrigin(request.headers["origin"]);
    if (allowed === undefined) return { kind: "empty", status: 204, headers };
    headers["access-control-allow-origin"] = allowed;
    headers["access-control-allow-methods"] = METHODS;
    headers["access-control-allow-headers"] = this.allowHeaders;
    headers["access-control-max-age"] = String(this.options.maxAgeSeconds ?? 600);
    if (this.options.credentials === true) headers["access-control-allow-credentials"] = "true";
    return { kind: "empty", status: 204, headers };
  }

  /** An actual answer with the CORS headers its request's origin gets (none for a request without an allowed origin). */
  apply(request: CoreRequest, response: CoreResponse): CoreResponse {
    const origin = request.headers["origin"];
    if (origin === undefined) return response;
    const allowed = this.allowOrigin(origin);
    const headers: Record<string, string> = { ...response.headers };
    // A cache must not give one origin's answer to another (the allowed origin is echoed).
    if (allowed !== "*") headers["vary"] = headers["vary"] ? `${headers["vary"]}, Origin` : "Origin";
    if (allowed !== undefined) {
      headers["access-control-allow-origin"] = allowed;
      if (this.exposeHeaders !== "") headers["access-control-expose-headers"] = this.exposeHeaders;
      if (this.options.credentials === true) headers["access-control-allow-credentials"] = "true";
    }
    return { ...response, headers };
  }

  /** The `Access-Control-Allow-Origin` value for an origin, or undefined when it is not allowed. */
  private allowOrigin(origin: string | undefined): string | undefined {
    const { origins, credentials } = this.options;
    if (origins === "*") return credentials === true ? origin : "*";
    if (origin === undefined) return undefined;
    const ok = typeof origins === "function" ? origins(origin) : origins.some((o) => (typeof o === "string" ? o === origin : matchesWhole(o, origin)));
    return ok ? origin : undefined;
  }
}

/** Whether a RegExp matches the whole text (a pattern without anchors would allow `https://evil.example/app.example.com`). */
function matchesWhole(pattern: RegExp, text: string): boolean {
  const match = new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, "")).exec(text);
  return match !== null && match.index === 0 && match[0].length === text.length;
}
