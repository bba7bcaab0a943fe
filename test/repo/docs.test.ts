/**
 * The README and docs/ keep to the repository: the README's first two commands are the ones CI runs, every
 * relative link points at a file that exists, and every key the config file accepts is in docs/config.md.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.js";
import { ROOT } from "../helpers.js";

const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
/** The commands of a shell block, without comments or blank lines. */
const commands = (block: string) =>
  block
    .split("\n")
    .map((l) => l.replace(/\s+#.*$/, "").trim())
    .filter(Boolean);
const DOCS = ["README.md", "CONTRIBUTING.md", ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];

describe("the README's first lines", () => {
  it("are the two commands CI runs: install and generate, then the tests", () => {
    const first = /^# a2a-codegen\n\n```sh\n([\s\S]*?)```/.exec(read("README.md"))?.[1];
    expect(first, "the README starts with a shell block").toBeDefined();
    const ci = read(".ci/run");
    // CI's command after each marker comment, without npm's flags that change only what it prints.
    const after = (marker: string) =>
      (ci.split(marker)[1]?.split("\n").find((l) => l.trim() && !l.trim().startsWith("#")) ?? "")
        .replace(/ --no-(audit|fund)/g, "")
        .replace(/ \|\| status=\$\?$/, "")
        .trim();
    expect(commands(first ?? "")).toEqual([after("# The README's first command."), after("# The README's second command.")]);
  });
});

describe("links in the README and docs/", () => {
  it.each(DOCS)("every relative link of %s points at a file of the repository", (doc) => {
    const text = read(doc).replace(/```[\s\S]*?```/g, "");
    const targets = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string).filter((t) => !/^[a-z]+:/i.test(t) && !t.startsWith("#"));
    const missing = targets.filter((t) => !existsSync(join(ROOT, dirname(doc), decodeURIComponent(t.split("#")[0] as string))));
    expect(missing.map((t) => `${doc} → ${relative(ROOT, join(ROOT, dirname(doc), t))}`)).toEqual([]);
  });
});

describe("docs/config.md and the config file", () => {
  it("names every key the config file accepts", () => {
    // The accepted keys, as the config's own check lists them when it meets one it does not know.
    let message = "";
    try {
      parseConfig({ "not-a-key": true }, "a2a-codegen.config.json", ROOT);
    } catch (error) {
      message = (error as Error).message;
    }
    const keys = /allowed: ([\w, ]+)/.exec(message)?.[1]?.split(", ") ?? [];
    expect(keys).toEqual(expect.arrayContaining(["spec", "out", "frameworks", "transports", "stores", "compat", "targets"]));
    const doc = read("docs/config.md");
    expect(keys.filter((k) => !doc.includes(`\`${k}\``))).toEqual([]);
  });
});
