import { randomBytes } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { CodegenError } from "../errors.js";
import { MANIFEST_FILE, readManifest } from "./manifest.js";

/**
 * Writes an output folder as a whole: every file is written into a fresh folder beside it, which then
 * takes the old one's place by rename. A failure at any point leaves the old folder as it was.
 * `files` includes the manifest.
 *
 * Only a folder a2a-codegen owns entirely is replaced: one that does not exist, an empty one (filled in
 * place, so it keeps its identity) or one whose every file its manifest lists. A folder holding anything
 * else (a project's root, `src`, a user's notes) is refused before anything is written, naming what is
 * not a2a-codegen's, and nothing in it is touched.
 */
export function writeOutput(path: string, files: Record<string, string>, displayOut: string = path): void {
  // A symbolic link to a folder stays a link: the folder it points to is the output folder.
  const outDir = linkedFolder(path);
  const parent = dirname(outDir);
  const existing = existingFolder(outDir, displayOut);
  const tmp = join(parent, `.${basename(outDir)}.a2a-codegen-${process.pid}-${randomBytes(4).toString("hex")}`);
  const backup = `${tmp}-old`;
  try {
    mkdirSync(parent, { recursive: true });
    mkdirSync(tmp);
  } catch (error) {
    throw ioError(error, displayOut);
  }
  try {
    for (const [path, content] of Object.entries(files)) {
      const target = join(tmp, path);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, content);
    }
    if (existing === "owned") {
      renameSync(outDir, backup);
      try {
        renameSync(tmp, outDir);
      } catch (error) {
        renameSync(backup, outDir);
        throw error;
      }
      rmSync(backup, { recursive: true, force: true });
    } else if (existing === "empty") {
      fillEmptyFolder(tmp, outDir);
      rmSync(tmp, { recursive: true, force: true });
    } else {
      renameSync(tmp, outDir);
    }
  } catch (error) {
    rmSync(tmp, { recursive: true, force: true });
    throw error instanceof CodegenError ? error : ioError(error, displayOut);
  }
}

/** The folder a symbolic link points to (the path itself when it is not a link to a folder). */
export function linkedFolder(path: string): string {
  try {
    return lstatSync(path).isSymbolicLink() && statSync(path).isDirectory() ? realpathSync(path) : path;
  } catch {
    return path;
  }
}

/** How many entries a refusal names before "and N more". */
const NAMED_ENTRIES = 5;

/**
 * What is at the output path: nothing, an empty folder or a folder a2a-codegen owns entirely; anything
 * else is refused (a file; a folder with entries its manifest does not list, named).
 */
export function existingFolder(outDir: string, displayOut: string = outDir): "none" | "empty" | "owned" {
  let stat;
  try {
    stat = lstatSync(outDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "none";
    throw ioError(error, displayOut);
  }
  if (!stat.isDirectory()) throw new CodegenError("the output path exists and is not a folder", { file: displayOut, kind: "io" });
  let entries: string[];
  try {
    entries = readdirSync(outDir);
  } catch (error) {
    throw ioError(error, displayOut);
  }
  if (entries.length === 0) return "empty";
  const owned = new Set((readManifest(outDir)?.files ?? []).map((f) => f.path));
  owned.add(MANIFEST_FILE);
  const foreign = foreignEntries(outDir, owned);
  if (foreign.length === 0) return "owned";
  const named = foreign.slice(0, NAMED_ENTRIES).join(", ");
  const more = foreign.length > NAMED_ENTRIES ? ` and ${foreign.length - NAMED_ENTRIES} more` : "";
  throw new CodegenError(
    `the output folder holds files a2a-codegen does not own (not in its ${MANIFEST_FILE}): ${named}${more}; ` +
      "a2a-codegen replaces its output folder as a whole, so it writes only into a new or empty folder or one it generated: " +
      "choose a folder of its own (e.g. --out src/a2a) or move those files away",
    { file: displayOut, kind: "input" },
  );
}

/**
 * The entries below a folder that are not a2a-codegen's, as relative paths with "/" separators, sorted: a
 * folder holding no owned file is named once (`node_modules/`), not walked; symbolic links are not followed.
 */
function foreignEntries(dir: string, owned: ReadonlySet<string>): string[] {
  const ownedFolders = new Set<string>();
  for (const path of owned) {
    const parts = path.split("/");
    for (let i = 1; i < parts.length; i++) ownedFolders.add(parts.slice(0, i).join("/"));
  }
  const out: string[] = [];
  const walk = (d: string, prefix: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const rel = prefix + entry.name;
      if (entry.isDirectory()) {
        if (ownedFolders.has(rel)) walk(join(d, entry.name), `${rel}/`);
        else out.push(`${rel}/`);
      } else if (!owned.has(rel)) out.push(rel);
    }
  };
  walk(dir, "");
  return out.sort();
}

/**
 * Moves the new output's entries into an existing empty folder (it keeps its identity: a shell inside it
 * stays inside it). A failure removes what was moved, leaving the folder empty as it was.
 */
function fillEmptyFolder(tmp: string, outDir: string): void {
  const moved: string[] = [];
  try {
    for (const name of readdirSync(tmp)) {
      renameSync(join(tmp, name), join(outDir, name));
      moved.push(name);
    }
  } catch (error) {
    for (const name of moved) rmSync(join(outDir, name), { recursive: true, force: true });
    throw error;
  }
}

function ioError(error: unknown, displayOut: string): CodegenError {
  const code = (error as NodeJS.ErrnoException).code;
  const why: Record<string, string> = {
    EACCES: "permission denied",
    EPERM: "operation not permitted",
    EROFS: "read-only file system",
    ENOTDIR: "a parent of the path is a file, not a folder",
    EEXIST: "a parent of the path is a file, not a folder",
    ENOSPC: "no space left on the device",
  };
  return new CodegenError(`cannot write the output folder: ${(code && why[code]) ?? (error as Error).message}`, {
    file: displayOut,
    kind: "io",
    cause: error,
  });
}

export interface CheckResult {
  ok: boolean;
  /** Generated files whose content on disk differs. */
  stale: string[];
  /** Generated files that are not on disk. */
  missing: string[];
  /** Files the manifest on disk lists that the generator would no longer write. */
  extra: string[];
}

/** Compares what the generator would write with what is on disk; writes nothing. */
export function checkOutput(outDir: string, files: Record<string, string>): CheckResult {
  const stale: string[] = [];
  const missing: string[] = [];
  for (const [path, content] of Object.entries(files)) {
    const target = join(outDir, path);
    if (!existsSync(target)) missing.push(path);
    else if (readFileSync(target, "utf8") !== content) stale.push(path);
  }
  const extra = (readManifest(outDir)?.files ?? []).map((f) => f.path).filter((p) => !(p in files) && existsSync(join(outDir, p)));
  return { ok: stale.length + missing.length + extra.length === 0, stale: stale.sort(), missing: missing.sort(), extra: extra.sort() };
}
