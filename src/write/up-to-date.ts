/**
 * The unchanged-input fast path of `generate` and `generate --check`: when the inputs of a target (its
 * schema and overlay, templates, card, options, and the generator itself: its version and its own code,
 * runtime, templates and bundled schemas) are the ones the folder was last generated or checked from, and
 * every file the folder's manifest lists still has the hash it lists, the output would be the same bytes
 * (generation is deterministic), so nothing is generated, compared or written.
 *
 * What the folder was made from is recorded outside it, in a small cache file per output folder
 * (the caches' folder of the working folder, ./cache-root.ts: its node_modules/.cache, else a private
 * folder of this user's in the system's temporary folder): the committed manifest stays what it was (the
 * generator's code hash would change it on every build), and a fresh clone or a CI machine, having no
 * cache, runs the full pipeline.
 *
 * Deliberately light: node built-ins and the manifest reader only, so that the CLI answers before it
 * loads Ajv, prettier, json-schema-to-typescript and handlebars. An up-to-date folder is told from stats
 * alone: node:crypto (6 ms to load, more than the checks it serves) is loaded only when some file must
 * be read and hashed.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { MANIFEST_FILE, parseManifest } from "./manifest.js";
import { listFiles } from "./list-files.js";
import { newSha256, sha256 } from "../sha256.js";
import { cacheRoot } from "./cache-root.js";
import { GENERATOR_VERSION } from "../version.js";
import { GENERATE_OPTIONS, type OptionDeclaration, type TargetInputs } from "../options/declarations.js";

/** The options of one target that decide its output: derived from the declarations (fingerprint: true). */
export type { TargetInputs };

/** The package's root (this file is src/write/ or dist/write/). */
const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/**
 * Where the generator's own code and data live, for the copy of this module at `modulePath`: every file
 * under `parts`, but those under `skipped`, is part of its identity. The code is the copy that runs
 * (dist/, or src/ when it runs from its sources); the runtime is copied from src/runtime either way.
 * dist/runtime is left out: it is compiled from src/runtime, which is in, and a build that compiles it
 * again rewrites the rest of dist/ too (its 135 files were a third of the identity's time).
 */
export function generatorParts(modulePath: string): { parts: string[]; skipped: string[] } {
  return /[\\/]dist[\\/]write[\\/][^\\/]+$/.test(modulePath)
    ? { parts: ["dist", "src/runtime", "templates", "schema"], skipped: ["dist/runtime"] }
    : { parts: ["src", "templates", "schema"], skipped: [] };
}
const GENERATOR_PARTS = generatorParts(fileURLToPath(import.meta.url));

let generatorText: string | undefined;
let generatorHash: string | undefined;

/**
 * The identity of this copy of the generator: its version, and the path, size and modification time of
 * every file of its code, runtime, templates and bundled schemas (a rebuilt generator, or an edited
 * template, is another generator). Stat, as make does, not content: hashing the 4 MB took longer than
 * the rest of an up-to-date run. A hash of `generatorIdentityText()`, for the caches' keys.
 */
export function generatorIdentity(): string {
  generatorHash ??= sha256(generatorIdentityText());
  return generatorHash;
}

/** The identity of this copy of the generator as the text it is made of (what the up-to-date record compares, unhashed). */
export function generatorIdentityText(): string {
  generatorText ??= identityOf(PACKAGE_ROOT, GENERATOR_PARTS.parts, processStartedAt(), process.pid, GENERATOR_PARTS.skipped);
  return generatorText;
}

/**
 * When this process started (epoch ms), from its uptime: `performance.timeOrigin` would load perf_hooks
 * (2 ms). The uptime's start reads up to 3 ms after the time origin: 25 ms earlier, to be safe (a file
 * changed in those counts as changed after the start).
 */
function processStartedAt(): number {
  return Date.now() - process.uptime() * 1000 - 25;
}

/**
 * The identity of the generator files under `root`, as seen by a process that started at `startedAt`
 * (epoch ms): a line per file, with its size and modification time. A file changed after the process
 * started may not be the code this process runs (it loaded the older one): such a process gets an
 * identity of its own (`pid`), so that what it makes is never filed under, or taken for, the output of
 * the code now on disk.
 */
