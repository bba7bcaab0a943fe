import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import {
  A2AError,
  receivedA2AError,
  A2AResponseValidationError,
  A2ATransportError,
  fetchAgentCard,
  JsonRpcTransport,
  type ClientOptions,
  type FetchLike,
  type ResponseChecks,
} from "../../../src/runtime/client/client.js";
import { SseParseError } from "../../../src/runtime/wire/sse.js";
import { serve, type Handler } from "../../support/stub-servers.js";
import type { ValidationIssue } from "../../../src/runtime/validation.js";

// Network rule: every server here listens on 127.0.0.1 with an ephemeral port, and every request goes there.

/** Answers JSON with the given status. */
function json(res: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** Answers `{jsonrpc, id, result}` echoing the request's id. */
const answer =
  (result: unknown): Handler =>
  (_req, res, received) =>
    json(res, 200, { jsonrpc: "2.0", id: received.json?.["id"] ?? null, result });

/** Resolves when the connection of the response closes (the client went away or the response ended). */
function closed(res: ServerResponse): Promise<void> {
  if (res.destroyed || res.socket?.destroyed) return Promise.resolve();
  return new Promise((resolve) => res.once("close", () => resolve()));
}

/** The promise, or a rejection when it takes longer than ms. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: still pending after ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** The error the promise rejects with (failing when it resolves). */
async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

/** Every item of the stream, or the error it ends with. */
async function drain(iterable: AsyncIterable<unknown>): Promise<{ items: unknown[]; error?: unknown }> {
  const items: unknown[] = [];
  try {
    for await (const item of iterable) items.push(item);
  } catch (error) {
    return { items, error };
  }
  return { items };
}

function startSse(res: ServerResponse): void {
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
  res.flushHeaders();
}

/** One SSE frame holding a JSON-RPC response. */
function frame(value: unknown, eol = "\n"): string {
  return `data: ${JSON.stringify(value)}${eol}${eol}`;
}

const ok = (id: unknown, result: unknown) => ({ jsonrpc: "2.0", id, result });
const isFinal: ResponseChecks["isFinal"] = (result) => (result as { final?: unknown }).final === true;

describe("JsonRpcTransport.call", () => {
  it("POSTs a JSON-RPC request and resolves to the result", async () => {
    const server = await serve(answer({ kind: "task", id: "t1" }));
    const transport = new JsonRpcTransport(`${server.url}/a2a`);
    await expect(transport.call("tasks/get", { id: "t1" })).resolves.toEqual({ kind: "task", id: "t1" });
    const [request] = server.received;
    expect(request?.method).toBe("POST");
    expect(request?.url).toBe("/a2a");
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(request?.headers["accept"]).toBe("application/json");
    expect(request?.json).toEqual({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "t1" } });
  });

  it("leaves params out when undefined, and ids increase from 1 per transport", async () => {
    const server = await serve(answer(null));
    const transport = new JsonRpcTransport(server.url);
    await transport.call("a", undefined);
    await transport.call("b", {});
    expect(transport.nextId()).toBe(3);
    await transport.call("c", []);
    await new JsonRpcTransport(server.url).call("d", undefined);
    expect(server.received.map((r) => r.json)).toEqual([
      { jsonrpc: "2.0", id: 1, method: "a" },
      { jsonrpc: "2.0", id: 2, method: "b", params: {} },
      { jsonrpc: "2.0", id: 4, method: "c", params: [] },
      { jsonrpc: "2.0", id: 1, method: "d" },
    ]);
  });

  it("throws an A2AError with code, message, data and method for an error response", async () => {
    const server = await serve((_req, res, r) =>
      json(res, 200, { jsonrpc: "2.0", id: r.json?.["id"], error: { code: -32001, message: "Task not found", data: { id: "t9" } } }),
    );
    const error = await failure(new JsonRpcTransport(server.url).call("tasks/get", { id: "t9" }));
    expect(error).toBeInstanceOf(A2AError);
    const rpc = error as A2AError;
    expect([rpc.code, rpc.message, rpc.data, rpc.method, rpc.name]).toEqual([-32001, "Task not found", { id: "t9" }, "tasks/get", "A2AError"]);
  });

  it("accepts an error response with id null (the server could not read the id)", async () => {
    const server = await serve((_req, res) => json(res, 200, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }));
    const error = await failure(new JsonRpcTransport(server.url).call("x", {}));
    expect(error).toBeInstanceOf(A2AError);
    expect((error as A2AError).code).toBe(-32700);
    expect((error as A2AError).data).toBeUndefined();
  });

  it("throws what makeError makes", async () => {
    class TaskNotFound extends Error {}
    const server = await serve((_req, res, r) => json(res, 200, { jsonrpc: "2.0", id: r.json?.["id"], error: { code: -32001, message: "nope" } }));
    const seen: unknown[] = [];
    const transport = new JsonRpcTransport(server.url, {}, {
      makeError: (method, error) => {
        seen.push([method, error]);
        return new TaskNotFound(error.message);
      },
    });
    expect(await failure(transport.call("tasks/get", {}))).toBeInstanceOf(TaskNotFound);
    expect(seen).toEqual([["tasks/get", { code: -32001, message: "nope" }]]);
  });

  it("throws an A2ATransportError with status and a bounded body excerpt for HTTP 500 with HTML", async () => {
    const html = `<html><body>${"Internal Server Error ".repeat(100)}</body></html>`;
    const server = await serve((_req, res) => {
      res.writeHead(500, { "content-type": "text/html" });
      res.end(html);
    });
    const error = await failure(new JsonRpcTransport(server.url).call("x", {}));
    expect(error).toBeInstanceOf(A2ATransportError);
    const transport = error as A2ATransportError;
    expect(transport.status).toBe(500);
    expect(transport.message).toMatch(/HTTP 500/);
    expect(transport.body?.length).toBeLessThanOrEqual(500);
    expect(transport.body?.startsWith("<html><body>Internal Server Error")).toBe(true);
  });

  it("throws the JSON-RPC error of a 401 with a JSON-RPC error body", async () => {
    const server = await serve((_req, res, r) =>
      json(res, 401, { jsonrpc: "2.0", id: r.json?.["id"], error: { code: -32003, message: "Unauthorized" } }),
    );
    const error = await failure(new JsonRpcTransport(server.url).call("x", {}));
    expect(error).toBeInstanceOf(A2AError);
    expect((error as A2AError).code).toBe(-32003);
  });

  it("throws an A2ATransportError for a non-2xx status with a JSON-RPC success body", async () => {
    const server = await serve((_req, res, r) => json(res, 503, ok(r.json?.["id"], {})));
    const error = await failure(new JsonRpcTransport(server.url).call("x", {}));
    expect(error).toBeInstanceOf(A2ATransportError);
    expect((error as A2ATransportError).status).toBe(503);
  });

  it("throws an A2ATransportError for a response to another id", async () => {
    const server = await serve((_req, res) => json(res, 200, ok(99, {})));
    const error = await failure(new JsonRpcTransport(server.url).call("x", {}));
    expect(error).toBeInstanceOf(A2ATransportError);
    expect((error as Error).message).toMatch(/id 99, not 1/);
  });

  it("throws an A2ATransportError for a body that is not JSON, or not JSON-RPC", async () => {
    const bodies = ["hello", '{"result": 1}', "", '{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"x"}}'];
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(bodies[server.received.length - 1]);
    });
    const transport = new JsonRpcTransport(server.url);
    for (const body of bodies) {
      const error = await failure(transport.call("x", {}));
      expect(error).toBeInstanceOf(A2ATransportError);
      expect((error as A2ATransportError).status).toBe(200);
      expect((error as A2ATransportError).body).toBe(body);
    }
  });

  it("throws an A2ATransportError keeping the cause when the agent cannot be reached", async () => {
    const server = await serve(answer(null));
    const url = server.url;
    await server.close();
    const error = await failure(new JsonRpcTransport(url).call("x", {}));
    expect(error).toBeInstanceOf(A2ATransportError);
    expect((error as A2ATransportError).status).toBeUndefined();
    expect((error as Error).cause).toBeInstanceOf(Error);
  });

  it("sends a bearer token, static or from a function called per request", async () => {
    const server = await serve(answer(null));
    await new JsonRpcTransport(server.url, { auth: { type: "bearer", token: "abc" } }).call("x", {});
    let n = 0;
    const dynamic = new JsonRpcTransport(server.url, { auth: { type: "bearer", token: async () => `t${++n}` } });
    await dynamic.call("x", {});
    await dynamic.call("x", {});
    expect(server.received.map((r) => r.headers["authorization"])).toEqual(["Bearer abc", "Bearer t1", "Bearer t2"]);
  });

  it("sends an API key as a header or in the query, keeping the existing query", async () => {
    const server = await serve(answer(null));
    await new JsonRpcTransport(server.url, { auth: { type: "apiKey", name: "X-API-Key", value: "k1" } }).call("x", {});
    const query = new JsonRpcTransport(`${server.url}/rpc?tenant=a`, { auth: { type: "apiKey", name: "api key", value: "k&2", in: "query" } });
    await query.call("x", {});
    expect(server.received[0]?.headers["x-api-key"]).toBe("k1");
    expect(server.received[0]?.url).toBe("/");
    expect(server.received[1]?.url).toBe("/rpc?tenant=a&api%20key=k%262");
    expect(server.received[1]?.headers["api key"]).toBeUndefined();
    expect(query.endpoint).toBe(`${server.url}/rpc?tenant=a`);
  });

  it("sends option headers (object or async function), overridden per call whatever the casing", async () => {
    const server = await serve(answer(null));
    await new JsonRpcTransport(server.url, { headers: { "X-A": "1", "X-B": "2" } }).call("x", {}, { headers: { "x-b": "call" } });
    const fn = new JsonRpcTransport(server.url, { headers: async () => ({ "X-Trace": "t" }), auth: { type: "bearer", token: "abc" } });
    await fn.call("x", {}, { headers: { Authorization: "Bearer other" } });
    expect(server.received[0]?.headers).toMatchObject({ "x-a": "1", "x-b": "call" });
    expect(server.received[1]?.headers).toMatchObject({ "x-trace": "t", authorization: "Bearer other" });
  });

  it("uses the given fetch", async () => {
    const server = await serve(answer(7));
    const calls: [string, RequestInit][] = [];
    const fetch: FetchLike = (input, init) => {
      calls.push([input, init]);
      return globalThis.fetch(input, init);
    };
    await expect(new JsonRpcTransport(server.url, { fetch, headers: { "x-a": "1" } }).call("x", { a: 1 })).resolves.toBe(7);
    expect(calls).toHaveLength(1);
    const [input, init] = calls[0] ?? [];
    expect(input).toBe(server.url);
    expect(init?.method).toBe("POST");
    expect(init?.headers).toEqual({ "content-type": "application/json", accept: "application/json", "x-a": "1" });
    expect(JSON.parse(String(init?.body))).toEqual({ jsonrpc: "2.0", id: 1, method: "x", params: { a: 1 } });
    expect(init?.signal).toBeInstanceOf(AbortSignal);
  });

  it("times out when the server never answers, and closes the connection", async () => {
    const server = await serve(() => {}); // never answers
    const transport = new JsonRpcTransport(server.url, { timeoutMs: 5_000 });
    const started = Date.now();
    const error = await failure(transport.call("x", {}, { timeoutMs: 200 }));
    const elapsed = Date.now() - started;
    expect(error).toBeInstanceOf(A2ATransportError);
    expect((error as Error).message).toMatch(/timed out after 200 ms/);
    expect(elapsed).toBeGreaterThanOrEqual(150);
    expect(elapsed).toBeLessThan(2_000);
    await within(closed(await server.nextResponse()), 2_000, "server socket close");
  });

  it("times out while the body of a unary call stalls", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"jsonrpc":"2.0",');
    });
    const error = await failure(new JsonRpcTransport(server.url, { timeoutMs: 200 }).call("x", {}));
    expect((error as Error).message).toMatch(/timed out after 200 ms/);
    await within(closed(await server.nextResponse()), 2_000, "server socket close");
  });

  it("rejects with the abort reason when the signal aborts mid-call, and closes the connection", async () => {
    const server = await serve(() => {});
    const controller = new AbortController();
    const reason = new Error("user cancelled");
    const pending = failure(new JsonRpcTransport(server.url).call("x", {}, { signal: controller.signal }));
    const res = await server.nextResponse();
    controller.abort(reason);
    expect(await within(pending, 2_000, "abort")).toBe(reason);
    await within(closed(res), 2_000, "server socket close");
  });

  it("times out while a token function hangs, sending nothing", async () => {
    const server = await serve(answer(null));
    const hanging = new JsonRpcTransport(server.url, { auth: { type: "bearer", token: () => new Promise<string>(() => {}) }, timeoutMs: 100 });
    const error = await within(failure(hanging.call("x", {})), 2_000, "timeout");
    expect((error as Error).message).toMatch(/timed out after 100 ms/);
    expect(server.received).toHaveLength(0);
  });

  it("passes on the error of a failing headers function", async () => {
    const server = await serve(answer(null));
    const broken = new Error("no credentials");
    const transport = new JsonRpcTransport(server.url, {
      headers: () => {
        throw broken;
      },
    });
    expect(await failure(transport.call("x", {}))).toBe(broken);
  });

  it("rejects at once with the reason of an already aborted signal", async () => {
    const server = await serve(answer(null));
    const reason = new Error("already");
    const error = await failure(new JsonRpcTransport(server.url).call("x", {}, { signal: AbortSignal.abort(reason) }));
    expect(error).toBe(reason);
    expect(server.received).toHaveLength(0);
  });

  it("validates responses only when validateResponses is on", async () => {
    const server = await serve(answer({ kind: "bogus" }));
    const issues: ValidationIssue[] = [
      { pointer: "/result/kind", expected: '"task"', got: '"bogus"', keyword: "const", message: '/result/kind: expected "task", got "bogus"' },
    ];
    const seen: unknown[] = [];
    const checks: ResponseChecks = {
      validate: (method, response) => {
        seen.push([method, response]);
        return (response as { result?: { kind?: unknown } }).result?.kind === "task" ? null : issues;
      },
    };
    await expect(new JsonRpcTransport(server.url, {}, checks).call("tasks/get", {})).resolves.toEqual({ kind: "bogus" });
    expect(seen).toHaveLength(0);
    const error = await failure(new JsonRpcTransport(server.url, { validateResponses: true }, checks).call("tasks/get", {}));
    expect(error).toBeInstanceOf(A2AResponseValidationError);
    expect((error as A2AResponseValidationError).issues).toEqual(issues);
    expect((error as A2AResponseValidationError).method).toBe("tasks/get");
    expect((error as Error).message).toContain('/result/kind: expected "task"');
    expect(seen).toEqual([["tasks/get", { jsonrpc: "2.0", id: 1, result: { kind: "bogus" } }]]);
  });
});

