import type { Options } from "json-schema-to-typescript";
import { cacheKey, packageVersion, readCached, writeCached } from "../write/output-cache.js";
import { warmFormatting } from "../format/format.js";

/**
 * json-schema-to-typescript's `compile`, through the output cache (src/write/output-cache.ts): its output
 * depends only on its version, the schema, the name and the options, so a run on a schema it compiled
 * before reads the result and never loads the library (its import and first compile are a large part of
 * a cold run).
 */
export async function cachedCompile(schema: object, name: string, options: Partial<Options>): Promise<string> {
  const key = cacheKey("json-schema-to-typescript", packageVersion("json-schema-to-typescript"), name, JSON.stringify(options), JSON.stringify(schema));
  const hit = readCached("models", key);
  if (hit !== undefined) return hit;
  // A schema not compiled before: its files will not be in the format cache either. Prettier starts
  // loading in its thread now, while json-schema-to-typescript compiles here.
  warmFormatting();
  const { compile } = await import("json-schema-to-typescript");
  const body = await compile(schema as never, name, options);
  writeCached("models", key, body);
  return body;
}
