import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CORPUS_DIR } from "./project.js";

export const CORPUS = CORPUS_DIR;

export interface CorpusRow {
  file: string;
  kind: string;
  role: string;
  method: string;
  version: string;
  definition: string;
  status: string;
  firstError: string;
  likelyError: string;
}

/** The corpus's results.tsv rows (labelled by target version; see test/fixtures/corpus/README.md). */
export function corpusRows(): CorpusRow[] {
  const [head, ...lines] = readFileSync(join(CORPUS, "results.tsv"), "utf8").trimEnd().split("\n");
  const cols = (head as string).split("\t");
  const col = (name: string) => cols.indexOf(name);
  return lines.map((line) => {
    const f = line.split("\t");
    return {
      file: f[col("file")] as string,
      kind: f[col("kind")] as string,
      role: f[col("role")] as string,
      method: f[col("method_or_hint")] as string,
      version: f[col("target_version")] as string,
      definition: f[col("schema_def")] as string,
      status: f[col("status")] as string,
      firstError: f[col("first_error")] as string,
      likelyError: f[col("likely_error")] as string,
    };
  });
}

export function readCorpusDocument(file: string): unknown {
  return JSON.parse(readFileSync(join(CORPUS, file), "utf8"));
}
