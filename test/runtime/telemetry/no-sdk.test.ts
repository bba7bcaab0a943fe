/**
 * Telemetry on, with no OpenTelemetry SDK behind the API (issue 37: "telemetry on with no SDK ≥ 90 % of
 * off"). A call or turn that no tracer records and no meter measures is run as it is: no context entered,
 * its answer not observed. Wherever one part is live, the call is observed as ever: a caller's trace is
 * handed on to the executor, and a meter counts calls by their method (with no context manager too: the
 * call's span is handed down with the call, not looked up in the active context).
 *
 * The process has what an application with a partial setup has: the AsyncLocalStorage context manager and
 * the W3C propagator registered, and no tracer or meter provider (the API's no-op ones).
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { context, propagation, ROOT_CONTEXT, trace, type Context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate, writeResult } from "../../../src/generate.js";
import { collected, ManualReader } from "../../support/metric-reading.js";
import { ROOT } from "../../support/project.js";

// Inside the repository so that the output resolves @opentelemetry/api.
const OUT = join(ROOT, "node_modules", ".cache", "a2a-codegen-telemetry-no-sdk", "a2a-1.0.1");

type Json = Record<string, unknown>;
type Answer = { kind: "json"; status: number; body: string } | { kind: "sse"; status: number; open(sink: { write(chunk: string): void; end(): void }): () => void };
interface Core {
  handle(request: Json): Promise<Answer>;
  close(): Promise<void>;
}
let createA2AServer: (options: Json) => Core;
let sendParams: (text: string) => Json;

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  writeResult(await generate({ spec: "1.0.1", frameworks: ["node"], telemetry: true, out: OUT, cwd: ROOT }), ROOT);
  ({ createA2AServer } = (await import(join(OUT, "server/core.ts"))) as { createA2AServer: typeof createA2AServer });
  ({ sendParams } = ((await import(join(OUT, "client.ts"))) as { A2AClient: { sendParams: typeof sendParams } }).A2AClient);
}, 60_000);

afterAll(() => {
  rmSync(join(OUT, ".."), { recursive: true, force: true });
  context.disable();
  propagation.disable();
});

const card: Json = {
  name: "Quiet agent",
  description: "Telemetry on, no SDK",
  version: "1.0.0",
  supportedInterfaces: [{ url: "http://127.0.0.1:1/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
  capabilities: { streaming: true, pushNotifications: false },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "echo", name: "Echo", description: "Echoes", tags: ["echo"] }],
};

/** An agent whose executor keeps the context each turn ran in; `telemetry` as ServerOptions takes it. */
function agent(telemetry: Json | false): { core: Core; contexts: Context[] } {
  const contexts: Context[] = [];
  const executor = {
    execute(ctx: { message: { parts: Array<{ text?: string }> } }, events: { working(): void; artifact(a: Json): void; completed(): void }) {
      contexts.push(context.active());
      events.working();
      events.artifact({ parts: [{ text: ctx.message.parts[0]?.text ?? "" }] });
      events.completed();
    },
  };
  return { core: createA2AServer({ card, executor, telemetry, heartbeatMs: 0 }), contexts };
}

let id = 0;
/** One JSON-RPC call, straight to the core (what an adapter hands it). */
function call(core: Core, method: string, params: Json, headers: Record<string, string> = {}): Promise<Answer> {
  const body = JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params });
  return core.handle({ method: "POST", path: "/a2a", query: new URLSearchParams(), headers: { "content-type": "application/json", "a2a-version": "1.0", ...headers }, body: Buffer.from(body) });
}

async function json(answer: Promise<Answer>): Promise<Json> {
  const a = await answer;
  if (a.kind !== "json") throw new Error(`a ${a.kind} answer, not JSON`);
  return JSON.parse(a.body) as Json;
}

/** The `data:` of each event of an SSE answer, parsed. */
async function events(answer: Promise<Answer>): Promise<Json[]> {
  const a = await answer;
  if (a.kind !== "sse") throw new Error(`a ${a.kind} answer, not SSE`);
  let text = "";
  await new Promise<void>((resolve) => a.open({ write: (chunk) => (text += chunk), end: resolve }));
  return [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!) as Json);
}

/** The result's task, with the ids that differ from server to server taken out. */
function shape(response: Json): unknown {
  return JSON.parse(JSON.stringify(response["result"] ?? response["error"]), (key, value: unknown) => (["id", "contextId", "taskId", "messageId", "artifactId", "timestamp"].includes(key) ? "…" : value));
}

