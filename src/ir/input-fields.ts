import { isObject, type JsonObject } from "../schema/json.js";
import { refName } from "../schema/normalize.js";
import type { InputFields } from "../runtime/wire/proto-json-input.js";

/**
 * The fields a ProtoJSON reader accepts in the params of each method (1.0): for every object definition the
 * params reach, its fields (lowerCamel JSON names, as the schema derived from the proto has them) and what
 * each holds: "" a value kept as it is (a scalar, an enum, a free-form Struct such as `metadata`), a
 * definition name (a message, or a list of them), or "map:<definition>" (a map of messages). The runtime
 * (`runtime/wire/proto-json-input.ts`) accepts each field also under its proto name (`history_length`), as
 * ProtoJSON parsers do, and leaves out fields a definition does not have.
 */
export function inputFieldsOf(definitions: Record<string, JsonObject>, roots: readonly string[]): InputFields {
  const out: Record<string, Record<string, string>> = {};
  const pending = [...roots];
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (name in out || !definitions[name]) continue;
    const fields = fieldsOf(definitions[name] as JsonObject, definitions);
    if (fields === undefined) continue;
    out[name] = fields;
    for (const holds of Object.values(fields)) {
      const nested = holds.replace(/^map:/, "");
      if (nested !== "") pending.push(nested);
    }
  }
  // A reference to something that is not an object of fields (an enum such as TaskState) holds a value.
  for (const fields of Object.values(out)) for (const [field, value] of Object.entries(fields)) if (value !== "" && !(value.replace(/^map:/, "") in out)) fields[field] = "";
  return Object.fromEntries(Object.keys(out).sort().map((name) => [name, out[name] as Record<string, string>]));
}

/** An object definition's fields (over its union members too), or undefined when it is not an object of fields. */
function fieldsOf(schema: JsonObject, definitions: Record<string, JsonObject>, depth = 0): Record<string, string> | undefined {
  if (depth > 4) return undefined;
  const ref = refName(schema.$ref);
  if (ref) return fieldsOf(definitions[ref] ?? {}, definitions, depth + 1);
  const fields: Record<string, string> = {};
  let found = false;
  if (isObject(schema.properties)) {
    found = true;
    for (const [field, property] of Object.entries(schema.properties)) if (isObject(property)) fields[field] = holds(property);
  }
  for (const keyword of ["anyOf", "oneOf", "allOf"] as const) {
    const members = schema[keyword];
    if (!Array.isArray(members)) continue;
    for (const member of members) {
      const inner = isObject(member) ? fieldsOf(member, definitions, depth + 1) : undefined;
      if (!inner) continue;
      found = true;
      for (const [field, value] of Object.entries(inner)) if (!(field in fields) || fields[field] === "") fields[field] = value;
    }
  }
  return found ? fields : undefined;
}

/** What one property holds: a message (or list of them), a map of messages, or a value kept as it is. */
function holds(property: JsonObject): string {
  const ref = refName(property.$ref);
  if (ref) return ref;
  if (isObject(property.items)) {
    const item = refName(property.items.$ref);
    if (item) return item;
  }
  if (isObject(property.additionalProperties) && !isObject(property.properties)) {
    const value = refName(property.additionalProperties.$ref);
    if (value) return `map:${value}`;
  }
  return "";
}
