/**
 * The CLI's light half: which targets a `generate` (or `generate --check`) run has, and which of them are
 * up to date as they are (their inputs are those the folder was last generated or checked from, and its
 * files are as its manifest lists them: see write/up-to-date.ts).
 *
 * `main()` asks `answerUnchanged()` first: a plain `generate` command line (parsed here, without yargs)
 * whose every target is up to date is answered from the manifests, before yargs, protobufjs, Ajv,
 * prettier, json-schema-to-typescript or handlebars is loaded. Anything else (another command, --help,
 * --watch, --force, a flag spelled in a way this parser does not take, a config that fails to load, a
 * target that changed) returns undefined and the full CLI runs as before, with the same messages and exit
 * codes. Only node built-ins and small modules are imported here.
 */
import { join, resolve } from "node:path";
import { loadConfig } from "./config.js";
import { CodegenError, EXIT_CODES } from "./errors.js";
import type { GenerateOptions } from "./generate.js";
import { displayPath } from "./display-path.js";
import { bundledVersions, defaultVersion } from "./schema/load.js";
import { camelCase, checkFlagValues, CONFIG_OPTIONS, GENERATE_OPTIONS, listValues, type GenerateArgs, type OptionDeclaration } from "./options/declarations.js";
import { defaultOutDir, versionFolderName } from "./write/out-folder.js";
import { probeInputs, upToDateFileCount, type InputsProbe } from "./write/up-to-date.js";

export type { GenerateArgs };

export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

/** The process's standard output and error, a line each. */
export const STDIO: CliIo = {
  out: (line) => void process.stdout.write(line + "\n"),
  err: (line) => void process.stderr.write(line + "\n"),
};

/** The targets of a run, and whether they came from a config file. */
export interface ResolvedTargets {
  targets: GenerateOptions[];
  /** The config file the targets came from, undefined without one (and with --all). */
  configFile: string | undefined;
}

/** The targets a `generate` run has: every bundled version with --all, else the config's targets with the flags applied, else the flags. */
export async function resolveTargets(args: GenerateArgs, cwd: string): Promise<ResolvedTargets> {
  // Each option with a config key, from its flag: list flags by the one list rule, values checked.
  const fromCli: GenerateOptions = { cwd };
  for (const option of CONFIG_OPTIONS) {
    const given = (args as Record<string, unknown>)[camelCase(option.flag)];
    if (given === undefined) continue;
    const value = "list" in option ? listValues(given as string[]) : given;
    if (Array.isArray(value) && value.length === 0) throw new CodegenError(`--${option.flag} needs at least one of: ${(option as OptionDeclaration).values?.allowed().join(", ") ?? "its values"}`, { kind: "usage" });
    if (typeof value === "string" || Array.isArray(value)) checkFlagValues(option, typeof value === "string" ? [value] : value);
    (fromCli as Record<string, unknown>)[option.config] = value;
  }
  if (args.all) {
    const parent = args.out ?? "generated";
    return { targets: bundledVersions().map((spec) => ({ ...fromCli, spec, out: join(parent, versionFolderName(spec)) })), configFile: undefined };
  }
  const config = await loadConfig(cwd, args.config);
  const cliSet = (Object.keys(fromCli) as Array<keyof GenerateOptions>).filter((k) => k !== "cwd" && fromCli[k] !== undefined);
  if (config && config.targets.length > 1) {
    // One --spec, --out, ... for several targets would make them all the same target: refused, never applied silently.
    const perTarget = (["spec", "schema", "overlay", "out", "card"] as const).filter((k) => fromCli[k] !== undefined);
    if (perTarget.length > 0) {
      throw new CodegenError(
        `${perTarget.map((k) => `--${k}`).join(", ")} cannot apply to the ${config.targets.length} targets of ${displayPath(config.file, cwd)}: ` +
          `change the target in the config, or name another config with --config (only --templates and --framework apply to every target)`,
        { kind: "usage" },
      );
    }
  }
  const targets = config
    ? config.targets.map((t) => {
        const merged: GenerateOptions = { ...t };
        // A flag on the command line wins over the config; --spec and --schema replace each other.
        for (const key of cliSet) (merged as Record<string, unknown>)[key] = key === "cwd" ? cwd : resolveFlag(key, fromCli[key], cwd);
        if (fromCli.spec !== undefined) merged.schema = undefined;
        if (fromCli.schema !== undefined) merged.spec = undefined;
        return merged;
      })
    : [fromCli];
  return { targets, configFile: config?.file };
}

