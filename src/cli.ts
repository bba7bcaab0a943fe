#!/usr/bin/env node
import { join, resolve } from "node:path";
import { realpathSync } from "node:fs";
import { pathToFileURL } from "node:url";
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { loadConfig } from "./config.js";
import { CodegenError, EXIT_CODES } from "./errors.js";
import { check, displayPath, generate, writeResult, type GenerateOptions, type GenerateResult, type Phase } from "./generate.js";
import { bundledVersions, defaultVersion } from "./schema/load.js";
import { hintsFor, specChangeReport, userTypeErrors } from "./regenerate.js";
import { GENERATOR_VERSION } from "./version.js";

interface GenerateArgs {
  spec?: string | undefined;
  schema?: string | undefined;
  overlay?: string | undefined;
  out?: string | undefined;
  templates?: string | undefined;
  card?: string | undefined;
  framework?: string[] | undefined;
  transports?: string[] | undefined;
  config?: string | undefined;
  check: boolean;
  all?: boolean;
  watch: boolean;
  verbose: boolean;
  quiet: boolean;
}

/** Runs the CLI; resolves to the exit code (the bin sets process.exitCode from it). */
export async function main(argv: string[], io: CliIo = defaultIo): Promise<number> {
  const verbose = argv.includes("--verbose") || argv.includes("-v");
  try {
    let code: number = EXIT_CODES.ok;
    const parser = yargs(argv)
      .scriptName("a2a-codegen")
      .usage("$0 <command> [options]\n\nGenerates typed models, validators and the method table of the A2A protocol from its JSON Schema.")
      .command(
        ["generate", "$0"],
        "generate the code for one spec version (or every bundled one with --all)",
        (y) =>
          y
            .option("spec", { type: "string", describe: `bundled spec version (default: ${defaultVersion()})` })
            .option("schema", { type: "string", describe: "an A2A JSON Schema file instead of a bundled version" })
            .option("overlay", { type: "string", describe: "the overlay of facts for --schema (default: <schema>.overlay.json, else the closest bundled version's)" })
            .option("out", { type: "string", describe: "output folder (default: generated/a2a-<version>; with --all, the parent folder)" })
            .option("templates", { type: "string", describe: "a folder of templates that override the bundled ones by path" })
            .option("card", { type: "string", describe: "an agent card JSON file: validated, emitted as card.ts" })
            .option("framework", { type: "array", string: true, describe: "server adapters to generate: node, express, fastify, hono (default: all)" })
            .option("transports", { type: "array", string: true, describe: "protocol bindings: jsonrpc, rest, grpc, comma- or space-separated (default: jsonrpc; grpc needs @grpc/grpc-js)" })
            .option("config", { type: "string", describe: "config file (default: a2a-codegen.config.json|.mjs|.js in the working folder)" })
            .option("check", { type: "boolean", default: false, describe: "write nothing; exit 1 and list the files that are stale" })
            .option("all", { type: "boolean", describe: "every bundled spec version, into <out>/a2a-<version>" })
            .option("watch", { alias: "w", type: "boolean", default: false, describe: "regenerate when the schema, config, card or a template changes" })
            .option("verbose", { alias: "v", type: "boolean", default: false, describe: "per-phase timings; stack traces on errors" })
            .option("quiet", { alias: "q", type: "boolean", default: false, describe: "print errors only" })
            .conflicts("spec", "schema")
            .conflicts("all", ["spec", "schema"])
            .example("$0 generate", "the newest bundled version into generated/a2a-<version>")
            .example("$0 generate --spec 0.2.5 --out src/a2a", "a given version into a given folder")
            .example("$0 generate --schema my-a2a.json --out src/a2a", "a schema file of your own")
            .example("$0 generate --check", "in CI: fail if the committed output is stale")
            .example("$0 generate --all --out generated", "every bundled version"),
        async (args) => {
          const generateArgs = args as unknown as GenerateArgs;
          code = generateArgs.watch ? await runWatch(generateArgs, io) : await runGenerate(generateArgs, io);
        },
      )
      .command(
        "init <dir>",
        "scaffold an agent project that runs with `npm install && npm start`",
        (y) =>
          y
            .positional("dir", { type: "string", demandOption: true, describe: "the project folder" })
            .option("spec", { type: "string", describe: `spec version (default: ${defaultVersion()})` })
            .option("framework", { type: "string", choices: ["fastify", "express", "hono", "node"], default: "fastify" })
            .option("name", { type: "string", describe: "the agent's name (default: the folder's name)" })
            .option("force", { type: "boolean", default: false, describe: "write into a non-empty folder (never overwrites a file)" })
            .example("$0 init my-agent", "a Fastify agent for the newest spec version")
            .example("$0 init my-agent --framework express --spec 0.2.5", "an Express agent for A2A 0.2.5"),
        async (args) => {
          const { init } = await import("./scaffold/init.js");
          const result = await init({
            dir: String(args.dir),
            spec: args.spec as string | undefined,
            framework: args.framework as "fastify" | "express" | "hono" | "node",
            name: args.name as string | undefined,
            force: Boolean(args.force),
          });
          const where = displayPath(result.dir);
          io.out(`created ${where}: ${result.written.length} files, and generated/ for A2A ${result.generated.ir.specVersion}`);
          if (result.skipped.length > 0) io.out(`left as they were: ${result.skipped.join(", ")}`);
          io.out(`next:\n  cd ${where}\n  npm install\n  npm start`);
          code = EXIT_CODES.ok;
        },
      )
      .command(
        "diff [a] [b]",
        "what changed between two spec versions (bundled versions or schema files)",
        (y) =>
          y
            .positional("a", { type: "string", describe: "the older version or schema file" })
            .positional("b", { type: "string", describe: "the newer version or schema file" })
            .option("json", { type: "boolean", default: false, describe: "machine-readable output" })
            .option("markdown", { type: "boolean", default: false, describe: "Markdown output" })
            .option("all", { type: "boolean", default: false, describe: "every consecutive pair of bundled versions, as Markdown" })
            .option("out", { type: "string", describe: "with --all: write the report to this file" })
            .option("check", { type: "boolean", default: false, describe: "with --all --out: exit 1 if the file is stale" })
            .example("$0 diff 0.2.6 0.3.0", "the changes from A2A 0.2.6 to 0.3.0")
            .example("$0 diff 0.3.0 my-a2a.json --json", "your schema against the bundled 0.3.0, as JSON"),
        async (args) => {
          code = await runDiff(args as unknown as DiffArgs, io);
        },
      )
      .command(
        "schema",
        "write the JSON Schema a proto derives (A2A 1.0 on: the proto is normative)",
        (y) =>
          y
            .option("from-proto", { type: "string", demandOption: true, describe: "the A2A .proto file" })
            .option("out", { type: "string", describe: "the schema file to write (default: standard output)" })
            .option("overlay-out", { type: "string", describe: "also write the version facts (overlay) here" })
            .example("$0 schema --from-proto a2a.proto --out a2a-1.0.1.json", "the JSON Schema of A2A 1.0.1"),
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
          code = EXIT_CODES.ok;
        },
      )
      .command(
        "versions",
        "list the bundled spec versions",
        (y) => y.option("json", { type: "boolean", default: false }),
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
        throw error ?? new CodegenError(message, { kind: "usage" });
      });
    await parser.parseAsync();
    return code;
  } catch (error) {
    return report(error, verbose, io);
  }
}

