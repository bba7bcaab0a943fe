/**
 * The Fastify plugin claims no route an app's other plugins need (issue 34 item 4): it registers no route at
 * all, so that a CORS plugin registering `OPTIONS *` (as @fastify/cors does) and a catch-all `GET /*` (as
 * @fastify/static's wildcard mode, or an app's SPA fallback) start without FST_ERR_DUPLICATED_ROUTE, in
 * either registration order, and the app's hooks run before the A2A answers as before its own routes. @fastify/cors is not installed here: the plugin
 * below does what it does (a non-encapsulated plugin, marked as fastify-plugin marks it, with an
 * `onRequest` hook answering preflights and an `OPTIONS *` route), so that the test exercises the same routes.
 */
import type { AddressInfo } from "node:net";
import Fastify, { type FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { modules, testCard, testExecutor } from "../../support/servers.js";

const apps: Array<{ close(): Promise<unknown> }> = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

const PAGE = "http://127.0.0.1:8123";

/** What @fastify/cors registers: a hook of the whole app answering preflights, and `OPTIONS *` so that they reach it. */
function corsLikePlugin() {
  const plugin = async (fastify: FastifyInstance) => {
    fastify.addHook("onRequest", async (request, reply) => {
      reply.header("access-control-allow-origin", PAGE);
      if (request.method === "OPTIONS" && request.headers["access-control-request-method"] !== undefined) {
        await reply.code(204).header("access-control-allow-headers", "a2a-version, content-type").header("x-answered-by", "cors-plugin").send();
      }
    });
    fastify.options("*", async (_request, reply) => reply.send());
  };
  return Object.assign(plugin, { [Symbol.for("skip-override")]: true, [Symbol.for("fastify.display-name")]: "cors-like" });
}

async function serve(order: "a2a-first" | "cors-first", cors?: object): Promise<string> {
  const m = await modules("1.0.1");
  const core = m.core.createA2AServer({ card: testCard("1.0.1") as never, executor: testExecutor() as never, rpcPath: "/a2a", heartbeatMs: 0, ...(cors ? { cors } : {}), logger: { error: () => undefined, warn: () => undefined } });
  const app = Fastify({ logger: false, forceCloseConnections: true });
  apps.push(app, core);
  if (order === "a2a-first") {
    await app.register(m.fastify.a2aFastifyPlugin(core));
    await app.register(corsLikePlugin());
  } else {
    await app.register(corsLikePlugin());
    await app.register(m.fastify.a2aFastifyPlugin(core));
  }
  // The app's own routes beside the plugin's, OPTIONS included.
  app.get("/app/status", async () => ({ app: "ok" }));
  app.get("/*", async () => ({ wildcard: "app" }));
  app.options("/app/thing", async (_request, reply) => reply.code(200).send({ options: "app" }));
  await app.listen({ port: 0, host: "127.0.0.1" });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

describe("Fastify plugin beside a CORS plugin (as @fastify/cors registers itself)", () => {
  for (const order of ["a2a-first", "cors-first"] as const) {
    it(`starts (${order}) and the CORS plugin answers the A2A paths' preflights; the app keeps its own routes`, async () => {
      const base = await serve(order);
      const preflight = await fetch(`${base}/a2a`, { method: "OPTIONS", headers: { origin: PAGE, "access-control-request-method": "POST" } });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get("x-answered-by")).toBe("cors-plugin");
      const call = await fetch(`${base}/a2a`, {
        method: "POST",
        headers: { origin: PAGE, "content-type": "application/json", "a2a-version": "1.0" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { messageId: "m-1", role: "ROLE_USER", parts: [{ text: "hello" }] } } }),
      });
      expect(call.status).toBe(200);
      expect(call.headers.get("access-control-allow-origin")).toBe(PAGE);
      expect(await call.json()).toMatchObject({ id: 1, result: { message: { role: "ROLE_AGENT" } } });
      expect(await (await fetch(`${base}/app/status`)).json()).toEqual({ app: "ok" });
      expect(await (await fetch(`${base}/assets/app.js`)).json()).toEqual({ wildcard: "app" });
      // The agent card is the agent's, not the wildcard's.
      expect(await (await fetch(`${base}/.well-known/agent-card.json`)).json()).toMatchObject({ name: "Test Agent" });
      expect(await (await fetch(`${base}/app/thing`, { method: "OPTIONS" })).json()).toEqual({ options: "app" });
    });
  }

  it("with the server's own `cors` option and no CORS plugin, the plugin's hook answers the preflight", async () => {
    const m = await modules("1.0.1");
    const core = m.core.createA2AServer({ card: testCard("1.0.1") as never, executor: testExecutor() as never, rpcPath: "/a2a", cors: { origins: [PAGE] }, logger: { error: () => undefined, warn: () => undefined } });
    const app = Fastify({ logger: false, forceCloseConnections: true });
    apps.push(app, core);
    await app.register(m.fastify.a2aFastifyPlugin(core));
    app.options("/app/thing", async (_request, reply) => reply.code(200).send({ options: "app" }));
    await app.listen({ port: 0, host: "127.0.0.1" });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const preflight = await fetch(`${base}/a2a`, { method: "OPTIONS", headers: { origin: PAGE, "access-control-request-method": "POST", "access-control-request-headers": "a2a-version" } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe(PAGE);
    expect(preflight.headers.get("access-control-allow-headers")).toMatch(/A2A-Version/);
    // A path that is not the agent's is the app's.
    expect(await (await fetch(`${base}/app/thing`, { method: "OPTIONS" })).json()).toEqual({ options: "app" });
  });
});
