/**
 * The metric instruments of an A2A agent and of its client, made once per meter (names in names.ts).
 * Durations are in milliseconds, as a2a-dotnet's `a2a.server.request.duration`.
 *
 * The server's counts that move on every call (requests, tasks created, stream events, streams open) are
 * kept here as plain numbers and reported by asynchronous instruments when the SDK collects: a
 * synchronous `add` costs the SDK an attribute hash and a map lookup per call, an observation one per
 * collection. They are sums all the same (monotonic, or not for the streams open), under the same names.
 * Everything made here is shared by all the servers of a process on one meter (a WeakMap per meter), so
 * that their counts add up rather than report the same attributes twice.
 */
import type { Attributes, Counter, Histogram, Meter, ObservableResult } from "@opentelemetry/api";
import { ATTR, METRIC } from "./names.js";

export interface ServerInstruments {
  readonly requests: Tally;
  readonly duration: Histogram;
  readonly errors: Counter;
  readonly tasksCreated: Tally;
  readonly streamEvents: Tally;
  readonly activeStreams: Tally;
  readonly turnDuration: Histogram;
  readonly storeDuration: Histogram;
  readonly pushes: Counter;
  readonly takeOvers: Counter;
  /** The attribute sets the tallies are kept by (and the histograms recorded with), each made once. */
  readonly attributes: ServerAttributeSets;
}

/**
 * A count per attribute set, kept in this process and observed at collection. The sets are the shared
 * objects of `ServerAttributeSets` (or `NO_ATTRIBUTES`): a tally is keyed by the object, never by a copy.
 */
export class Tally {
  private readonly counts = new Map<Attributes, number>();

  add(value: number, attributes: Attributes = NO_ATTRIBUTES): void {
    this.counts.set(attributes, (this.counts.get(attributes) ?? 0) + value);
  }

  observe(result: ObservableResult): void {
    for (const [attributes, value] of this.counts) result.observe(value, attributes);
  }
}

/** The attribute set of a measurement without attributes (tasks created). */
const NO_ATTRIBUTES: Attributes = Object.freeze({});

const SERVER_INSTRUMENTS = new WeakMap<Meter, ServerInstruments>();

export function serverInstruments(meter: Meter): ServerInstruments {
  let made = SERVER_INSTRUMENTS.get(meter);
  if (made === undefined) SERVER_INSTRUMENTS.set(meter, (made = makeServerInstruments(meter)));
  return made;
}

function makeServerInstruments(meter: Meter): ServerInstruments {
  const tally = (kind: "counter" | "upDownCounter", name: string, options: { description: string; unit: string }): Tally => {
    const counts = new Tally();
    const instrument = kind === "counter" ? meter.createObservableCounter(name, options) : meter.createObservableUpDownCounter(name, options);
    instrument.addCallback((result) => counts.observe(result));
    return counts;
  };
  return {
    requests: tally("counter", METRIC.serverRequestCount, { description: "Server calls handled", unit: "{request}" }),
    duration: meter.createHistogram(METRIC.serverRequestDuration, { description: "Duration of server calls (a stream's until it ends)", unit: "ms" }),
    errors: meter.createCounter(METRIC.serverErrorCount, { description: "Server calls answered with an error", unit: "{error}" }),
    tasksCreated: tally("counter", METRIC.serverTaskCreated, { description: "Tasks created", unit: "{task}" }),
    streamEvents: tally("counter", METRIC.serverStreamEventCount, { description: "Events written to streams", unit: "{event}" }),
    activeStreams: tally("upDownCounter", METRIC.serverStreamActive, { description: "Streams open now", unit: "{stream}" }),
    turnDuration: meter.createHistogram(METRIC.serverTurnDuration, { description: "Duration of turns of the agent executor", unit: "ms" }),
    storeDuration: meter.createHistogram(METRIC.serverStoreDuration, { description: "Duration of store operations", unit: "ms" }),
    pushes: meter.createCounter(METRIC.serverPushCount, { description: "Push notification deliveries, by outcome", unit: "{notification}" }),
    takeOvers: meter.createCounter(METRIC.serverLeaseTakeovers, { description: "Tasks taken over from a stopped instance (expired lease), by outcome", unit: "{task}" }),
    attributes: new ServerAttributeSets(),
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
 * path; the tallies are kept by these objects. Looked up by the values themselves, no key built per record.
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
