// The test kit is emitted only when chosen (issue 32): without --testing no testing/ file and no testing
// runtime; with it, msw is imported by testing/msw.ts alone, and the kit compiles into the output's index.
import { describe, expect, it } from "vitest";
import { generate } from "../../src/generate.js";

const importsOf = (text: string) => [...text.matchAll(/^import[^"]*"([^"]+)"/gm)].map((m) => m[1]);

describe("the test kit in an output", () => {
  it("is absent without --testing", async () => {
    const plain = await generate({ spec: "1.0.1", frameworks: ["node"] });
    expect(Object.keys(plain.files).filter((f) => f.startsWith("testing/") || f.startsWith("runtime/testing/"))).toEqual([]);
    expect(Object.keys(plain.files)).not.toContain("runtime/adapters/web.ts");
  });

  it("with --testing: the kit's files, and msw imported by testing/msw.ts only", async () => {
    const { files } = await generate({ spec: "0.3.0", frameworks: ["node"], testing: true });
    for (const path of ["testing/index.ts", "testing/msw.ts", "testing/fixtures.ts", "runtime/testing/mock-agent.ts", "runtime/testing/in-memory.ts", "runtime/adapters/web.ts"]) {
      expect(Object.keys(files), path).toContain(path);
    }
    const importers = Object.entries(files).filter(([path, text]) => path.endsWith(".ts") && importsOf(text).includes("msw"));
    expect(importers.map(([path]) => path)).toEqual(["testing/msw.ts"]);
    // The mock agent runs in browsers: it imports nothing of node.
    expect(importsOf(files["runtime/testing/mock-agent.ts"] ?? "").filter((s) => s?.startsWith("node:"))).toEqual([]);
  });
});
