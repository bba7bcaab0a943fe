/**
 * The client's telemetry with OpenTelemetry: a transport (JSON-RPC, HTTP+JSON, gRPC) wrapped so that each
 * call and each stream runs in a client span and carries its W3C trace context to the agent (HTTP headers,
 * gRPC metadata: the call's `headers`). The generated client wraps its transport with it when the output
 * was generated with `--telemetry`.
 */
import { context, metrics, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from "@opentelemetry/api";
import type { CallOptions } from "../client/http.js";
import type { ClientTransport } from "../client/transport.js";
import { clientInstruments, type ClientInstruments } from "./metrics.js";
import { ATTR, INSTRUMENTATION_SCOPE, SPAN } from "./names.js";
import type { TelemetryOptions } from "./options.js";
import { injectHeaders } from "./propagation.js";

export type { TelemetryOptions } from "./options.js";

/** `transport`, observed: spans and metrics per call and stream, trace context sent with each. */
export function tracedTransport(transport: ClientTransport, protocolVersion: string, options: Omit<TelemetryOptions, "recordPrincipal"> = {}): ClientTransport {
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(INSTRUMENTATION_SCOPE);
  const instruments = clientInstruments((options.meterProvider ?? metrics.getMeterProvider()).getMeter(INSTRUMENTATION_SCOPE));
  const binding = transport.binding;
  const start = (method: string, streaming: boolean) => {
    const parent = context.active();
    const span = tracer.startSpan(`${SPAN.client} ${method}`, {
      kind: SpanKind.CLIENT,
      attributes: { [ATTR.method]: method, [ATTR.binding]: binding, [ATTR.protocolVersion]: protocolVersion, [ATTR.streaming]: streaming },
    }, parent);
    return { span, active: trace.setSpan(parent, span), began: performance.now() };
  };
  return {
    binding,
    endpoint: transport.endpoint,
    async call(method: string, params: unknown, callOptions?: CallOptions): Promise<unknown> {
      const { span, active, began } = start(method, false);
      try {
        return await context.with(active, () => transport.call(method, params, withTraceHeaders(callOptions, active)));
      } catch (error) {
        failed(span, instruments, method, binding, error);
        throw error;
      } finally {
        finish(span, instruments, method, binding, began);
      }
    },
    async *stream(method: string, params: unknown, callOptions?: CallOptions): AsyncGenerator<unknown, void, undefined> {
      const { span, active, began } = start(method, true);
      const events = context.with(active, () => transport.stream(method, params, withTraceHeaders(callOptions, active)));
      try {
        for (;;) {
          const next = await context.with(active, () => events.next());
          if (next.done) return;
          instruments.streamEvents.add(1, { [ATTR.method]: method, [ATTR.binding]: binding });
          yield next.value;
        }
      } catch (error) {
        failed(span, instruments, method, binding, error);
        throw error;
      } finally {
        // Leaving the loop early (a `break` of the caller's) cancels the transport's stream too.
        await events.return?.(undefined);
        finish(span, instruments, method, binding, began);
      }
    },
  };
}

function withTraceHeaders(options: CallOptions | undefined, active: ReturnType<typeof context.active>): CallOptions {
  const trace = injectHeaders(active);
  return { ...options, headers: { ...trace, ...options?.headers } };
}

function failed(span: Span, instruments: ClientInstruments, method: string, binding: string, error: unknown): void {
  const code = errorCode(error);
  if (code !== undefined) span.setAttribute(ATTR.errorCode, code);
  span.setAttribute(ATTR.errorType, error instanceof Error ? error.name : typeof error);
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  const attributes: Attributes = { [ATTR.method]: method, [ATTR.binding]: binding, ...(code !== undefined ? { [ATTR.errorCode]: code } : {}) };
  instruments.errors.add(1, attributes);
}

function finish(span: Span, instruments: ClientInstruments, method: string, binding: string, began: number): void {
  const attributes: Attributes = { [ATTR.method]: method, [ATTR.binding]: binding };
  instruments.requests.add(1, attributes);
  instruments.duration.record(performance.now() - began, attributes);
  span.end();
}

/** The A2A error code of a client error (A2AError and the version's subclasses carry `code`). */
function errorCode(error: unknown): number | undefined {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "number" ? code : undefined;
}
