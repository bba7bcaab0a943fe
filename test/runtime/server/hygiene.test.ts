import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FRAMEWORKS, modules, rawPost, startServer, type RunningServer, subset } from "../../support/servers.js";

/**
 * Protocol hygiene: every malformed request gets the right HTTP status and JSON-RPC error, never a
 * stack trace or HTML, and the server still serves the next valid request.
 */
type Json = Record<string, unknown>;

interface Case {
  name: string;
  body: string | Uint8Array;
  headers?: Record<string, string>;
  status: number;
  /** The expected JSON body (a subset), or "empty" for no body. */
  expect: Json | Json[] | "empty";
}

const message = (over: Json = {}) => ({ kind: "message", messageId: "m1", role: "user", parts: [{ kind: "text", text: "hello" }], ...over });
const send = (id: unknown, params: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method: "message/send", params });

const CASES: Case[] = [
  { name: "malformed JSON → -32700", body: '{"jsonrpc": "2.0", "id": 1, "method": ', status: 200, expect: { jsonrpc: "2.0", id: null, error: { code: -32700 } } },
  { name: "not an object → -32600", body: '"hello"', status: 200, expect: { id: null, error: { code: -32600 } } },
  { name: "jsonrpc 1.0 → -32600 with the id", body: JSON.stringify({ jsonrpc: "1.0", id: 7, method: "tasks/get", params: { id: "x" } }), status: 200, expect: { id: 7, error: { code: -32600 } } },
  { name: "no method → -32600", body: JSON.stringify({ jsonrpc: "2.0", id: 8 }), status: 200, expect: { id: 8, error: { code: -32600 } } },
  { name: "an object id → -32600 with id null", body: JSON.stringify({ jsonrpc: "2.0", id: { a: 1 }, method: "tasks/get" }), status: 200, expect: { id: null, error: { code: -32600 } } },
  { name: "unknown method → -32601", body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tasks/explode", params: {} }), status: 200, expect: { id: 9, error: { code: -32601, data: { method: "tasks/explode" } } } },
  {
    name: "a message without parts → -32602 naming /params/message/parts",
    body: send(10, { message: (({ parts: _p, ...rest }) => rest)(message()) }),
    status: 200,
    expect: { id: 10, error: { code: -32602, data: { issues: [{ pointer: "/params/message/parts", keyword: "required" }] } } },
  },
  {
    // Issue 15 item 2 (specification-0.3.0.md §2: a Message contains "one or more `Parts`"): requests only.
    name: "a message with empty parts → -32602 naming /params/message/parts (at least 1 item)",
    body: send(16, { message: message({ parts: [] }) }),
    status: 200,
    expect: { id: 16, error: { code: -32602, data: { issues: [{ pointer: "/params/message/parts", keyword: "minItems" }] } } },
  },
  {
    // Issue 15 item 2 (specification-0.3.0.md §7.3.1: historyLength is a number of messages).
    name: "tasks/get with historyLength -1 → -32602 naming /params/historyLength",
    body: JSON.stringify({ jsonrpc: "2.0", id: 17, method: "tasks/get", params: { id: "t-1", historyLength: -1 } }),
    status: 200,
    expect: { id: 17, error: { code: -32602, data: { issues: [{ pointer: "/params/historyLength", keyword: "minimum" }] } } },
  },
  {
    name: "a message without role → -32602",
    body: send(11, { message: (({ role: _r, ...rest }) => rest)(message()) }),
    status: 200,
    expect: { id: 11, error: { code: -32602, data: { issues: [{ pointer: "/params/message/role" }] } } },
  },
  {
    name: "a bad role → -32602 listing the roles",
    body: send(12, { message: message({ role: "bot" }) }),
    status: 200,
    expect: { id: 12, error: { code: -32602, data: { issues: [{ pointer: "/params/message/role", expected: 'one of "agent", "user"', got: '"bot"' }] } } },
  },
  {
    // Issue 15 item 5 (specification-0.3.0.md §8.2): the card accepts text/plain only.
    name: "a file part of a type the card does not accept → -32005 naming the part",
    body: send(14, { message: message({ parts: [{ kind: "file", file: { uri: "https://x/a.pdf", mimeType: "application/pdf" } }] }) }),
    status: 200,
    expect: { id: 14, error: { code: -32005, data: { pointer: "/params/message/parts/0", mediaType: "application/pdf" } } },
  },
  {
    name: "a message naming an unknown task → -32001",
    body: send(15, { message: message({ taskId: "no-such-task", contextId: "c" }) }),
    status: 200,
    expect: { id: 15, error: { code: -32001 } },
  },
  {
    name: "a text part without text → -32602",
    body: send(13, { message: message({ parts: [{ kind: "text" }] }) }),
    status: 200,
    expect: { id: 13, error: { code: -32602, data: { issues: [{ pointer: "/params/message/parts/0/text" }] } } },
  },
  { name: "id 0 is echoed", body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "tasks/get", params: { id: "none" } }), status: 200, expect: { id: 0, error: { code: -32001 } } },
  { name: 'id "0" is echoed', body: JSON.stringify({ jsonrpc: "2.0", id: "0", method: "tasks/get", params: { id: "none" } }), status: 200, expect: { id: "0", error: { code: -32001 } } },
  // JSON-RPC 2.0 §4: a null or fractional id is legal (SHOULD NOT only) and is echoed (issue 16 item 8).
  { name: "id null is echoed (JSON-RPC 2.0 §4)", body: JSON.stringify({ jsonrpc: "2.0", id: null, method: "tasks/get", params: { id: "none" } }), status: 200, expect: { id: null, error: { code: -32001 } } },
  { name: "a fractional id is echoed (JSON-RPC 2.0 §4)", body: JSON.stringify({ jsonrpc: "2.0", id: 2.5, method: "tasks/get", params: { id: "none" } }), status: 200, expect: { id: 2.5, error: { code: -32001 } } },
  { name: "a notification gets no body", body: JSON.stringify({ jsonrpc: "2.0", method: "tasks/get", params: { id: "none" } }), status: 204, expect: "empty" },
  {
    name: "a batch is answered in order, notifications left out",
    body: JSON.stringify([
      { jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "none" } },
      { jsonrpc: "2.0", method: "tasks/get", params: { id: "none" } },
      { jsonrpc: "2.0", id: 2, method: "nope" },
    ]),
    status: 200,
    expect: [{ id: 1, error: { code: -32001 } }, { id: 2, error: { code: -32601 } }],
  },
  { name: "an empty batch → -32600", body: "[]", status: 200, expect: { id: null, error: { code: -32600 } } },
  {
    name: "a streaming method in a batch → -32600",
    body: JSON.stringify([{ jsonrpc: "2.0", id: 3, method: "message/stream", params: { message: message() } }]),
    status: 200,
    expect: [{ id: 3, error: { code: -32600 } }],
  },
  { name: "a body over the limit → 413 with a JSON-RPC error", body: new Uint8Array(70 * 1024).fill(0x20), status: 413, expect: { id: null, error: { code: -32600 } } },
  { name: "wrong content type → 415", body: send(14, { message: message() }), headers: { "content-type": "text/plain" }, status: 415, expect: { error: { code: -32600 } } },
  { name: "no content type → 415", body: send(15, { message: message() }), headers: {}, status: 415, expect: { error: { code: -32600 } } },
  {
    name: "__proto__ keys never reach prototypes",
    body: '{"jsonrpc":"2.0","id":16,"method":"tasks/get","params":{"id":"none","__proto__":{"polluted":true}},"__proto__":{"polluted":true}}',
    status: 200,
    expect: { id: 16, error: { code: -32001 } },
  },
  { name: "invalid UTF-8 → a JSON-RPC error, not a crash", body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), status: 200, expect: { id: null, error: { code: -32700 } } },
];


