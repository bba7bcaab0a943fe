#!/usr/bin/env node
// Part of `npm run build`, after tsc: bundles dist/bin.js (the `a2a-codegen` command, src/bin.ts) with the
// modules it imports (the up-to-date answer of cli-up-to-date.ts) into dist/bin.js itself, so that node
// loads one module instead of seventeen before it can answer. Left out of the bundle: dist/cli.js (the CLI,
// imported when the line is not answered there, with everything it loads) and every package.
//
// A bundled module keeps its own location: each `import.meta.url` in it is rewritten to the URL the module
// has in dist/ (the bundled schema folder, package.json and the generator's identity are found from it).
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const DIST = resolve(dirname(fileURLToPath(import.meta.url)), "..", "dist");
const ENTRY = join(DIST, "bin.js");

/** `import.meta.url` of a module bundled from `file`: its own URL in dist/, relative to the bundle's. */
function ownUrl(file) {
  return `new URL(${JSON.stringify(`./${relative(DIST, file).split(sep).join("/")}`)}, import.meta.url).href`;
}

const keepOwnLocation = {
  name: "a2a-codegen-bin",
  setup(esbuild) {
    // The CLI is imported by path at run time, only when the line is not answered here.
    esbuild.onResolve({ filter: /^\.\/cli\.js$/ }, (args) => (args.importer === ENTRY ? { path: args.path, external: true } : undefined));
    esbuild.onLoad({ filter: /\.js$/ }, (args) => {
      if (args.path === ENTRY) return undefined;
      const source = readFileSync(args.path, "utf8");
      return { contents: source.replaceAll("import.meta.url", ownUrl(args.path)), loader: "js" };
    });
  },
};

const result = await build({
  entryPoints: [ENTRY],
  outfile: ENTRY,
  allowOverwrite: true,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  plugins: [keepOwnLocation],
  metafile: true,
  logLevel: "warning",
});
const modules = Object.keys(result.metafile.inputs).length;
console.log(`bundled dist/bin.js: ${modules} modules`);
