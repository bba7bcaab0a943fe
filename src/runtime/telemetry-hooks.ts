/**
 * The telemetry hooks of the server runtime: what the server core, the bindings, the task runtime and the
 * push sender tell an observer, with no tracing library in sight. An output generated with `--telemetry`
 * implements them with OpenTelemetry (`runtime/telemetry/`, which imports `@opentelemetry/api`) and passes
 * them as `ServerOptions.telemetry`; without it nothing is passed, and every hook below is skipped.
 */
import type { CallRecorder, CoreResponse } from "./call.js";

/** One span in progress (a server call, a turn). */
export interface TelemetrySpan {
  /** Marks the span failed with the protocol's error code (a JSON-RPC/A2A code, an HTTP or gRPC status). */
  fail(code: number | string, message?: string): void;
  /** Ends the span and records its metrics; later calls do nothing. */
  end(): void;
}

/**
 * A server call's span, handed down with the call (CallContext `span`, a turn's `span`): the service and the
 * task runtime tell it what the call is about as they learn it (call.ts `CallRecorder`). Handed, not looked
 * up in the active context, so that the call's metrics carry its method with no context manager registered
 * (an application that only exports metrics).
 */
export interface CallSpan extends TelemetrySpan, CallRecorder {}

/** What the runtime tells when a turn of the executor starts. */
export interface TurnInfo {
  readonly taskId: string;
  readonly contextId: string;
  /** The method that started the turn ("message/send", "SendStreamingMessage"; "resume" for a take-over). */
  readonly method: string;
  readonly streaming: boolean;
  /** The `traceparent` of the call that started a turn resumed by take-over (kept in the task's event log); absent: the active span is the parent. */
  readonly parent?: string | undefined;
}

export interface ServerTelemetry {
  /**
   * Starts the span of one server call (one HTTP request to the JSON-RPC path or an HTTP+JSON route, one
   * gRPC call), a child of the W3C trace context its headers (or metadata) carry, and runs `run` with it
   * as the active span: what the call does (store operations, the turn it starts) nests under it. The
   * caller ends the span (a stream's when the stream ends).
   */
  serverCall<T>(binding: string, headers: Readonly<Record<string, string | undefined>>, run: (span: CallSpan) => T): T;
  /**
   * The answer of an HTTP call (`serverCall` of the JSON-RPC or HTTP+JSON binding), with its span ended
   * when it is complete: at once for JSON (failed with its error code), when the stream ends for SSE.
   */
  httpAnswer(answer: Promise<CoreResponse>, span: TelemetrySpan, binding: string): Promise<CoreResponse>;
  /** An event written to a stream of `binding` (SSE `data:` or a gRPC message). */
  streamEvent(binding: string): void;
  /** A stream opened (+1) or ended (-1) on `binding`. */
  activeStreams(binding: string, delta: 1 | -1): void;
  /**
   * Runs a turn of the executor in its span (a child of the active span: the call that started it), the
   * active span while the executor runs, so that an LLM framework's own spans nest under it.
   */
  turn<T>(info: TurnInfo, run: (span: TelemetrySpan) => Promise<T>): Promise<T>;
  /** The active trace context as a `traceparent` header value (kept with a push notification); undefined outside a span. */
  traceparent(): string | undefined;
  /**
   * Delivers a push notification in its span, a child of the `traceparent` kept with it; `run` gets the
   * `traceparent` to send with the request (the push span's), and returns whether it was delivered.
   */
  pushDelivery<T extends { ok: boolean; status?: number | undefined }>(url: string, taskId: string, traceparent: string | undefined, run: (traceparent: string | undefined) => Promise<T>): Promise<T>;
  /** A task this instance took over from a dead one (its lease expired). */
  takeOver(taskId: string, outcome: "resumed" | "failed"): void;
  /** The store (an A2AStore of stores/contract.ts), with a span and a latency measurement around each of its operations (and the tasks created counted). */
  store<S extends { readonly engine: string }>(store: S): S;
}
