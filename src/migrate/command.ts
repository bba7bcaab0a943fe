import { existsSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { convertCardFile } from "../card/convert-file.js";
import { COMPAT_TABLES } from "../compat/tables.js";
import { CodegenError } from "../errors.js";
import { defaultVersion } from "../schema/load.js";
import { generatedVersions, inside, readProject, type ProjectFacts } from "./project.js";
import { rewriteFile, type Morph, type Unchanged } from "./rewrite.js";
import { migrationRules, type MigrationRules } from "./rules.js";
import { mergeScaffold, SCAFFOLD_CODE } from "./scaffold.js";
import { convertStore, openStore, type StoreConversion } from "./store.js";
import { unifiedDiff } from "./text-diff.js";

export interface MigrateOptions {
  /** The version the code is written for (default: the project's generated folder's). */
  from?: string | undefined;
  /** The version to move it to (default: the newest bundled). */
  to?: string | undefined;
  /** Print a unified diff, write nothing. */
  dryRun?: boolean | undefined;
  /** Files or folders to rewrite (default: the project folder); nothing outside them is written. */
  paths?: readonly string[] | undefined;
  /** A durable store (postgres://…, mysql://…, redis://…) whose tasks and push configs are rewritten in `to`'s shapes (./store.ts). */
  store?: string | undefined;
  /** The project folder (its tsconfig.json, a2a-codegen.config.json): default the working folder. */
  cwd?: string | undefined;
}

/** One file `migrate` changes (or would, with --dry-run). */
export interface MigratedFile {
  /** Relative to the project folder. */
  path: string;
  before: string;
  after: string;
  /** What changed it: the protocol shapes, the scaffold's new version, the config, the card. */
  why: "code" | "scaffold" | "config" | "card";
}

export interface MigrateResult {
  from: string;
  to: string;
  source: MigrationRules["source"];
  files: MigratedFile[];
  /** What could not be changed, for the user to finish. */
  unchanged: Unchanged[];
  /** Scaffold files left with conflict markers. */
  conflicts: string[];
  /** Files that would change but are outside the given paths (left as they are). */
  outside: string[];
  /** The project was generated for `to` already (its scaffold files, config and card were left as they are). */
  moved: boolean;
  /** The generated folder was regenerated for `to`. */
  regenerated: boolean;
  /** What the store conversion did (`store` given, not a dry run). */
  stored?: StoreConversion;
  /** The store engines the config names whose stored tasks keep the old version's shapes (migrate does not convert them). */
  stores: string[];
  /** The unified diff of every change (what --dry-run prints). */
  diff: string;
}

/**
 * `a2a-codegen migrate`: moves a project's own TypeScript from the generated code of one spec version to
 * another's, by the rules the version mapping (or the IR diff) gives (./rules.ts), with the type checker
 * finding the protocol values (./rewrite.ts); the scaffold's own files follow what `init` writes for the new
 * version (./scaffold.ts); the config and the card move too, and generated/ is regenerated.
 */
export async function migrate(options: MigrateOptions): Promise<MigrateResult> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const project = readProject(cwd);
  const from = options.from ?? project.generatedVersion;
  if (from === undefined) throw new CodegenError("cannot tell which version the code is written for: no a2a-codegen.config.json here; give --from", { kind: "usage" });
  const to = options.to ?? defaultVersion();
  if (from === to && options.from === undefined) {
    return { from, to, source: "diff", files: [], unchanged: [], conflicts: [], outside: [], moved: true, regenerated: false, stores: [], diff: "" };
  }
  const rules = migrationRules(from, to);
  const roots = (options.paths && options.paths.length > 0 ? options.paths : ["."]).map((p) => resolve(cwd, p));
  for (const root of roots) if (!existsSync(root)) throw new CodegenError("no such file or folder", { file: relative(cwd, root) || root, kind: "usage" });

  // The store first: a pair it cannot convert, or an engine it cannot reach, stops the run before any write.
  if (options.store !== undefined && !rules.mapping) {
    throw new CodegenError(`no version mapping pairs ${rules.from} and ${rules.to} (src/compat/tables.ts): their stored tasks cannot be converted`, { kind: "usage" });
  }
  const store = options.store !== undefined && !options.dryRun ? await openStore(options.store) : undefined;

  try {
    // ts-morph is loaded here only: a cold `generate` never pays for it.
    const morph: Morph = await import("ts-morph");
    const tsconfig = join(cwd, "tsconfig.json");
    const tsProject = existsSync(tsconfig)
      ? new morph.Project({ tsConfigFilePath: tsconfig })
      : new morph.Project({ compilerOptions: { strict: true, module: morph.ts.ModuleKind.NodeNext, moduleResolution: morph.ts.ModuleResolutionKind.NodeNext, target: morph.ts.ScriptTarget.ES2022 } });
    // The given paths' TypeScript files, also those the tsconfig does not include (a script beside the project).
    // Listed here, not by a glob: a glob walks every folder before filtering (node_modules included, and
    // through its links, which can lead back into the project).
    for (const root of roots) for (const file of /\.[cm]?tsx?$/.test(root) ? [root] : typeScriptFiles(root)) tsProject.addSourceFileAtPath(file);
    const versionOf = generatedVersions(cwd);
    const own = tsProject
      .getSourceFiles()
      .filter((f) => !f.isDeclarationFile() && !relative(cwd, f.getFilePath()).split(/[\\/]/).includes("node_modules") && versionOf(f.getFilePath()) === undefined && inside(f.getFilePath(), roots));

    const files: MigratedFile[] = [];
    const unchanged: Unchanged[] = [];
    const conflicts: string[] = [];
    const outside: string[] = [];
    const rel = (path: string) => relative(cwd, path).split("\\").join("/");
    // The scaffold's files, the config and the card move once: not when the project is generated for `to` already (a second run).
    const moved = project.generatedVersion === rules.to;
    const scaffoldFiles = project.config && !moved ? SCAFFOLD_CODE.filter((p) => own.some((f) => rel(f.getFilePath()) === p)) : [];
    // The scaffold's files as `init` writes them for `from`, beside the user's, rewritten by the same rules.
    const scaffold = scaffoldFiles.length > 0 ? await mergeScaffold(morph, tsProject, project, rules, scaffoldFiles, versionOf) : undefined;
    for (const file of own) {
      const path = rel(file.getFilePath());
      if (scaffold?.bases.has(path)) continue;
      const result = rewriteFile(morph, file, rules, versionOf);
      unchanged.push(...result.unchanged.map((u) => ({ ...u, file: rel(u.file) })));
      if (result.after !== result.before) files.push({ path, before: result.before, after: result.after, why: "code" });
    }
    if (scaffold) {
      for (const f of scaffold.files) {
        if (f.after !== f.before) files.push(f);
        if (f.conflicts > 0) conflicts.push(f.path);
      }
      unchanged.push(...scaffold.unchanged.map((u) => ({ ...u, file: rel(u.file) })));
    }
    if (!moved) files.push(...projectFiles(project, rules, rel));

    const writable = files.filter((f) => inside(resolve(cwd, f.path), roots));
    outside.push(...files.filter((f) => !writable.includes(f)).map((f) => f.path));
    const diff = writable.map((f) => unifiedDiff(f.path, f.before, f.after)).join("");
    let regenerated = false;
    if (!options.dryRun) {
      const written: MigratedFile[] = [];
      try {
        for (const f of writable) {
          writeAtomic(resolve(cwd, f.path), f.after);
          written.push(f);
        }
        // generated/ for the new version, as `npm run generate` writes it (the config moved with the code):
        // every target generated in memory first, then written.
        if (project.configFile && writable.some((f) => f.why === "config")) {
          const { loadConfig } = await import("../config.js");
          const { generate, writeResult } = await import("../generate.js");
          const targets = (await loadConfig(cwd))?.targets ?? [];
          const results = [];
          for (const target of targets) results.push(await generate({ ...target, cwd }));
          for (const [i, result] of results.entries()) writeResult(result, targets[i]?.cwd ?? cwd);
          regenerated = true;
        }
      } catch (error) {
        // The project as it was: the files written so far get their old text back.
        for (const f of written.reverse()) writeAtomic(resolve(cwd, f.path), f.before);
        throw error;
      }
    }
    let stored: StoreConversion | undefined;
    if (store !== undefined && rules.mapping) {
      stored = await convertStore(store, rules.mapping.mapping, rules.mapping.direction);
    }
    const engines = Array.isArray(project.config?.stores) ? project.config.stores.filter((x): x is string => typeof x === "string") : [];
    const stores = !moved && options.store === undefined && (rules.objects.has("Task") || rules.enums.size > 0) ? engines : [];
    return { from: rules.from, to: rules.to, source: rules.source, files: writable, unchanged, conflicts, outside, moved, regenerated, stores, ...(stored ? { stored } : {}), diff };
  } finally {
    await store?.close();
  }
}

