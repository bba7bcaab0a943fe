/**
 * Web-standard plumbing (Request → Response) for the Hono adapter and any fetch-style runtime.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { BODY_TIMED_OUT, bodyDeadline, INTERNAL_ERROR_BODY, JSON_HEADERS } from "../http/http.js";
import type { CoreRequest, CoreResponse } from "../call.js";
import { coreRequest, readBody } from "./node.js";
import type { A2AServerCore } from "../http/server.js";

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
function internalError(): Response {
  // A fresh header object, as webResponse gives: @hono/node-server writes Content-Length into the one given.
  return new Response(INTERNAL_ERROR_BODY, { status: 500, headers: { ...JSON_HEADERS } });
}

/** The node request and response a web framework runs on, where it hands them over (@hono/node-server: `c.env`). */
export interface NodeBindings {
  incoming: IncomingMessage;
  outgoing: ServerResponse;
}

/** The node request and response in a Hono context's `env` under @hono/node-server; undefined on other runtimes. */
export function nodeBindingsOf(env: unknown): NodeBindings | undefined {
  if (typeof env !== "object" || env === null) return undefined;
  const { incoming, outgoing } = env as { incoming?: unknown; outgoing?: unknown };
  const isStream = (value: unknown) => typeof value === "object" && value !== null && typeof (value as { on?: unknown }).on === "function";
  return isStream(incoming) && isStream(outgoing) ? { incoming: incoming as IncomingMessage, outgoing: outgoing as ServerResponse } : undefined;
}

/**
 * The same for a web framework running on node:http (@hono/node-server): the body is read from the node
 * request (its events), the headers and the disconnect signal come from node too, so the web Request,
 * with its body stream, is never made; the answer is a web Response as from handleWebRequest.
 */
export async function handleNodeAsWebRequest(core: A2AServerCore, node: NodeBindings): Promise<Response> {
  const { incoming, outgoing } = node;
  try {
    const body =
      incoming.method === "POST" ? await readBody(incoming, core.limits.maxBodyBytes, incoming.headers["content-length"], core.limits.bodyTimeoutMs) : undefined;
    return webResponse(await core.handle(coreRequest(incoming, body, outgoing)));
  } catch {
    return internalError();
  }
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
