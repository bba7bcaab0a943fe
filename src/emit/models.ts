import { cachedCompile } from "./models-cache.js";
import type { Json, JsonObject } from "../schema/json.js";
import type { NamedUnion, ProtocolIR } from "../ir/types.js";
import { objectShape, type ObjectShape } from "../ir/unions.js";
import { aliasEnds, aliasOf } from "../ir/aliases.js";
import { refName } from "../schema/normalize.js";
import { walkSchema } from "../schema/walk.js";
import type { TemplateRenderer } from "./templates.js";

const ROOT = "A2ACodegenModelsRoot";

/**
 * models.ts: json-schema-to-typescript over the normalized definitions, then a pass that removes the
 * helper root and proves no type name was invented (no `Message1`), then the parts the schema implies
 * but the library does not write: `as const` value lists of enumerations and tag guards of unions.
 */
export async function emitModels(ir: ProtocolIR, templates: TemplateRenderer, header: string): Promise<string> {
  const definitions: JsonObject = {};
  const all: Record<string, JsonObject> = Object.fromEntries(ir.types.map((t) => [t.name, t.schema]));
  const endOf = aliasEnds(all);
  const typeName = (name: string) => (aliasOf(all, name) !== undefined ? endOf(name) : name);
  const named = new Map(ir.namedUnions.map((u) => [u.union, u]));
  for (const type of ir.types) {
    const union = named.get(type.name);
    if (union === undefined) definitions[type.name] = { ...forTypeScript(type.schema, typeName), title: type.name };
    else Object.assign(definitions, namedUnionDefinitions(type.schema, union, all, typeName));
  }
  const body = await cachedCompile({ title: ROOT, type: "object", additionalProperties: false, definitions } as never, ROOT, {
    bannerComment: "",
    additionalProperties: false,
    unreachableDefinitions: true,
    declareExternallyReferenced: true,
    format: false,
    strictIndexSignatures: false,
    unknownAny: true,
  });
  const text = body.replace(REFERENCED_BY, "").replace(PATTERN_NOTE, "$1Properties whose name matches the pattern $2.").replace(EMPTY_DOC, "");
  const cleaned = withBases(checkDeclarations(text, ir), ir.namedUnions);
  const extras = templates.render("models/extras.ts.hbs", modelExtrasView(ir));
  return `${header}\n${cleaned}\n${extras}`;
}