export function identityOf(root: string, parts: readonly string[], startedAt: number, pid: number, skipped: readonly string[] = []): string {
  let text = `a2a-codegen ${GENERATOR_VERSION}\n`;
  let newest = 0;
  for (const part of parts) {
    const dir = join(root, part);
    let entries: string[];
    try {
      // Files only (and links, which may lead to one): a folder is never stat'ed.
      const skip = skipped.filter((folder) => folder.startsWith(`${part}/`)).map((folder) => folder.slice(part.length + 1));
      entries = listFiles(dir, skip).filter((entry) => !entry.endsWith(".d.ts") && !entry.endsWith(".map"));
    } catch {
      text += `${part} (absent)\n`;
      continue;
    }
    for (const entry of entries) {
      try {
        // Concatenated, not path.join: its normalizing of 470 paths was a third of the identity's time.
        const stat = statSync(`${dir}/${entry}`);
        if (!stat.isFile()) continue;
        text += `${part}/${entry} ${stat.size} ${stat.mtimeMs}\n`;
        if (stat.mtimeMs > newest) newest = stat.mtimeMs;
      } catch {
        // Gone since the listing: not part of the generator.
      }
    }
  }
  if (newest > startedAt) text += `changed after process ${pid} started at ${startedAt}\n`;
  return text;
}

/** A file a target's output is made from: its schema, overlay or card, a template of its own, the package.json whose dependencies choose its adapters. */
interface InputFile {
  /** How the file is named in the fingerprint. */
  label: string;
  path: string;
  /** Without it the target cannot be generated (the full pipeline reports why): no fingerprint. */
  required: boolean;
}

/** What decides a target's output besides the generator: the options (as JSON) and the input files, in order. */
interface InputSources {
  options: string;
  files: InputFile[];
}

/** The options and input files of a target; undefined when they cannot be told before generating (a .proto schema of the user's may import other files). */
function inputSources(target: TargetInputs, outDir: string): InputSources | undefined {
  const cwd = target.cwd ?? process.cwd();
  // Every option declared as deciding the output (options/declarations.ts), paths resolved; the output folder as resolved.
  const resolvePath = (p: string | undefined) => (p === undefined ? null : resolve(cwd, p));
  const options: Record<string, unknown> = { cwd };
  for (const option of GENERATE_OPTIONS as readonly OptionDeclaration[]) {
    if (option.fingerprint !== true || option.config === undefined) continue;
    const value = (target as Record<string, unknown>)[option.config];
    options[option.config] = option.config === "out" ? outDir : option.path ? resolvePath(value as string | undefined) : (value ?? null);
  }
  const schema = resolvePath(target.schema);
  const overlay = resolvePath(target.overlay);
  const card = resolvePath(target.card);
  const templates = resolvePath(target.templates);
  const files: InputFile[] = [];
  const add = (path: string, required: boolean, label = path) => files.push({ label, path, required });
  if (schema !== null) {
    if (/\.proto$/i.test(schema)) return undefined;
    add(schema, true);
    // The overlay beside the schema is read when none is named.
    add(overlay ?? schema.replace(/\.json$/i, "") + ".overlay.json", false);
  } else if (overlay !== null) add(overlay, true);
  if (card !== null) add(card, true);
  if (templates !== null) {
    let entries: string[];
    try {
      entries = listFiles(templates);
    } catch {
      entries = [];
      add(templates, false, "templates");
    }
    for (const entry of entries) add(`${templates}/${entry}`, false, `templates/${entry}`);
  }
  // Without --framework the adapters follow the nearest package.json's dependencies.
  if (target.frameworks === undefined) {
    const packageJson = nearestPackageJson(outDir);
    if (packageJson !== undefined) add(packageJson, false);
  }
  return { options: JSON.stringify(options), files };
}

/**
 * The fingerprint of everything that decides a target's output (the generator's identity, the options,
 * the input files' content), or undefined when a required input cannot be read: such a target is always
 * generated.
 */
function fingerprintOf(sources: InputSources): string | undefined {
  const hash = newSha256().update(generatorIdentity()).update("\0").update(sources.options);
  for (const file of sources.files) {
    let content: Buffer;
    try {
      content = readFileSync(file.path);
    } catch {
      if (file.required) return undefined;
      hash.update(`\0${file.label}\0(absent)`);
      continue;
    }
    hash.update(`\0${file.label}\0`).update(content);
  }
  return hash.digest("hex");
}

/**
 * What the up-to-date check knows of a target's inputs before reading any of them: the stat of each,
 * with the generator's identity and the options, as one text. The record keeps that text beside the
 * content's fingerprint: a later run whose text is the recorded one reads no input (the stat rule of
 * the output files, below); one whose text moved hashes the inputs and compares their fingerprint.
 */
