// The unchanged-input fast path of `generate` and `generate --check` (issue 12): a folder generated from
// the same inputs is left as it is, and any change of an input, of the generator or of a generated file
// sends the run down the full pipeline again.
import { beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { copyFileSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { listFiles } from "../../src/write/writer.js";
import { ROOT, tempDir } from "../helpers.js";

const CLI = join(ROOT, "dist", "cli.js");

function run(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Every file with its modification time and content: equal snapshots mean nothing was rewritten. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of listFiles(dir)) out[f] = `${statSync(join(dir, f)).mtimeMs} ${readFileSync(join(dir, f), "utf8")}`;
  return out;
}

describe("generate on unchanged inputs", () => {
  let work: string;
  let out: string;
  beforeAll(() => {
    work = tempDir();
    out = join(work, "out");
    expect(run(["generate", "--spec", "0.3.0", "--out", out], work).code).toBe(0);
  });

  it("says the folder is up to date and rewrites nothing", () => {
    const before = snapshot(out);
    const again = run(["generate", "--spec", "0.3.0", "--out", out], work);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/out: up to date \(\d+ files; inputs unchanged/);
    expect(snapshot(out)).toEqual(before);
  });

  it("--check on the up-to-date folder passes without generating", () => {
    const before = snapshot(out);
    const checked = run(["generate", "--spec", "0.3.0", "--out", out, "--check"], work);
    expect(checked.code).toBe(0);
    expect(checked.stdout).toMatch(/up to date/);
    expect(snapshot(out)).toEqual(before);
  });

  it("a generated file edited by hand is found by --check and restored by generate", () => {
    const models = join(out, "models.ts");
    const original = readFileSync(models, "utf8");
    writeFileSync(models, original + "\n// edited\n");
    const checked = run(["generate", "--spec", "0.3.0", "--out", out, "--check"], work);
    expect(checked.code).toBe(1);
    expect(checked.stderr).toMatch(/changed: models\.ts/);
    const regenerated = run(["generate", "--spec", "0.3.0", "--out", out], work);
    expect(regenerated.code).toBe(0);
    expect(regenerated.stdout).toMatch(/A2A 0\.3\.0 — \d+ types/);
    expect(readFileSync(models, "utf8")).toBe(original);
  });

  it("another option generates again (and that output is then the up-to-date one)", () => {
    const withExpress = run(["generate", "--spec", "0.3.0", "--out", out, "--framework", "node", "express"], work);
    expect(withExpress.code).toBe(0);
    expect(withExpress.stdout).toMatch(/servers: node, express/);
    expect(listFiles(out)).toContain("server/express.ts");
    expect(run(["generate", "--spec", "0.3.0", "--out", out, "--framework", "node", "express"], work).stdout).toMatch(/up to date/);
    const back = run(["generate", "--spec", "0.3.0", "--out", out], work);
    expect(back.stdout).toMatch(/A2A 0\.3\.0 — \d+ types/);
    expect(listFiles(out)).not.toContain("server/express.ts");
  });

  it("--force generates even when nothing changed", () => {
    const forced = run(["generate", "--spec", "0.3.0", "--out", out, "--force"], work);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toMatch(/A2A 0\.3\.0 — \d+ types/);
  });

  it("a changed schema file generates again", () => {
    const schema = join(work, "a2a.json");
    const overlay = join(work, "a2a.overlay.json");
    copyFileSync(join(ROOT, "schema", "a2a-0.3.0.json"), schema);
    copyFileSync(join(ROOT, "schema", "a2a-0.3.0.overlay.json"), overlay);
    const mine = join(work, "mine");
    expect(run(["generate", "--schema", schema, "--out", mine], work).code).toBe(0);
    expect(run(["generate", "--schema", schema, "--out", mine], work).stdout).toMatch(/up to date/);
    const json = JSON.parse(readFileSync(schema, "utf8")) as { definitions: Record<string, { description?: string }> };
    (json.definitions.Message as { description?: string }).description = "A message, as described here.";
    writeFileSync(schema, JSON.stringify(json, null, 2));
    const changed = run(["generate", "--schema", schema, "--out", mine], work);
    expect(changed.code).toBe(0);
    expect(changed.stdout).not.toMatch(/up to date/);
    expect(readFileSync(join(mine, "models.ts"), "utf8")).toContain("A message, as described here.");
  });
});
