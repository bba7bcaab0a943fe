import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { CodegenError } from "./errors.js";
import { emitCard } from "./card/emit.js";
import { emitClient, emitClientValidation } from "./emit/client.js";
import { compatMapping, compatServerFacts, emitCompat } from "./compat/emit.js";
import { emitGrpc } from "./emit/grpc.js";
import { emitServer, FRAMEWORKS, type Framework } from "./emit/server.js";
import { emitStoreConnect, unknownStore } from "./emit/stores.js";
import { emitIndex } from "./emit/index-file.js";
import { emitModels } from "./emit/models.js";
import { emitProtocol } from "./emit/protocol.js";
import { TemplateRenderer } from "./emit/templates.js";
import { emitValidatorFiles } from "./emit/validators.js";
import { defaultFrameworks } from "./frameworks.js";
import type { ProtocolIR } from "./ir/types.js";
import { loadProtocol } from "./load/protocol.js";
import { BRIDGES, STORES, TRANSPORTS, type Bridge, type StoreEngine, type Transport } from "./options/vocabularies.js";
import { GENERATOR_VERSION } from "./version.js";
import { formatRendered } from "./template-blame.js";
import { startFormatting } from "./format/format.js";
import { manifestText, MANIFEST_FILE } from "./write/manifest.js";
import { checkOutput, existingFolder, linkedFolder, writeOutput, type CheckResult } from "./write/writer.js";
import { defaultOutDir } from "./write/out-folder.js";
import type { TargetInputs } from "./write/up-to-date.js";
import type { Agree, ConfigKey } from "./options/declarations.js";
import { displayPath } from "./display-path.js";
import { unusedRuntimeFiles } from "./emit/runtime-files.js";
import { runtimeFiles } from "./emit/runtime-bundles.js";
import { emitErrors } from "./emit/error-classes.js";
import { emitTestKit } from "./emit/testing/test-kit.js";

export interface GenerateOptions {
  /** A bundled spec version, e.g. "0.3.0" (default: the newest bundled). */
  spec?: string | undefined;
  /** A schema file (wins over `spec`). */
  schema?: string | undefined;
  /** An overlay file for `schema` (default: `<schema>.overlay.json` beside it, else the closest bundled version's). */
  overlay?: string | undefined;
  /** The output folder (default: `generated/a2a-<version>`), relative to `cwd`. */
  out?: string | undefined;
  /** A folder of templates overriding the bundled ones by path. */
  templates?: string | undefined;
  /** The server adapters to generate (default: node, plus the frameworks the nearest package.json depends on). */
  frameworks?: readonly Framework[] | undefined;
  /** Store engines to add under runtime/stores/ (default: none; the in-memory store is always there). */
  stores?: readonly StoreEngine[] | undefined;
  /** The protocol bindings to generate beside JSON-RPC (default: JSON-RPC only); "grpc" adds the gRPC server and client transport, which need @grpc/grpc-js. */
  transports?: readonly Transport[] | undefined;
  /** An agent card JSON file: validated against the version's AgentCard and emitted as card.ts. */
  card?: string | undefined;
  /** LLM framework bridges to add under runtime/bridges/ (default: none): "ai-sdk" needs the `ai` package, "langgraph" @langchain/langgraph and @langchain/core. */
  bridges?: readonly Bridge[] | undefined;
  /** Also emit runtime/card/signature.ts (agent card signing and verification; needs `jose` and `canonicalize`). */
  cardSignatures?: boolean | undefined;
  /** Also emit the test kit under testing/ (in-memory transport, mock agent, MSW handlers, fixtures). */
  testing?: boolean | undefined;
  /** Also emit OpenTelemetry spans and metrics in the server and client (runtime/telemetry/; needs `@opentelemetry/api`). */
  telemetry?: boolean | undefined;
  /**
   * Only the client (for a browser, an edge runtime, a project that calls agents): models, validators,
   * client.ts and the runtime files they import; no server, task runtime, push or stores.
   */
  clientOnly?: boolean | undefined;
  /** Base folder for relative paths (default: process.cwd()). */
  cwd?: string | undefined;
  /** A bundled older version to serve too (e.g. "0.3.0" beside 1.0.1): its files in compat/a2a-<version>/ and the mapping (issue 10). */
  compat?: string | undefined;
}

/**
 * An option that is not in the up-to-date fast path's fingerprint (write/up-to-date.ts TargetInputs)
 * would let `generate` skip a run that changes the output: this fails to compile until it is added there.
 */
const EVERY_OPTION_FINGERPRINTED: Exclude<keyof GenerateOptions, keyof TargetInputs> extends never ? true : never = true;
void EVERY_OPTION_FINGERPRINTED;
// GenerateOptions and the option declarations (options/declarations.ts) agree: each key of one is a key of
// the other. A new key in either fails to compile until it is declared (or added) in both.
const GENERATE_OPTIONS_DECLARED: Agree<Exclude<keyof GenerateOptions, "cwd">, ConfigKey> = true;
void GENERATE_OPTIONS_DECLARED;

