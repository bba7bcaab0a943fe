import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The version of a2a-codegen itself (from its package.json; works from src/ and dist/). */
export const GENERATOR_VERSION: string = (
  JSON.parse(readFileSync(resolve(dirname(fileURLToPath(import.meta.url)), "../package.json"), "utf8")) as { version: string }
).version;
