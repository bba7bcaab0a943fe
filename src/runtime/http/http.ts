/**
 * HTTP as plain data, shared by the HTTP bindings (JSON-RPC, REST) and the adapters (node:http, Express,
 * Fastify, Hono): a request is `{ method, path, query, headers, body }`, a response is JSON, nothing, or
 * a stream of Server-Sent Events the adapter opens on its socket.
 */
import type { CallContext, CoreRequest, CoreResponse, SseResponse, CallRecorder } from "../call.js";
import { eventIdOf } from "../event-ids.js";
import { formatSseComment, formatSseEvent, hasBufferedEvents } from "../wire/sse.js";

export const JSON_HEADERS: Readonly<Record<string, string>> = { "content-type": "application/json" };

/**
 * What an adapter answers (status 500) when its core failed without an answer, which the core itself never
 * does (it answers its own errors): JSON-RPC's internal error (JSON-RPC 2.0 §5.1), with no detail, never the
 * framework's own error page (which may carry a stack trace) and never no answer at all.
 */
export const INTERNAL_ERROR_BODY = '{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}';
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};

/** A request target that is a plain path: one leading slash, unreserved and sub-delim characters, no segment that starts with a dot (a dot segment). */
const PLAIN_PATH = /^\/(?![/.])(?:[\w\-~!$&'()*+,;=:@]|\/(?!\.)|\.)*$/;

/**
 * The path and query of a request target (`/a2a?x=1`) or of an absolute URL, as the URL parser gives them.
 * A plain path (the hot case) is taken as it is; anything else (a query, dot segments, characters the
 * parser encodes) goes through `new URL`.
 */
export function splitTarget(target: string): { path: string; query: URLSearchParams } {
  const start = target.startsWith("/") ? 0 : target.indexOf("/", target.indexOf("//") + 2);
  const path = start === 0 ? target : start > 0 && /^https?:\/\/[\w.:[\]-]+\//i.test(target) ? target.slice(start) : "";
  if (path !== "" && PLAIN_PATH.test(path)) return { path, query: new URLSearchParams() };
  const url = new URL(target, "http://localhost");
  return { path: url.pathname, query: url.searchParams };
}

/** The path of a request target or absolute URL (see splitTarget). */
export function targetPath(target: string): string {
  return splitTarget(target).path;
}

/** What a body deadline resolves to when it expires. */
export const BODY_TIMED_OUT: unique symbol = Symbol("body timed out");

/** The request-body deadline of the adapters: a promise that resolves to BODY_TIMED_OUT after `ms` (never when 0), and its cancel. */
export function bodyDeadline(ms: number): { expired: Promise<typeof BODY_TIMED_OUT>; clear(): void } {
  if (!(ms > 0)) return { expired: new Promise<typeof BODY_TIMED_OUT>(() => undefined), clear: () => undefined };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<typeof BODY_TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(BODY_TIMED_OUT), ms);
  });
  return { expired, clear: () => clearTimeout(timer) };
}

/**
 * A signal that never aborts, for requests whose adapter cannot tell a disconnect: made on first use
 * (Cloudflare Workers refuse an AbortController at module scope).
 */
let neverAborted: AbortSignal | undefined;

/**
 * The call context of an HTTP request for a binding: its headers, the request itself, and a signal that
 * aborts when the client goes away (read lazily: an adapter makes it only when something asks).
 */
export function httpCallContext(request: CoreRequest, binding: string, authenticated?: { principal: unknown }, span?: CallRecorder): CallContext {
  return new HttpCallContext(request, binding, authenticated, span);
}

/** The `signal` getter of every HttpCallContext: one function, so that every context shares one hidden class. */
function httpCallSignal(this: { readonly request: CoreRequest }): AbortSignal {
  return this.request.signal ?? (neverAborted ??= new AbortController().signal);
}

/**
 * Not an object literal with a `get signal()`: V8 gives each such literal a hidden class of its own, in the
 * old generation, which keeps the request's objects alive through young-generation collections. The
 * getter is one shared function, an own enumerable property (a copy such as `{ ...ctx, headers }` keeps it).
 */
class HttpCallContext implements CallContext {
  readonly headers: CoreRequest["headers"];
  declare readonly signal: AbortSignal;
  readonly binding: string;
  readonly request: CoreRequest;
  /** Absent (not undefined) when the binding has not authenticated the caller. */
  declare readonly authenticated?: { readonly principal: unknown };
  /** Absent (not undefined) when the server is not observed. */
  declare readonly span?: CallRecorder;

  constructor(request: CoreRequest, binding: string, authenticated: { principal: unknown } | undefined, span: CallRecorder | undefined) {
    this.headers = request.headers;
    Object.defineProperty(this, "signal", { get: httpCallSignal, enumerable: true, configurable: true });
    this.binding = binding;
    this.request = request;
    if (authenticated) this.authenticated = authenticated;
    if (span) this.span = span;
  }
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}, contentType = "application/json"): CoreResponse {
  return { kind: "json", status, headers: { "content-type": contentType, ...headers }, body: JSON.stringify(body) };
}

