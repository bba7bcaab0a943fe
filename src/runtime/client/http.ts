/**
 * The HTTP layer of the client runtime, shared by every HTTP binding and the agent card fetch: options,
 * timeouts and abort wiring, credentials that go only to origins the user configured, redirects that
 * never leave the origin unless asked, and response bodies read with a running byte count so an
 * oversized answer is cut early. Web platform globals only (fetch, AbortController, TextDecoder); on Node,
 * client/node-fetch.ts's node:http request, imported at run time (never statically: a browser or edge
 * bundle does not load it, and the client type-checks without Node's types).
 */

import { A2ARedirectError, A2AResponseTooLargeError, A2ATransportError } from "./errors.js";
import { SseParseError } from "../wire/sse.js";
import type { AbortHook, FetchLike, HttpAnswer, NodeRequest } from "./fetch.js";

export type { AbortHook, FetchLike, HttpAnswer } from "./fetch.js";

/** How the client authenticates to the agent. */
export type ClientAuth =
  /** `Authorization: Bearer <token>`; a function is called for every request (so it can refresh). */
  | { type: "bearer"; token: string | (() => string | Promise<string>) }
  /** An API key sent as the header `<name>: <value>` (the default) or as the query parameter `name=value`. */
  | { type: "apiKey"; name: string; value: string; in?: "header" | "query" };

/** Options of a transport (and of the agent card fetch). */
export interface ClientOptions {
  /** The fetch to use; default: on Node, node:http / node:https for http(s): URLs (client/node-fetch.ts), elsewhere `globalThis.fetch`. */
  fetch?: FetchLike;
  /**
   * Headers sent with every request; a function is called for every request. They are treated as
   * credentials (they may hold an `X-API-Key`): sent only to trusted origins, like {@link auth}.
   */
  headers?: Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);
  /** Credentials sent with every request, to trusted origins only. */
  auth?: ClientAuth;
  /**
   * Origins (`https://host:port`) besides the one the user configured (the endpoint, or the URL the
   * agent card was fetched from) that may receive {@link auth} and {@link headers}. A card whose
   * endpoint is on another origin than the card itself needs its origin here when credentials are set.
   */
  trustedOrigins?: readonly string[];
  /**
   * What to do with a redirect to another origin: "refuse" (the default) throws an A2ARedirectError and
   * sends nothing there; "follow" follows it without credentials (unless the origin is trusted).
   * Same-origin redirects are followed.
   */
  redirects?: "refuse" | "follow";
  /** The most redirects one request follows; default 5; 0 refuses every redirect. */
  maxRedirects?: number;
  /**
   * Milliseconds a call may take; default 60 000; 0 means no limit. A unary call is bounded until its
   * whole response is read, a stream until its response headers arrive (the events may take as long as
   * they take: use a signal to bound them).
   */
  timeoutMs?: number;
  /** The largest SSE event (bytes of its data) a stream accepts; default 4 MiB. */
  maxEventBytes?: number;
  /** The largest unary response body (bytes) a call accepts; default 16 MiB. */
  maxResponseBytes?: number;
  /** The largest agent card (bytes) the card fetch accepts; default 1 MiB. */
  maxCardBytes?: number;
  /** Whether to check every response with the generated validators; default false. */
  validateResponses?: boolean;
}

/** Options of one call. */
export interface CallOptions {
  /** Aborting it cancels the request (and a stream's body); the call rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Overrides {@link ClientOptions.timeoutMs} for this call. */
  timeoutMs?: number;
  /** Headers of this call; they override the option headers and the auth header of the same name. Credentials, like those. */
  headers?: Record<string, string>;
}

/** The default of {@link ClientOptions.timeoutMs}: one minute. */
export const DEFAULT_TIMEOUT_MS = 60_000;
/** The default of {@link ClientOptions.maxEventBytes}: 4 MiB. */
export const DEFAULT_MAX_EVENT_BYTES = 4 * 1024 * 1024;
/** The default of {@link ClientOptions.maxResponseBytes}: 16 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
/** The default of {@link ClientOptions.maxCardBytes}: 1 MiB. */
export const DEFAULT_MAX_CARD_BYTES = 1024 * 1024;
/** The default of {@link ClientOptions.maxRedirects}. */
export const DEFAULT_MAX_REDIRECTS = 5;

