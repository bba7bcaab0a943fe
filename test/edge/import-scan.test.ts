/**
 * No file reachable from the web-standard server entry imports a `node:` module: the import graph of a
 * generated output is walked from server/web.ts (the fetch handler, the Workers Durable Object) and from
 * server/hono.ts (Hono's app, which runs on Workers, Deno and Bun), following static imports, re-exports,
 * dynamic imports and type imports alike; a `/// <reference types="node" />` counts too. The Durable Object
 * store (`--store durable-object`) joins that path on Workers: it leaves the output for nothing at all.
 */
import { posix } from "node:path";
import { describe, expect, it } from "vitest";
import { generate } from "../../src/generate.js";

/** Every module specifier a TypeScript file names (import/export … from, import(), import "…", reference types). */
function specifiers(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s+["']([^"']+)["']/gms)) found.push(m[1]!);
  for (const m of text.matchAll(/^\s*import\s+["']([^"']+)["']/gm)) found.push(m[1]!);
  for (const m of text.matchAll(/\bimport\(\s*["'`]([^"'`]+)["'`]/g)) found.push(m[1]!);
  for (const m of text.matchAll(/\/\/\/\s*<reference\s+types=["']([^"']+)["']/g)) found.push(m[1] === "node" ? "node:(types)" : m[1]!);
  return found;
}

/** The files reachable from `entry` and, for each, the specifiers it names that leave the output. */
function reach(files: Record<string, string>, ...entries: string[]): { seen: string[]; external: Map<string, string[]> } {
  const seen = new Set<string>();
  const external = new Map<string, string[]>();
  const queue = [...entries];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = files[file];
    if (text === undefined) throw new Error(`${file} is imported but not in the output`);
    for (const spec of specifiers(text)) {
      if (spec.startsWith(".")) queue.push(posix.normalize(posix.join(posix.dirname(file), spec)).replace(/\.js$/, ".ts"));
      else external.set(file, [...(external.get(file) ?? []), spec]);
    }
  }
  return { seen: [...seen], external };
}

describe("the web entry imports nothing of Node", async () => {
  const { files } = await generate({ spec: "1.0.1", frameworks: ["web", "hono", "node"], transports: ["jsonrpc", "rest"] });

  // An agent's entry imports its server core (server/core.ts) and the adapter.
  it.each(["server/web.ts", "server/hono.ts"])("server/core.ts with %s: no file they reach imports a node: module", (entry) => {
    const { seen, external } = reach(files, "server/core.ts", entry);
    // The walk reaches the core, the task runtime and the push sender (a real graph, not an empty one).
    expect(seen).toEqual(expect.arrayContaining(["server/core.ts", "runtime/http/server.ts", "runtime/tasks/task-runtime.ts", "runtime/tasks/push-sender.ts", "runtime/tasks/push-transport-node.ts"]));
    const nodeImports = [...external].flatMap(([file, specs]) => specs.filter((s) => s.startsWith("node:")).map((s) => `${file} → ${s}`));
    expect(nodeImports).toEqual([]);
    // Only the framework itself leaves the output (hono for server/hono.ts; nothing for server/web.ts).
    expect(new Set([...external.values()].flat())).toEqual(new Set(entry === "server/hono.ts" ? ["hono"] : []));
  });

  it("the scan sees a node: import where there is one (server/node.ts, server/hono-node.ts)", () => {
    for (const entry of ["server/node.ts", "server/hono-node.ts"]) {
      const nodeImports = [...reach(files, entry).external.values()].flat().filter((s) => s.startsWith("node:"));
      expect(nodeImports.length).toBeGreaterThan(0);
    }
  });

  it("the Durable Object store and the SQL it shares with SQLite import nothing outside the output (no better-sqlite3, no node:)", async () => {
    const output = await generate({ spec: "1.0.1", frameworks: ["web"], transports: ["jsonrpc"], stores: ["sqlite", "durable-object"] });
    const { seen, external } = reach(output.files, "server/core.ts", "server/web.ts", "runtime/stores/durable-object.ts");
    expect(seen).toEqual(expect.arrayContaining(["runtime/stores/durable-object.ts", "runtime/stores/sql-database.ts", "runtime/stores/sql-tasks.ts", "runtime/stores/sql-events.ts", "runtime/stores/sqlite-queues.ts"]));
    expect(seen).not.toContain("runtime/stores/sqlite-database.ts");
    expect([...external.values()].flat()).toEqual([]);
    // The file store beside it is where better-sqlite3 and node: are.
    expect([...reach(output.files, "runtime/stores/sqlite.ts").external.values()].flat()).toEqual(expect.arrayContaining(["better-sqlite3", "node:fs"]));
  });
});
