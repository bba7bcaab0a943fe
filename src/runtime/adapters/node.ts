/// <reference types="node" />
/**
 * node:http plumbing shared by the node:http, Express and Fastify adapters, and by Hono on
 * @hono/node-server (server/hono-node.ts, which answers on the node request and response the server hands
 * over, found with `nodeBindingsOf`): reading a request body under a size limit, and writing a core
 * response (JSON or Server-Sent Events) with disconnect handling.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { BODY_TIMED_OUT, bodyDeadline, INTERNAL_ERROR_BODY, JSON_HEADERS, splitTarget } from "../http/http.js";
import type { CoreRequest, CoreResponse } from "../call.js";
import type { A2AServerCore } from "../http/server.js";

/** How much of an over-limit body is read and thrown away so the client can see the 413 answer. */
const DRAIN_BYTES = 8 * 1024 * 1024;

/** A node readable stream (an IncomingMessage, Fastify's raw payload): read through its events. */
interface NodeReadable {
  readonly readableEnded?: boolean;
  readonly destroyed?: boolean;
  on(event: string, listener: (...args: never[]) => void): unknown;
  removeListener(event: string, listener: (...args: never[]) => void): unknown;
  pause(): unknown;
}

function isNodeReadable(source: unknown): source is NodeReadable {
  const s = source as Partial<NodeReadable> | null;
  return typeof s === "object" && s !== null && typeof s.on === "function" && typeof s.removeListener === "function" && typeof s.pause === "function";
}

/**
 * Reads a body up to `limit` bytes; beyond it, drains a little more and reports "too-large". A body that
 * has not fully arrived `timeoutMs` after the read began (0 = no limit) is "timed-out": a client sending
 * it at a trickle holds a connection no longer than that.
 */
export function readBody(
  source: AsyncIterable<Uint8Array | string>,
  limit: number,
  contentLength?: string,
  timeoutMs = 0,
): Promise<Uint8Array | "too-large" | "timed-out"> {
  const declared = contentLength === undefined ? NaN : Number(contentLength);
  if (Number.isFinite(declared) && declared > limit + DRAIN_BYTES) return Promise.resolve("too-large");
  const reader = new BodyReader(limit, Number.isFinite(declared) && declared > limit);
  // A node stream is read through its events: one listener call per chunk, where the async iterator
  // costs a promise per chunk and a race against the deadline per read (a tenth of a small request's time).
  return isNodeReadable(source) ? reader.readEvents(source, timeoutMs) : reader.readIterator(source, timeoutMs);
}

/** The chunks of one body under its limit. */
class BodyReader {
  private readonly chunks: Uint8Array[] = [];
  private size = 0;
  private readonly limit: number;
  private tooLarge: boolean;

  constructor(limit: number, tooLarge: boolean) {
    this.limit = limit;
    this.tooLarge = tooLarge;
  }

  /** Takes a chunk; false once enough of an over-limit body was drained (stop reading). */
  add(chunk: Uint8Array | string): boolean {
    const bytes = typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk;
    this.size += bytes.byteLength;
    if (this.size > this.limit) this.tooLarge = true;
    if (this.tooLarge) return this.size <= this.limit + DRAIN_BYTES;
    this.chunks.push(bytes);
    return true;
  }

