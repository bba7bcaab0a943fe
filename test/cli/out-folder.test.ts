/**
 * The output folder is replaced as a whole, so a2a-codegen writes only into a folder it owns entirely: a
 * new one, an empty one or one whose every file its manifest lists (issue 29, item 1). `generate --out .`
 * in a project once replaced the project's root: its files rewritten, the folder moved to a new inode and
 * every symbolic link turned into a copy. A folder holding anything else is refused (exit 2) naming what is
 * not a2a-codegen's, and nothing in it changes: not a file, not a link, not the folder's identity.
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, tempDir } from "../support/project.js";

const CLI = join(ROOT, "dist", "bin.cjs");

function run(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Every entry below a folder with its kind, inode and content (links: their target, not followed). */
function state(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, prefix: string) => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name);
      const s = lstatSync(path);
      const key = prefix + name;
      if (s.isSymbolicLink()) out[key] = `link ${s.ino} -> ${readlinkSync(path)}`;
      else if (s.isDirectory()) {
        out[key] = `folder ${s.ino}`;
        walk(path, `${key}/`);
      } else out[key] = `file ${s.ino} ${readFileSync(path, "utf8")}`;
    }
  };
  walk(dir, "");
  return out;
}

/** A project's root: package.json, .git, src, node_modules with a .bin link, a link at the top. */
function project(): string {
  const dir = join(tempDir(), "project");
  mkdirSync(join(dir, ".git"), { recursive: true });
  writeFileSync(join(dir, ".git", "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(dir, "package.json"), '{ "name": "mine" }\n');
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src", "agent.ts"), "export const agent = 1;\n");
  mkdirSync(join(dir, "node_modules", "tool"), { recursive: true });
  writeFileSync(join(dir, "node_modules", "tool", "cli.js"), "#!/usr/bin/env node\n");
  mkdirSync(join(dir, "node_modules", ".bin"));
  symlinkSync("../tool/cli.js", join(dir, "node_modules", ".bin", "tool"));
  symlinkSync("src/agent.ts", join(dir, "agent-link.ts"));
  return dir;
}

describe("generate refuses an output folder holding files it does not own (issue 29, item 1)", () => {
  for (const out of [".", ""]) {
    it(`--out ${JSON.stringify(out)} in a project's root: exit 2 naming its files; every file, link and the folder itself untouched`, () => {
      const dir = project();
      const before = state(dir);
      const inode = statSync(dir).ino;
      const r = run(["generate", "--out", out], dir);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/the output folder holds files a2a-codegen does not own \(not in its a2a-codegen\.manifest\.json\): \.git\/, agent-link\.ts, node_modules\/, package\.json, src\/;/);
      expect(r.stderr).not.toMatch(/^\s+at /m);
      expect(r.stdout).toBe("");
      expect(statSync(dir).ino).toBe(inode);
      expect(state(dir)).toEqual(before);
      expect(lstatSync(join(dir, "node_modules", ".bin", "tool")).isSymbolicLink()).toBe(true);
      // Nothing left beside it either.
      expect(readdirSync(join(dir, "..")).filter((n) => n.includes("a2a-codegen"))).toEqual([]);
    });
  }

  it("names a few entries, then how many more", () => {
    const dir = join(tempDir(), "many");
    mkdirSync(dir);
    for (let i = 0; i < 8; i++) writeFileSync(join(dir, `file-${i}.txt`), "x");
    const r = run(["generate", "--out", "many"], join(dir, ".."));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/many: the output folder holds files .*: file-0\.txt, file-1\.txt, file-2\.txt, file-3\.txt, file-4\.txt and 3 more;/);
  });

  it("a folder with a2a-codegen's manifest is refused too when it holds other files (an earlier `--out .`)", () => {
    const dir = join(tempDir(), "out");
    expect(run(["generate", "--spec", "0.3.0", "--out", dir], ROOT).code).toBe(0);
    writeFileSync(join(dir, "package.json"), "{}\n");
    mkdirSync(join(dir, "server", "mine"), { recursive: true });
    writeFileSync(join(dir, "server", "mine", "x.ts"), "// mine\n");
    writeFileSync(join(dir, "server", "extra.ts"), "// mine\n");
    const before = state(dir);
    const r = run(["generate", "--spec", "0.3.0", "--out", dir], ROOT);
    expect(r.code).toBe(2);
    // A folder it has files in is walked; one it has none in is named once.
    expect(r.stderr).toMatch(/: package\.json, server\/extra\.ts, server\/mine\/;/);
    expect(state(dir)).toEqual(before);
  });

  it("a folder it owns entirely is replaced; an empty folder is filled in place (same inode)", () => {
    const base = tempDir();
    const empty = join(base, "empty");
    mkdirSync(empty);
    const inode = statSync(empty).ino;
    expect(run(["generate", "--spec", "0.3.0", "--out", "empty"], base).code).toBe(0);
    expect(statSync(empty).ino).toBe(inode);
    expect(readdirSync(empty)).toContain("a2a-codegen.manifest.json");
    const again = run(["generate", "--spec", "0.2.5", "--out", "empty"], base);
    expect(again.code).toBe(0);
    expect(readFileSync(join(empty, "protocol.ts"), "utf8")).toMatch(/SPEC_VERSION = "0\.2\.5"/);
  });

  it("an output folder that is a symbolic link stays a link (the folder it points to is written)", () => {
    const base = tempDir();
    mkdirSync(join(base, "real"));
    symlinkSync("real", join(base, "out"));
    expect(run(["generate", "--spec", "0.3.0", "--out", "out"], base).code).toBe(0);
    expect(run(["generate", "--spec", "0.2.5", "--out", "out"], base).code).toBe(0);
    expect(lstatSync(join(base, "out")).isSymbolicLink()).toBe(true);
    expect(readdirSync(join(base, "real"))).toContain("a2a-codegen.manifest.json");
  });

  it("init --force into a project whose generated/ folder is the user's: refused, nothing of it touched", () => {
    const dir = project();
    mkdirSync(join(dir, "generated"));
    writeFileSync(join(dir, "generated", "mine.ts"), "// mine\n");
    const before = state(join(dir, "generated"));
    const r = run(["init", ".", "--force", "--spec", "0.3.0"], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/generated: the output folder holds files a2a-codegen does not own .*: mine\.ts;/);
    expect(state(join(dir, "generated"))).toEqual(before);
    // Refused before the scaffold's files are written: the project is as it was.
    expect(readdirSync(dir).sort()).toEqual([".git", "agent-link.ts", "generated", "node_modules", "package.json", "src"]);
  });

  it("init into a non-empty folder without --force is refused (exit 2), nothing written", () => {
    const dir = project();
    const before = state(dir);
    const r = run(["init", "."], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/the folder is not empty; use --force/);
    expect(state(dir)).toEqual(before);
  });
});
