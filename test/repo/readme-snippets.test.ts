/**
 * The TypeScript of the README, the runtime guide (docs/runtime.md) and the executor guide (docs/agent.md) is correct for the default version
 * (issue 29 item 19): every ```ts block, and every file a shell block writes with `cat > X.ts <<'EOF'`,
 * type-checks under `strict` against the output the README's own command makes (`generate --card
 * agent-card.json`: generated/a2a-1.0.1/, card.ts included; with every binding, card signatures and the AI SDK
 * and LangGraph bridges, which the guides' examples use), as a user's project would hold it: the generated
 * files themselves type-check too.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultVersion } from "../../src/schema/load.js";
import { projectTempDir, ROOT } from "../support/project.js";

const DOCS = ["README.md", "docs/runtime.md", "docs/agent.md"];

/** The TypeScript of a page: its ts blocks, then the bodies of the .ts files its shell blocks write. */
function snippetsOf(doc: string): string[] {
  const text = readFileSync(join(ROOT, doc), "utf8");
  const blocks = [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  const heredocs = [...text.matchAll(/cat > \S+\.ts <<'EOF'\n([\s\S]*?)\nEOF\n/g)].map((m) => m[1] as string);
  return [...blocks, ...heredocs];
}
const snippets = () => DOCS.flatMap(snippetsOf);

/** A minimal agent card of the default version, as a user writes agent-card.json. */
const CARD = {
  name: "hello-agent",
  description: "Says hello.",
  supportedInterfaces: [{ url: "http://127.0.0.1:3000/", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
  version: "0.1.0",
  capabilities: { streaming: true },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "hello", name: "Hello", description: "Says hello.", tags: ["example"] }],
};

describe("the TypeScript of the README and docs/runtime.md", () => {
  it.each(DOCS)("%s has TypeScript to check", (doc) => {
    expect(snippetsOf(doc).length).toBeGreaterThanOrEqual(2);
  });

  it("is written against the default version's generated paths", () => {
    const imports = snippets().flatMap((s) => [...s.matchAll(/from "(\.\/generated\/[^"]+)"/g)].map((m) => m[1] as string));
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter((i) => !i.startsWith(`./generated/a2a-${defaultVersion()}/`))).toEqual([]);
  });

  it("type-checks under strict against the output of `generate --card agent-card.json`", () => {
    const dir = projectTempDir("readme-snippets-");
    writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
    writeFileSync(join(dir, "agent-card.json"), JSON.stringify(CARD, null, 2));
    const generate = spawnSync(process.execPath, [join(ROOT, "dist", "bin.cjs"), "generate", "--card", "agent-card.json", "--framework", "node", "--transports", "jsonrpc,rest,grpc", "--card-signatures", "--bridge", "ai-sdk", "--bridge", "langgraph", "--force"], { cwd: dir, encoding: "utf8" });
    expect(generate.status, generate.stderr).toBe(0);
    const files = snippets().map((s, i) => {
      const file = `snippet-${i + 1}.ts`;
      writeFileSync(join(dir, file), `${s}\nexport {};\n`);
      return file;
    });
    const tsconfig = {
      compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, skipLibCheck: true, types: ["node"] },
      include: [...files, "generated/**/*.ts"],
    };
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(tsconfig));
    const tsc = spawnSync(join(ROOT, "node_modules", ".bin", "tsc"), ["-p", join(dir, "tsconfig.json")], { encoding: "utf8" });
    expect(`${tsc.stdout}${tsc.stderr}`).toBe("");
    expect(tsc.status).toBe(0);
    rmSync(dir, { recursive: true, force: true }); // kept when a check fails, to look at
  }, 120_000);
});
