// The servers of one process of the telemetry bench (forked by bench/telemetry.bench.mjs): one A2A 0.3.0
// server (node:http adapter) per mode, each on its own port and each from its own copy of the compiled
// output (so no two servers share a module instance, and one's inline caches never see the other's objects).
// The servers of a process share what the process sets up for OpenTelemetry, so the bench runs the modes
// it compares with each other in one process, loaded in turn:
//
//   node bench/telemetry-target.mjs <setup> <memory|sqlite> <mode>=<build-dir> [<mode>=<build-dir> …]
//
// <setup>: none (no OpenTelemetry SDK), sdk (the SDK's tracer and meter providers registered, a span
// processor that drops every span, a metric reader never collected, the AsyncLocalStorage context manager)
// or sdk-http (the same with OpenTelemetry's HTTP instrumentation enabled: a server span per request, the
// active context while it runs, as an application with the SDK's auto-instrumentations has it).
// <mode>: plain (the build generated without --telemetry), off / off-sdk / off-sdk-http (generated with it,
// `telemetry: false`), noop / sdk / sdk-http (generated with it, telemetry on).
// The store: the in-memory one (default) or SQLite on a file of a temp folder, one per server.
// The agent: "hello" → a direct reply; "task" → working, one artifact, completed (as server-target.mjs).
// IPC: → {type:"ready", ports: {mode: port}}; ← {type:"cpu"} → {type:"cpu", user, system}; ← {type:"segment"}
// (before each measured segment, no request in flight) → {type:"segment"}; ← {type:"stop"} → exits.
//
// On Node 20, the first context an AsyncLocalStorage enters turns on promise hooks for the whole process,
// and they stay on while it is enabled. Where a mode never enters a context itself (off-sdk: the SDK
// registered, no instrumentation), sharing a process with one that does (sdk) would charge it for them, so
// each segment starts with the context manager's storage disabled, which turns the hooks off until the
// next context is entered (at once where the mode enters contexts, never where it does not).
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [setup, storeName, ...servers] = process.argv.slice(2);
if (!["none", "sdk", "sdk-http"].includes(setup)) throw new Error(`unknown setup ${setup}: none, sdk or sdk-http`);
if (storeName !== "memory" && storeName !== "sqlite") throw new Error(`unknown store ${storeName}: memory or sqlite`);

let contextManager;
if (setup !== "none") {
  const { context, metrics, propagation, trace } = await import("@opentelemetry/api");
  const { AsyncLocalStorageContextManager } = await import("@opentelemetry/context-async-hooks");
  const { W3CTraceContextPropagator } = await import("@opentelemetry/core");
  const { BasicTracerProvider } = await import("@opentelemetry/sdk-trace-base");
  const { MeterProvider, MetricReader } = await import("@opentelemetry/sdk-metrics");
  // A processor that takes every span and drops it: the SDK's cost without an exporter's.
  const drop = { onStart() {}, onEnd() {}, forceFlush: () => Promise.resolve(), shutdown: () => Promise.resolve() };
  class Never extends MetricReader {
    onForceFlush() { return Promise.resolve(); }
    onShutdown() { return Promise.resolve(); }
  }
  contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [drop] }));
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [new Never()] }));
  if (setup === "sdk-http") {
    // It patches node:http when the module is first required, which the require below does.
    const { HttpInstrumentation } = await import("@opentelemetry/instrumentation-http");
    new HttpInstrumentation().enable();
    createRequire(import.meta.url)("node:http");
  }
}

const card = {
  name: "Test Agent",
  description: "An agent for a2a-codegen's benches",
  url: "http://127.0.0.1:1/a2a",
  version: "1.0.0",
  capabilities: { streaming: true, pushNotifications: false },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "echo", name: "Echo", description: "Echoes", tags: ["test"] }],
  protocolVersion: "0.3.0",
};
const executor = {
  async execute(ctx, events) {
    if (ctx.text.trim() === "hello") return events.reply("hello back");
    events.working("on it");
    events.artifact({ artifactId: "result", name: "result", parts: [events.textPart("the result")] });
    events.completed("done");
  },
};

const running = []; // { server, core, store, storeDir }
const ports = {};
for (const spec of servers) {
  const [mode, buildDir] = spec.split("=");
  const load = (file) => import(pathToFileURL(join(buildDir, file)).href);
  const { createA2AServer } = await load("server/core.js");
  const { createNodeServer } = await load("server/node.js");
  let store;
  let storeDir;
  if (storeName === "sqlite") {
    const { SqliteStore } = await load("runtime/stores/sqlite.js");
    storeDir = mkdtempSync(join(tmpdir(), "a2a-telemetry-bench-sqlite-"));
    store = await SqliteStore.open({ path: join(storeDir, "agent.db") });
  }
  const core = createA2AServer({ card, executor, ...(store ? { store } : {}), ...(mode.startsWith("off") ? { telemetry: false } : {}) });
  const server = createNodeServer(core);
  await new Promise((listening) => server.listen(0, "127.0.0.1", listening));
  ports[mode] = server.address().port;
  running.push({ server, core, store, storeDir });
}
process.send({ type: "ready", ports });

process.on("message", async (message) => {
  if (message?.type === "cpu") process.send({ type: "cpu", ...process.cpuUsage() });
  if (message?.type === "segment") {
    contextManager?.disable();
    process.send({ type: "segment" });
  }
  if (message?.type === "stop") {
    for (const { server, core, store, storeDir } of running) {
      const closed = new Promise((done) => server.close(done));
      server.closeAllConnections?.();
      await closed;
      await core.close?.();
      await store?.close();
      if (storeDir) rmSync(storeDir, { recursive: true, force: true });
    }
    process.exit(0);
  }
});