/** Where one request may send credentials, and the headers every request carries whatever its origin. */
export interface RequestScope {
  /** Origins that may receive credentials. */
  readonly trustedOrigins: ReadonlySet<string>;
  /** Protocol headers (e.g. `A2A-Version`), sent to every origin; not credentials. */
  readonly protocolHeaders?: Readonly<Record<string, string>>;
}

/** The scope of a client configured with `url`: its origin plus the option's trusted origins. */
export function scopeFor(url: string, options: ClientOptions, protocolHeaders?: Readonly<Record<string, string>>): RequestScope {
  const trusted = new Set<string>([originOf(url)]);
  for (const origin of options.trustedOrigins ?? []) trusted.add(originOf(origin));
  return protocolHeaders ? { trustedOrigins: trusted, protocolHeaders } : { trustedOrigins: trusted };
}

/** Whether the options carry credentials (auth or headers) that must not reach an untrusted origin. */
export function hasCredentials(options: ClientOptions): boolean {
  return options.auth !== undefined || options.headers !== undefined;
}

/**
 * The origin of a URL (`https://host:port`); for a scheme without origins (e.g. `grpc://host:port`, whose
 * URL origin is the opaque "null") its scheme, host and port; the text itself when it is not an absolute URL.
 */
export function originOf(url: string): string {
  const known = origins.get(url);
  if (known !== undefined) return known;
  let origin: string;
  try {
    const parsed = new URL(url);
    origin = parsed.origin !== "null" ? parsed.origin : `${parsed.protocol}//${parsed.host}`;
  } catch {
    origin = url;
  }
  if (origins.size >= MAX_ORIGINS) origins.clear();
  origins.set(url, origin);
  return origin;
}

/** Origins of URLs already parsed: every request asks for its URL's origin, nearly always the endpoint's. */
const origins = new Map<string, string>();
/** The most URLs {@link origins} remembers; it starts over when full. */
const MAX_ORIGINS = 256;

/** The abort wiring of one request: the caller's signal and the timeout, both abort `signal`. */
export interface Attempt {
  /** Aborted by the caller's signal, the timeout or abortQuietly (made when first asked for). */
  readonly signal: AbortSignal;
  /**
   * The same abort as {@link signal} for client/node-fetch.ts's request, without making an AbortController
   * per call (its making and its listeners were about 5 % of the client's CPU per call on Node).
   */
  readonly hook: AbortHook;
  /** Ends the timeout (the request stays abortable by the caller's signal). */
  stopTimer(): void;
  /** Ends the timeout and unlinks the caller's signal. */
  dispose(): void;
  /** Aborts the request without making it look aborted by the caller (for cleanup). */
  abortQuietly(): void;
  /** Whether the request was aborted by the caller or the timeout (not by abortQuietly). */
  readonly aborted: boolean;
  /** The reason of that abort. */
  readonly reason: unknown;
}

export function startAttempt(what: string, callerSignal: AbortSignal | undefined, timeoutMs: number): Attempt {
  return new RequestAttempt(what, callerSignal, timeoutMs);
}

/** {@link Attempt}: the AbortController is made only when {@link signal} is asked for. */
class RequestAttempt implements Attempt {
  #controller: AbortController | undefined;
  /** Whether the request was aborted, by the caller, the timeout or quietly. */
  #ended = false;
  /** Whether it was the caller or the timeout. */
  #aborted = false;
  #reason: unknown;
  #hook: AbortHook | undefined;
  /** The hook's reason after a quiet abort (an AbortSignal's default reason), made once when read. */
  #quietReason: unknown;
  #listeners: (() => void)[] | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #callerSignal: AbortSignal | undefined;
  readonly #onCallerAbort: () => void;

  constructor(what: string, callerSignal: AbortSignal | undefined, timeoutMs: number) {
    this.#callerSignal = callerSignal;
    this.#onCallerAbort = () => this.#end(true, callerSignal?.reason);
    if (callerSignal) {
      if (callerSignal.aborted) this.#onCallerAbort();
      else callerSignal.addEventListener("abort", this.#onCallerAbort, { once: true });
    }
    if (!this.#ended && Number.isFinite(timeoutMs) && timeoutMs > 0) {
      const ms = Math.min(timeoutMs, 2_147_483_647);
      this.#timer = setTimeout(() => this.#end(true, timeoutError(what, timeoutMs)), ms);
    }
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#ended) this.#abortController();
    }
    return this.#controller.signal;
  }

