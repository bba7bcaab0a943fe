import { CodegenError } from "../errors.js";
import { isObject, type JsonObject } from "../schema/json.js";
import type { Overlay } from "./overlay.js";
import { refName } from "../schema/normalize.js";
import { objectShape } from "./unions.js";
import { PROFILE_OBJECTS, TASK_CONTEXT_FIELDS } from "../runtime/profile.js";
import { METHOD_ROLES, type CoreTypes, type ErrorInfo, type MethodInfo, type MethodRole, type ObjectShape, type ProtocolProfile, type UnionInfo } from "./types.js";
import type { SendFields, TaskParamFields } from "../runtime/profile.js";

export function buildProfile(
  defs: Record<string, JsonObject>,
  methods: MethodInfo[],
  errors: ErrorInfo[],
  overlay: Overlay,
  specVersion: string,
  discriminatorField: string | undefined,
  unions: UnionInfo[],
  core: CoreTypes,
): ProtocolProfile {
  // The runtime asks for the core objects by their usual names ("Task"); a schema may name them otherwise.
  const actual = (usual: string): string => ({ AgentCard: core.agentCard, Message: core.message, Part: core.part, Task: core.task, Artifact: core.artifact })[usual] ?? usual;
  const usualOf = new Map<string, string>(Object.entries({ AgentCard: core.agentCard, Message: core.message, Part: core.part, Task: core.task, Artifact: core.artifact }).map(([usual, name]) => [name, usual]));
  const usual = (name: string): string => usualOf.get(name) ?? name;
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
  for (const name of [...PROFILE_OBJECTS, ...Object.values(params)].sort()) {
    const def = defs[actual(name)];
    const shape = def ? objectShape(def, defs) : undefined;
    if (shape && Object.keys(shape.properties).length > 0) objects[name] = shapeOf(shape);
  }
  const contextField = contextFieldOf(objects.Task);
  const sendFields = sendFieldsOf(defs, params.send !== undefined ? defs[params.send] : undefined, contextField, defs[actual("Message")], overlay);
  const taskFields = taskFieldsOf(defs, roles, methods);
  const stateProp = (defs[actual("TaskStatus")] ?? defs.TaskStatus)?.properties;
  const stateRef = isObject(stateProp) && isObject(stateProp.state) ? refName(stateProp.state.$ref) : undefined;
  const state = (stateRef !== undefined ? defs[stateRef] : undefined) ?? defs.TaskState;
  const taskStates = state && Array.isArray(state.enum) ? state.enum.filter((v): v is string => typeof v === "string") : [];
  const errorCodes: Record<string, number> = {};
  for (const e of errors) errorCodes[e.name.replace(/Error$/, "")] = e.code;
  const jsonrpcRequired = methods.every((m) => {
    const required = defs[m.requestType]?.required;
    return Array.isArray(required) && required.includes("jsonrpc");
  });
  const resultWrappers: { [R in MethodRole]?: Record<string, string> } = {};
  for (const [role, method] of Object.entries(roles)) {
    const wrappers = wrappersOf(defs, unions, methods.find((m) => m.method === method));
    if (wrappers) resultWrappers[role as MethodRole] = Object.fromEntries(Object.entries(wrappers).map(([name, property]) => [usual(name), property]));
  }
  return {
    specVersion,
    wellKnownAgentCardPath: overlay.wellKnownAgentCardPath,
    ...(discriminatorField !== undefined ? { discriminatorField } : {}),
    methods: roles,
    params,
    objects,
    sendFields,
    taskFields,
    ...(contextField !== undefined ? { contextField } : {}),
    taskStates,
    errorCodes,
    jsonrpcRequired,
    roleValues: roleValuesOf(defs, core.message),
    errorDetails: errors.some((e) => {
      const data = (defs[e.name]?.properties as JsonObject | undefined)?.data;
      return isObject(data) && data.type === "array";
    }),
    emptyResults: Object.entries(roles)
      .filter(([, method]) => isEmptyObjectResult(defs, methods.find((m) => m.method === method)))
      .map(([role]) => role as MethodRole)
      .sort(),
    streamResults: streamResultsOf(defs, methods.find((m) => m.method === roles.stream)).map(usual).sort(),
    resultWrappers,
    ...(overlay.versionHeader ? { versionHeader: overlay.versionHeader } : {}),
    protoJson: overlay.protoJson === true,
    serverGeneratedTaskIds: overlay.serverGeneratedTaskIds === true,
    ...(overlay.streamErrorsAsResponse === true ? { streamErrorsAsResponse: true } : {}),
    ...(overlay.extensionsHeader ? { extensionsHeader: overlay.extensionsHeader } : {}),
  };
}