describe("JsonRpcTransport.stream", () => {
  it("POSTs with accept text/event-stream and yields results across multi-line, CRLF and heartbeat frames", async () => {
    const server = await serve(async (_req, res, r) => {
      const id = r.json?.["id"];
      startSse(res);
      res.write(": connected\n\n");
      // pretty-printed JSON: one data line per line
      const pretty = JSON.stringify(ok(id, { n: 1, text: "a\nb" }), null, 2);
      res.write(pretty.split("\n").map((line) => `data: ${line}\n`).join("") + "\n");
      res.write(":\n\n: ping\n\n");
      // CRLF line endings, split across writes
      const crlf = frame(ok(id, { n: 2 }), "\r\n");
      res.write(crlf.slice(0, 10));
      await new Promise((resolve) => setTimeout(resolve, 20));
      res.write(crlf.slice(10, -1));
      await new Promise((resolve) => setTimeout(resolve, 20));
      res.write(crlf.slice(-1));
      res.write(`event: message\nid: 7\n${frame(ok(id, { n: 3 }))}`);
      res.write(`event: something-else\n${frame(ok(id, { n: 99 }))}`);
      res.end(frame(ok(id, { n: 4 })));
    });
    const transport = new JsonRpcTransport(server.url);
    const { items, error } = await drain(transport.stream("message/stream", { message: {} }));
    expect(error).toBeUndefined();
    expect(items).toEqual([{ n: 1, text: "a\nb" }, { n: 2 }, { n: 3 }, { n: 4 }]);
    expect(server.received[0]?.headers["accept"]).toBe("text/event-stream");
    expect(server.received[0]?.json).toEqual({ jsonrpc: "2.0", id: 1, method: "message/stream", params: { message: {} } });
  });

  it("ends after a final result and closes the connection the server keeps open", async () => {
    const server = await serve((_req, res, r) => {
      startSse(res);
      res.write(frame(ok(r.json?.["id"], { n: 1 })));
      res.write(frame(ok(r.json?.["id"], { n: 2, final: true })));
      res.write(frame(ok(r.json?.["id"], { n: 3 }))); // never read
    });
    const transport = new JsonRpcTransport(server.url, {}, { isFinal });
    const { items, error } = await within(drain(transport.stream("message/stream", {})), 2_000, "stream");
    expect(error).toBeUndefined();
    expect(items).toEqual([{ n: 1 }, { n: 2, final: true }]);
    await within(closed(await server.nextResponse()), 2_000, "server socket close");
  });

  it("ends when the server closes the stream, even with no events", async () => {
    const server = await serve((_req, res) => {
      startSse(res);
      res.end(": nothing\n\n");
    });
    const { items, error } = await drain(new JsonRpcTransport(server.url, {}, { isFinal }).stream("x", {}));
    expect(error).toBeUndefined();
    expect(items).toEqual([]);
  });

  it("throws the JSON-RPC error of an error event, through makeError", async () => {
    const server = await serve((_req, res, r) => {
      startSse(res);
      res.write(frame(ok(r.json?.["id"], { n: 1 })));
      res.write(frame({ jsonrpc: "2.0", id: r.json?.["id"], error: { code: -32603, message: "boom", data: [1] } }));
    });
    const made: unknown[] = [];
    const transport = new JsonRpcTransport(server.url, {}, {
      makeError: (method, error) => {
        made.push(error);
        return receivedA2AError(method, error);
      },
    });
    const { items, error } = await within(drain(transport.stream("message/stream", {})), 2_000, "stream");
    expect(items).toEqual([{ n: 1 }]);
    expect(error).toBeInstanceOf(A2AError);
    expect([(error as A2AError).code, (error as A2AError).message, (error as A2AError).data]).toEqual([-32603, "boom", [1]]);
    expect(made).toHaveLength(1);
    await within(closed(await server.nextResponse()), 2_000, "server socket close");
  });

  it("throws from an `event: error` frame: its JSON-RPC error, else an A2ATransportError", async () => {
    const frames = [
      (id: unknown) => `event: error\ndata: ${JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32001, message: "gone" } })}\n\n`,
      () => `event: error\ndata: ${JSON.stringify({ code: -32002, message: "bare" })}\n\n`,
      () => "event: error\ndata: something broke\n\n",
    ];
    const server = await serve((_req, res, r) => {
      startSse(res);
      res.end(frames[server.received.length - 1]?.(r.json?.["id"]));
    });
    const transport = new JsonRpcTransport(server.url);
    const first = await drain(transport.stream("x", {}));
    expect(first.error).toBeInstanceOf(A2AError);
    expect((first.error as A2AError).code).toBe(-32001);
    const second = await drain(transport.stream("x", {}));
    expect((second.error as A2AError).code).toBe(-32002);
    const third = await drain(transport.stream("x", {}));
    expect(third.error).toBeInstanceOf(A2ATransportError);
    expect((third.error as A2ATransportError).body).toBe("something broke");
  });

  it("throws an A2ATransportError for an event that is not JSON-RPC or is for another id", async () => {
    const frames = ["data: not json\n\n", `data: ${JSON.stringify({ id: 1, result: {} })}\n\n`, frame(ok(42, {}))];
    const server = await serve((_req, res) => {
      startSse(res);
      res.end(frames[server.received.length - 1]);
    });
    const transport = new JsonRpcTransport(server.url);
    for (const [i, text] of frames.entries()) {
      const { error } = await drain(transport.stream("x", {}));
      expect(error, text).toBeInstanceOf(A2ATransportError);
      if (i === 2) expect((error as Error).message).toMatch(/id 42, not 3/);
    }
  });

  it("rejects an event larger than maxEventBytes and closes the connection", async () => {
    const server = await serve((_req, res, r) => {
      startSse(res);
      res.write(frame(ok(r.json?.["id"], { small: true })));
      res.write(frame(ok(r.json?.["id"], { big: "x".repeat(5_000) })));
    });
    const transport = new JsonRpcTransport(server.url, { maxEventBytes: 1_024 });
    const { items, error } = await within(drain(transport.stream("x", {})), 2_000, "stream");
    expect(items).toEqual([{ small: true }]);
    expect(error).toBeInstanceOf(A2ATransportError);
    expect((error as Error).cause).toBeInstanceOf(SseParseError);
    expect(((error as Error).cause as SseParseError).reason).toBe("event-too-large");
    await within(closed(await server.nextResponse()), 2_000, "server socket close");
  });

  it("cancels the request when the loop is left early", async () => {
    const server = await serve((_req, res, r) => {
      startSse(res);
      res.write(frame(ok(r.json?.["id"], { n: 1 })));
      // keeps the stream open, with heartbeats
      const timer = setInterval(() => res.write(": ping\n\n"), 50);
      res.on("close", () => clearInterval(timer));
    });
    const items: unknown[] = [];
    for await (const item of new JsonRpcTransport(server.url).stream("x", {})) {
      items.push(item);
      break;
    }
    expect(items).toEqual([{ n: 1 }]);
    await within(closed(await server.nextResponse()), 2_000, "server socket close");
  });

  it("rejects with the abort reason when the signal aborts mid-stream, and closes the connection", async () => {
    const server = await serve((_req, res, r) => {
      startSse(res);
      res.write(frame(ok(r.json?.["id"], { n: 1 })));
    });
    const controller = new AbortController();
    const reason = new Error("stop streaming");
    const items: unknown[] = [];
    const pending = (async () => {
      for await (const item of new JsonRpcTransport(server.url).stream("x", {}, { signal: controller.signal })) {
        items.push(item);
        setTimeout(() => controller.abort(reason), 20); // aborts while the next read waits
      }
    })();
    expect(await within(failure(pending), 2_000, "abort")).toBe(reason);
    expect(items).toEqual([{ n: 1 }]);
    await within(closed(await server.nextResponse()), 2_000, "server socket close");
  });

  it("times out waiting for the response headers, but not while events are slow", async () => {
    let calls = 0;
    const server = await serve(async (_req, res, r) => {
      if (++calls === 1) return; // never answers
      startSse(res);
      await new Promise((resolve) => setTimeout(resolve, 300)); // longer than the timeout
      res.end(frame(ok(r.json?.["id"], { late: true })));
    });
    const transport = new JsonRpcTransport(server.url, { timeoutMs: 150 });
    const first = await within(drain(transport.stream("x", {})), 2_000, "timeout");
    expect(first.error).toBeInstanceOf(A2ATransportError);
    expect((first.error as Error).message).toMatch(/timed out after 150 ms/);
    const second = await within(drain(transport.stream("x", {})), 2_000, "slow events");
    expect(second).toEqual({ items: [{ late: true }] });
  });

  it("turns a response that is not an event stream into its JSON-RPC error, else an A2ATransportError", async () => {
    const server = await serve((_req, res, r) => {
      const n = server.received.length;
      if (n === 1) json(res, 400, { jsonrpc: "2.0", id: r.json?.["id"], error: { code: -32004, message: "Unsupported operation" } });
      else if (n === 2) {
        res.writeHead(502, { "content-type": "text/html" });
        res.end("<h1>Bad gateway</h1>");
      } else json(res, 200, ok(r.json?.["id"], { n: 1 }));
    });
    const transport = new JsonRpcTransport(server.url);
    const first = await drain(transport.stream("x", {}));
    expect(first.error).toBeInstanceOf(A2AError);
    expect((first.error as A2AError).code).toBe(-32004);
    const second = await drain(transport.stream("x", {}));
    expect(second.error).toBeInstanceOf(A2ATransportError);
    expect([(second.error as A2ATransportError).status, (second.error as A2ATransportError).body]).toEqual([502, "<h1>Bad gateway</h1>"]);
    const third = await drain(transport.stream("x", {}));
    expect(third.error).toBeInstanceOf(A2ATransportError);
    expect((third.error as Error).message).toMatch(/expected an event stream, got application\/json/);
  });

  it("validates each event only when validateResponses is on", async () => {
    const server = await serve((_req, res, r) => {
      startSse(res);
      res.write(frame(ok(r.json?.["id"], { kind: "task" })));
      res.end(frame(ok(r.json?.["id"], { kind: "bogus" })));
    });
    const issue: ValidationIssue = { pointer: "/result/kind", expected: "a kind", got: '"bogus"', keyword: "enum", message: "/result/kind: bad" };
    let validated = 0;
    const checks: ResponseChecks = {
      validate: (_method, response) => {
        validated++;
        return (response as { result: { kind: string } }).result.kind === "task" ? null : [issue];
      },
    };
    const off = await drain(new JsonRpcTransport(server.url, {}, checks).stream("x", {}));
    expect(off).toEqual({ items: [{ kind: "task" }, { kind: "bogus" }] });
    expect(validated).toBe(0);
    const on = await drain(new JsonRpcTransport(server.url, { validateResponses: true }, checks).stream("x", {}));
    expect(on.items).toEqual([{ kind: "task" }]);
    expect(on.error).toBeInstanceOf(A2AResponseValidationError);
    expect((on.error as A2AResponseValidationError).issues).toEqual([issue]);
    expect(validated).toBe(2);
  });

  it("sends auth and headers on stream requests too", async () => {
    const server = await serve((_req, res) => {
      startSse(res);
      res.end();
    });
    const options: ClientOptions = { auth: { type: "bearer", token: () => "s" }, headers: { "x-a": "1" } };
    await drain(new JsonRpcTransport(server.url, options).stream("x", {}, { headers: { "x-b": "2" } }));
    expect(server.received[0]?.headers).toMatchObject({ authorization: "Bearer s", "x-a": "1", "x-b": "2", accept: "text/event-stream" });
  });
});

