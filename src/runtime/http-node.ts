/**
 * node:http plumbing shared by the node:http, Express and Fastify adapters: reading a request body
 * under a size limit, and writing a core response (JSON or Server-Sent Events) with disconnect handling.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { BODY_TIMED_OUT, bodyDeadline, type CoreRequest, type CoreResponse } from "./http.js";
import type { A2AServerCore } from "./server.js";

/** How much of an over-limit body is read and thrown away so the client can see the 413 answer. */
const DRAIN_BYTES = 8 * 1024 * 1024;

/**
 * Reads a body up to `limit` bytes; beyond it, drains a little more and reports "too-large". A body that
 * has not fully arrived `timeoutMs` after the read began (0 = no limit) is "timed-out": a client sending
 * it at a trickle holds a connection no longer than that.
 */
export async function readBody(
  source: AsyncIterable<Uint8Array | string>,
  limit: number,
  contentLength?: string,
  timeoutMs = 0,
): Promise<Uint8Array | "too-large" | "timed-out"> {
  const declared = contentLength === undefined ? NaN : Number(contentLength);
  if (Number.isFinite(declared) && declared > limit + DRAIN_BYTES) return "too-large";
  const chunks: Uint8Array[] = [];
  let size = 0;
  let tooLarge = Number.isFinite(declared) && declared > limit;
  const iterator = source[Symbol.asyncIterator]();
  const deadline = bodyDeadline(timeoutMs);
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), deadline.expired]);
      if (next === BODY_TIMED_OUT) {
        void iterator.return?.()?.catch(() => undefined);
        return "timed-out";
      }
      if (next.done) break;
      const chunk = next.value;
      const bytes = typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk;
      size += bytes.byteLength;
      if (size > limit) tooLarge = true;
      if (tooLarge) {
        if (size > limit + DRAIN_BYTES) break;
        continue;
      }
      chunks.push(bytes);
    }
  } finally {
    deadline.clear();
  }
  if (tooLarge) return "too-large";
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/**
 * The core's view of a node request. Given the response, its `signal` aborts when the connection closes
 * before the answer is finished (made on first read: most requests never ask).
 */
export function coreRequest(req: IncomingMessage, body: CoreRequest["body"], res?: ServerResponse): CoreRequest {
  // Express keeps the full path in originalUrl when a router is mounted under a prefix.
  const url = new URL((req as { originalUrl?: string }).originalUrl ?? req.url ?? "/", "http://localhost");
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers)) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  const request: CoreRequest = { method: req.method ?? "GET", path: url.pathname, query: url.searchParams, headers, body };
  if (res) {
    let signal: AbortSignal | undefined;
    Object.defineProperty(request, "signal", {
      enumerable: true,
      get(): AbortSignal {
        if (!signal) {
          const controller = new AbortController();
          signal = controller.signal;
          const gone = () => {
            if (!res.writableFinished) controller.abort(new Error("the client closed the connection"));
          };
          if (res.destroyed) gone();
          else res.once("close", gone);
        }
        return signal;
      },
    });
  }
  return request;
}

/** Writes a core response; an SSE stream is closed (and its listeners freed) when the client goes away. */
export function writeResponse(res: ServerResponse, response: CoreResponse, req?: IncomingMessage): void {
  if (response.kind === "json") {
    // The body as a string with its byte length: node:http sends the headers and a string body in one
    // socket write (a Buffer body goes out as a second chunk of a writev, a quarter of the time of a small answer).
    res.writeHead(response.status, { ...response.headers, "content-length": String(Buffer.byteLength(response.body, "utf8")) });
    res.end(response.body, "utf8");
    if (response.headers["connection"] === "close" && req && !req.complete) res.once("finish", () => req.destroy());
    return;
  }
  if (response.kind === "empty") {
    res.writeHead(response.status, response.headers);
    res.end();
    return;
  }
  res.writeHead(response.status, response.headers);
  res.flushHeaders();
  let ended = false;
  // The disconnect handler is registered before the stream opens, so that nothing opened is left behind.
  let close: () => void = () => undefined;
  let gone = false;
  res.on("close", () => {
    ended = true;
    gone = true;
    close();
  });
  try {
    close = response.open({
      write: (chunk) => {
        if (!ended && !res.writableEnded) res.write(chunk);
      },
      end: () => {
        if (ended) return;
        ended = true;
        res.end();
      },
    });
  } catch {
    ended = true;
    res.end();
    return;
  }
  if (gone) close();
}

/** Handles one node request end to end: read the body under the limit, ask the core, write the answer. */
export async function handleNodeRequest(core: A2AServerCore, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    const needsBody = req.method === "POST" || req.method === "PUT" || req.method === "PATCH";
    const body = needsBody ? await readBody(req, core.limits.maxBodyBytes, req.headers["content-length"], core.limits.bodyTimeoutMs) : undefined;
    writeResponse(res, await core.handle(coreRequest(req, body, res)), req);
  } catch {
    if (!res.headersSent) {
      res.writeHead(500, { "content-type": "application/json" });
      res.end('{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}');
    } else {
      res.destroy();
    }
  }
}
