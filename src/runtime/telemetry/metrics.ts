/**
 * The metric instruments of an A2A agent and of its client, made once per meter (names in names.ts).
 * Durations are in milliseconds, as a2a-dotnet's `a2a.server.request.duration`.
 */
import type { Attributes, Counter, Histogram, Meter, UpDownCounter } from "@opentelemetry/api";
import { ATTR, METRIC } from "./names.js";

export interface ServerInstruments {
  readonly requests: Counter;
  readonly duration: Histogram;
  readonly errors: Counter;
  readonly tasksCreated: Counter;
  readonly streamEvents: Counter;
  readonly activeStreams: UpDownCounter;
  readonly turnDuration: Histogram;
  readonly storeDuration: Histogram;
  readonly pushes: Counter;
  readonly takeOvers: Counter;
}

export function serverInstruments(meter: Meter): ServerInstruments {
  return {
    requests: meter.createCounter(METRIC.serverRequestCount, { description: "Server calls handled", unit: "{request}" }),
    duration: meter.createHistogram(METRIC.serverRequestDuration, { description: "Duration of server calls (a stream's until it ends)", unit: "ms" }),
    errors: meter.createCounter(METRIC.serverErrorCount, { description: "Server calls answered with an error", unit: "{error}" }),
    tasksCreated: meter.createCounter(METRIC.serverTaskCreated, { description: "Tasks created", unit: "{task}" }),
    streamEvents: meter.createCounter(METRIC.serverStreamEventCount, { description: "Events written to streams", unit: "{event}" }),
    activeStreams: meter.createUpDownCounter(METRIC.serverStreamActive, { description: "Streams open now", unit: "{stream}" }),
    turnDuration: meter.createHistogram(METRIC.serverTurnDuration, { description: "Duration of turns of the agent executor", unit: "ms" }),
    storeDuration: meter.createHistogram(METRIC.serverStoreDuration, { description: "Duration of store operations", unit: "ms" }),
    pushes: meter.createCounter(METRIC.serverPushCount, { description: "Push notification deliveries, by outcome", unit: "{notification}" }),
    takeOvers: meter.createCounter(METRIC.serverLeaseTakeovers, { description: "Tasks taken over from a stopped instance (expired lease), by outcome", unit: "{task}" }),
  };
}

export interface ClientInstruments {
  readonly requests: Counter;
  readonly duration: Histogram;
  readonly errors: Counter;
  readonly streamEvents: Counter;
}

export function clientInstruments(meter: Meter): ClientInstruments {
  return {
    requests: meter.createCounter(METRIC.clientRequestCount, { description: "Client calls made", unit: "{request}" }),
    duration: meter.createHistogram(METRIC.clientRequestDuration, { description: "Duration of client calls (a stream's until it ends)", unit: "ms" }),
    errors: meter.createCounter(METRIC.clientErrorCount, { description: "Client calls that failed", unit: "{error}" }),
    streamEvents: meter.createCounter(METRIC.clientStreamEventCount, { description: "Events received on streams", unit: "{event}" }),
  };
}

/**
 * The attribute sets of the server's metric records, each made once: a request records several metrics
 * with the same few values (its binding, its method), and a fresh object per record is garbage on the hot
 * path. Looked up by the values themselves, no key built per record.
 */
export class ServerAttributeSets {
  private readonly bindings = new Map<string, Attributes>();
  private readonly methods = new Map<string, Attributes>();
  private readonly calls = new Map<string, Map<string, Attributes>>();

  /** `{ "a2a.binding": binding }`. */
  binding(binding: string): Attributes {
    let set = this.bindings.get(binding);
    if (set === undefined) this.bindings.set(binding, (set = { [ATTR.binding]: binding }));
    return set;
  }

  /** `{ "a2a.method": method }`. */
  method(method: string): Attributes {
    let set = this.methods.get(method);
    if (set === undefined) this.methods.set(method, (set = { [ATTR.method]: method }));
    return set;
  }

  /** A call's: its binding and, once known, its method. */
  call(binding: string, method: string | undefined): Attributes {
    if (method === undefined) return this.binding(binding);
    let byMethod = this.calls.get(binding);
    if (byMethod === undefined) this.calls.set(binding, (byMethod = new Map()));
    let set = byMethod.get(method);
    if (set === undefined) byMethod.set(method, (set = { [ATTR.binding]: binding, [ATTR.method]: method }));
    return set;
  }
}
