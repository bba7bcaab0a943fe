import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { projectTempDir, ROOT } from "../support/project.js";

const CLI = join(ROOT, "dist", "bin.cjs");

function run(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A TypeScript project with the repository's packages, its generated code in src/a2a. */
function project(files: Record<string, string>): string {
  const dir = projectTempDir();
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, skipLibCheck: true, noEmit: true, types: ["node"] }, include: ["src"] }));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "user-project", type: "module" }));
  mkdirSync(join(dir, "src"));
  for (const [path, text] of Object.entries(files)) writeFileSync(join(dir, path), text);
  return dir;
}

const MINE = `import type { Message } from "./a2a/models.js";\nexport const hello: Message = { kind: "message", messageId: "1", role: "user", parts: [{ kind: "text", text: "hi" }] };\n`;

describe("a spec change never drops callers silently (issue 33)", () => {
  it("generate, moving from 0.3.0 to 1.0.1 without compat, names the line to add and points at migrate; type errors get a \"use X instead\" hint", () => {
    const dir = project({ "src/mine.ts": MINE });
    expect(run(["generate", "--spec", "0.3.0", "--out", "src/a2a"], dir).code).toBe(0);
    const moved = run(["generate", "--spec", "1.0.1", "--out", "src/a2a", "--allow-type-errors"], dir);
    expect(moved.code).toBe(0);
    expect(moved.stderr).toContain(`Callers speaking A2A 0.3.0 cannot call this agent after the move to 1.0.1 (message/send is now SendMessage)`);
    expect(moved.stderr).toContain(`"compat": "0.3.0"`);
    expect(moved.stderr).toContain("a2a-codegen migrate --from 0.3.0 --to 1.0.1");
    // The type errors carry the mapping's hints, and the line that points at migrate.
    expect(moved.stdout).toContain(`→ "user": use "ROLE_USER" instead`);
    expect(moved.stdout).toMatch(/`a2a-codegen migrate --from 0\.3\.0 --to 1\.0\.1` rewrites the protocol shapes of your code/);

    // With compat, the old callers are served: no notice.
    expect(run(["generate", "--spec", "0.3.0", "--out", "src/a2a"], dir).code).toBe(0);
    const served = run(["generate", "--spec", "1.0.1", "--compat", "0.3.0", "--out", "src/a2a", "--allow-type-errors"], dir);
    expect(served.stderr).not.toContain("Callers speaking A2A 0.3.0");
  }, 180_000);

  it("card --from 0.3.0 --to 1.0.1 says the same", () => {
    const dir = project({});
    const card = { protocolVersion: "0.3.0", url: "http://127.0.0.1:3000/", preferredTransport: "JSONRPC", name: "Echo", description: "echoes", version: "1.0.0", capabilities: {}, defaultInputModes: ["text/plain"], defaultOutputModes: ["text/plain"], skills: [] };
    writeFileSync(join(dir, "agent-card.json"), JSON.stringify(card));
    const r = run(["card", "--from", "0.3.0", "--to", "1.0.1", "agent-card.json"], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`"compat": "0.3.0"`);
    expect(r.stdout).toContain("a2a-codegen migrate --from 0.3.0 --to 1.0.1");
  });
});

describe("a2a-codegen migrate", () => {
  it("--dry-run prints a unified diff and what it cannot change (file:line, old → new, hint), and writes nothing", () => {
    const extra = `import type { TaskStatusUpdateEvent } from "./a2a/models.js";\nexport const e: TaskStatusUpdateEvent = {\n  kind: "status-update",\n  taskId: "t",\n  contextId: "c",\n  status: { state: "completed" },\n  final: true,\n};\n`;
    const dir = project({ "src/mine.ts": MINE, "src/event.ts": extra });
    expect(run(["generate", "--spec", "0.3.0", "--out", "src/a2a"], dir).code).toBe(0);
    const r = run(["migrate", "--from", "0.3.0", "--to", "1.0.1", "--dry-run"], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      `--- a/src/mine.ts\n+++ b/src/mine.ts\n@@ -1,2 +1,2 @@\n import type { Message } from "./a2a/models.js";\n-export const hello: Message = { kind: "message", messageId: "1", role: "user", parts: [{ kind: "text", text: "hi" }] };\n+export const hello: Message = { messageId: "1", role: "ROLE_USER", parts: [{ text: "hi" }] };\n`,
    );
    expect(r.stdout).toContain(`-  status: { state: "completed" },\n+  status: { state: "TASK_STATE_COMPLETED" },`);
    expect(r.stdout).toContain("2 files would change (A2A 0.3.0 → 1.0.1, rules from the version mapping); nothing written");
    expect(r.stdout).toContain("1 place to change by hand:\n  src/event.ts:7: TaskStatusUpdateEvent.final → (no TaskStatusUpdateEvent field): 1.0.1 has no such field; recomputed on the way back");
    expect(readFileSync(join(dir, "src/mine.ts"), "utf8")).toBe(MINE);
  }, 120_000);

  it("writes in place only inside the given paths", () => {
    const dir = project({ "src/mine.ts": MINE });
    mkdirSync(join(dir, "src/other"));
    writeFileSync(join(dir, "src/other/theirs.ts"), MINE.replace("./a2a/", "../a2a/"));
    expect(run(["generate", "--spec", "0.3.0", "--out", "src/a2a"], dir).code).toBe(0);
    const r = run(["migrate", "--from", "0.3.0", "--to", "1.0.1", "src/mine.ts"], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("src/mine.ts: rewritten");
    expect(readFileSync(join(dir, "src/mine.ts"), "utf8")).toContain(`role: "ROLE_USER"`);
    expect(readFileSync(join(dir, "src/other/theirs.ts"), "utf8")).toBe(MINE.replace("./a2a/", "../a2a/"));
  }, 120_000);

  it("refuses a pair no mapping covers, naming what is missing", () => {
    const dir = project({ "src/mine.ts": MINE });
    const r = run(["migrate", "--from", "0.1.0", "--to", "1.0.1", "--dry-run"], dir);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/no mapping from 0\.1\.0 to 1\.0\.1: no compat table pairs them \(src\/compat\/tables\.ts\), and their IR diff has changes only a table can settle: .*Part tells its members apart by presence instead of tag "type"/);
  });
});
