/**
 * Each option is declared once (src/options/declarations.ts) and shows up everywhere it should: in the
 * command's --help, in config validation, in the up-to-date fingerprint, and in the tables of docs/cli.md
 * and docs/config.md. Presence is measured on the real surfaces (the built CLI's help, parseConfig,
 * the up-to-date probe's fingerprint, the docs' text), then held to what the declaration says (issue 28 item 2).
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.js";
import { COMMANDS, GENERATE_OPTIONS, type OptionDeclaration } from "../../src/options/declarations.js";
import { apiDocRegions, cliDocRegions, configDocRegions, replaceRegions, spellings, type CommandName } from "../../src/options/docs.js";
import { probeInputs, type TargetInputs } from "../../src/write/up-to-date.js";
import { ROOT, tempDir } from "../support/project.js";

const CLI = join(ROOT, "dist", "bin.cjs");
const CLI_DOC = readFileSync(join(ROOT, "docs", "cli.md"), "utf8");
const CONFIG_DOC = readFileSync(join(ROOT, "docs", "config.md"), "utf8");
const API_DOC = readFileSync(join(ROOT, "docs", "api.md"), "utf8");

/** The fingerprint the up-to-date check compares: of the generator, the options and the input files. */
const inputsFingerprint = (target: TargetInputs, outDir: string) => probeInputs(target, outDir)?.fingerprint();

function help(...command: string[]): string {
  const r = spawnSync(process.execPath, [CLI, ...command, "--help"], { encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

/** The text between a region's markers in a doc. */
function region(doc: string, name: string): string {
  const begin = doc.indexOf(`<!-- options:${name}:begin -->`);
  const end = doc.indexOf(`<!-- options:${name}:end -->`);
  expect(begin, `marker options:${name}`).toBeGreaterThanOrEqual(0);
  return doc.slice(begin, end);
}

/** The flags a --help text lists (`--out`, `-w`), without yargs' own. */
function helpFlags(text: string): string[] {
  const options = text.slice(text.indexOf("Options:"), text.indexOf("Examples:") >= 0 ? text.indexOf("Examples:") : undefined);
  return [...new Set(options.match(/(?<![\w-])--?[a-zA-Z][\w-]*/g) ?? [])].filter((f) => !["--help", "-h", "--version"].includes(f));
}

/** A value of the option that is not its absence, for config and the fingerprint: real files where it is a path. */
function sampleValue(option: OptionDeclaration): unknown {
  if (option.type === "boolean") return true;
  const files: Record<string, string> = {
    schema: join(ROOT, "schema", "a2a-0.3.0.json"),
    overlay: join(ROOT, "schema", "a2a-0.3.0.overlay.json"),
    templates: join(ROOT, "templates"),
    card: join(ROOT, "package.json"),
    out: join(tempDir("options-out-"), "out"),
  };
  const value = files[option.flag] ?? option.values?.allowed()[0] ?? "x";
  return option.list ? [value] : value;
}

describe("each generate option, declared once, is present everywhere it should be", () => {
  const generateHelp = helpFlags(help("generate"));
  const cliTable = region(CLI_DOC, "generate");
  const configTable = region(CONFIG_DOC, "config");
  const apiTable = region(API_DOC, "api");
  const base: TargetInputs = { cwd: ROOT };
  const baseOut = join(ROOT, "generated", "a2a-0.3.0");
  const baseFingerprint = inputsFingerprint(base, baseOut);

  const presence = (option: OptionDeclaration) => {
    const configKey = option.config ?? option.flag;
    let inConfig: boolean;
    let parsed: Record<string, unknown> | undefined;
    try {
      parsed = parseConfig({ [configKey]: sampleValue(option) }, "a2a-codegen.config.json", ROOT)[0] as Record<string, unknown>;
      inConfig = parsed[configKey] !== undefined;
    } catch {
      inConfig = false;
    }
    let inFingerprint = false;
    if (option.config !== undefined) {
      const value = sampleValue(option);
      const target = { ...base, [option.config]: value } as TargetInputs;
      const outDir = option.config === "out" ? (value as string) : baseOut;
      inFingerprint = inputsFingerprint(target, outDir) !== baseFingerprint;
    }
    return {
      help: spellings(option).every((s) => generateHelp.includes(s)),
      config: inConfig,
      fingerprint: inFingerprint,
      "docs/cli.md": spellings(option).every((s) => cliTable.includes(`| \`${s}\``) || cliTable.includes(`, \`${s}\``)),
      "docs/config.md": configTable.includes(`| \`${configKey}\` |`),
      "docs/api.md": apiTable.includes(`| \`${configKey}\` |`),
    };
  };

  it("lists each option's presence in --help, config validation, the fingerprint and the docs' tables", () => {
    const actual = Object.fromEntries(GENERATE_OPTIONS.map((o) => [o.flag, presence(o)]));
    // What each declaration says: every option in --help and docs/cli.md; one with a config key in config
    // validation, docs/config.md, docs/api.md and the fingerprint (a config key decides the output); the others in none.
    const expected = Object.fromEntries(
      (GENERATE_OPTIONS as readonly OptionDeclaration[]).map((o) => [
        o.flag,
        { help: true, config: o.config !== undefined, fingerprint: o.fingerprint === true, "docs/cli.md": true, "docs/config.md": o.config !== undefined, "docs/api.md": o.config !== undefined },
      ]),
    );
    expect(actual).toEqual(expected);
    // The options that decide the output are the ones with a config key (the compile-time check in
    // declarations.ts holds GenerateOptions to the same list).
    expect(GENERATE_OPTIONS.filter((o) => "fingerprint" in o).map((o) => o.flag)).toEqual(GENERATE_OPTIONS.filter((o) => "config" in o).map((o) => o.flag));
  });

  it("--help lists no option of generate that is not declared", () => {
    const declared = GENERATE_OPTIONS.flatMap((o) => spellings(o));
    expect(generateHelp.filter((f) => !declared.includes(f))).toEqual([]);
  });

  it.each(Object.keys(COMMANDS) as CommandName[])("the options of `%s` in --help are its declarations", (name) => {
    const args = name === "init" ? ["init", "x"] : [name];
    const listed = helpFlags(help(...args));
    const declared = (COMMANDS[name].options as readonly OptionDeclaration[]).filter((o) => !o.positional).flatMap((o) => spellings(o));
    expect(listed.sort()).toEqual([...declared].sort());
  });
});

describe("the docs' generated regions", () => {
  it.each([
    ["docs/cli.md", CLI_DOC, cliDocRegions()],
    ["docs/config.md", CONFIG_DOC, configDocRegions()],
    ["docs/api.md", API_DOC, apiDocRegions()],
  ] as const)("%s is as the declarations render it (else: npm run docs:options)", (file, text, regions) => {
    expect(replaceRegions(text, regions, file)).toBe(text);
  });

  it("a region without its markers is an error naming them", () => {
    expect(() => replaceRegions("# no markers\n", { generate: "x" }, "docs/cli.md")).toThrow("docs/cli.md: the markers <!-- options:generate:begin -->");
  });

  it("a table edited by hand comes back as declared; the script's --check passes on the committed docs", () => {
    const edited = CLI_DOC.replace("| `--spec` |", "| `--spek` |");
    expect(edited).not.toBe(CLI_DOC);
    expect(replaceRegions(edited, cliDocRegions(), "docs/cli.md")).toBe(CLI_DOC);
    const r = spawnSync(process.execPath, [join(ROOT, "scripts", "option-docs.mjs"), "--check"], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/docs\/cli\.md: up to date/);
  });
});
