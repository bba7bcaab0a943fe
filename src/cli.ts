import { resolve } from "node:path";
import { writeFileSync } from "node:fs";
import { loadConfig } from "./config.js";
import { answerUnchanged, resolveTargets, scanUnchanged, STDIO, type CliIo, type GenerateArgs, type ScannedTargets, type UnchangedAnswer } from "./cli-up-to-date.js";
import type { Argv, PositionalOptions } from "yargs";
import { defaultFrameworks } from "./frameworks.js";
import { COMMANDS, checkFlagValues, declarationOf, listValues, TOOL_SUMMARY, unknownFlagMessage, type CommandDeclaration, type OptionDeclaration } from "./options/declarations.js";
import { yargsOption } from "./options/yargs.js";
import { bindingsOfVersion, FRAMEWORKS, type Framework, type RuntimeName } from "./options/vocabularies.js";
import { missingPackages } from "./output-packages.js";
import { CodegenError, EXIT_CODES } from "./errors.js";
// yargs and the pipeline (protobufjs, Ajv, prettier, json-schema-to-typescript, handlebars) are imported
// when needed: a `generate` whose inputs are unchanged is answered (cli-up-to-date.ts) without them.
import type { GenerateOptions, GenerateResult, Phase } from "./generate.js";
import { displayPath } from "./display-path.js";
import { recordUpToDate } from "./write/up-to-date.js";
import { MANIFEST_FILE } from "./write/manifest.js";
import { bundledVersions, defaultVersion } from "./schema/load.js";
import { GENERATOR_VERSION } from "./version.js";

export type { CliIo } from "./cli-up-to-date.js";

/**
 * Runs the CLI; resolves to the exit code (the bin sets process.exitCode from it). `answered` is what the
 * bin's fast path (bin.ts) made of this very command line, when it ran it already: the line is not asked again.
 */
