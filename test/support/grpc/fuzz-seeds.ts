/**
 * What the gRPC fuzz suites share (a server per version here, a compat agent in test/compat): the byte
 * mutations of a valid request, and a valid request of every rpc of 0.3.0's service to mutate.
 */
import type { Rng } from "../seeded-random.js";

/** A valid 0.3.0 request of each rpc of a2a.v1.A2AService (protobufjs objects, snake_case as the proto). */
export const SEEDS_0_3_0: Record<string, object> = {
  SendMessage: { request: { message_id: "m", role: 1, content: [{ text: "task" }, { file: { file_with_uri: "https://x.example/f", mime_type: "text/plain" } }, { data: { data: { fields: { a: { numberValue: 1 } } } } }] }, configuration: { blocking: true, history_length: 2 } },
  GetTask: { name: "tasks/t-1", history_length: 1 },
  CancelTask: { name: "tasks/t-1" },
  CreateTaskPushNotificationConfig: { parent: "tasks/t-1", config_id: "c", config: { push_notification_config: { url: "http://127.0.0.1:9/h", authentication: { schemes: ["Bearer"] } } } },
  GetTaskPushNotificationConfig: { name: "tasks/t-1/pushNotificationConfigs/c" },
  ListTaskPushNotificationConfig: { parent: "tasks/t-1" },
  DeleteTaskPushNotificationConfig: { name: "tasks/t-1/pushNotificationConfigs/c" },
  GetAgentCard: {},
};

/** A valid request's bytes, changed the way a broken or hostile client would: flipped, cut, spliced, random, or unchanged. */
export function mutate(bytes: Uint8Array, r: Rng): Uint8Array {
  const out = [...bytes];
  switch (r.int(5)) {
    case 0: // flip a few bytes
      for (let n = 1 + r.int(3); n > 0 && out.length > 0; n--) out[r.int(out.length)] = r.int(256);
      break;
    case 1: // truncate
      out.length = r.int(out.length + 1);
      break;
    case 2: // splice random bytes in
      out.splice(r.int(out.length + 1), 0, ...Array.from({ length: 1 + r.int(8) }, () => r.int(256)));
      break;
    case 3: // all random
      return Uint8Array.from({ length: r.int(64) }, () => r.int(256));
    default: // unchanged: the valid request
      break;
  }
  return Uint8Array.from(out);
}
