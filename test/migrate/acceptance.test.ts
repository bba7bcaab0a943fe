import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { convertCardFile } from "../../src/card/convert-file.js";
import { loadConfig } from "../../src/config.js";
import { generateAndWrite } from "../../src/generate.js";
import { migrate } from "../../src/migrate/command.js";
import { init } from "../../src/scaffold/init.js";
import { ROOT, tempDir } from "../support/project.js";

/**
 * The acceptance of issue 33, held against real code: an edited scaffold (what `init` writes, plus a
 * realistic agent and client, and the user's own edits to the scaffold's server and test) migrates to the
 * next version with no type error, and its tests still pass.
 */

const FIXTURES = join(import.meta.dirname, "fixtures");
const TSC = join(ROOT, "node_modules", ".bin", "tsc");
const VITEST = join(ROOT, "node_modules", ".bin", "vitest");

/** `init` for a version, the fixture's files over it, and the repository's packages (fastify, grpc-js, vitest…). */
async function editedProject(spec: string, fixture: string): Promise<string> {
  const dir = join(tempDir(), "agent");
  await init({ dir, spec, codegenSpec: "file:../a2a-codegen", cwd: ROOT });
  cpSync(join(FIXTURES, fixture), dir, { recursive: true });
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  return dir;
}

/** A user's edit to a file `init` wrote: `text` inserted after `anchor` (which must be there). */
function edit(dir: string, file: string, anchor: string, text: string): void {
  const path = join(dir, file);
  const before = readFileSync(path, "utf8");
  expect(before, `${file} has the anchor`).toContain(anchor);
  writeFileSync(path, before.replace(anchor, anchor + text));
}

/** The type errors `tsc` (the project's TypeScript 7) reports for the project. */
function typeErrors(dir: string): string[] {
  const r = spawnSync(TSC, ["--noEmit", "-p", dir], { encoding: "utf8" });
  return r.stdout.split("\n").filter((line) => /error TS\d+/.test(line));
}

