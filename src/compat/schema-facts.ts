import type { MethodInfo, MethodRole, ProtocolIR } from "../ir/types.js";
import type { JsonValue } from "../runtime/compat/converter.js";
import { isObject, type Json, type JsonObject } from "../schema/json.js";
import { refName } from "../schema/normalize.js";

/** What the mapping's derivation (derive.ts) reads off a version's IR and its schemas. */

export function roleOf(ir: ProtocolIR, method: string): MethodRole | undefined {
  const entry = Object.entries(ir.profile.methods).find(([, m]) => m === method);
  return entry ? (entry[0] as MethodRole) : undefined;
}

/** The `result` schema of a method's success response. */
export function successResult(ir: ProtocolIR, method: MethodInfo): Json | undefined {
  const defs = new Map(ir.types.map((t) => [t.name, t.schema]));
  const response = method.responseType ? defs.get(method.responseType) : undefined;
  if (!response) return undefined;
  const members = (response.anyOf ?? response.oneOf ?? [response]) as Json[];
  for (const member of members) {
    const ref = isObject(member) ? refName(member.$ref) : undefined;
    const schema = ref ? defs.get(ref) : member;
    const props = isObject(schema) ? schema.properties : undefined;
    if (isObject(props) && props.result !== undefined) return props.result;
  }
  return undefined;
}

export function patternOf(schema: Json | undefined): string | undefined {
  return isObject(schema) && typeof schema.pattern === "string" ? schema.pattern : undefined;
}

export function enumValues(schema: Json | undefined): string[] | undefined {
  if (!isObject(schema) || !Array.isArray(schema.enum)) return undefined;
  return schema.enum.filter((v): v is string => typeof v === "string");
}

/**
 * The spelling rule of enumeration values: `TASK_STATE_INPUT_REQUIRED` (the enumeration's common
 * `UPPER_` prefix dropped, lower case, `-` for `_`) is `input-required`; lower-case values stay as they are.
 */
export function canonicalizer(values: readonly string[]): (value: string) => string {
  const upper = values.length > 0 && values.every((v) => /^[A-Z0-9_]+$/.test(v));
  let prefix = "";
  if (upper && values.length > 1) {
    const first = values[0] as string;
    let i = 0;
    while (values.every((v) => v[i] === first[i]) && i < first.length) i++;
    prefix = first.slice(0, first.lastIndexOf("_", i - 1) + 1);
  }
  return (value) => (upper ? value.slice(prefix.length).toLowerCase().replace(/_/g, "-") : value);
}

export function constsOf(props: JsonObject): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const [key, schema] of Object.entries(props)) {
    if (isObject(schema) && schema.const !== undefined) out[key] = schema.const as JsonValue;
  }
  return out;
}

export function requiredOf(schema: JsonObject): string[] {
  return Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : [];
}
