/**
 * W3C trace context in and out of the A2A bindings: HTTP headers and gRPC metadata (both plain records
 * of lower-case names here), through the globally registered propagator (an OpenTelemetry SDK registers
 * W3C Trace Context by default).
 */
import { context, propagation, ROOT_CONTEXT, type Context, type TextMapGetter, type TextMapSetter } from "@opentelemetry/api";

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

/** The `traceparent` of `ctx`, or undefined when it has no span (or no propagator is registered). */
export function traceparentOf(ctx: Context = context.active()): string | undefined {
  return injectHeaders(ctx)["traceparent"];
}

/** The context a kept `traceparent` names (a root context when there is none). */
export function contextOfTraceparent(traceparent: string | undefined): Context {
  return traceparent === undefined ? ROOT_CONTEXT : extractContext({ traceparent }, ROOT_CONTEXT);
}