export async function main(argv: string[], io: CliIo = STDIO, answered?: { fast: UnchangedAnswer }): Promise<number> {
  const verbose = argv.includes("--verbose") || argv.includes("-v");
  try {
    const fast = answered !== undefined ? answered.fast : await answerUnchanged(argv, io);
    if (fast !== undefined && "code" in fast) return fast.code;
    // A plain generate line (one the light parser takes, as yargs reads it) goes on from the targets the
    // fast path resolved and scanned, without yargs: its loading, and the help text it renders for every
    // named command it runs, were a quarter of a regeneration whose steps are cached.
    if (fast !== undefined) return await runGenerate(fast.args, io, fast);
    const { default: yargs } = await import("yargs");
    let code: number = EXIT_CODES.ok;
    const parser = yargs(argv)
      .scriptName("a2a-codegen")
      .usage(`$0 <command> [options]\n\n${TOOL_SUMMARY}`)
      .command(
        [COMMANDS.generate.command, ...COMMANDS.generate.aliases],
        COMMANDS.generate.summary,
        (y) => defineCommand(y, COMMANDS.generate),
        async (args) => {
          const generateArgs = args as unknown as GenerateArgs;
          code = generateArgs.watch ? await runWatch(generateArgs, io) : await runGenerate(generateArgs, io);
        },
      )
      .command(
        COMMANDS.init.command,
        COMMANDS.init.summary,
        (y) => defineCommand(y, COMMANDS.init),
        async (args) => {
          const { init } = await import("./scaffold/init.js");
          const { describeSpec } = await import("./scaffold/codegen-spec.js");
          // Values are checked here, against the declarations, so that a misspelled one is named with the closest.
          const initOption = (flag: string) => declarationOf(COMMANDS.init.options, flag) as OptionDeclaration;
          const transports = args.transports === undefined ? undefined : listValues(args.transports as string[]);
          // `--no-compat` arrives as false.
          const compat = (args.compat as unknown) === false || args.compat === "false" ? false : (args.compat as string | undefined);
          for (const [flag, values] of [
            ["spec", args.spec === undefined ? [] : [String(args.spec)]],
            ["framework", args.framework === undefined ? [] : [String(args.framework)]],
            ["store", args.store === undefined ? [] : [String(args.store)]],
            ["runtime", [String(args.runtime)]],
            ["template", [String(args.template)]],
            ["transports", transports ?? []],
            ["compat", typeof compat === "string" ? [compat] : []],
          ] as const) {
            checkFlagValues(initOption(flag), values);
          }
          const result = await init({
            dir: String(args.dir),
            spec: args.spec as string | undefined,
            framework: args.framework as Framework | undefined,
            runtime: args.runtime as RuntimeName,
            name: args.name as string | undefined,
            transports,
            store: args.store as string | undefined,
            template: args.template as string | undefined,
            force: Boolean(args.force),
            codegenSpec: args["codegen-spec"] as string | undefined,
            compat,
          });
          const where = displayPath(result.dir);
          io.out(`created ${where}: ${result.written.length} files, and generated/ for A2A ${result.generated.ir.specVersion}${result.compat ? ` (serving A2A ${result.compat} clients too)` : ""}`);
          if (result.skipped.length > 0) io.out(`left as they were: ${result.skipped.join(", ")}`);
          io.out(`a2a-codegen dependency: ${result.codegen.source === "option" ? result.codegen.spec : describeSpec(result.codegen)}`);
          io.out(`next:\n  cd ${where}\n  npm install\n  ${result.runtime === "node" ? "npm start" : `npm run ${result.runtime === "workers" ? "worker" : result.runtime}`}`);
          code = EXIT_CODES.ok;
        },
      )
      .command(
        COMMANDS.diff.command,
        COMMANDS.diff.summary,
        (y) => defineCommand(y, COMMANDS.diff),
        async (args) => {
          code = await runDiff(args as unknown as DiffArgs, io);
        },
      )
      .command(
        COMMANDS.card.command,
        COMMANDS.card.summary,
        (y) => defineCommand(y, COMMANDS.card),
        async (args) => {
          code = await runCard(args as unknown as CardArgs, io);
        },
      )
      .command(
        COMMANDS.migrate.command,
        COMMANDS.migrate.summary,
        (y) => defineCommand(y, COMMANDS.migrate),
        async (args) => {
          const { runMigrate } = await import("./migrate/run.js");
          code = await runMigrate(args as unknown as Parameters<typeof runMigrate>[0], io);
        },
      )
      .command(
        COMMANDS.schema.command,
        COMMANDS.schema.summary,
        (y) => defineCommand(y, COMMANDS.schema),
        async (args) => {
          const { writeSchemaAndOverlayFromProto, writeSchemaFromProto } = await import("./proto/cli.js");
          const proto = resolve(String(args["from-proto"]));
          if (!(await import("node:fs")).existsSync(proto)) throw new CodegenError("proto file not found", { file: String(args["from-proto"]) });
          if (args["overlay-out"]) {
            writeSchemaAndOverlayFromProto(proto, {
              ...(args.out ? { schema: resolve(String(args.out)) } : {}),
              overlay: resolve(String(args["overlay-out"])),
            });
            if (!args.out) io.out(writeSchemaFromProto(proto).trimEnd());
          } else {
            const text = writeSchemaFromProto(proto, args.out ? resolve(String(args.out)) : undefined);
            if (!args.out) io.out(text.trimEnd());
          }
          if (args.out) io.out(`${displayPath(resolve(String(args.out)))}: written`);
          // With the schema on standard output, the status goes to standard error.
          if (args["overlay-out"]) (args.out ? io.out : io.err)(`${displayPath(resolve(String(args["overlay-out"])))}: written (the version facts)`);
          code = EXIT_CODES.ok;
        },
      )
      .command(
        COMMANDS.verify.command,
        COMMANDS.verify.summary,
        (y) => defineCommand(y, COMMANDS.verify),
        async (args) => {
          const { runVerify } = await import("./verify/cli.js");
          const levels = listValues((args.level as string[] | undefined) ?? []).map((l) => l.toUpperCase());
          const bindings = listValues((args.binding as string[] | undefined) ?? []);
          checkFlagValues(declarationOf(COMMANDS.verify.options, "level") as OptionDeclaration, levels);
          checkFlagValues(declarationOf(COMMANDS.verify.options, "binding") as OptionDeclaration, bindings);
          // Credentials as given: not split at commas or spaces (a header value has them).
          const auth = ((args.auth as string[] | string | undefined) ?? []) as string[] | string;
          code = await runVerify({ url: String(args.url), levels, bindings, auth: Array.isArray(auth) ? auth.map(String) : [String(auth)], json: Boolean(args.json), junit: args.junit as string | undefined, timeout: args.timeout === undefined ? undefined : String(args.timeout) }, io);
        },
      )
      .command(
        COMMANDS.store.command,
        COMMANDS.store.summary,
        (y) => defineCommand(y, COMMANDS.store),
        async (args) => {
          const { runStoreCommand } = await import("./store-admin/command.js");
          code = await runStoreCommand({ action: args.action as "migrate" | "status", url: String(args.url), sql: Boolean(args.sql) }, io);
        },
      )
      .command(
        COMMANDS.versions.command,
        COMMANDS.versions.summary,
        (y) => defineCommand(y, COMMANDS.versions),
        async (args) => {
          code = await runVersions(Boolean(args.json), io);
        },
      )
      .strict()
      .help()
      .alias("h", "help")
      .version(GENERATOR_VERSION)
      .wrap(Math.min(110, process.stdout.columns || 110))
      .exitProcess(false)
      .fail((message, error) => {
        throw error ?? new CodegenError(message + unknownFlagHint(message, argv), { kind: "usage" });
      });
    await parser.parseAsync();
    return code;
  } catch (error) {
    return report(error, verbose, io);
  }
}

