import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { diffProtocols, isEmptyDiff, type SpecDiff } from "./diff/diff.js";
import { bundledIR } from "./load/protocol.js";
import { renderText } from "./diff/render.js";
import type { GenerateResult } from "./generate.js";
import { bundledVersions } from "./schema/load.js";
import { readManifest } from "./write/manifest.js";

/**
 * What a regeneration changes for the user: the spec changes since the version the output folder was
 * generated from (read before it is replaced), and afterwards the TypeScript errors the new output
 * causes in the user's own files.
 */
export function specChangeReport(result: GenerateResult): { text: string; diff: SpecDiff | undefined; from: string } | undefined {
  const before = readManifest(result.outDir);
  if (!before || before.specVersion === result.ir.specVersion) return undefined;
  if (!bundledVersions().includes(before.specVersion)) {
    return { text: `The output was generated from ${before.schema.file} (A2A ${before.specVersion}); it is now A2A ${result.ir.specVersion}.`, diff: undefined, from: before.specVersion };
  }
  const diff = diffProtocols(bundledIR(before.specVersion), result.ir);
  return isEmptyDiff(diff) ? undefined : { text: renderText(diff), diff, from: before.specVersion };
}

/**
 * What to change, for a type error that names something the spec change renamed or removed: "TaskSendParams
 * is now MessageSendParams", "tasks/send is now message/send", "TaskState no longer has "unknown"".
 */
export function hintsFor(message: string, diff: SpecDiff): string[] {
  const hints: string[] = [];
  const named = (name: string) => new RegExp(`(^|[^\\w/])${name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}($|[^\\w/])`).test(message);
  for (const r of diff.types.renamed) if (named(r.from)) hints.push(`${r.from} is now ${r.to}`);
  for (const r of diff.methods.renamed) if (named(r.from)) hints.push(`${r.from} is now ${r.to}`);
  for (const t of diff.types.removed) if (named(t.name)) hints.push(`${t.name} no longer exists`);
  for (const change of diff.types.changed) {
    for (const c of change.changes) {
      if (c.change === "enum" && c.removed.some((v) => message.includes(JSON.stringify(v)))) hints.push(`${change.name}${c.field ? `.${c.field}` : ""} no longer has ${c.removed.map((v) => JSON.stringify(v)).join(", ")}`);
      if (c.change === "removed" && named(c.field) && named(change.name)) hints.push(`${change.name}.${c.field} was removed`);
    }
  }
  return [...new Set(hints)];
}

export interface TypeError {
  file: string;
  line: number;
  column: number;
  code: string;
  message: string;
}

/**
 * Type-checks the project around an output folder with the project's own TypeScript (its
 * node_modules/.bin/tsc and tsconfig.json) and returns the errors in files outside that folder.
 * Undefined when the project has no tsconfig.json or no TypeScript installed.
 */
export function userTypeErrors(projectDir: string, outDir: string): TypeError[] | undefined {
  const tsconfig = join(projectDir, "tsconfig.json");
  const tsc = join(projectDir, "node_modules", ".bin", process.platform === "win32" ? "tsc.cmd" : "tsc");
  if (!existsSync(tsconfig) || !existsSync(tsc)) return undefined;
  const run = spawnSync(tsc, ["-p", tsconfig, "--noEmit", "--pretty", "false"], { cwd: projectDir, encoding: "utf8", timeout: 120_000 });
  const errors: TypeError[] = [];
  const generated = resolve(outDir) + sep;
  for (const line of `${run.stdout}\n${run.stderr}`.split("\n")) {
    const m = /^(.+?)\((\d+),(\d+)\): error (TS\d+): (.*)$/.exec(line.trim());
    if (!m) continue;
    const file = resolve(projectDir, m[1] as string);
    if (file.startsWith(generated)) continue;
    errors.push({ file: relative(projectDir, file), line: Number(m[2]), column: Number(m[3]), code: m[4] as string, message: m[5] as string });
  }
  return errors;
}
