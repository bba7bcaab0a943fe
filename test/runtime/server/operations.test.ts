/**
 * Operating an agent (issue 34 items 2-4) on every adapter: the liveness and readiness endpoints (readiness
 * reports the store; never in the card), CORS (preflight and actual answers, streams included, on the
 * JSON-RPC and HTTP+JSON bindings) and graceful shutdown's refusals (`close({ graceMs })`: 503 with
 * Retry-After in each binding's error form, 1.0.1 §3.3.2; readiness 503 while draining; liveness 200).
 */
import { afterEach, describe, expect, it } from "vitest";
import { FRAMEWORKS, startServer, type RunningServer } from "../../support/servers.js";

type Json = Record<string, unknown>;
const V1 = { "content-type": "application/json", "a2a-version": "1.0" };
const PAGE = "http://127.0.0.1:8123";
const message = (text: string) => ({ messageId: `m-${Math.random()}`, role: "ROLE_USER", parts: [{ text }] });
const rpc = (method: string, params: unknown) => JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });

const running: RunningServer[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.close();
});

async function start(framework: (typeof FRAMEWORKS)[number], options: Json = {}): Promise<RunningServer> {
  const server = await startServer("1.0.1", framework, { rest: true, options });
  running.push(server);
  return server;
}

/** A store that answers everything but its ping: what readiness sees of an engine that went away. */
async function storeWithPing(ping: () => Promise<void>) {
  const { InMemoryStore } = await import("../../../generated/a2a-1.0.1/runtime/stores/memory.js");
  const store = new InMemoryStore();
  return Object.assign(store, { ping });
}

