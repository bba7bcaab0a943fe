/**
 * The client's default request on Node: http: and https: requests made with node:http / node:https (the
 * global keep-alive agents). It does what the client asks of fetch (method, headers, a string body, an
 * abort, no redirect following: `send()` handles redirects) for about a third of the CPU time of Node's
 * built-in fetch, whose request machinery dominated the client's profile (issue 12: the client bench).
 * `send()` uses {@link nodeRequest}, whose {@link NodeAnswer} reads a JSON body straight from the socket
 * and makes a web stream of it only for an event stream; {@link nodeFetch} is the same request as a
 * `fetch` answering a web `Response` whose body streams the socket's data with backpressure.
 *
 * The Node modules are looked up at run time (`process.getBuiltinModule`), never imported, and this file
 * itself is imported by client/http.ts only at run time, when that function is there (`import()`: a bundler
 * makes it a chunk of its own that a browser never loads). In a browser, a worker or an edge runtime the
 * client uses the platform's fetch. A URL with credentials in it (`http://user:pass@host/`), which fetch
 * refuses, also goes to the platform's fetch, which then refuses it.
 */

import type { AbortHook, FetchLike, HttpAnswer, NodeRequest } from "./fetch.js";

// The few parts of node:http, node:zlib and node:buffer this file uses, typed here rather than taken from
// @types/node: a client type-checks with `lib: ["ES2022", "DOM"]` alone (a browser or edge project has no
// Node types), and this file is loaded only on Node (client/http.ts imports it at run time when it is there).

