import type { Options as PrettierOptions } from "prettier";
import { cacheKey, packageVersion, readCached, writeCached } from "../write/output-cache.js";
import { prettierFormat, warmThread } from "./prettier-thread.js";

/**
 * Formats generated TypeScript with prettier (in a worker thread where there is a second core:
 * prettier-thread.ts), each file once, as soon as it is emitted, with fixed
 * options (never a user's .prettierrc) so that the output is the same on every machine. The Ajv module is
 * machine code and is left as Ajv writes it.
 */
export const PRETTIER_OPTIONS: PrettierOptions = {
  // Babel's TypeScript parser: the same printer and output, but 40 % less time on a cold start.
  parser: "babel-ts",
  printWidth: 110,
  semi: true,
  singleQuote: false,
  trailingComma: "all",
  endOfLine: "lf",
};

/**
 * Files left as they are written: Ajv's machine code (formatting 600 KB of it costs seconds), and the
 * runtime files, which are copied verbatim from the package's hand-written, reviewed sources.
 */
const UNFORMATTED = (path: string) => path === "validators.ajv.ts" || path.startsWith("runtime/");

/**
 * TypeScript of the shapes a generation formats (declarations, unions, a class, an object literal), run
 * through prettier when the thread starts: its first format loads the babel-ts parser and the estree
 * printer, which is then done before the first generated file arrives.
 */
const WARM_SAMPLE = `export interface A { readonly a?: string; b: number[] }
export type B = { kind: "a"; value: A } | { kind: "b" };
export class C<T> extends Error { constructor(readonly t: T) { super("c"); } }
export const D: Record<string, A> = { a: { b: [1, 2] } };
export async function e(x: A | undefined): Promise<B> { return x === undefined ? { kind: "b" } : { kind: "a", value: x }; }
`;

/**
 * Starts the formatting thread (prettier-thread.ts) and its warm-up now, when the caller knows files will
 * need formatting: on a machine with a second core, prettier then loads while this thread emits.
 */
export function warmFormatting(): void {
  warmThread(WARM_SAMPLE, PRETTIER_OPTIONS);
}

/** Formattings started before the format phase (`startFormatting`), by cache key: each is taken once. */
const started = new Map<string, Promise<string>>();

const needsFormatting = (path: string) => path.endsWith(".ts") && !UNFORMATTED(path);

/** The output cache's key of a file's formatted text. */
const keyOf = (content: string) => cacheKey("prettier", packageVersion("prettier"), JSON.stringify(PRETTIER_OPTIONS), content);

/** Formats one text: from the output cache, or with prettier (then kept in the cache). */
async function formatOne(key: string, content: string): Promise<string> {
  const hit = readCached("format", key);
  if (hit !== undefined) return hit;
  const formatted = await prettierFormat(content, PRETTIER_OPTIONS);
  writeCached("format", key, formatted);
  return formatted;
}

/**
 * Starts formatting files as soon as they are emitted (the pipeline calls it after each stage), so that
 * prettier, in its worker thread (prettier-thread.ts), works while the next stage is emitted. The result
 * is taken by `formatFiles` at the end; nothing is awaited here, and a failure surfaces there.
 */
export function startFormatting(files: Record<string, string>): void {
  // Left by generations that failed before their format phase: dropped (a later one would format again).
  if (started.size > 256) started.clear();
  for (const [path, content] of Object.entries(files)) {
    if (!needsFormatting(path)) continue;
    const key = keyOf(content);
    if (started.has(key)) continue;
    const job = formatOne(key, content);
    job.catch(() => undefined); // awaited (and its error reported) by formatFiles
    started.set(key, job);
  }
}

/**
 * Prettier's output depends only on its version, the options and the text: each formatted file is kept in
 * the output cache under their hash (src/write/output-cache.ts), and prettier is loaded only when a
 * file is not there (its loading and cold first run are most of a cold generation's formatting time).
 */
export async function formatFiles(files: Record<string, string>): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  await Promise.all(
    Object.entries(files).map(async ([path, content]) => {
      if (!needsFormatting(path)) {
        out[path] = content;
        return;
      }
      const key = keyOf(content);
      const early = started.get(key);
      started.delete(key);
      out[path] = await (early ?? formatOne(key, content));
    }),
  );
  return out;
}
