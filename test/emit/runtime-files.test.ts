/**
 * An output takes only the runtime files its frameworks and features use (issue 13; src/emit/runtime-files.ts):
 * the runtime is copied verbatim, but a file no other file of the output reaches is left out.
 */
import { describe, expect, it } from "vitest";
import { unusedRuntimeFiles } from "../../src/emit/runtime-files.js";
import { generate } from "../../src/generate.js";

/** Every relative import of every TypeScript file of an output that names no file of it. */
function unresolved(files: Record<string, string>): string[] {
  const out: string[] = [];
  for (const [path, text] of Object.entries(files)) {
    if (!path.endsWith(".ts")) continue;
    const dir = path.split("/").slice(0, -1);
    for (const m of text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*"(\.{1,2}\/[^"]+)\.js"/g)) {
      const parts = [...dir];
      for (const segment of (m[1] as string).split("/")) {
        if (segment === "..") parts.pop();
        else if (segment !== ".") parts.push(segment);
      }
      const target = `${parts.join("/")}.ts`;
      if (files[target] === undefined) out.push(`${path} → ${target}`);
    }
  }
  return out;
}

describe("unusedRuntimeFiles", () => {
  it("keeps what the other files reach, directly or through runtime files, and nothing else", () => {
    const files = {
      "client.ts": 'import { A } from "./runtime/a.js";\nexport type { T } from "./runtime/t.js";',
      "server/core.ts": 'const b = await import("../runtime/b.js");',
      "runtime/a.ts": 'import { C } from "./c.js";',
      "runtime/b.ts": "",
      "runtime/c.ts": "",
      "runtime/t.ts": "",
      "runtime/unused.ts": 'import { A } from "./a.js";',
      "runtime/chosen.ts": "",
    };
    const candidates = new Set(["runtime/a.ts", "runtime/b.ts", "runtime/c.ts", "runtime/t.ts", "runtime/unused.ts"]);
    // runtime/chosen.ts is no candidate (an optional file the options asked for): it stays whoever imports it.
    expect(unusedRuntimeFiles(files, candidates)).toEqual(["runtime/unused.ts"]);
  });
});

describe("generated outputs take the runtime files they use", () => {
  it("a node:http-only 1.0.1 server has no web adapter (runtime/adapters/web.ts, Hono's); with hono it has", async () => {
    const node = await generate({ spec: "1.0.1", frameworks: ["node"] });
    expect(Object.keys(node.files)).not.toContain("runtime/adapters/web.ts");
    expect(Object.keys(node.files)).toContain("runtime/adapters/node.ts");
    expect(unresolved(node.files)).toEqual([]);
    const hono = await generate({ spec: "1.0.1", frameworks: ["hono"] });
    expect(Object.keys(hono.files)).toContain("runtime/adapters/web.ts");
    expect(unresolved(hono.files)).toEqual([]);
  });

  it("a version without an HTTP+JSON binding (0.2.5) has no REST client transport; 0.3.0 has, and every import resolves", async () => {
    const v025 = await generate({ spec: "0.2.5", frameworks: ["node"] });
    expect(Object.keys(v025.files)).not.toContain("runtime/client/rest.ts");
    expect(unresolved(v025.files)).toEqual([]);
    const v030 = await generate({ spec: "0.3.0", frameworks: ["node"], cardSignatures: true });
    expect(Object.keys(v030.files)).toContain("runtime/client/rest.ts");
    // A chosen optional file stays though no generated file imports it: the user's code does.
    expect(Object.keys(v030.files)).toContain("runtime/card/signature.ts");
    expect(unresolved(v030.files)).toEqual([]);
  });
});