function resolveFlag(key: keyof GenerateOptions, value: unknown, cwd: string): unknown {
  const option: OptionDeclaration | undefined = CONFIG_OPTIONS.find((o) => o.config === key);
  return option?.path === true ? resolve(cwd, value as string) : value;
}

/**
 * The folder a target is generated into, when it is known before generating: `--out`, else
 * generated/a2a-<version> of a bundled version (a schema file's version is known only once it is read).
 */
export function expectedOutDir(target: GenerateOptions, cwd: string): string | undefined {
  const base = target.cwd ?? cwd;
  if (target.out !== undefined) return resolve(base, target.out);
  if (target.schema !== undefined) return undefined;
  return resolve(base, defaultOutDir(target.spec ?? defaultVersion()));
}

/** What the up-to-date check found for the targets of a run. */
export interface UnchangedScan {
  /** The targets that need generating (or checking). */
  pending: GenerateOptions[];
  /** Each target's output folder and inputs, where they could be told before generating (what the run records once it is done). */
  probed: Map<GenerateOptions, { outDir: string; inputs: InputsProbe }>;
  /** The lines that report the targets found up to date, in order. */
  lines: Array<{ stream: "out" | "err"; text: string }>;
}

/**
 * Splits the targets into those up to date as they are (inputs unchanged, files as the manifest lists
 * them) and those to generate; `force` makes every target pending.
 */
export function scanUnchanged(targets: readonly GenerateOptions[], args: Pick<GenerateArgs, "force" | "quiet" | "verbose">, cwd: string): UnchangedScan {
  const scan: UnchangedScan = { pending: [], probed: new Map(), lines: [] };
  for (const target of targets) {
    // process.hrtime, not performance.now(): the global `performance` loads perf_hooks (2 ms).
    const start = process.hrtime.bigint();
    const outDir = expectedOutDir(target, cwd);
    const inputs = outDir === undefined ? undefined : probeInputs(target, outDir);
    if (outDir !== undefined && inputs !== undefined) scan.probed.set(target, { outDir, inputs });
    const files = args.force || outDir === undefined || inputs === undefined ? undefined : upToDateFileCount(outDir, inputs, cwd);
    if (outDir === undefined || files === undefined) {
      // The inputs' content as it is now, before generating: the output is recorded as made from it.
      inputs?.fingerprint();
      scan.pending.push(target);
      continue;
    }
    const out = displayPath(outDir, cwd);
    if (!args.quiet) scan.lines.push({ stream: "out", text: `${out}: up to date (${files} files; inputs unchanged since it was last generated or checked: nothing to do)` });
    if (args.verbose) scan.lines.push({ stream: "err", text: `timings ${out}: unchanged inputs, up-to-date check ${(Number(process.hrtime.bigint() - start) / 1e6).toFixed(0)} ms` });
  }
  return scan;
}

/** What `answerUnchanged` made of a command line: answered (its exit code), scanned (to go on from), or left to yargs. */
export type UnchangedAnswer = { code: number } | ScannedTargets | undefined;

/** What the fast path resolved and scanned, for the full CLI to go on from when some target needs generating. */
export interface ScannedTargets {
  /** The command line, as yargs would read it (parseGenerateFlags). */
  args: GenerateArgs;
  resolved: ResolvedTargets;
  scan: UnchangedScan;
}

/**
 * The fast path of `main()`: `{ code }` when `argv` is a plain `generate` (or `generate --check`) whose
 * every target is up to date, having printed what the full CLI prints for it; otherwise nothing is
 * printed. When the line was one this parser takes (yargs reads it the same way) and some target needs
 * generating, the line and the targets resolved and scanned here, which `main()` generates from without
 * yargs; undefined for any other line (yargs parses it).
 */
