/**
 * The import graph of src/runtime (issue 28): no circle between files, and no import against the
 * declared layering of its folders. The ground floor (the files directly in src/runtime: json.ts,
 * call.ts, the error and validation types, the protocol profile) imports nothing above it; each folder
 * imports only the folders declared below it, so that no two folders import each other.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, posix } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/project.js";

const RUNTIME = join(ROOT, "src", "runtime");

/** What each folder of src/runtime may import besides itself ("" is the ground floor). */
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  "": [],
  wire: [""],
  card: [""],
  client: ["", "wire"],
  stores: ["", "wire"],
  tasks: ["", "wire", "stores"],
  service: ["", "wire", "stores", "tasks"],
  http: ["", "wire", "stores", "tasks", "service", "card"],
  grpc: ["", "wire", "client"],
  compat: ["", "wire", "stores", "tasks", "service", "http", "card"],
  adapters: ["", "http"],
  bridges: ["", "tasks"],
  testing: ["", "wire", "client", "http", "adapters"],
  telemetry: ["", "stores", "client"],
};

function runtimeFiles(dir = ""): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(RUNTIME, dir)).sort()) {
    const path = dir === "" ? name : `${dir}/${name}`;
    if (statSync(join(RUNTIME, path)).isDirectory()) out.push(...runtimeFiles(path));
    else if (name.endsWith(".ts")) out.push(path);
  }
  return out;
}

/** The runtime files a file imports or re-exports (relative specifiers, `import("…")` types included). */
function importsOf(path: string): string[] {
  const text = readFileSync(join(RUNTIME, path), "utf8");
  const out: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)) {
    out.push(posix.normalize(posix.join(posix.dirname(path), m[1] as string)).replace(/\.js$/, ".ts"));
  }
  return out;
}

const folderOf = (path: string): string => (path.includes("/") ? path.slice(0, path.indexOf("/")) : "");

/** The circles of a graph (each as the files around it), by depth-first search. */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, "open");
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === "open") found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return found;
}

describe("the runtime's import graph", () => {
  const files = runtimeFiles();
  const graph = new Map(files.map((f) => [f, importsOf(f)]));

  it("every import names a runtime file that exists", () => {
    const known = new Set(files);
    const missing = [...graph].flatMap(([from, targets]) => targets.filter((t) => !known.has(t)).map((t) => `${from} → ${t}`));
    expect(missing).toEqual([]);
  });

  it("every folder has a declared place in the layering", () => {
    expect([...new Set(files.map(folderOf))].filter((f) => MAY_IMPORT[f] === undefined)).toEqual([]);
  });

  it("has no import circle", () => {
    expect(circles(graph).map((c) => c.join(" → "))).toEqual([]);
  });

  it("has no import against the layering (no upward import, no two folders importing each other)", () => {
    const against = [...graph].flatMap(([from, targets]) =>
      targets
        .filter((t) => folderOf(t) !== folderOf(from) && !(MAY_IMPORT[folderOf(from)] ?? []).includes(folderOf(t)))
        .map((t) => `${from} → ${t}`),
    );
    expect(against).toEqual([]);
  });

  it("the layering itself has no circle between folders", () => {
    const folders = new Map(Object.entries(MAY_IMPORT).map(([f, below]) => [f, below.filter((b) => b !== f)]));
    expect(circles(folders)).toEqual([]);
  });

  it("finds a circle and an upward import when there is one (the checks can fail)", () => {
    expect(circles(new Map([["a.ts", ["b.ts"]], ["b.ts", ["a.ts"]]])).length).toBe(1);
    expect(MAY_IMPORT["stores"]).not.toContain("tasks");
  });
});
