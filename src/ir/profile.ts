import { CodegenError } from "../errors.js";
import { isObject, type JsonObject } from "../schema/json.js";
import type { Overlay } from "./overlay.js";
import { METHOD_ROLES, type ErrorInfo, type MethodInfo, type MethodRole, type ObjectShape, type ProtocolProfile } from "./types.js";

/** The protocol objects whose shapes the runtime reads (when the schema defines them). */
const RUNTIME_OBJECTS = [
  "AgentCard",
  "AgentCapabilities",
  "Artifact",
  "Message",
  "MessageSendConfiguration",
  "PushNotificationConfig",
  "Task",
  "TaskArtifactUpdateEvent",
  "TaskPushNotificationConfig",
  "TaskStatus",
  "TaskStatusUpdateEvent",
];

export function buildProfile(
  defs: Record<string, JsonObject>,
  methods: MethodInfo[],
  errors: ErrorInfo[],
  overlay: Overlay,
  specVersion: string,
  discriminatorField: string | undefined,
): ProtocolProfile {
  const roles: { [R in MethodRole]?: string } = {};
  const params: { [R in MethodRole]?: string } = {};
  for (const [role, method] of Object.entries(overlay.roles)) {
    if (!(METHOD_ROLES as readonly string[]).includes(role)) {
      throw new CodegenError(`unknown role "${role}"; roles: ${METHOD_ROLES.join(", ")}`, {
        file: `a2a-${overlay.version}.overlay.json`,
        pointer: `/roles/${role}`,
      });
    }
    const info = methods.find((m) => m.method === method);
    if (!info) continue; // a derived schema may lack the method
    roles[role as MethodRole] = method;
    if (info.paramsType) params[role as MethodRole] = info.paramsType;
  }
  const objects: Record<string, ObjectShape> = {};
  for (const name of [...RUNTIME_OBJECTS, ...Object.values(params)].sort()) {
    const def = defs[name];
    if (def && isObject(def.properties)) objects[name] = shapeOf(def);
  }
  const state = defs.TaskState;
  const taskStates = state && Array.isArray(state.enum) ? state.enum.filter((v): v is string => typeof v === "string") : [];
  const errorCodes: Record<string, number> = {};
  for (const e of errors) errorCodes[e.name.replace(/Error$/, "")] = e.code;
  const jsonrpcRequired = methods.every((m) => {
    const required = defs[m.requestType]?.required;
    return Array.isArray(required) && required.includes("jsonrpc");
  });
  return {
    specVersion,
    wellKnownAgentCardPath: overlay.wellKnownAgentCardPath,
    ...(discriminatorField !== undefined ? { discriminatorField } : {}),
    methods: roles,
    params,
    objects,
    taskStates,
    errorCodes,
    jsonrpcRequired,
  };
}

function shapeOf(def: JsonObject): ObjectShape {
  const props = def.properties as JsonObject;
  const consts: Record<string, string | number> = {};
  for (const [key, schema] of Object.entries(props)) {
    if (isObject(schema) && (typeof schema.const === "string" || typeof schema.const === "number")) consts[key] = schema.const;
  }
  return {
    properties: Object.keys(props),
    required: Array.isArray(def.required) ? def.required.filter((r): r is string => typeof r === "string") : [],
    consts,
  };
}
