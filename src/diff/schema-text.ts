import { isObject, type Json, type JsonObject } from "../schema/json.js";
import { refName } from "../schema/normalize.js";

/** Maps a definition name before it is printed (used to compare two versions modulo renamed types). */
export type RefMapper = (name: string) => string;

const identity: RefMapper = (name) => name;

/**
 * A short, TypeScript-like rendering of a normalized schema, for reports and for comparing two versions
 * of a property: `string`, `integer | string`, `Part[]`, `"a" | "b"`, `Task | Message`, `{ a: string; b?: X }`.
 * Union members and multiple types are sorted, so that member order does not count as a change.
 * Inline objects show their property types at depth 0 and only their property names deeper down.
 */
export function schemaText(schema: Json | undefined, mapRef: RefMapper = identity, depth = 0): string {
  if (schema === undefined || schema === true) return "unknown";
  if (schema === false) return "never";
  if (!isObject(schema)) return "unknown";
  const ref = refName(schema.$ref);
  if (ref !== undefined) return mapRef(ref);
  if ("const" in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  for (const keyword of ["anyOf", "oneOf"] as const) {
    const members = schema[keyword];
    if (Array.isArray(members)) return unionText(members.map((m) => schemaText(m, mapRef, depth)));
  }
  if (Array.isArray(schema.allOf)) return schema.allOf.map((m) => wrap(schemaText(m, mapRef, depth))).join(" & ");
  const types = typesOf(schema);
  if (types.length === 0) return "unknown";
  return unionText(types.map((type) => typedText(schema, type, mapRef, depth)));
}

/** Members joined with ` | `, sorted and without duplicates. */
function unionText(members: string[]): string {
  return [...new Set(members)].sort().join(" | ");
}

function typesOf(schema: JsonObject): string[] {
  if (typeof schema.type === "string") return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.filter((t): t is string => typeof t === "string");
  if (isObject(schema.properties)) return ["object"];
  if (schema.items !== undefined) return ["array"];
  return [];
}

function typedText(schema: JsonObject, type: string, mapRef: RefMapper, depth: number): string {
  if (type === "array") return `${wrap(schemaText(schema.items, mapRef, depth))}[]`;
  if (type !== "object") return type;
  const properties = schema.properties;
  if (isObject(properties) && Object.keys(properties).length > 0) {
    const required = Array.isArray(schema.required) ? schema.required : [];
    const fields = Object.keys(properties).map((name) => {
      const key = required.includes(name) ? name : `${name}?`;
      return depth > 0 ? key : `${key}: ${schemaText(properties[name], mapRef, depth + 1)}`;
    });
    return `{ ${fields.join(depth > 0 ? ", " : "; ")} }`;
  }
  const extra = schema.additionalProperties;
  if (isObject(extra)) return `Record<string, ${schemaText(extra, mapRef, depth + 1)}>`;
  return "object";
}

/** Parenthesizes a union or intersection used inside `[]` or `&`. */
function wrap(text: string): string {
  return text.includes(" | ") || text.includes(" & ") ? `(${text})` : text;
}

/** Whether a schema is a union (anyOf / oneOf). */
export function isUnionSchema(schema: Json | undefined): boolean {
  return isObject(schema) && (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf));
}

/** The constant a schema holds, if any. */
export function constOf(schema: Json | undefined): Json | undefined {
  return isObject(schema) && "const" in schema ? schema.const : undefined;
}

/** The values of an enumeration schema, as text (strings as they are, other values as JSON). */
export function enumOf(schema: Json | undefined): string[] | undefined {
  if (!isObject(schema) || !Array.isArray(schema.enum)) return undefined;
  return schema.enum.map((v) => (typeof v === "string" ? v : JSON.stringify(v)));
}