/** The definitions a streamed result can be (a Task first, then updates; 0.1.0 has only updates). */
function streamResultsOf(defs: Record<string, JsonObject>, method: MethodInfo | undefined): string[] {
  const found = new Set<string>();
  const visit = (schema: unknown, depth: number) => {
    if (!isObject(schema) || depth > 8) return;
    const ref = refName(schema.$ref);
    if (ref) {
      const target = defs[ref];
      if (target && (Array.isArray(target.anyOf) || Array.isArray(target.oneOf) || ref.endsWith("Response"))) visit(target, depth + 1);
      else found.add(ref);
      return;
    }
    for (const member of [...((schema.anyOf as unknown[]) ?? []), ...((schema.oneOf as unknown[]) ?? [])]) visit(member, depth + 1);
    if (isObject(schema.properties)) {
      const props = schema.properties as JsonObject;
      // A success response: its result. A wrapper (1.0 StreamResponse variant): its one member.
      if ("result" in props) visit(props.result, depth + 1);
      else if (!("jsonrpc" in props)) for (const value of Object.values(props)) visit(value, depth + 1);
    }
  };
  if (method?.responseType) visit({ $ref: `#/definitions/${method.responseType}` }, 0);
  found.delete("JSONRPCError");
  return [...found].filter((n) => !/Error$/.test(n)).sort();
}

/** Whether a method answers with an empty object (1.0's google.protobuf.Empty) rather than null. */
function isEmptyObjectResult(defs: Record<string, JsonObject>, method: MethodInfo | undefined): boolean {
  const response = method?.responseType ? defs[method.responseType] : undefined;
  const members = response ? ((response.anyOf ?? response.oneOf) as unknown[] | undefined) ?? [response] : [];
  return members.some((member) => {
    const schema = isObject(member) ? (refName(member.$ref) ? defs[refName(member.$ref) as string] : member) : undefined;
    const result = isObject(schema?.properties) ? (schema?.properties as JsonObject).result : undefined;
    return isObject(result) && result.type === "object" && !isObject(result.properties) && !Array.isArray(result.required);
  });
}

/** The values of Message.role: an inline enum, or the enumeration it refers to. */
function roleValuesOf(defs: Record<string, JsonObject>, message: string): string[] {
  const props = defs[message]?.properties;
  let role = isObject(props) ? props.role : undefined;
  const target = isObject(role) ? refName(role.$ref) : undefined;
  if (target) role = defs[target];
  return isObject(role) && Array.isArray(role.enum) ? role.enum.filter((v): v is string => typeof v === "string") : [];
}

/**
 * How a method wraps its results, when its success `result` is a union told apart by which property is
 * present (1.0's `SendMessageResponse`: `task` | `message`): wrapped definition → property.
 */
