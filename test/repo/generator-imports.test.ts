import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/project.js";

/**
 * The generator half of `src/` (everything but `src/runtime/`, which has its own test) is one folder per
 * stage or concern, and no two folders import each other, directly or around a circle (issue 28 item 4):
 * a reader can take the folders in an order where each one only uses the ones before it. A top-level file
 * of `src/` (cli.ts, generate.ts, errors.ts, …) is a node of its own. Every import counts: type-only
 * imports, re-exports and `import("…")`, but not the text of generated code inside a string.
 */
const SRC = join(ROOT, "src");
const EXCLUDED = "runtime";

/** The module specifiers a TypeScript source imports from: `import … from`, `export … from`, `import "…"`, `import("…")`. */
function importSpecifiers(source: string): string[] {
  const found: string[] = [];
  const tokens: string[] = [];
  const last = (n: number) => tokens[tokens.length - n] ?? "";
  // Open template literals: the brace depth at which each `${` was entered.
  const templates: number[] = [];
  let depth = 0;
  let i = 0;
  const skipTemplateText = (): void => {
    // From inside a template literal's text to its closing backtick (popped) or a `${` (code again).
    while (i < source.length) {
      const c = source[i];
      if (c === "\\") i += 2;
      else if (c === "`") {
        i++;
        templates.pop();
        tokens.push("`string`");
        return;
      } else if (c === "$" && source[i + 1] === "{") {
        i += 2;
        depth++;
        return;
      } else i++;
    }
  };
  while (i < source.length) {
    const c = source[i] as string;
    const next = source[i + 1];
    if (/\s/.test(c)) i++;
    else if (c === "/" && next === "/") i = source.indexOf("\n", i) === -1 ? source.length : source.indexOf("\n", i);
    else if (c === "/" && next === "*") i = source.indexOf("*/", i + 2) === -1 ? source.length : source.indexOf("*/", i + 2) + 2;
    else if (c === '"' || c === "'") {
      let j = i + 1;
      let value = "";
      while (j < source.length && source[j] !== c && source[j] !== "\n") {
        if (source[j] === "\\") j++;
        value += source[j];
        j++;
      }
      i = j + 1;
      if (last(1) === "from" || last(1) === "import" || (last(1) === "(" && last(2) === "import")) found.push(value);
      tokens.push("string");
    } else if (c === "`") {
      i++;
      templates.push(depth);
      skipTemplateText();
    } else if (c === "}" && templates.length > 0 && templates[templates.length - 1] === depth - 1) {
      // The end of a `${…}`: back in the template literal's text.
      depth--;
      i++;
      skipTemplateText();
    } else if (c === "/" && (tokens.length === 0 || /^[(,=:[!&|?{};+\-*%<>~^]$|^(return|typeof|case|do|else|in|of|void|delete|throw|new|yield|await)$/.test(last(1)))) {
      // A regular expression literal: to its closing slash (outside a character class), on this line.
      let j = i + 1;
      let inClass = false;
      while (j < source.length && source[j] !== "\n") {
        if (source[j] === "\\") j++;
        else if (source[j] === "[") inClass = true;
        else if (source[j] === "]") inClass = false;
        else if (source[j] === "/" && !inClass) break;
        j++;
      }
      i = j + 1;
      tokens.push("regex");
    } else {
      const word = /^[A-Za-z_$][\w$]*|^\d[\w.]*/.exec(source.slice(i, i + 64))?.[0];
      if (word) {
        tokens.push(word);
        i += word.length;
      } else {
        if (c === "{") depth++;
        else if (c === "}") depth--;
        tokens.push(c);
        i++;
      }
    }
  }
  return found;
}

/** A file's node: its top-level folder (`card/`) or, for a file directly in src/, the file itself (`cli.ts`). */
function nodeOf(file: string): string {
  const rel = relative(SRC, file).split(/[\\/]/);
  return rel.length > 1 ? `${rel[0]}/` : (rel[0] as string);
}

function sourceFiles(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts") && f.split(/[\\/]/)[0] !== EXCLUDED)
    .sort()
    .map((f) => join(dir, f));
}

/** node → node it imports → the file-level imports that make the edge ("card/check.ts → ir/types.ts"). */
type Graph = Map<string, Map<string, string[]>>;

function generatorGraph(): { graph: Graph; unresolved: string[] } {
  const graph: Graph = new Map();
  const unresolved: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const from = nodeOf(file);
    const edges = graph.get(from) ?? new Map<string, string[]>();
    graph.set(from, edges);
    for (const spec of importSpecifiers(readFileSync(file, "utf8"))) {
      if (!spec.startsWith(".")) continue;
      const target = resolve(dirname(file), spec).replace(/\.js$/, ".ts");
      if (!existsSync(target)) {
        unresolved.push(`${relative(SRC, file)}: ${spec}`);
        continue;
      }
      if (relative(SRC, target).startsWith("..")) continue;
      const to = nodeOf(target);
      if (to === from) continue;
      edges.set(to, [...(edges.get(to) ?? []), `${relative(SRC, file)} → ${relative(SRC, target)}`]);
    }
  }
  return { graph, unresolved };
}

/** Every circle of the graph, one per strongly connected component of two nodes or more, as a path "a → b → a". */
function circles(graph: Graph): string[][] {
  const nodes = [...new Set([...graph.keys(), ...[...graph.values()].flatMap((e) => [...e.keys()])])].sort();
  const successors = (n: string) => [...(graph.get(n)?.keys() ?? [])].sort();
  // Tarjan's strongly connected components.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v) as number);
    stack.push(v);
    onStack.add(v);
    for (const w of successors(v)) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const n of nodes) if (!index.has(n)) visit(n);
  // In each component, the shortest circle through its first node (breadth first, within the component).
  return components.map((component) => {
    const inside = new Set(component);
    const start = component[0] as string;
    const parent = new Map<string, string>();
    const queue = [start];
    while (queue.length > 0) {
      const v = queue.shift() as string;
      for (const w of successors(v).filter((s) => inside.has(s))) {
        if (w === start) {
          const path = [v];
          while (path[0] !== start) path.unshift(parent.get(path[0] as string) as string);
          return [...path, start];
        }
        if (!parent.has(w)) {
          parent.set(w, v);
          queue.push(w);
        }
      }
    }
    return component;
  });
}

