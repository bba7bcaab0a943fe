/**
 * Web-standard plumbing (Request → Response) for the Hono adapter and any fetch-style runtime.
 */
import { BODY_TIMED_OUT, bodyDeadline, type CoreRequest } from "./http.js";
import type { A2AServerCore } from "./server.js";

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
  const url = new URL(request.url);
  const headers: Record<string, string | undefined> = {};
  request.headers.forEach((value, name) => (headers[name.toLowerCase()] = value));
  const body = request.method === "POST" ? await readWebBody(request, core.limits.maxBodyBytes, core.limits.bodyTimeoutMs) : undefined;
  const core_request: CoreRequest = { method: request.method, path: url.pathname, query: url.searchParams, headers, body, signal: request.signal };
  const response = await core.handle(core_request);
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
