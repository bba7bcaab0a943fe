import { describe, expect, it } from "vitest";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { generatedValidators, independentValidator, ROOT, TEST_VERSIONS } from "../support/project.js";

/**
 * The JSON examples of the specification texts (test/fixtures/spec-examples, each with its source line):
 * the valid ones, and each mutated in one documented place. The generated validators must give the same
 * verdict as an Ajv compiled from the bundled schema at test time, and for a mutated example an issue at
 * (or inside) the mutated place.
 */
interface Fixture {
  source: { file: string; line: number; section: string; pointer?: string };
  definition: string;
  mutation?: { op: string; pointer: string; description: string };
  instance: unknown;
}

const DIR = join(ROOT, "test/fixtures/spec-examples");
function fixtures(version: string, kind: "valid" | "invalid"): Array<[string, Fixture]> {
  const dir = join(DIR, version, kind);
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => [f, JSON.parse(readFileSync(join(dir, f), "utf8")) as Fixture]);
}

describe("spec-text examples", () => {
  it("has at least 30 valid and 30 invalid examples, both discriminators represented", () => {
    const valid = TEST_VERSIONS.flatMap((v) => fixtures(v, "valid"));
    const invalid = TEST_VERSIONS.flatMap((v) => fixtures(v, "invalid"));
    expect(valid.filter(([, f]) => f.source.pointer === undefined).length).toBeGreaterThanOrEqual(30);
    expect(invalid.length).toBeGreaterThanOrEqual(30);
    expect(fixtures("0.1.0", "valid").length).toBeGreaterThan(0);
    expect(fixtures("0.3.0", "valid").length).toBeGreaterThan(0);
  });

  for (const version of TEST_VERSIONS) {
    describe(version, () => {
      it.each(fixtures(version, "valid"))("valid %s", async (_name, fixture) => {
        const validators = await generatedValidators(version);
        const ours = validators[fixture.definition];
        expect(ours, fixture.definition).toBeDefined();
        expect(independentValidator(version, fixture.definition)(fixture.instance)).toBe(true);
        expect(ours?.(fixture.instance), JSON.stringify(ours?.errors)).toBe(true);
        expect(ours?.errors).toBeNull();
      });

      it.each(fixtures(version, "invalid"))("invalid %s", async (_name, fixture) => {
        const validators = await generatedValidators(version);
        const ours = validators[fixture.definition];
        expect(independentValidator(version, fixture.definition)(fixture.instance)).toBe(false);
        expect(ours?.(fixture.instance)).toBe(false);
        const issues = ours?.errors ?? [];
        expect(issues.length).toBeGreaterThan(0);
        // An issue names the mutated place: at it, inside it, or (for a removed property) at its parent.
        const at = fixture.mutation?.pointer as string;
        const parent = at.slice(0, at.lastIndexOf("/"));
        const near = issues.filter((i) => i.pointer === at || i.pointer.startsWith(`${at}/`) || (fixture.mutation?.op === "remove" && i.pointer === parent));
        expect(near.length, `${fixture.mutation?.description}: ${JSON.stringify(issues)}`).toBeGreaterThan(0);
        // ...and nothing else: one bad field yields issues about that field only.
        expect(issues.filter((i) => !near.includes(i)), JSON.stringify(issues)).toEqual([]);
      });
    });
  }
});
