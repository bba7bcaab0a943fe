/**
 * The Fastify adapter (server/fastify.ts) answers JSON through Fastify's own reply, so that the app's
 * hooks apply to A2A answers as to its other routes, and writes streams to the raw response (what a
 * failing core gets: internal-error.test.ts).
 */
import type { AddressInfo } from "node:net";
import Fastify from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { modules, testCard, testExecutor } from "../../support/servers.js";

const apps: Array<{ close(): Promise<unknown> }> = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function serve(register: (app: ReturnType<typeof Fastify>) => Promise<void>): Promise<string> {
  const app = Fastify({ logger: false, forceCloseConnections: true });
  apps.push(app);
  await register(app);
  await app.listen({ port: 0, host: "127.0.0.1" });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

const send = (text: string) =>
  JSON.stringify({ jsonrpc: "2.0", id: 7, method: "message/send", params: { message: { kind: "message", role: "user", messageId: "m-1", parts: [{ kind: "text", text }] } } });

describe("Fastify adapter", () => {
  it("answers JSON through Fastify's reply: the app's onSend hooks see A2A answers", async () => {
    const m = await modules("0.3.0");
    const core = m.core.createA2AServer({ card: testCard("0.3.0") as never, executor: testExecutor() as never, rpcPath: "/a2a", logger: { error: () => undefined, warn: () => undefined } });
    const seen: string[] = [];
    const base = await serve(async (app) => {
      app.addHook("onSend", async (request, reply, payload) => {
        seen.push(`${request.method} ${request.url}`);
        reply.header("x-app-hook", "ran");
        return payload;
      });
      await app.register(m.fastify.a2aFastifyPlugin(core));
    });
    apps.push(core);

    const answer = await fetch(`${base}/a2a`, { method: "POST", headers: { "content-type": "application/json" }, body: send("hello") });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-app-hook")).toBe("ran");
    expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
    const body = (await answer.json()) as { jsonrpc: string; id: number; result: { kind: string; parts: Array<{ text: string }> } };
    expect(body).toMatchObject({ jsonrpc: "2.0", id: 7, result: { kind: "message" } });
    // A JSON-RPC error is JSON too: same path (an unknown method, JSON-RPC 2.0 §5.1 -32601).
    const unknown = await fetch(`${base}/a2a`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"jsonrpc":"2.0","id":1,"method":"no/such"}' });
    expect(((await unknown.json()) as { error: { code: number } }).error.code).toBe(-32601);
    // Another media type reaches the core too (its own 415 answer, through the catch-all parser).
    const text = await fetch(`${base}/a2a`, { method: "POST", headers: { "content-type": "text/plain" }, body: send("hello") });
    expect(text.status).toBe(415);
    expect(((await text.json()) as { error: { code: number } }).error.code).toBe(-32600);
    expect(seen).toEqual(["POST /a2a", "POST /a2a", "POST /a2a"]);
  });

  it("writes a stream to the raw response, events in order", async () => {
    const m = await modules("0.3.0");
    const core = m.core.createA2AServer({ card: testCard("0.3.0") as never, executor: testExecutor() as never, rpcPath: "/a2a", heartbeatMs: 0, logger: { error: () => undefined, warn: () => undefined } });
    const base = await serve(async (app) => app.register(m.fastify.a2aFastifyPlugin(core)));
    apps.push(core);
    const body = send("task").replace('"message/send"', '"message/stream"');
    const answer = await fetch(`${base}/a2a`, { method: "POST", headers: { "content-type": "application/json", accept: "text/event-stream" }, body });
    expect(answer.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const frames = (await answer.text()).split("\n\n").filter((f) => f.includes("data: "));
    const kinds = frames.map((f) => (JSON.parse(f.slice(f.indexOf("data: ") + 6)) as { result: { kind: string } }).result.kind);
    expect(kinds[0]).toBe("task");
    expect(kinds.at(-1)).toBe("status-update");
    expect(kinds).toContain("artifact-update");
  });
});