// json-schema-to-typescript's note under every definition; it names our helper root, not the user's schema.
const REFERENCED_BY = /(\n \* ?)?\n \* This interface was referenced by `[^`]+`'s JSON-Schema\n \* via the `definition` "[^"]+"\./g;
// Its note on a patternProperties index signature, which names the enclosing definition (or `undefined`
// inside a property): say what the signature is for instead.
const PATTERN_NOTE = /(\n[ \t]*\* )This interface was referenced by `[^`]*`'s JSON-Schema(?: definition)?\n[ \t]*\* via the `patternProperty` ("(?:[^"\\\n]|\\.)*")\./g;
const EMPTY_DOC = /\/\*\*\s*\*\/\n?/g;

/**
 * A union told apart by presence, as named types: the union of its members by name, the shared base of
 * the properties they all declare, and each member with only its own properties (it extends the base
 * once written, see withBases). The members' `not` (which forbids the other members' markers) is left to
 * the validators: the TypeScript types are closed objects, so a second marker is already an error.
 */
function namedUnionDefinitions(schema: JsonObject, union: NamedUnion, definitions: Record<string, JsonObject>, typeName: (definition: string) => string): JsonObject {
  const out: JsonObject = {};
  const keyword = Array.isArray(schema.oneOf) ? "oneOf" : "anyOf";
  const items = schema[keyword] as Json[];
  const shapes = union.members.map((m) => objectShape(items[m.index] as JsonObject, definitions) as ObjectShape);
  const first = shapes[0] as ObjectShape;
  const { [keyword]: _members, ...rest } = schema;
  out[union.union] = { ...rest, [keyword]: union.members.map((m) => ({ tsType: m.name })), title: union.union };
  if (union.base !== undefined) {
    const properties = Object.fromEntries(union.common.map((p) => [p, first.properties[p] as Json]));
    const required = union.common.filter((p) => first.required.includes(p));
    const base: JsonObject = { description: `The properties every member of {@link ${union.union}} has.`, type: "object", properties, additionalProperties: false, title: union.base };
    if (required.length > 0) base.required = required;
    out[union.base] = { ...forTypeScript(base, typeName), title: union.base };
  }
  union.members.forEach((member, i) => {
    const shape = shapes[i] as ObjectShape;
    const item = items[member.index] as JsonObject;
    const own = Object.keys(shape.properties).filter((p) => !union.common.includes(p));
    const object: JsonObject = { type: "object", properties: Object.fromEntries(own.map((p) => [p, shape.properties[p] as Json])), additionalProperties: false };
    const required = shape.required.filter((p) => own.includes(p));
    if (required.length > 0) object.required = required;
    if (typeof item.description === "string") object.description = item.description;
    out[member.name] = { ...forTypeScript(object, typeName), title: member.name };
  });
  return out;
}

/** `export interface TextPart {` → `export interface TextPart extends PartBase {`, for every named member with a base. */
function withBases(text: string, unions: NamedUnion[]): string {
  let out = text;
  for (const union of unions) {
    if (union.base === undefined) continue;
    for (const member of union.members) {
      const declaration = `export interface ${member.name} {`;
      if (!out.includes(declaration)) throw new Error(`json-schema-to-typescript did not declare ${member.name} as an interface; this is a bug in a2a-codegen`);
      // A function, not a replacement string: `$$` is a legal part of a TypeScript name and a replacement pattern.
      const extended = `export interface ${member.name} extends ${union.base} {`;
      out = out.replace(declaration, () => extended);
    }
  }
  return out;
}

/** The schema as json-schema-to-typescript should see it (the validators see the normalized schema itself). */
function forTypeScript(schema: JsonObject, typeName: (definition: string) => string): JsonObject {
  return walkSchema(structuredClone(schema), "", (node): JsonObject | undefined => {
    // A reference to a definition is that definition's name: every definition is declared on its own, so
    // json-schema-to-typescript never has to follow a $ref (its dereferencing recurses once per link,
    // which overflows the stack on a long chain of references). A description beside it stays the JSDoc.
    const target = refName(node.$ref);
    if (target !== undefined) {
      // An alias is named by the end of its chain, so that TypeScript never resolves a chain of aliases.
      const named: JsonObject = { tsType: typeName(target) };
      if (typeof node.description === "string") named.description = node.description;
      return named;
    }
    // An object that can hold no property (1.0's google.protobuf.Empty): `{}` in TypeScript would accept any
    // value but null and undefined, 42 included; an object of no properties rejects primitives.
    if (isEmptyObject(node)) {
      const empty: JsonObject = { ...node, tsType: "{ [k: string]: never }" };
      return empty;
    }
    // A schema that constrains nothing is any JSON value.
    if (isUnconstrained(node)) {
      const unknownValue: JsonObject = { ...node, tsType: "unknown" };
      return unknownValue;
    }
    return undefined;
  });
}

/** `{ "type": "object" }` with nothing that declares a property (models are closed: it holds none). */
function isEmptyObject(node: JsonObject): boolean {
  if (node.type !== "object") return false;
  const open = node.additionalProperties !== undefined && node.additionalProperties !== false;
  return !open && !["properties", "patternProperties", "anyOf", "oneOf", "allOf", "$ref", "tsType", "if", "not", "enum", "const"].some((k) => k in node);
}

const CONSTRAINING = ["type", "$ref", "anyOf", "oneOf", "allOf", "enum", "const", "properties", "items", "not", "tsType", "additionalProperties"];
function isUnconstrained(node: JsonObject): boolean {
  return !CONSTRAINING.some((k) => k in node);
}

/**
 * json-schema-to-typescript declares every type at the start of a line (`export interface X {`,
 * `export type X =`). The declared names must be exactly the definitions: anything else is a name the
 * library invented, which the normalization exists to prevent. (A scan of its output, not a TypeScript
 * parse: loading ts-morph cost a third of a cold run.)
 */
function checkDeclarations(text: string, ir: ProtocolIR): string {
  const root = new RegExp(`^export interface ${ROOT} \\{\\s*\\}\\n`, "m");
  if (!root.test(text)) throw new Error("json-schema-to-typescript did not write the helper root where a2a-codegen expects it");
  const body = text.replace(root, "");
  const expected = new Set([...ir.types.map((t) => t.name), ...ir.namedUnions.flatMap((u) => [...(u.base !== undefined ? [u.base] : []), ...u.members.map((m) => m.name)])]);
  const declared = [...body.matchAll(/^export (?:interface|type) ([A-Za-z_$][\w$]*)/gm)].map((m) => m[1] as string);
  const invented = declared.filter((name) => !expected.has(name));
  const missing = [...expected].filter((name) => !declared.includes(name));
  if (invented.length > 0 || missing.length > 0) {
    throw new Error(
      `json-schema-to-typescript declared types that are not definitions (${invented.join(", ") || "none"}) ` +
        `or skipped definitions (${missing.join(", ") || "none"}); this is a bug in a2a-codegen's normalization`,
    );
  }
  return body;
}

interface GuardView {
  name: string;
  member: string;
  property: string;
  value: string;
}

function modelExtrasView(ir: ProtocolIR) {
  const guards = new Map<string, GuardView>();
  for (const union of ir.unions) {
    if (union.definition === undefined || union.dispatch.kind !== "tag") continue;
    const property = union.dispatch.property;
    for (const { value, member } of union.dispatch.tags) {
      if (member.ref === undefined || guards.has(member.ref)) continue;
      guards.set(member.ref, { name: `is${member.ref}`, member: member.ref, property: JSON.stringify(property), value: JSON.stringify(value) });
    }
  }
  const presenceGuards = ir.namedUnions
    .flatMap((u) => u.members.map((m) => ({ name: `is${m.name}`, member: m.name, union: u.union, property: JSON.stringify(m.property), propertyName: m.property })))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  return {
    enums: ir.enums.map((e) => ({ name: e.name, values: JSON.stringify(e.values as Json) })),
    guards: [...guards.values()].sort((a, b) => (a.name < b.name ? -1 : 1)),
    presenceGuards,
  };
}
