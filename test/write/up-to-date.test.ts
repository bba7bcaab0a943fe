// The unchanged-input fast path of `generate` and `generate --check` (issue 12): a folder generated from
// the same inputs is left as it is, and any change of an input, of the generator or of a generated file
// sends the run down the full pipeline again.
import { beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseGenerateFlags } from "../../src/cli-up-to-date.js";
import { generatorParts, identityOf, isUpToDate, recordName, recordUpToDate, type InputsProbe } from "../../src/write/up-to-date.js";
import { MANIFEST_FILE, manifestText } from "../../src/write/manifest.js";
import { listFiles } from "../../src/write/list-files.js";
import { ROOT, tempDir } from "../support/project.js";

const CLI = join(ROOT, "dist", "bin.cjs");

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

  it("is answered before yargs and the pipeline load: one CommonJS file, no ES module, neither node:crypto nor the stdout stream", () => {
    // Settled: every file older than its record (a file written in the 2 s before it is read, and hashed).
    const aMinuteAgo = new Date(Date.now() - 60_000);
    for (const file of listFiles(out)) utimesSync(join(out, file), aMinuteAgo, aMinuteAgo);
    expect(run(["generate", "--spec", "0.3.0", "--out", out], work).stdout).toMatch(/up to date/);
    // A preloaded script that lists, at exit, the CommonJS files loaded and what node loaded of its own since.
    const hook = join(work, "loaded.cjs");
    writeFileSync(hook, 'const before = new Set(process.moduleLoadList);\nprocess.on("exit", () => process._rawDebug("loaded " + JSON.stringify({ files: Object.keys(require.cache), node: process.moduleLoadList.filter((m) => !before.has(m)) })));\n');
    const loaded = (extra: string[]) => {
      const r = spawnSync(process.execPath, ["-r", hook, CLI, "generate", "--spec", "0.3.0", "--out", out, ...extra], { cwd: work, encoding: "utf8" });
      expect(r.status, r.stderr).toBe(0);
      const line = r.stderr.split("\n").find((l) => l.startsWith("loaded ")) ?? "";
      return { stdout: r.stdout, ...(JSON.parse(line.slice("loaded ".length)) as { files: string[]; node: string[] }) };
    };
    for (const extra of [[], ["--check"], ["--quiet", "-v"]]) {
      const fast = loaded(extra);
      expect(fast.files).toEqual([hook, CLI]);
      // An ES module run (dist/cli.js and what it imports), hashing, the stream of process.stdout or perf_hooks would load these.
      for (const module of ["NativeModule internal/modules/esm/module_job", "NativeModule crypto", "NativeModule stream", "NativeModule perf_hooks"]) expect(fast.node).not.toContain(module);
    }
    expect(loaded([]).stdout).toMatch(/out: up to date \(\d+ files; inputs unchanged/);
    // The control: a run that does generate loads all of them (and packages).
    const forced = loaded(["--force"]);
    expect(forced.files.some((f) => f.includes("/node_modules/"))).toBe(true);
    for (const module of ["NativeModule internal/modules/esm/module_job", "NativeModule crypto", "NativeModule stream"]) expect(forced.node).toContain(module);
  });

  it("a command line the light parser does not take still finds the folder up to date, through yargs", () => {
    // `--framework node express`: yargs takes both values; the light parser leaves such a line to it.
    expect(run(["generate", "--spec", "0.3.0", "--out", out, "--framework", "node", "fastify"], work).code).toBe(0);
    const again = run(["--out", out, "--framework", "node", "fastify", "--spec", "0.3.0"], work);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/out: up to date \(\d+ files; inputs unchanged/);
    expect(run(["generate", "--spec", "0.3.0", "--out", out], work).code).toBe(0);
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

  it("a file changed behind its times (the same size, its modification time put back) is found", () => {
    const models = join(out, "models.ts");
    expect(run(["generate", "--spec", "0.3.0", "--out", out], work).code).toBe(0);
    // Older than its record, and recorded again with those times (the run reads them, they check out):
    // from now on the record trusts their stat.
    const aMinuteAgo = new Date(Date.now() - 60_000);
    for (const file of listFiles(out)) utimesSync(join(out, file), aMinuteAgo, aMinuteAgo);
    expect(run(["generate", "--spec", "0.3.0", "--out", out], work).stdout).toMatch(/up to date/);
    const original = readFileSync(models, "utf8");
    const { atime, mtime } = statSync(models);
    // The same length, one character changed, and the modification time the file had.
    writeFileSync(models, original.replace("export", "exporT"));
    utimesSync(models, atime, mtime);
    const again = run(["generate", "--spec", "0.3.0", "--out", out], work);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/A2A 0\.3\.0 — \d+ types/);
    expect(readFileSync(models, "utf8")).toBe(original);
  });

  it("a file only touched (its content the same) keeps the folder up to date", () => {
    expect(run(["generate", "--spec", "0.3.0", "--out", out], work).code).toBe(0);
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(out, "client.ts"), later, later);
    expect(run(["generate", "--spec", "0.3.0", "--out", out], work).stdout).toMatch(/up to date/);
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

  it("a schema file only touched keeps the folder up to date; one edited behind its times (same size, mtime put back) generates again", () => {
    const schema = join(work, "touched.json");
    copyFileSync(join(ROOT, "schema", "a2a-0.3.0.json"), schema);
    const mine = join(work, "touched");
    expect(run(["generate", "--schema", schema, "--out", mine], work).code).toBe(0);
    // Settled: the schema and the output older than their record (what was written in the 2 s before it is read).
    const aMinuteAgo = new Date(Date.now() - 60_000);
    for (const file of [schema, ...listFiles(mine).map((f) => join(mine, f))]) utimesSync(file, aMinuteAgo, aMinuteAgo);
    expect(run(["generate", "--schema", schema, "--out", mine], work).stdout).toMatch(/up to date/);
    // Touched: its stat moved, its content is the one recorded.
    const later = new Date(Date.now() - 30_000);
    utimesSync(schema, later, later);
    expect(run(["generate", "--schema", schema, "--out", mine], work).stdout).toMatch(/up to date/);
    // Edited: the same length, one description changed, the modification time put back. The change time moved.
    const text = readFileSync(schema, "utf8");
    const edited = text.replace(/"description": "([^"]{4})/, (_m, head: string) => `"description": "${head.toUpperCase() === head ? head.toLowerCase() : head.toUpperCase()}`);
    expect(edited).not.toBe(text);
    expect(edited.length).toBe(text.length);
    writeFileSync(schema, edited);
    utimesSync(schema, later, later);
    const again = run(["generate", "--schema", schema, "--out", mine], work);
    expect(again.code).toBe(0);
    expect(again.stdout).not.toMatch(/up to date/);
  });
});

