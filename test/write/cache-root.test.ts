/**
 * The caches' folder in the system's temporary folder (used when the working folder has no node_modules)
 * is this user's and private: a folder someone else could have filled is not used, since the output cache
 * holds code that a generation evaluates or writes into its output.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makePrivateDir } from "../../src/write/cache-root.js";
import { ROOT, tempDir } from "../support/project.js";

const CLI = join(ROOT, "dist", "bin.cjs");
const isRoot = process.getuid?.() === 0;

describe("the private temporary folder of the caches", () => {
  it("is made private (0700) when new, and used", () => {
    const dir = join(tempDir(), "cache");
    expect(makePrivateDir(dir)).toBe(true);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    // Found again as it was left: still used.
    expect(makePrivateDir(dir)).toBe(true);
  });

  it("is not used when others may write into it, when it is a link, or when it is not a folder", () => {
    const writable = join(tempDir(), "cache");
    mkdirSync(writable);
    chmodSync(writable, 0o777);
    expect(makePrivateDir(writable)).toBe(false);
    const target = tempDir();
    const link = join(tempDir(), "cache");
    symlinkSync(target, link);
    expect(makePrivateDir(link)).toBe(false);
  });

  it.skipIf(!isRoot)("is not used when another user owns it (a folder planted in a shared /tmp)", () => {
    const planted = join(tempDir(), "cache");
    mkdirSync(planted, { mode: 0o700 });
    chownSync(planted, 12345, 12345);
    expect(makePrivateDir(planted)).toBe(false);
  });

  it("a generation outside any node_modules keeps its cache in the private folder, and none in a folder others may write into", () => {
    const run = (tmp: string) => {
      const work = tempDir();
      const r = spawnSync(process.execPath, [CLI, "generate", "--spec", "0.3.0", "--out", join(work, "out"), "--quiet"], {
        cwd: work,
        encoding: "utf8",
        env: { ...process.env, TMPDIR: tmp, A2A_CODEGEN_CACHE: "" },
      });
      expect(r.status, r.stderr).toBe(0);
      expect(existsSync(join(work, "out", "models.ts"))).toBe(true);
    };
    const uid = process.getuid?.() ?? "user";
    const privateTmp = tempDir();
    run(privateTmp);
    const mine = join(privateTmp, `a2a-codegen-cache-${uid}`);
    expect(statSync(mine).mode & 0o777).toBe(0o700);
    expect(readdirSync(join(mine, "models")).length).toBeGreaterThan(0);

    const sharedTmp = tempDir();
    const open = join(sharedTmp, `a2a-codegen-cache-${uid}`);
    mkdirSync(open);
    chmodSync(open, 0o777);
    run(sharedTmp);
    expect(readdirSync(open)).toEqual([]);
  });
});