/** Defines a declared command's positionals and options, conflicts and examples on its yargs builder. */
function defineCommand(y: Argv, command: CommandDeclaration): Argv {
  let builder = y;
  for (const option of command.options) builder = option.positional ? builder.positional(option.flag, yargsOption(option) as PositionalOptions) : builder.option(option.flag, yargsOption(option));
  for (const [a, b] of command.conflicts ?? []) builder = builder.conflicts(a, typeof b === "string" ? b : [...b]);
  for (const [example, description] of command.examples) builder = builder.example(example, description);
  return builder;
}

/** For yargs' "Unknown argument: frameworkz": the closest flag the command has. */
function unknownFlagHint(message: string, argv: readonly string[]): string {
  const unknown = /^Unknown arguments?: ([^,\s]+)/.exec(message)?.[1];
  if (unknown === undefined) return "";
  const named = Object.values(COMMANDS).find((c) => c.command.split(" ")[0] === argv[0]) ?? COMMANDS.generate;
  return unknownFlagMessage(named.options, unknown);
}

async function runGenerate(args: GenerateArgs, io: CliIo, scanned?: ScannedTargets): Promise<number> {
  const cwd = process.cwd();
  const resolved = scanned?.resolved ?? (await resolveTargets(args, cwd));
  const fromConfig = resolved.configFile !== undefined;
  if (resolved.configFile !== undefined && args.verbose) io.err(`config: ${displayPath(resolved.configFile, cwd)}`);

  // A target whose inputs (schema, templates, options, the generator itself) are those its folder was
  // last generated or checked from, and whose files are as its manifest lists them, is up to date as it is.
  const { pending, probed, lines } = scanned?.scan ?? scanUnchanged(resolved.targets, args, cwd);
  for (const line of lines) io[line.stream](line.text);
  const targets = pending;
  if (targets.length === 0) return EXIT_CODES.ok;
  const { check, generate, writeResult, PHASES } = await import("./generate.js");
  const { hintsFor, specChangeReport, userTypeErrors } = await import("./regenerate.js");

  // Generate every target in memory first: a bad input stops the run before anything is written.
  const results: GenerateResult[] = [];
  let stale = false;
  for (const target of targets) {
    if (args.check) {
      const result = await check(target);
      results.push(result);
      const out = displayPath(result.outDir, cwd);
      if (result.check.ok) {
        const inputs = probed.get(target);
        if (inputs !== undefined && inputs.outDir === result.outDir) recordUpToDate(result.outDir, inputs.inputs, result.files[MANIFEST_FILE] ?? "", cwd);
        if (!args.quiet) io.out(`${out}: up to date (${Object.keys(result.files).length} files)`);
      } else {
        stale = true;
        const lines = [
          ...result.check.stale.map((f) => `  changed: ${f}`),
          ...result.check.missing.map((f) => `  missing: ${f}`),
          ...result.check.extra.map((f) => `  no longer generated: ${f}`),
        ];
        io.err(`${out}: stale — regenerate with \`${regenerateCommand(args, result, fromConfig)}\`:\n${lines.join("\n")}`);
      }
    } else {
      results.push(await generate(target, true));
    }
    for (const warning of results[results.length - 1]?.warnings ?? []) io.err(`warning: ${warning}`);
  }
  let typeErrors = false;
  if (!args.check) {
    for (const [i, result] of results.entries()) {
      const target = targets[i] as GenerateOptions;
      // Read what the folder was generated from before it is replaced.
      const changes = specChangeReport(result);
      // Generated already (every target first, so a bad input stops the run before anything is written).
      const written = writeResult(result, target.cwd);
      const inputs = probed.get(target);
      if (inputs !== undefined && inputs.outDir === written.outDir) recordUpToDate(written.outDir, inputs.inputs, written.files[MANIFEST_FILE] ?? "", cwd);
      if (changes) {
        const errors = userTypeErrors(target.cwd ?? cwd, written.outDir);
        if (!args.quiet) io.out(`\nThe spec changed. ${changes.text}`);
        const migrating = await import("./migrate/cli-notes.js");
        const notice = migrating.compatNotice(changes.from, written.ir.specVersion, target.compat);
        if (notice !== undefined) io.err(notice);
        if (errors === undefined) {
          if (!args.quiet) io.out("(install typescript in the project to see what the change breaks in your code)");
        } else if (errors.length === 0) {
          if (!args.quiet) io.out("Your code still type-checks against the new output.");
        } else {
          const say = args.allowTypeErrors ? io.out : io.err;
          say(`Your code has ${errors.length} type error${errors.length === 1 ? "" : "s"} against the new output:`);
          for (const e of errors) {
            say(`  ${e.file}:${e.line}:${e.column} ${e.code} ${e.message}`);
            for (const hint of [...(changes.diff ? hintsFor(e.message, changes.diff) : []), ...migrating.hints(e.message, changes.from, written.ir.specVersion)]) say(`      → ${hint}`);
          }
          say(migrating.migrateLine(changes.from, written.ir.specVersion));
          if (!args.allowTypeErrors) {
            say(`${displayPath(written.outDir, cwd)} is written; fix your code (or pass --allow-type-errors to exit 0 with type errors).`);
            typeErrors = true;
          }
        }
      }
      if (!args.quiet) {
        const ir = written.ir;
        io.out(
          `${displayPath(written.outDir, cwd)}: A2A ${ir.specVersion} — ${ir.types.length} types, ${ir.methods.length} methods, ` +
            `${Object.keys(written.files).length} files; ${target.clientOnly === true ? "client only (no server)" : `servers: ${servers(written, target)}`}`,
        );
        const missing = missingPackages(written.outDir, written.files);
        if (missing) {
          const where = missing.from ? `${displayPath(missing.from, cwd)} does not list` : "no package.json (from the output folder up) lists";
          io.err(`a2a-codegen: warning: the output needs packages ${where}: ${[...missing.dependencies, ...missing.devDependencies].join(", ")}; it compiles once they are installed: ${missing.command}`);
        }
      }
    }
  }
  if (args.verbose) {
    for (const result of results) {
      const phases = (Object.entries(result.timings) as Array<[Phase, number]>).sort(([a], [b]) => PHASES.indexOf(a) - PHASES.indexOf(b));
      const total = phases.reduce((s, [, ms]) => s + ms, 0);
      io.err(`timings ${result.ir.specVersion}: ${phases.map(([p, ms]) => `${p} ${ms.toFixed(0)} ms`).join(", ")}; total ${total.toFixed(0)} ms`);
      if (result.ir.versionBasis === "closest-bundled") io.err(`version: no overlay given; using the facts of bundled ${result.ir.specVersion}, the closest schema`);
    }
  }
  return stale ? EXIT_CODES.stale : typeErrors ? EXIT_CODES.typeErrors : EXIT_CODES.ok;
}

