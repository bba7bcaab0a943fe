// The package.json npm packs: without the scripts that only the checkout needs. `prepare` builds dist/ on
// `npm ci` in a checkout; in the packed package it would make npm 11 warn in every project that installs
// the tarball (and it has no sources to build). Run by `prepack` (strip) and `postpack` (restore):
//
//   node .ci/packed-manifest.mjs strip     # package.json saved as package.json.before-pack, then stripped
//   node .ci/packed-manifest.mjs restore   # package.json.before-pack put back
//
// A pack that died between the two leaves the saved copy: the next strip restores it first.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";

const CHECKOUT_ONLY = ["prepare", "prepack", "postpack"];
const manifest = "package.json";
const saved = "package.json.before-pack";

const command = process.argv[2];
if (command === "strip") {
  if (existsSync(saved)) renameSync(saved, manifest);
  const text = readFileSync(manifest, "utf8");
  const json = JSON.parse(text);
  for (const name of CHECKOUT_ONLY) delete json.scripts?.[name];
  writeFileSync(saved, text);
  writeFileSync(manifest, JSON.stringify(json, null, 2) + "\n");
} else if (command === "restore") {
  if (existsSync(saved)) renameSync(saved, manifest);
} else {
  console.error("usage: node .ci/packed-manifest.mjs strip|restore");
  process.exit(2);
}
