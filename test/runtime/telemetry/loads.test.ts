/**
 * What a generated agent loads (issue 34: "without it nothing is emitted and nothing is loaded"): a server
 * and a client of an output generated without --telemetry, compiled to JavaScript and run in a process of
 * their own, never load @opentelemetry/api (nor anything of runtime/telemetry/); the same with --telemetry
 * load the API, and only the API of OpenTelemetry.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { generate, writeResult } from "../../../src/generate.js";
import { ROOT, tempDir } from "../../support/project.js";

// Inside the repository so that the compiled output resolves its packages from its node_modules.
const BASE = join(ROOT, "node_modules", ".cache", "a2a-codegen-telemetry-loads");
const PRELOAD = pathToFileURL(join(ROOT, "test", "support", "record-loads.mjs")).href;

const temporary: string[] = [];
afterAll(() => {
  for (const dir of [BASE, ...temporary]) rmSync(dir, { recursive: true, force: true });
});

/**
 * The output compiled to JavaScript (no type check: the compile tests do that); returns its folder. The
 * sources are generated outside node_modules (tsc emits nothing of a file there), the JavaScript inside.
 */
async function compiled(name: string, telemetry: boolean): Promise<string> {
  const dir = tempDir();
  temporary.push(dir);
  const src = join(dir, "src");
  const out = join(BASE, name);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  writeResult(await generate({ spec: "1.0.1", frameworks: ["node"], telemetry, out: src, cwd: ROOT }), ROOT);
  for (const folder of [dir, out]) writeFileSync(join(folder, "package.json"), '{ "type": "module" }\n');
  execFileSync(
    join(ROOT, "node_modules", ".bin", "tsc"),
    ["--ignoreConfig", "--outDir", out, "--rootDir", src, "--module", "NodeNext", "--moduleResolution", "NodeNext", "--target", "ES2022", "--skipLibCheck", "--noCheck", "--types", "node", join(src, "server", "core.ts"), join(src, "server", "node.ts"), join(src, "client.ts")],
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  return out;
}

/** The modules a process that serves one call and makes a client loads. */
function loadsOf(dir: string): string[] {
  const script = join(dir, "run.mjs");
  writeFileSync(
    script,
    `import { createA2AServer } from "./server/core.js";
import { createNodeServer } from "./server/node.js";
import { A2AClient } from "./client.js";
const card = { name: "A", description: "A", version: "1.0.0", supportedInterfaces: [{ url: "http://127.0.0.1:1/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }], capabilities: {}, defaultInputModes: ["text/plain"], defaultOutputModes: ["text/plain"], skills: [{ id: "s", name: "S", description: "S", tags: ["s"] }] };
const core = createA2AServer({ card, executor: { execute: (_c, e) => e.completed() } });
createNodeServer(core);
const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: A2AClient.sendParams("hi") });
const answer = await core.handle({ method: "POST", path: "/a2a", query: new URLSearchParams(), headers: { "content-type": "application/json", "a2a-version": "1.0" }, body });
if (answer.status !== 200 || !answer.body.includes('"result"')) throw new Error("unexpected answer " + JSON.stringify(answer));
A2AClient.fromCard(card);
await core.close();
`,
  );
  const record = join(dir, "loaded.txt");
  const run = spawnSync(process.execPath, ["--import", PRELOAD, script], { cwd: dir, encoding: "utf8", env: { ...process.env, A2A_TEST_LOADED_FILE: record } });
  expect(run.stderr).toBe("");
  expect(run.status).toBe(0);
  return readFileSync(record, "utf8").split("\n").filter((line) => line !== "");
}

describe("what a generated agent loads", () => {
  it("without --telemetry: nothing of OpenTelemetry, no telemetry file; with it: @opentelemetry/api only", async () => {
    const plain = loadsOf(await compiled("plain", false));
    expect(plain.some((m) => m.includes("/runtime/client/client.js"))).toBe(true); // the record is of this run
    expect(plain.filter((m) => m.includes("@opentelemetry") || m.includes("/runtime/telemetry/"))).toEqual([]);

    const traced = loadsOf(await compiled("traced", true));
    expect(traced.some((m) => m.includes("/runtime/telemetry/server.js"))).toBe(true);
    expect(traced.some((m) => m.includes("/runtime/telemetry/client.js"))).toBe(true);
    const otel = new Set(traced.filter((m) => m.includes("@opentelemetry/")).map((m) => /@opentelemetry\/([^/]+)/.exec(m)?.[1]));
    expect([...otel]).toEqual(["api"]);
  }, 120_000);
});