/** `generate --watch`: generate, then again on every change; a bad state is reported, not fatal. */
async function runWatch(args: GenerateArgs, io: CliIo): Promise<number> {
  const { watchPaths } = await import("./watch.js");
  const { CONFIG_FILES } = await import("./config.js");
  const cwd = process.cwd();
  const once = async () => {
    const start = performance.now();
    try {
      await runGenerate({ ...args, watch: false }, io);
      io.out(`[watch] up to date (${Math.round(performance.now() - start)} ms); waiting for changes...`);
    } catch (error) {
      report(error, args.verbose, io);
      io.out("[watch] fix it and save: generation runs again on the next change");
    }
  };
  const config = args.config ? [resolve(cwd, args.config)] : CONFIG_FILES.map((f) => resolve(cwd, f));
  const paths = [...config, ...[args.schema, args.overlay, args.card, args.templates].filter((p): p is string => p !== undefined).map((p) => resolve(cwd, p))];
  // Files named by the config file are watched too.
  const loaded = await loadConfig(cwd, args.config).catch(() => undefined);
  for (const target of loaded?.targets ?? []) {
    for (const p of [target.schema, target.overlay, target.card, target.templates]) if (p) paths.push(p);
  }
  await once();
  const stop = watchPaths(paths, once);
  await new Promise<void>((done) => {
    const finish = () => {
      stop();
      done();
    };
    process.once("SIGINT", finish);
    process.once("SIGTERM", finish);
  });
  return EXIT_CODES.ok;
}


