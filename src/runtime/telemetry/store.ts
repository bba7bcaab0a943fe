/**
 * The store, observed: each operation of its tasks, push configs, event log, outbox and leases runs in a
 * span (a child of the active one: the call or turn that asked) and its duration is measured. The
 * outbox's and leases' polling (claim, renew, claimExpired) is measured but not traced: it runs on a
 * timer, outside any call, and would fill traces with nothing.
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
const IN_PROCESS_ENGINES = new Set(["memory", "sqlite"]);

/** `store`, observed; `created` hears of each task a commit creates (expected version 0, made). */
export function observedStore(store: A2AStore, tracer: Tracer, duration: Histogram, created: () => void): A2AStore {
  const parts = new Map<PropertyKey, object>();
  for (const part of PARTS) parts.set(part, observedPart(store[part] as unknown as object, part, store.engine, tracer, duration, created));
  return new Proxy(store, {
    get(target, key) {
      const part = parts.get(key);
      if (part !== undefined) return part;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

function observedPart(part: object, name: (typeof PARTS)[number], engine: string, tracer: Tracer, duration: Histogram, created: () => void): object {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(part, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== "function") return value;
      let fn = wrapped.get(key);
      if (fn === undefined) {
        const original = value as (...args: unknown[]) => unknown;
        const operation = `${name}.${String(key)}`;
        fn = typeof key === "string" && OPERATIONS[name].includes(key) ? observed(original, target, operation, engine, tracer, duration) : original.bind(target);
        if (operation === "tasks.commit") fn = creations(fn as (...args: unknown[]) => unknown, created);
        wrapped.set(key, fn);
      }
      return fn;
    },
  });
}

function observed(original: (...args: unknown[]) => unknown, target: object, operation: string, engine: string, tracer: Tracer, duration: Histogram): (...args: unknown[]) => unknown {
  const attributes: Attributes = { [ATTR.storeEngine]: engine, [ATTR.storeOperation]: operation };
  const traced = !UNTRACED.has(operation);
  const entered = !IN_PROCESS_ENGINES.has(engine);
  return (...args: unknown[]) => {
    const start = performance.now();
    const parent = context.active();
    const span = traced && trace.getSpan(parent) !== undefined ? tracer.startSpan(`${SPAN.store} ${operation}`, { kind: SpanKind.CLIENT, attributes }, parent) : undefined;
    const done = (error?: unknown) => {
      duration.record(performance.now() - start, error === undefined ? attributes : { ...attributes, [ATTR.errorType]: errorType(error) });
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
