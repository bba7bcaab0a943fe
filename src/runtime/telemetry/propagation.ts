/**
 * W3C trace context in and out of the A2A bindings: HTTP headers and gRPC metadata (both plain records
 * of lower-case names here), through the globally registered propagator (an OpenTelemetry SDK registers
 * W3C Trace Context by default). The trace context the runtime keeps (with a push notification, at the
 * start of a turn in the task's event log) and sends as a webhook's `traceparent` header is W3C's
 * `traceparent` form, written and read here directly from the span context: it is the runtime's own
 * link between a turn and what follows it, whatever propagator the application registers, and it is
 * taken on every turn, so no carrier object or propagator pass is spent on it.
 */
import { context, isSpanContextValid, propagation, ROOT_CONTEXT, trace, type Context, type TextMapGetter, type TextMapSetter } from "@opentelemetry/api";

type Headers = Readonly<Record<string, string | undefined>>;

const getter: TextMapGetter<Headers> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key.toLowerCase()],
};

const setter: TextMapSetter<Record<string, string>> = {
  set: (carrier, key, value) => {
    carrier[key.toLowerCase()] = value;
  },
};

/** The context a request's headers (or metadata) carry, over the active one. */
export function extractContext(headers: Headers, base: Context = context.active()): Context {
  return propagation.extract(base, headers, getter);
}

/** The headers (`traceparent`, `tracestate`, baggage) that carry `ctx` to the next hop. */
export function injectHeaders(ctx: Context = context.active()): Record<string, string> {
  const out: Record<string, string> = {};
  propagation.inject(ctx, out, setter);
  return out;
}

/** W3C trace context's `traceparent`, version 00: trace id, parent (span) id, flags. */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The `traceparent` of `ctx`'s span, or undefined when it has none with a valid context (no SDK registered: never). */
export function traceparentOf(ctx: Context = context.active()): string | undefined {
  const span = trace.getSpanContext(ctx);
  if (span === undefined || !isSpanContextValid(span)) return undefined;
  const flags = span.traceFlags & 0xff;
  return `00-${span.traceId}-${span.spanId}-${flags < 16 ? "0" : ""}${flags.toString(16)}`;
}

/** The context a kept `traceparent` names, its span remote (a root context when there is none or it is not one). */
export function contextOfTraceparent(traceparent: string | undefined): Context {
  const match = traceparent === undefined ? null : TRACEPARENT.exec(traceparent);
  if (match === null) return ROOT_CONTEXT;
  const span = { traceId: match[1]!, spanId: match[2]!, traceFlags: parseInt(match[3]!, 16), isRemote: true };
  return isSpanContextValid(span) ? trace.setSpanContext(ROOT_CONTEXT, span) : ROOT_CONTEXT;
}
