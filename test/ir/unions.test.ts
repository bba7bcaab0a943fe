/**
 * findUnions and objectShape (src/ir/unions.ts), directly: how the members of every anyOf/oneOf are told
 * apart (a constant tag, a property only one member has, or nothing), which the validators' dispatch,
 * the guards and the named members are built on.
 */
import { describe, expect, it } from "vitest";
import { findUnions, objectShape } from "../../src/ir/unions.js";
import type { JsonObject } from "../../src/schema/json.js";

const object = (properties: JsonObject, required: string[] = []): JsonObject => ({ type: "object", properties, required });

describe("findUnions", () => {
  it("a shared required constant is a tag, the lowest such property when there are several", () => {
    const defs: Record<string, JsonObject> = {
      A: object({ kind: { const: "a" }, type: { const: "x" } }, ["kind", "type"]),
      B: object({ kind: { const: "b" }, type: { const: "y" } }, ["kind", "type"]),
      U: { oneOf: [{ $ref: "#/definitions/A" }, { $ref: "#/definitions/B" }] },
    };
    const [union] = findUnions(defs);
    expect(union).toEqual({
      pointer: "/definitions/U",
      definition: "U",
      keyword: "oneOf",
      members: [{ ref: "A", index: 0 }, { ref: "B", index: 1 }],
      dispatch: { kind: "tag", property: "kind", tags: [{ value: "a", member: { ref: "A", index: 0 } }, { value: "b", member: { ref: "B", index: 1 } }] },
    });
  });

  it("a constant that is optional in one member, or the same in two, is no tag; then presence decides", () => {
    const defs: Record<string, JsonObject> = {
      U: { anyOf: [object({ kind: { const: "a" }, bytes: { type: "string" } }, ["bytes"]), object({ kind: { const: "a" }, uri: { type: "string" } }, ["kind", "uri"])] },
    };
    expect(findUnions(defs)[0]?.dispatch).toEqual({ kind: "presence", markers: [{ property: "bytes", member: { ref: undefined, index: 0 } }, { property: "uri", member: { ref: undefined, index: 1 } }] });
  });

  it("members that are not certainly objects, or that share every required property, have no dispatch", () => {
    expect(findUnions({ U: { anyOf: [{ type: "string" }, object({ a: {} }, ["a"])] } })[0]?.dispatch).toEqual({ kind: "none" });
    expect(findUnions({ U: { anyOf: [object({ a: {}, b: {} }, ["a"]), object({ a: {}, b: {} }, ["a", "b"])] } })[0]?.dispatch).toEqual({ kind: "none" });
  });

  it("finds unions inside properties too, sorted by pointer, and reads the tag through allOf", () => {
    const defs: Record<string, JsonObject> = {
      Base: object({ metadata: { type: "object" } }),
      Z: object({ file: { oneOf: [object({ bytes: { type: "string" } }, ["bytes"]), object({ uri: { type: "string" } }, ["uri"])] } }),
      P: { anyOf: [{ allOf: [{ $ref: "#/definitions/Base" }, object({ kind: { const: "text" } }, ["kind"])] }, { allOf: [{ $ref: "#/definitions/Base" }, object({ kind: { const: "data" } }, ["kind"])] }] },
    };
    const unions = findUnions(defs);
    expect(unions.map((u) => [u.pointer, u.definition, u.dispatch.kind])).toEqual([
      ["/definitions/P", "P", "tag"],
      ["/definitions/Z/properties/file", undefined, "presence"],
    ]);
  });
});

describe("objectShape", () => {
  it("follows a chain of references and merges allOf parts, a constant winning over a plain declaration", () => {
    const defs: Record<string, JsonObject> = {
      A: { $ref: "#/definitions/B" },
      B: { allOf: [object({ kind: { type: "string" }, id: { type: "string" } }, ["id"]), object({ kind: { const: "b" } }, ["kind"])] },
    };
    expect(objectShape({ $ref: "#/definitions/A" }, defs)).toEqual({ properties: { kind: { const: "b" }, id: { type: "string" } }, required: ["id", "kind"] });
  });

  it("is undefined for a schema that is not certainly an object, a missing reference, or a reference cycle", () => {
    expect(objectShape({ type: "string" }, {})).toBeUndefined();
    expect(objectShape({ $ref: "#/definitions/Nope" }, {})).toBeUndefined();
    expect(objectShape({ $ref: "#/definitions/A" }, { A: { $ref: "#/definitions/B" }, B: { $ref: "#/definitions/A" } })).toBeUndefined();
  });
});