  get hook(): AbortHook {
    // Aborted as `signal` is: by the caller, the timeout, or quietly (then with an AbortSignal's default reason).
    const attempt = this;
    this.#hook ??= {
      get aborted(): boolean {
        return attempt.#ended;
      },
      get reason(): unknown {
        if (!attempt.#ended) return undefined;
        return attempt.#aborted ? attempt.#reason : (attempt.#quietReason ??= abortError());
      },
      addEventListener: (_type, listener) => {
        (this.#listeners ??= []).push(listener);
      },
      removeEventListener: (_type, listener) => {
        const at = this.#listeners?.indexOf(listener) ?? -1;
        if (at >= 0) this.#listeners?.splice(at, 1);
      },
    };
    return this.#hook;
  }

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  stopTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  dispose(): void {
    this.stopTimer();
    this.#callerSignal?.removeEventListener("abort", this.#onCallerAbort);
  }

  abortQuietly(): void {
    this.#end(false, undefined);
  }

  #end(byCaller: boolean, why: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    if (byCaller) {
      this.#aborted = true;
      this.#reason = why;
    }
    this.#abortController();
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (listeners) for (const listener of listeners) listener();
  }

  #abortController(): void {
    if (this.#controller === undefined || this.#controller.signal.aborted) return;
    if (this.#aborted) this.#controller.abort(this.#reason);
    else this.#controller.abort();
  }

}

/** The reason of an AbortSignal aborted without one. */
function abortError(): Error {
  return typeof DOMException === "function" ? new DOMException("This operation was aborted", "AbortError") : new Error("This operation was aborted");
}

function timeoutError(what: string, timeoutMs: number): A2ATransportError {
  const message = `${what}: timed out after ${timeoutMs} ms`;
  const cause = typeof DOMException === "function" ? new DOMException(message, "TimeoutError") : undefined;
  return new A2ATransportError(message, cause === undefined ? {} : { cause });
}

/** One HTTP request of the client. */
export interface HttpRequest {
  url: string;
  /** POST and GET (JSON-RPC, cards); the HTTP+JSON binding's routes may use any of its verbs. */
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  body?: string;
  /** Headers of the request itself (content-type, accept, conditional headers); not credentials. */
  headers: Record<string, string>;
}

/** client/node-fetch.ts's request once loaded (undefined off Node); null until the first request asks. */
let loadedNodeRequest: NodeRequest | undefined | null = null;
let loadingNodeRequest: Promise<NodeRequest | undefined> | undefined;

/**
 * Loads client/node-fetch.ts where Node's built-in modules are (`process.getBuiltinModule`, which that file
 * uses): once, at the first request. Elsewhere nothing is loaded and the platform's fetch is used.
 */
function loadNodeRequest(): Promise<NodeRequest | undefined> {
  const host = (globalThis as { process?: { getBuiltinModule?: unknown } }).process;
  if (typeof host?.getBuiltinModule !== "function") {
    loadedNodeRequest = undefined;
    return Promise.resolve(undefined);
  }
  loadingNodeRequest ??= import("./node-fetch.js").then(
    (module) => (loadedNodeRequest = module.nodeRequest),
    () => (loadedNodeRequest = undefined),
  );
  return loadingNodeRequest;
}

/**
 * Builds the headers (credentials only for a trusted origin) and fetches with `redirect: "manual"`,
 * following same-origin redirects (at most `maxRedirects`) and refusing cross-origin ones unless
 * `redirects: "follow"` (then without credentials, unless the new origin is trusted). A 303, or a 301/302
 * answering a POST, continues as a GET without a body, as fetch does. An abort rejects with its reason.
 */
