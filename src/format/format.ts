import type { Options as PrettierOptions } from "prettier";
import { cacheKey, packageVersion, readCached, writeCached } from "../write/output-cache.js";

/**
 * Formats generated TypeScript with prettier, in-process and once, at the end of the pipeline, with fixed
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
 * Prettier's output depends only on its version, the options and the text: each formatted file is kept in
 * the output cache under their hash (src/write/output-cache.ts), and prettier is imported only when a
 * file is not there (its loading and cold first run are most of a cold generation's formatting time).
 */
export async function formatFiles(files: Record<string, string>): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const version = packageVersion("prettier");
  const options = JSON.stringify(PRETTIER_OPTIONS);
  let prettier: Promise<typeof import("prettier")> | undefined;
  await Promise.all(
    Object.entries(files).map(async ([path, content]) => {
      if (!path.endsWith(".ts") || UNFORMATTED(path)) {
        out[path] = content;
        return;
      }
      const key = cacheKey("prettier", version, options, content);
      const hit = readCached("format", key);
      if (hit !== undefined) {
        out[path] = hit;
        return;
      }
      prettier ??= import("prettier");
      const formatted = await (await prettier).format(content, PRETTIER_OPTIONS);
      writeCached("format", key, formatted);
      out[path] = formatted;
    }),
  );
  return out;
}