/** Every file of the project but generated/ and node_modules, with its text. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (name === "node_modules" || name === "generated") continue;
      if (statSync(path).isDirectory()) walk(path);
      else files[relative(dir, path)] = readFileSync(path, "utf8");
    }
  };
  walk(dir);
  return files;
}

describe("acceptance: an edited 0.3.0 agent migrates to 1.0.1", () => {
  it("with 0 type errors, the user's edits kept, its tests passing, and a second run changing nothing", async () => {
    const dir = await editedProject("0.3.0", "agent-0.3.0");
    // The user's edits to the scaffold's own files: a logger and a health route; a test of the streamed report.
    edit(dir, "src/server.ts", "const app = Fastify({ forceCloseConnections: true", `, logger: process.env["LOG"] === "1"`);
    edit(dir, "src/server.ts", "await app.register(a2aFastifyPlugin(server));\n", `  app.get("/healthz", async () => ({ ok: true }));\n`);
    edit(
      dir,
      "test/agent.test.ts",
      `    expect(chunks.join("")).toBe("one two three ");\n  });\n`,
      `
  it("streams a report: a data part and a file part", async () => {
    const kinds: string[] = [];
    for await (const event of client.sendStreamingMessage(A2AClient.sendParams("stream a b"))) {
      if (event.kind === "artifact-update" && event.artifact.artifactId === "report") {
        for (const part of event.artifact.parts) {
          if (part.kind === "data") kinds.push("data");
          if (part.kind === "file") kinds.push(\`file \${part.file.name}\`);
        }
      }
    }
    expect(kinds).toEqual(["data", "file report.txt"]);
  });

  it("answers its health check", async () => {
    expect(await (await fetch(\`\${running.url}/healthz\`)).json()).toEqual({ ok: true });
  });
`,
    );
    expect(typeErrors(dir)).toEqual([]);

    // The manual path, on a copy: the card converted, `spec` and `compat` set, generated/ regenerated, and
    // nothing else: the user's code breaks (the count is this project's, reported below).
    const manual = join(tempDir(), "agent");
    cpSync(dir, manual, { recursive: true });
    const card = convertCardFile({ file: join(manual, "agent-card.json"), from: "0.3.0", to: "1.0.1" });
    expect(card.written).toBeDefined();
    writeFileSync(join(manual, "a2a-codegen.config.json"), readFileSync(join(manual, "a2a-codegen.config.json"), "utf8").replace(`"spec": "0.3.0"`, `"spec": "1.0.1", "compat": "0.3.0"`));
    for (const target of (await loadConfig(manual))?.targets ?? []) await generateAndWrite({ ...target, cwd: manual });
    const manualErrors = typeErrors(manual);
    expect(manualErrors.length).toBeGreaterThan(0);

    const started = performance.now();
    const result = await migrate({ cwd: dir, from: "0.3.0", to: "1.0.1" });
    const ms = performance.now() - started;
    expect(result.source).toBe("mapping");
    expect(result.conflicts).toEqual([]);
    expect(result.regenerated).toBe(true);
    expect(result.files.map((f) => f.path).sort()).toEqual(["a2a-codegen.config.json", "agent-card.json", "src/agent.ts", "src/ask.ts", "src/server.ts", "test/agent.test.ts"]);

    const errors = typeErrors(dir);
    expect(errors).toEqual([]);
    // The scaffold's server is 1.0.1's (supportedInterfaces), with the user's logger and health route.
    const server = readFileSync(join(dir, "src/server.ts"), "utf8");
    expect(server).toContain("for (const entry of card.supportedInterfaces)");
    expect(server).toContain(`Fastify({ forceCloseConnections: true, logger: process.env["LOG"] === "1" })`);
    expect(server).toContain(`app.get("/healthz"`);
    // The user's test, in 1.0.1's shapes, beside the 1.0.1 scaffold's tests of 0.3 clients.
    const test = readFileSync(join(dir, "test/agent.test.ts"), "utf8");
    expect(test).toContain(`if ("artifactUpdate" in event && event.artifactUpdate.artifact.artifactId === "report") {`);
    expect(test).toContain("kinds.push(`file ${part.filename}`)");
    expect(test).toContain(`describe("agent, called by an A2A 0.3 client"`);
    // The config keeps the 0.3 callers (compat) and the card is 1.0.1's.
    expect(JSON.parse(readFileSync(join(dir, "a2a-codegen.config.json"), "utf8"))).toMatchObject({ spec: "1.0.1", compat: "0.3.0" });
    expect(JSON.parse(readFileSync(join(dir, "agent-card.json"), "utf8"))).toHaveProperty("supportedInterfaces");

    // Its own tests pass: the echo, the stream, input-required, the report's data and file parts, 0.3 clients.
    const run = spawnSync(VITEST, ["run", "--reporter=verbose"], { cwd: dir, encoding: "utf8", env: { ...process.env, CI: "1" } });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain("streams a report: a data part and a file part");
    expect(run.stdout).toContain("asks for input, then finishes the same task");

    // Idempotent: a second run changes no file.
    const before = snapshot(dir);
    const again = await migrate({ cwd: dir, from: "0.3.0", to: "1.0.1" });
    expect(again.files).toEqual([]);
    expect(snapshot(dir)).toEqual(before);
    // And back: 1.0.1 → 0.3.0 by the same mapping read the other way, to the agent as it was written.
    const back = await migrate({ cwd: dir, from: "1.0.1", to: "0.3.0" });
    expect(back.conflicts).toEqual([]);
    expect(typeErrors(dir)).toEqual([]);
    expect(readFileSync(join(dir, "src/agent.ts"), "utf8")).toBe(readFileSync(join(FIXTURES, "agent-0.3.0/src/agent.ts"), "utf8"));
    console.log(
      `0.3.0 → 1.0.1: type errors after the manual path (card, spec, generate): ${manualErrors.length}; after migrate: ${errors.length}; ` +
        `${result.files.length} files rewritten in ${Math.round(ms)} ms; left to do by hand: ${result.unchanged.length}`,
    );
  });
});

describe("acceptance: a 0.2.5 agent migrates to 0.3.0", () => {
  it("by the rules the IR diff gives (no compat table for the pair), with 0 type errors and its tests passing", async () => {
    const dir = await editedProject("0.2.5", "agent-0.2.5");
    expect(typeErrors(dir)).toEqual([]);
    const untouched = snapshot(dir);
    // A pair nothing maps is refused, naming what is missing, and nothing is written.
    await expect(migrate({ cwd: dir, to: "1.0.1" })).rejects.toThrow(/no mapping from 0\.2\.5 to 1\.0\.1: no compat table pairs them .*Part tells its members apart by presence instead of tag "kind"/);
    expect(snapshot(dir)).toEqual(untouched);

    const result = await migrate({ cwd: dir, to: "0.3.0" });
    expect(result).toMatchObject({ from: "0.2.5", to: "0.3.0", source: "diff", conflicts: [] });
    expect(result.files.map((f) => f.path).sort()).toEqual(["a2a-codegen.config.json", "agent-card.json", "src/ask.ts", "src/server.ts"]);
    // The card's well-known path moved (0.3.0 §5.3), from the IR diff's facts.
    expect(readFileSync(join(dir, "src/ask.ts"), "utf8")).toContain(`new URL("/.well-known/agent-card.json", url)`);
    expect(typeErrors(dir)).toEqual([]);
    const run = spawnSync(VITEST, ["run"], { cwd: dir, encoding: "utf8", env: { ...process.env, CI: "1" } });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect((await migrate({ cwd: dir, from: "0.2.5", to: "0.3.0" })).files).toEqual([]);
  });
});

describe("the scaffold's own files", () => {
  it("a user's edit to lines the new scaffold also changes is left as a marked conflict (--dry-run writes nothing)", async () => {
    const dir = await editedProject("0.3.0", "agent-0.3.0");
    edit(dir, "src/server.ts", `card.url = urlOf(card.preferredTransport ?? "JSONRPC");`, `\n  console.log("serving at", card.url);`);
    const before = snapshot(dir);
    const result = await migrate({ cwd: dir, from: "0.3.0", to: "1.0.1", dryRun: true });
    expect(result.conflicts).toEqual(["src/server.ts"]);
    const server = result.files.find((f) => f.path === "src/server.ts")?.after ?? "";
    expect(server).toMatch(/<<<<<<< src\/server\.ts \(yours, 0\.3\.0 shapes rewritten\)\n[\s\S]*console\.log\("serving at", card\.url\);\n[\s\S]*=======\n[\s\S]*for \(const entry of card\.supportedInterfaces\) \{[\s\S]*>>>>>>> src\/server\.ts as init writes it for 1\.0\.1\n/);
    // Outside the conflict, the new scaffold: its card copy with supportedInterfaces.
    expect(server).toContain("const card = { ...agentCard, supportedInterfaces: agentCard.supportedInterfaces.map((i) => ({ ...i })) };");
    expect(result.diff).toContain("+<<<<<<< src/server.ts");
    expect(snapshot(dir)).toEqual(before);
  });
});

describe("the scaffold's own files of an agent template", () => {
  it.each(["ai-sdk", "langgraph"] as const)("an untouched %s project: its files are merged against the template's, not the echo agent's (no conflict)", async (template) => {
    const dir = join(tempDir(), "agent");
    await init({ dir, spec: "0.3.0", template, codegenSpec: "file:../a2a-codegen", cwd: ROOT });
    symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
    const result = await migrate({ cwd: dir, from: "0.3.0", to: "1.0.1", dryRun: true });
    expect(result.conflicts).toEqual([]);
    // With no edit of the user's, the merge gives what init writes for the new version.
    const fresh = join(tempDir(), "fresh");
    await init({ dir: fresh, spec: "1.0.1", template, codegenSpec: "file:../a2a-codegen", cwd: ROOT });
    expect(result.files.map((f) => f.path)).toContain("src/server.ts");
    for (const path of ["src/server.ts", "test/agent.test.ts"]) {
      // A file the migration leaves alone is not listed: its text is already the new one.
      const after = result.files.find((f) => f.path === path)?.after ?? readFileSync(join(dir, path), "utf8");
      expect(after, path).toBe(readFileSync(join(fresh, path), "utf8"));
    }
  });
});

describe("a run that fails", () => {
  it("leaves the project as it was: a file in generated/ that a2a-codegen does not own stops it after the rewrite, which is undone", async () => {
    const dir = await editedProject("0.3.0", "agent-0.3.0");
    mkdirSync(join(dir, "generated/compat/a2a-0.3.0"), { recursive: true });
    writeFileSync(join(dir, "generated/compat/a2a-0.3.0/card.ts"), "// the user's, not a2a-codegen's\n");
    const before = snapshot(dir);
    await expect(migrate({ cwd: dir, from: "0.3.0", to: "1.0.1" })).rejects.toThrow(/the output folder holds files a2a-codegen does not own \(not in its a2a-codegen\.manifest\.json\): compat\//);
    expect(snapshot(dir)).toEqual(before);
    expect(readFileSync(join(dir, "generated/a2a-codegen.manifest.json"), "utf8")).toContain(`"specVersion": "0.3.0"`);
  });
});
