/**
 * The observed store's spans (issue 34 item 1: child spans for store operations): every operation gets a
 * span under the call or turn that asked; on a network engine the operation runs with that span active, so
 * a driver instrumentation's spans (pg, mysql2, redis) nest in it; on an in-process engine (memory, SQLite, a Durable Object's SQLite)
 * nothing can start under it, and the span is not made active (no context switch per operation).
 */
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { A2AStore } from "../../../src/runtime/stores/contract.js";
import { InMemoryStore } from "../../../src/runtime/stores/memory.js";
import { observedStore } from "../../../src/runtime/telemetry/store.js";

const spans = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }).getTracer("test");
const duration = new MeterProvider().getMeter("test").createHistogram("d");
const manager = new AsyncLocalStorageContextManager();

beforeAll(() => {
  context.setGlobalContextManager(manager.enable());
});
afterAll(() => {
  manager.disable();
  context.disable();
});

/** The in-memory store under another engine's name; `tasks.get` notes the span active while it runs. */
function storeNamed(engine: string, seen: Array<string | undefined>): A2AStore {
  const store = new InMemoryStore();
  const get = store.tasks.get.bind(store.tasks);
  store.tasks.get = (...args: Parameters<typeof get>) => {
    seen.push(trace.getActiveSpan()?.spanContext().spanId);
    return get(...args);
  };
  Object.defineProperty(store, "engine", { value: engine });
  return store;
}

describe("store operation spans", () => {
  it.each([
    ["postgres", "the store span"],
    ["redis", "the store span"],
    ["memory", "the caller's span"],
    ["sqlite", "the caller's span"],
    ["durable-object", "the caller's span"],
  ])("on %s, the operation runs under %s", async (engine, expected) => {
    spans.reset();
    const seen: Array<string | undefined> = [];
    const store = observedStore(storeNamed(engine, seen), tracer, { duration, created: () => undefined });
    const turn = tracer.startSpan("turn");
    await context.with(trace.setSpan(context.active(), turn), () => store.tasks.get("no-such-task"));
    turn.end();
    const [storeSpan] = spans.getFinishedSpans().filter((s) => s.name === "a2a.store tasks.get");
    expect(storeSpan?.parentSpanContext?.spanId).toBe(turn.spanContext().spanId);
    expect(seen).toEqual([expected === "the store span" ? storeSpan?.spanContext().spanId : turn.spanContext().spanId]);
  });
});
