import { beforeAll, describe, expect, it } from "vitest";
import { corpusRows, readCorpusDocument } from "../support/corpus.js";
import { generatedValidators, independentValidator } from "../support/project.js";
import { corpusFailures, topFailures, type Failure } from "../support/corpus-failures.js";

/**
 * The real-world corpus (test/fixtures/corpus): 460 agent cards and 1,117 JSON-RPC documents from 104 public
 * repositories, labelled by version. Every 0.x document is judged by the generated validator of its
 * version and by an Ajv compiled from the bundled schema at test time.
 */
const rows = corpusRows().filter((r) => r.version !== "1.0");

describe("real-world corpus (0.x)", () => {
  let failures: Failure[];
  beforeAll(async () => {
    failures = await corpusFailures();
  });

  it("covers every 0.x document of the corpus", () => {
    expect(rows.length).toBe(1180);
    expect(new Set(rows.map((r) => r.version))).toEqual(new Set(["0.1.0", "0.2.0", "0.2.1", "0.2.2", "0.2.3", "0.2.5", "0.2.6", "0.3.0"]));
  });

  it("gives the same verdict as the independent Ajv on every document", async () => {
    const disagreements: string[] = [];
    for (const row of rows) {
      const doc = readCorpusDocument(row.file);
      const ours = (await generatedValidators(row.version))[row.definition]?.(doc);
      const reference = independentValidator(row.version, row.definition)(doc);
      if (ours !== reference) disagreements.push(`${row.file} (${row.version} ${row.definition}): ours ${ours}, Ajv ${reference}`);
    }
    expect(disagreements).toEqual([]);
    expect(failures.length).toBeGreaterThan(600);
  });

  it("differs from the corpus's own labels only where a timestamp breaks `format: date-time` (an annotation here)", () => {
    const rejected = new Set(failures.map((f) => f.row.file));
    const differ = rows.filter((r) => (r.status === "invalid") !== rejected.has(r.file));
    for (const row of differ) {
      expect(row.status).toBe("invalid");
      expect(row.firstError).toMatch(/must match format "date-time"/);
    }
  });

  it("names the offending field in every rejected document", () => {
    const unnamed = failures.filter((f) => !f.issues.some((i) => i.pointer !== ""));
    expect(unnamed.map((f) => f.row.file)).toEqual([]);
    for (const f of failures) for (const issue of f.issues) expect(issue.message.startsWith(`${issue.pointer || "/"}: `)).toBe(true);
  });

  it("points where the corpus's own diagnosis points, or at another field of the same object", () => {
    // results.tsv `likely_error` is Ajv's error in the union branch the document evidently meant. Where a
    // document lacks a union's tag (`kind`, `method`) we report the missing tag rather than guess a
    // branch, and where its tag names a branch we follow the tag: then our issue is a sibling field.
    const pointerOf = (error: string): string | undefined => {
      const missing = /^(\S+) must have required property '([^']+)'/.exec(error);
      if (missing) return `${missing[1] === "/" ? "" : missing[1]}/${missing[2]}`;
      const other = /^(\S+) must /.exec(error);
      return other ? (other[1] === "/" ? "" : other[1]) : undefined;
    };
    const parent = (p: string) => p.slice(0, p.lastIndexOf("/"));
    let same = 0;
    for (const f of failures) {
      const p = pointerOf(f.row.likelyError);
      expect(p, f.row.likelyError).toBeDefined();
      if (f.issues.some((i) => i.pointer === p || i.pointer.startsWith(`${p}/`))) {
        same++;
        continue;
      }
      const sibling = f.issues.some((i) => i.pointer === parent(p as string) || parent(i.pointer) === parent(p as string));
      expect(sibling, `${f.row.file}: ${f.issues.map((i) => i.message).join(" | ")} (corpus: ${f.row.likelyError})`).toBe(true);
    }
    expect(same / failures.length).toBeGreaterThan(0.95);
  });

  it("reports the 20 most common failures with the messages reviewed in the fixture", async () => {
    const top = topFailures(failures);
    expect(top).toHaveLength(20);
    await expect(JSON.stringify(top, null, 2) + "\n").toMatchFileSnapshot("../fixtures/corpus-top-failures.json");
  });
});
