#!/usr/bin/env node
// Part of `npm run build`, after tsc: bundles the `a2a-codegen` command (src/bin.ts, compiled to dist/bin.js)
// with the modules it imports (the up-to-date answer of cli-up-to-date.ts) into one CommonJS file,
// dist/bin.cjs, and removes dist/bin.js: node loads one file before it can answer, and loads it as
// CommonJS, without starting its ES module loader (8 ms of an up-to-date run). Left out of the bundle:
// dist/cli.js (the CLI, an ES module imported when the line is not answered there, with everything it
// loads) and every package.
//
// A bundled module keeps its own location: each `import.meta.url` in it is rewritten to the URL the module
// has in dist/ (the bundled schema folder, package.json and the generator's identity are found from it).
import { readFileSync, rmSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const DIST = resolve(dirname(fileURLToPath(import.meta.url)), "..", "dist");
const ENTRY = join(DIST, "bin.js");
const OUT = join(DIST, "bin.cjs");

/** `import.meta.url` of a module bundled from `file`: the URL of its own file in dist/ (OWN_URL, from the bundle's folder). */
function ownUrl(file) {
  return `__a2aCodegenOwnUrl(${relative(DIST, file).split(sep).map((part) => JSON.stringify(part)).join(", ")})`;
}
const OWN_URL = 'function __a2aCodegenOwnUrl(...parts) { return require("node:url").pathToFileURL(require("node:path").join(__dirname, ...parts)).href; }';

const keepOwnLocation = {
  name: "a2a-codegen-bin",
  setup(esbuild) {
    // The CLI is imported by path at run time, only when the line is not answered here.
    esbuild.onResolve({ filter: /^\.\/cli\.js$/ }, (args) => (args.importer === ENTRY ? { path: args.path, external: true } : undefined));
    esbuild.onLoad({ filter: /\.js$/ }, (args) => {
      const source = readFileSync(args.path, "utf8");
      return { contents: source.replaceAll("import.meta.url", ownUrl(args.path)), loader: "js" };
    });
  },
};

const result = await build({
  entryPoints: [ENTRY],
  outfile: OUT,
  bundle: true,
  platform: "node",
  format: "cjs",
  // node 20 imports an ES module from CommonJS: `import()` (of dist/cli.js, of a config file) stays as it is.
  target: "node20",
  packages: "external",
  plugins: [keepOwnLocation],
  footer: { js: OWN_URL },
  metafile: true,
  logLevel: "warning",
});
for (const file of ["bin.js", "bin.d.ts"]) rmSync(join(DIST, file), { force: true });
const modules = Object.keys(result.metafile.inputs).length;
console.log(`bundled dist/bin.cjs: ${modules} modules`);