describe("telemetry on with no SDK (no tracer or meter provider)", () => {
  it("answers as telemetry off does: a task, a stream and an error", async () => {
    const on = agent({});
    const off = agent(false);
    try {
      for (const text of ["one", "two"]) {
        const sent = await json(call(on.core, "SendMessage", sendParams(text)));
        expect(sent["result"]).toMatchObject({ task: { status: { state: "TASK_STATE_COMPLETED" }, artifacts: [{ parts: [{ text }] }] } });
        expect(shape(sent)).toEqual(shape(await json(call(off.core, "SendMessage", sendParams(text)))));
      }
      const streamed = await events(call(on.core, "SendStreamingMessage", sendParams("streamed")));
      expect(streamed.map(shape)).toEqual((await events(call(off.core, "SendStreamingMessage", sendParams("streamed")))).map(shape));
      expect(streamed.length).toBeGreaterThanOrEqual(3);
      const missing = await json(call(on.core, "GetTask", { id: "no-such-task" }));
      expect(missing["error"]).toEqual((await json(call(off.core, "GetTask", { id: "no-such-task" })))["error"]);
      expect((missing["error"] as Json)["code"]).toBe(-32001);
    } finally {
      await on.core.close();
      await off.core.close();
    }
  });

  it("runs the executor in the context it was called from: no span put in it, no context entered", async () => {
    const { core, contexts } = agent({});
    try {
      await json(call(core, "SendMessage", sendParams("quiet")));
      for await (const _ of await events(call(core, "SendStreamingMessage", sendParams("quiet stream")))) void _;
      expect(contexts).toHaveLength(2);
      for (const seen of contexts) {
        expect(trace.getSpan(seen)).toBeUndefined();
        expect(seen).toBe(ROOT_CONTEXT);
      }
    } finally {
      await core.close();
    }
  });

  it("hands a caller's trace (its traceparent) on to the executor: the call is observed, though nothing records it", async () => {
    const { core, contexts } = agent({});
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    try {
      await json(call(core, "SendMessage", sendParams("traced upstream"), { traceparent: `00-${traceId}-00f067aa0ba902b7-01` }));
      expect(contexts).toHaveLength(1);
      // The API's no-op tracer hands the caller's span context on (a non-recording span of the caller's trace).
      expect(trace.getSpanContext(contexts[0]!)?.traceId).toBe(traceId);
    } finally {
      await core.close();
    }
  });

  it("with a meter and no tracer: every call is counted under its method, turns and store operations are measured", async () => {
    const reader = new ManualReader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    const { core, contexts } = agent({ meterProvider });
    try {
      for (let i = 0; i < 3; i++) await json(call(core, "SendMessage", sendParams(`counted ${i}`)));
      await json(call(core, "GetTask", { id: "no-such-task" }));
      const metrics = await collected(reader);
      const point = (name: string, attributes: Json) => metrics.find((m) => m.descriptor.name === name)?.dataPoints.find((p) => JSON.stringify(p.attributes) === JSON.stringify(attributes))?.value;
      expect(point("a2a.server.request.count", { "a2a.binding": "JSONRPC", "a2a.method": "SendMessage" })).toBe(3);
      expect(point("a2a.server.request.count", { "a2a.binding": "JSONRPC", "a2a.method": "GetTask" })).toBe(1);
      expect(point("a2a.server.task.created", {})).toBe(3);
      expect(point("a2a.server.turn.duration", { "a2a.method": "SendMessage" })).toMatchObject({ count: 3 });
      const commits = point("a2a.server.store.duration", { "a2a.store.engine": "memory", "a2a.store.operation": "tasks.commit" }) as { count: number } | undefined;
      expect(commits?.count).toBeGreaterThanOrEqual(3);
      // No tracer: the turns saw no span.
      for (const seen of contexts) expect(trace.getSpan(seen)?.isRecording() ?? false).toBe(false);
    } finally {
      await core.close();
      await meterProvider.shutdown();
    }
  });

  it("with a meter and no context manager at all (an application that exports metrics only): calls are still counted under their method", async () => {
    context.disable();
    const reader = new ManualReader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    const { core } = agent({ meterProvider });
    try {
      for (let i = 0; i < 2; i++) await json(call(core, "SendMessage", sendParams(`counted ${i}`)));
      for await (const _ of await events(call(core, "SendStreamingMessage", sendParams("counted stream")))) void _;
      const metrics = await collected(reader);
      const count = metrics.find((m) => m.descriptor.name === "a2a.server.request.count")?.dataPoints.map((p) => [p.attributes, p.value]);
      expect(count).toEqual([
        [{ "a2a.binding": "JSONRPC", "a2a.method": "SendMessage" }, 2],
        [{ "a2a.binding": "JSONRPC", "a2a.method": "SendStreamingMessage" }, 1],
      ]);
    } finally {
      await core.close();
      await meterProvider.shutdown();
      context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    }
  });
});
