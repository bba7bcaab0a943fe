// The client's default fetch on Node (src/runtime/client/node-fetch.ts, issue 12: client speed): node:http
// answered as a web Response. It must do what the client relies on fetch for: exact bytes out, status,
// headers and body in, no redirect following, bodiless statuses, decoded compressed bodies, aborts before
// and during the body, cancelling a body, and a network failure as a rejected promise.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NodeAnswer, nodeFetch, nodeRequest } from "../../../src/runtime/client/node-fetch.js";

let server: Server;
let base: string;
const received: Array<{ method: string; url: string; headers: IncomingMessage["headers"]; body: Buffer }> = [];
let closedEarly = 0;

function handle(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    received.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks) });
    switch (new URL(req.url ?? "/", "http://localhost").pathname) {
      case "/echo":
        res.writeHead(201, "Made", { "content-type": "application/json", "x-one": "1" });
        res.end(Buffer.concat(chunks));
        return;
      case "/redirect":
        res.writeHead(302, { location: "/elsewhere" });
        res.end("moved");
        return;
      case "/not-modified":
        res.writeHead(304, { etag: '"v1"' });
        res.end();
        return;
      case "/gzip":
        res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
        res.end(gzipSync(JSON.stringify({ packed: "é".repeat(1000) })));
        return;
      case "/endless": {
        res.writeHead(200, { "content-type": "application/octet-stream" });
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        const pump = (): void => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once("drain", pump);
        };
        res.on("close", () => {
          if (!res.writableFinished) closedEarly++;
        });
        pump();
        return;
      }
      case "/split": {
        // Two "x-two" headers, a BOM and a UTF-8 character cut across two writes: read as fetch reads them.
        res.writeHead(200, [["Content-Type", "text/plain; charset=utf-8"], ["X-Two", "a"], ["x-two", "b"]]);
        const bytes = Buffer.from("\ufeffhé!", "utf8");
        res.write(bytes.subarray(0, 4));
        setTimeout(() => res.end(bytes.subarray(4)), 20);
        return;
      }
      case "/hang":
        res.writeHead(200, { "content-type": "text/plain" });
        res.write("partial");
        return; // never ends: the client aborts
      case "/slow":
        setTimeout(() => res.end("late"), 5_000).unref();
        return;
      default:
        res.writeHead(404);
        res.end();
    }
  });
}

