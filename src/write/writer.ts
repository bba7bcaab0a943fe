import { randomBytes } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, sep } from "node:path";
import { CodegenError } from "../errors.js";
import { MANIFEST_FILE, readManifest } from "./manifest.js";

/**
 * Writes an output folder as a whole: every file is written into a fresh folder beside it, the files of
 * the old folder that a2a-codegen does not own (not in its manifest) are copied over, and then the new
 * folder takes the old one's place by rename. A failure at any point leaves the old folder as it was.
 * `files` includes the manifest.
 */
export function writeOutput(outDir: string, files: Record<string, string>, displayOut: string = outDir): void {
  const parent = dirname(outDir);
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
    if (existsSync(outDir)) {
      if (!statSync(outDir).isDirectory()) {
        throw new CodegenError("the output path exists and is not a folder", { file: displayOut, kind: "io" });
      }
      const owned = new Set((readManifest(outDir)?.files ?? []).map((f) => f.path));
      owned.add(MANIFEST_FILE);
      for (const path of listFiles(outDir)) {
        if (owned.has(path)) continue;
        if (path in files) {
          throw new CodegenError(
            `would overwrite ${path}, which a2a-codegen does not own (it is not in ${MANIFEST_FILE}); move it away or choose another output folder`,
            { file: displayOut, kind: "io" },
          );
        }
        mkdirSync(dirname(join(tmp, path)), { recursive: true });
        copyFileSync(join(outDir, path), join(tmp, path));
      }
      renameSync(outDir, backup);
      try {
        renameSync(tmp, outDir);
      } catch (error) {
        renameSync(backup, outDir);
        throw error;
      }
      rmSync(backup, { recursive: true, force: true });
    } else {
      renameSync(tmp, outDir);
    }
  } catch (error) {
    rmSync(tmp, { recursive: true, force: true });
    throw error instanceof CodegenError ? error : ioError(error, displayOut);
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

/** Every file below a folder, as relative paths with "/" separators, sorted. */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.push(relative(dir, full).split(sep).join("/"));
    }
  };
  walk(dir);
  return out.sort();
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
