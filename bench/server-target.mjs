// One server under load, in its own process (forked by bench/server.bench.mjs, never run by hand).
//
//   node bench/server-target.mjs <target> <build-dir> <burst-events>
//
// <target>: node | express | fastify | hono (the generated A2A 0.3.0 server with that adapter),
// bare (a plain node:http JSON echo, the upper bound), bare-express / bare-hono (the framework's own
// minimal JSON echo route: the upper bound of an adapter on that framework), floor-node / floor-fastify
// (the generated adapter over a stub core that only parses and answers: the adapter's own cost) or sdk
// (@a2a-js/sdk's Express server).
// <build-dir>: the generated/a2a-0.3.0 folder compiled to JavaScript by the parent.
//
// Every target behaves like test/support/servers.ts's test agent for the texts the bench sends:
// "hello" → a direct message reply; "task" → working, one artifact, completed; "burst" → working,
// <burst-events> artifact chunks of one artifact (a yield to the event loop every 32), then completed.
//
// IPC with the parent: → {type:"ready", port}; ← {type:"mem", gc?} → {type:"mem", ...memoryUsage()};
// ← {type:"cpu"} → {type:"cpu", ...cpuUsage(), at};
// ← {type:"profile-start"} / {type:"profile-stop", file} (inspector CPU profile of that window);
// ← {type:"stop"} → exits.
import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [target, buildDir, burstArg] = process.argv.slice(2);
const BURST = Number(burstArg ?? 1000);
const YIELD_EVERY = 32;
const tick = () => new Promise((resolve) => setImmediate(resolve));

// The test harness's testCard("0.3.0"), without push notifications: with the capability on, the SDK
// logs an error line for every event of a task without a push config, which would measure its console.
const card = {
  name: "Test Agent",
  description: "An agent for a2a-codegen's tests",
  url: "http://127.0.0.1:1/a2a",
  version: "1.0.0",
  capabilities: { streaming: true, pushNotifications: false },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "echo", name: "Echo", description: "Echoes", tags: ["test"] }],
  protocolVersion: "0.3.0",
};

const load = (file) => import(pathToFileURL(join(buildDir, file)).href);

/** The test agent of the harness, for the generated server's EventPublisher. */
const generatedExecutor = {
  async execute(ctx, events) {
    const text = ctx.text.trim();
    switch (text) {
      case "hello":
        events.reply("hello back");
        return;
      case "task":
        events.working("on it");
        events.artifact({ artifactId: "result", name: "result", parts: [events.textPart("the result")] });
        events.completed("done");
        return;
      case "burst":
        events.working();
        for (let i = 0; i < BURST; i++) {
          events.artifact(
            { artifactId: "story", name: "story", parts: [events.textPart(`token ${i} `)] },
            { append: i > 0, lastChunk: i === BURST - 1 },
          );
          if (i % YIELD_EVERY === YIELD_EVERY - 1) await tick();
        }
        events.completed("the end");
        return;
      default:
        events.completed(`echo: ${text}`);
    }
  },
};

/** The same agent for @a2a-js/sdk (its AgentExecutor / ExecutionEventBus API, as in its README). */
const sdkExecutor = {
  async execute(ctx, bus) {
    const { taskId, contextId, userMessage } = ctx;
    const text = (userMessage.parts ?? []).filter((p) => p.kind === "text").map((p) => p.text).join("\n").trim();
    const agentMessage = (t) => ({ kind: "message", role: "agent", messageId: randomUUID(), parts: [{ kind: "text", text: t }], taskId, contextId });
    const status = (state, message, final = false) => ({
      kind: "status-update",
      taskId,
      contextId,
      status: { state, ...(message ? { message } : {}), timestamp: new Date().toISOString() },
      final,
    });
    if (text === "hello") {
      // With the taskId, as the generated server's reply has it (and the SDK's push hook wants it).
      bus.publish({ kind: "message", role: "agent", messageId: randomUUID(), parts: [{ kind: "text", text: "hello back" }], taskId, contextId });
      bus.finished();
      return;
    }
    if (!ctx.task) {
      bus.publish({ kind: "task", id: taskId, contextId, status: { state: "submitted", timestamp: new Date().toISOString() }, history: [userMessage] });
    }
    if (text === "task") {
      bus.publish(status("working", agentMessage("on it")));
      bus.publish({ kind: "artifact-update", taskId, contextId, artifact: { artifactId: "result", name: "result", parts: [{ kind: "text", text: "the result" }] } });
      bus.publish(status("completed", agentMessage("done"), true));
    } else if (text === "burst") {
      bus.publish(status("working"));
      for (let i = 0; i < BURST; i++) {
        bus.publish({
          kind: "artifact-update",
          taskId,
          contextId,
          artifact: { artifactId: "story", name: "story", parts: [{ kind: "text", text: `token ${i} ` }] },
          append: i > 0,
          lastChunk: i === BURST - 1,
        });
        if (i % YIELD_EVERY === YIELD_EVERY - 1) await tick();
      }
      bus.publish(status("completed", agentMessage("the end"), true));
    } else {
      bus.publish(status("completed", agentMessage(`echo: ${text}`), true));
    }
    bus.finished();
  },
  async cancelTask() {},
};