describe("the light parser of `generate` (the unchanged-input path before yargs)", () => {
  it("takes the plain spellings, as yargs gives them", () => {
    expect(parseGenerateFlags(["generate", "--spec", "0.3.0", "--out=gen", "--check", "-q", "--framework", "node", "--framework=hono", "--store", "postgres,redis"])).toEqual({
      spec: "0.3.0",
      out: "gen",
      check: true,
      quiet: true,
      watch: false,
      verbose: false,
      allowTypeErrors: false,
      framework: ["node", "hono"],
      store: ["postgres,redis"],
    });
    expect(parseGenerateFlags([])).toEqual({ check: false, watch: false, verbose: false, quiet: false, allowTypeErrors: false });
    expect(parseGenerateFlags(["--all", "--out", "generated", "--check", "--card-signatures", "--allow-type-errors", "-v"])).toMatchObject({
      all: true,
      out: "generated",
      cardSignatures: true,
      allowTypeErrors: true,
      verbose: true,
    });
  });

  it.each([
    [["init", "x"]],
    [["diff", "0.2.6", "0.3.0"]],
    [["versions"]],
    [["--help"]],
    [["--version"]],
    [["generate", "--watch"]],
    [["generate", "-w"]],
    [["generate", "--force"]],
    [["generate", "--spec", "0.3.0", "--spec", "0.2.6"]],
    [["generate", "--spec", "0.3.0", "--schema", "a.json"]],
    [["generate", "--all", "--spec", "0.3.0"]],
    [["generate", "--all", "--compat", "0.3.0"]],
    [["generate", "--spec"]],
    [["generate", "--spec", "--check"]],
    [["generate", "--spec="]],
    [["generate", "--framework", "node", "express"]],
    [["generate", "--framework=node", "express"]],
    [["generate", "--check", "false"]],
    [["generate", "--check=true"]],
    [["generate", "--no-check"]],
    [["generate", "-vq"]],
    [["generate", "--outt", "x"]],
    [["generate", "--cardSignatures"]],
    [["generate", "--", "--spec"]],
    [["--spec", "0.3.0", "generate"]],
  ])("leaves %j to yargs", (argv) => {
    expect(parseGenerateFlags(argv)).toBeUndefined();
  });
});

