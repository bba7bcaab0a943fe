/**
 * The server's telemetry with OpenTelemetry: the hooks of telemetry-hooks.ts, implemented with
 * `@opentelemetry/api` only (spans and metrics go wherever the application's SDK sends them; without an
 * SDK every call is a no-op). The generated server/core.ts passes it to the server core when the output
 * was generated with `--telemetry`.
 */
import { context, createNoopMeter, isSpanContextValid, metrics, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from "@opentelemetry/api";
import type { CallFacts, CoreResponse } from "../call.js";
import type { A2AStore } from "../stores/contract.js";
import { observedAnswer } from "./http-answer.js";
import type { CallSpan, ServerTelemetry, TelemetrySpan, TurnInfo } from "../telemetry-hooks.js";
import { serverInstruments, type ServerInstruments } from "./metrics.js";
import { ATTR, INSTRUMENTATION_SCOPE, SPAN } from "./names.js";
import type { TelemetryOptions } from "./options.js";
import { contextOfTraceparent, extractContext, traceparentOf } from "./propagation.js";
import { observedStore } from "./store.js";

export type { TelemetryOptions } from "./options.js";

/** The OpenTelemetry hooks of a server speaking `protocolVersion`. */
export function serverTelemetry(protocolVersion: string, options: TelemetryOptions = {}): ServerTelemetry {
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(INSTRUMENTATION_SCOPE);
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(INSTRUMENTATION_SCOPE);
  // The API's no-op meter: no meter provider was registered when the server was made (the metrics API hands
  // out no proxy that a later SDK fills, unlike the tracing API), so nothing this server measures is read.
  const measured = meter !== createNoopMeter();
  return new OtelServerTelemetry(tracer, serverInstruments(meter), measured, protocolVersion, options.recordPrincipal);
}

/**
 * A span no one sees: not recorded, and with no valid context to hand on (what the API's no-op tracer
 * starts when no SDK is registered and no caller's trace came in). Where nothing is measured either, a call
 * or turn with such a span is run as it is: no context entered, a handle that does nothing, no answer observed.
 */
function unseen(span: Span): boolean {
  return !span.isRecording() && !isSpanContextValid(span.spanContext());
}

/** The handle of a call or turn that is neither traced nor measured. */
const UNOBSERVED: CallSpan = Object.freeze({ fail: () => undefined, end: () => undefined, tell: () => undefined });

class OtelServerTelemetry implements ServerTelemetry {
  private readonly tracer: Tracer;
  private readonly instruments: ServerInstruments;
  /** False when the meter is the API's no-op one (see serverTelemetry). */
  private readonly measured: boolean;
  private readonly protocolVersion: string;
  private readonly recordPrincipal: ((principal: unknown) => string | undefined) | undefined;

  constructor(tracer: Tracer, instruments: ServerInstruments, measured: boolean, protocolVersion: string, recordPrincipal: ((principal: unknown) => string | undefined) | undefined) {
    this.tracer = tracer;
    this.instruments = instruments;
    this.measured = measured;
    this.protocolVersion = protocolVersion;
    this.recordPrincipal = recordPrincipal;
  }

  serverCall<T>(binding: string, headers: Readonly<Record<string, string | undefined>>, run: (span: CallSpan) => T): T {
    // Under a span already (an HTTP server instrumentation's, which read the headers): its child; else the caller's.
    const active = context.active();
    const parent = trace.getSpan(active) !== undefined ? active : extractContext(headers, active);
    const span = this.tracer.startSpan(SPAN.server, { kind: SpanKind.SERVER, attributes: { [ATTR.binding]: binding, [ATTR.protocolVersion]: this.protocolVersion } }, parent);
    if (!this.measured && unseen(span)) return run(UNOBSERVED);
    const call = new ServerCall(span, binding, this.instruments, this.recordPrincipal);
    return context.with(trace.setSpan(parent, span), run, undefined, call);
  }

  httpAnswer(answer: Promise<CoreResponse>, span: TelemetrySpan, binding: string): Promise<CoreResponse> {
    if (span === UNOBSERVED) return answer;
    return answer.then((response) => observedAnswer(response, span, this, binding));
  }

  streamEvent(binding: string): void {
    this.instruments.streamEvents.add(1, this.instruments.attributes.binding(binding));
  }

  activeStreams(binding: string, delta: 1 | -1): void {
    this.instruments.activeStreams.add(delta, this.instruments.attributes.binding(binding));
  }

  turn<T>(info: TurnInfo, run: (span: TelemetrySpan) => Promise<T>): Promise<T> {
    // A turn resumed by take-over continues the trace of the call that started it, on this instance.
    const parent = info.parent !== undefined ? contextOfTraceparent(info.parent) : context.active();
    const span = this.tracer.startSpan(SPAN.turn, {
      kind: SpanKind.INTERNAL,
      attributes: { [ATTR.taskId]: info.taskId, [ATTR.contextId]: info.contextId, [ATTR.method]: info.method, [ATTR.streaming]: info.streaming, [ATTR.protocolVersion]: this.protocolVersion },
    }, parent);
    if (!this.measured && unseen(span)) return run(UNOBSERVED);
    return this.observedTurn(info, parent, span, run);
  }

  /** A turn in its span, the active one while the executor runs; its duration measured. */
  private async observedTurn<T>(info: TurnInfo, parent: Context, span: Span, run: (span: TelemetrySpan) => Promise<T>): Promise<T> {
    const handle = new PlainSpan(span);
    const start = performance.now();
    try {
      return await context.with(trace.setSpan(parent, span), run, undefined, handle);
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      handle.fail(error instanceof Error ? error.name : "error");
      throw error;
    } finally {
      this.instruments.turnDuration.record(performance.now() - start, handle.failed ? { [ATTR.method]: info.method, [ATTR.errorType]: String(handle.failed) } : this.instruments.attributes.method(info.method));
      handle.end();
    }
  }

  traceparent(): string | undefined {
    return traceparentOf(context.active());
  }

  async pushDelivery<T extends { ok: boolean; status?: number | undefined }>(url: string, taskId: string, traceparent: string | undefined, run: (traceparent: string | undefined) => Promise<T>): Promise<T> {
    const parent = contextOfTraceparent(traceparent);
    const span = this.tracer.startSpan(SPAN.push, { kind: SpanKind.CLIENT, attributes: { [ATTR.taskId]: taskId, "server.address": hostOf(url) } }, parent);
    const active = trace.setSpan(parent, span);
    let outcome = "failed";
    try {
      const result = await context.with(active, () => run(traceparentOf(active)));
      if (result.status !== undefined) span.setAttribute(ATTR.httpStatus, result.status);
      outcome = result.ok ? "delivered" : "failed";
      if (!result.ok) span.setStatus({ code: SpanStatusCode.ERROR, message: "not delivered" });
      return result;
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.setAttribute(ATTR.outcome, outcome);
      this.instruments.pushes.add(1, { [ATTR.outcome]: outcome });
      span.end();
    }
  }

  takeOver(taskId: string, outcome: "resumed" | "failed"): void {
    this.instruments.takeOvers.add(1, { [ATTR.outcome]: outcome });
    trace.getActiveSpan()?.addEvent("a2a.lease.takeover", { [ATTR.taskId]: taskId, [ATTR.outcome]: outcome });
  }

  store<S extends { readonly engine: string }>(store: S): S {
    const measures = this.measured ? { duration: this.instruments.storeDuration, created: () => this.instruments.tasksCreated.add(1) } : undefined;
    return observedStore(store as unknown as A2AStore, this.tracer, measures) as unknown as S;
  }
}

/** A span and its failure. */
class PlainSpan implements TelemetrySpan {
  failed: number | string | undefined;
  private ended = false;
  protected readonly span: Span;

  constructor(span: Span) {
    this.span = span;
  }

  /** Sets the attribute when the value is known (no object built per call: this runs a few times a request). */
  set(key: string, value: string | undefined): void {
    if (value !== undefined) this.span.setAttribute(key, value);
  }

  fail(code: number | string, message?: string): void {
    this.failed = code;
    this.span.setAttribute(ATTR.errorCode, code);
    this.span.setStatus({ code: SpanStatusCode.ERROR, ...(message !== undefined ? { message } : {}) });
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.span.end();
  }
}

/** A server call's span: its method names it, its end records the request metrics. */
class ServerCall extends PlainSpan implements CallSpan {
  private method: string | undefined;
  private readonly start = performance.now();
  private done = false;
  private readonly binding: string;
  private readonly instruments: ServerInstruments;
  private readonly recordPrincipal: ((principal: unknown) => string | undefined) | undefined;

  constructor(span: Span, binding: string, instruments: ServerInstruments, recordPrincipal: ((principal: unknown) => string | undefined) | undefined) {
    super(span);
    this.binding = binding;
    this.instruments = instruments;
    this.recordPrincipal = recordPrincipal;
  }

  tell(facts: CallFacts): void {
    if (facts.method !== undefined) this.named(facts.method);
    this.set(ATTR.taskId, facts.taskId);
    this.set(ATTR.contextId, facts.contextId);
    if (facts.principal !== undefined && this.recordPrincipal) this.set(ATTR.principal, this.recordPrincipal(facts.principal));
  }

  /** The call's method names its span and its metrics (the first one told: a batch keeps its first). */
  private named(method: string): void {
    if (this.method !== undefined) return;
    this.method = method;
    this.span.updateName(`${SPAN.server} ${method}`);
    this.span.setAttribute(ATTR.method, method);
  }

  override end(): void {
    if (this.done) return;
    this.done = true;
    const attributes = this.instruments.attributes.call(this.binding, this.method);
    this.instruments.requests.add(1, attributes);
    this.instruments.duration.record(performance.now() - this.start, attributes);
    if (this.failed !== undefined) this.instruments.errors.add(1, { ...attributes, [ATTR.errorCode]: this.failed });
    super.end();
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "";
  }
}
