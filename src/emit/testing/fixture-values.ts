/**
 * The example values of the test kit's fixtures (`testing/fixtures.ts`), derived from the IR at generation
 * time: for each type of the version, a value its JSON Schema accepts, with every required property and no
 * optional one. Deterministic: strings are made from the property's name and a seeded counter, so the same
 * version and seed always give the same fixtures. The kit's property test checks each against the
 * generated validator.
 */
import type { ProtocolIR } from "../../ir/types.js";
import type { JsonObject } from "../../schema/json.js";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** The fixture value of every type of `ir`, by type name, in the IR's order. */
export function fixtureValues(ir: ProtocolIR, seed = 1): Record<string, Json> {
  const definitions = new Map(ir.types.map((t) => [t.name, t.schema]));
  // The constraints the specification's text adds (a Message has at least one part): the validators check them.
  const constraints = new Map(ir.specConstraints.map((c) => [`${c.definition}/${c.property}`, c.schema]));
  let counter = seed;
  const next = () => (counter = (counter * 48271) % 2147483647);
  const out: Record<string, Json> = {};

  const value = (schema: unknown, name: string, depth: number, owner?: string): Json => {
    if (!isObject(schema)) return null;
    if (schema["const"] !== undefined) return schema["const"] as Json;
    if (Array.isArray(schema["enum"])) {
      const values = schema["enum"] as Json[];
      return values.find((v) => typeof v !== "string" || !/UNSPECIFIED/.test(v)) ?? (values[0] as Json);
    }
    if (typeof schema["$ref"] === "string") {
      const target = schema["$ref"].replace(/^#\/(definitions|\$defs)\//, "");
      return value(definitions.get(target), target, depth + 1, target);
    }
    if (Array.isArray(schema["allOf"])) {
      const merged: { [key: string]: Json } = {};
      for (const part of schema["allOf"]) {
        const v = value(part, name, depth);
        if (isObject(v)) Object.assign(merged, v);
      }
      return Object.assign(merged, objectValue(schema, depth));
    }
    for (const keyword of ["oneOf", "anyOf"] as const) {
      const members = schema[keyword];
      if (Array.isArray(members) && members.length > 0) {
        const base = schema["properties"] !== undefined ? objectValue(schema, depth) : {};
        const member = value(members[0], name, depth);
        return isObject(member) ? { ...base, ...(member as { [key: string]: Json }) } : member;
      }
    }
    const type = Array.isArray(schema["type"]) ? (schema["type"] as string[]).find((t) => t !== "null") : schema["type"];
    switch (type) {
      case "object":
        return objectValue(schema, depth, owner);
      case "array": {
        const min = typeof schema["minItems"] === "number" ? schema["minItems"] : 0;
        return Array.from({ length: min }, () => value(schema["items"], name, depth + 1));
      }
      case "string":
        return stringValue(schema, name);
      case "integer":
      case "number":
        return typeof schema["minimum"] === "number" ? schema["minimum"] : 1;
      case "boolean":
        return false;
      case "null":
        return null;
      default:
        return schema["properties"] !== undefined ? objectValue(schema, depth) : {};
    }
  };

  const objectValue = (schema: JsonObject, depth: number, owner?: string): { [key: string]: Json } => {
    const properties = isObject(schema["properties"]) ? schema["properties"] : {};
    const required = Array.isArray(schema["required"]) ? (schema["required"] as string[]) : [];
    const object: { [key: string]: Json } = {};
    for (const key of required) object[key] = depth > 24 ? null : value(withConstraint(properties[key] ?? {}, owner, key), key, depth + 1);
    return object;
  };

  const withConstraint = (schema: unknown, owner: string | undefined, key: string): unknown => {
    const extra = owner === undefined ? undefined : constraints.get(`${owner}/${key}`);
    return extra === undefined || !isObject(schema) ? schema : { ...schema, ...extra };
  };

  const stringValue = (schema: JsonObject, name: string): string => {
    const id = next().toString(16).padStart(8, "0").slice(-8);
    switch (schema["format"]) {
      case "uri":
      case "url":
        return `https://agent.example/${name}/${id}`;
      case "date-time":
        return "2026-01-01T00:00:00Z";
      case "email":
        return `${name}@agent.example`;
      case "byte":
        return "aGVsbG8=";
      default:
        if (/url$/i.test(name)) return `https://agent.example/${id}`;
        if (/version$/i.test(name)) return "1.0";
        return `${name}-${id}`;
    }
  };

  for (const type of ir.types) out[type.name] = value(type.schema, type.name, 0, type.name);
  return out;
}
