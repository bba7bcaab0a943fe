/**
 * The metric instruments of an A2A agent and of its client, made once per meter (names in names.ts).
 * Durations are in milliseconds, as a2a-dotnet's `a2a.server.request.duration`.
 */
import type { Counter, Histogram, Meter, UpDownCounter } from "@opentelemetry/api";
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