function wrappersOf(defs: Record<string, JsonObject>, unions: UnionInfo[], method: MethodInfo | undefined): Record<string, string> | undefined {
  const response = method?.responseType ? defs[method.responseType] : undefined;
  const members = response ? ((response.anyOf ?? response.oneOf) as unknown[] | undefined) ?? [response] : [];
  for (const member of members) {
    const schema = isObject(member) ? (refName(member.$ref) ? defs[refName(member.$ref) as string] : member) : undefined;
    const result = isObject(schema?.properties) ? (schema?.properties as JsonObject).result : undefined;
    const target = isObject(result) ? refName(result.$ref) : undefined;
    const union = unions.find((u) => u.definition === target);
    if (union?.dispatch.kind !== "presence") continue;
    const out: Record<string, string> = {};
    for (const marker of union.dispatch.markers) {
      const variant = union.members[marker.member.index];
      const props = isObject(defs[target as string]) ? ((defs[target as string]?.anyOf as JsonObject[] | undefined)?.[variant?.index ?? -1]?.properties as JsonObject | undefined) : undefined;
      const ref = isObject(props?.[marker.property]) ? refName((props?.[marker.property] as JsonObject).$ref) : undefined;
      if (ref) out[ref] = marker.property;
    }
    if (Object.keys(out).length > 0) return out;
  }
  return undefined;
}

function shapeOf(def: { properties: JsonObject; required: string[] }): ObjectShape {
  const props = def.properties;
  const consts: Record<string, string | number> = {};
  for (const [key, schema] of Object.entries(props)) {
    if (isObject(schema) && (typeof schema.const === "string" || typeof schema.const === "number")) consts[key] = schema.const;
  }
  return {
    properties: Object.keys(props),
    required: def.required,
    consts,
  };
}

/**
 * The Task's property that names the conversation: the first of the runtime's spellings
 * (TASK_CONTEXT_FIELDS: `contextId`, 0.1.0's `sessionId`) the schema's Task has.
 */
function contextFieldOf(task: ObjectShape | undefined): string | undefined {
  return TASK_CONTEXT_FIELDS.find((field) => task?.properties.includes(field) === true);
}

/**
 * Where the send params carry what the runtime reads of a send (runtime/profile.ts SendFields), found in the
 * schema: the context by the Task's context field (`contextId`, 0.1.0's `sessionId`) beside the message
 * or on it; `historyLength` and `acceptedOutputModes` by name, in the params or one object down (the
 * configuration); the push config by its type (PushNotificationConfig or TaskPushNotificationConfig); the
 * non-blocking flag by the overlay's field name.
 */
function sendFieldsOf(
  defs: Record<string, JsonObject>,
  sendParams: JsonObject | undefined,
  contextField: string | undefined,
  message: JsonObject | undefined,
  overlay: Overlay,
): SendFields {
  if (!sendParams) return {};
  const propsOf = (def: JsonObject | undefined): JsonObject => (def && isObject(def.properties) ? def.properties : {});
  const target = (schema: unknown): JsonObject | undefined => {
    const ref = isObject(schema) ? refName(schema.$ref) : undefined;
    return ref !== undefined ? defs[ref] : undefined;
  };
  const top = propsOf(sendParams);
  // A property by name: in the params, else in an object they hold (the configuration); never in the message.
  const find = (predicate: (name: string, schema: unknown) => boolean): string | undefined => {
    for (const [name, schema] of Object.entries(top)) if (predicate(name, schema)) return `/${name}`;
    for (const [outer, schema] of Object.entries(top)) {
      if (outer === "message") continue;
      for (const [name, inner] of Object.entries(propsOf(target(schema)))) if (predicate(name, inner)) return `/${outer}/${name}`;
    }
    return undefined;
  };
  const contextId =
    contextField === undefined ? undefined : contextField in top ? `/${contextField}` : contextField in propsOf(message) ? `/message/${contextField}` : undefined;
  const pushTypes = new Set([defs.PushNotificationConfig, defs.TaskPushNotificationConfig].filter((d) => d !== undefined));
  const pushConfig = find((_name, schema) => {
    const def = target(schema);
    return def !== undefined && pushTypes.has(def);
  });
  const historyLength = find((name) => name === "historyLength");
  const acceptedOutputModes = find((name) => name === "acceptedOutputModes");
  const flag = overlay.nonBlocking;
  const flagPointer = flag ? find((name) => name === flag.field) : undefined;
  return {
    ...(contextId !== undefined ? { contextId } : {}),
    ...(historyLength !== undefined ? { historyLength } : {}),
    ...(acceptedOutputModes !== undefined ? { acceptedOutputModes } : {}),
    ...(pushConfig !== undefined ? { pushConfig } : {}),
    ...(flag && flagPointer !== undefined ? { nonBlocking: { pointer: flagPointer, value: flag.value } } : {}),
  };
}

