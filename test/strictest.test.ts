import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { GENERATED, ROOT, tempDir } from "./helpers.js";

/**
 * Generated code under the strictest settings projects use (issue 14, item 5): the options of
 * `@tsconfig/strictest` (written out here: no package needed), `exactOptionalPropertyTypes`, and
 * `erasableSyntaxOnly` (Node's built-in type stripping runs only erasable TypeScript).
 *
 * KNOWN GAP: the files listed below do not compile under these settings yet. They belong to the runtime
 * and the client template, which other work is restructuring; the test fails when a file outside the list
 * fails (a regression), and reports the listed files that pass now, so the list only shrinks.
 */
const STRICTEST = {
  strict: true,
  allowUnusedLabels: false,
  allowUnreachableCode: false,
  exactOptionalPropertyTypes: true,
  noFallthroughCasesInSwitch: true,
  noImplicitOverride: true,
  noImplicitReturns: true,
  noPropertyAccessFromIndexSignature: true,
  noUncheckedIndexedAccess: true,
  noUnusedLocals: true,
  noUnusedParameters: true,
  isolatedModules: true,
  checkJs: true,
  esModuleInterop: true,
  skipLibCheck: true,
  erasableSyntaxOnly: true,
};

/** Files (relative to a version's folder) that still fail, with the settings they fail. */
const KNOWN_GAP: Record<string, string> = {
  "runtime/profile.ts": "noPropertyAccessFromIndexSignature (66), erasableSyntaxOnly",
  "runtime/server.ts": "noPropertyAccessFromIndexSignature (138), erasableSyntaxOnly",
  "runtime/sse.ts": "erasableSyntaxOnly",
  "runtime/tasks.ts": "noPropertyAccessFromIndexSignature, erasableSyntaxOnly",
  "runtime/validation.ts": "noPropertyAccessFromIndexSignature",
  // The runtime split and the HTTP+JSON binding (issue 9), merged before this work was done on them:
  "runtime/event-channel.ts": "erasableSyntaxOnly",
  "runtime/jsonrpc-binding.ts": "noPropertyAccessFromIndexSignature",
  "runtime/rest-binding.ts": "noPropertyAccessFromIndexSignature",
  "runtime/service.ts": "noPropertyAccessFromIndexSignature, erasableSyntaxOnly",
  "runtime/task-runtime.ts": "noPropertyAccessFromIndexSignature, erasableSyntaxOnly",
};

describe("generated code under @tsconfig/strictest, exactOptionalPropertyTypes and erasableSyntaxOnly", () => {
  it("no file outside the known gap fails (1.0.1 and 0.3.0, every adapter)", () => {
    const dir = tempDir();
    const versions = ["1.0.1", "0.3.0"];
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", noEmit: true, types: ["node"], typeRoots: [join(ROOT, "node_modules", "@types")], ...STRICTEST },
        include: versions.map((v) => join(GENERATED, `a2a-${v}`, "**", "*.ts")),
      }),
    );
    const run = spawnSync(join(ROOT, "node_modules", ".bin", "tsc"), ["-p", join(dir, "tsconfig.json"), "--pretty", "false"], { encoding: "utf8" });
    const failing = new Map<string, number>();
    for (const m of `${run.stdout}\n${run.stderr}`.matchAll(/generated\/a2a-[\d.]+\/(\S+?\.ts)\(\d+,\d+\): error/g)) {
      failing.set(m[1] as string, (failing.get(m[1] as string) ?? 0) + 1);
    }
    const outside = [...failing.keys()].filter((f) => !(f in KNOWN_GAP));
    expect(outside, run.stdout.split("\n").filter((l) => outside.some((f) => l.includes(`/${f}(`))).slice(0, 20).join("\n")).toEqual([]);
    const fixed = Object.keys(KNOWN_GAP).filter((f) => !failing.has(f));
    console.log(
      `strictest: ${[...failing.values()].reduce((a, b) => a + b, 0)} errors in ${failing.size} files of the known gap (${[...failing].map(([f, n]) => `${f} ${n}`).join(", ")})` +
        (fixed.length > 0 ? `; now passing, remove from KNOWN_GAP: ${fixed.join(", ")}` : ""),
    );
  }, 120_000);
});
