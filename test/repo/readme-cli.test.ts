/**
 * The docs document the whole command line: every option each command's --help lists is named in the CLI
 * reference, docs/cli.md (the README links to it and keeps only the quickstarts).
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers.js";

const CLI_DOC = readFileSync(join(ROOT, "docs", "cli.md"), "utf8");
const CLI = join(ROOT, "dist", "cli.js");

describe("docs/cli.md and the CLI", () => {
  it.each([["generate"], ["init", "x"], ["card"], ["diff"], ["schema"], ["versions"]])("every option of `%s` is in docs/cli.md", (...command) => {
    const help = spawnSync(process.execPath, [CLI, ...command, "--help"], { encoding: "utf8" });
    expect(help.status, help.stderr).toBe(0);
    const options = [...new Set(help.stdout.match(/--[a-z][a-z-]*/g) ?? [])].filter((o) => o !== "--help" && o !== "--version");
    expect(options.length).toBeGreaterThan(0);
    const missing = options.filter((o) => !new RegExp(`${o}(?![a-z-])`).test(CLI_DOC));
    expect(missing).toEqual([]);
  });
});
