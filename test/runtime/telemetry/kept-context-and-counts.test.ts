/**
 * Two pieces of the server's telemetry that carry no protocol: the trace context the runtime keeps (W3C
 * `traceparent`, written and read from the span context itself, whatever propagator is registered), and
 * the counts kept in the process and observed at collection (shared by every server on one meter, so that
 * their sums add up).
 */
import { propagation, ROOT_CONTEXT, trace, TraceFlags } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { AggregationTemporality, MeterProvider, MetricReader, type MetricData } from "@opentelemetry/sdk-metrics";
import { afterEach, describe, expect, it } from "vitest";
import { contextOfTraceparent, traceparentOf } from "../../../src/runtime/telemetry/propagation.js";
import { serverInstruments } from "../../../src/runtime/telemetry/metrics.js";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN_ID = "00f067aa0ba902b7";

describe("the kept trace context (W3C traceparent)", () => {
  afterEach(() => propagation.disable());

  it("is written from the span context, with its flags as two hex digits", () => {
    const sampled = trace.setSpanContext(ROOT_CONTEXT, { traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: TraceFlags.SAMPLED });
    const unsampled = trace.setSpanContext(ROOT_CONTEXT, { traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: TraceFlags.NONE });
    expect(traceparentOf(sampled)).toBe(`00-${TRACE_ID}-${SPAN_ID}-01`);
    expect(traceparentOf(unsampled)).toBe(`00-${TRACE_ID}-${SPAN_ID}-00`);
  });

  it("is written the same as the W3C propagator writes it, and with no propagator registered at all", () => {
    const ctx = trace.setSpanContext(ROOT_CONTEXT, { traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: TraceFlags.SAMPLED });
    const carrier: Record<string, string> = {};
    new W3CTraceContextPropagator().inject(ctx, carrier, { set: (c, k, v) => (c[k] = v) });
    propagation.disable(); // no global propagator: the kept context does not depend on one
    expect(traceparentOf(ctx)).toBe(carrier["traceparent"]);
  });

  it("is absent without a span, or with an invalid span context (the API's no-op spans)", () => {
    expect(traceparentOf(ROOT_CONTEXT)).toBeUndefined();
    expect(traceparentOf(trace.setSpanContext(ROOT_CONTEXT, { traceId: "0".repeat(32), spanId: SPAN_ID, traceFlags: 1 }))).toBeUndefined();
  });

  it("is read back as a remote parent with the same ids and flags", () => {
    const parent = trace.getSpanContext(contextOfTraceparent(`00-${TRACE_ID}-${SPAN_ID}-01`));
    expect(parent).toEqual({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1, isRemote: true });
  });

  it.each([
    ["absent", undefined],
    ["another version", `01-${TRACE_ID}-${SPAN_ID}-01`],
    ["upper-case hex", `00-${TRACE_ID.toUpperCase()}-${SPAN_ID}-01`],
    ["an all-zero trace id", `00-${"0".repeat(32)}-${SPAN_ID}-01`],
    ["an all-zero span id", `00-${TRACE_ID}-${"0".repeat(16)}-01`],
    ["a short span id", `00-${TRACE_ID}-${SPAN_ID.slice(1)}-01`],
    ["trailing text", `00-${TRACE_ID}-${SPAN_ID}-01-extra`],
  ])("reads %s as no parent (a root context)", (_, kept) => {
    expect(contextOfTraceparent(kept)).toBe(ROOT_CONTEXT);
  });
});

/** A reader collected when the test asks. */
class ManualReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

async function points(reader: MetricReader, name: string): Promise<Array<{ attributes: Record<string, unknown>; value: unknown }>> {
  const { resourceMetrics } = await reader.collect();
  const metric: MetricData | undefined = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name);
  return (metric?.dataPoints ?? []).map((p) => ({ attributes: p.attributes, value: p.value }));
}

describe("the server's counts, observed at collection", () => {
  it("are the sums of every server on one meter (one set of instruments per meter)", async () => {
    const reader = new ManualReader();
    const meter = new MeterProvider({ readers: [reader] }).getMeter("a2a-codegen");
    const first = serverInstruments(meter);
    const second = serverInstruments(meter);
    expect(second).toBe(first);
    first.requests.add(1, first.attributes.call("JSONRPC", "message/send"));
    second.requests.add(2, second.attributes.call("JSONRPC", "message/send"));
    second.requests.add(1, second.attributes.call("HTTP+JSON", "SendMessage"));
    expect(await points(reader, "a2a.server.request.count")).toEqual([
      { attributes: { "a2a.binding": "JSONRPC", "a2a.method": "message/send" }, value: 3 },
      { attributes: { "a2a.binding": "HTTP+JSON", "a2a.method": "SendMessage" }, value: 1 },
    ]);
  });

  it("are monotonic sums that keep growing, and the streams open go down as well as up", async () => {
    const reader = new ManualReader();
    const instruments = serverInstruments(new MeterProvider({ readers: [reader] }).getMeter("a2a-codegen"));
    instruments.tasksCreated.add(1);
    const sse = instruments.attributes.binding("JSONRPC");
    instruments.activeStreams.add(1, sse);
    instruments.activeStreams.add(1, sse);
    instruments.streamEvents.add(5, sse);
    expect(await points(reader, "a2a.server.task.created")).toEqual([{ attributes: {}, value: 1 }]);
    expect(await points(reader, "a2a.server.stream.active")).toEqual([{ attributes: { "a2a.binding": "JSONRPC" }, value: 2 }]);
    instruments.tasksCreated.add(1);
    instruments.activeStreams.add(-1, sse);
    instruments.streamEvents.add(2, sse);
    expect(await points(reader, "a2a.server.task.created")).toEqual([{ attributes: {}, value: 2 }]);
    expect(await points(reader, "a2a.server.stream.active")).toEqual([{ attributes: { "a2a.binding": "JSONRPC" }, value: 1 }]);
    expect(await points(reader, "a2a.server.stream.event.count")).toEqual([{ attributes: { "a2a.binding": "JSONRPC" }, value: 7 }]);
  });

  it("are kept apart for servers on different meters", async () => {
    const readerA = new ManualReader();
    const readerB = new ManualReader();
    const a = serverInstruments(new MeterProvider({ readers: [readerA] }).getMeter("a2a-codegen"));
    const b = serverInstruments(new MeterProvider({ readers: [readerB] }).getMeter("a2a-codegen"));
    a.tasksCreated.add(3);
    b.tasksCreated.add(1);
    expect(await points(readerA, "a2a.server.task.created")).toEqual([{ attributes: {}, value: 3 }]);
    expect(await points(readerB, "a2a.server.task.created")).toEqual([{ attributes: {}, value: 1 }]);
  });
});
