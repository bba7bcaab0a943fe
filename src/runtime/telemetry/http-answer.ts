/**
 * The answer of an HTTP call to a binding, observed: its error code marks the call's span failed, and a
 * stream's span ends when the stream does, counting its events on the way (server.ts `httpAnswer`).
 */
import type { CoreResponse, SseSink } from "../call.js";
import type { ServerTelemetry, TelemetrySpan } from "../telemetry-hooks.js";

/** The JSON-RPC error code at the head of a response's text (`{"jsonrpc":"2.0","id":…,"error":{"code":-32001`). */
const JSON_RPC_ERROR_CODE = /^\{"jsonrpc":"2\.0","id":(?:"(?:[^"\\]|\\.)*"|[^,]*),"error":\{"code":(-?\d+)/;
/** An error event's code at the head of its `data:` line: JSON-RPC's error response, or 1.0 HTTP+JSON's google.rpc.Status. */
const EVENT_ERROR_CODE = /data: (?:\{"jsonrpc":"2\.0","id":(?:"(?:[^"\\]|\\.)*"|[^,]*),"error"|\{"error"):\{"code":(-?\d+)/y;

/** The answer, with the call's span ended when the answer is complete (a stream's when it ends). */
export function observedAnswer(response: CoreResponse, span: TelemetrySpan, telemetry: ServerTelemetry, binding: string): CoreResponse {
  if (response.kind !== "sse") {
    const code = response.kind === "json" ? errorCodeOf(response.status, response.body) : response.status >= 400 ? response.status : undefined;
    if (code !== undefined) span.fail(code);
    span.end();
    return response;
  }
  return {
    ...response,
    open(sink: SseSink): () => void {
      telemetry.activeStreams(binding, 1);
      let open = true;
      const done = () => {
        if (!open) return;
        open = false;
        telemetry.activeStreams(binding, -1);
        span.end();
      };
      const close = response.open({
        write(chunk: string) {
          for (let n = eventsIn(chunk, span); n > 0; n--) telemetry.streamEvent(binding);
          sink.write(chunk);
        },
        end() {
          done();
          sink.end();
        },
      });
      return () => {
        done();
        close();
      };
    },
  };
}

/**
 * The events of a chunk of SSE frames (a write may carry several; heartbeats are comments, ":"); an error
 * event (the binding's error after the stream opened, or 0.x's stream of one error) marks the span failed.
 */
function eventsIn(chunk: string, span: TelemetrySpan): number {
  let count = 0;
  for (let start = 0; start < chunk.length; ) {
    const end = chunk.indexOf("\n\n", start);
    if (chunk.charCodeAt(start) !== 58 /* : */) {
      count++;
      const error = chunk.indexOf('"error":{"code":', start);
      if (error >= 0 && (end < 0 || error < end)) {
        const data = chunk.indexOf("data: ", start);
        EVENT_ERROR_CODE.lastIndex = data;
        const match = data >= 0 ? EVENT_ERROR_CODE.exec(chunk) : null;
        if (match) span.fail(Number(match[1]));
      }
    }
    if (end < 0) break;
    start = end + 2;
  }
  return count;
}

/** A JSON answer's error code: the JSON-RPC error's, else an HTTP error status. */
function errorCodeOf(status: number, body: string): number | undefined {
  if (status >= 400) return status;
  const match = body.length > 0 && body.charCodeAt(0) === 123 /* { */ ? JSON_RPC_ERROR_CODE.exec(body) : null;
  return match ? Number(match[1]) : undefined;
}
