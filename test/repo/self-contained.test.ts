import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/project.js";

/**
 * A user's clone has nothing beside it: no test, benchmark, CI step or source file may read a path outside
 * the repository. The workspace folder this project was developed beside is the usual culprit, so its
 * name is searched for in every source the suite, the benchmarks and CI run.
 */
// Built from pieces so that neither this file nor a text search for the folder finds this line itself.
const OUTSIDE = ["..", "sha" + "red"].join("/");
const SCANNED = ["src", "test", "bench", ".ci", "examples", "templates", "package.json", "vitest.config.ts"];
const TEXT = /\.(ts|mts|mjs|js|json|hbs|sh)$|^run$/;

function* files(path: string): Generator<string> {
  const stat = statSync(path);
  if (stat.isFile()) {
    yield path;
    return;
  }
  for (const name of readdirSync(path).sort()) {
    if (name === "node_modules" || name === "fixtures") continue;
    yield* files(join(path, name));
  }
}

describe("the repository is self-contained", () => {
  it(`no source, test, benchmark or CI step reads ${OUTSIDE}`, () => {
    const hits: string[] = [];
    for (const top of SCANNED) {
      for (const file of files(join(ROOT, top))) {
        if (!TEXT.test(file.split("/").pop() as string)) continue;
        readFileSync(file, "utf8")
          .split("\n")
          .forEach((line, i) => {
            if (line.includes(OUTSIDE)) hits.push(`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
          });
      }
    }
    expect(hits, `these lines read outside the repository; copy what they need into it:\n${hits.join("\n")}`).toEqual([]);
  });

  it("carries the corpus and the specification texts the tests read", () => {
    const corpus = join(ROOT, "test/fixtures/corpus");
    const rows = readFileSync(join(corpus, "results.tsv"), "utf8").trimEnd().split("\n").slice(1);
    const missing = rows.map((r) => r.split("\t")[0] as string).filter((f) => !exists(join(corpus, f)));
    expect(missing).toEqual([]);
    expect(rows.length).toBe(1577);
    for (const v of ["0.1.0", "0.2.5", "0.3.0", "1.0.1"]) expect(exists(join(ROOT, "schema", `specification-${v}.md`))).toBe(true);
  });
});

function exists(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