export interface InputsProbe {
  /** The generator's identity, the options and each input file's size, times and inode (or its absence), as one text. */
  stats: string;
  /** When the stats were taken (epoch ms): an input modified in the RACY_MS before is read, not trusted by its stat. */
  at: number;
  /** The newest modification time among the input files (0 without any). */
  newest: number;
  /** The fingerprint of the inputs' content (fingerprintOf), hashed when first asked; undefined when a required input cannot be read. */
  fingerprint: () => string | undefined;
}

/** The probe of a target's inputs; undefined when they cannot be told before generating (a .proto schema of the user's may import other files; a required input is missing). */
export function probeInputs(target: TargetInputs, outDir: string): InputsProbe | undefined {
  const sources = inputSources(target, outDir);
  if (sources === undefined) return undefined;
  const at = Date.now();
  let stats = `${generatorIdentityText()}${sources.options}\n`;
  let newest = 0;
  for (const file of sources.files) {
    const stat = statOf(file.path);
    if (stat === undefined && file.required) return undefined;
    stats += `${file.label}\0${stat === undefined ? "(absent)" : stat.join(" ")}\n`;
    if (stat !== undefined && stat[1] > newest) newest = stat[1];
  }
  let fingerprint: { value: string | undefined } | undefined;
  return { stats, at, newest, fingerprint: () => (fingerprint ??= { value: fingerprintOf(sources) }).value };
}

/**
 * True when `outDir` was generated (or checked) from exactly these inputs, its manifest is the one then
 * recorded, and every file the manifest lists is on disk with the content the manifest hashes.
 *
 * Told from each file's stat, as git tells a clean work tree from its index: a file whose size,
 * modification and change times and inode are those recorded is the file recorded, and is not read.
 * Only a file modified in the two seconds before its record was made ("racy": a write in the same
 * tick of the file system's clock after the record would leave its times as they were) is read and
 * hashed; once every such file checks out, the record is made again, so the next run reads none. The
 * inputs are told the same way: by their stats, else by their content's fingerprint.
 */
export function isUpToDate(outDir: string, inputs: InputsProbe, cwd: string = process.cwd()): boolean {
  return upToDateFileCount(outDir, inputs, cwd) !== undefined;
}

/** `isUpToDate`, with what a run reports of an up-to-date folder: the number of its files (its manifest's, the manifest included); undefined when it is not up to date. */
export function upToDateFileCount(outDir: string, inputs: InputsProbe, cwd: string = process.cwd()): number | undefined {
  const record = readRecord(outDir, cwd);
  if (record === undefined) return undefined;
  // The inputs: by their stats; by their content when a stat moved or is racy (then recorded again).
  const inputsByStat = record.inputStats === inputs.stats && inputs.newest <= record.inputsAt - RACY_MS;
  if (!inputsByStat && inputs.fingerprint() !== record.inputs) return undefined;
  const count = Object.keys(record.files).length;
  const racy: string[] = [];
  const racyFrom = record.at - RACY_MS;
  for (const path in record.files) {
    const recorded = record.files[path] as FileStat;
    // Concatenated, not path.join (a manifest's paths are relative and normalized): join's normalizing was a tenth of the run.
    const now = statOf(`${outDir}/${path}`);
    if (now === undefined) return undefined;
    if (!sameStat(now, recorded) || now[1] > racyFrom) racy.push(path);
  }
  if (racy.length === 0 && inputsByStat) return count;
  // Some file must be read: the manifest first (its hash is recorded), then each racy file against it.
  let manifestText: string;
  try {
    manifestText = readFileSync(join(outDir, MANIFEST_FILE), "utf8");
  } catch {
    return undefined;
  }
  if (sha256(manifestText) !== record.manifest) return undefined;
  const manifest = parseManifest(manifestText);
  if (manifest === undefined || manifest.files.length + 1 !== count) return undefined;
  const hashes = new Map(manifest.files.map((f) => [f.path, f.sha256]));
  for (const path of racy) {
    if (path === MANIFEST_FILE) continue;
    const expected = hashes.get(path);
    let content: Buffer;
    try {
      content = readFileSync(join(outDir, path));
    } catch {
      return undefined;
    }
    if (expected === undefined || sha256(content) !== expected) return undefined;
  }
  // Checked by content: recorded again with the stats of now, so that the next run only stats them
  // (inputs told by their stats, unread, keep the recorded fingerprint).
  recordUpToDate(outDir, inputsByStat ? { ...inputs, fingerprint: () => record.inputs } : inputs, manifestText, cwd);
  return count;
}

