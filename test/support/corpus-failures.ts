import { corpusRows, readCorpusDocument, type CorpusRow } from "./corpus.js";
import { generatedValidators } from "./project.js";
import type { ValidationIssue } from "../../src/runtime/validation.js";

export interface Failure {
  row: CorpusRow;
  issues: ValidationIssue[];
}

/** Every 0.x corpus document the generated validator of its version rejects, with the issues. */
export async function corpusFailures(): Promise<Failure[]> {
  const out: Failure[] = [];
  for (const row of corpusRows().filter((r) => r.version !== "1.0")) {
    const validate = (await generatedValidators(row.version))[row.definition];
    if (!validate) throw new Error(`no validator ${row.definition} for ${row.version}`);
    if (!validate(readCorpusDocument(row.file))) out.push({ row, issues: validate.errors ?? [] });
  }
  return out;
}

/** The kind of a failure: its first issue with array indexes and the offending value folded. */
export function failureKind(issue: ValidationIssue): string {
  return issue.message.replace(/\/\d+(?=\/|:)/g, "/N").replace(/, got .*$/, ", got …");
}

/** The 20 most common kinds, each with its first document (by file name): the spot-check fixture's content. */
export function topFailures(failures: Failure[], count = 20) {
  const byKind = new Map<string, Failure[]>();
  for (const f of failures) {
    const kind = failureKind(f.issues[0] as ValidationIssue);
    byKind.set(kind, [...(byKind.get(kind) ?? []), f]);
  }
  return [...byKind.entries()]
    .sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1))
    .slice(0, count)
    .map(([kind, list]) => {
      const sample = [...list].sort((a, b) => (a.row.file < b.row.file ? -1 : 1))[0] as Failure;
      return {
        kind,
        documents: list.length,
        sample: { file: sample.row.file, version: sample.row.version, definition: sample.row.definition },
        issues: sample.issues.map((i) => i.message),
      };
    });
}
