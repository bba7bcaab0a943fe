// One server of the telemetry bench, in its own process (forked by bench/telemetry.bench.mjs).
//
//   node bench/telemetry-target.mjs <mode> <build-dir> [memory|sqlite]
//
// <mode>: plain (the server generated without --telemetry), off (generated with it, `telemetry: false`,
// no OpenTelemetry SDK), off-sdk (the same with the SDK registered: what the application's SDK costs by
// itself, its context manager above all), noop (telemetry on, no SDK: the API's no-ops) or sdk (telemetry
// on, the SDK's tracer and meter providers registered, a span processor that drops every span, a metric
// reader never collected); off-sdk-http and sdk-http: off-sdk and sdk with OpenTelemetry's HTTP
// instrumentation enabled too (a server span per request, the active context while it runs). The store: the in-memory one (default) or SQLite on a file of a temp folder.
// The agent: "hello" → a direct reply; "task" → working, one artifact, completed (as server-target.mjs).
// IPC: → {type:"ready", port}; ← {type:"cpu"} → {type:"cpu", user, system}; ← {type:"stop"} → exits.
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [mode, buildDir, storeName = "memory"] = process.argv.slice(2);
const load = (file) => import(pathToFileURL(join(buildDir, file)).href);

const WITH_SDK = ["sdk", "off-sdk", "sdk-http", "off-sdk-http"];
if (WITH_SDK.includes(mode)) {
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
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [drop] }));
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [new Never()] }));
  if (mode.endsWith("-http")) {
    // OpenTelemetry's HTTP instrumentation, as an application with the SDK usually has it: a server span
    // per request, made the active context (so the process pays for AsyncLocalStorage either way). It
    // patches node:http when the module is first required, which the import below does.
    const { HttpInstrumentation } = await import("@opentelemetry/instrumentation-http");
    new HttpInstrumentation().enable();
    createRequire(import.meta.url)("node:http");
  }
} else if (mode !== "plain" && mode !== "off" && mode !== "noop") {
  throw new Error(`unknown mode ${mode}: plain, off, off-sdk, noop, sdk, off-sdk-http or sdk-http`);
}

const { createA2AServer } = await load("server/core.js");
const { createNodeServer } = await load("server/node.js");
let store;
let storeDir;
if (storeName === "sqlite") {
  const { SqliteStore } = await load("runtime/stores/sqlite.js");
  storeDir = mkdtempSync(join(tmpdir(), "a2a-telemetry-bench-sqlite-"));
  store = await SqliteStore.open({ path: join(storeDir, "agent.db") });
} else if (storeName !== "memory") {
  throw new Error(`unknown store ${storeName}: memory or sqlite`);
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
const core = createA2AServer({ card, executor, ...(store ? { store } : {}), ...(mode.startsWith("off") ? { telemetry: false } : {}) });
const server = createNodeServer(core);
server.listen(0, "127.0.0.1", () => process.send({ type: "ready", port: server.address().port }));
process.on("message", (message) => {
  if (message?.type === "cpu") process.send({ type: "cpu", ...process.cpuUsage() });
  if (message?.type === "stop") {
    server.close(async () => {
      await core.close?.();
      await store?.close();
      if (storeDir) rmSync(storeDir, { recursive: true, force: true });
      process.exit(0);
    });
    server.closeAllConnections?.();
  }
});