// ---------------------------------------------------------------------------------------------------
// The bare upper bound: node:http, read the body, JSON.parse, answer the same result shapes with
// JSON.stringify (no validation, no store, no event bus). SSE: the same framing, written in a loop.

function bareServer() {
  const now = () => new Date().toISOString();
  const message = (text, taskId, contextId) => ({ kind: "message", role: "agent", messageId: randomUUID(), parts: [{ kind: "text", text }], ...(taskId ? { taskId } : {}), contextId });
  return createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      let rpc;
      try {
        rpc = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        res.writeHead(400).end();
        return;
      }
      const user = rpc.params?.message ?? {};
      const text = (Array.isArray(user.parts) ? user.parts : []).map((p) => p.text ?? "").join("\n").trim();
      const contextId = randomUUID();
      const taskId = randomUUID();
      if (rpc.method === "message/stream") {
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform", connection: "keep-alive" });
        const event = (result) => res.write(`data: ${JSON.stringify({ jsonrpc: "2.0", id: rpc.id, result })}\n\n`);
        void (async () => {
          event({ kind: "task", id: taskId, contextId, status: { state: "submitted", timestamp: now() }, history: [{ ...user, taskId, contextId }] });
          event({ kind: "status-update", taskId, contextId, status: { state: "working", timestamp: now() }, final: false });
          for (let i = 0; i < BURST; i++) {
            event({ kind: "artifact-update", taskId, contextId, artifact: { artifactId: "story", name: "story", parts: [{ kind: "text", text: `token ${i} ` }] }, append: i > 0, lastChunk: i === BURST - 1 });
            if (i % YIELD_EVERY === YIELD_EVERY - 1) await tick();
          }
          event({ kind: "status-update", taskId, contextId, status: { state: "completed", message: message("the end", taskId, contextId), timestamp: now() }, final: true });
          res.end();
        })();
        return;
      }
      let result;
      if (rpc.method === "SendMessage") {
        // A2A 1.0 (the client bench): a direct reply in the wrapped 1.0 shape.
        result = { message: { role: "ROLE_AGENT", messageId: randomUUID(), parts: [{ text: "hello back" }], contextId } };
      } else if (text === "hello") result = message("hello back", taskId, contextId);
      else {
        const working = message("on it", taskId, contextId);
        const done = message("done", taskId, contextId);
        result = {
          kind: "task",
          id: taskId,
          contextId,
          status: { state: "completed", message: done, timestamp: now() },
          history: [{ ...user, taskId, contextId }, working, done],
          artifacts: [{ artifactId: "result", name: "result", parts: [{ kind: "text", text: "the result" }] }],
        };
      }
      const body = JSON.stringify({ jsonrpc: "2.0", id: rpc.id, result });
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      res.end(body);
    });
  });
}

// ---------------------------------------------------------------------------------------------------

const listen = (server) =>
  new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server.address().port));
  });

/** The answer of the bare echoes to one parsed request body (no validation, no store, no event bus). */
function bareAnswer(rpc) {
  const now = () => new Date().toISOString();
  const user = rpc?.params?.message ?? {};
  const text = (Array.isArray(user.parts) ? user.parts : []).map((p) => p.text ?? "").join("\n").trim();
  const contextId = randomUUID();
  const taskId = randomUUID();
  const message = (t) => ({ kind: "message", role: "agent", messageId: randomUUID(), parts: [{ kind: "text", text: t }], taskId, contextId });
  if (text === "hello") return { jsonrpc: "2.0", id: rpc.id, result: message("hello back") };
  const done = message("done");
  return {
    jsonrpc: "2.0",
    id: rpc.id,
    result: {
      kind: "task",
      id: taskId,
      contextId,
      status: { state: "completed", message: done, timestamp: now() },
      history: [{ ...user, taskId, contextId }, message("on it"), done],
      artifacts: [{ artifactId: "result", name: "result", parts: [{ kind: "text", text: "the result" }] }],
    },
  };
}

/** The framework's own minimal JSON echo route: its JSON body parser, then the bare answer. */
async function bareFramework(name) {
  if (name === "express") {
    const express = (await import("express")).default;
    const app = express();
    app.post("/a2a", express.json({ limit: "10mb" }), (req, res) => void res.json(bareAnswer(req.body)));
    return listen(createServer(app));
  }
  const { Hono } = await import("hono");
  const { serve } = await import("@hono/node-server");
  const app = new Hono();
  app.post("/a2a", async (c) => c.json(bareAnswer(await c.req.json())));
  return new Promise((resolve) => serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) => resolve(info.port)));
}

