/**
 * The README and docs/ keep to the repository: the README's first two commands are the ones CI runs, every
 * relative link points at a file that exists (and at one of its headings, when it names one), and every key
 * the config file accepts is in docs/config.md.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.js";
import { ROOT } from "../support/project.js";

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

/** A Markdown file's anchors: its `<a id>`s, and those GitHub gives its headings (lower case, punctuation dropped, spaces as dashes). */
function anchors(path: string): Set<string> {
  const text = readFileSync(path, "utf8").replace(/```[\s\S]*?```/g, "");
  const headings = [...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => m[1] as string);
  const ids = [...text.matchAll(/<a id="([^"]+)"><\/a>/g)].map((m) => m[1] as string); // explicit anchors (docs/spec-changes.md)
  return new Set([...ids, ...headings.map((h) => h.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").trim().replace(/\s/g, "-"))]);
}

describe("links in the README and docs/", () => {
  it.each(DOCS)("every relative link of %s points at a file of the repository (and a heading of it)", (doc) => {
    const text = read(doc).replace(/```[\s\S]*?```/g, "");
    const targets = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string).filter((t) => !/^[a-z]+:/i.test(t));
    const broken = targets.filter((t) => {
      const [file, anchor] = t.split("#") as [string, string | undefined];
      const path = file === "" ? join(ROOT, doc) : join(ROOT, dirname(doc), decodeURIComponent(file));
      if (!existsSync(path)) return true;
      return anchor !== undefined && path.endsWith(".md") && !anchors(path).has(anchor);
    });
    expect(broken.map((t) => `${doc} → ${t}`)).toEqual([]);
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
