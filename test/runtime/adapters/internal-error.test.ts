/**
 * A core that fails without an answer (the generated core never does: it answers its own errors; a body
 * that cannot be read, a core of the user's own) gets JSON-RPC's internal error from every adapter
 * (JSON-RPC 2.0 §5.1: -32603, status 500, no detail): never the framework's own error page (Express's has
 * the stack trace outside production) and never no answer (the Fastify adapter left the request hanging).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { modules } from "../../support/servers.js";

const INTERNAL_ERROR = { jsonrpc: "2.0", id: null, error: { code: -32603, message: "Internal error" } };
const failingCore = {
  limits: Object.freeze({ maxBodyBytes: 1024, bodyTimeoutMs: 1000 }),
  handles: () => true,
  isHealthPath: () => false,
  handle: async () => {
    throw new Error("a bug in the core, with a stack trace");
  },
  close: async () => undefined,
};
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function listen(server: Server): Promise<string> {
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

const adapters: Record<string, () => Promise<string>> = {
  node: async () => listen((await modules("0.3.0")).node.createNodeServer(failingCore as never)),
  express: async () => {
    const express = (await import("express")).default;
    const app = express();
    app.use((await modules("0.3.0")).express.a2aExpressRouter(failingCore as never));
    return listen(createServer(app));
  },
  "express after express.json()": async () => {
    const express = (await import("express")).default;
    const app = express();
    app.use(express.json());
    app.use((await modules("0.3.0")).express.a2aExpressRouter(failingCore as never));
    return listen(createServer(app));
  },
  fastify: async () => {
    const Fastify = (await import("fastify")).default;
    const app = Fastify({ logger: false, forceCloseConnections: true });
    await app.register((await modules("0.3.0")).fastify.a2aFastifyPlugin(failingCore as never));
    await app.listen({ port: 0, host: "127.0.0.1" });
    closers.push(() => app.close());
    return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  },
  hono: async () => {
    const m = await modules("0.3.0");
    let server: Server | undefined;
    const port = await new Promise<number>((resolve) => {
      server = m.honoNode.serveHono(failingCore as never, { port: 0, hostname: "127.0.0.1" }, (info) => resolve(info.port)) as unknown as Server;
    });
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          (server as Server).closeAllConnections();
          (server as Server).close(() => resolve());
        }),
    );
    return `http://127.0.0.1:${port}`;
  },
  "hono on a web Request": async () => {
    const { a2aHonoApp } = (await modules("0.3.0")).hono;
    const app = a2aHonoApp(failingCore as never);
    // No node bindings in the context: the adapter reads the web Request (as on an edge runtime).
    const server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const answer = await app.fetch(new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers: req.headers as Record<string, string>, body: Buffer.concat(chunks) }));
      res.writeHead(answer.status, Object.fromEntries(answer.headers));
      res.end(Buffer.from(await answer.arrayBuffer()));
    });
    return listen(server);
  },
};

describe("every adapter answers a core that fails with JSON-RPC's internal error (JSON-RPC 2.0 §5.1)", () => {
  for (const [name, start] of Object.entries(adapters)) {
    it(name, async () => {
      const base = await start();
      const answer = await fetch(`${base}/a2a`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"jsonrpc":"2.0","id":1,"method":"message/send","params":{}}', signal: AbortSignal.timeout(5000) });
      expect(answer.status).toBe(500);
      expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
      const text = await answer.text();
      expect(JSON.parse(text)).toEqual(INTERNAL_ERROR);
      expect(text).not.toContain("stack trace");
    });
  }
});
