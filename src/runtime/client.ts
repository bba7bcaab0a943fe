/**
 * Client runtime of the code a2a-codegen generates: JSON-RPC 2.0 over HTTP POST, with Server-Sent
 * Events for the streaming methods, and the agent card fetch. The generated typed client wraps
 * {@link JsonRpcTransport}. Copied verbatim into every generated folder; it depends only on its sibling
 * runtime files and on web platform globals (fetch, AbortController, TextDecoder), so it runs in Node,
 * browsers and edge runtimes alike.
 */

import { isJsonRpcResponse, parseJsonSafe, type JsonRpcResponse } from "./jsonrpc.js";
import { parseSse, SseParseError } from "./sse.js";
import type { ValidationIssue } from "./validation.js";

/** The part of `fetch` the client uses; pass one to add retries, logging, a proxy or a test double. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** How the client authenticates to the agent. */
export type ClientAuth =
  /** `Authorization: Bearer <token>`; a function is called for every request (so it can refresh). */
  | { type: "bearer"; token: string | (() => string | Promise<string>) }
  /** An API key sent as the header `<name>: <value>` (the default) or as the query parameter `name=value`. */
  | { type: "apiKey"; name: string; value: string; in?: "header" | "query" };

/** Options of a {@link JsonRpcTransport} (and of {@link fetchAgentCard}). */
export interface ClientOptions {
  /** The fetch to use; default `globalThis.fetch`. */
  fetch?: FetchLike;
  /** Headers sent with every request; a function is called for every request. */
  headers?: Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);
  /** Credentials sent with every request. */
  auth?: ClientAuth;
  /**
   * Milliseconds a call may take; default 60 000; 0 means no limit. A unary call is bounded until its
   * whole response is read, a stream until its response headers arrive (the events may take as long as
   * they take: use a signal to bound them).
   */
  timeoutMs?: number;
  /** The largest SSE event (bytes of its data) a stream accepts; default 4 MiB. */
  maxEventBytes?: number;
  /** Whether to check every response with {@link ResponseChecks.validate}; default false. */
  validateResponses?: boolean;
}

/** Options of one call. */
export interface CallOptions {
  /** Aborting it cancels the request (and a stream's body); the call rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Overrides {@link ClientOptions.timeoutMs} for this call. */
  timeoutMs?: number;
  /** Headers of this call; they override the option headers and the auth header of the same name. */
  headers?: Record<string, string>;
}

/** The `error` member of a JSON-RPC error response. */
export interface A2AErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** A JSON-RPC error answered by the agent. The generated client throws subclasses per A2A error code. */
export class A2AJsonRpcError extends Error {
  override readonly name: string = "A2AJsonRpcError";
  /** The JSON-RPC error code, e.g. -32001 (task not found). */
  readonly code: number;
  /** The error's `data` member; undefined when it had none. */
  readonly data: unknown;
  /** The method called, e.g. "message/send". */
  readonly method: string;

  constructor(method: string, error: A2AErrorObject) {
    super(error.message);
    this.code = error.code;
    this.data = error.data;
    this.method = method;
  }
}

/**
 * The agent could not be reached or answered something that is not JSON-RPC: HTTP status and a bounded
 * excerpt of the body (≤ 500 chars) when there was one; `cause` keeps the network error.
 */
export class A2ATransportError extends Error {
  override readonly name: string = "A2ATransportError";
  /** The HTTP status, when a response arrived. */
  readonly status: number | undefined;
  /** The start of the response body (at most {@link MAX_BODY_EXCERPT} characters), when there was one. */
  readonly body: string | undefined;

  constructor(message: string, options: { status?: number | undefined; body?: string | undefined; cause?: unknown } = {}) {
    super(message, "cause" in options ? { cause: options.cause } : undefined);
    this.status = options.status;
    this.body = options.body === undefined ? undefined : excerpt(options.body);
  }
}

/** validateResponses is on and a response broke the schema. */
export class A2AResponseValidationError extends Error {
  override readonly name: string = "A2AResponseValidationError";
  /** The method called. */
  readonly method: string;
  /** What is wrong with the response, with JSON pointers into the whole response object. */
  readonly issues: ValidationIssue[];