/** The command that rewrites what `generate --check` found stale: the same flags without --check, the version made explicit. */
function regenerateCommand(args: GenerateArgs, result: GenerateResult, fromConfig: boolean): string {
  const quote = (v: string) => (/^[\w./@:=+-]+$/.test(v) ? v : `'${v.replace(/'/g, "'\\''")}'`);
  const flags: string[] = [];
  const add = (flag: string, value: string | undefined) => {
    if (value !== undefined) flags.push(flag, quote(value));
  };
  if (args.all) {
    flags.push("--all");
    add("--out", args.out);
  } else {
    add("--config", args.config);
    // With a config file, it says the version; without, the version is made explicit (the default may change).
    if (args.schema !== undefined) add("--schema", args.schema);
    else if (args.spec !== undefined || !fromConfig) add("--spec", args.spec ?? result.ir.specVersion);
    add("--overlay", args.overlay);
    add("--out", args.out);
    add("--card", args.card);
  }
  add("--templates", args.templates);
  if (!args.all) add("--compat", args.compat);
  for (const list of ["framework", "transports", "store", "bridge"] as const) for (const name of listValues(args[list] ?? [])) add(`--${list}`, name);
  if (args.cardSignatures) flags.push("--card-signatures");
  if (args.testing) flags.push("--testing");
  if (args.telemetry) flags.push("--telemetry");
  if (args.clientOnly) flags.push("--client-only");
  return ["a2a-codegen", "generate", ...flags].join(" ");
}

/** The server adapters of an output, and where the choice came from when it was not given. */
function servers(result: GenerateResult, target: GenerateOptions): string {
  const names = Object.keys(result.files)
    .map((f) => /^server\/(\w+)\.ts$/.exec(f)?.[1])
    .filter((n): n is string => n !== undefined && n !== "core")
    .sort((a, b) => FRAMEWORKS.indexOf(a as Framework) - FRAMEWORKS.indexOf(b as Framework));
  if (target.frameworks !== undefined) return names.join(", ");
  const from = defaultFrameworks(result.outDir).from;
  return `${names.join(", ")} (${from ? `the frameworks of ${displayPath(from)}` : "no package.json: node:http only"})`;
}

interface DiffArgs {
  a?: string;
  b?: string;
  json: boolean;
  markdown: boolean;
  all: boolean;
  out?: string;
  check: boolean;
}

async function runDiff(args: DiffArgs, io: CliIo): Promise<number> {
  const { diffProtocols } = await import("./diff/diff.js");
  const { renderMarkdown, renderText } = await import("./diff/render.js");
  if (args.json && args.markdown) throw new CodegenError("--json and --markdown are mutually exclusive: pick one output format", { kind: "usage" });
  if (args.check && !(args.all && args.out)) throw new CodegenError("diff --check needs --all and --out FILE (the report to compare)", { kind: "usage" });
  if (args.all && (args.a !== undefined || args.json || args.markdown)) {
    throw new CodegenError("diff --all takes no versions and no --json/--markdown (it is the Markdown report of every consecutive pair)", { kind: "usage" });
  }
  if (args.all) {
    const { specChangesMarkdown } = await import("./diff/spec-changes.js");
    const report = await specChangesMarkdown();
    if (!args.out) {
      io.out(report.trimEnd());
      return EXIT_CODES.ok;
    }
    const { existsSync, readFileSync } = await import("node:fs");
    const path = resolve(args.out);
    if (args.check) {
      if (existsSync(path) && readFileSync(path, "utf8") === report) {
        io.out(`${displayPath(path)}: up to date`);
        return EXIT_CODES.ok;
      }
      io.err(`${displayPath(path)}: stale — regenerate with \`a2a-codegen diff --all --out ${args.out}\``);
      return EXIT_CODES.stale;
    }
    writeReport(path, args.out, report);
    io.out(`${displayPath(path)}: written`);
    return EXIT_CODES.ok;
  }
  if (!args.a || !args.b) throw new CodegenError("diff needs two versions or schema files (or --all)", { kind: "usage" });
  const diff = diffProtocols(await diffSide(args.a), await diffSide(args.b));
  const markdown = args.markdown || (args.out !== undefined && !args.json && /\.(md|markdown)$/i.test(args.out));
  const text = args.json ? JSON.stringify(diff, null, 2) : markdown ? renderMarkdown(diff).trimEnd() : renderText(diff).trimEnd();
  if (args.out === undefined) {
    io.out(text);
    return EXIT_CODES.ok;
  }
  const path = resolve(args.out);
  writeReport(path, args.out, `${text}\n`);
  io.out(`${displayPath(path)}: written`);
  return EXIT_CODES.ok;
}

