#!/usr/bin/env node
// Rewrites the generated regions of docs/cli.md, docs/config.md and docs/api.md (the synopsis and the option tables)
// from the option declarations (src/options/declarations.ts, built into dist/). `--check`: write nothing,
// exit 1 when a file is stale. Run `npm run build` first (npm run docs:options does).
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { apiDocRegions, cliDocRegions, configDocRegions, replaceRegions } from "../dist/options/docs.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const check = process.argv.includes("--check");
let stale = false;
for (const [file, regions] of [
  ["docs/cli.md", cliDocRegions()],
  ["docs/config.md", configDocRegions()],
  ["docs/api.md", apiDocRegions()],
]) {
  const path = join(root, file);
  const text = readFileSync(path, "utf8");
  const updated = replaceRegions(text, regions, file);
  if (updated === text) console.log(`${file}: up to date`);
  else if (check) {
    stale = true;
    console.error(`${file}: stale — rewrite it with \`npm run docs:options\``);
  } else {
    writeFileSync(path, updated);
    console.log(`${file}: written`);
  }
}
process.exitCode = stale ? 1 : 0;
