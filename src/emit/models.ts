import { cachedCompile } from "./models-cache.js";
import type { Json, JsonObject } from "../schema/json.js";
import type { ProtocolIR } from "../ir/types.js";
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
  for (const type of ir.types) definitions[type.name] = { ...forTypeScript(type.schema, (name) => (aliasOf(all, name) !== undefined ? endOf(name) : name)), title: type.name };
  const body = await cachedCompile({ title: ROOT, type: "object", additionalProperties: false, definitions } as never, ROOT, {
    bannerComment: "",
    additionalProperties: false,
    unreachableDefinitions: true,
    declareExternallyReferenced: true,
    format: false,
    strictIndexSignatures: false,
    unknownAny: true,
  });
  const cleaned = checkDeclarations(body.replace(REFERENCED_BY, "").replace(PATTERN_NOTE, "$1Properties whose name matches the pattern $2.").replace(EMPTY_DOC, ""), ir);
  const extras = templates.render("models/extras.ts.hbs", modelExtrasView(ir));
  return `${header}\n${cleaned}\n${extras}`;
}

// json-schema-to-typescript's note under every definition; it names our helper root, not the user's schema.
const REFERENCED_BY = /(\n \* ?)?\n \* This interface was referenced by `[^`]+`'s JSON-Schema\n \* via the `definition` "[^"]+"\./g;
// Its note on a patternProperties index signature, which names the enclosing definition (or `undefined`
// inside a property): say what the signature is for instead.
const PATTERN_NOTE = /(\n[ \t]*\* )This interface was referenced by `[^`]*`'s JSON-Schema(?: definition)?\n[ \t]*\* via the `patternProperty` ("(?:[^"\\\n]|\\.)*")\./g;
const EMPTY_DOC = /\/\*\*\s*\*\/\n?/g;

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
  const expected = new Set(ir.types.map((t) => t.name));
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
  return {
    enums: ir.enums.map((e) => ({ name: e.name, values: JSON.stringify(e.values as Json) })),
    guards: [...guards.values()].sort((a, b) => (a.name < b.name ? -1 : 1)),
  };
}
