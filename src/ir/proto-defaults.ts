import { isObject, type Json, type JsonObject } from "../schema/json.js";
import { refName } from "../schema/normalize.js";
import type { Holding, ProtoJsonDefaults, TypeDefaults } from "../runtime/wire/proto-defaults.js";
import { objectShape } from "./unions.js";

/**
 * The ProtoJSON defaults of a version whose wire format is ProtoJSON (1.0), for the reading side
 * (src/runtime/wire/proto-defaults.ts): for each message definition, its REQUIRED fields that a ProtoJSON
 * writer leaves out at their default (lists → [], maps → {}, strings → "", numbers → 0, booleans →
 * false, enumerations → their `_UNSPECIFIED` zero value), and where definitions with defaults nest.
 * Not defaulted: fields holding a message (absent means not set), constants, fields of several types,
 * timestamps and other formatted strings (well-known messages), members of a oneof (presence is the
 * information), and the JSON-RPC envelope and error objects (JSON-RPC, not ProtoJSON).
 */
export function protoJsonDefaults(definitions: Record<string, JsonObject>, errorTypes: ReadonlySet<string>): ProtoJsonDefaults {
  const table: Record<string, { defaults: Record<string, Json>; nested: Record<string, [string, Holding]> }> = {};
  for (const [name, def] of Object.entries(definitions)) {
    const isUnion = Array.isArray(def.anyOf) || Array.isArray(def.oneOf);
    const shapes = isUnion
      ? ((def.anyOf ?? def.oneOf) as Json[]).filter(isObject).map((m) => objectShape(m, definitions))
      : [objectShape(def, definitions)];
    const defaults: Record<string, Json> = {};
    const nested: Record<string, [string, Holding]> = {};
    const conflicting = new Set<string>();
    for (const shape of shapes) {
      if (!shape) continue;
      const envelope = "jsonrpc" in shape.properties || errorTypes.has(name);
      for (const [property, schema] of Object.entries(shape.properties)) {
        if (!isObject(schema)) continue;
        const held = holdingOf(schema);
        if (held) {
          const known = nested[property];
          if (known && (known[0] !== held[0] || known[1] !== held[1])) conflicting.add(property);
          else nested[property] = held;
        }
        if (!isUnion && !envelope && shape.required.includes(property)) {
          const fallback = defaultOf(schema, definitions);
          if (fallback !== undefined) defaults[property] = fallback;
        }
      }
    }
    for (const property of conflicting) delete nested[property];
    table[name] = { defaults, nested };
  }

  // Keep what has defaults, or leads to something that has.
  const needed = new Set(Object.keys(table).filter((n) => Object.keys(table[n]?.defaults ?? {}).length > 0));
  for (let grew = true; grew; ) {
    grew = false;
    for (const [name, entry] of Object.entries(table)) {
      if (!needed.has(name) && Object.values(entry.nested).some(([target]) => needed.has(target))) {
        needed.add(name);
        grew = true;
      }
    }
  }
  const out: Record<string, TypeDefaults> = {};
  for (const name of Object.keys(table).sort()) {
    if (!needed.has(name)) continue;
    const entry = table[name] as { defaults: Record<string, Json>; nested: Record<string, [string, Holding]> };
    const nestedNeeded = Object.fromEntries(Object.entries(entry.nested).filter(([, [target]]) => needed.has(target)).sort());
    out[name] = {
      ...(Object.keys(entry.defaults).length > 0 ? { defaults: Object.fromEntries(Object.entries(entry.defaults).sort()) } : {}),
      ...(Object.keys(nestedNeeded).length > 0 ? { nested: nestedNeeded } : {}),
    };
  }
  return out;
}

/** The definition a property holds, and how: `$ref`, a list of `$ref`, or a map to `$ref`. */
function holdingOf(schema: JsonObject): [string, Holding] | undefined {
  const one = refName(schema.$ref);
  if (one !== undefined) return [one, "one"];
  const items = isObject(schema.items) ? refName(schema.items.$ref) : undefined;
  if (items !== undefined) return [items, "list"];
  const values = isObject(schema.additionalProperties) ? refName(schema.additionalProperties.$ref) : undefined;
  if (values !== undefined && !isObject(schema.properties)) return [values, "map"];
  return undefined;
}

/** The ProtoJSON default of a field's schema, or undefined when an absent field has none (a message). */
function defaultOf(schema: JsonObject, definitions: Record<string, JsonObject>): Json | undefined {
  if (schema.const !== undefined || schema.format !== undefined) return undefined;
  const ref = refName(schema.$ref);
  if (ref !== undefined) {
    const target = definitions[ref];
    const values = target && Array.isArray(target.enum) ? target.enum : undefined;
    const zero = values?.[0];
    return typeof zero === "string" && /_UNSPECIFIED$/.test(zero) ? zero : undefined;
  }
  switch (schema.type) {
    case "array":
      return [];
    case "object":
      return isObject(schema.additionalProperties) && !isObject(schema.properties) ? {} : undefined;
    case "string":
      return Array.isArray(schema.enum) ? undefined : "";
    case "integer":
    case "number":
      return 0;
    case "boolean":
      return false;
    default:
      return undefined;
  }
}
