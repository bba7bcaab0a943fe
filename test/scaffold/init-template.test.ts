/**
 * `a2a-codegen init --template ai-sdk` and `--template langgraph`: an LLM agent on the AI SDK or the
 * LangGraph bridge. The project generates the bridge (config `bridges`), depends on its packages, type-checks
 * under its own strict settings, and its own tests pass offline (a scripted model: of `ai/test`, or a
 * @langchain/core chat model; no key, no network); started without a key it exits with one line naming the
 * variable. The default template is still the echo agent, and an unknown one is refused. The project runs
 * on this repository's node_modules (linked), which has `ai` 7, @langchain/langgraph 1 and @langchain/core 1.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { init } from "../../src/scaffold/init.js";
import { projectTempDir, ROOT } from "../support/project.js";

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

async function scaffold(options: { template?: string; framework?: "node" | "fastify" } = {}): Promise<string> {
  const dir = join(projectTempDir("init-template-"), "agent");
  made.push(dir);
  await init({ dir, spec: "1.0.1", framework: options.framework ?? "node", codegenSpec: "file:../a2a-codegen.tgz", ...(options.template ? { template: options.template } : {}) });
  return dir;
}

const bin = (name: string) => join(ROOT, "node_modules", ".bin", name);

describe("init --template", () => {
  it("ai-sdk: the bridge generated, `ai` a dependency; the project type-checks, its tests pass offline, and a start without a key names the variable", async () => {
    const dir = await scaffold({ template: "ai-sdk" });
    expect(JSON.parse(readFileSync(join(dir, "a2a-codegen.config.json"), "utf8"))).toMatchObject({ bridges: ["ai-sdk"] });
    expect((JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { dependencies: Record<string, string> }).dependencies).toHaveProperty("ai");
    expect(existsSync(join(dir, "generated", "runtime", "bridges", "ai-sdk.ts"))).toBe(true);
    expect(readFileSync(join(dir, "README.md"), "utf8")).toContain("**Switching provider.**");
    symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
    const env = { ...process.env, AI_GATEWAY_API_KEY: "", VERCEL_OIDC_TOKEN: "", PORT: "0" };
    const tsc = spawnSync(bin("tsc"), ["-p", "."], { cwd: dir, encoding: "utf8", env });
    expect(`${tsc.stdout}${tsc.stderr}`).toBe("");
    const test = spawnSync(bin("vitest"), ["run", "--root", dir], { cwd: dir, encoding: "utf8", env });
    expect(test.status, `${test.stdout}${test.stderr}`).toBe(0);
    expect(test.stdout.replace(/\u001b\[[0-9;]*m/g, "")).toMatch(/Tests +4 passed/);
    const start = spawnSync(process.execPath, ["dist/src/server.js"], { cwd: dir, encoding: "utf8", env, timeout: 30_000 });
    expect(start.status).toBe(1);
    expect(start.stderr.trim()).toMatch(/^agent: AI_GATEWAY_API_KEY is not set: /);
  }, 180_000);

  it("langgraph: the bridge generated, @langchain/* dependencies; the project type-checks, its tests pass offline, and a start without a key names the variable", async () => {
    const dir = await scaffold({ template: "langgraph" });
    expect(JSON.parse(readFileSync(join(dir, "a2a-codegen.config.json"), "utf8"))).toMatchObject({ bridges: ["langgraph"] });
    const dependencies = (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { dependencies: Record<string, string> }).dependencies;
    expect(Object.keys(dependencies)).toEqual(expect.arrayContaining(["@langchain/core", "@langchain/langgraph", "@langchain/openai"]));
    expect(dependencies).not.toHaveProperty("ai");
    expect(existsSync(join(dir, "generated", "runtime", "bridges", "langgraph.ts"))).toBe(true);
    expect(existsSync(join(dir, "generated", "runtime", "bridges", "ai-sdk.ts"))).toBe(false);
    expect(readFileSync(join(dir, "README.md"), "utf8")).toContain("**Switching provider.**");
    symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
    const env = { ...process.env, OPENAI_API_KEY: "", LANGGRAPH_MODEL: "", PORT: "0" };
    const tsc = spawnSync(bin("tsc"), ["-p", "."], { cwd: dir, encoding: "utf8", env });
    expect(`${tsc.stdout}${tsc.stderr}`).toBe("");
    const test = spawnSync(bin("vitest"), ["run", "--root", dir], { cwd: dir, encoding: "utf8", env });
    expect(test.status, `${test.stdout}${test.stderr}`).toBe(0);
    expect(test.stdout.replace(/\u001b\[[0-9;]*m/g, "")).toMatch(/Tests +4 passed/);
    const start = spawnSync(process.execPath, ["dist/src/server.js"], { cwd: dir, encoding: "utf8", env, timeout: 30_000 });
    expect(start.status).toBe(1);
    expect(start.stderr.trim()).toMatch(/^agent: OPENAI_API_KEY is not set: /);
  }, 180_000);

  it("echo (the default): the echo agent, no bridge, no `ai`", async () => {
    const dir = await scaffold();
    expect(readFileSync(join(dir, "src", "agent.ts"), "utf8")).toContain("An echo agent");
    expect(existsSync(join(dir, "src", "model.ts"))).toBe(false);
    expect(existsSync(join(dir, "generated", "runtime", "bridges"))).toBe(false);
    expect(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).dependencies ?? {}).not.toHaveProperty("ai");
  }, 60_000);

  it("refuses an unknown template, naming the templates", async () => {
    await expect(scaffold({ template: "langchain" })).rejects.toThrow('unknown template "langchain"; templates: echo, ai-sdk, langgraph');
  });
});
