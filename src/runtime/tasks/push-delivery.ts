/**
 * How the outbox worker delivers one push notification: the sender's POST (observed, in a span of its
 * own that is a child of the turn whose commit queued it: the target keeps that turn's traceparent), and
 * whether a failed delivery is worth another attempt.
 */
import type { OutboxEntry } from "../stores/contract.js";
import type { ServerTelemetry } from "../telemetry-hooks.js";
import type { DeliveryOutcome } from "./outbox-worker.js";
import type { PushSender, PushTarget } from "./push-sender.js";

export function pushDelivery(sender: PushSender, telemetry: ServerTelemetry | undefined, shutdown: AbortSignal): (entry: OutboxEntry) => Promise<DeliveryOutcome> {
  return async (entry) => {
    const target = entry.target as unknown as PushTarget;
    const send = (traceparent: string | undefined) => sender.send(traceparent === undefined ? target : { ...target, traceparent }, entry.payload, shutdown);
    const result = await (telemetry ? telemetry.pushDelivery(target.url, entry.taskId, target.traceparent, send) : send(target.traceparent));
    if (result.ok) return { delivered: true };
    // A refused target (SSRF guard) or a 4xx will not improve; the sender has already retried the rest.
    const permanent = result.attempts === 0 || (result.status !== undefined && result.status < 500 && result.status !== 429);
    return { delivered: false, permanent, reason: result.error };
  };
}