describe("fetchAgentCard", () => {
  const card = { name: "Echo", url: "http://127.0.0.1/a2a", version: "1.0.0" };

  it("GETs the well-known path from the base URL's origin, with or without a trailing path", async () => {
    const server = await serve((req, res) => (req.url?.startsWith("/.well-known/agent-card.json") ? json(res, 200, card) : json(res, 404, {})));
    await expect(fetchAgentCard(server.url, "/.well-known/agent-card.json")).resolves.toEqual(card);
    await expect(fetchAgentCard(`${server.url}/a2a/v1/`, "/.well-known/agent-card.json")).resolves.toEqual(card);
    await expect(fetchAgentCard(`${server.url}/a2a/v1`, "/.well-known/agent-card.json")).resolves.toEqual(card);
    expect(server.received.map((r) => [r.method, r.url, r.headers["accept"]])).toEqual([
      ["GET", "/.well-known/agent-card.json", "application/json"],
      ["GET", "/.well-known/agent-card.json", "application/json"],
      ["GET", "/.well-known/agent-card.json", "application/json"],
    ]);
  });

  it("sends the same auth and headers", async () => {
    const server = await serve((_req, res) => json(res, 200, card));
    await fetchAgentCard(server.url, "/.well-known/agent.json", { auth: { type: "bearer", token: "abc" }, headers: { "x-a": "1" } });
    await fetchAgentCard(server.url, "/.well-known/agent.json", { auth: { type: "apiKey", name: "key", value: "v", in: "query" } });
    expect(server.received[0]?.headers).toMatchObject({ authorization: "Bearer abc", "x-a": "1" });
    expect(server.received[1]?.url).toBe("/.well-known/agent.json?key=v");
  });

  it("throws an A2ATransportError for a non-2xx status, a non-JSON body or a non-object", async () => {
    const server = await serve((req, res) => {
      if (req.url === "/missing") json(res, 404, { error: "not found" });
      else if (req.url === "/html") {
        res.writeHead(200, { "content-type": "text/html" });
        res.end("<html>");
      } else json(res, 200, [card]);
    });
    for (const [path, status] of [
      ["/missing", 404],
      ["/html", 200],
      ["/array", 200],
    ] as const) {
      const error = await failure(fetchAgentCard(server.url, path));
      expect(error, path).toBeInstanceOf(A2ATransportError);
      expect((error as A2ATransportError).status).toBe(status);
    }
  });

  it("honors the timeout", async () => {
    const server = await serve(() => {});
    const error = await failure(fetchAgentCard(server.url, "/.well-known/agent-card.json", { timeoutMs: 100 }));
    expect((error as Error).message).toMatch(/timed out after 100 ms/);
  });
});