/** The phases of a generation, in the order they are reported (the pipeline may interleave them). */
export const PHASES = ["load", "normalize", "ir", "models", "validators", "protocol", "format", "write", "check"] as const;
export type Phase = (typeof PHASES)[number];

export interface GenerateResult {
  ir: ProtocolIR;
  /** Absolute path of the output folder. */
  outDir: string;
  /** Every file of the output folder by relative path, the manifest included. */
  files: Record<string, string>;
  /** Milliseconds spent in each phase. */
  timings: Partial<Record<Phase, number>>;
  /** What is doubtful but not wrong in the inputs (a card mode that is not a media type), one line each. */
  warnings: string[];
}

class Timer {
  readonly timings: Partial<Record<Phase, number>> = {};
  measure<T>(phase: Phase, work: () => T): T {
    const start = performance.now();
    try {
      return work();
    } finally {
      this.timings[phase] = (this.timings[phase] ?? 0) + performance.now() - start;
    }
  }
  async run<T>(phase: Phase, work: () => T | Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await work();
    } finally {
      this.timings[phase] = (this.timings[phase] ?? 0) + performance.now() - start;
    }
  }
}

/**
 * Runs the pipeline in memory: nothing is written. `forWrite`: the output is to be written, so an output
 * folder a2a-codegen may not replace (it holds files its manifest does not list) is refused first, before
 * any work (writeOutput refuses it too).
 */
export async function generate(options: GenerateOptions = {}, forWrite = false): Promise<GenerateResult> {
  const timer = new Timer();
  const cwd = options.cwd ?? process.cwd();
  const badStore = unknownStore(options.stores ?? []);
  if (badStore !== undefined) throw new CodegenError(`unknown store "${badStore}"; stores: ${STORES.join(", ")}`, { kind: "usage" });
  const clientOnly = options.clientOnly === true;
  if (clientOnly) refuseWithClientOnly(options);
  const { source, ir } = loadProtocol({ spec: options.spec, schema: options.schema, overlay: options.overlay, cwd }, (phase, work) => timer.measure(phase, work));
  const outDir = resolve(cwd, options.out ?? defaultOutDir(ir.specVersion));
  if (forWrite) existingFolder(linkedFolder(outDir), displayPath(outDir, cwd));
  if (options.templates !== undefined && !isFolder(resolve(cwd, options.templates))) {
    throw new CodegenError("the templates folder does not exist (it overrides bundled templates by path; see docs/templates.md)", { file: options.templates, kind: "usage" });
  }
  const templates = new TemplateRenderer(options.templates ? resolve(cwd, options.templates) : undefined);
  const header = `// Generated by a2a-codegen ${GENERATOR_VERSION} from ${ir.source.fileName} (sha256 ${ir.source.sha256}). Do not edit.`;
  const files: Record<string, string> = {};
  const warnings: string[] = [];
  /** The runtime files every output gets unless none of its other files uses them (emit/runtime-files.ts). */
  const copiedByDefault = new Set<string>();
  // The compat version's IR and mapping, read once (its server facts and its files both need them).
  const compat = options.compat !== undefined ? compatMapping(ir, options.compat) : undefined;
  let compatFacts: ReturnType<typeof compatServerFacts> | undefined;
  // Each file is handed to prettier as soon as it is emitted (in a worker thread: format/prettier-thread.ts).
  files["models.ts"] = await timer.run("models", () => emitModels(ir, templates, header));
  startFormatting({ "models.ts": files["models.ts"] });
  // The files that need neither the validators nor one another next: prettier formats them while Ajv compiles.
  await timer.run("protocol", () => {
    files["protocol.ts"] = emitProtocol(ir, templates, header);
    files["errors.ts"] = emitErrors(ir, templates, header);
    files["client.ts"] = emitClient(ir, templates, header, options.telemetry === true);
    files["client-validation.ts"] = emitClientValidation(templates, header);
    startFormatting({ "protocol.ts": files["protocol.ts"], "errors.ts": files["errors.ts"], "client.ts": files["client.ts"], "client-validation.ts": files["client-validation.ts"] });
  });
  const validatorFiles = await timer.run("validators", () => emitValidatorFiles(ir, templates, header));
  startFormatting(validatorFiles);
  Object.assign(files, validatorFiles);
  await timer.run("protocol", () => {
    // Default: node:http and the frameworks of the nearest package.json (from the output folder up); none client-only.
    const frameworks = clientOnly ? [] : (options.frameworks ?? defaultFrameworks(outDir).frameworks);
    const unknown = frameworks.filter((f) => !(FRAMEWORKS as readonly string[]).includes(f));
    if (unknown.length > 0) throw new CodegenError(`unknown framework "${unknown[0]}"; frameworks: ${FRAMEWORKS.join(", ")}`, { kind: "usage" });
    // What server/core.ts and server/grpc.ts need of the compat version.
    compatFacts = compat !== undefined ? compatServerFacts(compat.compat, options.card !== undefined, (options.transports ?? []).includes("grpc")) : undefined;
    if (!clientOnly) Object.assign(files, emitServer(ir, templates, header, frameworks, compatFacts, options.telemetry === true));
    if (options.card !== undefined) {
      const cardPath = resolve(cwd, options.card);
      files["card.ts"] = emitCard(ir, cardPath, displayPath(cardPath, cwd), templates, header, warnings);
    }
    const transports = options.transports ?? [];
    const unknownTransport = transports.find((t) => !(TRANSPORTS as readonly string[]).includes(t));
    if (unknownTransport !== undefined) throw new CodegenError(`unknown transport "${unknownTransport}"; transports: ${TRANSPORTS.join(", ")}`, { kind: "usage" });
    const unknownBridge = (options.bridges ?? []).find((b) => !(BRIDGES as readonly string[]).includes(b));
    if (unknownBridge !== undefined) throw new CodegenError(`unknown bridge "${unknownBridge}"; bridges: ${BRIDGES.join(", ")}`, { kind: "usage" });
    if (transports.includes("grpc")) Object.assign(files, emitGrpc(ir, source.path, templates, header, compatFacts?.grpc ? compatFacts.folder : undefined));
    // The runtime files of the features chosen (emit/runtime-bundles.ts declares which files each brings).
    const runtime = runtimeFiles(
      { specVersion: ir.specVersion, compat: options.compat, cardSignatures: options.cardSignatures === true, transports, stores: options.stores ?? [], frameworks, bridges: options.bridges ?? [], testing: options.testing === true, telemetry: options.telemetry === true, clientOnly },
      header,
    );
    if (options.testing === true) Object.assign(files, emitTestKit(ir, templates, header, files["client.ts"] ?? ""));
    Object.assign(files, runtime.files);
    for (const path of runtime.prunable) copiedByDefault.add(path);
    Object.assign(files, emitStoreConnect(templates, header, options.stores ?? []));
    files["index.ts"] = emitIndex(files, templates, header, clientOnly);
  });
  if (compat !== undefined) {
    const card = options.card === undefined ? undefined : { path: resolve(cwd, options.card), displayPath: displayPath(resolve(cwd, options.card), cwd) };
    Object.assign(files, await timer.run("protocol", () => emitCompat(ir, compat, templates, card, compatFacts?.grpc === true, warnings)));
  }
  // Only the runtime files the output's frameworks and features reach (a node-only server has no web adapter).
  for (const unused of unusedRuntimeFiles(files, copiedByDefault)) delete files[unused];
  const formatted = await timer.run("format", () => formatRendered(files, templates, outDir, cwd));
  formatted[MANIFEST_FILE] = manifestText(
    {
      generator: "a2a-codegen",
      generatorVersion: GENERATOR_VERSION,
      specVersion: ir.specVersion,
      schema: { file: ir.source.fileName, sha256: ir.source.sha256 },
    },
    formatted,
  );
  const ordered: Record<string, string> = {};
  for (const path of Object.keys(formatted).sort()) ordered[path] = formatted[path] as string;
  return { ir, outDir, files: ordered, timings: timer.timings, warnings };
}

