import { existsSync, lstatSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * The folder of a2a-codegen's caches for a working folder (the output cache's entries and the up-to-date
 * records): `node_modules/.cache/a2a-codegen/` of the working folder, else this user's private folder in
 * the system's temporary folder; undefined when there is none to use (then no cache).
 */
export function cacheRoot(cwd: string): string | undefined {
  const modules = join(cwd, "node_modules");
  return existsSync(modules) ? join(modules, ".cache", "a2a-codegen") : privateTempDir();
}

/**
 * This user's folder under the system's temporary folder, where a2a-codegen keeps its caches when the
 * working folder has no node_modules (the output cache and the up-to-date records): made private (0700)
 * when new. One that is not a plain folder, that another user owns, or that others may write into is not
 * used: what it holds could have been put there by someone else, and the output cache holds code (a
 * template's compiled form is evaluated, Ajv's validators end up in the generated output). Undefined then,
 * and the caller works without a cache.
 */
function privateTempDir(): string | undefined {
  const dir = join(tmpdir(), `a2a-codegen-cache-${process.getuid?.() ?? "user"}`);
  if (checked?.dir !== dir) checked = { dir, usable: makePrivateDir(dir) };
  return checked.usable ? dir : undefined;
}

/** The last folder checked (os.tmpdir() follows $TMPDIR, so the answer is kept per path). */
let checked: { dir: string; usable: boolean } | undefined;

/** Makes `dir` (0700) unless it exists; whether it is a folder of this user's that no one else may write into. */
export function makePrivateDir(dir: string): boolean {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") return false;
  }
  try {
    const stat = lstatSync(dir);
    if (!stat.isDirectory()) return false;
    const uid = process.getuid?.();
    if (uid !== undefined && stat.uid !== uid) return false;
    // Windows has no group or other write bits to speak of (its folders report them set).
    return process.platform === "win32" || (stat.mode & 0o022) === 0;
  } catch {
    return false;
  }
}