  constructor(method: string, issues: ValidationIssue[]) {
    const shown = issues.slice(0, 5).map((issue) => issue.message);
    if (issues.length > shown.length) shown.push(`... and ${issues.length - shown.length} more`);
    super(`Invalid response to ${method}:\n${shown.join("\n")}`);
    this.method = method;
    this.issues = issues;
  }
}

/** The hooks the generated client gives the transport: validation, typed errors, end of a stream. */
export interface ResponseChecks {
  /** Validates one whole JSON-RPC response (or one stream event's response object) of a method; returns the issues or null. */
  validate?(method: string, response: unknown): ValidationIssue[] | null;
  /** The error to throw for a JSON-RPC error response (default: new A2AJsonRpcError). */
  makeError?(method: string, error: A2AErrorObject): Error;
  /** Whether a streamed result is the last one (e.g. a status update with final: true, a direct Message, a task in a terminal state). */
  isFinal?(result: unknown): boolean;
}

/** The longest body excerpt an {@link A2ATransportError} keeps. */
export const MAX_BODY_EXCERPT = 500;

/** The default of {@link ClientOptions.timeoutMs}: one minute. */
export const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * JSON-RPC 2.0 over HTTP: one POST per call, answered with one JSON response ({@link call}) or with an
 * SSE stream of responses ({@link stream}).
 */
export class JsonRpcTransport {
  /** The URL requests are POSTed to (without an API key in the query: that is added per request). */
  readonly endpoint: string;
  private readonly options: ClientOptions;
  private readonly checks: ResponseChecks;
  private lastId = 0;

  constructor(endpoint: string, options: ClientOptions = {}, checks: ResponseChecks = {}) {
    this.endpoint = endpoint;
    this.options = options;
    this.checks = checks;
  }

  /** Ids are increasing integers starting at 1 (per transport). */
  nextId(): number {
    return ++this.lastId;
  }

  /**
   * POSTs `{jsonrpc: "2.0", id, method, params}` (params left out when undefined) and resolves to the
   * response's `result`. Throws `makeError(...)` (by default an {@link A2AJsonRpcError}) for an error
   * response, whatever the HTTP status; an {@link A2ATransportError} for a network failure, a non-2xx
   * status without a JSON-RPC error body, a body that is not a JSON-RPC response, or a response to
   * another id; an {@link A2AResponseValidationError} when validation is on and fails. Aborting the
   * signal rejects with its reason; the timeout rejects with an A2ATransportError "timed out after N ms".
   */
  async call(method: string, params: unknown, options: CallOptions = {}): Promise<unknown> {
    const id = this.nextId();
    const attempt = startAttempt(method, options.signal, this.timeoutOf(options));
    try {
      const response = await this.post(method, id, params, "application/json", options, attempt);
      const text = await readText(response, method, attempt);
      const status = response.status;
      const parsed = parseJsonSafe(text);
      if (!parsed.ok) {
        throw new A2ATransportError(
          response.ok ? `${method}: the response is not JSON (${parsed.message})` : `${method}: HTTP ${status}${statusText(response)}`,
          { status, body: text },
        );
      }
      if (!isJsonRpcResponse(parsed.value)) {
        throw new A2ATransportError(
          response.ok ? `${method}: the response is not a JSON-RPC 2.0 response` : `${method}: HTTP ${status}${statusText(response)}`,
          { status, body: text },
        );
      }
      if (!response.ok && !("error" in parsed.value)) {
        throw new A2ATransportError(`${method}: HTTP ${status}${statusText(response)}`, { status, body: text });
      }
      return this.interpret(method, id, parsed.value, status, text);
    } finally {
      attempt.dispose();
    }
  }

