/**
 * The client-only output (`generate --client-only`, issue 35 item 3) as the client-only tests use it:
 * generated once per version and options into a folder under the system's temp folder, outside the
 * repository (no node_modules above it: no @types/node to find), and its import graph read from the files.
 */
import { mkdtempSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, posix } from "node:path";
import { generate, type GenerateOptions } from "../../src/generate.js";

export interface ClientOnlyOutput {
  readonly dir: string;
  /** Every file by path (the manifest included). */
  readonly files: Readonly<Record<string, string>>;
}

const outputs = new Map<string, Promise<ClientOnlyOutput>>();

/** The client-only output of a version (with more options), written once per test process. */
export function clientOnlyOutput(spec: string, options: Omit<GenerateOptions, "spec" | "clientOnly" | "out"> = {}): Promise<ClientOnlyOutput> {
  const key = JSON.stringify([spec, options]);
  let output = outputs.get(key);
  if (output === undefined) {
    output = (async () => {
      const dir = join(mkdtempSync(join(tmpdir(), "a2a-client-only-")), "a2a");
      const result = await generate({ ...options, spec, clientOnly: true, out: dir });
      for (const [path, text] of Object.entries(result.files)) {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), text);
      }
      return { dir, files: result.files };
    })();
    outputs.set(key, output);
  }
  return output;
}

/** Every module specifier a TypeScript file imports or re-exports, statically or with `import()`. */
export function importSpecifiers(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|[\s;])(?:import|export)\s[^;]*?\sfrom\s*["']([^"']+)["']/gm)) out.push(m[1] as string);
  for (const m of text.matchAll(/(?:^|[\s;])import\s*["']([^"']+)["']/gm)) out.push(m[1] as string);
  for (const m of text.matchAll(/\bimport\s*\(\s*["']([^"']+)["']\s*\)/g)) out.push(m[1] as string);
  return out;
}

/** The output path a relative specifier of `from` names (`./x.js` → `x.ts`); undefined for a package. */
export function resolveRelative(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith("./") && !specifier.startsWith("../")) return undefined;
  return posix.normalize(posix.join(posix.dirname(from), specifier)).replace(/\.js$/, ".ts");
}

/** The files reachable from `roots` through relative imports, and every non-relative specifier met on the way, by file. */
export function reachable(files: Readonly<Record<string, string>>, roots: readonly string[]): { files: Set<string>; packages: Map<string, string[]>; unresolved: string[] } {
  const seen = new Set<string>();
  const packages = new Map<string, string[]>();
  const unresolved: string[] = [];
  const queue = [...roots];
  while (queue.length > 0) {
    const path = queue.pop() as string;
    if (seen.has(path)) continue;
    seen.add(path);
    for (const specifier of importSpecifiers(files[path] ?? "")) {
      const target = resolveRelative(path, specifier);
      if (target === undefined) packages.set(path, [...(packages.get(path) ?? []), specifier]);
      else if (files[target] === undefined) unresolved.push(`${path} → ${specifier}`);
      else queue.push(target);
    }
  }
  return { files: seen, packages, unresolved };
}