  result(): Uint8Array | "too-large" {
    if (this.tooLarge) return "too-large";
    if (this.chunks.length === 1) return this.chunks[0] as Uint8Array;
    const body = new Uint8Array(this.size);
    let offset = 0;
    for (const chunk of this.chunks) {
      body.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return body;
  }

  readEvents(stream: NodeReadable, timeoutMs: number): Promise<Uint8Array | "too-large" | "timed-out"> {
    // A stream read to its end already (by a middleware before the adapter) has nothing more to give; a
    // destroyed one never ends: as the async iterator answered them.
    if (stream.readableEnded === true) return Promise.resolve(this.result());
    if (stream.destroyed === true) return Promise.reject(new Error("the request closed before its body ended"));
    return new Promise((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const settle = () => {
        if (timer !== undefined) clearTimeout(timer);
        stream.removeListener("data", onData);
        stream.removeListener("end", onEnd);
        stream.removeListener("error", onError);
        stream.removeListener("close", onClose);
      };
      const onData = (chunk: Uint8Array | string) => {
        if (this.add(chunk)) return;
        // Drained enough of an over-limit body: stop reading (the answer closes the connection).
        settle();
        stream.pause();
        resolve("too-large");
      };
      const onEnd = () => {
        settle();
        resolve(this.result());
      };
      const onError = (error: Error) => {
        settle();
        reject(error);
      };
      const onClose = () => {
        settle();
        reject(new Error("the request closed before its body ended"));
      };
      stream.on("data", onData);
      stream.on("end", onEnd);
      stream.on("error", onError);
      stream.on("close", onClose);
      if (timeoutMs > 0) {
        timer = setTimeout(() => {
          settle();
          stream.pause();
          resolve("timed-out");
        }, timeoutMs);
      }
    });
  }

  async readIterator(source: AsyncIterable<Uint8Array | string>, timeoutMs: number): Promise<Uint8Array | "too-large" | "timed-out"> {
    const iterator = source[Symbol.asyncIterator]();
    const deadline = bodyDeadline(timeoutMs);
    try {
      for (;;) {
        const next = await Promise.race([iterator.next(), deadline.expired]);
        if (next === BODY_TIMED_OUT) {
          void iterator.return?.()?.catch(() => undefined);
          return "timed-out";
        }
        if (next.done || !this.add(next.value)) break;
      }
    } finally {
      deadline.clear();
    }
    return this.result();
  }
}

/**
 * The core's view of a node request. Given the response, its `signal` aborts when the connection closes
 * before the answer is finished (made on first read: most requests never ask).
 */
export function coreRequest(req: IncomingMessage, body: CoreRequest["body"], res?: ServerResponse): CoreRequest {
  // Express keeps the full path in originalUrl when a router is mounted under a prefix.
  const target = (req as { originalUrl?: string }).originalUrl ?? req.url ?? "/";
  const { path, query } = splitTarget(target);
  const request: CoreRequest = res ? new NodeCoreRequest(req.method ?? "GET", path, query, nodeHeaders(req), body, res) : { method: req.method ?? "GET", path, query, headers: nodeHeaders(req), body };
  return request;
}

/** Node's headers as the core reads them: lower-case names, repeated ones (set-cookie) joined. */
export function nodeHeaders(req: IncomingMessage): Record<string, string | undefined> {
  const source = req.headers;
  for (const name in source) {
    if (Array.isArray(source[name])) {
      const headers: Record<string, string | undefined> = {};
      for (const [key, value] of Object.entries(source)) headers[key] = Array.isArray(value) ? value.join(", ") : value;
      return headers;
    }
  }
  // Node has joined every other repeated header already: its object is the core's as it is (read, never written).
  return source as Record<string, string | undefined>;
}

/** A node request with its disconnect signal made on first read. */
class NodeCoreRequest implements CoreRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: Record<string, string | undefined>;
  readonly body: CoreRequest["body"];
  private readonly res: ServerResponse;
  private abortSignal: AbortSignal | undefined;

  constructor(method: string, path: string, query: URLSearchParams, headers: Record<string, string | undefined>, body: CoreRequest["body"], res: ServerResponse) {
    this.method = method;
    this.path = path;
    this.query = query;
    this.headers = headers;
    this.body = body;
    this.res = res;
  }

  get signal(): AbortSignal {
    if (!this.abortSignal) {
      const controller = new AbortController();
      this.abortSignal = controller.signal;
      const res = this.res;
      const gone = () => {
        if (!res.writableFinished) controller.abort(new Error("the client closed the connection"));
      };
      if (res.destroyed) gone();
      else res.once("close", gone);
    }
    return this.abortSignal;
  }
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
    writeInternalError(res);
  }
}

/** Answers INTERNAL_ERROR_BODY, or ends a response whose head went out already (a broken stream). */
export function writeInternalError(res: ServerResponse): void {
  if (!res.headersSent) {
    res.writeHead(500, JSON_HEADERS);
    res.end(INTERNAL_ERROR_BODY);
  } else {
    res.destroy();
  }
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
