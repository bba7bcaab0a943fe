/**
 * The client's default `fetch` on Node: http: and https: requests made with node:http / node:https (the
 * global keep-alive agents), answered as a web `Response` whose body streams the socket's data with
 * backpressure. It does what the client asks of fetch (method, headers, a string body, an abort signal,
 * no redirect following: `send()` handles redirects) for about a third of the CPU time of Node's
 * built-in fetch, whose request machinery dominated the client's profile (issue 12: the client bench).
 *
 * The Node modules are looked up at run time (`process.getBuiltinModule`), never imported: in a browser,
 * a worker or an edge runtime there is no such function, {@link nodeFetch} is undefined, and the client
 * uses the platform's fetch as before. A URL with credentials in it (`http://user:pass@host/`), which
 * fetch refuses, also goes to the platform's fetch, which then refuses it.
 */

import type { IncomingMessage, RequestOptions, ClientRequest } from "node:http";
import type { FetchLike } from "./client-http.js";

interface NodeModules {
  http: { request(options: RequestOptions, callback: (response: IncomingMessage) => void): ClientRequest };
  https: { request(options: RequestOptions, callback: (response: IncomingMessage) => void): ClientRequest };
  zlib: {
    createGunzip(): NodeJS.ReadWriteStream;
    createInflate(): NodeJS.ReadWriteStream;
    createBrotliDecompress(): NodeJS.ReadWriteStream;
  };
}

function nodeModules(): NodeModules | undefined {
  const host = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  if (typeof host?.getBuiltinModule !== "function") return undefined;
  const http = host.getBuiltinModule("node:http") as NodeModules["http"] | undefined;
  const https = host.getBuiltinModule("node:https") as NodeModules["https"] | undefined;
  const zlib = host.getBuiltinModule("node:zlib") as NodeModules["zlib"] | undefined;
  return http && https && zlib ? { http, https, zlib } : undefined;
}

const modules = nodeModules();

/** Statuses whose response has no body (a `Response` with a body and one of them cannot be made). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);
/** Chunks the body stream holds before it pauses the socket. */
const BODY_HIGH_WATER_MARK = 16;

/** The default fetch of the client on Node for http: and https: URLs; undefined off Node. */
export const nodeFetch: FetchLike | undefined =
  modules === undefined
    ? undefined
    : (input, init) => {
        const url = new URL(input);
        if ((url.protocol !== "http:" && url.protocol !== "https:") || url.username !== "" || url.password !== "") {
          return globalThis.fetch(input, init);
        }
        return request(modules, url, init);
      };

function request(node: NodeModules, url: URL, init: RequestInit): Promise<Response> {
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(signal.reason);
  const body = typeof init.body === "string" ? init.body : undefined;
  if (init.body != null && body === undefined) return Promise.reject(new TypeError("a2a-codegen's Node fetch sends string bodies only"));
  const headers: Record<string, string> = { ...(init.headers as Record<string, string> | undefined) };
  if (body !== undefined) headers["content-length"] = String(byteLength(body));
  const options: RequestOptions = {
    protocol: url.protocol,
    hostname: url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname,
    path: `${url.pathname}${url.search}`,
    method: init.method ?? "GET",
    headers,
  };
  if (url.port !== "") options.port = Number(url.port);
  const lib = url.protocol === "https:" ? node.https : node.http;
  return new Promise<Response>((resolve, reject) => {
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
        resolve(toResponse(node, res, signal, onAbort));
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

function toResponse(node: NodeModules, res: IncomingMessage, signal: AbortSignal | undefined, onAbort: () => void): Response {
  const status = res.statusCode ?? 0;
  if (status < 200 || status > 599) throw new TypeError(`fetch failed: HTTP status ${status} is not a final response`);
  const headers = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  const init: ResponseInit = { status, statusText: res.statusMessage ?? "", headers };
  const done = (): void => signal?.removeEventListener("abort", onAbort);
  if (NULL_BODY.has(status)) {
    res.resume();
    res.once("end", done);
    return new Response(null, init);
  }
  const source = decoded(node, res, headers.get("content-encoding"));
  // Once the stream is closed, errored or cancelled, late socket events must not touch its controller.
  let open = true;
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        source.on("data", (chunk: Buffer) => {
          if (!open) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 1) <= 0) source.pause();
        });
        source.on("end", () => {
          if (!open) return;
          open = false;
          done();
          controller.close();
        });
        source.on("error", (error: Error) => {
          if (!open) return;
          open = false;
          done();
          controller.error(signal?.aborted ? signal.reason : new TypeError("terminated", { cause: error }));
        });
        // A socket closed before the end of the body is an error, not a short body.
        res.on("aborted", () => source.emit("error", new Error("the connection closed before the end of the body")));
      },
      pull() {
        source.resume();
      },
      cancel() {
        open = false;
        done();
        res.destroy();
      },
    },
    { highWaterMark: BODY_HIGH_WATER_MARK },
  );
  return new Response(stream, init);
}

/** The body decoded as fetch decodes it (gzip, deflate, br), for a server that compresses unasked. */
function decoded(node: NodeModules, res: IncomingMessage, encoding: string | null): NodeJS.ReadableStream & { pause(): unknown; resume(): unknown; emit(event: string, ...args: unknown[]): boolean } {
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
  return res.pipe(decoder) as unknown as ReturnType<typeof decoded>;
}

function byteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}