describe("the generator's identity", () => {
  it("covers the copy of the code that runs: dist/ and the runtime it copies, or src/ when run from its sources", () => {
    // dist/runtime is compiled from src/runtime, which is in: it is left out.
    expect(generatorParts(join(ROOT, "dist", "write", "up-to-date.js"))).toEqual({ parts: ["dist", "src/runtime", "templates", "schema"], skipped: ["dist/runtime"] });
    expect(generatorParts(join(ROOT, "src", "write", "up-to-date.ts"))).toEqual({ parts: ["src", "templates", "schema"], skipped: [] });
  });

  it("leaves out the files of a skipped folder, and only those", () => {
    const root = tempDir("identity-");
    mkdirSync(join(root, "dist", "runtime", "stores"), { recursive: true });
    writeFileSync(join(root, "dist", "runtime", "stores", "memory.js"), "export const m = 1;\n");
    writeFileSync(join(root, "dist", "runtime-files.js"), "export const r = 1;\n");
    const started = Date.now() + 60_000;
    const before = identityOf(root, ["dist"], started, 1, ["dist/runtime"]);
    writeFileSync(join(root, "dist", "runtime", "stores", "memory.js"), "export const m = 22;\n");
    expect(identityOf(root, ["dist"], started, 1, ["dist/runtime"])).toBe(before);
    expect(identityOf(root, ["dist"], started, 1)).not.toBe(identityOf(root, ["dist"], started, 1, ["dist/runtime"]));
    writeFileSync(join(root, "dist", "runtime-files.js"), "export const r = 22;\n");
    expect(identityOf(root, ["dist"], started, 1, ["dist/runtime"])).not.toBe(before);
  });

  it("sees a file changed deep in a folder and a linked file, never a folder's own time", () => {
    const root = tempDir("identity-");
    mkdirSync(join(root, "dist", "a", "b"), { recursive: true });
    writeFileSync(join(root, "dist", "a", "b", "c.js"), "export const c = 1;\n");
    writeFileSync(join(root, "target.js"), "export const t = 1;\n");
    symlinkSync(join(root, "target.js"), join(root, "dist", "linked.js"));
    const mtime = statSync(join(root, "dist", "a", "b", "c.js")).mtimeMs;
    const started = mtime + 10_000;
    const before = identityOf(root, ["dist"], started, 1);
    utimesSync(join(root, "dist", "a"), new Date(mtime + 500), new Date(mtime + 500));
    expect(identityOf(root, ["dist"], started, 1)).toBe(before);
    writeFileSync(join(root, "dist", "a", "b", "c.js"), "export const c = 22;\n");
    utimesSync(join(root, "dist", "a", "b", "c.js"), new Date(mtime + 500), new Date(mtime + 500));
    const deep = identityOf(root, ["dist"], started, 1);
    expect(deep).not.toBe(before);
    writeFileSync(join(root, "target.js"), "export const t = 333;\n");
    utimesSync(join(root, "target.js"), new Date(mtime + 600), new Date(mtime + 600));
    expect(identityOf(root, ["dist"], started, 1)).not.toBe(deep);
  });

  it("is the files' paths, sizes and times; a file changed after the process started gives that process an identity of its own", () => {
    const root = tempDir("identity-");
    mkdirSync(join(root, "dist"), { recursive: true });
    writeFileSync(join(root, "dist", "a.js"), "export const a = 1;\n");
    const mtime = statSync(join(root, "dist", "a.js")).mtimeMs;
    const started = mtime + 1000;
    // The same files seen by two processes that started after them: one identity, which outputs share.
    expect(identityOf(root, ["dist"], started, 1)).toBe(identityOf(root, ["dist"], started + 5, 2));
    // A rebuilt file is another generator.
    const before = identityOf(root, ["dist"], started, 1);
    writeFileSync(join(root, "dist", "a.js"), "export const a = 22;\n");
    utimesSync(join(root, "dist", "a.js"), new Date(mtime + 500), new Date(mtime + 500));
    expect(identityOf(root, ["dist"], started, 1)).not.toBe(before);
    // A process that started before the rebuild runs the older code: it must not file its outputs under
    // the new code's identity, nor take the new code's outputs as its own.
    const rebuilt = identityOf(root, ["dist"], started, 1);
    const older = identityOf(root, ["dist"], mtime, 3);
    expect(older).not.toBe(rebuilt);
    expect(older).not.toBe(identityOf(root, ["dist"], mtime, 4));
  });
});

