/**
 * The large generated validator files are marked generated and not diffable (issue 13): a review shows
 * "binary/generated" for validators.ajv.ts instead of thousands of lines of Ajv's standalone code, and
 * GitHub folds them. The readable generated files stay diffable.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/project.js";

/** `git check-attr` of an attribute for a path: "set", "unset", "unspecified" or its value. */
function attribute(path: string, name: string): string {
  const run = spawnSync("git", ["check-attr", name, "--", path], { cwd: ROOT, encoding: "utf8" });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout.trim().split(": ").at(-1) ?? "";
}

describe(".gitattributes", () => {
  it("marks every generated validators.ajv.ts linguist-generated and -diff, and leaves models.ts diffable", () => {
    const versions = readdirSync(join(ROOT, "generated")).filter((d) => d.startsWith("a2a-"));
    expect(versions.length).toBeGreaterThan(0);
    for (const version of versions) {
      const validators = `generated/${version}/validators.ajv.ts`;
      expect(attribute(validators, "linguist-generated"), validators).toBe("true");
      expect(attribute(validators, "diff"), validators).toBe("unset");
      expect(attribute(`generated/${version}/models.ts`, "diff")).toBe("unspecified");
    }
  });
});