beforeAll(async () => {
  server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const fetchNode = (url: string, init: RequestInit = {}): Promise<Response> => {
  if (nodeFetch === undefined) throw new Error("nodeFetch is undefined on Node: process.getBuiltinModule is missing");
  return nodeFetch(url, init);
};

describe("the client's Node fetch", () => {
  it("is the default on Node", () => {
    expect(nodeFetch).toBeTypeOf("function");
  });

  it("sends the method, headers and the exact UTF-8 bytes of the body, and returns status, headers and body", async () => {
    const body = JSON.stringify({ text: "héllo ✓ 😀", n: 1 });
    const response = await fetchNode(`${base}/echo?q=1`, { method: "POST", headers: { "content-type": "application/json", "x-token": "t" }, body });
    const seen = received[received.length - 1];
    expect(seen?.method).toBe("POST");
    expect(seen?.url).toBe("/echo?q=1");
    expect(seen?.headers["x-token"]).toBe("t");
    expect(seen?.headers["content-length"]).toBe(String(Buffer.byteLength(body)));
    expect(seen?.body.toString("utf8")).toBe(body);
    expect(response.status).toBe(201);
    expect(response.statusText).toBe("Made");
    expect(response.ok).toBe(true);
    expect(response.headers.get("x-one")).toBe("1");
    expect(await response.text()).toBe(body);
  });

  it("does not follow a redirect (send() decides): the 302 itself comes back", async () => {
    const response = await fetchNode(`${base}/redirect`, { method: "GET" });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/elsewhere");
    expect(received[received.length - 1]?.url).toBe("/redirect");
  });

  it("answers a 304 with a response without a body", async () => {
    const response = await fetchNode(`${base}/not-modified`, { method: "GET", headers: { "if-none-match": '"v1"' } });
    expect(response.status).toBe(304);
    expect(response.body).toBeNull();
    expect(response.headers.get("etag")).toBe('"v1"');
  });

  it("decodes a gzip body the server sent unasked", async () => {
    const response = await fetchNode(`${base}/gzip`, { method: "GET" });
    expect(await response.json()).toEqual({ packed: "é".repeat(1000) });
  });

  it("cancelling the body closes the connection instead of reading it to the end", async () => {
    const before = closedEarly;
    const response = await fetchNode(`${base}/endless`, { method: "GET" });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    await reader.cancel();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(closedEarly).toBe(before + 1);
  });

  it("an aborted signal rejects at once with its reason, before anything is sent", async () => {
    const controller = new AbortController();
    const reason = new Error("stop");
    controller.abort(reason);
    const count = received.length;
    await expect(fetchNode(`${base}/echo`, { method: "POST", body: "{}", signal: controller.signal })).rejects.toBe(reason);
    expect(received.length).toBe(count);
  });

  it("aborting while waiting for the answer rejects with the reason", async () => {
    const controller = new AbortController();
    const reason = new Error("too slow");
    const pending = fetchNode(`${base}/slow`, { method: "GET", signal: controller.signal });
    setTimeout(() => controller.abort(reason), 50);
    await expect(pending).rejects.toBe(reason);
  });

  it("aborting during the body errors the body's read with the reason", async () => {
    const controller = new AbortController();
    const reason = new Error("enough");
    const response = await fetchNode(`${base}/hang`, { method: "GET", signal: controller.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("partial");
    controller.abort(reason);
    await expect(reader.read()).rejects.toBe(reason);
  });

  it("a refused connection rejects with a TypeError whose cause names the failure", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const failure = await fetchNode(`http://127.0.0.1:${port}/`, { method: "GET" }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect(String((failure as TypeError).cause)).toMatch(/ECONNREFUSED/);
  });
});

// The lighter answer send() uses on Node (no web Response, Headers or stream per call): it must read what
// the web Response reads of the same answer.
describe("nodeRequest's answer", () => {
  const requestNode = async (url: string, init: RequestInit = {}): Promise<NodeAnswer> => {
    if (nodeRequest === undefined) throw new Error("nodeRequest is undefined on Node");
    const answer = await nodeRequest(url, init);
    if (!(answer instanceof NodeAnswer)) throw new Error("an http: URL must be answered by node:http");
    return answer;
  };
  const tooLarge = (): Error => new RangeError("too large");

  it("reads headers and text as a web Response does (repeated headers joined, BOM dropped, a split character whole)", async () => {
    const web = await fetchNode(`${base}/split`, { method: "GET" });
    const answer = await requestNode(`${base}/split`, { method: "GET" });
    expect(answer.headers.get("X-TWO")).toBe(web.headers.get("x-two"));
    expect(answer.headers.get("x-two")).toBe("a, b");
    expect(answer.headers.get("x-missing")).toBeNull();
    expect(await answer.readWithin(1_000, tooLarge)).toBe(await web.text());
    expect(answer.bodyUsed).toBe(true);
    expect(answer.unread).toBe(false);
  });

  it("a second read of the body is refused", async () => {
    const answer = await requestNode(`${base}/echo`, { method: "POST", body: "once" });
    expect(await answer.readWithin(1_000, tooLarge)).toBe("once");
    await expect(answer.readWithin(1_000, tooLarge)).rejects.toThrow(/already read/);
  });

  it("stops reading past the limit with the limit's error and closes the connection", async () => {
    const before = closedEarly;
    const answer = await requestNode(`${base}/endless`, { method: "GET" });
    await expect(answer.readWithin(200_000, tooLarge)).rejects.toThrow("too large");
    await expect.poll(() => closedEarly).toBe(before + 1);
  });

  it("decodes a gzip body, and answers a bodiless status with an empty text", async () => {
    const packed = await requestNode(`${base}/gzip`, { method: "GET" });
    expect(JSON.parse(await packed.readWithin(1_000_000, tooLarge))).toEqual({ packed: "é".repeat(1000) });
    const empty = await requestNode(`${base}/not-modified`, { method: "GET" });
    expect(empty.body).toBeNull();
    expect(await empty.readWithin(0, tooLarge)).toBe("");
  });

  it("aborting during the body rejects the read with the reason", async () => {
    const controller = new AbortController();
    const reason = new Error("enough");
    const answer = await requestNode(`${base}/hang`, { method: "GET", signal: controller.signal });
    const reading = answer.readWithin(1_000, tooLarge);
    setTimeout(() => controller.abort(reason), 20);
    await expect(reading).rejects.toBe(reason);
  });

  it("gives its body as a web stream when asked for it (an event stream), and as a Response", async () => {
    const answer = await requestNode(`${base}/echo`, { method: "POST", body: "streamed" });
    expect(answer.unread).toBe(true);
    const response = answer.toResponse();
    expect(answer.unread).toBe(false);
    expect(response.status).toBe(201);
    expect(response.headers.get("x-one")).toBe("1");
    expect(await response.text()).toBe("streamed");
  });
});
