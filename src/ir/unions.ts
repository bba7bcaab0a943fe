import { joinPointer } from "../errors.js";
import { isObject, type Json, type JsonObject } from "../schema/json.js";
import { refName } from "../schema/normalize.js";
import { walkSchema } from "../schema/walk.js";
import type { UnionDispatch, UnionInfo, UnionMember } from "./types.js";

/** Every anyOf/oneOf of the normalized definitions, with how its members can be told apart. */
export function findUnions(definitions: Record<string, JsonObject>): UnionInfo[] {
  const unions: UnionInfo[] = [];
  for (const [name, schema] of Object.entries(definitions)) {
    const root = joinPointer("", "definitions", name);
    walkSchema(structuredClone(schema), root, (node, pointer) => {
      for (const keyword of ["anyOf", "oneOf"] as const) {
        const items = node[keyword];
        if (!Array.isArray(items)) continue;
        const members: UnionMember[] = items.map((item, index) => ({ ref: isObject(item) ? refName(item.$ref) : undefined, index }));
        const shapes = items.map((item) => memberShape(item, definitions));
        unions.push({
          pointer,
          definition: pointer === root ? name : undefined,
          keyword,
          members,
          dispatch: dispatchOf(members, shapes),
        });
      }
    });
  }
  return unions.sort((a, b) => (a.pointer < b.pointer ? -1 : a.pointer > b.pointer ? 1 : 0));
}

export interface ObjectShape {
  properties: JsonObject;
  required: string[];
}

/** The object a member describes, when it is certainly an object schema (`type: "object"`). */
function memberShape(item: Json | undefined, definitions: Record<string, JsonObject>): ObjectShape | undefined {
  return isObject(item) ? objectShape(item, definitions) : undefined;
}

/**
 * The properties and required properties of an object schema, through `$ref` and `allOf` (a member written
 * as `allOf: [PartBase, { kind: const }]` is the object of both): undefined when the schema is not
 * certainly an object. Of two declarations of one property, the one with a constant wins (the tag).
 */
export function objectShape(start: JsonObject, definitions: Record<string, JsonObject>, seen: Set<string> = new Set(), depth = 0): ObjectShape | undefined {
  // References are followed in a loop (a chain of any length), allOf parts by recursion up to a depth
  // no real schema reaches; beyond it the schema is "not certainly an object" (no dispatch, still correct).
  let schema = start;
  for (let name = refName(schema.$ref); name !== undefined; name = refName(schema.$ref)) {
    const target = Object.prototype.hasOwnProperty.call(definitions, name) ? definitions[name] : undefined;
    if (!target || seen.has(name)) return undefined;
    seen.add(name);
    schema = target;
  }
  if (depth > 32) return undefined;
  const parts = Array.isArray(schema.allOf) ? schema.allOf.filter(isObject).map((part) => objectShape(part, definitions, seen, depth + 1)) : [];
  const isObjectSchema = schema.type === "object" || parts.some((p) => p !== undefined);
  if (!isObjectSchema) return undefined;
  const properties: JsonObject = {};
  const required = new Set<string>();
  for (const shape of [{ properties: isObject(schema.properties) ? schema.properties : {}, required: Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : [] }, ...parts]) {
    if (!shape) continue;
    for (const [key, value] of Object.entries(shape.properties)) {
      if (!(key in properties) || (constOf(properties[key]) === undefined && constOf(value) !== undefined)) properties[key] = value;
    }
    for (const r of shape.required) required.add(r);
  }
  return { properties, required: [...required] };
}

function constOf(schema: Json | undefined): string | number | undefined {
  if (!isObject(schema)) return undefined;
  const value = schema.const ?? (Array.isArray(schema.enum) && schema.enum.length === 1 ? schema.enum[0] : undefined);
  return typeof value === "string" || typeof value === "number" ? value : undefined;
}

function dispatchOf(members: UnionMember[], shapes: Array<ObjectShape | undefined>): UnionDispatch {
  if (members.length < 2 || shapes.some((s) => s === undefined)) return { kind: "none" };
  const objects = shapes as ObjectShape[];

  // A shared required property holding a distinct constant in every member.
  const first = objects[0] as ObjectShape;
  const tagCandidates = Object.keys(first.properties)
    .sort()
    .filter((property) => {
      const values = objects.map((o) => (o.required.includes(property) ? constOf(o.properties[property]) : undefined));
      return values.every((v) => v !== undefined) && new Set(values).size === values.length;
    });
  const tag = tagCandidates[0];
  if (tag !== undefined) {
    return {
      kind: "tag",
      property: tag,
      tags: objects.map((o, i) => ({ value: constOf(o.properties[tag]) as string | number, member: members[i] as UnionMember })),
    };
  }

  // Each member requires a property that no other member declares.
  const markers: Array<{ property: string; member: UnionMember }> = [];
  for (let i = 0; i < objects.length; i++) {
    const own = (objects[i] as ObjectShape).required
      .filter((p) => objects.every((other, j) => j === i || !(p in other.properties)))
      .sort();
    if (own[0] === undefined) return { kind: "none" };
    markers.push({ property: own[0], member: members[i] as UnionMember });
  }
  return { kind: "presence", markers };
}
