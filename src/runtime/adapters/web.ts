/**
 * The web-standard server entry: `createFetchHandler(core)` is a `(request: Request) => Promise<Response>`
 * over the server core (every HTTP binding, the agent card, health, CORS; SSE as a web ReadableStream),
 * for Cloudflare Workers (`export default { fetch }`), Deno (`Deno.serve`), Bun (`Bun.serve`), the Hono
 * adapter on any runtime, and the test kit. Nothing reachable from here imports a `node:` module
 * (test/edge/import-scan.test.ts walks the graph).
 */
import { BODY_TIMED_OUT, bodyDeadline, INTERNAL_ERROR_BODY, JSON_HEADERS } from "../http/http.js";
import type { CoreRequest, CoreResponse } from "../call.js";
import type { A2AServerCore } from "../http/server.js";

/** The part of a Cloudflare Workers `ExecutionContext` the handler uses (Deno and Bun pass none). */
export interface BackgroundContext {
  waitUntil(promise: Promise<unknown>): void;
}

/** A fetch handler: Workers call it with (request, env, ctx); Deno.serve and Bun.serve with (request, info). */
export type FetchHandler = (request: Request, env?: unknown, ctx?: unknown) => Promise<Response>;

export interface FetchHandlerOptions {
  /**
   * Where the work that goes on after a response (a non-blocking send's turn, push delivery) is handed so
   * the runtime keeps the isolate for it. Default: the `ctx.waitUntil` a Workers runtime passes as the
   * third argument; Deno and Bun keep running on their own and need none.
   */
  waitUntil?: (promise: Promise<unknown>, request: Request) => void;
}

/**
 * The web-standard entry over a server core. `core` may be a factory, called with the first request (its
 * origin is where the agent is reached: the card's URLs): Cloudflare Workers allow no timers at module
 * scope, where a core (its outbox worker, lease watch) would start them.
 */
export function createFetchHandler(core: A2AServerCore | ((request: Request) => A2AServerCore | Promise<A2AServerCore>), options: FetchHandlerOptions = {}): FetchHandler {
  let made: Promise<A2AServerCore> | undefined = typeof core === "function" ? undefined : Promise.resolve(core);
  return async (request, _env, ctx) => {
    let server: A2AServerCore;
    try {
      made ??= Promise.resolve((core as (request: Request) => A2AServerCore | Promise<A2AServerCore>)(request));
      server = await made;
    } catch (error) {
      made = undefined; // the next request tries again
      console.error("a2a: the server could not be created", error);
      return internalError();
    }
    const response = await handleWebRequest(server, request);
    const waitUntil = options.waitUntil ?? backgroundOf(ctx);
    if (waitUntil) waitUntil(server.idle(), request);
    return response;
  };
}

/** `ctx.waitUntil` of a Workers ExecutionContext, bound; undefined for anything else (Deno's and Bun's second argument). */
function backgroundOf(ctx: unknown): ((promise: Promise<unknown>) => void) | undefined {
  const waitUntil = (ctx as Partial<BackgroundContext> | undefined)?.waitUntil;
  return typeof waitUntil === "function" ? (promise) => waitUntil.call(ctx, promise) : undefined;
}

/**
 * Reads a web body up to `limit` bytes ("too-large" beyond it; the rest is not read); "timed-out" when it
 * has not fully arrived `timeoutMs` after the read began (0 = no limit).
 */
export async function readWebBody(request: Request, limit: number, timeoutMs = 0): Promise<Uint8Array | "too-large" | "timed-out"> {
  const declared = Number(request.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > limit) {
    await request.body?.cancel().catch(() => undefined);
    return "too-large";
  }
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const deadline = bodyDeadline(timeoutMs);
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), deadline.expired]);
      if (next === BODY_TIMED_OUT) {
        await reader.cancel().catch(() => undefined);
        return "timed-out";
      }
      const { done, value } = next;
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => undefined);
        return "too-large";
      }
      chunks.push(value);
    }
  } finally {
    deadline.clear();
    reader.releaseLock();
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/** Handles a web Request with the core and answers a web Response (SSE as a ReadableStream). */
export async function handleWebRequest(core: A2AServerCore, request: Request): Promise<Response> {
  try {
    const url = new URL(request.url);
    const headers: Record<string, string | undefined> = {};
    request.headers.forEach((value, name) => (headers[name.toLowerCase()] = value));
    const body = request.method === "POST" ? await readWebBody(request, core.limits.maxBodyBytes, core.limits.bodyTimeoutMs) : undefined;
    const core_request: CoreRequest = { method: request.method, path: url.pathname, query: url.searchParams, headers, body, signal: request.signal };
    return webResponse(await core.handle(core_request));
  } catch {
    return internalError();
  }
}

/** INTERNAL_ERROR_BODY as a web Response: what the framework's own error handler would answer otherwise. */
export function internalError(): Response {
  // A fresh header object, as webResponse gives: @hono/node-server writes Content-Length into the one given.
  return new Response(INTERNAL_ERROR_BODY, { status: 500, headers: { ...JSON_HEADERS } });
}

/** A core response as a web Response (SSE as a ReadableStream). */
export function webResponse(response: CoreResponse): Response {
  // Fresh header objects: some servers (@hono/node-server) write Content-Length into the object given.
  if (response.kind === "json") return new Response(response.body, { status: response.status, headers: { ...response.headers } });
  if (response.kind === "empty") return new Response(null, { status: response.status, headers: { ...response.headers } });
  const encoder = new TextEncoder();
  let close: () => void = () => undefined;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let ended = false;
      try {
        close = response.open({
          write: (chunk) => {
            if (!ended) controller.enqueue(encoder.encode(chunk));
          },
          end: () => {
            if (ended) return;
            ended = true;
            controller.close();
          },
        });
      } catch {
        ended = true;
        controller.close();
      }
    },
    cancel() {
      close();
    },
  });
  return new Response(stream, { status: response.status, headers: { ...response.headers } });
}
