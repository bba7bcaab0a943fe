/**
 * `init --runtime workers|deno|bun`: the project gets the runtime's entry on the generated fetch handler
 * and its config (wrangler.toml, deno.json), type-checks, and runs as it is on the runtime from npm
 * packages: workerd (miniflare, with wrangler.toml's Durable Object and date), `deno task start` with
 * deno.json, `bun src/main.ts`; it answers a message and serves its card with the URL it is reached at.
 * A runtime that cannot start here skips with a message naming it (under CI=true it fails).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { init } from "../../src/scaffold/init.js";
import { BIN, bundle, runtimeUnavailable, startProcess, startWorkerd, type RunningAgent } from "../edge/runtimes.js";
import { projectTempDir, ROOT, tempDir } from "../support/project.js";

type Json = Record<string, unknown>;

/** A scaffolded project: inside this checkout (its packages resolve, for tsc), or outside (Deno strips no types under node_modules/). */
async function scaffold(runtime: "workers" | "deno" | "bun", where: "checkout" | "elsewhere" = "checkout"): Promise<string> {
  const dir = join(where === "checkout" ? projectTempDir(`init-${runtime}-`) : tempDir(`a2a-init-${runtime}-`), "agent");
  await init({ dir, spec: "1.0.1", runtime, codegenSpec: "file:../a2a-codegen.tgz" });
  return dir;
}

/** `persist`: the folder workerd keeps the Durable Objects' storage in (another start on it finds it again). */
async function start(runtime: "workers" | "deno" | "bun", dir: string, persist?: string): Promise<RunningAgent> {
  if (runtime === "workers") {
    // What wrangler reads: the entry, the date, the Durable Object binding.
    const toml = readFileSync(join(dir, "wrangler.toml"), "utf8");
    const main = /^main = "([^"]+)"/m.exec(toml)![1]!;
    const date = /^compatibility_date = "([^"]+)"/m.exec(toml)![1]!;
    const binding = /name = "(\w+)"\s*\nclass_name = "(\w+)"/.exec(toml)!;
    // A class of new_sqlite_classes has SQLite storage (ctx.storage.sql), where the agent keeps its tasks.
    const sqliteClasses = /^new_sqlite_classes = (\[[^\]]*\])/m.exec(toml)?.[1];
    const useSQLite = sqliteClasses !== undefined && (JSON.parse(sqliteClasses) as string[]).includes(binding[2]!);
    return startWorkerd(await bundle(dir, main), { [binding[1]!]: { className: binding[2]!, useSQLite } }, date, persist);
  }
  if (runtime === "deno") {
    // deno.json's start task, run with this checkout's deno (inside the task, `deno` would be node_modules/.bin's
    // npm shim, which deno task runs as a script).
    const task = (JSON.parse(readFileSync(join(dir, "deno.json"), "utf8")) as { tasks: { start: string } }).tasks.start.split(/\s+/);
    expect(task.slice(0, 2)).toEqual(["deno", "run"]);
    return startProcess(join(BIN, "deno"), ["run", "--config", "deno.json", ...task.slice(2)], { cwd: dir, env: { PORT: "0" } });
  }
  return startProcess(join(BIN, "bun"), ["src/main.ts"], { cwd: dir, env: { PORT: "0" } });
}

