/**
 * The ground floor of a server call: an HTTP request and response as plain data (what the adapters give the
 * bindings and write back), and the context every binding hands the service with a call.
 */

export interface CoreRequest {
  method: string;
  /** The path without the query. */
  path: string;
  query: URLSearchParams;
  /** Lower-case header names. */
  headers: Record<string, string | undefined>;
  /**
   * The body; "too-large" when the adapter stopped reading at the size limit; "timed-out" when the whole
   * body did not arrive within the body timeout (a client trickling it is cut).
   */
  body: Uint8Array | string | "too-large" | "timed-out" | undefined;
  /** Aborted when the client goes away, where the adapter knows it. */
  signal?: AbortSignal;
}

/** A sink the adapters give an SSE response to write into. */
export interface SseSink {
  write(chunk: string): void;
  end(): void;
}

export type CoreResponse =
  | { kind: "json"; status: number; headers: Record<string, string>; body: string }
  | { kind: "empty"; status: number; headers: Record<string, string> }
  | {
      kind: "sse";
      status: 200;
      headers: Record<string, string>;
      /** Starts the stream; returns the function the adapter calls when the client goes away. */
      open(sink: SseSink): () => void;
    };

export type SseResponse = Extract<CoreResponse, { kind: "sse" }>;

export interface CallContext {
  /** Request headers (HTTP) or metadata (gRPC), names lower-cased; auth and version negotiation read them. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** Aborted when the caller goes away (closed socket, cancelled gRPC call). */
  readonly signal: AbortSignal;
  /** Which binding carries the call: "JSONRPC" | "HTTP+JSON" | "GRPC" (the spec's protocolBinding names). */
  readonly binding: string;
  /** The HTTP request, for HTTP bindings (auth verifiers and custom methods see it; apiKey-in-query reads it). */
  readonly request?: CoreRequest;
  /** Set when the binding has authenticated the caller already (JSON-RPC does it once per HTTP request). */
  readonly authenticated?: { readonly principal: unknown };
  /** The call's span, when the server is observed (ServerOptions.telemetry): told the method and the task. */
  readonly span?: CallRecorder;
}

/** What the server learns of a call as it goes (each told once it is known). */
export interface CallFacts {
  /** The method as the version names it ("message/send", "SendMessage"). */
  readonly method?: string;
  readonly taskId?: string;
  readonly contextId?: string;
  /** The auth verifier's principal (recorded only when the telemetry is configured to). */
  readonly principal?: unknown;
}

/** What a call's facts are told to: its span, when the server is observed (telemetry-hooks.ts `CallSpan`). */
export interface CallRecorder {
  tell(facts: CallFacts): void;
}