for (const framework of FRAMEWORKS) {
  describe(`bad input, ${framework} (0.3.0)`, () => {
    let server: RunningServer;
    beforeAll(async () => {
      server = await startServer("0.3.0", framework, { maxBodyBytes: 64 * 1024 });
    });
    afterAll(async () => server.close());

    const stillServes = async () => {
      const ok = await rawPost(server.rpcUrl, send(99, { message: message() }));
      expect(ok.status).toBe(200);
      expect(ok.json, JSON.stringify(ok.text)).toMatchObject({ id: 99, result: { kind: "message" } });
    };

    it.each(CASES)("$name", async (c) => {
      const response = await rawPost(server.rpcUrl, c.body, c.headers ?? { "content-type": "application/json" });
      expect(response.status).toBe(c.status);
      if (c.expect === "empty") expect(response.text).toBe("");
      else {
        expect(response.headers.get("content-type")).toMatch(/^application\/json/);
        expect(subset(response.json, c.expect), response.text).toBe(true);
      }
      expect(response.text).not.toMatch(/\bat .+\.(ts|js):\d+|<html|stack/i);
      expect(({} as Json).polluted).toBeUndefined();
      await stillServes();
    });

    it("GET on the JSON-RPC path → 405 with a JSON body", async () => {
      const response = await fetch(server.rpcUrl);
      expect(response.status).toBe(405);
      expect(((await response.json()) as Json).error).toMatchObject({ code: -32600 });
    });

    it("an executor's internal error is not leaked", async () => {
      const response = await rawPost(server.rpcUrl, send(20, { message: message({ parts: [{ kind: "text", text: "fail" }] }) }));
      expect(response.json).toMatchObject({ id: 20, result: { kind: "task", status: { state: "failed" } } });
      expect(response.text).not.toMatch(/hunter2|secret internals/);
    });

    it("SSE: heartbeats are sent, and a client that goes away frees its listener", async () => {
      const hb = await startServer("0.3.0", framework, { heartbeatMs: 20 });
      try {
        const controller = new AbortController();
        const response = await fetch(hb.rpcUrl, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "text/event-stream" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/stream", params: { message: message({ parts: [{ kind: "text", text: "slow" }] }) } }),
          signal: controller.signal,
        });
        expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
        const reader = (response.body as ReadableStream<Uint8Array>).getReader();
        let text = "";
        while (!/: ping/.test(text)) text += new TextDecoder().decode((await reader.read()).value);
        expect(hb.core.bus.listenerCount()).toBe(1);
        controller.abort();
        await reader.cancel().catch(() => undefined);
        const until = Date.now() + 2000;
        while (hb.core.bus.listenerCount() > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
        expect(hb.core.bus.listenerCount()).toBe(0);
      } finally {
        await hb.close();
      }
    });
  });
}