export async function answerUnchanged(argv: readonly string[], io: CliIo): Promise<UnchangedAnswer> {
  // parseGenerateFlags takes neither --force nor --watch: their runs always go to the full CLI.
  const args = parseGenerateFlags(argv);
  if (args === undefined) return undefined;
  const cwd = process.cwd();
  let resolved: ResolvedTargets;
  let scan: UnchangedScan;
  try {
    resolved = await resolveTargets(args, cwd);
    scan = scanUnchanged(resolved.targets, args, cwd);
  } catch {
    // The full CLI reports it, with its usual message and exit code.
    return undefined;
  }
  if (scan.pending.length > 0) return { args, resolved, scan };
  if (resolved.configFile !== undefined && args.verbose) io.err(`config: ${displayPath(resolved.configFile, cwd)}`);
  for (const line of scan.lines) io[line.stream](line.text);
  return { code: EXIT_CODES.ok };
}

/** Flags whose runs always go to the full CLI: --force (no up-to-date check) and --watch (a long-running loop). */
const FULL_CLI_ONLY = new Set(["force", "watch"]);
type ArgKey = keyof GenerateArgs & string;
/** The spellings this parser takes (`--flag`, a list flag's other long spellings, a boolean's `-x`), by kind. */
const BOOLEAN_FLAGS = new Map<string, ArgKey>();
const LIST_FLAGS = new Map<string, ArgKey>();
const VALUE_FLAGS = new Map<string, ArgKey>();
for (const option of GENERATE_OPTIONS as readonly OptionDeclaration[]) {
  if (FULL_CLI_ONLY.has(option.flag)) continue;
  const key = camelCase(option.flag) as ArgKey;
  const spellings = [option.flag, ...(option.aliases ?? [])].map((f) => (f.length === 1 ? `-${f}` : `--${f}`));
  const table = option.type === "boolean" ? BOOLEAN_FLAGS : option.list ? LIST_FLAGS : VALUE_FLAGS;
  for (const spelling of spellings) table.set(spelling, key);
}

/**
 * A `generate` command line in its plain spellings (`[generate] --flag value`, `--flag=value`, bare boolean
 * flags, one value per array flag, each scalar flag once, no conflicting flags); undefined for anything
 * else, which yargs then parses (and rejects, where it is wrong). Conservative on purpose: a line this
 * parser takes means what yargs makes of it.
 */
export function parseGenerateFlags(argv: readonly string[]): GenerateArgs | undefined {
  const args: GenerateArgs = { check: false, watch: false, verbose: false, quiet: false, allowTypeErrors: false };
  const set = args as Record<string, unknown>;
  const seen = new Set<string>();
  let i = 0;
  if (argv[0] === "generate") i = 1;
  for (; i < argv.length; i++) {
    const token = argv[i] as string;
    const eq = token.startsWith("--") ? token.indexOf("=") : -1;
    const flag = eq > 0 ? token.slice(0, eq) : token;
    const inline = eq > 0 ? token.slice(eq + 1) : undefined;
    const boolean = BOOLEAN_FLAGS.get(flag);
    if (boolean !== undefined) {
      if (inline !== undefined || seen.has(boolean)) return undefined;
      seen.add(boolean);
      set[boolean] = true;
      continue;
    }
    const array = LIST_FLAGS.get(flag);
    const scalar = VALUE_FLAGS.get(flag);
    if (array === undefined && scalar === undefined) return undefined;
    const value = inline ?? argv[++i];
    if (value === undefined || value === "" || value.startsWith("-")) return undefined;
    if (array !== undefined) {
      // An array flag takes every value up to the next flag in yargs: only one here, then a flag or the end.
      const next = argv[i + 1];
      if (next !== undefined && !next.startsWith("-")) return undefined;
      ((set[array] ??= []) as string[]).push(value);
    } else if (scalar !== undefined) {
      if (seen.has(scalar)) return undefined;
      seen.add(scalar);
      set[scalar] = value;
    }
  }
  if (args.spec !== undefined && args.schema !== undefined) return undefined;
  if (args.all && (args.spec !== undefined || args.schema !== undefined || args.compat !== undefined)) return undefined;
  return args;
}