/**
 * Records that `outDir`, with the manifest `files[MANIFEST_FILE]`, is the output of these inputs: their
 * fingerprint and stats, and the stat of the manifest and of every file it lists, taken now (isUpToDate
 * compares them).
 */
export function recordUpToDate(outDir: string, inputs: InputsProbe, manifestText: string, cwd: string = process.cwd()): void {
  const file = recordPath(outDir, cwd);
  const fingerprint = inputs.fingerprint();
  if (file === undefined || fingerprint === undefined) return;
  try {
    const at = Date.now();
    const files: Record<string, FileStat> = {};
    const manifest = parseManifest(manifestText);
    if (manifest === undefined) return;
    for (const path of [MANIFEST_FILE, ...manifest.files.map((f) => f.path)]) {
      const stat = statOf(join(outDir, path));
      if (stat === undefined) return; // not all there: no record, the next run generates
      files[path] = stat;
    }
    const record: UpToDateRecord = { outDir, inputs: fingerprint, inputStats: inputs.stats, inputsAt: inputs.at, manifest: sha256(manifestText), at, files };
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(record) + "\n");
    renameSync(tmp, file);
  } catch {
    // A cache that cannot be written only means the next run generates again.
  }
}

/**
 * A file's size, modification time, change time and inode. The change time is set by the kernel on
 * every write, rename or change of mode (no tool can set it back), the inode changes when a file is
 * replaced by another.
 */
type FileStat = [size: number, mtimeMs: number, ctimeMs: number, ino: number];

/** Files modified this long before their record was made are read, not trusted by their stat (FAT's clock ticks every 2 s). */
const RACY_MS = 2000;

function statOf(path: string): FileStat | undefined {
  try {
    const stat = statSync(path);
    return stat.isFile() ? [stat.size, stat.mtimeMs, stat.ctimeMs, stat.ino] : undefined;
  } catch {
    return undefined;
  }
}

function sameStat(a: FileStat, b: FileStat): boolean {
  return a[0] === b[0] && a[1] === b[1] && a[2] === b[2] && a[3] === b[3];
}

interface UpToDateRecord {
  outDir: string;
  /** The inputs' fingerprint (InputsProbe.fingerprint). */
  inputs: string;
  /** The inputs' stats (InputsProbe.stats), and when they were taken. */
  inputStats: string;
  inputsAt: number;
  /** The manifest's hash, for a racy file's check against the hashes it lists. */
  manifest: string;
  /** When the record was made (epoch ms). */
  at: number;
  /** The stat of the manifest and of every file it lists, by path in the folder. */
  files: Record<string, FileStat>;
}

function readRecord(outDir: string, cwd: string): UpToDateRecord | undefined {
  const file = recordPath(outDir, cwd);
  if (file === undefined) return undefined;
  try {
    const json = JSON.parse(readFileSync(file, "utf8")) as Partial<UpToDateRecord>;
    // A record of an earlier release (no stats) is no record: the next run generates and makes one.
    if (json.outDir !== outDir || typeof json.inputs !== "string" || typeof json.inputStats !== "string" || typeof json.inputsAt !== "number" || typeof json.manifest !== "string" || typeof json.at !== "number" || typeof json.files !== "object" || json.files === null) return undefined;
    return json as UpToDateRecord;
  } catch {
    return undefined;
  }
}

/** Where the record of `outDir` is kept; undefined when there is no folder to keep it in (no record: always generated). */
function recordPath(outDir: string, cwd: string): string | undefined {
  const root = cacheRoot(cwd);
  return root === undefined ? undefined : join(root, recordName(outDir));
}

/**
 * The name of `outDir`'s record: the folder's path, each character but a letter, a digit, - and _ written
 * as %XX (a name every file system takes), with no hash to compute (node:crypto is not loaded on an
 * up-to-date run); a hash of it when that is too long for a file name. A record names its folder and
 * serves no other (a case-insensitive file system may give two folders one name: they take turns).
 */
export function recordName(outDir: string): string {
  const name = encodeURIComponent(outDir).replace(/[.!~*'()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return name.length <= 200 ? `${name}.json` : `${sha256(outDir).slice(0, 32)}.json`;
}

function nearestPackageJson(dir: string): string | undefined {
  for (let current = resolve(dir); ; current = dirname(current)) {
    const candidate = join(current, "package.json");
    if (existsSync(candidate)) return candidate;
    const parent = dirname(current);
    if (parent === current) return undefined;
  }
}
