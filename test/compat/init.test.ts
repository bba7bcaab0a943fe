import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CodegenError } from "../../src/errors.js";
import { init } from "../../src/scaffold/init.js";
import { ROOT, tempDir } from "../helpers.js";

/**
 * `init` scaffolds a 1.0.1 agent that serves 0.3 clients too (issue 10): `--compat 0.3.0` is on by default
 * for 1.0.1 (`--no-compat`, `compat: false`, turns it off; versions without a mapping have none), and the
 * project's own contract tests call the agent with the generated 0.3.0 client beside the 1.0.1 one. The
 * project is type-checked and its tests run on the repository's installed packages (the full install of a
 * scaffold from the packed tarball is test/scaffold.test.ts).
 */
const codegenSpec = `file:${ROOT}`;
type Json = Record<string, unknown>;

function run(command: string, args: string[], cwd: string) {
  const r = spawnSync(command, args, { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" } });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

describe("init --compat", () => {
  let dir: string;
  beforeAll(async () => {
    dir = join(tempDir("compat-init-"), "agent");
    const result = await init({ dir, codegenSpec, framework: "node", transports: ["jsonrpc"] });
    expect(result.compat).toBe("0.3.0");
    symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  }, 120_000);

  it("is on by default for 1.0.1: the config asks for it, generated/ has the 0.3.0 files, the README says how 0.3 clients call", () => {
    const config = JSON.parse(readFileSync(join(dir, "a2a-codegen.config.json"), "utf8")) as Json;
    expect(config).toMatchObject({ spec: "1.0.1", compat: "0.3.0" });
    for (const file of ["client.ts", "mapping.ts", "validators.ts"]) expect(existsSync(join(dir, "generated", "compat", "a2a-0.3.0", file)), file).toBe(true);
    expect(readFileSync(join(dir, "generated", "server", "core.ts"), "utf8")).toContain("serveCompat(");
    const readme = readFileSync(join(dir, "README.md"), "utf8");
    expect(readme).toContain("## A2A 0.3 clients too");
    expect(readme).toContain('"method":"message/send"');
  });

  it("the project type-checks, and its contract tests pass with a 0.3 client and a 1.0 client", () => {
    const typecheck = run(join(ROOT, "node_modules", ".bin", "tsc"), ["-p", ".", "--noEmit"], dir);
    expect(typecheck.out).toBe("");
    expect(typecheck.code).toBe(0);
    const tests = run(join(ROOT, "node_modules", ".bin", "vitest"), ["run", "--dir", "test", "--reporter", "verbose"], dir);
    expect(tests.code, tests.out).toBe(0);
    expect(tests.out).toContain("agent, called by an A2A 0.3 client");
    expect(tests.out).toContain("a task the 0.3 client starts, the 1.0 client finishes");
    expect(tests.out).toMatch(/Tests\s+8 passed/);
  }, 180_000);

  it("--no-compat (compat: false) serves 1.0.1 only; a version without a mapping has none; an unknown pair is a usage error", async () => {
    const plain = join(tempDir("compat-init-"), "plain");
    expect((await init({ dir: plain, codegenSpec, framework: "node", transports: ["jsonrpc"], compat: false })).compat).toBeUndefined();
    expect(JSON.parse(readFileSync(join(plain, "a2a-codegen.config.json"), "utf8"))).not.toHaveProperty("compat");
    expect(existsSync(join(plain, "generated", "compat"))).toBe(false);
    expect(readFileSync(join(plain, "test", "agent.test.ts"), "utf8")).not.toContain("0.3");

    const old = join(tempDir("compat-init-"), "old");
    expect((await init({ dir: old, codegenSpec, framework: "node", spec: "0.3.0" })).compat).toBeUndefined();

    const bad = init({ dir: join(tempDir("compat-init-"), "bad"), codegenSpec, spec: "0.3.0", compat: "0.2.5" });
    await expect(bad).rejects.toBeInstanceOf(CodegenError);
    await expect(bad).rejects.toThrow("no compat mapping from 0.3.0 to 0.2.5; supported: --spec 1.0.1 --compat 0.3.0");
  }, 120_000);

  it("the CLI: --no-compat turns it off", () => {
    const work = tempDir("compat-init-");
    const r = run(process.execPath, [join(ROOT, "dist", "cli.js"), "init", "a", "--no-compat", "--framework", "node", "--transports", "jsonrpc", "--codegen-spec", codegenSpec], work);
    expect(r.code, r.out).toBe(0);
    expect(r.out).not.toContain("serving A2A 0.3.0 clients too");
    expect(existsSync(join(work, "a", "generated", "compat"))).toBe(false);
    const on = run(process.execPath, [join(ROOT, "dist", "cli.js"), "init", "b", "--framework", "node", "--transports", "jsonrpc", "--codegen-spec", codegenSpec], work);
    expect(on.out).toContain("generated/ for A2A 1.0.1 (serving A2A 0.3.0 clients too)");
  }, 120_000);
});
