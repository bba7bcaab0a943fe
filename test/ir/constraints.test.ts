import { describe, expect, it } from "vitest";
import { CodegenError } from "../../src/errors.js";
import { bundledConstraints, parseConstraints } from "../../src/ir/overlay.js";

/**
 * The constraints files' format (issue 15 item 2): an entry may say it holds for requests only
 * (`"appliesTo": "requests"`), anything else there is refused naming the entry's field.
 */
describe("spec-text constraint entries", () => {
  const entry = { definition: "Message", property: "parts", schema: { minItems: 1 }, source: "specification-0.3.0.md §2" };

  it('keeps "appliesTo": "requests", and leaves it out for "all" or none', () => {
    expect(parseConstraints([{ ...entry, appliesTo: "requests" }], "c.json", "/constraints")).toEqual([{ ...entry, appliesTo: "requests" }]);
    expect(parseConstraints([{ ...entry, appliesTo: "all" }], "c.json", "/constraints")).toEqual([entry]);
    expect(parseConstraints([entry], "c.json", "/constraints")).toEqual([entry]);
  });

  it("refuses another appliesTo, naming the entry's field", () => {
    const parse = () => parseConstraints([entry, { ...entry, appliesTo: "responses" }], "c.json", "/constraints");
    expect(parse).toThrow(CodegenError);
    expect(parse).toThrow(/"appliesTo" must be "all" or "requests"/);
    try {
      parse();
    } catch (error) {
      expect((error as CodegenError).pointer).toBe("/constraints/1/appliesTo");
    }
  });

  it("0.3.0's Message.parts holds for requests only; its historyLength bounds everywhere (request-only definitions)", () => {
    const constraints = bundledConstraints("0.3.0");
    expect(constraints.find((c) => c.definition === "Message" && c.property === "parts")).toMatchObject({ schema: { minItems: 1 }, appliesTo: "requests" });
    expect(constraints.filter((c) => c.property === "historyLength").map((c) => [c.definition, c.appliesTo])).toEqual([
      ["TaskQueryParams", undefined],
      ["MessageSendConfiguration", undefined],
    ]);
  });
});