/** A readable byte stream of Node (an IncomingMessage, a zlib decompressor): the events and calls used here. */
interface NodeReadable {
  on(event: "data", listener: (chunk: Uint8Array) => void): unknown;
  on(event: "end" | "aborted", listener: () => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  once(event: "end", listener: () => void): unknown;
  emit(event: string, ...args: unknown[]): boolean;
  pause(): unknown;
  resume(): unknown;
  destroy(error?: Error): unknown;
  pipe<T extends NodeReadable>(destination: T): T;
}

/** node:http's IncomingMessage, as read here. */
interface IncomingMessage extends NodeReadable {
  readonly statusCode?: number | undefined;
  readonly statusMessage?: string | undefined;
  readonly rawHeaders: string[];
}

/** node:http's ClientRequest, as used here. */
interface ClientRequest {
  on(event: "error", listener: (error: Error) => void): unknown;
  destroy(error?: Error): unknown;
  end(body?: string): unknown;
}

/** The options of node:http's `request` this file sets. */
interface RequestOptions {
  protocol: "http:" | "https:";
  hostname: string;
  path: string;
  method: string;
  headers: Record<string, string>;
  port?: number;
}

interface NodeModules {
  http: { request(options: RequestOptions, callback: (response: IncomingMessage) => void): ClientRequest };
  https: { request(options: RequestOptions, callback: (response: IncomingMessage) => void): ClientRequest };
  buffer: { Buffer: { byteLength(text: string, encoding: "utf8"): number } };
  zlib: {
    createGunzip(): NodeReadable;
    createInflate(): NodeReadable;
    createBrotliDecompress(): NodeReadable;
  };
}

function nodeModules(): NodeModules | undefined {
  const host = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  if (typeof host?.getBuiltinModule !== "function") return undefined;
  const http = host.getBuiltinModule("node:http") as NodeModules["http"] | undefined;
  const https = host.getBuiltinModule("node:https") as NodeModules["https"] | undefined;
  const zlib = host.getBuiltinModule("node:zlib") as NodeModules["zlib"] | undefined;
  const buffer = host.getBuiltinModule("node:buffer") as NodeModules["buffer"] | undefined;
  return http && https && zlib && buffer ? { http, https, zlib, buffer } : undefined;
}

const modules = nodeModules();

/** Statuses whose response has no body (a `Response` with a body and one of them cannot be made). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);
/** Chunks the body stream holds before it pauses the socket. */
const BODY_HIGH_WATER_MARK = 16;
/** Decodes a whole body at once (`decode()` without `stream` keeps no state between calls). */
const UTF8 = new TextDecoder();

/**
 * The client's default request on Node: a {@link NodeAnswer} (a web `Response` for a URL it leaves to the
 * platform's fetch); undefined off Node. `send()` of client/http.ts uses it when no `fetch` option is set,
 * with its attempt: the request is aborted by the attempt's hook (no AbortController per call), else by
 * `init.signal`.
 */
export const nodeRequest: NodeRequest | undefined =
  modules === undefined
    ? undefined
    : (input, init, attempt) => {
        const url = parsedUrl(input);
        if (url === undefined) return globalThis.fetch(input, attempt ? { ...init, signal: attempt.signal } : init);
        return request(modules, url, init, attempt?.hook ?? init.signal ?? undefined);
      };

/** The default fetch of the client on Node for http: and https: URLs (a web `Response`); undefined off Node. */
export const nodeFetch: FetchLike | undefined =
  nodeRequest === undefined
    ? undefined
    : async (input, init) => {
        const answer = await nodeRequest(input, init);
        return answer instanceof NodeAnswer ? answer.toResponse() : (answer as Response);
      };

/** What a request needs of its URL: parsed once per URL (a client calls the same endpoint again and again). */
interface Target {
  readonly https: boolean;
  readonly hostname: string;
  readonly path: string;
  readonly port: number | undefined;
}

const targets = new Map<string, Target | undefined>();
/** The most URLs {@link targets} remembers; it starts over when full. */
const MAX_TARGETS = 256;

/** The URL's target; undefined for a URL left to the platform's fetch (not http(s):, or with credentials). */
function parsedUrl(input: string): Target | undefined {
  const known = targets.get(input);
  if (known !== undefined || targets.has(input)) return known;
  const url = new URL(input);
  const target =
    (url.protocol !== "http:" && url.protocol !== "https:") || url.username !== "" || url.password !== ""
      ? undefined
      : {
          https: url.protocol === "https:",
          hostname: url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname,
          path: `${url.pathname}${url.search}`,
          port: url.port !== "" ? Number(url.port) : undefined,
        };
  if (targets.size >= MAX_TARGETS) targets.clear();
  targets.set(input, target);
  return target;
}

function request(node: NodeModules, url: Target, init: RequestInit, signal: AbortHook | undefined): Promise<HttpAnswer> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  const body = typeof init.body === "string" ? init.body : undefined;
  if (init.body != null && body === undefined) return Promise.reject(new TypeError("a2a-codegen's Node fetch sends string bodies only"));
  const headers: Record<string, string> = { ...(init.headers as Record<string, string> | undefined) };
  if (body !== undefined) headers["content-length"] = String(node.buffer.Buffer.byteLength(body, "utf8"));
  const options: RequestOptions = {
    protocol: url.https ? "https:" : "http:",
    hostname: url.hostname,
    path: url.path,
    method: init.method ?? "GET",
    headers,
  };
  if (url.port !== undefined) options.port = url.port;
  const lib = url.https ? node.https : node.http;
  return new Promise<HttpAnswer>((resolve, reject) => {
    let settled = false;
    const onAbort = (): void => {
      req.destroy(signal?.reason instanceof Error ? signal.reason : undefined);
      if (!settled) {
        settled = true;
        reject(signal?.reason);
      }
    };
    const req = lib.request(options, (res) => {
      if (settled) {
        res.destroy();
        return;
      }
      settled = true;
      try {
        resolve(new NodeAnswer(node, res, signal, onAbort));
      } catch (error) {
        res.destroy();
        reject(error);
      }
    });
    req.on("error", (error) => {
      if (!settled) {
        settled = true;
        signal?.removeEventListener("abort", onAbort);
        reject(new TypeError("fetch failed", { cause: error }));
      }
    });
    signal?.addEventListener("abort", onAbort, { once: true });
    req.end(body);
  });
}