  /**
   * The same POST with `accept: text/event-stream`; yields the `result` of each event in order. Ends
   * after a result for which `isFinal()` is true (cancelling the body) or when the server closes the
   * stream. Throws `makeError(...)` for an event that is a JSON-RPC error response; for an `event: error`
   * frame, the JSON-RPC error its data holds (else an {@link A2ATransportError}); for a response that
   * is not an event stream, its JSON-RPC error (else an A2ATransportError); an A2ATransportError for an
   * event that is not a JSON-RPC response to this request or larger than `maxEventBytes`. Events with
   * another `event:` type than "message" or "error" are skipped. Leaving the loop early or aborting the
   * signal cancels the HTTP body, so no connection is left open.
   */
  async *stream(method: string, params: unknown, options: CallOptions = {}): AsyncGenerator<unknown, void, undefined> {
    const id = this.nextId();
    const attempt = startAttempt(method, options.signal, this.timeoutOf(options));
    let response: Response | undefined;
    try {
      response = await this.post(method, id, params, "text/event-stream", options, attempt);
      const status = response.status;
      if (!response.ok || !isEventStream(response)) {
        const text = await readText(response, method, attempt);
        const parsed = parseJsonSafe(text);
        if (parsed.ok && isJsonRpcResponse(parsed.value) && "error" in parsed.value) {
          this.interpret(method, id, parsed.value, status, text); // throws the error (or a mismatch)
        }
        const what = response.ok
          ? `${method}: expected an event stream, got ${response.headers.get("content-type") ?? "no content-type"}`
          : `${method}: HTTP ${status}${statusText(response)}`;
        throw new A2ATransportError(what, { status, body: text });
      }
      attempt.stopTimer(); // the headers are in: from here on only the signal bounds the stream
      if (response.body === null) return;
      const events = parseSse(bodyChunks(response.body, method, status), {
        maxEventBytes: this.options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES,
        signal: attempt.signal,
      });
      for await (const event of events) {
        if (event.event === "error") throw this.errorEvent(method, id, event.data, status);
        if (event.event !== undefined && event.event !== "message") continue;
        const parsed = parseJsonSafe(event.data);
        if (!parsed.ok) {
          throw new A2ATransportError(`${method}: a stream event is not JSON (${parsed.message})`, { status, body: event.data });
        }
        if (!isJsonRpcResponse(parsed.value)) {
          throw new A2ATransportError(`${method}: a stream event is not a JSON-RPC 2.0 response`, { status, body: event.data });
        }
        const result = this.interpret(method, id, parsed.value, status, event.data);
        yield result;
        if (this.checks.isFinal?.(result)) return;
      }
    } catch (error) {
      throw streamFailure(error, method, attempt, response?.status);
    } finally {
      attempt.dispose();
      // Releases the connection whatever happened (parseSse has cancelled the body already if it ran).
      if (response?.body && !response.bodyUsed) await response.body.cancel().catch(() => {});
      attempt.abortQuietly();
    }
  }