export async function send(
  request: HttpRequest,
  scope: RequestScope,
  clientOptions: ClientOptions,
  callOptions: CallOptions,
  what: string,
  attempt: Attempt,
): Promise<HttpAnswer> {
  // On Node, node:http (client/node-fetch.ts: a third of fetch's CPU per call); elsewhere the platform's fetch.
  const userFetch = clientOptions.fetch;
  const node = userFetch !== undefined ? undefined : loadedNodeRequest !== null ? loadedNodeRequest : await loadNodeRequest();
  const doFetch: (input: string, init: RequestInit) => Promise<HttpAnswer> =
    userFetch !== undefined
      ? (input, init) => userFetch(input, { ...init, signal: attempt.signal })
      : node !== undefined
        ? (input, init) => node(input, init, attempt)
        : (input, init) => globalThis.fetch(input, { ...init, signal: attempt.signal });
  const maxRedirects = clientOptions.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  let url = request.url;
  let method = request.method;
  let body = request.body;
  let requestHeaders = request.headers;
  // Credentials are built once (a token function is called once per request, not per hop).
  let credentials: Promise<Record<string, string>> | undefined;
  for (let hops = 0; ; hops++) {
    const trusted = scope.trustedOrigins.has(originOf(url));
    let headers = mergeHeaders(requestHeaders, scope.protocolHeaders);
    // Without credentials configured there is nothing to wait for (no promise, no abort listener per call).
    if (trusted && (clientOptions.headers !== undefined || clientOptions.auth !== undefined || callOptions.headers !== undefined)) {
      credentials ??= credentialHeaders(clientOptions, callOptions);
      // A token or headers function that hangs must not outlast the timeout or the signal.
      headers = mergeHeaders(requestHeaders, scope.protocolHeaders, await untilAborted(credentials, attempt));
    }
    const auth = clientOptions.auth;
    const target = trusted && auth?.type === "apiKey" && auth.in === "query" ? withQueryParameter(url, auth.name, auth.value) : url;
    // The abort goes with the fetch (doFetch): a signal, or on Node the attempt's hook.
    const init: RequestInit = { method, headers, redirect: "manual" };
    // In a browser, no cookies either for an origin that is not trusted.
    if (!trusted) init.credentials = "omit";
    if (body !== undefined) init.body = body;
    let response: HttpAnswer;
    try {
      response = await doFetch(target, init);
    } catch (error) {
      if (attempt.aborted) throw attempt.reason;
      throw new A2ATransportError(`${what}: could not reach the agent (${messageOf(error)})`, { cause: error });
    }
    if (response.type === "opaqueredirect") {
      throw new A2ARedirectError(`${what}: the agent answered with a redirect the platform does not disclose; redirects are not followed here`, {
        status: response.status,
        from: url,
        location: undefined,
      });
    }
    const location = isRedirect(response.status) ? response.headers.get("location") : null;
    if (location === null) return response;
    await response.body?.cancel().catch(() => {});
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new A2ARedirectError(`${what}: HTTP ${response.status} redirects to an invalid URL`, { status: response.status, from: url, location });
    }
    const crossOrigin = next.origin !== originOf(url);
    if (crossOrigin && (clientOptions.redirects ?? "refuse") !== "follow") {
      throw new A2ARedirectError(
        `${what}: HTTP ${response.status} redirects to another origin (${next.origin}); cross-origin redirects are refused (option redirects: "follow" follows them without credentials)`,
        { status: response.status, from: url, location: next.href },
      );
    }
    if (hops + 1 > maxRedirects) {
      throw new A2ARedirectError(`${what}: more than ${maxRedirects} redirects`, { status: response.status, from: url, location: next.href });
    }
    if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
      method = "GET";
      body = undefined;
      requestHeaders = Object.fromEntries(Object.entries(requestHeaders).filter(([name]) => name.toLowerCase() !== "content-type"));
    }
    url = next.href;
  }
}

function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

