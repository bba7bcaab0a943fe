// The benches run generated code as JavaScript: a generated folder compiled with tsc into a temporary
// directory (no type check: the compile test does that), made an ES module package that resolves the
// project's node_modules (express, fastify, hono, ...).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "..");

/** Compiles `entries` (paths relative to generated/a2a-<version>/) and what they import; returns the folder. */
export function compileGenerated(version, entries, prefix = "a2a-bench-") {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  compileFolder(join(ROOT, "generated", `a2a-${version}`), entries, dir);
  return dir;
}

/** Compiles `entries` (paths relative to the generated folder `src`) and what they import into `outDir`. */
export function compileFolder(src, entries, outDir) {
  execFileSync(
    join(ROOT, "node_modules", ".bin", "tsc"),
    ["--ignoreConfig", "--outDir", outDir, "--rootDir", src, "--module", "NodeNext", "--moduleResolution", "NodeNext", "--target", "ES2022", "--skipLibCheck", "--noCheck", "--types", "node", ...entries.map((e) => join(src, e))],
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  writeFileSync(join(outDir, "package.json"), '{ "type": "module" }\n');
  symlinkSync(join(ROOT, "node_modules"), join(outDir, "node_modules"), "dir");
}

/** The entries of a server bench: index.ts and every file of server/ (each adapter, Hono's Node entry, the core). */
export function serverEntries(src) {
  return ["index.ts", ...readdirSync(join(src, "server")).filter((f) => f.endsWith(".ts")).map((f) => `server/${f}`)];
}