/** The config's `spec` (and `compat`, which keeps the old version's callers) and the agent card, moved to `to`. */
function projectFiles(project: ProjectFacts, rules: MigrationRules, rel: (path: string) => string): MigratedFile[] {
  const files: MigratedFile[] = [];
  if (project.configFile && project.config) {
    const before = readFileSync(project.configFile, "utf8");
    let after = before;
    if (project.config.spec === rules.from) after = after.replace(/("spec"\s*:\s*)"[^"]*"/, `$1"${rules.to}"`);
    // The old version's clients keep working: `compat` when a2a-codegen serves the pair together.
    const serves = COMPAT_TABLES.some((t) => t.primary === rules.to && t.compat === rules.from);
    if (serves && project.config.compat === undefined && after !== before) {
      // On a line of its own after `spec` (one key per line), else right after it.
      const line = /^([ \t]*)("spec"\s*:\s*"[^"]*")(,?)[ \t]*$/m;
      after = line.test(after)
        ? after.replace(line, (_m, indent: string, spec: string, comma: string) => `${indent}${spec},\n${indent}"compat": "${rules.from}"${comma}`)
        : after.replace(/("spec"\s*:\s*"[^"]*")/, `$1, "compat": "${rules.from}"`);
    } else if (project.config.compat === rules.to) {
      // The version served beside is the spec now: the key goes, with one of its commas.
      after = after.replace(/(\s*"compat"\s*:\s*"[^"]*"\s*,)|(,\s*"compat"\s*:\s*"[^"]*")/, "");
    }
    if (after !== before) files.push({ path: rel(project.configFile), before, after, why: "config" });
  }
  if (project.cardFile && existsSync(project.cardFile) && project.config?.spec === rules.from) {
    const before = readFileSync(project.cardFile, "utf8");
    const after = convertedCard(project.cardFile, rules);
    if (after !== undefined && after !== before) files.push({ path: rel(project.cardFile), before, after, why: "card" });
  }
  return files;
}

/** The card converted as `a2a-codegen card --from --to` does (undefined when it cannot be: `card` says why). */
function convertedCard(file: string, rules: MigrationRules): string | undefined {
  try {
    return convertCardFile({ file, from: rules.from, to: rules.to, dryRun: true }).text;
  } catch {
    return undefined;
  }
}

/** Writes a file through a temporary file beside it and a rename: never half-written. */
function writeAtomic(path: string, text: string): void {
  const temp = join(dirname(path), `.${Date.now()}.${process.pid}.migrate.tmp`);
  try {
    writeFileSync(temp, text, { flag: "wx" });
    renameSync(temp, path);
  } catch (error) {
    if (existsSync(temp)) unlinkSync(temp);
    throw new CodegenError(`cannot write: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { file: path, kind: "io", cause: error });
  }
}

/** The TypeScript files (not declaration files) below a folder, never entering node_modules, dot folders or links to folders. */
function typeScriptFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules" && !entry.name.startsWith(".")) walk(path);
      } else if (entry.isFile() && /\.[cm]?tsx?$/.test(entry.name) && !/\.d\.[cm]?ts$/.test(entry.name)) out.push(path);
    }
  };
  walk(root);
  return out.sort();
}
