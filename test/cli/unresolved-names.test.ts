/**
 * A misspelled type name in a schema or proto gets the place and the closest name (issue 29, item 18):
 * a dangling `$ref` (`Partt`) says `did you mean "Part"?` (also covered among cli.test.ts's bad inputs); a
 * proto field whose type does not resolve names the file, line, column, the field and the closest type.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, tempDir } from "../support/project.js";

const CLI = join(ROOT, "dist", "bin.cjs");
function run(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("misspelled type names (issue 29, item 18)", () => {
  it("a proto field of a type that does not resolve: file, line, column, field and the closest type", () => {
    const dir = tempDir();
    const proto = readFileSync(join(ROOT, "schema", "a2a-1.0.1.proto"), "utf8").split("\n");
    const line = proto.findIndex((l) => /^\s*repeated Part parts = /.test(l));
    expect(line).toBeGreaterThan(0);
    proto[line] = (proto[line] as string).replace("repeated Part parts", "repeated Partt parts");
    writeFileSync(join(dir, "mine.proto"), proto.join("\n"));
    const r = run(["generate", "--schema", "mine.proto", "--out", "out"], dir);
    expect(r.code).toBe(2);
    const column = (proto[line] as string).indexOf("Partt") + 1;
    expect(r.stderr).toMatch(
      new RegExp(`^a2a-codegen: error: mine\\.proto: the proto does not resolve at line ${line + 1}, column ${column}: field lf\\.a2a\\.v1\\.\\w+\\.parts has type "Partt", which is no message or enum; did you mean "Part"\\?$`, "m"),
    );
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });

  it("a dangling $ref: the closest definition", () => {
    const dir = tempDir();
    const schema = JSON.parse(readFileSync(join(ROOT, "schema", "a2a-0.3.0.json"), "utf8")) as { definitions: Record<string, { properties?: Record<string, { items?: { $ref?: string } }> }> };
    schema.definitions.Message!.properties!.parts!.items!.$ref = "#/definitions/Partt";
    writeFileSync(join(dir, "mine.json"), JSON.stringify(schema));
    const r = run(["generate", "--schema", "mine.json", "--out", "out"], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('dangling $ref "#/definitions/Partt": there is no definition "Partt"; did you mean "Part"?');
  });
});
