/**
 * The docs document the whole command line and the whole config file: every option each command's --help
 * lists is named in docs/cli.md, in that command's section, and every key the config file takes is in
 * docs/config.md (issue 29 item 19). Measured on the built CLI and on parseConfig, not on the declarations.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.js";
import { ROOT } from "../support/project.js";

const CLI_DOC = readFileSync(join(ROOT, "docs", "cli.md"), "utf8");
const CONFIG_DOC = readFileSync(join(ROOT, "docs", "config.md"), "utf8");
const CLI = join(ROOT, "dist", "bin.cjs");

/** A command's section of docs/cli.md: from its `## name` heading to the next. */
function section(name: string): string {
  const start = CLI_DOC.indexOf(`\n## ${name}\n`);
  expect(start, `docs/cli.md has a "## ${name}" section`).toBeGreaterThanOrEqual(0);
  const next = CLI_DOC.indexOf("\n## ", start + 1);
  return CLI_DOC.slice(start, next < 0 ? undefined : next);
}

describe("docs/cli.md and the CLI", () => {
  it.each([["generate"], ["init", "x"], ["card"], ["diff"], ["schema"], ["versions"]])("every option of `%s` is in its section of docs/cli.md and in the synopsis", (...command) => {
    const help = spawnSync(process.execPath, [CLI, ...command, "--help"], { encoding: "utf8" });
    expect(help.status, help.stderr).toBe(0);
    const options = [...new Set(help.stdout.match(/(?<![\w-])--[a-z][a-z-]*/g) ?? [])].filter((o) => o !== "--help" && o !== "--version");
    expect(options.length).toBeGreaterThan(0);
    const text = section(command[0] as string);
    expect(options.filter((o) => !new RegExp(`${o}(?![a-z-])`).test(text))).toEqual([]);
    const synopsis = CLI_DOC.slice(CLI_DOC.indexOf("<!-- options:synopsis:begin -->"), CLI_DOC.indexOf("<!-- options:synopsis:end -->"));
    const line = synopsis.split(/\n(?=a2a-codegen )/).find((l) => l.startsWith(`a2a-codegen ${command[0]}`)) ?? "";
    // The synopsis names each option once, under its main spelling (a list flag's other spelling is in the table).
    const aliases = new Set(["--frameworks", "--transport", "--stores", "--bridges"]);
    expect(options.filter((o) => !aliases.has(o) && !new RegExp(`${o}(?![a-z-])`).test(line))).toEqual([]);
  });

  it("init's synopsis has --transports, --store and --compat", () => {
    expect(CLI_DOC).toMatch(/a2a-codegen init <dir>[^`]*--transports LIST[^`]*--store S[^`]*--compat V \| --no-compat/);
  });

  it("--help says what the tool makes now: models, validators, client, servers, runtime, from a JSON Schema or proto", () => {
    const help = spawnSync(process.execPath, [CLI, "--help"], { encoding: "utf8" }).stdout;
    expect(help).not.toMatch(/method table/);
    expect(help.replace(/\s+/g, " ")).toMatch(/JSON Schema or proto: models, validators, a typed client, servers/);
    expect(help).toMatch(/task runtime/);
  });
});

describe("docs/config.md and the config file", () => {
  const table = CONFIG_DOC.slice(CONFIG_DOC.indexOf("<!-- options:config:begin -->"), CONFIG_DOC.indexOf("<!-- options:config:end -->"));
  const documented = [...table.matchAll(/^\| `([\w$]+)` \|/gm)].map((m) => m[1] as string);

  it("every key in the table is one the config file takes", () => {
    expect(documented).toContain("transports");
    for (const key of documented.filter((k) => k !== "targets")) {
      // A key the config does not take is refused as unknown; a taken key with a wrong value is refused for its value.
      let message = "";
      try {
        parseConfig({ [key]: 42 }, "a2a-codegen.config.json", ROOT);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message, key).not.toMatch(/unknown key/);
      expect(message, key).toMatch(new RegExp(`"${key.replace("$", "\\$")}" must be`));
    }
  });

  it("every key the config file takes is in the table (a key of its own name is refused as unknown, naming the keys it takes)", () => {
    let allowed: string[] = [];
    try {
      parseConfig({ notAKey: 1 }, "a2a-codegen.config.json", ROOT);
    } catch (error) {
      allowed = /allowed: (.*)$/.exec((error as Error).message)?.[1]?.split(", ") ?? [];
    }
    expect(allowed.length).toBeGreaterThan(5);
    expect(allowed.filter((k) => !documented.includes(k))).toEqual([]);
  });
});
