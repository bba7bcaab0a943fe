import fc from "fast-check";
import {
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  SendMessageRequest,
  SubscribeToTaskRequest,
  TaskPushNotificationConfig,
} from "a2a-sdk-v1";
import { LegacyJsonRpcTransportHandler } from "a2a-sdk-v1/compat/v0_3/server";
import { ServerCallContext } from "a2a-sdk-v1/server";
import { describe, expect, it } from "vitest";
import { TABLE_0_3_TO_1_0 } from "../../src/compat/table.js";
import { VersionConverter, type Loss } from "../../src/runtime/compat.js";
import { schemaArbitrary } from "../support/arbitrary.js";
import { arbitraryContext, derived } from "./support.js";

/**
 * The params of every 0.3 method, converted to 1.0 by our derived mapping and by the official SDK 1.3.0's
 * v0.3 JSON-RPC handler (`LegacyJsonRpcTransportHandler`, which translates a 0.3 request and calls a 1.0
 * request handler: here one that records what it is called with). Both give the same 1.0 params, up to
 * ProtoJSON's defaults (1.0.1 §5.7), for generated valid 0.3 params.
 */

const SEED = 0x9a2;
const RUNS = 120;
const { compat, mapping } = derived();

type ToJson = { toJSON(message: never): unknown };
/** The 1.0 request-handler method each 0.3 method lands on, and the proto type of its params. */
const HANDLER: Record<string, { handler: string; type: ToJson }> = {
  "message/send": { handler: "sendMessage", type: SendMessageRequest as ToJson },
  "message/stream": { handler: "sendMessageStream", type: SendMessageRequest as ToJson },
  "tasks/get": { handler: "getTask", type: GetTaskRequest as ToJson },
  "tasks/cancel": { handler: "cancelTask", type: CancelTaskRequest as ToJson },
  "tasks/resubscribe": { handler: "resubscribe", type: SubscribeToTaskRequest as ToJson },
  "tasks/pushNotificationConfig/set": { handler: "createTaskPushNotificationConfig", type: TaskPushNotificationConfig as ToJson },
  "tasks/pushNotificationConfig/get": { handler: "getTaskPushNotificationConfig", type: GetTaskPushNotificationConfigRequest as ToJson },
  "tasks/pushNotificationConfig/list": { handler: "listTaskPushNotificationConfigs", type: ListTaskPushNotificationConfigsRequest as ToJson },
  "tasks/pushNotificationConfig/delete": { handler: "deleteTaskPushNotificationConfig", type: DeleteTaskPushNotificationConfigRequest as ToJson },
};

/** A 1.0 request handler that records the params of the one call it gets, then fails it. */
function recorder(): { handler: never; calls: Array<{ method: string; params: unknown }> } {
  const calls: Array<{ method: string; params: unknown }> = [];
  const handler = new Proxy(
    {},
    {
      get: (_target, method: string) => {
        if (method === "then") return undefined;
        // The handler checks the card's capabilities before streaming.
        if (method === "getAgentCard") return () => Promise.resolve({ capabilities: { streaming: true, pushNotifications: true, extensions: [] } });
        return (params: unknown) => {
          calls.push({ method, params });
          if (method === "sendMessageStream" || method === "resubscribe") {
            return (async function* () {
              /* no events */
            })();
          }
          return Promise.reject(new Error("recorded"));
        };
      },
    },
  );
  return { handler: handler as never, calls };
}

/** ProtoJSON: fields at their default ("", false, 0, [], {}, `*_UNSPECIFIED`) are left out. */
function withoutDefaults(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDefaults);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const w = withoutDefaults(v);
    const empty = w === "" || w === false || w === 0 || (typeof w === "string" && /^[A-Z_]+_UNSPECIFIED$/.test(w)) || (Array.isArray(w) && w.length === 0) || (w !== null && typeof w === "object" && !Array.isArray(w) && Object.keys(w).length === 0);
    if (!empty) out[key] = w;
  }
  return out;
}

function protoParsable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(protoParsable);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) out[key] = key === "bytes" && typeof v === "string" ? "aGVsbG8=" : protoParsable(v);
  return out;
}

describe("the derived mapping's params agree with the official SDK 1.3.0's v0.3 JSON-RPC handler", () => {
  for (const m of mapping.methods.filter((x) => x.compat in HANDLER)) {
    it(`${m.compat} → ${m.primary}: ${RUNS} generated params`, async () => {
      const info = compat.methods.find((x) => x.method === m.compat);
      const def = TABLE_0_3_TO_1_0.compatParams[m.role] ?? info?.paramsType;
      if (!def) throw new Error(`no params for ${m.compat}`);
      const ctx = arbitraryContext("0.3.0");
      const { type, handler: expectedHandler } = HANDLER[m.compat] as { type: ToJson; handler: string };
      let compared = 0;
      await fc.assert(
        fc.asyncProperty(schemaArbitrary(ctx, ctx.definition(def)).map(protoParsable), async (params) => {
          const { handler, calls } = recorder();
          const response = await new LegacyJsonRpcTransportHandler(handler).handle({ jsonrpc: "2.0", id: 1, method: m.compat, params: structuredClone(params) }, new ServerCallContext());
          if (Symbol.asyncIterator in Object(response)) for await (const _ of response as AsyncGenerator) void _;
          if (calls.length === 0) return; // the SDK refused the params before calling (its own stricter checks)
          expect(calls.map((c) => c.method)).toEqual([expectedHandler]);
          const theirs = type.toJSON(calls[0]?.params as never);
          const losses: Loss[] = [];
          const ours = new VersionConverter(mapping, { onLoss: (l) => losses.push(l) }).params(m.compat, "toPrimary", params);
          // Where ours fills in a field 0.3 left out (the config id of the task's default config), the SDK leaves it empty.
          const defaulted = losses.filter((l) => l.reason === "defaulted").map(() => "id");
          const strip = (v: unknown) => {
            const copy = withoutDefaults(v) as Record<string, unknown>;
            for (const f of defaulted) delete copy[f];
            return copy;
          };
          const configuration = (params as { configuration?: { blocking?: unknown } }).configuration;
          if (configuration !== undefined && configuration.blocking === undefined) {
            // The one difference, on purpose: a configuration without `blocking` is blocking for ours, as for
            // @a2a-js/sdk 0.3.14's server (`blocking !== false`) and as 1.0.1's default (§3.2.2); the SDK 1.3.0
            // handler makes it returnImmediately (and a request without configuration blocking).
            const conf = (theirs as { configuration?: { returnImmediately?: unknown } }).configuration;
            expect(conf?.returnImmediately).toBe(true);
            delete conf?.returnImmediately;
          }
          expect(strip(ours), JSON.stringify(params)).toEqual(strip(theirs));
          compared++;
        }),
        { seed: SEED, numRuns: RUNS },
      );
      expect(compared).toBeGreaterThan(RUNS / 2);
    });
  }
});
