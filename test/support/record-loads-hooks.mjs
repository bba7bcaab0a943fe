// The module loader hook of ./record-loads.mjs: appends each resolved URL to A2A_TEST_LOADED_FILE.
import { appendFileSync } from "node:fs";

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  const file = process.env.A2A_TEST_LOADED_FILE;
  if (file) appendFileSync(file, `${resolved.url}\n`);
  return resolved;
}
