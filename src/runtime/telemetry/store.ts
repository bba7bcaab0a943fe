/**
 * The store, observed: each operation of its tasks, push configs, event log, outbox and leases runs in a
 * span (a child of the active one: the call or turn that asked) and its duration is measured. The
 * outbox's and leases' polling (claim, renew, claimExpired) is measured but not traced: it runs on a
 * timer, outside any call, and would fill traces with nothing. With no meter to read the durations (the
 * API's no-op one), an operation outside any span runs as it is.
 */
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Histogram, type Tracer } from "@opentelemetry/api";
import type { A2AStore } from "../stores/contract.js";
import { ATTR, SPAN } from "./names.js";

const PARTS = ["tasks", "pushConfigs", "events", "outbox", "leases"] as const;
const OPERATIONS: Readonly<Record<(typeof PARTS)[number], readonly string[]>> = {
  tasks: ["get", "save", "list", "load", "commit", "query"],
  pushConfigs: ["set", "get", "list", "delete"],
  events: ["append", "read", "end"],
  outbox: ["enqueue", "claim", "ack", "retry", "size"],
  leases: ["acquire", "renew", "release", "holder", "claimExpired"],
};
const UNTRACED = new Set(["outbox.claim", "leases.renew", "leases.claimExpired"]);
/**
 * Engines whose operations run in this process with no instrumented I/O under them (no driver span can
 * start inside): their spans are not made the active context, which would cost a context switch per
 * operation for no child. A network engine's operation runs under its span, so a driver
 * instrumentation's spans (pg, mysql2, redis) nest in it.
 */
const IN_PROCESS_ENGINES = new Set(["memory", "sqlite", "durable-object"]);

/** What is measured of a store: each operation's duration, and each task a commit creates (expected version 0, made). */
export interface StoreMeasures {
  readonly duration: Histogram;
  readonly created: () => void;
}

/** `store`, observed: traced, and measured unless `measures` is undefined (nothing would read them). */
export function observedStore(store: A2AStore, tracer: Tracer, measures: StoreMeasures | undefined): A2AStore {
  const parts: Record<string, unknown> = {};
  for (const part of PARTS) parts[part] = observedPart(store[part] as unknown as object, part, store.engine, tracer, measures);
  return delegating(store, parts);
}

function observedPart(part: object, name: (typeof PARTS)[number], engine: string, tracer: Tracer, measures: StoreMeasures | undefined): object {
  const operations: Record<string, unknown> = {};
  for (const key of OPERATIONS[name]) {
    const value: unknown = Reflect.get(part, key, part);
    if (typeof value !== "function") continue;
    const operation = `${name}.${key}`;
    const fn = observed(value as (...args: unknown[]) => unknown, part, operation, engine, tracer, measures?.duration);
    operations[key] = operation === "tasks.commit" && measures ? creations(fn, measures.created) : fn;
  }
  return delegating(part, operations);
}

/**
 * An object in front of `target` with `own` first: every other method runs on `target` itself (bound
 * once), accessors too, and data is read through to it (its prototype). A plain object, not a Proxy: the
 * store's parts are reached several times a request, and a Proxy's traps cost on each.
 */
function delegating<T extends object>(target: T, own: Record<string, unknown>): T {
  const out = Object.create(target) as object;
  const seen = new Set<string>(Object.keys(own));
  for (let layer: object | null = target; layer !== null && layer !== Object.prototype; layer = Object.getPrototypeOf(layer) as object | null) {
    for (const key of Object.getOwnPropertyNames(layer)) {
      if (key === "constructor" || seen.has(key)) continue;
      seen.add(key);
      const d = Object.getOwnPropertyDescriptor(layer, key);
      if (typeof d?.value === "function") {
        Object.defineProperty(out, key, { value: (d.value as (...args: unknown[]) => unknown).bind(target), configurable: true });
      } else if (d?.get !== undefined || d?.set !== undefined) {
        const { get, set } = d;
        Object.defineProperty(out, key, {
          ...(get ? { get: () => get.call(target) as unknown } : {}),
          ...(set ? { set: (value: unknown) => set.call(target, value) } : {}),
          configurable: true,
        });
      }
    }
  }
  for (const [key, value] of Object.entries(own)) Object.defineProperty(out, key, { value, enumerable: true, configurable: true });
  return out as T;
}

function observed(original: (...args: unknown[]) => unknown, target: object, operation: string, engine: string, tracer: Tracer, duration: Histogram | undefined): (...args: unknown[]) => unknown {
  const attributes: Attributes = { [ATTR.storeEngine]: engine, [ATTR.storeOperation]: operation };
  const traced = !UNTRACED.has(operation);
  const entered = !IN_PROCESS_ENGINES.has(engine);
  return (...args: unknown[]) => {
    const parent = context.active();
    const span = traced && trace.getSpan(parent) !== undefined ? tracer.startSpan(`${SPAN.store} ${operation}`, { kind: SpanKind.CLIENT, attributes }, parent) : undefined;
    if (span === undefined && duration === undefined) return original.apply(target, args);
    const start = performance.now();
    const done = (error?: unknown) => {
      duration?.record(performance.now() - start, error === undefined ? attributes : { ...attributes, [ATTR.errorType]: errorType(error) });
      if (span) {
        if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
        span.end();
      }
    };
    let result: unknown;
    try {
      result = span && entered ? context.with(trace.setSpan(parent, span), () => original.apply(target, args)) : original.apply(target, args);
    } catch (error) {
      done(error);
      throw error;
    }
    if (result instanceof Promise) {
      return result.then(
        (value) => {
          done();
          return value;
        },
        (error: unknown) => {
          done(error);
          throw error;
        },
      );
    }
    done();
    return result;
  };
}

/** A commit that counts the tasks it creates. */
function creations(commit: (...args: unknown[]) => unknown, created: () => void): (...args: unknown[]) => unknown {
  return (...args: unknown[]) => {
    const result = commit(...args);
    const creating = (args[0] as { expectedVersion?: number } | undefined)?.expectedVersion === 0;
    if (creating && result instanceof Promise) void result.then(created, () => undefined);
    return result;
  };
}

function errorType(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}
