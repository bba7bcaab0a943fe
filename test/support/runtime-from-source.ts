/**
 * A Vite plugin for the test run: a committed generated file that imports its runtime
 * (`generated/a2a-<v>/runtime/<path>.js`, folders included: `runtime/http/server.js`) gets
 * `src/runtime/<path>.ts` instead, so that the server and
 * client suites exercise the runtime as it is in the source, not the copy made at the last
 * `npm run generate:all`. The copies themselves are guarded by the snapshot test alone
 * (test/product/snapshot.test.ts: the runtime files equal `src/runtime` byte for byte, after their header).
 * Only files under `src/runtime` are redirected; the models, validators, protocol table, client and
 * servers of a version stay the generated ones (their templates are checked by the snapshot as well).
 */
import { existsSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { Plugin } from "vitest/config";

export function runtimeFromSource(root: string): Plugin {
  const generated = join(root, "generated");
  const source = join(root, "src", "runtime");
  return {
    name: "a2a-codegen:runtime-from-source",
    enforce: "pre",
    resolveId(specifier, importer) {
      if (importer === undefined || !specifier.endsWith(".js")) return null;
      const absolute = isAbsolute(specifier) ? specifier : specifier.startsWith(".") ? resolve(dirname(importer.split("?")[0] as string), specifier) : undefined;
      if (absolute === undefined) return null;
      const inGenerated = relative(generated, absolute);
      if (inGenerated.startsWith("..") || isAbsolute(inGenerated)) return null;
      // a2a-<version>/runtime/<path>.js (compat outputs nest a version folder: compat/a2a-<v>/runtime/...)
      const parts = inGenerated.split(sep);
      const at = parts.indexOf("runtime");
      if (at < 1) return null;
      const candidate = join(source, ...parts.slice(at + 1)).replace(/\.js$/, ".ts");
      return existsSync(candidate) ? candidate : null;
    },
  };
}
