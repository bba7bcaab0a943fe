/**
 * The programmatic API of a2a-codegen. The CLI is a thin shell over these functions.
 *
 *   import { generate, generateAndWrite, check } from "a2a-codegen";
 *   const result = await generate({ spec: "0.3.0" });          // in memory: result.files
 *   await generateAndWrite({ spec: "0.3.0", out: "src/a2a" });  // replaces the folder atomically
 *   const { check: outcome } = await check({ out: "src/a2a" }); // outcome.ok, outcome.stale, ...
 */
export { generate, generateAndWrite, writeResult, check, closestBundledVersion } from "./generate.js";
export type { GenerateOptions, GenerateResult, Phase } from "./generate.js";
export { writeOutput, checkOutput, type CheckResult } from "./write/writer.js";
export { MANIFEST_FILE, type Manifest } from "./write/manifest.js";
export { loadConfig, parseConfig, CONFIG_FILES, type Config, type TargetConfig } from "./config.js";
export { CodegenError, EXIT_CODES } from "./errors.js";
export { bundledVersions, defaultVersion } from "./schema/load.js";
export { main as runCli } from "./cli.js";
export type * from "./ir/types.js";
export { init, NODE_ENGINES, type InitOptions, type InitResult } from "./scaffold/init.js";
export { codegenSpec, type CodegenSpec } from "./scaffold/codegen-spec.js";
export { checkCard, cardProblems, CardError, type CardProblem } from "./card/check.js";
export { convertCard, type CardConversion } from "./card/convert.js";
export { convertCardFile, type ConvertCardFileOptions, type ConvertCardFileResult } from "./card/convert-file.js";
export { defaultFrameworks, type DefaultFrameworks } from "./frameworks.js";
export { diffProtocols, isEmptyDiff, type SpecDiff } from "./diff/diff.js";
export { bundledIR, loadProtocol, protocolIR, type LoadedProtocol, type ProtocolInput } from "./load/protocol.js";
export { renderText as renderDiffText, renderMarkdown as renderDiffMarkdown } from "./diff/render.js";
export { FRAMEWORKS, type Framework } from "./emit/server.js";
