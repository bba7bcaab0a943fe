/**
 * OpenTelemetry in generated code (`--telemetry`, issue 34 item 1): emitted and loaded only when chosen,
 * strict TypeScript, and working as emitted with the OpenTelemetry SDK's in-memory exporters: one client
 * call is one client span and one server span of the same trace on each binding; a streamed turn has its
 * executor span with store and push child spans; the push webhook gets the turn's `traceparent`; metrics
 * read back under a2a-dotnet's names; spans go out over OTLP/HTTP to a receiver.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { context, propagation } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate, writeResult, type GenerateResult } from "../../../src/generate.js";
import { collected, ManualReader } from "../../support/metric-reading.js";
import { ROOT } from "../../support/project.js";
import { enginesUnderTest, freshNamespace } from "../../support/stores/engines-under-test.js";
import type { A2AStore } from "../../../src/runtime/stores/contract.js";

// Inside the repository so that the output resolves @opentelemetry/api, @grpc/grpc-js and protobufjs.
const OUT = join(ROOT, "node_modules", ".cache", "a2a-codegen-telemetry", "a2a-1.0.1");
const tsc = join(ROOT, "node_modules", ".bin", "tsc");

let traced: GenerateResult;
let plain: GenerateResult;
const spans = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
const reader = new ManualReader();
const meterProvider = new MeterProvider({ readers: [reader] });

type Json = Record<string, unknown>;
interface Loaded {
  core: { createA2AServer(options: Json): { close(): Promise<void>; service: unknown } };
  node: { createNodeServer(core: unknown): Server };
  grpc: { serveGrpc(core: unknown, options?: Json): Promise<{ port: number; close(): Promise<void> }> };
  client: {
    A2AClient: {
      fromCard(card: Json, options?: Json): {
        sendMessage(params: Json): Promise<Json>;
        sendStreamingMessage(params: Json): AsyncGenerator<Json>;
      };
      sendParams(text: string, options?: Json): Json;
    };
    restTransport: unknown;
  };
  grpcClient: { grpcTransport: unknown };
}
let m: Loaded;

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  traced = await generate({ spec: "1.0.1", transports: ["grpc"], frameworks: ["node"], telemetry: true, out: OUT, cwd: ROOT });
  plain = await generate({ spec: "1.0.1", transports: ["grpc"], frameworks: ["node"], out: OUT, cwd: ROOT });
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  writeResult(traced, ROOT);
  const load = (file: string) => import(join(OUT, file));
  m = { core: await load("server/core.ts"), node: await load("server/node.ts"), grpc: await load("server/grpc.ts"), client: await load("client.ts"), grpcClient: await load("grpc-client.ts") };
});

afterAll(async () => {
  rmSync(join(OUT, ".."), { recursive: true, force: true });
  context.disable();
  propagation.disable();
  await tracerProvider.shutdown();
  await meterProvider.shutdown();
});

const imports = (text: string) => [...text.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)].map((x) => x[1]);

describe("emitting telemetry", () => {
  it("without --telemetry nothing of it is emitted and nothing imports @opentelemetry/api", () => {
    expect(Object.keys(plain.files).filter((f) => f.includes("telemetry/"))).toEqual([]);
    for (const [file, text] of Object.entries(plain.files)) expect(imports(text).filter((i) => i?.startsWith("@opentelemetry/")), file).toEqual([]);
  });

  it("--telemetry adds runtime/telemetry/, and only those files import @opentelemetry/api (and nothing else of OpenTelemetry)", () => {
    const files = Object.keys(traced.files).filter((f) => f.startsWith("runtime/telemetry/"));
    expect(files.sort()).toEqual(["client.ts", "http-answer.ts", "metrics.ts", "names.ts", "options.ts", "propagation.ts", "server.ts", "store.ts"].map((f) => `runtime/telemetry/${f}`));
    for (const [file, text] of Object.entries(traced.files)) {
      const otel = imports(text).filter((i) => i?.startsWith("@opentelemetry/"));
      for (const name of otel) expect(name, file).toBe("@opentelemetry/api");
      if (otel.length > 0) expect(file.startsWith("runtime/telemetry/"), file).toBe(true);
    }
    expect(traced.files["server/core.ts"]).toMatch(/from "\.\.\/runtime\/telemetry\/server\.js"/);
    expect(traced.files["client.ts"]).toMatch(/from "\.\/runtime\/telemetry\/client\.js"/);
  });

  it("compiles under the strict settings of generated code (1.0.1 with gRPC; 0.3.0 and 0.2.6 with every framework)", async () => {
    for (const spec of ["0.3.0", "0.2.6"]) writeResult(await generate({ spec, frameworks: ["node", "express", "fastify", "hono"], telemetry: true, out: join(OUT, "..", `a2a-${spec}`), cwd: ROOT }), ROOT);
    const config = JSON.parse(readFileSync(join(ROOT, "test/types/tsconfig.json"), "utf8")) as { compilerOptions: Record<string, unknown>; include: string[] };
    config.include = ["./a2a-*/**/*.ts"];
    const file = join(OUT, "..", "tsconfig.json");
    writeFileSync(file, JSON.stringify(config));
    const run = spawnSync(tsc, ["-p", file], { encoding: "utf8" });
    expect(run.stdout + run.stderr).toBe("");
    expect(run.status).toBe(0);
  }, 120_000);
});

/** A webhook receiver on 127.0.0.1: the requests it got, with their headers. */
async function webhook(): Promise<{ url: string; got: Array<{ headers: IncomingHttpHeaders; body: Json }>; close(): Promise<void> }> {
  const got: Array<{ headers: IncomingHttpHeaders; body: Json }> = [];
  const server = createServer((req, res) => {
    let text = "";
    req.on("data", (c: Buffer) => (text += c.toString("utf8")));
    req.on("end", () => {
      got.push({ headers: req.headers, body: JSON.parse(text) as Json });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

/** An agent on JSON-RPC, HTTP+JSON and gRPC (one core), observed by the test's providers. */
async function agent(telemetry: Json | false = { tracerProvider, meterProvider }) {
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  http.close();
  const card: Json = {
    name: "Traced agent",
    description: "Echoes, observed",
    version: "1.0.0",
    supportedInterfaces: [
      { url: `${base}/a2a`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: `${base}/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
      { url: "127.0.0.1:0", protocolBinding: "GRPC", protocolVersion: "1.0" },
    ],
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "echo", name: "Echo", description: "Echoes", tags: ["echo"] }],
  };
  const executor = {
    async execute(ctx: { message: { parts: Array<{ text?: string }> } }, events: { working(): void; artifact(a: Json): void; completed(): void }) {
      // An LLM framework's span, made inside the turn: it nests under the turn's span.
      await tracerProvider.getTracer("llm-framework").startActiveSpan("llm.generate", async (span) => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        span.end();
      });
      events.working();
      events.artifact({ parts: [{ text: ctx.message.parts[0]?.text ?? "" }] });
      events.completed();
    },
  };
  const core = m.core.createA2AServer({ card, executor, transports: ["GRPC"], telemetry, pushNotifications: { allow: ["127.0.0.1"], retries: 0, timeoutMs: 2000 }, logger: { error: () => undefined, warn: () => undefined } });
  const server = m.node.createNodeServer(core);
  await new Promise<void>((resolve) => server.listen(Number(new URL(base).port), "127.0.0.1", resolve));
  const grpc = await m.grpc.serveGrpc(core, { port: 0 });
  const interfaces = card["supportedInterfaces"] as Json[];
  interfaces[2] = { ...interfaces[2], url: `127.0.0.1:${grpc.port}` };
  return {
    card,
    core: core as unknown as { handle(request: Json): Promise<Json> },
    client: (binding: string) => m.client.A2AClient.fromCard(card, { binding, transports: [m.client.restTransport, m.grpcClient.grpcTransport], telemetry }),
    async close() {
      await grpc.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await core.close();
    },
  };
}

const kindName = (s: ReadableSpan) => ["INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER"][s.kind];
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

describe("traces and metrics of a generated agent and client", () => {
  let a: Awaited<ReturnType<typeof agent>>;
  beforeAll(async () => {
    a = await agent();
  });
  afterAll(async () => {
    await a?.close();
  });

  for (const binding of ["JSONRPC", "HTTP+JSON", "GRPC"]) {
    it(`${binding}: one client call is one client span and one server span of the same trace, the server's a child of the client's`, async () => {
      spans.reset();
      const result = await a.client(binding).sendMessage(m.client.A2AClient.sendParams(`hi over ${binding}`));
      expect(result["task"]).toBeDefined();
      await until(() => spans.getFinishedSpans().some((s) => s.name.startsWith("a2a.turn")), "the turn span");
      const all = spans.getFinishedSpans();
      const clients = all.filter((s) => kindName(s) === "CLIENT" && s.name.startsWith("a2a.client"));
      const servers = all.filter((s) => kindName(s) === "SERVER");
      expect(clients.map((s) => s.name)).toEqual(["a2a.client SendMessage"]);
      expect(servers.map((s) => s.name)).toEqual(["a2a.server SendMessage"]);
      const [client, server] = [clients[0]!, servers[0]!];
      expect(server.spanContext().traceId).toBe(client.spanContext().traceId);
      expect(parentOf(server)).toBe(client.spanContext().spanId);
      expect(server.attributes).toMatchObject({ "a2a.method": "SendMessage", "a2a.binding": binding, "a2a.protocol.version": "1.0.1" });
      expect(server.attributes["a2a.task.id"]).toBe((result["task"] as Json)["id"]);
      expect(server.attributes["a2a.context.id"]).toBe((result["task"] as Json)["contextId"]);
      expect(server.attributes["a2a.principal"]).toBeUndefined();
      expect(client.attributes).toMatchObject({ "a2a.method": "SendMessage", "a2a.binding": binding });
      // The turn, and the LLM framework's span inside it.
      const turn = all.find((s) => s.name === "a2a.turn")!;
      expect(parentOf(turn)).toBe(server.spanContext().spanId);
      const llm = all.find((s) => s.name === "llm.generate")!;
      expect(parentOf(llm)).toBe(turn.spanContext().spanId);
    });
  }

  it("an error is the server span's error code (JSON-RPC: the A2A code; HTTP+JSON: the HTTP status) and the client span's", async () => {
    spans.reset();
    const client = a.client("JSONRPC") as unknown as { getTask(params: Json): Promise<Json> };
    await expect(client.getTask({ id: "no-such-task" })).rejects.toThrow();
    const server = spans.getFinishedSpans().find((s) => kindName(s) === "SERVER")!;
    expect(server.name).toBe("a2a.server GetTask");
    expect(server.attributes["a2a.error.code"]).toBe(-32001); // TaskNotFoundError (1.0.1 §3.3.2 / §5.4)
    expect(server.status.code).toBe(2);
    const clientSpan = spans.getFinishedSpans().find((s) => s.name === "a2a.client GetTask")!;
    expect(clientSpan.attributes["a2a.error.code"]).toBe(-32001);
    spans.reset();
    await expect((a.client("HTTP+JSON") as unknown as { getTask(params: Json): Promise<Json> }).getTask({ id: "no-such-task" })).rejects.toThrow();
    expect(spans.getFinishedSpans().find((s) => kindName(s) === "SERVER")!.attributes["a2a.error.code"]).toBe(404);
    spans.reset();
    await expect((a.client("GRPC") as unknown as { getTask(params: Json): Promise<Json> }).getTask({ id: "no-such-task" })).rejects.toThrow();
    const grpcServer = spans.getFinishedSpans().find((s) => kindName(s) === "SERVER")!;
    expect(grpcServer.name).toBe("a2a.server GetTask");
    expect(grpcServer.attributes["a2a.error.code"]).toBe(5); // NOT_FOUND (1.0.1 §5.4)
  });

  it("under a span already active (an HTTP server instrumentation's), the server span is its child, not the headers' caller's", async () => {
    spans.reset();
    const foreign = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "none" } });
    const request = { method: "POST", path: "/a2a", query: new URLSearchParams(), headers: { "content-type": "application/json", "a2a-version": "1.0", traceparent: foreign }, body };
    const outer = tracerProvider.getTracer("http-instrumentation");
    await outer.startActiveSpan("POST /a2a", async (http) => {
      await a.core.handle(request);
      http.end();
    });
    const http = spans.getFinishedSpans().find((s) => s.name === "POST /a2a")!;
    const server = spans.getFinishedSpans().find((s) => s.name === "a2a.server GetTask")!;
    expect(parentOf(server)).toBe(http.spanContext().spanId);
    expect(server.spanContext().traceId).toBe(http.spanContext().traceId);
    // Without one, the headers' caller is the parent (W3C Trace Context).
    spans.reset();
    await a.core.handle(request);
    const alone = spans.getFinishedSpans().find((s) => s.name === "a2a.server GetTask")!;
    expect(alone.spanContext().traceId).toBe("0af7651916cd43dd8448eb211c80319c");
    expect(parentOf(alone)).toBe("b7ad6b7169203331");
  });

  it("the principal is recorded only when configured (recordPrincipal); a refused call is the span of no method, failed 401", async () => {
    const card = {
      ...a.card,
      supportedInterfaces: [(a.card["supportedInterfaces"] as Json[])[0]],
      securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } } },
      securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    };
    const auth = { verify: (credential: { value: string }) => (credential.value === "good" ? { allow: true, principal: { sub: "alice" } } : false) };
    const core = m.core.createA2AServer({ card, executor: { execute: (_c: unknown, e: { completed(): void }) => e.completed() }, auth, telemetry: { tracerProvider, meterProvider, recordPrincipal: (p: { sub: string }) => p.sub } });
    const server = m.node.createNodeServer(core);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/a2a`;
      const post = (token: string) =>
        fetch(url, { method: "POST", headers: { "content-type": "application/json", "a2a-version": "1.0", authorization: `Bearer ${token}` }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: m.client.A2AClient.sendParams("hi") }) });
      spans.reset();
      expect((await post("good")).status).toBe(200);
      await until(() => spans.getFinishedSpans().some((s) => kindName(s) === "SERVER"), "the server span");
      expect(spans.getFinishedSpans().find((s) => kindName(s) === "SERVER")!.attributes["a2a.principal"]).toBe("alice");
      spans.reset();
      expect((await post("bad")).status).toBe(401);
      const refused = spans.getFinishedSpans().find((s) => kindName(s) === "SERVER")!;
      expect(refused.name).toBe("a2a.server");
      expect(refused.attributes["a2a.error.code"]).toBe(401);
      expect(refused.attributes["a2a.principal"]).toBeUndefined();
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await core.close();
    }
  });

  it("a streamed turn: the executor's turn span has store and push child spans; the webhook gets the turn's trace context", async () => {
    const hook = await webhook();
    try {
      spans.reset();
      const params = m.client.A2AClient.sendParams("stream me", {});
      (params as { configuration?: Json }).configuration = { taskPushNotificationConfig: { url: hook.url, token: "t" } };
      const events: Json[] = [];
      for await (const event of a.client("JSONRPC").sendStreamingMessage(params)) events.push(event);
      expect(events.length).toBeGreaterThan(1);
      await until(() => hook.got.length > 0 && spans.getFinishedSpans().some((s) => s.name === "a2a.push"), "the push notification");
      const all = spans.getFinishedSpans();
      const server = all.find((s) => s.name === "a2a.server SendStreamingMessage")!;
      const turn = all.find((s) => s.name === "a2a.turn")!;
      expect(turn.attributes).toMatchObject({ "a2a.method": "SendStreamingMessage", "a2a.streaming": true });
      expect(parentOf(turn)).toBe(server.spanContext().spanId);
      const stores = all.filter((s) => s.name.startsWith("a2a.store ") && parentOf(s) === turn.spanContext().spanId);
      expect(stores.map((s) => s.name)).toContain("a2a.store tasks.commit");
      const push = all.find((s) => s.name === "a2a.push")!;
      expect(parentOf(push)).toBe(turn.spanContext().spanId);
      expect(push.attributes).toMatchObject({ "a2a.outcome": "delivered", "http.response.status_code": 200 });
      // The webhook's request carries the trace context: the turn's trace, the push span as parent (W3C traceparent).
      const traceparent = hook.got[0]!.headers["traceparent"];
      expect(traceparent).toBe(`00-${turn.spanContext().traceId}-${push.spanContext().spanId}-01`);
      expect(hook.got[0]!.headers["x-a2a-notification-token"]).toBe("t");
    } finally {
      await hook.close();
    }
  });

  it("metrics read back with a2a-dotnet's names and ours, counted per call", async () => {
    await reader.collect(); // a fresh start: cumulative sums are compared before and after
    const before = await sums();
    const client = a.client("JSONRPC");
    for (let i = 0; i < 3; i++) await client.sendMessage(m.client.A2AClient.sendParams(`load ${i}`));
    await expect((client as unknown as { getTask(p: Json): Promise<Json> }).getTask({ id: "missing" })).rejects.toThrow();
    for await (const _ of a.client("GRPC").sendStreamingMessage(m.client.A2AClient.sendParams("stream"))) void _;
    let received = 0;
    for await (const _ of a.client("JSONRPC").sendStreamingMessage(m.client.A2AClient.sendParams("stream"))) received++;
    const after = await sums();
    const delta = (name: string, match: Json = {}) => (after.get(key(name, match)) ?? 0) - (before.get(key(name, match)) ?? 0);
    expect(delta("a2a.server.request.count", { "a2a.method": "SendMessage", "a2a.binding": "JSONRPC" })).toBe(3);
    expect(delta("a2a.server.request.count", { "a2a.method": "GetTask", "a2a.binding": "JSONRPC" })).toBe(1);
    expect(delta("a2a.server.error.count", { "a2a.method": "GetTask", "a2a.binding": "JSONRPC", "a2a.error.code": -32001 })).toBe(1);
    expect(delta("a2a.server.task.created")).toBe(5);
    expect(delta("a2a.server.request.count", { "a2a.method": "SendStreamingMessage", "a2a.binding": "GRPC" })).toBe(1);
    expect(delta("a2a.server.stream.event.count", { "a2a.binding": "GRPC" })).toBeGreaterThanOrEqual(3);
    // Every event once, though one write of the SSE stream may carry several.
    expect(delta("a2a.server.stream.event.count", { "a2a.binding": "JSONRPC" })).toBe(received);
    expect(delta("a2a.client.stream.event.count", { "a2a.method": "SendStreamingMessage", "a2a.binding": "JSONRPC" })).toBe(received);
    expect(delta("a2a.server.stream.active", { "a2a.binding": "GRPC" })).toBe(0);
    expect(delta("a2a.client.request.count", { "a2a.method": "SendMessage", "a2a.binding": "JSONRPC" })).toBe(3);
    expect(delta("a2a.client.error.count", { "a2a.method": "GetTask", "a2a.binding": "JSONRPC", "a2a.error.code": -32001 })).toBe(1);
    expect(delta("a2a.client.stream.event.count", { "a2a.method": "SendStreamingMessage", "a2a.binding": "GRPC" })).toBeGreaterThanOrEqual(3);
    // Histograms: their counts.
    expect(delta("a2a.server.request.duration#count", { "a2a.method": "SendMessage", "a2a.binding": "JSONRPC" })).toBe(3);
    expect(delta("a2a.server.turn.duration#count", { "a2a.method": "SendMessage" })).toBe(3);
    expect(delta("a2a.server.store.duration#count", { "a2a.store.engine": "memory", "a2a.store.operation": "tasks.commit" })).toBeGreaterThanOrEqual(4);
    const units = await unitsOf();
    expect(units.get("a2a.server.request.duration")).toBe("ms");
    expect(units.get("a2a.client.request.duration")).toBe("ms");
  });
});

describe("a stream that answers with an error event (0.3.0: every answer of a streaming method is SSE)", () => {
  it("marks the server span failed with the event's error code", async () => {
    const out = join(OUT, "..", "a2a-0.3.0-stream");
    writeResult(await generate({ spec: "0.3.0", frameworks: ["node"], telemetry: true, out, cwd: ROOT }), ROOT);
    const core = (await import(join(out, "server/core.ts"))) as Loaded["core"];
    const node = (await import(join(out, "server/node.ts"))) as Loaded["node"];
    const card = { name: "Old", description: "0.3.0", url: "http://127.0.0.1:1/a2a", version: "1.0.0", protocolVersion: "0.3.0", capabilities: { streaming: true }, defaultInputModes: ["text/plain"], defaultOutputModes: ["text/plain"], skills: [{ id: "s", name: "S", description: "S", tags: ["s"] }] };
    const served = core.createA2AServer({ card, executor: { execute: () => undefined }, telemetry: { tracerProvider, meterProvider } });
    const server = node.createNodeServer(served);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      spans.reset();
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/a2a`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tasks/resubscribe", params: { id: "no-such-task" } }),
      });
      expect(response.headers.get("content-type")).toMatch(/text\/event-stream/);
      expect(await response.text()).toMatch(/"error":\{"code":-32001/);
      await until(() => spans.getFinishedSpans().some((s) => kindName(s) === "SERVER"), "the server span");
      const span = spans.getFinishedSpans().find((s) => kindName(s) === "SERVER")!;
      expect(span.name).toBe("a2a.server tasks/resubscribe");
      expect(span.attributes["a2a.error.code"]).toBe(-32001); // TaskNotFoundError (specification-0.3.0.md §8.2)
      expect(span.status.code).toBe(2);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await served.close();
    }
  });
});

// Every engine under test: memory and SQLite always; PostgreSQL and Redis when their URLs are set (`source .ci/engines.sh`).
const { engines } = enginesUnderTest("the telemetry take-over test");

describe.each(engines.map((e) => [e.name, e] as const))("a turn resumed by take-over (%s store)", (engine, under) => {
  it("continues the trace of the call that started it, on the instance that took the task over (its trace context kept in the task's event log)", async () => {
    // Two instances' stores in one namespace of the engine (two connections, or the one in-memory store).
    const ns = freshNamespace();
    const stores = { a: (await under.open(ns)) as unknown as Json, b: (await under.open(ns)) as unknown as Json };
    const shared = stores.a;
    let dead = false;
    // Instance A's view of the store: once "dead", every call fails as a lost engine would (A can no longer renew its lease).
    const wrap = (part: object) =>
      new Proxy(part, {
        get(target, key) {
          const value: unknown = Reflect.get(target, key, target);
          if (typeof value !== "function") return value;
          if (key === "subscribe") return (...args: unknown[]) => (value as (...a: unknown[]) => unknown).apply(target, args);
          return async (...args: unknown[]) => {
            if (dead) throw Object.assign(new Error("connection lost"), { name: "StoreUnavailableError" });
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      });
    const dying = { engine, tasks: wrap(shared["tasks"] as object), pushConfigs: wrap(shared["pushConfigs"] as object), events: wrap(shared["events"] as object), outbox: wrap(shared["outbox"] as object), leases: wrap(shared["leases"] as object), purgeFinished: () => Promise.resolve(0), close: () => Promise.resolve() };
    const executor = {
      resumable: true,
      async execute(c: { method: string; signal: AbortSignal }, events: { working(t: string): void; completed(t: string): void }) {
        if (c.method === "resume") return events.completed("resumed");
        events.working("started");
        while (!c.signal.aborted) await new Promise((resolve) => setTimeout(resolve, 5));
      },
    };
    const card = { name: "Resumable", description: "Resumes", version: "1.0.0", supportedInterfaces: [{ url: "http://127.0.0.1:1/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }], capabilities: { streaming: true }, defaultInputModes: ["text/plain"], defaultOutputModes: ["text/plain"], skills: [{ id: "s", name: "S", description: "S", tags: ["s"] }] };
    const make = (store: object, instanceId: string) =>
      m.core.createA2AServer({ card, executor, store, instanceId, leaseMs: 300, pushNotifications: false, telemetry: { tracerProvider, meterProvider }, logger: { error: () => undefined, warn: () => undefined } });
    const a = make(dying, "A");
    const b = make(stores.b, "B");
    const before = await sums();
    spans.reset();
    const server = m.node.createNodeServer(a);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/a2a`;
      const client = m.client.A2AClient.fromCard({ ...card, supportedInterfaces: [{ url, protocolBinding: "JSONRPC", protocolVersion: "1.0" }] }, { telemetry: { tracerProvider, meterProvider } });
      const sent = await client.sendMessage({ ...m.client.A2AClient.sendParams("job"), configuration: { returnImmediately: true } });
      const taskId = (sent["task"] as Json)["id"];
      await until(() => spans.getFinishedSpans().some((s) => s.name === "a2a.server SendMessage"), "the call's span");
      dead = true;
      await until(() => spans.getFinishedSpans().some((s) => s.name === "a2a.turn" && s.attributes["a2a.method"] === "resume"), "the resumed turn");
      const call = spans.getFinishedSpans().find((s) => s.name === "a2a.server SendMessage")!;
      const resumed = spans.getFinishedSpans().find((s) => s.name === "a2a.turn" && s.attributes["a2a.method"] === "resume")!;
      expect(resumed.attributes["a2a.task.id"]).toBe(taskId);
      expect(resumed.spanContext().traceId).toBe(call.spanContext().traceId);
      expect(parentOf(resumed)).toBe(call.spanContext().spanId);
      const after = await sums();
      expect((after.get(key("a2a.server.lease.takeover.count", { "a2a.outcome": "resumed" })) ?? 0) - (before.get(key("a2a.server.lease.takeover.count", { "a2a.outcome": "resumed" })) ?? 0)).toBe(1);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // A is closed (its execution stopped) before its store comes back: nothing of it runs on afterwards.
      await a.close();
      await b.close();
      dead = false;
      await (stores.a as unknown as A2AStore).close();
      if (stores.b !== stores.a) await (stores.b as unknown as A2AStore).close();
      await under.drop(ns);
    }
  });
});

describe("telemetry off", () => {
  it("`telemetry: false` on a server generated with --telemetry records nothing", async () => {
    const off = await agent(false);
    try {
      spans.reset();
      const sent = await off.client("JSONRPC").sendMessage(m.client.A2AClient.sendParams("quiet"));
      const taskId = (sent["task"] as Json)["id"];
      await new Promise((resolve) => setTimeout(resolve, 20));
      // No server, client or turn span of this agent's (store spans exist only under those). An instance of an
      // earlier test may still be finishing its turn: its spans are not this agent's.
      const ours = spans.getFinishedSpans().filter((s) => /^a2a\.(server|client)\b/.test(s.name) || s.attributes["a2a.task.id"] === taskId);
      expect(ours).toEqual([]);
    } finally {
      await off.close();
    }
  });
});

describe("export over OTLP/HTTP", () => {
  it("the spans of a call reach an OTLP/HTTP receiver through the real exporter", async () => {
    const received: Array<{ path: string; body: Buffer; type: string | undefined }> = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        received.push({ path: req.url ?? "", body: Buffer.concat(chunks), type: req.headers["content-type"] });
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/traces`;
    const otlp = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url }))] });
    const exported = await agentWith(otlp);
    try {
      await exported.client("JSONRPC").sendMessage(m.client.A2AClient.sendParams("exported"));
      await otlp.forceFlush();
      await until(() => ["a2a.turn", "a2a.client SendMessage"].every((name) => received.some((r) => r.body.toString("utf8").includes(name))), "the exported spans");
      const text = received.map((r) => r.body.toString("utf8")).join("\n");
      expect(received[0]!.path).toBe("/v1/traces");
      for (const name of ["a2a.client SendMessage", "a2a.server SendMessage", "a2a.turn"]) expect(text).toContain(`"${name}"`);
      expect(text).toContain('"a2a.method"');
    } finally {
      await exported.close();
      await otlp.shutdown();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });
});

async function agentWith(provider: BasicTracerProvider) {
  return agent({ tracerProvider: provider, meterProvider });
}

function key(name: string, attributes: Json): string {
  return `${name}|${JSON.stringify(Object.entries(attributes).sort(([x], [y]) => x.localeCompare(y)))}`;
}

/** Every sum and histogram count by name and attribute set (histogram counts as `<name>#count`). */
async function sums(): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const metric of await collected(reader)) {
    for (const point of metric.dataPoints) {
      const value = point.value as number | { count: number };
      const name = typeof value === "number" ? metric.descriptor.name : `${metric.descriptor.name}#count`;
      out.set(key(name, point.attributes as Json), typeof value === "number" ? value : value.count);
    }
  }
  return out;
}

async function unitsOf(): Promise<Map<string, string>> {
  return new Map((await collected(reader)).map((metric) => [metric.descriptor.name, metric.descriptor.unit]));
}