export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

const defaultIo: CliIo = {
  out: (line) => void process.stdout.write(line + "\n"),
  err: (line) => void process.stderr.write(line + "\n"),
};

async function runGenerate(args: GenerateArgs, io: CliIo): Promise<number> {
  const cwd = process.cwd();
  const fromCli: GenerateOptions = {
    spec: args.spec,
    schema: args.schema,
    overlay: args.overlay,
    out: args.out,
    templates: args.templates,
    card: args.card,
    frameworks: args.framework as GenerateOptions["frameworks"],
    transports: args.transports?.flatMap((t) => t.split(",")).map((t) => t.trim().toLowerCase()).filter((t) => t !== "") as GenerateOptions["transports"],
    cwd,
  };
  let targets: GenerateOptions[];
  if (args.all) {
    const parent = args.out ?? "generated";
    targets = bundledVersions().map((spec) => ({ ...fromCli, spec, out: join(parent, `a2a-${spec}`) }));
  } else {
    const config = await loadConfig(cwd, args.config);
    const cliSet = (Object.keys(fromCli) as Array<keyof GenerateOptions>).filter((k) => k !== "cwd" && fromCli[k] !== undefined);
    targets = config
      ? config.targets.map((t) => {
          const merged: GenerateOptions = { ...t };
          // A flag on the command line wins over the config; --spec and --schema replace each other.
          for (const key of cliSet) (merged as Record<string, unknown>)[key] = key === "cwd" ? cwd : resolveFlag(key, fromCli[key], cwd);
          if (fromCli.spec !== undefined) merged.schema = undefined;
          if (fromCli.schema !== undefined) merged.spec = undefined;
          return merged;
        })
      : [fromCli];
    if (config && args.verbose) io.err(`config: ${displayPath(config.file, cwd)}`);
  }

  // Generate every target in memory first: a bad input stops the run before anything is written.
  const results: GenerateResult[] = [];
  let stale = false;
  for (const target of targets) {
    if (args.check) {
      const result = await check(target);
      results.push(result);
      const out = displayPath(result.outDir, cwd);
      if (result.check.ok) {
        if (!args.quiet) io.out(`${out}: up to date (${Object.keys(result.files).length} files)`);
      } else {
        stale = true;
        const lines = [
          ...result.check.stale.map((f) => `  changed: ${f}`),
          ...result.check.missing.map((f) => `  missing: ${f}`),
          ...result.check.extra.map((f) => `  no longer generated: ${f}`),
        ];
        io.err(`${out}: stale — regenerate with \`a2a-codegen generate\`:\n${lines.join("\n")}`);
      }
    } else {
      results.push(await generate(target));
    }
  }
  if (!args.check) {
    for (const [i, result] of results.entries()) {
      const target = targets[i] as GenerateOptions;
      // Read what the folder was generated from before it is replaced.
      const changes = specChangeReport(result);
      // Generated already (every target first, so a bad input stops the run before anything is written).
      const written = writeResult(result, target.cwd);
      if (changes && !args.quiet) {
        io.out(`\nThe spec changed. ${changes.text}`);
        const errors = userTypeErrors(target.cwd ?? cwd, written.outDir);
        if (errors === undefined) io.out("(install typescript in the project to see what the change breaks in your code)");
        else if (errors.length === 0) io.out("Your code still type-checks against the new output.");
        else {
          io.out(`Your code has ${errors.length} type error${errors.length === 1 ? "" : "s"} against the new output:`);
          for (const e of errors) {
            io.out(`  ${e.file}:${e.line}:${e.column} ${e.code} ${e.message}`);
            for (const hint of changes.diff ? hintsFor(e.message, changes.diff) : []) io.out(`      → ${hint}`);
          }
        }
      }
      if (!args.quiet) {
        const ir = written.ir;
        io.out(
          `${displayPath(written.outDir, cwd)}: A2A ${ir.specVersion} — ${ir.types.length} types, ${ir.methods.length} methods, ` +
            `${Object.keys(written.files).length} files`,
        );
      }
    }
  }
  if (args.verbose) {
    for (const result of results) {
      const phases = Object.entries(result.timings) as Array<[Phase, number]>;
      const total = phases.reduce((s, [, ms]) => s + ms, 0);
      io.err(`timings ${result.ir.specVersion}: ${phases.map(([p, ms]) => `${p} ${ms.toFixed(0)} ms`).join(", ")}; total ${total.toFixed(0)} ms`);
      if (result.ir.versionBasis === "closest-bundled") io.err(`version: no overlay given; using the facts of bundled ${result.ir.specVersion}, the closest schema`);
    }
  }
  return stale ? EXIT_CODES.stale : EXIT_CODES.ok;
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


function resolveFlag(key: keyof GenerateOptions, value: unknown, cwd: string): unknown {
  return key === "spec" || key === "frameworks" || key === "transports" ? value : resolve(cwd, value as string);
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
  const { protocolIR } = await import("./diff/load.js");
  const { renderMarkdown, renderText } = await import("./diff/render.js");
  if (args.all) {
    const { specChangesMarkdown } = await import("./diff/spec-changes.js");
    const report = await specChangesMarkdown();
    if (!args.out) {
      io.out(report.trimEnd());
      return EXIT_CODES.ok;
    }
    const { existsSync, readFileSync, writeFileSync } = await import("node:fs");
    const path = resolve(args.out);
    if (args.check) {
      if (existsSync(path) && readFileSync(path, "utf8") === report) {
        io.out(`${displayPath(path)}: up to date`);
        return EXIT_CODES.ok;
      }
      io.err(`${displayPath(path)}: stale — regenerate with \`a2a-codegen diff --all --out ${args.out}\``);
      return EXIT_CODES.stale;
    }
    writeFileSync(path, report);
    io.out(`${displayPath(path)}: written`);
    return EXIT_CODES.ok;
  }
  if (!args.a || !args.b) throw new CodegenError("diff needs two versions or schema files (or --all)", { kind: "usage" });
  const diff = diffProtocols(await protocolIR(args.a), await protocolIR(args.b));
  io.out(args.json ? JSON.stringify(diff, null, 2) : args.markdown ? renderMarkdown(diff).trimEnd() : renderText(diff).trimEnd());
  return EXIT_CODES.ok;
}

async function runVersions(json: boolean, io: CliIo): Promise<number> {
  const versions = bundledVersions();
  const newest = defaultVersion();
  if (json) io.out(JSON.stringify({ default: newest, versions }, null, 2));
  else for (const v of versions) io.out(v === newest ? `${v} (default)` : v);
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

// Runs only when this very file is the process's entry point (the bin), never when it is imported.
function isEntryPoint(): boolean {
  try {
    return process.argv[1] !== undefined && pathToFileURL(realpathSync(process.argv[1])).href === import.meta.url;
  } catch {
    return false;
  }
}
if (isEntryPoint()) {
  main(hideBin(process.argv)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`a2a-codegen: internal error: ${String(error)}\n`);
      process.exitCode = EXIT_CODES.internal;
    },
  );
}