/** The promise's outcome, or a rejection with the abort reason if the attempt is aborted first. */
export function untilAborted<T>(promise: Promise<T>, attempt: Attempt): Promise<T> {
  if (attempt.aborted) {
    promise.catch(() => {});
    return Promise.reject(attempt.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(attempt.reason);
    // The hook, not the signal: reading the signal would make an AbortController for every call with credentials.
    attempt.hook.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        attempt.hook.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        attempt.hook.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** The credential headers of a request: option headers, then auth, then the call's headers. */
async function credentialHeaders(clientOptions: ClientOptions, callOptions: CallOptions): Promise<Record<string, string>> {
  const optionHeaders = clientOptions.headers;
  const fromOptions = typeof optionHeaders === "function" ? await optionHeaders() : (optionHeaders ?? {});
  const auth = clientOptions.auth;
  const fromAuth: Record<string, string> = {};
  if (auth?.type === "bearer") {
    const token = typeof auth.token === "function" ? await auth.token() : auth.token;
    fromAuth["authorization"] = `Bearer ${token}`;
  } else if (auth?.type === "apiKey" && auth.in !== "query") {
    fromAuth[auth.name] = auth.value;
  }
  return mergeHeaders(fromOptions, fromAuth, callOptions.headers);
}

/** Header sets merged in order; names are case-insensitive: a later set replaces an earlier one whatever its casing. */
export function mergeHeaders(...sets: (Readonly<Record<string, string>> | undefined)[]): Record<string, string> {
  const merged = new Map<string, [string, string]>();
  for (const set of sets) if (set) for (const [name, value] of Object.entries(set)) merged.set(name.toLowerCase(), [name, value]);
  const headers: Record<string, string> = {};
  for (const [name, value] of merged.values()) headers[name] = value;
  return headers;
}

/** The URL with `name=value` appended to its query (keeping the existing query and any fragment). */
function withQueryParameter(url: string, name: string, value: string): string {
  const hashAt = url.indexOf("#");
  const base = hashAt < 0 ? url : url.slice(0, hashAt);
  const hash = hashAt < 0 ? "" : url.slice(hashAt);
  const separator = !base.includes("?") ? "?" : base.endsWith("?") || base.endsWith("&") ? "" : "&";
  return `${base}${separator}${encodeURIComponent(name)}=${encodeURIComponent(value)}${hash}`;
}

/**
 * The body as text, read chunk by chunk with a running byte count: more than `limit` bytes (announced by
 * Content-Length or counted) cancels the body and throws an {@link A2AResponseTooLargeError}.
 */
export async function readText(response: HttpAnswer, what: string, attempt: Attempt, limit: number): Promise<string> {
  const status = response.status;
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel().catch(() => {});
    throw new A2AResponseTooLargeError(what, limit, status);
  }
  if (response.unread === true && response.readWithin !== undefined) {
    try {
      return await response.readWithin(limit, () => new A2AResponseTooLargeError(what, limit, status));
    } catch (error) {
      throw readFailure(error, what, attempt, status);
    }
  }
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let count = 0;
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      count += chunk.value.byteLength;
      if (count > limit) {
        await reader.cancel().catch(() => {});
        throw new A2AResponseTooLargeError(what, limit, status);
      }
      text += decoder.decode(chunk.value, { stream: true });
    }
    return text + decoder.decode();
  } catch (error) {
    throw readFailure(error, what, attempt, status);
  } finally {
    reader.releaseLock();
  }
}

/** The timeout of a call: its own, else the client's, else the default. */
export function timeoutOf(call: CallOptions, client: ClientOptions): number {
  return call.timeoutMs ?? client.timeoutMs ?? DEFAULT_TIMEOUT_MS;
}

/** What a stream throws for an error met while running; errors of the hooks pass through. */
export function streamFailure(error: unknown, what: string, attempt: Attempt, status: number | undefined): unknown {
  if (attempt.aborted) return attempt.reason;
  if (error instanceof SseParseError) return new A2ATransportError(`${what}: ${error.message}`, { status, cause: error });
  return error;
}

/** What a failed body read throws: the limit's error as is, the abort's reason, else an A2ATransportError. */
function readFailure(error: unknown, what: string, attempt: Attempt, status: number): unknown {
  if (error instanceof A2AResponseTooLargeError) return error;
  if (attempt.aborted) return attempt.reason;
  return new A2ATransportError(`${what}: the connection failed while reading the response (${messageOf(error)})`, { status, cause: error });
}

/**
 * The chunks of a response body, a failed read turned into an A2ATransportError. `return()` cancels
 * the body at once, even while a read is pending (which an async generator could not do).
 */
export function bodyChunks(body: ReadableStream<Uint8Array>, what: string, status: number): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
      const reader = body.getReader();
      return {
        async next(): Promise<IteratorResult<Uint8Array>> {
          try {
            const chunk = await reader.read();
            return chunk.done ? { done: true, value: undefined } : { done: false, value: chunk.value };
          } catch (error) {
            throw new A2ATransportError(`${what}: the connection failed during the stream (${messageOf(error)})`, { status, cause: error });
          }
        },
        async return(): Promise<IteratorResult<Uint8Array>> {
          await reader.cancel().catch(() => {});
          return { done: true, value: undefined };
        },
      };
    },
  };
}

export function isEventStream(response: HttpAnswer): boolean {
  const type = response.headers.get("content-type") ?? "";
  return (type.split(";")[0] ?? "").trim().toLowerCase() === "text/event-stream";
}

export function statusText(response: HttpAnswer): string {
  return response.statusText ? ` ${response.statusText}` : "";
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error && cause.message ? `${error.message}: ${cause.message}` : error.message;
  }
  return String(error);
}
