/**
 * A content-addressed cache of the costly, pure steps of generation: Ajv's compile of the validator schema
 * into standalone code, json-schema-to-typescript's compile of the models, prettier's formatting of a
 * generated file, Handlebars' compile of a template and the HTTP+JSON routes read from a proto. Each entry
 * is the output of one input, filed under the sha256 of everything the output depends on (the input, and
 * the identity of the code that computes it), so an entry is either exactly right or never looked up:
 * nothing is ever invalidated. A cold run on an unchanged schema then loads neither Ajv,
 * json-schema-to-typescript, prettier, Handlebars' compiler nor protobufjs (test/write/output-cache.test.ts).
 *
 * Where: `$A2A_CODEGEN_CACHE` (a folder; `off` or `0` disables the cache), else the caches' folder of the
 * working folder (./cache-root.ts: its node_modules/.cache, else a private folder of this user's in the
 * system's temporary folder). Each kind keeps its newest entries only ({@link MAX_ENTRIES}, pruned now
 * and then). A cache that cannot be read or written is no cache: the step runs.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { cacheRoot } from "./cache-root.js";
import { newSha256 } from "../sha256.js";

/** Entries kept per kind; beyond it, the oldest half is removed. */
const MAX_ENTRIES = 256;

export type CacheKind = "validators" | "format" | "models" | "templates" | "routes";

/** The cache folder of a kind, or undefined when the cache is off. */
export function cacheDir(kind: CacheKind, cwd: string = process.cwd()): string | undefined {
  const setting = process.env["A2A_CODEGEN_CACHE"];
  if (setting === "off" || setting === "0") return undefined;
  if (setting !== undefined && setting !== "") return join(setting, kind);
  const root = cacheRoot(cwd);
  return root === undefined ? undefined : join(root, kind);
}

/** The version of an installed package (part of the key of what it computes). */
export function packageVersion(name: string): string {
  return (createRequire(import.meta.url)(`${name}/package.json`) as { version: string }).version;
}

/** The sha256 of the parts, each length-prefixed (so that two splits of one text differ). */
export function cacheKey(...parts: string[]): string {
  const hash = newSha256();
  for (const part of parts) hash.update(`${part.length}:`).update(part);
  return hash.digest("hex");
}

export function readCached(kind: CacheKind, key: string): string | undefined {
  const dir = cacheDir(kind);
  if (dir === undefined) return undefined;
  try {
    return readFileSync(join(dir, key), "utf8");
  } catch {
    return undefined;
  }
}

/** An entry as `decode` reads it; undefined when there is none or `decode` throws on it (a damaged entry is no entry). */
export function readCachedAs<T>(kind: CacheKind, key: string, decode: (text: string) => T): T | undefined {
  const text = readCached(kind, key);
  if (text === undefined) return undefined;
  try {
    return decode(text);
  } catch {
    return undefined;
  }
}

export function writeCached(kind: CacheKind, key: string, value: string): void {
  const dir = cacheDir(kind);
  if (dir === undefined) return;
  try {
    // The folder is made, listed and pruned at a process's first write to it and every MAX_ENTRIES / 2
    // writes after (a long `--watch` stays bounded), not at every write: one generation writes dozens.
    const writes = writesSincePrune.get(dir) ?? 0;
    writesSincePrune.set(dir, writes + 1 >= MAX_ENTRIES / 2 ? 0 : writes + 1);
    if (writes === 0) mkdirSync(dir, { recursive: true });
    const tmp = join(dir, `.${key}.${process.pid}.tmp`);
    writeFileSync(tmp, value);
    renameSync(tmp, join(dir, key));
    if (writes === 0) prune(dir);
  } catch {
    // No cache: the next run computes again.
  }
}

/** Writes per cache folder since this process last pruned it. */
const writesSincePrune = new Map<string, number>();

function prune(dir: string): void {
  const names = readdirSync(dir).filter((n) => !n.startsWith("."));
  if (names.length <= MAX_ENTRIES) return;
  const byAge = names.map((name) => ({ name, mtime: statSync(join(dir, name)).mtimeMs })).sort((a, b) => a.mtime - b.mtime);
  for (const { name } of byAge.slice(0, names.length - MAX_ENTRIES / 2)) rmSync(join(dir, name), { force: true });
}
