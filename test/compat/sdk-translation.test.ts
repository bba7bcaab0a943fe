import fc from "fast-check";
import { StreamResponse } from "a2a-sdk-v1";
import { legacyPushNotificationToV1StreamResponse } from "a2a-sdk-v1/compat/v0_3";
import { V03PushNotificationSerializer } from "a2a-sdk-v1/compat/v0_3/server";
import { describe, expect, it } from "vitest";
import { VersionConverter, type Loss } from "../../src/runtime/compat/converter.js";
import { schemaArbitrary } from "../support/arbitrary.js";
import { arbitraryContext, derived } from "../support/compat/mapping.js";

/**
 * An independent check of the mapping: the official SDK 1.3.0 has its own hand-written translators
 * between v0.3 and v1.0 events, public through `legacyPushNotificationToV1StreamResponse` (a bare 0.3
 * Task, Message, status or artifact update → a 1.0 StreamResponse) and `V03PushNotificationSerializer`
 * (the reverse, for 0.3 webhooks). For generated valid events of each version, our derived mapping gives
 * what the SDK gives (both normalized to ProtoJSON's rule that a field at its default value is not
 * written, 1.0.1 §5.7).
 */

const SEED = 0x5d4;
const RUNS = 300;
const { mapping } = derived();
const converter = new VersionConverter(mapping);

/** Values the SDK's proto types parse: an RFC 3339 timestamp and base64 bytes (the schemas leave them free strings or any base64). */
function protoParsable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(protoParsable);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[key] = key === "timestamp" && typeof v === "string" ? "2026-01-02T03:04:05.678Z" : (key === "bytes" || key === "raw") && typeof v === "string" ? "aGVsbG8=" : protoParsable(v);
  }
  return out;
}

/** ProtoJSON: fields at their default ("", false, 0, [], {}, an enum's 0 value `*_UNSPECIFIED`) are left out (inside metadata and data too, on both sides). */
function withoutDefaults(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDefaults);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const w = withoutDefaults(v);
    const empty = w === "" || (typeof w === "string" && /^[A-Z_]+_UNSPECIFIED$/.test(w)) || w === false || w === 0 || (Array.isArray(w) && w.length === 0) || (w !== null && typeof w === "object" && !Array.isArray(w) && Object.keys(w).length === 0);
    if (!empty) out[key] = w;
  }
  return out;
}

describe("the derived mapping agrees with the official SDK 1.3.0's own 0.3 → 1.0 translators", () => {
  it(`${RUNS} generated 0.3 stream events (Task, Message, status and artifact updates)`, () => {
    const ctx = arbitraryContext("0.3.0");
    const events = schemaArbitrary(ctx, ctx.definition("SendStreamingMessageSuccessResponse")).map((r) => protoParsable((r as { result: unknown }).result));
    const kinds = new Set<string>();
    let compared = 0;
    fc.assert(
      fc.property(events, (event) => {
        let theirs: unknown;
        try {
          theirs = StreamResponse.toJSON(legacyPushNotificationToV1StreamResponse(structuredClone(event)));
        } catch {
          return; // the SDK refuses some valid 0.3 events (e.g. an empty id it deems missing); nothing to compare
        }
        const ours = converter.result("message/stream", "toPrimary", event);
        expect(withoutDefaults(ours), JSON.stringify(event)).toEqual(withoutDefaults(theirs));
        kinds.add(Object.keys(ours as object)[0] as string);
        compared++;
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // Not vacuous: most events compared, of every kind.
    expect(compared).toBeGreaterThan(RUNS / 2);
    expect([...kinds].sort()).toEqual(["artifactUpdate", "message", "statusUpdate", "task"]);
  });

  it(`${RUNS} generated 1.0 StreamResponses, to 0.3 as the SDK's v0.3 push serializer writes them`, () => {
    const ctx = arbitraryContext("1.0.1");
    const events = schemaArbitrary(ctx, ctx.definition("StreamResponse")).map(protoParsable);
    const kinds = new Set<string>();
    let compared = 0;
    fc.assert(
      fc.property(events, (event) => {
        let theirs: unknown;
        try {
          theirs = JSON.parse(new V03PushNotificationSerializer().serialize(StreamResponse.fromJSON(structuredClone(event))).body);
        } catch {
          return; // the SDK refuses some valid events; nothing to compare
        }
        const losses: Loss[] = [];
        const ours = new VersionConverter(mapping, { onLoss: (l) => losses.push(l) }).result("SendStreamingMessage", "toCompat", event) as Record<string, unknown>;
        // A value 0.3 cannot hold (ROLE_UNSPECIFIED, non-object data) is reported by ours and guessed by the SDK: not compared.
        if (losses.some((l) => l.reason === "value" || l.reason === "missing")) return;
        const state = (ours.status as { state?: unknown } | undefined)?.state;
        if (ours.kind === "status-update" && (state === "input-required" || state === "auth-required")) {
          // The one difference, on purpose: an interrupted state ends our streams (as blocking sends return
          // on it, 1.0.1 §3.1.1), so its event is the stream's final one; the SDK marks only terminal states final.
          expect([ours.final, (theirs as { final?: unknown }).final]).toEqual([true, false]);
          delete ours.final;
          delete (theirs as { final?: unknown }).final;
        }
        expect(withoutDefaults(ours), JSON.stringify(event)).toEqual(withoutDefaults(theirs));
        kinds.add(String((ours as { kind?: unknown }).kind));
        compared++;
      }),
      { seed: SEED, numRuns: RUNS },
    );
    expect(compared).toBeGreaterThan(RUNS / 2);
    expect([...kinds].sort()).toEqual(["artifact-update", "message", "status-update", "task"]);
  });
});