/**
 * The headers of a node:http response, read as a web `Headers` reads them (names case-insensitive,
 * repeated headers joined by ", "), straight from the raw name/value list instead of a copy per response.
 */
class RawHeaders {
  readonly #raw: readonly string[];

  constructor(raw: readonly string[]) {
    this.#raw = raw;
  }

  get(name: string): string | null {
    const wanted = name.toLowerCase();
    let value: string | null = null;
    for (let i = 0; i + 1 < this.#raw.length; i += 2) {
      if ((this.#raw[i] as string).toLowerCase() !== wanted) continue;
      const next = this.#raw[i + 1] as string;
      value = value === null ? next : `${value}, ${next}`;
    }
    return value;
  }

  toHeaders(): Headers {
    const headers = new Headers();
    for (let i = 0; i + 1 < this.#raw.length; i += 2) headers.append(this.#raw[i] as string, this.#raw[i + 1] as string);
    return headers;
  }
}

/**
 * A node:http response as the client reads it ({@link HttpAnswer}). Its body is read straight from the
 * socket by {@link readWithin} (a JSON-RPC answer is one small body: no web stream, `Response` or `Headers`
 * per call, which were about a third of the client's own CPU time per call in the client bench's profile),
 * or, once {@link body} is asked for (an event stream), as a web ReadableStream with backpressure.
 */
export class NodeAnswer implements HttpAnswer {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly type = "basic";
  readonly headers: RawHeaders;
  readonly #node: NodeModules;
  readonly #res: IncomingMessage;
  readonly #signal: AbortHook | undefined;
  readonly #onAbort: () => void;
  /** The body stream once {@link body} was asked for (null for a status without a body). */
  #body: ReadableStream<Uint8Array> | null | undefined;
  /** Whether the body was read or cancelled. */
  #used = false;

  constructor(node: NodeModules, res: IncomingMessage, signal: AbortHook | undefined, onAbort: () => void) {
    const status = res.statusCode ?? 0;
    if (status < 200 || status > 599) throw new TypeError(`fetch failed: HTTP status ${status} is not a final response`);
    this.status = status;
    this.statusText = res.statusMessage ?? "";
    this.ok = status >= 200 && status <= 299;
    this.headers = new RawHeaders(res.rawHeaders);
    this.#node = node;
    this.#res = res;
    this.#signal = signal;
    this.#onAbort = onAbort;
    if (NULL_BODY.has(status)) {
      this.#body = null;
      res.resume();
      res.once("end", () => this.#done());
    }
  }

  get body(): ReadableStream<Uint8Array> | null {
    // A body read by readWithin is an empty, closed stream (bodyUsed tells it was read).
    if (this.#body === undefined) this.#body = this.#used ? new ReadableStream<Uint8Array>({ start: (controller) => controller.close() }) : this.#stream();
    return this.#body;
  }

  get bodyUsed(): boolean {
    return this.#used;
  }

  /** Whether {@link readWithin} can still read the body (it was neither read nor made a stream). */
  get unread(): boolean {
    return this.#body === undefined && !this.#used;
  }

  /**
   * The whole body as UTF-8 text (decoded as `Response.text()` decodes it), read from the socket with a
   * running byte count: past `limit` bytes the connection is closed and the promise rejects with
   * `tooLarge()`. A status without a body gives "". A failure rejects with the signal's reason when it was
   * aborted, else with a TypeError "terminated" (as fetch's body reads do).
   */
  readWithin(limit: number, tooLarge: () => Error): Promise<string> {
    if (this.#body === null) return Promise.resolve("");
    if (!this.unread) return Promise.reject(new TypeError("the body was already read"));
    this.#used = true;
    return new Promise<string>((resolve, reject) => {
      const chunks: Uint8Array[] = [];
      let count = 0;
      const body = this.#listen({
        data: (chunk) => {
          count += chunk.byteLength;
          if (count <= limit) return void chunks.push(chunk);
          body.close();
          reject(tooLarge());
          this.#res.destroy();
        },
        end: () => resolve(UTF8.decode(joined(chunks, count))),
        fail: reject,
      });
    });
  }

  /** This answer as a web `Response` (for `nodeFetch`, whose callers expect one). */
  toResponse(): Response {
    return new Response(this.body, { status: this.status, statusText: this.statusText, headers: this.headers.toHeaders() });
  }

  #done(): void {
    this.#signal?.removeEventListener("abort", this.#onAbort);
  }

  #source(): ReturnType<typeof decoded> {
    return decoded(this.#node, this.#res, this.headers.get("content-encoding"));
  }

  /**
   * Follows the body once, decoded as its content-encoding says: `data` for each chunk, then `end`, or
   * `fail` with the signal's reason when it was aborted, else a TypeError "terminated" (as fetch's body
   * reads do; a socket closed before the end of the body is a failure, not a short body). Nothing is
   * called after the end, a failure or `close()`, and the answer's abort listener goes at the first of them.
   */
  #listen(on: BodyHandlers): FollowedBody {
    const res = this.#res;
    const source = this.#source();
    const signal = this.#signal;
    let open = true;
    const close = (): void => {
      if (!open) return;
      open = false;
      this.#done();
    };
    source.on("data", (chunk: Uint8Array) => {
      if (open) on.data(chunk);
    });
    source.on("end", () => {
      if (!open) return;
      close();
      on.end();
    });
    source.on("error", (error: Error) => {
      if (!open) return;
      close();
      on.fail(signal?.aborted ? signal.reason : new TypeError("terminated", { cause: error }));
    });
    res.on("aborted", () => source.emit("error", new Error("the connection closed before the end of the body")));
    return { source, close };
  }

  #stream(): ReadableStream<Uint8Array> {
    // Once the stream is closed, errored or cancelled, late socket events must not touch its controller (#listen).
    let body: FollowedBody | undefined;
    const used = (): void => {
      this.#used = true;
    };
    const listen = (on: BodyHandlers): FollowedBody => this.#listen(on);
    const res = this.#res;
    return new ReadableStream<Uint8Array>(
      {
        start(controller) {
          body = listen({
            data: (chunk) => {
              controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
              if ((controller.desiredSize ?? 1) <= 0) body?.source.pause();
            },
            end: () => {
              used();
              controller.close();
            },
            fail: (error) => {
              used();
              controller.error(error);
            },
          });
        },
        pull() {
          body?.source.resume();
        },
        cancel() {
          body?.close();
          used();
          res.destroy();
        },
      },
      { highWaterMark: BODY_HIGH_WATER_MARK },
    );
  }
}

/** What NodeAnswer's body reader does with the body's chunks, its end and its failure. */
interface BodyHandlers {
  data(chunk: Uint8Array): void;
  end(): void;
  fail(error: unknown): void;
}

/** A body being followed: its decoded source (to pause and resume) and `close()` (nothing more is handled). */
interface FollowedBody {
  readonly source: ReturnType<typeof decoded>;
  close(): void;
}

/** The chunks as one byte array (the only chunk itself when there is one). */
function joined(chunks: readonly Uint8Array[], length: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const all = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return all;
}

/** The body decoded as fetch decodes it (gzip, deflate, br), for a server that compresses unasked. */
function decoded(node: NodeModules, res: IncomingMessage, encoding: string | null): NodeReadable {
  const coding = encoding?.trim().toLowerCase();
  const decoder =
    coding === "gzip" || coding === "x-gzip"
      ? node.zlib.createGunzip()
      : coding === "deflate"
        ? node.zlib.createInflate()
        : coding === "br"
          ? node.zlib.createBrotliDecompress()
          : undefined;
  if (decoder === undefined) return res;
  res.on("error", (error) => decoder.emit("error", error));
  return res.pipe(decoder);
}