function describeCircle(graph: Graph, circle: string[]): string {
  const steps = circle.slice(0, -1).map((from, k) => {
    const to = circle[k + 1] as string;
    return (graph.get(from)?.get(to) ?? []).map((edge) => `    ${edge}`).join("\n");
  });
  return `  ${circle.join(" → ")}\n${steps.join("\n")}`;
}

describe("the generator's folders import each other in one direction only", () => {
  it("no circle between the folders (and top-level files) of src/, runtime aside", () => {
    const { graph, unresolved } = generatorGraph();
    expect(unresolved, "imports that name no file of src/").toEqual([]);
    // The graph is the real one: the stages it must see are there.
    expect([...(graph.get("emit/")?.keys() ?? [])]).toContain("ir/");
    expect([...(graph.get("load/")?.keys() ?? [])]).toEqual(expect.arrayContaining(["ir/", "schema/", "proto/"]));
    const found = circles(graph);
    expect(found.map((c) => c.join(" → ")), `folders that import each other, with the imports that close each circle:\n${found.map((c) => describeCircle(graph, c)).join("\n")}`).toEqual([]);
  });

  it("the import scanner reads imports of code, not import lines in the text of generated code", () => {
    const source = [
      'import { a } from "./a.js";',
      'import type { B } from "../b/b.js";',
      'export { c } from "./c.js";',
      'import "./side-effect.js";',
      "const text = `",
      'import { notMe } from "./generated.js";',
      "${`nested ${'x'}`}",
      "`;",
      "const re = /[\"'`]/g; // a regular expression with quotes and a backtick",
      'const lazy = await import("./lazy.js");',
      '/* import { commented } from "./no.js"; */',
      'const o = { from: "./not-an-import.js" };',
    ].join("\n");
    expect(importSpecifiers(source)).toEqual(["./a.js", "../b/b.js", "./c.js", "./side-effect.js", "./lazy.js"]);
  });

  it("a circle is found and named with the imports that close it", () => {
    // The circle issue 28 found (before the card's emitter moved to card/).
    const graph: Graph = new Map([
      ["card/", new Map([["diff/", ["card/convert.ts → diff/diff.ts"]]])],
      ["diff/", new Map([["emit/", ["diff/bindings.ts → emit/grpc.ts"]]])],
      ["emit/", new Map([["card/", ["emit/card.ts → card/check.ts"]], ["ir/", ["emit/models.ts → ir/types.ts"]]])],
      ["ir/", new Map()],
    ]);
    const found = circles(graph);
    expect(found).toEqual([["card/", "diff/", "emit/", "card/"]]);
    expect(describeCircle(graph, found[0] as string[])).toContain("emit/card.ts → card/check.ts");
  });
});