/** Generates and replaces the output folder atomically. */
export async function generateAndWrite(options: GenerateOptions = {}): Promise<GenerateResult> {
  return writeResult(await generate(options, true), options.cwd);
}

/** Replaces a result's output folder atomically with its files (a result generate() already made). */
export function writeResult(result: GenerateResult, cwd?: string): GenerateResult {
  const start = performance.now();
  writeOutput(result.outDir, result.files, displayPath(result.outDir, cwd));
  result.timings.write = performance.now() - start;
  return result;
}

/** Generates in memory and compares with the output folder on disk. */
export async function check(options: GenerateOptions = {}): Promise<GenerateResult & { check: CheckResult }> {
  const result = await generate(options);
  const start = performance.now();
  const outcome = checkOutput(result.outDir, result.files);
  result.timings.check = performance.now() - start;
  return { ...result, check: outcome };
}

/** The options that make a server (or need one) are refused with --client-only, each by name. */
function refuseWithClientOnly(options: GenerateOptions): void {
  const refused: Array<[string, boolean]> = [
    ["--framework (a client-only output has no server)", (options.frameworks ?? []).length > 0],
    ["--store (stores are the server's)", (options.stores ?? []).length > 0],
    ["--card (the served agent card is the server's)", options.card !== undefined],
    ["--compat (serving a second version is the server's)", options.compat !== undefined],
    ["--bridge (bridges run in an agent)", (options.bridges ?? []).length > 0],
    ["--testing (the test kit runs the server core in memory)", options.testing === true],
    ["--transports grpc (the gRPC client needs Node and @grpc/grpc-js: generate without --client-only for it)", (options.transports ?? []).includes("grpc")],
  ];
  const found = refused.filter(([, given]) => given).map(([name]) => name);
  if (found.length > 0) throw new CodegenError(`--client-only emits only the client; it cannot go with ${found.join(", ")}`, { kind: "usage" });
}

function isFolder(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

// In a module of its own so that the CLI can print paths without loading the pipeline.
export { displayPath } from "./display-path.js";

export { closestBundledVersion } from "./load/protocol.js";