for (const framework of FRAMEWORKS) {
  describe(`operations on ${framework}`, () => {
    it("liveness and readiness: 200 with the store's engine, never cached, not in the agent card", async () => {
      const server = await start(framework);
      const live = await fetch(`${server.baseUrl}/healthz`);
      expect(live.status).toBe(200);
      expect(await live.json()).toEqual({ status: "ok" });
      expect(live.headers.get("cache-control")).toBe("no-store");
      const ready = await fetch(`${server.baseUrl}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: "ready", draining: false, store: { engine: "memory", status: "up" } });
      const card = await (await fetch(`${server.baseUrl}/.well-known/agent-card.json`)).text();
      expect(card).not.toMatch(/healthz|readyz/);
      expect((await fetch(`${server.baseUrl}/readyz`, { method: "POST" })).status).toBe(405);
    });

    it("readiness is 503 while the store does not answer (liveness stays 200); paths are configurable or off", async () => {
      let up = false;
      const store = await storeWithPing(async () => {
        if (!up) throw new Error("connect ECONNREFUSED 127.0.0.1:5432");
      });
      const server = await start(framework, { store, health: { livenessPath: "/live", readinessPath: "/ready" } });
      const down = await fetch(`${server.baseUrl}/ready`);
      expect(down.status).toBe(503);
      // The engine's error goes to the log, not to the caller.
      expect(await down.json()).toEqual({ status: "not ready", draining: false, store: { engine: "memory", status: "down" } });
      expect((await fetch(`${server.baseUrl}/live`)).status).toBe(200);
      up = true;
      expect((await fetch(`${server.baseUrl}/ready`)).status).toBe(200);
      expect((await fetch(`${server.baseUrl}/healthz`)).status).not.toBe(200);
      const off = await start(framework, { health: false });
      expect((await fetch(`${off.baseUrl}/healthz`)).status).not.toBe(200);
      expect((await fetch(`${off.baseUrl}/readyz`)).status).not.toBe(200);
    });

    it("CORS: preflights of both bindings answered, actual answers and streams carry the headers; another origin is refused", async () => {
      const server = await start(framework, { cors: { origins: [PAGE], credentials: true, maxAgeSeconds: 60 } });
      for (const path of ["/a2a", "/a2a/message:send", "/a2a/message:stream", "/a2a/tasks/t-1:subscribe"]) {
        const preflight = await fetch(`${server.baseUrl}${path}`, {
          method: "OPTIONS",
          headers: { origin: PAGE, "access-control-request-method": "POST", "access-control-request-headers": "a2a-version,a2a-extensions,authorization,content-type,last-event-id" },
        });
        expect(preflight.status, path).toBe(204);
        expect(preflight.headers.get("access-control-allow-origin")).toBe(PAGE);
        expect(preflight.headers.get("access-control-allow-credentials")).toBe("true");
        expect(preflight.headers.get("access-control-max-age")).toBe("60");
        expect(preflight.headers.get("access-control-allow-methods")).toMatch(/POST/);
        const allowed = (preflight.headers.get("access-control-allow-headers") ?? "").toLowerCase().split(/,\s*/);
        for (const header of ["a2a-version", "a2a-extensions", "authorization", "content-type", "last-event-id"]) expect(allowed).toContain(header);
      }
      const other = await fetch(`${server.baseUrl}/a2a`, { method: "OPTIONS", headers: { origin: "http://evil.example", "access-control-request-method": "POST" } });
      expect(other.headers.get("access-control-allow-origin")).toBeNull();

      const call = await fetch(`${server.baseUrl}/a2a`, { method: "POST", headers: { ...V1, origin: PAGE }, body: rpc("SendMessage", { message: message("task") }) });
      expect(call.status).toBe(200);
      expect(call.headers.get("access-control-allow-origin")).toBe(PAGE);
      expect(call.headers.get("access-control-expose-headers")).toMatch(/A2A-Extensions/);
      expect(call.headers.get("vary")).toMatch(/Origin/);
      const rest = await fetch(`${server.baseUrl}/a2a/message:stream`, { method: "POST", headers: { ...V1, origin: PAGE }, body: JSON.stringify({ message: message("stream") }) });
      expect(rest.headers.get("content-type")).toMatch(/text\/event-stream/);
      expect(rest.headers.get("access-control-allow-origin")).toBe(PAGE);
      expect(await rest.text()).toMatch(/TASK_STATE_COMPLETED/);
      const refused = await fetch(`${server.baseUrl}/a2a`, { method: "POST", headers: { ...V1, origin: "http://evil.example" }, body: rpc("SendMessage", { message: message("hello") }) });
      expect(refused.headers.get("access-control-allow-origin")).toBeNull();
      // Off by default: no Access-Control-* headers at all.
      const plain = await start(framework);
      const answer = await fetch(`${plain.baseUrl}/a2a`, { method: "POST", headers: { ...V1, origin: PAGE }, body: rpc("SendMessage", { message: message("hello") }) });
      expect(answer.headers.get("access-control-allow-origin")).toBeNull();
    });

    it("close({ graceMs }): new calls get 503 with Retry-After on both bindings, readiness 503 draining, liveness 200; the running turn's stream ends", async () => {
      const server = await start(framework, { cors: { origins: "*" } });
      const core = server.core as unknown as { close(options?: { graceMs?: number }): Promise<void>; draining: boolean };
      const stream = await fetch(`${server.baseUrl}/a2a`, { method: "POST", headers: V1, body: rpc("SendStreamingMessage", { message: message("slow") }) });
      const reader = stream.body!.getReader();
      await reader.read();
      const closing = core.close({ graceMs: 400 });
      expect(core.draining).toBe(true);
      const jsonrpc = await fetch(`${server.baseUrl}/a2a`, { method: "POST", headers: { ...V1, origin: PAGE }, body: rpc("SendMessage", { message: message("hello") }) });
      expect(jsonrpc.status).toBe(503);
      expect(jsonrpc.headers.get("retry-after")).toBe("1");
      expect(jsonrpc.headers.get("access-control-allow-origin")).toBe("*");
      expect(await jsonrpc.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32603, message: expect.stringMatching(/shutting down/) } });
      const rest = await fetch(`${server.baseUrl}/a2a/message:send`, { method: "POST", headers: V1, body: JSON.stringify({ message: message("hello") }) });
      expect(rest.status).toBe(503);
      expect(rest.headers.get("retry-after")).toBe("1");
      expect(await rest.json()).toMatchObject({ error: { code: 503, status: "UNAVAILABLE" } });
      const ready = await fetch(`${server.baseUrl}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ status: "not ready", draining: true, store: { status: "up" } });
      expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
      await closing;
      // The turn outlived the grace period: its stream was ended cleanly (no error event), to be resumed elsewhere.
      let rest_ = "";
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        rest_ += new TextDecoder().decode(value);
      }
      expect(rest_).not.toMatch(/"error"/);
    });
  });
}

describe("an app's own health route", () => {
  it("Fastify: a route the app registered at exactly a health path answers it; the other health path stays the core's", async () => {
    const server = await start("fastify");
    const { a2aFastifyPlugin } = await import("../../../generated/a2a-1.0.1/server/fastify.js");
    const Fastify = (await import("fastify")).default;
    const app = Fastify({ logger: false });
    app.get("/healthz", async () => ({ ok: true }));
    await app.register(a2aFastifyPlugin(server.core as never));
    try {
      expect((await app.inject({ method: "GET", url: "/healthz" })).json()).toEqual({ ok: true });
      expect((await app.inject({ method: "GET", url: "/readyz" })).json()).toMatchObject({ status: "ready" });
    } finally {
      await app.close();
    }
  });
});