describe("capabilities the card does not declare", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer("0.3.0", "node", { streaming: false, pushNotifications: false });
  });
  afterAll(async () => server.close());

  it("streaming → UnsupportedOperationError, as the one event of an SSE stream", async () => {
    const response = await rawPost(server.rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/stream", params: { message: message() } }));
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(JSON.parse(response.text.replace(/^data: /, ""))).toMatchObject({ id: 1, error: { code: -32004 } });
  });

  it("push notifications → PushNotificationNotSupportedError", async () => {
    const response = await rawPost(
      server.rpcUrl,
      JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tasks/pushNotificationConfig/get", params: { id: "t" } }),
    );
    expect(response.json).toMatchObject({ id: 2, error: { code: -32003 } });
  });
});

describe("webhook SSRF guard", () => {
  let server: RunningServer;
  let taskId: string;
  beforeAll(async () => {
    server = await startServer("0.3.0", "node", { allow: [] });
    const created = await rawPost(server.rpcUrl, send(1, { message: message({ parts: [{ kind: "text", text: "ask" }] }) }));
    taskId = String(((created.json as Json).result as Json).id);
  });
  afterAll(async () => server.close());

  const set = (url: string) =>
    rawPost(server.rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tasks/pushNotificationConfig/set", params: { taskId, pushNotificationConfig: { url } } }));

  it.each([
    ["http://127.0.0.1:8080/hook", /loopback/],
    ["http://[::1]:8080/hook", /loopback/],
    ["http://10.0.0.1/hook", /private/],
    ["http://192.168.1.1/hook", /private/],
    ["http://169.254.169.254/latest/meta-data", /link-local|metadata/],
    ["http://localhost:8080/hook", /loopback/],
  ])("refuses %s by default", async (url, reason) => {
    const response = await set(url);
    expect(response.json).toMatchObject({ id: 5, error: { code: -32602, data: { url } } });
    expect(JSON.stringify((response.json as Json).error)).toMatch(reason);
  });

  it("accepts an allow-listed loopback webhook", async () => {
    const allowed = await startServer("0.3.0", "node", { allow: ["127.0.0.1"] });
    try {
      const created = await rawPost(allowed.rpcUrl, send(1, { message: message({ parts: [{ kind: "text", text: "ask" }] }) }));
      const id = String(((created.json as Json).result as Json).id);
      const response = await rawPost(
        allowed.rpcUrl,
        JSON.stringify({ jsonrpc: "2.0", id: 6, method: "tasks/pushNotificationConfig/set", params: { taskId: id, pushNotificationConfig: { url: "http://127.0.0.1:9/hook" } } }),
      );
      expect(response.json).toMatchObject({ id: 6, result: { taskId: id, pushNotificationConfig: { url: "http://127.0.0.1:9/hook" } } });
    } finally {
      await allowed.close();
    }
  });
});

describe("every version rejects malformed params the same way", () => {
  it.each(["0.1.0", "0.2.0", "0.2.5", "0.3.0"])("%s: a bad role → -32602 with the pointer", async (version) => {
    const m = await modules(version);
    const server = await startServer(version, "node");
    try {
      const method = m.protocol.A2A_PROFILE.methods.send as string;
      const params = version === "0.1.0" ? { id: "t1", message: { role: "bot", parts: [{ type: "text", text: "x" }] } } : { message: message({ role: "bot" }) };
      const response = await rawPost(server.rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }));
      expect(response.json).toMatchObject({ id: 1, error: { code: -32602, data: { issues: [{ pointer: "/params/message/role" }] } } });
    } finally {
      await server.close();
    }
  });
});
