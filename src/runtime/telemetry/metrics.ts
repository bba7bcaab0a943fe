/**
 * The metric instruments of an A2A agent and of its client, made once per meter (names in names.ts).
 * Durations are in milliseconds, as a2a-dotnet's `a2a.server.request.duration`.
 */
import type { Attributes, Counter, Histogram, Meter, UpDownCounter } from "@opentelemetry/api";
import { METRIC } from "./names.js";

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
 * The attribute sets of metric records, each made once: a request records several metrics with the same
 * few (binding, method), and building a fresh object for each record is garbage on the hot path.
 */
export class AttributeSets {
  private readonly sets = new Map<string, Attributes>();

  /** `{ [key]: value }`, plus `{ [key2]: value2 }` when value2 is given. */
  of(key: string, value: string, key2?: string, value2?: string): Attributes {
    const id = value2 === undefined ? `${key}\u0000${value}` : `${key}\u0000${value}\u0000${key2 ?? ""}\u0000${value2}`;
    let set = this.sets.get(id);
    if (set === undefined) {
      set = value2 === undefined || key2 === undefined ? { [key]: value } : { [key]: value, [key2]: value2 };
      this.sets.set(id, set);
    }
    return set;
  }
}