describe.each(["workers", "deno", "bun"] as const)("init --runtime %s", (runtime) => {
  it("writes the runtime's entry and config beside the Node server, and type-checks", async () => {
    const dir = await scaffold(runtime);
    const files = { workers: ["src/worker.ts", "wrangler.toml"], deno: ["src/main.ts", "deno.json"], bun: ["src/main.ts"] }[runtime];
    for (const file of [...files, "src/card-at.ts", "src/server.ts", "generated/server/web.ts", "generated/server/node.ts"]) expect(existsSync(join(dir, file)), file).toBe(true);
    const config = JSON.parse(readFileSync(join(dir, "a2a-codegen.config.json"), "utf8")) as Json;
    expect(config).toMatchObject({ frameworks: ["node", "web"], transports: ["jsonrpc", "rest"] });
    const scripts = (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
    expect(Object.keys(scripts)).toContain(runtime === "workers" ? "deploy" : runtime);
    const tsc = spawnSync(join(ROOT, "node_modules/.bin/tsc"), ["-p", dir, "--noEmit"], { encoding: "utf8" });
    expect(tsc.stdout + tsc.stderr).toBe("");
  });

  it("runs on the runtime as it is: answers a message and serves its card at the URL it is reached at", async (ctx) => {
    const dir = await scaffold(runtime, runtime === "deno" ? "elsewhere" : "checkout");
    const engine = runtime === "workers" ? "workerd" : runtime;
    const why = runtimeUnavailable(engine);
    if (why !== undefined) {
      if (process.env["CI"] === "true") throw new Error(`${engine} cannot start on this machine: ${why}`);
      console.warn(`SKIPPED: ${engine} cannot start on this machine: ${why}`);
      return ctx.skip(`${engine} cannot start on this machine: ${why}`);
    }
    const agent = await start(runtime, dir);
    try {
      const response = await fetch(`${agent.url}/`, {
        method: "POST",
        headers: { "content-type": "application/json", "a2a-version": "1.0" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { messageId: "m-1", role: "ROLE_USER", parts: [{ text: "hello edge" }] } } }),
      });
      const answer = (await response.json()) as Json;
      expect(JSON.stringify(answer.result)).toContain("hello edge");
      const card = (await (await fetch(`${agent.url}/.well-known/agent-card.json`)).json()) as { supportedInterfaces: Array<{ url: string; protocolBinding: string }> };
      // Each binding (1.0 and the 0.3 it serves too) at the origin the agent was reached at.
      expect(new Set(card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.url}`))).toEqual(new Set([`JSONRPC ${agent.url}/`, `HTTP+JSON ${agent.url}/rest`]));
    } finally {
      await agent.close();
    }
  });
});

describe("init --runtime workers: the tasks in the Durable Object's storage", () => {
  it("takes --store durable-object on Workers only, and --store memory keeps them in the object's memory", async () => {
    const dir = (name: string) => join(projectTempDir(`init-do-${name}-`), "agent");
    await expect(init({ dir: dir("node"), spec: "1.0.1", store: "durable-object", codegenSpec: "file:../a2a-codegen.tgz" })).rejects.toThrow(/--store durable-object keeps tasks in a Cloudflare Durable Object's storage: scaffold it with --runtime workers/);
    await expect(init({ dir: dir("deno"), spec: "1.0.1", runtime: "deno", store: "durable-object", codegenSpec: "file:../a2a-codegen.tgz" })).rejects.toThrow(/--store durable-object .* --runtime workers/);
    await expect(init({ dir: dir("redis"), spec: "1.0.1", runtime: "workers", store: "redis", codegenSpec: "file:../a2a-codegen.tgz" })).rejects.toThrow(/--runtime workers keeps tasks in the agent's Durable Object \(--store durable-object, the default\) or in memory/);
    const memory = dir("memory");
    await init({ dir: memory, spec: "1.0.1", runtime: "workers", store: "memory", codegenSpec: "file:../a2a-codegen.tgz" });
    expect(JSON.parse(readFileSync(join(memory, "a2a-codegen.config.json"), "utf8")) as Json).not.toHaveProperty("stores");
    expect(readFileSync(join(memory, "src", "worker.ts"), "utf8")).not.toContain("DurableObjectSqlStore");
    expect(existsSync(join(memory, "generated", "runtime", "stores", "durable-object.ts"))).toBe(false);
  });

  it("keeps a task across a restart of workerd: the next turn of an input-required task goes on (1.0.1 §3.1.1)", async (ctx) => {
    const dir = await scaffold("workers");
    const config = JSON.parse(readFileSync(join(dir, "a2a-codegen.config.json"), "utf8")) as Json;
    expect(config["stores"]).toEqual(["durable-object"]);
    const why = runtimeUnavailable("workerd");
    if (why !== undefined) {
      if (process.env["CI"] === "true") throw new Error(`workerd cannot start on this machine: ${why}`);
      return ctx.skip(`workerd cannot start on this machine: ${why}`);
    }
    const persist = projectTempDir("init-workers-persist-");
    const send = async (url: string, message: Json): Promise<Json> => {
      const response = await fetch(`${url}/`, {
        method: "POST",
        headers: { "content-type": "application/json", "a2a-version": "1.0" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { messageId: `m-${Math.random()}`, role: "ROLE_USER", ...message } } }),
      });
      return (await response.json()) as Json;
    };
    const first = await start("workers", dir, persist);
    let task: Json;
    try {
      task = ((await send(first.url, { parts: [{ text: "name" }] })).result as Json).task as Json;
      expect(task).toMatchObject({ status: { state: "TASK_STATE_INPUT_REQUIRED" } });
    } finally {
      await first.close();
    }
    const second = await start("workers", dir, persist);
    try {
      const next = await send(second.url, { taskId: task["id"], contextId: task["contextId"], parts: [{ text: "Ada" }] });
      expect(next).toMatchObject({ result: { task: { id: task["id"], status: { state: "TASK_STATE_COMPLETED", message: { parts: [{ text: "Nice to meet you, Ada!" }] } } } } });
    } finally {
      await second.close();
    }
  });
});
