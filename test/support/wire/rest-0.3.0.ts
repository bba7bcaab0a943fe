/**
 * An independent check of what 0.3.0's HTTP+JSON binding puts on the wire: each response body (and SSE
 * event) must be the ProtoJSON of the rpc's response message of `a2a-0.3.0.proto` (read here from the
 * bundled proto, not from the generated code), strictly: no field the proto does not declare, enums by
 * their names, oneofs with one member. specification-0.3.0.md §3.2.3 asks for JSON "structurally
 * equivalent to the core A2A data structures"; the official 0.3 SDK speaks the proto's JSON (the decision
 * is recorded in test/runtime/http/rest.test.ts).
 */
import { join } from "node:path";
import { grpcDescriptor } from "../../../src/emit/grpc.js";
import { loadGrpcBinding, type LoadedGrpcBinding } from "../../../src/runtime/grpc/binding.js";
import { messageFromJson } from "../../../src/runtime/grpc/proto-json.js";
import { ROOT } from "../project.js";

let binding: LoadedGrpcBinding | undefined;

/** The 0.3.0 proto's service, loaded once. */
export function protoBinding030(): LoadedGrpcBinding {
  if (!binding) {
    const methods = ["message/send", "message/stream", "tasks/get", "tasks/cancel", "tasks/resubscribe", "tasks/pushNotificationConfig/set", "tasks/pushNotificationConfig/get", "tasks/pushNotificationConfig/list", "tasks/pushNotificationConfig/delete", "agent/getAuthenticatedExtendedCard"];
    const d = grpcDescriptor(join(ROOT, "schema/a2a-0.3.0.proto"), methods, "0.3.0");
    binding = loadGrpcBinding({ proto: d.proto, service: d.service, methods: d.methods, errorCodes: {} });
  }
  return binding;
}

/** Why `body` is not the ProtoJSON of the rpc's response message, or undefined when it is. */
export function protoJsonProblem(rpc: string, body: unknown): string | undefined {
  const found = protoBinding030().rpcs.get(rpc);
  if (!found) return `no rpc ${rpc} in a2a-0.3.0.proto`;
  try {
    messageFromJson(found.responseType, body);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Why `body` is not 0.3's HTTP+JSON error body `{ code, message, data? }` (the A2A error object), or undefined. */
export function restErrorProblem030(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "the error body is not an object";
  const b = body as Record<string, unknown>;
  if (typeof b.code !== "number" || !Number.isInteger(b.code)) return "no integer code";
  if (typeof b.message !== "string" || b.message === "") return "no message";
  const extra = Object.keys(b).filter((k) => k !== "code" && k !== "message" && k !== "data");
  return extra.length > 0 ? `unexpected members ${extra.join(", ")}` : undefined;
}
