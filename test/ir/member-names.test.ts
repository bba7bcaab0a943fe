/**
 * Names of the members of unions told apart by presence (src/ir/member-names.ts; issue 13 item 2): the
 * 1.0.1 oneofs get `TextPart`, `StreamResponseTask`, `SecuritySchemeApiKey`, a shared base where the
 * members share properties, and a collision with a definition is an error naming both.
 */
import { describe, expect, it } from "vitest";
import { bundledIR } from "../../src/load/protocol.js";
import { nameUnionMembers } from "../../src/ir/member-names.js";
import { findUnions } from "../../src/ir/unions.js";
import type { JsonObject } from "../../src/schema/json.js";

const at = (pointer: string) => ({ file: "test.json", pointer });
const names = (defs: Record<string, JsonObject>) => nameUnionMembers(defs, findUnions(defs), at);

describe("named members of the 1.0.1 presence unions (from a2a-1.0.1.proto's oneofs)", () => {
  const byUnion = new Map(bundledIR("1.0.1").namedUnions.map((u) => [u.union, u]));

  it("Part's members are named field first, with the shared PartBase of metadata, filename and mediaType", () => {
    expect(byUnion.get("Part")).toEqual({
      union: "Part",
      base: "PartBase",
      common: ["metadata", "filename", "mediaType"],
      members: [
        { name: "TextPart", property: "text", index: 0 },
        { name: "RawPart", property: "raw", index: 1 },
        { name: "UrlPart", property: "url", index: 2 },
        { name: "DataPart", property: "data", index: 3 },
      ],
    });
  });

  it("a union whose members wrap definitions is named union first, dropping the union's name from the field", () => {
    expect(byUnion.get("StreamResponse")?.members.map((m) => m.name)).toEqual(["StreamResponseTask", "StreamResponseMessage", "StreamResponseStatusUpdate", "StreamResponseArtifactUpdate"]);
    expect(byUnion.get("SecurityScheme")?.members.map((m) => m.name)).toEqual(["SecuritySchemeApiKey", "SecuritySchemeHttpAuth", "SecuritySchemeOauth2", "SecuritySchemeOpenIdConnect", "SecuritySchemeMtls"]);
    expect(byUnion.get("SendMessageResponse")?.members.map((m) => m.name)).toEqual(["SendMessageResponseTask", "SendMessageResponseMessage"]);
    expect(byUnion.get("OAuthFlows")?.base).toBeUndefined();
    expect([...byUnion.keys()].sort()).toEqual(["OAuthFlows", "Part", "SecurityScheme", "SendMessageResponse", "StreamResponse"]);
  });

  it("leaves the JSON-RPC envelopes (result | error) and the 0.x versions as they are", () => {
    expect(bundledIR("0.1.0").namedUnions).toEqual([]);
    expect(bundledIR("0.3.0").namedUnions).toEqual([]);
  });
});

describe("nameUnionMembers on a schema of its own", () => {
  const choice = (extra: Record<string, JsonObject> = {}): Record<string, JsonObject> => ({
    Target: { type: "object", properties: { id: { type: "string" } } },
    Choice: {
      anyOf: [
        { type: "object", properties: { first_name: { type: "string" }, note: { type: "string" } }, required: ["first_name"] },
        { type: "object", properties: { lastName: { type: "number" }, note: { type: "string" } }, required: ["lastName"] },
      ],
    },
    ...extra,
  });

  it("names plain-value members field first (snake_case fields too) with a base of the properties they share", () => {
    expect(names(choice())).toEqual([
      { union: "Choice", base: "ChoiceBase", common: ["note"], members: [{ name: "FirstNameChoice", property: "first_name", index: 0 }, { name: "LastNameChoice", property: "lastName", index: 1 }] },
    ]);
  });

  it("a property declared differently by two members is not shared", () => {
    const defs = choice();
    ((defs.Choice?.anyOf as JsonObject[])[1]?.properties as JsonObject).note = { type: "integer" };
    expect(names(defs)[0]?.base).toBeUndefined();
  });

  it("a member wrapping a definition names the union first", () => {
    const defs: Record<string, JsonObject> = {
      Target: { type: "object", properties: { id: { type: "string" } } },
      Holder: { oneOf: [{ type: "object", properties: { target: { $ref: "#/definitions/Target" } }, required: ["target"] }, { type: "object", properties: { text: { type: "string" } }, required: ["text"] }] },
    };
    expect(names(defs)[0]?.members.map((m) => m.name)).toEqual(["HolderTarget", "HolderText"]);
  });

  it("refuses a generated name that is already a definition (case-insensitively), naming both", () => {
    expect(() => names(choice({ FirstNameChoice: { type: "object" } }))).toThrow(/member of union "Choice" holding "first_name" would be named "FirstNameChoice", which is already definition "FirstNameChoice"/);
    expect(() => names(choice({ choicebase: { type: "object" } }))).toThrow(/shared base of union "Choice" would be named "ChoiceBase", which is already definition "choicebase"/);
  });

  it("names nothing in a union with a referenced member, or one told apart by a tag", () => {
    const tagged: Record<string, JsonObject> = {
      T: { anyOf: [{ type: "object", properties: { kind: { const: "a" }, a: { type: "string" } }, required: ["kind"] }, { type: "object", properties: { kind: { const: "b" } }, required: ["kind"] }] },
    };
    expect(names(tagged)).toEqual([]);
    const referenced: Record<string, JsonObject> = {
      A: { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
      U: { anyOf: [{ $ref: "#/definitions/A" }, { type: "object", properties: { b: { type: "string" } }, required: ["b"] }] },
    };
    expect(names(referenced)).toEqual([]);
  });
});
