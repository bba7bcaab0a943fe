/**
 * The counts of versions in the description of the tests (CONTRIBUTING.md, "Tests") are the repository's
 * (issue 13): the generated versions are the bundled ones, and the property tests run on the versions
 * published as JSON Schemas, which it names.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bundledVersions } from "../../src/schema/load.js";
import { ROOT } from "../support/project.js";

const TESTS_DOC = readFileSync(join(ROOT, "CONTRIBUTING.md"), "utf8").replace(/\s+/g, " ");
const WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"];
/** The number a count is written as ("ten" → 10, "12" → 12). */
const count = (written: string | undefined): number => (written === undefined ? NaN : /^\d+$/.test(written) ? Number(written) : WORDS.indexOf(written.toLowerCase()));

describe("CONTRIBUTING.md counts", () => {
  it("the generated versions are the bundled versions (generated/ holds one folder each)", () => {
    const match = /all (\w+) generated versions/.exec(TESTS_DOC);
    expect(match, "CONTRIBUTING.md's Compile paragraph").not.toBeNull();
    expect(count(match?.[1])).toBe(bundledVersions().length);
    expect(readdirSync(join(ROOT, "generated")).filter((d) => d.startsWith("a2a-")).length).toBe(bundledVersions().length);
  });

  it("the property tests' versions are those published as JSON Schemas, first to last as CONTRIBUTING.md says", () => {
    const match = /for the (\w+) versions published as JSON Schemas \((\S+) to (\S+)\)/.exec(TESTS_DOC);
    expect(match, "CONTRIBUTING.md's Property-based paragraph").not.toBeNull();
    const schemas = bundledVersions().filter((v) => readdirSync(join(ROOT, "schema")).includes(`a2a-${v}.json`));
    expect(count(match?.[1])).toBe(schemas.length);
    expect([match?.[2], match?.[3]]).toEqual([schemas[0], schemas.at(-1)]);
  });
});
