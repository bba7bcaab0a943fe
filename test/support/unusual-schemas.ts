import type { Json, JsonObject } from "../../src/schema/json.js";
import { readSchema } from "./project.js";

/**
 * Unusual but valid schemas derived from 0.3.0 (issue 17): each returns a fresh copy of the whole schema.
 * Shared by the generator robustness tests and the CLI bad-input table.
 */
type Schema = { definitions: Record<string, JsonObject> };

export function base(): Schema {
  return readSchema("0.3.0") as Schema;
}

/** Definitions named like globals the validator code calls (`Array.isArray`, `Object.keys`, `JSON`, ...). */
export function globalsAsDefinitions(): Schema {
  const s = base();
  for (const name of ["Array", "Object", "String", "Number", "Boolean", "JSON", "Math", "RegExp", "Error", "Symbol", "Date", "Promise", "Record", "Map"]) {
    s.definitions[name] = { type: "array", items: { type: "string" } };
  }
  return s;
}

/** Definitions named like exports of the other generated modules (client, protocol, validation). */
export function generatedExportNames(): Schema {
  const s = base();
  for (const name of ["A2AClient", "Validator", "ValidationIssue", "ParamsOf", "A2AMethods", "A2AValidators", "A2ATaskNotFoundError"]) {
    s.definitions[name] = { type: "object", properties: { x: { type: "string" } } };
  }
  return s;
}

/** Message, Task, Artifact and Part under other names (every reference renamed too). */
export function renamedCoreTypes(): Schema {
  const renames: Record<string, string> = { Message: "ChatMessage", Task: "Job", Artifact: "Output", Part: "Piece" };
  let text = JSON.stringify(base());
  for (const [from, to] of Object.entries(renames)) {
    text = text.replaceAll(`"#/definitions/${from}"`, `"#/definitions/${to}"`).replaceAll(`"${from}":{`, `"${to}":{`);
  }
  const s = JSON.parse(text) as Schema;
  for (const from of Object.keys(renames)) if (from in s.definitions) throw new Error(`${from} was not renamed`);
  return s;
}

/** A chain of `length` definitions, each only a reference to the next; the last is a string. */
export function aliasChain(length: number): Schema {
  const s = base();
  for (let i = 0; i < length; i++) s.definitions[`Link${i}`] = i === length - 1 ? { type: "string" } : { $ref: `#/definitions/Link${i + 1}` };
  return s;
}

/** A chain of `length` objects, each holding the next in a property. */
export function objectChain(length: number): Schema {
  const s = base();
  for (let i = 0; i < length; i++) {
    s.definitions[`Node${i}`] =
      i === length - 1
        ? { type: "object", properties: { leaf: { type: "string" } }, required: ["leaf"] }
        : { type: "object", properties: { next: { $ref: `#/definitions/Node${i + 1}` } }, required: ["next"] };
  }
  return s;
}

/** `count` more object definitions, each referring to the next (a chain of `count` objects). */
export function manyDefinitions(count: number): Schema {
  const s = base();
  for (let i = 0; i < count; i++) {
    s.definitions[`Extra${i}`] = {
      type: "object",
      description: `Extra definition ${i}.`,
      properties: { name: { type: "string" }, size: { type: "integer" }, ...(i + 1 < count ? { next: { $ref: `#/definitions/Extra${i + 1}` } } : {}) },
      required: ["name"],
    };
  }
  return s;
}

/** A cycle of `length` objects, each holding the next, the last the first. */
export function objectRing(length: number): Schema {
  const s = base();
  for (let i = 0; i < length; i++) s.definitions[`Ring${i}`] = { type: "object", properties: { next: { $ref: `#/definitions/Ring${(i + 1) % length}` }, label: { type: "string" } } };
  return s;
}

/** TextPart written as `allOf: [PartBase, { kind, text }]`. */
export function allOfTextPart(): Schema {
  const s = base();
  s.definitions.PartBase = { type: "object", properties: { metadata: { type: "object", additionalProperties: {} } } };
  s.definitions.TextPart = {
    description: "A text segment.",
    allOf: [
      { $ref: "#/definitions/PartBase" },
      { type: "object", properties: { kind: { const: "text", type: "string" }, text: { type: "string" } }, required: ["kind", "text"] },
    ],
  };
  return s;
}

/** A definition with a patternProperties index signature, and one inside a property. */
export function patternProperties(): Schema {
  const s = base();
  s.definitions.Labels = { type: "object", description: "Labels.", patternProperties: { "^x-": { type: "string" } }, additionalProperties: false };
  s.definitions.Tagged = { type: "object", properties: { tags: { type: "object", patternProperties: { "^t": { type: "integer" } } } } };
  return s;
}

/** The schema text with a definition keyed `__proto__` (JSON.stringify cannot write one: it is spliced in). */
export function protoKeyedDefinitionText(): string {
  const s = base();
  (s.definitions.Part?.anyOf as Json[]).splice(1, 0, { $ref: "#/definitions/__proto__" });
  return JSON.stringify(s).replace('"definitions":{', '"definitions":{"__proto__":{"type":"object","properties":{"x":{"type":"string"}}},');
}

/** The schema text with a property keyed `__proto__` in Message. */
export function protoKeyedPropertyText(): string {
  const text = JSON.stringify(base()).replace(/("Message":\{[^{}]*"properties":\{)/, '$1"__proto__":{"type":"string"},');
  if (!text.includes('"__proto__"')) throw new Error("Message has no properties to splice into");
  return text;
}

/** A definition nested `depth` levels deep inline (arrays of arrays of ...). */
export function deeplyNested(depth: number): Schema {
  const s = base();
  let node: JsonObject = { type: "string" };
  for (let i = 0; i < depth; i++) node = { type: "array", items: node };
  s.definitions.Deep = node;
  return s;
}
