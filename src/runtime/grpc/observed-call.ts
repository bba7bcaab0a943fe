/**
 * gRPC calls, observed (ServerOptions.telemetry): each call runs in a server span, a child of the trace
 * context its metadata carries (`traceparent`); a unary call's span ends with its answer, a stream's when
 * the stream closes, counting the messages written. Used by server.ts only when the service has hooks.
 */
import type * as grpc from "@grpc/grpc-js";
import type { ServerTelemetry } from "../telemetry-hooks.js";
import type { CallRecorder } from "../call.js";

const BINDING = "GRPC";

/** A unary rpc's handler: grpc-js calls it with the call and its callback, the observed wrapper with the call's span too. */
export type UnaryHandler = (call: grpc.ServerUnaryCall<Buffer, Uint8Array>, callback: grpc.sendUnaryData<Uint8Array>, span?: CallRecorder) => void;
/** A server-streaming rpc's handler: grpc-js calls it with the call, the observed wrapper with the call's span too. */
export type StreamingHandler = (call: grpc.ServerWritableStream<Buffer, Uint8Array>, span?: CallRecorder) => void;

export function observedUnary(handler: UnaryHandler, telemetry: ServerTelemetry): grpc.handleUnaryCall<Buffer, Uint8Array> {
  return (call, callback) =>
    telemetry.serverCall(BINDING, metadataHeaders(call.metadata), (span) =>
      handler(
        call,
        (error, value, ...rest) => {
          if (error) span.fail(error.code ?? "UNKNOWN", error.details ?? undefined);
          span.end();
          callback(error, value, ...rest);
        },
        span,
      ),
    );
}

export function observedStream(handler: StreamingHandler, telemetry: ServerTelemetry): grpc.handleServerStreamingCall<Buffer, Uint8Array> {
  return (call) =>
    telemetry.serverCall(BINDING, metadataHeaders(call.metadata), (span) => {
      telemetry.activeStreams(BINDING, 1);
      let open = true;
      const done = () => {
        if (!open) return;
        open = false;
        telemetry.activeStreams(BINDING, -1);
        span.end();
      };
      const write = call.write.bind(call) as (chunk: Uint8Array, ...rest: unknown[]) => boolean;
      call.write = ((chunk: Uint8Array, ...rest: unknown[]) => {
        telemetry.streamEvent(BINDING);
        return write(chunk, ...rest);
      }) as typeof call.write;
      call.on("error", (status: Partial<grpc.StatusObject>) => span.fail(status.code ?? "UNKNOWN", status.details));
      call.on("finish", done);
      call.on("close", done);
      handler(call, span);
    });
}

/** The call's text metadata as headers (lower-case names; the propagator reads `traceparent` there). */
function metadataHeaders(metadata: grpc.Metadata): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(metadata.getMap())) if (typeof value === "string") out[name] = value;
  return out;
}