  private timeoutOf(options: CallOptions): number {
    return options.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  private async post(method: string, id: number, params: unknown, accept: string, options: CallOptions, attempt: Attempt): Promise<Response> {
    const request: Record<string, unknown> = { jsonrpc: "2.0", id, method };
    if (params !== undefined) request["params"] = params;
    const body = JSON.stringify(request);
    return send(this.endpoint, "POST", body, { "content-type": "application/json", accept }, this.options, options, method, attempt);
  }

  /** Envelope already checked: the id, validation, then the result or the thrown error. */
  private interpret(method: string, id: number, response: JsonRpcResponse, status: number, text: string): unknown {
    const isError = "error" in response;
    // An error the server could not tie to a request (e.g. a parse error) carries id null.
    if (response.id !== id && !(isError && response.id === null)) {
      throw new A2ATransportError(`${method}: the response is for id ${JSON.stringify(response.id)}, not ${id}`, { status, body: text });
    }
    if (this.options.validateResponses && this.checks.validate) {
      const issues = this.checks.validate(method, response);
      if (issues && issues.length > 0) throw new A2AResponseValidationError(method, issues);
    }
    if ("error" in response) throw this.makeError(method, response.error);
    return response.result;
  }

  private makeError(method: string, error: A2AErrorObject): Error {
    const clean: A2AErrorObject = { code: error.code, message: error.message };
    if (error.data !== undefined) clean.data = error.data;
    return this.checks.makeError ? this.checks.makeError(method, clean) : new A2AJsonRpcError(method, clean);
  }

  /** The error an `event: error` frame stands for. */
  private errorEvent(method: string, id: number, data: string, status: number): Error {
    const parsed = parseJsonSafe(data);
    if (parsed.ok) {
      const value = parsed.value;
      if (isJsonRpcResponse(value) && "error" in value) {
        try {
          this.interpret(method, id, value, status, data);
        } catch (error) {
          return error instanceof Error ? error : new A2ATransportError(String(error));
        }
      }
      if (isErrorObject(value)) return this.makeError(method, value);
    }
    return new A2ATransportError(`${method}: the server sent an error event`, { status, body: data });
  }
}

/**
 * Fetches an agent card: GET `new URL(wellKnownPath, baseUrl)` (an absolute path replaces the base's
 * path) with `accept: application/json` and the same auth and headers as calls. Throws an
 * {@link A2ATransportError} on a network failure, a non-2xx status, a body that is not JSON or not an
 * object; honors the signal and the timeout (which bounds the whole fetch) like {@link JsonRpcTransport.call}.
 */
export async function fetchAgentCard(
  baseUrl: string,
  wellKnownPath: string,
  options: ClientOptions & CallOptions = {},
): Promise<Record<string, unknown>> {
  const url = new URL(wellKnownPath, baseUrl).href;
  const what = `agent card ${url}`;
  const attempt = startAttempt(what, options.signal, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  try {
    const response = await send(url, "GET", undefined, { accept: "application/json" }, options, options, what, attempt);
    const text = await readText(response, what, attempt);
    const status = response.status;
    if (!response.ok) throw new A2ATransportError(`${what}: HTTP ${status}${statusText(response)}`, { status, body: text });
    const parsed = parseJsonSafe(text);
    if (!parsed.ok) throw new A2ATransportError(`${what}: the response is not JSON (${parsed.message})`, { status, body: text });
    const card = parsed.value;
    if (typeof card !== "object" || card === null || Array.isArray(card)) {
      throw new A2ATransportError(`${what}: the response is not a JSON object`, { status, body: text });
    }
    return card as Record<string, unknown>;
  } finally {
    attempt.dispose();
  }
}

/** The default of {@link ClientOptions.maxEventBytes}: 4 MiB. */
export const DEFAULT_MAX_EVENT_BYTES = 4 * 1024 * 1024;

/** The abort wiring of one request: the caller's signal and the timeout, both abort `signal`. */
interface Attempt {
  readonly signal: AbortSignal;
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

function startAttempt(what: string, callerSignal: AbortSignal | undefined, timeoutMs: number): Attempt {
  const controller = new AbortController();
  let aborted = false;
  let reason: unknown;
  const abort = (why: unknown): void => {
    if (controller.signal.aborted) return;
    aborted = true;
    reason = why;
    controller.abort(why);
  };
  const onAbort = (): void => abort(callerSignal?.reason);
  let timer: ReturnType<typeof setTimeout> | undefined;
  if (callerSignal) {
    if (callerSignal.aborted) onAbort();
    else callerSignal.addEventListener("abort", onAbort, { once: true });
  }
  if (!controller.signal.aborted && Number.isFinite(timeoutMs) && timeoutMs > 0) {
    const ms = Math.min(timeoutMs, 2_147_483_647);
    timer = setTimeout(() => abort(timeoutError(what, timeoutMs)), ms);
  }
  const stopTimer = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  return {
    signal: controller.signal,
    stopTimer,
    dispose() {
      stopTimer();
      callerSignal?.removeEventListener("abort", onAbort);
    },
    abortQuietly() {
      if (!controller.signal.aborted) controller.abort();
    },
    get aborted() {
      return aborted;
    },
    get reason() {
      return reason;
    },
  };
}

function timeoutError(what: string, timeoutMs: number): A2ATransportError {
  const message = `${what}: timed out after ${timeoutMs} ms`;
  const cause = typeof DOMException === "function" ? new DOMException(message, "TimeoutError") : undefined;
  return new A2ATransportError(message, cause === undefined ? {} : { cause });
}

/** Builds the headers and URL (auth included) and fetches; an abort rejects with its reason. */
async function send(
  url: string,
  method: "GET" | "POST",
  body: string | undefined,
  defaults: Record<string, string>,
  clientOptions: ClientOptions,
  callOptions: CallOptions,
  what: string,
  attempt: Attempt,
): Promise<Response> {
  // A token or headers function that hangs must not outlast the timeout or the signal.
  const headers = await untilAborted(buildHeaders(defaults, clientOptions, callOptions), attempt);
  const auth = clientOptions.auth;
  const target = auth?.type === "apiKey" && auth.in === "query" ? withQueryParameter(url, auth.name, auth.value) : url;
  const doFetch: FetchLike = clientOptions.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const init: RequestInit = { method, headers, signal: attempt.signal };
  if (body !== undefined) init.body = body;
  try {
    return await doFetch(target, init);
  } catch (error) {
    if (attempt.aborted) throw attempt.reason;
    throw new A2ATransportError(`${what}: could not reach the agent (${messageOf(error)})`, { cause: error });
  }
}

/** The promise's outcome, or a rejection with the abort reason if the attempt is aborted first. */
function untilAborted<T>(promise: Promise<T>, attempt: Attempt): Promise<T> {
  if (attempt.aborted) {
    promise.catch(() => {});
    return Promise.reject(attempt.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(attempt.reason);
    attempt.signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        attempt.signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        attempt.signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

async function buildHeaders(defaults: Record<string, string>, clientOptions: ClientOptions, callOptions: CallOptions): Promise<Record<string, string>> {
  // Header names are case-insensitive: a later source replaces an earlier one whatever its casing.
  const merged = new Map<string, [string, string]>();
  const put = (name: string, value: string): void => void merged.set(name.toLowerCase(), [name, value]);
  const putAll = (headers: Record<string, string> | undefined): void => {
    if (headers) for (const [name, value] of Object.entries(headers)) put(name, value);
  };
  putAll(defaults);
  const optionHeaders = clientOptions.headers;
  putAll(typeof optionHeaders === "function" ? await optionHeaders() : optionHeaders);
  const auth = clientOptions.auth;
  if (auth?.type === "bearer") {
    const token = typeof auth.token === "function" ? await auth.token() : auth.token;
    put("authorization", `Bearer ${token}`);
  } else if (auth?.type === "apiKey" && auth.in !== "query") {
    put(auth.name, auth.value);
  }
  putAll(callOptions.headers);
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

async function readText(response: Response, what: string, attempt: Attempt): Promise<string> {
  try {
    return await response.text();
  } catch (error) {
    if (attempt.aborted) throw attempt.reason;
    throw new A2ATransportError(`${what}: the connection failed while reading the response (${messageOf(error)})`, {
      status: response.status,
      cause: error,
    });
  }
}

/** What a stream throws for an error met while running; errors of the hooks pass through. */
function streamFailure(error: unknown, what: string, attempt: Attempt, status: number | undefined): unknown {
  if (attempt.aborted) return attempt.reason;
  if (error instanceof SseParseError) return new A2ATransportError(`${what}: ${error.message}`, { status, cause: error });
  return error;
}

/**
 * The chunks of a response body, a failed read turned into an A2ATransportError. `return()` cancels
 * the body at once, even while a read is pending (which an async generator could not do).
 */
function bodyChunks(body: ReadableStream<Uint8Array>, what: string, status: number): AsyncIterable<Uint8Array> {
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

function isEventStream(response: Response): boolean {
  const type = response.headers.get("content-type") ?? "";
  return (type.split(";")[0] ?? "").trim().toLowerCase() === "text/event-stream";
}

function isErrorObject(value: unknown): value is A2AErrorObject {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const { code, message } = value as Record<string, unknown>;
  return Number.isInteger(code) && typeof message === "string";
}

function statusText(response: Response): string {
  return response.statusText ? ` ${response.statusText}` : "";
}

/** The text cut to at most MAX_BODY_EXCERPT characters (ending in "…" when cut, never mid surrogate pair). */
function excerpt(text: string): string {
  if (text.length <= MAX_BODY_EXCERPT) return text;
  let end = MAX_BODY_EXCERPT - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

function messageOf(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error && cause.message ? `${error.message}: ${cause.message}` : error.message;
  }
  return String(error);
}
