import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { CodegenError } from "../errors.js";
import { bundledIR } from "../load/protocol.js";
import { isObject } from "../schema/json.js";
import { bundledVersions, defaultVersion, parseJson } from "../schema/load.js";
import { cardProblems, likelyVersion } from "./check.js";
import { convertCard } from "./convert.js";

export interface ConvertCardFileOptions {
  /** The card file. */
  file: string;
  /** The version the card is written for (default: the bundled version it fits best). */
  from?: string | undefined;
  /** The version to convert it to (default: the newest bundled). */
  to?: string | undefined;
  /** Where to write the converted card (default: over `file`). */
  out?: string | undefined;
  /** Write nothing (the caller prints `text`). */
  dryRun?: boolean | undefined;
  cwd?: string | undefined;
  /** How the file is named in messages (default: as given). */
  displayPath?: string | undefined;
}

export interface ConvertCardFileResult {
  from: string;
  to: string;
  /** The converted card as JSON text (two-space indent, final newline). */
  text: string;
  /** What was dropped, merged or filled in, one line each. */
  notes: string[];
  /** The absolute path written, or undefined with `dryRun`. */
  written: string | undefined;
}

/**
 * `a2a-codegen card`: converts an agent card file from one bundled spec version to another (convertCard),
 * and writes it only when the result is a valid card of the target version; otherwise it lists what is
 * still wrong, each with its pointer.
 */
export function convertCardFile(options: ConvertCardFileOptions): ConvertCardFileResult {
  const cwd = options.cwd ?? process.cwd();
  const path = resolve(cwd, options.file);
  const display = options.displayPath ?? options.file;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CodegenError(code === "ENOENT" ? "agent card file not found" : `cannot read the agent card (${code ?? String(error)})`, { file: display, cause: error });
  }
  const card = parseJson(text, display);
  if (!isObject(card)) throw new CodegenError("an agent card is a JSON object", { file: display, pointer: "" });
  const to = checkVersion(options.to ?? defaultVersion(), "--to");
  const from = options.from !== undefined ? checkVersion(options.from, "--from") : detectVersion(card, to, display);
  const target = bundledIR(to);
  // A misspelled field would be dropped as unknown: it is fixed first.
  const typos = from === to ? [] : cardProblems(bundledIR(from), card).filter((p) => p.suggestion !== undefined && p.versions === undefined);
  if (typos.length > 0) {
    throw new CodegenError(
      `${typos.length === 1 ? "a field is" : `${typos.length} fields are`} misspelled for A2A ${from}; fix ${typos.length === 1 ? "it" : "them"} first, or the conversion would drop ${typos.length === 1 ? "it" : "them"}:\n` +
        typos.map((p) => `  at ${p.pointer}: ${p.message}`).join("\n"),
      { file: display },
    );
  }
  const { card: converted, notes } = from === to ? { card, notes: [] } : convertCard(card, bundledIR(from), target);
  const problems = cardProblems(target, converted);
  if (problems.length > 0) {
    const source = from === to ? [] : cardProblems(bundledIR(from), card);
    throw new CodegenError(
      `converted from A2A ${from}, it is still not a valid A2A ${to} agent card (${problems.length} problem${problems.length === 1 ? "" : "s"}); ` +
        `${source.length > 0 ? `as an A2A ${from} card it has ${source.length} problem${source.length === 1 ? "" : "s"} already; ` : ""}fix ${problems.length === 1 ? "it" : "them"} in the file and run again:\n` +
        problems.map((p) => `  at ${p.pointer || "/"}: ${p.message}`).join("\n"),
      { file: display },
    );
  }
  const output = `${JSON.stringify(converted, null, 2)}\n`;
  let written: string | undefined;
  if (!options.dryRun) {
    written = resolve(cwd, options.out ?? options.file);
    try {
      writeFileSync(written, output);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new CodegenError(`cannot write the converted card (${code === "EACCES" ? "permission denied" : (code ?? String(error))})`, {
        file: options.out ?? display,
        kind: "io",
        cause: error,
      });
    }
  }
  return { from, to, text: output, notes, written };
}

function checkVersion(version: string, flag: string): string {
  const versions = bundledVersions();
  if (!versions.includes(version)) throw new CodegenError(`${flag}: unknown spec version "${version}"; bundled versions: ${versions.join(", ")}`, { kind: "usage" });
  return version;
}

/** The version a card is written for when --from is not given: the one it is valid under, else the one it fits best. */
function detectVersion(card: unknown, to: string, display: string): string {
  if (cardProblems(bundledIR(to), card).length === 0) return to;
  const likely = likelyVersion(card, to);
  if (likely === undefined) throw new CodegenError(`cannot tell which A2A version the card is written for; give --from`, { file: display, kind: "usage" });
  return likely;
}