/** A side of `diff`: a bundled version, else a schema file; something shaped like a version that is neither is an unknown version. */
async function diffSide(versionOrFile: string) {
  const { existsSync } = await import("node:fs");
  const { protocolIR } = await import("./load/protocol.js");
  const versions = bundledVersions();
  if (!versions.includes(versionOrFile) && /^\d+(\.\d+)*$/.test(versionOrFile) && !existsSync(resolve(versionOrFile))) {
    throw new CodegenError(`unknown spec version "${versionOrFile}"; bundled versions: ${versions.join(", ")}`, { kind: "usage" });
  }
  return protocolIR(versionOrFile);
}

/** Writes a report file; a failure is the documented "cannot write" error (exit 3) naming the file. */
function writeReport(path: string, display: string, text: string): void {
  try {
    writeFileSync(path, text);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === "EACCES" || code === "EPERM" || code === "EROFS"
        ? "permission denied"
        : code === "ENOENT"
          ? "its folder does not exist"
          : code === "ENOTDIR"
            ? "a parent of the path is a file, not a folder"
            : code === "EISDIR"
              ? "is a folder"
              : (code ?? String(error));
    throw new CodegenError(`cannot write the report: ${why}`, { file: display, kind: "io", cause: error });
  }
}

interface CardArgs {
  file?: string;
  from?: string;
  to?: string;
  out?: string;
  stdout: boolean;
}

async function runCard(args: CardArgs, io: CliIo): Promise<number> {
  const { convertCardFile } = await import("./card/convert-file.js");
  const cwd = process.cwd();
  // The version to convert to: the flag, else the project's config (where `spec` was just changed), else the newest.
  const target = (await loadConfig(cwd).catch(() => undefined))?.targets[0];
  const to = args.to ?? target?.spec;
  // The card: the argument, else the config's card, else agent-card.json.
  const file = args.file ?? (target?.card !== undefined ? displayPath(target.card, cwd) : "agent-card.json");
  const result = convertCardFile({ file, from: args.from, to, out: args.out, dryRun: args.stdout, cwd });
  if (args.stdout) io.out(result.text.trimEnd());
  const say = args.stdout ? io.err : io.out;
  if (result.from === result.to) say(`${file}: already a valid A2A ${result.to} agent card`);
  else say(`${result.written ? displayPath(result.written, cwd) : file}: converted from A2A ${result.from} to ${result.to}`);
  for (const note of result.notes) say(`  ${note}`);
  const notice = (await import("./migrate/cli-notes.js")).compatNotice(result.from, result.to, target?.compat);
  if (notice !== undefined) say(notice);
  return EXIT_CODES.ok;
}

async function runVersions(json: boolean, io: CliIo): Promise<number> {
  const versions = bundledVersions();
  const newest = defaultVersion();
  // The bindings of each version: JSON-RPC, plus HTTP+JSON and gRPC where the version has a proto.
  const bindings = Object.fromEntries(versions.map((v) => [v, bindingsOfVersion(v)]));
  if (json) io.out(JSON.stringify({ default: newest, versions, bindings }, null, 2));
  else {
    const width = Math.max(...versions.map((v) => (v === newest ? `${v} (default)` : v).length)) + 2;
    for (const v of versions) io.out(`${(v === newest ? `${v} (default)` : v).padEnd(width)}${(bindings[v] ?? []).join(", ")}`);
  }
  return EXIT_CODES.ok;
}

function report(error: unknown, verbose: boolean, io: CliIo): number {
  if (error instanceof CodegenError) {
    io.err(`a2a-codegen: error: ${error.message}`);
    if (error.kind === "usage") io.err("Run `a2a-codegen --help` for usage.");
    if (verbose && error.stack) io.err(error.stack);
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.err(`a2a-codegen: internal error: ${message}`);
  io.err(verbose && error instanceof Error && error.stack ? error.stack : "This is a bug in a2a-codegen; run with --verbose for the stack trace and report it.");
  return EXIT_CODES.internal;
}
