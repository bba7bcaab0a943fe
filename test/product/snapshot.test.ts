import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { generate } from "../../src/generate.js";
import { bundledVersions } from "../../src/schema/load.js";
import { checkOutput } from "../../src/write/writer.js";
import { listFiles } from "../../src/write/list-files.js";
import { GENERATED } from "../support/project.js";

describe("generated/ is the snapshot of every bundled version", () => {
  it("has one folder per bundled version", () => {
    expect(listFiles(GENERATED).map((f) => f.split("/")[0]).filter((v, i, a) => a.indexOf(v) === i)).toEqual(
      bundledVersions().map((v) => `a2a-${v}`),
    );
  });
  for (const version of bundledVersions()) {
    it(`regenerating ${version} equals generated/a2a-${version} byte for byte`, async () => {
      const result = await generate({ spec: version, out: join(GENERATED, `a2a-${version}`) });
      const outcome = checkOutput(result.outDir, result.files);
      expect(outcome).toEqual({ ok: true, stale: [], missing: [], extra: [] });
      expect(listFiles(result.outDir)).toEqual(Object.keys(result.files).sort());
    });
  }
});
