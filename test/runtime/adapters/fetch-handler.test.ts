// The web-standard entry (runtime/adapters/web.ts createFetchHandler): a core factory called once, with
// the first request; the work after a response (a non-blocking send's turn, push delivery) handed to a
// Workers ExecutionContext's waitUntil as core.idle(), which settles only once that work is done.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFetchHandler } from "../../../src/runtime/adapters/web.js";
import { modules, testCard, testExecutor } from "../../support/servers.js";

const VERSION = "0.3.0";
type Json = Record<string, unknown>;
const rpc = (method: string, params: unknown) =>
  new Request("http://agent.test/a2a", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
const message = (text: string) => ({ kind: "message", role: "user", messageId: `m-${Math.random()}`, parts: [{ kind: "text", text }] });

describe("createFetchHandler", () => {
  const hooks: Json[] = [];
  let hook: Server;
  let hookUrl: string;
  beforeAll(async () => {
    hook = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => (hooks.push(JSON.parse(body) as Json), res.end()));
    });
    await new Promise<void>((resolve) => hook.listen(0, "127.0.0.1", resolve));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
  });
  afterAll(() => new Promise<void>((resolve) => (hook.closeAllConnections(), hook.close(() => resolve()))));

  const makeCore = async () =>
    (await modules(VERSION)).core.createA2AServer({
      card: testCard(VERSION) as never,
      executor: testExecutor() as never,
      rpcPath: "/a2a",
      heartbeatMs: 0,
      pushNotifications: { allow: ["127.0.0.1"], retries: 0 },
      logger: { error: () => undefined, warn: () => undefined },
    });

  it("makes the core once, from the first request", async () => {
    const core = await makeCore();
    const seen: string[] = [];
    const handler = createFetchHandler((request) => (seen.push(request.url), core as never));
    for (const text of ["hello", "hello"]) expect((await (await handler(rpc("message/send", { message: message(text) }))).json()) as Json).toMatchObject({ result: { kind: "message" } });
    expect(seen).toEqual(["http://agent.test/a2a"]);
    await core.close();
  });

  it("hands core.idle() to ctx.waitUntil: it settles once the turn that goes on after the answer ended and its push notification was sent", async () => {
    const core = await makeCore();
    const background: Array<Promise<unknown>> = [];
    const ctx = { waitUntil: (promise: Promise<unknown>) => void background.push(promise) };
    const handler = createFetchHandler(core as never);
    const sent = (await (await handler(rpc("message/send", { message: message("slow"), configuration: { blocking: false, pushNotificationConfig: { url: hookUrl } } }), {}, ctx)).json()) as { result: { id: string; status: { state: string } } };
    expect(["submitted", "working"]).toContain(sent.result.status.state);
    expect(background).toHaveLength(1);
    let settled = false;
    void background[0]!.then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled).toBe(false); // the slow turn still runs
    await handler(rpc("tasks/cancel", { id: sent.result.id }), {}, ctx);
    await background[0];
    // By then the canceled state's notification has been delivered.
    expect(hooks.some((h) => h["id"] === sent.result.id && (h["status"] as Json)["state"] === "canceled")).toBe(true);
    await core.close();
  });

  it("a Deno or Bun second argument (no waitUntil) is ignored", async () => {
    const core = await makeCore();
    const response = await createFetchHandler(core as never)(rpc("message/send", { message: message("hello") }), { remoteAddr: {} });
    expect(response.status).toBe(200);
    await core.close();
  });
});