/** The roles whose params address an existing task. */
const TASK_ROLES = ["get", "cancel", "resubscribe", "pushSet", "pushGet", "pushList", "pushDelete"] as const satisfies readonly MethodRole[];

/**
 * Where the params of the task and push-config methods name the task and the config (runtime/profile.ts
 * TaskParamFields), found in the schema: the properties of each method's params (objectShape: references
 * and allOf followed), every member's where the params are a union (0.3.0's push get: GetTaskPushNotificationConfigParams or TaskIdParams). The
 * task is `taskId` where the params have it (push configs and their requests, whose `id` then names the
 * config in 1.0), else `id`; the nested config is the set params' property of type PushNotificationConfig;
 * the config id is a get/delete params' `…ConfigId` property, else their `id` beside `taskId`.
 */
function taskFieldsOf(defs: Record<string, JsonObject>, roles: { [R in MethodRole]?: string }, methods: MethodInfo[]): TaskParamFields {
  // The properties of every member of a union (references and allOf followed by objectShape), the first one's schema kept.
  const propertiesOf = (schema: unknown, found = new Map<string, unknown>(), depth = 0): Map<string, unknown> => {
    if (!isObject(schema) || depth > 4) return found;
    const ref = refName(schema.$ref);
    const target = ref !== undefined ? defs[ref] : schema;
    const union = isObject(target) ? ((target.anyOf ?? target.oneOf) as unknown[] | undefined) : undefined;
    if (Array.isArray(union)) {
      for (const member of union) propertiesOf(member, found, depth + 1);
      return found;
    }
    for (const [name, property] of Object.entries(objectShape(schema, defs)?.properties ?? {})) if (!found.has(name)) found.set(name, property);
    return found;
  };
  const params = new Map<MethodRole, Map<string, unknown>>();
  for (const role of TASK_ROLES) {
    const method = methods.find((m) => m.method === roles[role]);
    const request = method ? defs[method.requestType] : undefined;
    params.set(role, propertiesOf(request && isObject(request.properties) ? request.properties.params : undefined));
  }
  const of = (role: MethodRole): Map<string, unknown> => params.get(role) ?? new Map();
  const taskId: { [R in MethodRole]?: string } = {};
  for (const role of TASK_ROLES) {
    const props = of(role);
    const field = props.has("taskId") ? "taskId" : props.has("id") ? "id" : undefined;
    if (field !== undefined) taskId[role] = field;
  }
  const pushConfig = [...of("pushSet")].find(([, schema]) => isObject(schema) && refName(schema.$ref) === "PushNotificationConfig")?.[0];
  let pushConfigId: string | undefined;
  for (const role of ["pushGet", "pushDelete"] as const) {
    const props = of(role);
    pushConfigId ??= [...props.keys()].find((name) => /ConfigId$/.test(name)) ?? (props.has("taskId") && props.has("id") ? "id" : undefined);
  }
  return {
    taskId,
    ...(of("get").has("historyLength") ? { historyLength: "historyLength" } : {}),
    ...(pushConfig !== undefined ? { pushConfig } : {}),
    ...(pushConfigId !== undefined ? { pushConfigId } : {}),
  };
}

/**
 * The definition a push config store keeps: what a send carries as its push config and a set request
 * registers — 1.0's TaskPushNotificationConfig where that object holds the url itself (flat configs,
 * runtime/profile.ts flatPushConfigs), else PushNotificationConfig (0.x, nested in the task's config);
 * undefined for a schema with neither.
 */
export function pushConfigDefinition(profile: ProtocolProfile): string | undefined {
  if (profile.objects.TaskPushNotificationConfig?.properties.includes("url") === true) return "TaskPushNotificationConfig";
  return profile.objects.PushNotificationConfig !== undefined ? "PushNotificationConfig" : undefined;
}
