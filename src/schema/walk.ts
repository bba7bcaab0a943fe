import { joinPointer } from "../errors.js";
import { isObject, type Json, type JsonObject } from "./json.js";

/** Keywords whose value is one subschema. */
const SCHEMA_KEYWORDS = ["additionalProperties", "items", "not", "if", "then", "else", "contains", "propertyNames", "additionalItems"];
/** Keywords whose value is an array of subschemas. */
const SCHEMA_ARRAY_KEYWORDS = ["anyOf", "oneOf", "allOf", "items"];
/** Keywords whose value maps names to subschemas. */
const SCHEMA_MAP_KEYWORDS = ["properties", "patternProperties", "definitions", "$defs", "dependencies"];

export type SchemaVisitor = (schema: JsonObject, pointer: string) => JsonObject | void;

/**
 * Visits every subschema depth-first (parents before children). The visitor may return a replacement
 * node, which is then walked in its place. Values of `const`, `enum`, `default` and `examples` are data,
 * never schemas, and are not visited.
 */
export function walkSchema(schema: JsonObject, pointer: string, visit: SchemaVisitor): JsonObject {
  const replaced = visit(schema, pointer) ?? schema;
  for (const key of SCHEMA_KEYWORDS) {
    const child = replaced[key];
    if (isObject(child)) replaced[key] = walkSchema(child, joinPointer(pointer, key), visit);
  }
  for (const key of SCHEMA_ARRAY_KEYWORDS) {
    const children = replaced[key];
    if (Array.isArray(children)) {
      replaced[key] = children.map((child, i) => (isObject(child) ? walkSchema(child, joinPointer(pointer, key, i), visit) : child));
    }
  }
  for (const key of SCHEMA_MAP_KEYWORDS) {
    const map = replaced[key];
    if (isObject(map)) {
      for (const [name, child] of Object.entries(map)) {
        if (isObject(child)) map[name] = walkSchema(child, joinPointer(pointer, key, name), visit);
      }
    }
  }
  return replaced;
}

/** Every `$ref` value reachable from a schema (excluding nested definitions maps). */
export function collectRefs(schema: Json): string[] {
  const refs: string[] = [];
  if (!isObject(schema)) return refs;
  walkSchema(structuredClone(schema), "", (node) => {
    if (typeof node.$ref === "string") refs.push(node.$ref);
  });
  return refs;
}
