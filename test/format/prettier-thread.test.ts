import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PRETTIER_OPTIONS } from "../../src/format/format.js";
import { prettierFormat } from "../../src/format/prettier-thread.js";

const ROOT = join(import.meta.dirname, "..", "..");

/** A generated file made unformatted: indentation gone, blank lines doubled, quotes single. */
function unformatted(file: string): string {
  return readFileSync(join(ROOT, "generated", "a2a-0.3.0", file), "utf8")
    .split("\n")
    .map((line) => line.trimStart())
    .join("\n\n");
}

describe("prettier in a worker thread (format/prettier-thread.ts)", () => {
  it("formats byte for byte as prettier does in this thread", async () => {
    for (const file of ["client.ts", "protocol.ts", "server/core.ts"]) {
      const text = unformatted(file);
      const [thread, here] = await Promise.all([prettierFormat(text, PRETTIER_OPTIONS, "thread"), prettierFormat(text, PRETTIER_OPTIONS, "here")]);
      expect(thread).toBe(here);
      expect(thread).not.toBe(text);
      // The committed file is prettier's output: the thread leaves it as it is.
      const committed = readFileSync(join(ROOT, "generated", "a2a-0.3.0", file), "utf8");
      expect(await prettierFormat(committed, PRETTIER_OPTIONS, "thread")).toBe(committed);
    }
  });

  it("formats many files at once, each answer to its own file", async () => {
    const texts = Array.from({ length: 12 }, (_, i) => `export const  v${i} =   ${i};`);
    const answers = await Promise.all(texts.map((t) => prettierFormat(t, PRETTIER_OPTIONS, "thread")));
    expect(answers).toEqual(texts.map((_, i) => `export const v${i} = ${i};\n`));
  });

  it("rejects a file that does not parse with prettier's own message, as in this thread", async () => {
    const broken = "export function f( {\n  return 1;\n}\n";
    const fromThread = await prettierFormat(broken, PRETTIER_OPTIONS, "thread").then(
      () => "no error",
      (e: unknown) => (e instanceof Error ? e.message : String(e)),
    );
    const fromHere = await prettierFormat(broken, PRETTIER_OPTIONS, "here").then(
      () => "no error",
      (e: unknown) => (e instanceof Error ? e.message : String(e)),
    );
    expect(fromThread).not.toBe("no error");
    expect(fromThread).toBe(fromHere);
    // The thread is still usable after a file's error.
    expect(await prettierFormat("const  a=1", PRETTIER_OPTIONS, "thread")).toBe("const a = 1;\n");
  });
});