/** The media type of a request without parameters, lower-cased ("" when there is none). */
export function mediaType(request: CoreRequest): string {
  const header = request.headers["content-type"];
  if (header === "application/json") return header;
  return (header ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/** application/json, or any application/…+json (application/a2a+json). */
export function isJsonMediaType(type: string): boolean {
  return type === "application/json" || /^application\/[\w.+-]*\+json$/.test(type);
}

export function bodyText(request: CoreRequest): string {
  const body = request.body;
  if (body === "too-large" || body === "timed-out") return "";
  return typeof body === "string" ? body : UTF8.decode(body ?? new Uint8Array());
}

/** Runs `task` after the current turn of the event loop (setImmediate where the platform has it: Node, Bun, Deno). */
const immediate = (globalThis as { setImmediate?: (task: () => void) => unknown }).setImmediate;
const afterTurn: (task: () => void) => void = immediate ? (task) => void immediate(task) : (task) => void setTimeout(task, 0);

/** One decoder for every body: decode() without `stream` keeps no state between calls. */
const UTF8 = new TextDecoder("utf-8", { fatal: false });

/** An SSE response that writes one event and ends. */
export function sseOnce(data: string): SseResponse {
  return {
    kind: "sse",
    status: 200,
    headers: { ...SSE_HEADERS },
    open: (sink) => {
      sink.write(formatSseEvent({ data }));
      sink.end();
      return () => undefined;
    },
  };
}

/**
 * An SSE response of a stream of events: each is written as one `data:` event (`frame` gives its text);
 * an error the iterator throws is written with `errorFrame`, then the stream ends. Heartbeat comments keep
 * idle connections open; when the client goes away the iterator is returned (its subscription released).
 * The events that come in one turn of the event loop (a commit's batch) go out in one write.
 */
export function sseOf(
  events: AsyncIterable<unknown>,
  frame: (event: unknown) => string,
  errorFrame: (error: unknown) => string,
  heartbeatMs: number,
): SseResponse {
  return {
    kind: "sse",
    status: 200,
    headers: { ...SSE_HEADERS },
    open: (sink) => {
      // Cleanup first: whatever throws below (a source that cannot subscribe, an event that cannot be
      // serialized, a sink whose client is gone) releases the subscription and stops the heartbeat.
      let iterator: AsyncIterator<unknown> | undefined;
      let closed = false;
      let timer: ReturnType<typeof setInterval> | undefined;
      const close = () => {
        if (closed) return;
        closed = true;
        if (timer) clearInterval(timer);
        try {
          void iterator?.return?.()?.catch(() => undefined);
        } catch {
          // A source that cannot be returned has nothing more to release.
        }
      };
      const write = (chunk: string): boolean => {
        if (closed) return false;
        try {
          sink.write(chunk);
          return true;
        } catch {
          close();
          return false;
        }
      };
      // Frames wait for the end of the event loop's turn, then go out together: one write (and one
      // syscall) for a burst of events instead of one each.
      let pending = "";
      const flush = () => {
        const chunk = pending;
        pending = "";
        return chunk === "" || write(chunk);
      };
      const queue = (chunk: string): boolean => {
        if (closed) return false;
        if (pending === "") afterTurn(flush);
        pending += chunk;
        return true;
      };
      const finish = () => {
        flush();
        const open = !closed;
        close();
        if (open) {
          try {
            sink.end();
          } catch {
            // The client is gone: nothing to end.
          }
        }
      };
      /** An error after the stream opened is one SSE event (an error frame that fails itself is left out). */
      const writeError = (error: unknown) => {
        let data: string | undefined;
        try {
          data = errorFrame(error);
        } catch {
          data = undefined;
        }
        if (data !== undefined) queue(formatSseEvent({ data }));
      };
      void (async () => {
        try {
          iterator = events[Symbol.asyncIterator]();
          if (heartbeatMs > 0) {
            timer = setInterval(() => void queue(formatSseComment("ping")), heartbeatMs);
            (timer as { unref?: () => void }).unref?.();
          }
          const buffered = hasBufferedEvents(iterator) ? iterator : undefined;
          const send = (event: unknown): boolean => {
            const id = eventIdOf(event);
            return queue(formatSseEvent(id === undefined ? { data: frame(event) } : { data: frame(event), id }));
          };
          stream: for (;;) {
            const next = await iterator.next();
            if (closed || next.done) break;
            if (!send(next.value)) break;
            // The rest of a burst, already queued, without an await each.
            if (buffered) for (const event of buffered.takeBuffered()) if (!send(event)) break stream;
          }
        } catch (error) {
          if (!closed) writeError(error);
        }
        finish();
      })();
      return close;
    },
  };
}
