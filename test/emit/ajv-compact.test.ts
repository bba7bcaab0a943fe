// The rewrites of Ajv's standalone code (src/emit/ajv-compact.ts, ajv-shared.ts, ajv-count-only.ts, issue 12:
// validator code size): the compacted module answers every value as Ajv's own code does, with the same
// errors in the same order, and is smaller for the reasons each rewrite gives.
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { COMPACT_HELPERS, compactAjvCode } from "../../src/emit/ajv-compact.js";
import { AJV_OPTIONS } from "../../src/ir/validator-schema.js";

const require = createRequire(import.meta.url);
const Ajv = (require("ajv") as { default: new (options: object) => { addSchema(s: object): void } }).default;
const standaloneCode = (require("ajv/dist/standalone") as { default: (ajv: object, refs: Record<string, string>) => string }).default;

interface RawError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: unknown;
}
type Validate = ((data: unknown) => boolean) & { errors?: RawError[] | null };

/** The definitions share shapes (two envelopes around different results), dispatch with if/then/else, read enums from their schema, and cut the error list back after anyOf/oneOf/not. */
const SCHEMA = {
  $id: "t",
  definitions: {
    Text: { type: "object", properties: { kind: { const: "text" }, text: { type: "string" } }, required: ["kind", "text"] },
    Data: { type: "object", properties: { kind: { const: "data" }, data: { type: "object" } }, required: ["kind", "data"] },
    Part: {
      if: { type: "object", required: ["kind"], properties: { kind: { const: "text" } } },
      then: { $ref: "#/definitions/Text" },
      else: {
        if: { type: "object", required: ["kind"], properties: { kind: { const: "data" } } },
        then: { $ref: "#/definitions/Data" },
        else: { type: "object", required: ["kind"], properties: { kind: { enum: ["text", "data"] } } },
      },
    },
    Either: { anyOf: [{ $ref: "#/definitions/Text" }, { type: "object", required: ["data"], properties: { data: { type: "object" } } }] },
    Count: { oneOf: [{ type: "string", maxLength: 3 }, { type: "integer", minimum: 0 }], not: { const: "no" } },
    TextEnvelope: {
      type: "object",
      properties: { id: { type: ["string", "integer"] }, result: { $ref: "#/definitions/Text" }, state: { enum: ["a", "b", "c"] } },
      required: ["id", "result"],
    },
    DataEnvelope: {
      type: "object",
      properties: { id: { type: ["string", "integer"] }, result: { $ref: "#/definitions/Data" }, state: { enum: ["a", "b", "c"] } },
      required: ["id", "result"],
    },
    // Two requests alike but for their method (a const that differs) and with the same code (one alike).
    GetRequest: { type: "object", properties: { method: { const: "get" }, code: { const: -1 }, id: { type: "string" } }, required: ["method"] },
    CancelRequest: { type: "object", properties: { method: { const: "cancel" }, code: { const: -1 }, id: { type: "string" } }, required: ["method"] },
  },
};
const NAMES = Object.keys(SCHEMA.definitions);

function load(code: string): Record<string, Validate> {
  const module = { exports: {} as Record<string, Validate> };
  new Function("module", "exports", "require", code)(module, module.exports, require);
  return module.exports;
}

function modules() {
  const ajv = new Ajv({ ...AJV_OPTIONS, code: { source: true, optimize: true } });
  ajv.addSchema(SCHEMA);
  const original = standaloneCode(ajv, Object.fromEntries(NAMES.map((n) => [n, `t#/definitions/${n}`])));
  const compacted = `${compactAjvCode(original)}\n${COMPACT_HELPERS}`;
  return { original, compacted };
}

const VALUES: unknown[] = [
  { kind: "text", text: "hi" },
  { kind: "text", text: 1 },
  { kind: "data", data: {} },
  { kind: "data", data: [] },
  { kind: "image" },
  {},
  [],
  "part",
  null,
  { id: 1, result: { kind: "text", text: "hi" } },
  { id: 1.5, result: { kind: "text", text: "hi" }, state: "z" },
  { id: "x", result: { kind: "data", data: 3 }, state: "a" },
  { id: true, result: { kind: "text" } },
  { result: 7 },
  { data: {} },
  { data: 1, kind: "text" },
  "ab",
  "abcd",
  "no",
  -1,
  5,
  { method: "get", code: -1, id: "a" },
  { method: "cancel", code: 2 },
  { method: 5, code: "-1", id: 3 },
  { code: -1 },
];

const shapeOf = (errors: RawError[] | null | undefined) =>
  (errors ?? []).map(({ instancePath, schemaPath, keyword, params }) => ({ instancePath, schemaPath, keyword, params }));

describe("compacted Ajv standalone code", () => {
  const { original, compacted } = modules();
  const before = load(original);
  const after = load(compacted);

  it("gives every value the same answer and the same errors, in the same order, as Ajv's code", () => {
    let failures = 0;
    for (const name of NAMES) {
      for (const value of VALUES) {
        const a = before[name] as Validate;
        const b = after[name] as Validate;
        const valid = a(value);
        expect(b(value), `${name} ${JSON.stringify(value)}`).toBe(valid);
        expect(shapeOf(b.errors), `${name} ${JSON.stringify(value)}`).toEqual(shapeOf(a.errors));
        if (!valid) failures++;
      }
    }
    // The values exercise the error paths, not only the happy one.
    expect(failures).toBeGreaterThan(20);
  });

  it("writes the two envelopes' code once, keeps no error list where only errors are counted, and no schema constants", () => {
    expect(compacted.match(/function sharedValidator\d+\(/g)).toHaveLength(2);
    // The requests share their code: the method that differs is passed, the code both have is written in it.
    expect(compacted).toMatch(/return sharedValidator\d+\(validate\d+, "get", data, options\);/);
    expect(compacted).toMatch(/return sharedValidator\d+\(validate\d+, "cancel", data, options\);/);
    expect(compacted).toMatch(/if\(-1 !== data\.code\)/);
    expect(original).toMatch(/vErrors\.push/);
    // The if subschemas' empty errors are gone; those of `not` (cut back only when it holds) stay.
    const empty = (original.match(/const err\d+ = \{\};/g) ?? []).length;
    expect((compacted.match(/addError\(vErrors\)/g) ?? []).length).toBeLessThan(empty / 2);
    expect(compacted).not.toMatch(/let missing\d+;/);
    expect(compacted).not.toMatch(/const schema\d+ = /);
    expect(compacted).toContain('{allowedValues: ["a","b","c"]}');
    expect(compacted.length).toBeLessThan(original.length * 0.6);
  });
});
