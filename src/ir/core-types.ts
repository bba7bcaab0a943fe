import { CodegenError } from "../errors.js";
import { isObject, type JsonObject } from "../schema/json.js";
import { refName } from "../schema/normalize.js";
import type { CoreTypes, MethodInfo, MethodRole } from "./types.js";

/**
 * The definitions the generated client and server are written against, found by the role they play in
 * the method table, so that a schema naming them otherwise (`Msg` for `Message`) still generates code
 * that compiles:
 * - the message: the `message` of the send method's params;
 * - the part: the items of the message's `parts`;
 * - the task: the result of the get method;
 * - the artifact: the items of the task's `artifacts`;
 * - the agent card: `AgentCard`, else the result of the extended-card method.
 * Where the method table does not say, the definition of the usual name is taken; where there is none,
 * the schema is refused with a message naming the role.
 */
export function findCoreTypes(
  defs: Record<string, JsonObject>,
  methods: MethodInfo[],
  roles: { [R in MethodRole]?: string },
  at: (pointer: string) => { file: string; pointer: string },
): CoreTypes {
  const method = (role: MethodRole) => methods.find((m) => m.method === roles[role]);
  const has = (name: string | undefined): name is string => name !== undefined && Object.prototype.hasOwnProperty.call(defs, name);
  const pick = (role: string, found: string | undefined, usual: string, how: string): string => {
    if (has(found)) return found;
    if (has(usual)) return usual;
    throw new CodegenError(
      `no definition plays the role of the ${role}, which the generated client and server need: ${how}, and there is no definition "${usual}"`,
      at("/definitions"),
    );
  };

  const send = method("send") ?? method("stream");
  const message = pick(
    "message",
    send?.paramsType ? propertyRef(defs[send.paramsType], "message") : undefined,
    "Message",
    send ? `the params of "${send.method}" have no "message" property that refers to a definition` : "the schema has no send method (role send)",
  );
  const part = pick("part", itemsRef(defs[message], "parts"), "Part", `the "parts" of "${message}" are not a list of a definition`);
  const get = method("get");
  const task = pick(
    "task",
    resultRef(defs, get?.responseType),
    "Task",
    get ? `the result of "${get.method}" is not a definition` : "the schema has no get method (role get)",
  );
  const artifact = pick("artifact", itemsRef(defs[task], "artifacts"), "Artifact", `the "artifacts" of "${task}" are not a list of a definition`);
  const card = method("extendedCard");
  const agentCard = has("AgentCard") ? "AgentCard" : resultRef(defs, card?.responseType);
  if (!has(agentCard)) {
    throw new CodegenError(
      `not an A2A JSON Schema: none of its ${Object.keys(defs).length} definitions is "AgentCard" (nor the result of an extended-card method)`,
      at("/definitions"),
    );
  }
  return { agentCard, message, part, task, artifact };
}

function propertyRef(schema: JsonObject | undefined, property: string): string | undefined {
  const props = schema?.properties;
  const value = isObject(props) ? props[property] : undefined;
  return isObject(value) ? refName(value.$ref) : undefined;
}

function itemsRef(schema: JsonObject | undefined, property: string): string | undefined {
  const props = schema?.properties;
  const value = isObject(props) ? props[property] : undefined;
  return isObject(value) && isObject(value.items) ? refName(value.items.$ref) : undefined;
}

/** The definition a success response's `result` refers to (the response is one object or a union of them). */
export function resultRef(defs: Record<string, JsonObject>, responseType: string | undefined): string | undefined {
  const response = responseType !== undefined ? defs[responseType] : undefined;
  if (!response) return undefined;
  const members = (response.anyOf ?? response.oneOf ?? [response]) as unknown[];
  for (const member of members) {
    if (!isObject(member)) continue;
    const ref = refName(member.$ref);
    const schema = ref !== undefined ? defs[ref] : member;
    const found = propertyRef(schema, "result");
    if (found !== undefined) return found;
  }
  return undefined;
}