describe("the up-to-date record", () => {
  /** A folder of one file and its manifest, the file edited since (the same size): what the manifest hashes is not on disk. */
  function editedFolder() {
    const work = tempDir("record-");
    const out = join(work, "out");
    mkdirSync(out);
    const content = "export const a = 1;\n";
    const manifest = manifestText({ generator: "a2a-codegen", generatorVersion: "0.0.0", specVersion: "0.3.0", schema: { file: "a2a.json", sha256: "0" } }, { "a.ts": content });
    writeFileSync(join(out, MANIFEST_FILE), manifest);
    writeFileSync(join(out, "a.ts"), "export const a = 2;\n");
    return { work, out, content, manifest };
  }
  const aMinuteAgo = () => new Date(Date.now() - 60_000);
  /**
   * Inputs whose stats are `stats`, taken now, the newest input file modified at `newest` (a minute ago:
   * the record trusts their stats); `hashed` says whether their content was hashed (once at most, as
   * probeInputs' fingerprint).
   */
  function counted(fingerprint: string, stats: string, newest = Date.now() - 60_000): InputsProbe & { hashed: number } {
    const probe = { stats, at: Date.now(), newest, hashed: 0, fingerprint: () => ((probe.hashed = 1), fingerprint) };
    return probe;
  }
  const settled = (fingerprint: string, stats = fingerprint): InputsProbe => counted(fingerprint, stats);
  /** A folder that checks out, settled (older than its record), recorded from `inputs`. */
  function settledFolder(inputs: InputsProbe) {
    const { work, out, content, manifest } = editedFolder();
    writeFileSync(join(out, "a.ts"), content);
    for (const file of ["a.ts", MANIFEST_FILE]) utimesSync(join(out, file), aMinuteAgo(), aMinuteAgo());
    recordUpToDate(out, inputs, manifest, work);
    return { work, out, content, manifest };
  }

  it("reads a file modified in the 2 s before its record was made (its stat may hide a later write): the edit is found", () => {
    const { work, out, manifest } = editedFolder();
    recordUpToDate(out, settled("inputs"), manifest, work);
    expect(isUpToDate(out, settled("inputs"), work)).toBe(false);
  });

  it("trusts a file older than its record whose size, times and inode are the recorded ones, as git trusts its index", () => {
    const { work, out, manifest } = editedFolder();
    for (const file of ["a.ts", MANIFEST_FILE]) utimesSync(join(out, file), aMinuteAgo(), aMinuteAgo());
    recordUpToDate(out, settled("inputs"), manifest, work);
    // Not read: the stat is the one recorded (the edit was made before the record, which a run never does).
    expect(isUpToDate(out, settled("inputs"), work)).toBe(true);
    // Any write since moves the change time: the file is read, and the edit found.
    writeFileSync(join(out, "a.ts"), "export const a = 3;\n");
    utimesSync(join(out, "a.ts"), aMinuteAgo(), aMinuteAgo());
    expect(isUpToDate(out, settled("inputs"), work)).toBe(false);
    expect(isUpToDate(out, settled("other inputs"), work)).toBe(false);
  });

  it("a file read and found as the manifest hashes it is recorded again; a missing file or manifest is never up to date", () => {
    const { work, out, content, manifest } = settledFolder(settled("inputs"));
    writeFileSync(join(out, "a.ts"), content); // the same bytes again: a new change time
    expect(isUpToDate(out, settled("inputs"), work)).toBe(true);
    expect(isUpToDate(out, settled("inputs"), work)).toBe(true);
    rmSync(join(out, "a.ts"));
    expect(isUpToDate(out, settled("inputs"), work)).toBe(false);
    writeFileSync(join(out, "a.ts"), content);
    writeFileSync(join(out, MANIFEST_FILE), manifest.replace("0.3.0", "0.2.6"));
    expect(isUpToDate(out, settled("inputs"), work)).toBe(false);
  });

  it("tells the inputs by their stats: inputs whose stats are the recorded ones are not read", () => {
    const { work, out } = settledFolder(settled("content", "stats"));
    const same = counted("content", "stats");
    expect(isUpToDate(out, same, work)).toBe(true);
    expect(same.hashed).toBe(0);
    // Other content behind the recorded stats is not looked at: the stats are what tells (the change time moves on any write).
    expect(isUpToDate(out, counted("other content", "stats"), work)).toBe(true);
  });

  it("hashes the inputs when a stat moved: the same content is up to date (and recorded with the new stats), other content is not", () => {
    const { work, out } = settledFolder(settled("content", "stats"));
    const touched = counted("content", "touched stats");
    expect(isUpToDate(out, touched, work)).toBe(true);
    expect(touched.hashed).toBe(1);
    const again = counted("content", "touched stats");
    expect(isUpToDate(out, again, work)).toBe(true);
    expect(again.hashed).toBe(0);
    const edited = counted("edited content", "edited stats");
    expect(isUpToDate(out, edited, work)).toBe(false);
    expect(edited.hashed).toBe(1);
  });

  it("hashes an input modified in the 2 s before its stats were recorded (a later write in the same clock tick would leave its stat as it was)", () => {
    const recent = counted("content", "stats", Date.now() - 500);
    const { work, out } = settledFolder(recent);
    const racy = counted("edited content", "stats", Date.now() - 500);
    expect(isUpToDate(out, racy, work)).toBe(false);
    expect(racy.hashed).toBe(1);
    const same = counted("content", "stats", Date.now() - 500);
    expect(isUpToDate(out, same, work)).toBe(true);
    expect(same.hashed).toBe(1);
  });

  it("is kept under a name that spells its folder, with no hash to compute; a hash when the path is too long for a name", () => {
    expect(recordName("/home/me/agent/a2a-1.0.1")).toBe("%2Fhome%2Fme%2Fagent%2Fa2a-1%2E0%2E1.json");
    expect(recordName("C:\\agent\\gen (old)")).toBe("C%3A%5Cagent%5Cgen%20%28old%29.json");
    expect(recordName(`/${"deep/".repeat(60)}out`)).toMatch(/^[0-9a-f]{32}\.json$/);
  });
});