/**
 * The floor of an adapter: the generated node:http or Fastify adapter (its body reading under the limit,
 * its response writing) over a stub core that only JSON.parses the body and answers the bare echo's
 * JSON.stringify'd answer. What the adapter costs before any A2A work (envelope checks, validation, the
 * task runtime): the most an A2A server on that adapter can reach.
 */
function stubCore() {
  const decoder = new TextDecoder();
  return {
    limits: Object.freeze({ maxBodyBytes: 10 * 1024 * 1024, bodyTimeoutMs: 30_000 }),
    handles: (path) => path === "/a2a",
    isHealthPath: () => false,
    async handle(request) {
      const body = request.body;
      const rpc = JSON.parse(typeof body === "string" ? body : decoder.decode(body));
      return { kind: "json", status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(bareAnswer(rpc)) };
    },
    async close() {},
  };
}

async function start() {
  if (target === "bare") return listen(bareServer());
  if (target === "floor-node") {
    const { createNodeServer } = await load("server/node.js");
    return listen(createNodeServer(stubCore()));
  }
  if (target === "floor-fastify") {
    const { a2aFastifyPlugin } = await load("server/fastify.js");
    const Fastify = (await import("fastify")).default;
    const app = Fastify({ logger: false });
    await app.register(a2aFastifyPlugin(stubCore()));
    await app.listen({ port: 0, host: "127.0.0.1" });
    return app.server.address().port;
  }
  if (target === "bare-express") return bareFramework("express");
  if (target === "bare-hono") return bareFramework("hono");
  if (target === "sdk") {
    const { DefaultRequestHandler, InMemoryTaskStore } = await import("@a2a-js/sdk/server");
    const { A2AExpressApp } = await import("@a2a-js/sdk/server/express");
    const express = (await import("express")).default;
    const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), sdkExecutor);
    const app = new A2AExpressApp(handler).setupRoutes(express(), "/a2a");
    return listen(createServer(app));
  }
  const { createA2AServer } = await load("server/core.js");
  const core = createA2AServer({
    card,
    executor: generatedExecutor,
    rpcPath: "/a2a",
    heartbeatMs: 0,
    logger: { error: (m, d) => console.error(m, d), warn: () => undefined },
  });
  if (target === "node") {
    const { createNodeServer } = await load("server/node.js");
    return listen(createNodeServer(core));
  }
  if (target === "express") {
    const { a2aExpressRouter } = await load("server/express.js");
    const express = (await import("express")).default;
    const app = express();
    app.use(a2aExpressRouter(core));
    app.use((_req, res) => void res.status(404).json({ error: "not a2a" }));
    return listen(createServer(app));
  }
  if (target === "fastify") {
    const { a2aFastifyPlugin } = await load("server/fastify.js");
    const Fastify = (await import("fastify")).default;
    const app = Fastify({ logger: false });
    await app.register(a2aFastifyPlugin(core));
    await app.listen({ port: 0, host: "127.0.0.1" });
    return app.server.address().port;
  }
  if (target === "hono") {
    const { serveHono } = await load("server/hono-node.js");
    return new Promise((resolve) => serveHono(core, { port: 0, hostname: "127.0.0.1" }, (info) => resolve(info.port)));
  }
  throw new Error(`unknown target ${target}`);
}

let session;
process.on("message", async (msg) => {
  try {
    if (msg.type === "mem") {
      if (msg.gc && globalThis.gc) {
        globalThis.gc();
        globalThis.gc();
      }
      process.send({ type: "mem", ...process.memoryUsage() });
    } else if (msg.type === "cpu") {
      process.send({ type: "cpu", ...process.cpuUsage(), at: performance.now() });
    } else if (msg.type === "profile-start") {
      const inspector = await import("node:inspector/promises");
      session = new inspector.Session();
      session.connect();
      await session.post("Profiler.enable");
      await session.post("Profiler.setSamplingInterval", { interval: msg.intervalUs ?? 250 });
      await session.post("Profiler.start");
      process.send({ type: "profile-started" });
    } else if (msg.type === "profile-stop") {
      const { profile } = await session.post("Profiler.stop");
      writeFileSync(msg.file, JSON.stringify(profile));
      session.disconnect();
      process.send({ type: "profile-stopped", file: msg.file });
    } else if (msg.type === "stop") {
      process.exit(0);
    }
  } catch (error) {
    process.send({ type: "error", message: String(error?.stack ?? error) });
  }
});
process.on("disconnect", () => process.exit(0));

start().then(
  (port) => process.send({ type: "ready", port }),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
