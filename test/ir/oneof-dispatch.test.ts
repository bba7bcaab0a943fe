// The schema the validators of a proto oneof are compiled from (src/ir/validator-schema.ts, issue 12: validator
// code size). A oneof's variants differ only in the member that is set; the compact dispatch (one object
// declaring every member where exactly one is set; where several are, the first variant in full and the
// others by their own member) must accept, refuse and report exactly what the plain dispatch over the
// variants does: every variant in full, chosen by its member, and the whole union where not exactly one is set.
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { AJV_OPTIONS, SCHEMA_ID, validatorSchema } from "../../src/ir/validator-schema.js";
import { bundledIR } from "../../src/load/protocol.js";
import { toIssues, type RawValidationError } from "../../src/runtime/validation.js";

const require = createRequire(import.meta.url);
interface Validate {
  (data: unknown): boolean;
  errors?: RawValidationError[] | null;
}
interface AjvLike {
  addSchema(schema: object): void;
  getSchema(id: string): Validate | undefined;
}
const Ajv = (require("ajv") as { default: new (options: object) => AjvLike }).default;

type Json = Record<string, unknown>;

/** The plain dispatch over a oneof's variants (each `{type, properties, required: [..., member], not}`). */
function plainDispatch(variants: Json[]): Json {
  const markers = variants.map((v) => (v.required as string[])[(v.required as string[]).length - 1] as string);
  const anyMarker = markers.map((m) => ({ required: [m] }));
  const full = variants.map(({ description: _d, ...v }) => v);
  let chain: Json = (({ not: _n, ...v }) => v)(full[full.length - 1] as Json);
  for (let i = full.length - 2; i >= 0; i--) chain = { if: { required: [markers[i]] }, then: (({ not: _n, ...v }) => v)(full[i] as Json), else: chain };
  return {
    if: { type: "object", oneOf: anyMarker },
    then: chain,
    else: { if: { type: "object", anyOf: anyMarker }, then: { anyOf: full }, else: { type: "object", anyOf: anyMarker } },
  };
}

const ir = bundledIR("1.0.1");
const compact = validatorSchema(ir);
const plain = validatorSchema(ir);
const oneofs: string[] = [];
for (const type of ir.types) {
  const variants = (type.schema as Json).anyOf;
  if (!Array.isArray(variants) || !variants.every((v: Json) => v.not !== undefined && Array.isArray(v.required) && v.type === "object")) continue;
  (plain.definitions as Json)[type.name] = plainDispatch(variants as Json[]);
  oneofs.push(type.name);
}

function compile(schema: object): AjvLike {
  const ajv = new Ajv({ ...AJV_OPTIONS });
  ajv.addSchema(schema);
  return ajv;
}

describe("the compact dispatch of a proto oneof (1.0.1)", () => {
  it("is used for Part, SecurityScheme, OAuthFlows and StreamResponse: one object where one member is set", () => {
    expect(oneofs).toEqual(expect.arrayContaining(["Part", "SecurityScheme", "OAuthFlows", "StreamResponse"]));
    const part = (compact.definitions as Json).Part as Json;
    expect(Object.keys((part.then as Json).properties as Json)).toEqual(["text", "raw", "url", "data", "metadata", "filename", "mediaType"]);
    expect((part.then as Json).if).toBeUndefined();
  });

  it("accepts, refuses and reports what the plain dispatch does, on fuzzed values", () => {
    const a = compile(plain);
    const b = compile(compact);
    let seed = 11;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
    const leaves: unknown[] = ["x", "", "QUJD", "a b", "%%", 1, -1, 1.5, true, null, [], {}, { text: 1 }, { a: 1 }];
    let invalid = 0;
    let several = 0;
    for (const name of oneofs) {
      const va = a.getSchema(`${SCHEMA_ID}#/definitions/${name}`) as Validate;
      const vb = b.getSchema(`${SCHEMA_ID}#/definitions/${name}`) as Validate;
      const variants = (ir.types.find((t) => t.name === name)?.schema as Json).anyOf as Json[];
      const keys = [...new Set(variants.flatMap((v) => Object.keys(v.properties as Json)))];
      const markers = variants.map((v) => (v.required as string[]).at(-1) as string);
      for (let i = 0; i < 1500; i++) {
        const value: Json = {};
        for (let k = Math.floor(rnd() * 5); k > 0; k--) value[pick(keys)] = pick(leaves);
        if (markers.filter((m) => m in value).length > 1) several++;
        const valid = va(value);
        expect(vb(value), `${name} ${JSON.stringify(value)}`).toBe(valid);
        if (valid) continue;
        invalid++;
        expect(toIssues(vb.errors ?? [], value), `${name} ${JSON.stringify(value)}`).toEqual(toIssues(va.errors ?? [], value));
      }
      for (const value of [null, "x", 3, []]) {
        expect(vb(value)).toBe(va(value));
        expect(toIssues(vb.errors ?? [], value)).toEqual(toIssues(va.errors ?? [], value));
      }
    }
    // The values reach every case: refused ones, and several members set at once.
    expect(invalid).toBeGreaterThan(1000);
    expect(several).toBeGreaterThan(500);
  });
});
