/**
 * Which runtime files an output uses. The runtime is copied verbatim, but an output takes only the files
 * its chosen frameworks and features reach: a node:http-only server has no use for the web adapter
 * (runtime/adapters/web.ts, Hono's), a version without an HTTP+JSON binding none for its client transport.
 */

/** The relative modules a file imports or re-exports (`from "./x.js"`, `import("../y.js")`), as written. */
function relativeImports(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)) out.push(m[1] as string);
  return out;
}

/** `a/b/../c.js` from `dir` → the output path of the TypeScript file (`a/c.ts`). */
function resolveModule(dir: string, specifier: string): string {
  const parts = dir === "" ? [] : dir.split("/");
  for (const segment of specifier.split("/")) {
    if (segment === "..") parts.pop();
    else if (segment !== ".") parts.push(segment);
  }
  return parts.join("/").replace(/\.js$/, ".ts");
}

/**
 * The files of `candidates` (runtime files copied by default) that no other file of the output reaches
 * through its imports, directly or through other runtime files: the ones to leave out. Every file outside
 * `candidates` (models, client, server adapters, chosen optional runtime files, store engines, gRPC, compat)
 * is a root.
 */
export function unusedRuntimeFiles(files: Readonly<Record<string, string>>, candidates: ReadonlySet<string>): string[] {
  const reached = new Set<string>();
  const queue = Object.keys(files).filter((path) => !candidates.has(path));
  while (queue.length > 0) {
    const path = queue.pop() as string;
    const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "";
    for (const specifier of relativeImports(files[path] ?? "")) {
      const target = resolveModule(dir, specifier);
      if (candidates.has(target) && !reached.has(target)) {
        reached.add(target);
        queue.push(target);
      }
    }
  }
  return [...candidates].filter((path) => !reached.has(path)).sort();
}
