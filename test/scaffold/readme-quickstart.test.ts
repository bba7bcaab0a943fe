import { beforeAll, describe, expect, it } from "vitest";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, tempDir } from "../support/project.js";

/**
 * The README's "Call an agent" and "Write the agent" sections, as a user runs them: the shell block pasted
 * into an empty folder outside the checkout (a2a-codegen from a local `npm pack`, where the README writes
 * `/path/to/`), then the agent of "Write the agent" generated and started there, and the README's call.ts
 * run against it. Only the port is changed (the README's 3000 may be taken on a test machine).
 * ("Build an agent" is run as written by scaffold.test.ts.)
 */
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const section = (title: string) => README.split(`\n## ${title}\n`)[1]?.split("\n## ")[0] ?? "";
const work = tempDir("a2a-codegen-quickstart-");
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  execFileSync("npm", ["pack", "--pack-destination", work, "--silent"], { cwd: ROOT, encoding: "utf8" });
  env = { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };
}, 120_000);

/** A card of the default version for an agent at `url`, as a user writes agent-card.json. */
const card = (url: string) => ({
  name: "hello-agent",
  description: "Says hello.",
  supportedInterfaces: [{ url, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
  version: "0.1.0",
  capabilities: { streaming: true },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "hello", name: "Hello", description: "Says hello.", tags: ["example"] }],
});

describe("the README's quickstart, in an empty folder", () => {
  it("generates a client, and its call.ts calls the agent of \"Write the agent\" (a reply, then a streamed task)", async () => {
    // Below the kernel's ephemeral range (32768+ on Linux), where the other tests' servers (port 0) land.
    const port = 21_000 + Math.floor(Math.random() * 8_000);
    const dir = join(work, "caller");
    mkdirSync(dir);
    const block = /```sh\n([\s\S]*?)```/.exec(section("Call an agent"))?.[1] ?? "";
    const lines = block.trimEnd().split("\n");
    expect(lines.at(-1)).toBe("npx tsx call.ts");
    const setup = lines.slice(0, -1).join("\n").replaceAll("/path/to/", `${work}/`).replaceAll("127.0.0.1:3000", `127.0.0.1:${port}`);
    const run = spawnSync("bash", ["-e", "-c", setup], { cwd: dir, env, encoding: "utf8", timeout: 300_000 });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toContain("generated/a2a-1.0.1: A2A 1.0.1");

    // "Write the agent": the card checked and emitted by the README's generate command, the agent as written.
    const write = section("Write the agent");
    const generate = /`(npx a2a-codegen generate --card agent-card\.json)`/.exec(write)?.[1] ?? "";
    expect(generate).not.toBe("");
    writeFileSync(join(dir, "agent-card.json"), JSON.stringify(card(`http://127.0.0.1:${port}/`), null, 2));
    const generated = spawnSync("bash", ["-e", "-c", generate], { cwd: dir, env, encoding: "utf8", timeout: 120_000 });
    expect(generated.status, `${generated.stdout}\n${generated.stderr}`).toBe(0);
    const agent = /```ts\n([\s\S]*?)```/.exec(write)?.[1] ?? "";
    expect(agent).toContain(".listen(3000)");
    writeFileSync(join(dir, "agent.ts"), agent.replace(".listen(3000)", `.listen(${port})`));

    const server = spawn("npx", ["tsx", "agent.ts"], { cwd: dir, env, stdio: "ignore", detached: true });
    try {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const up = await fetch(`http://127.0.0.1:${port}/.well-known/agent-card.json`).then((r) => r.ok, () => false);
        if (up) break;
        if (Date.now() > deadline) throw new Error("the README's agent did not start");
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      const call = spawnSync("npx", ["tsx", "call.ts"], { cwd: dir, env, encoding: "utf8", timeout: 60_000 });
      expect(call.status, call.stderr).toBe(0);
      // "hello" is not "hi": the agent answers with a task, then streams one (status, artifact, completed).
      expect(call.stdout).toContain("TASK_STATE_COMPLETED");
      expect(call.stdout).toContain("TASK_STATE_WORKING");
      expect(call.stdout).toContain("artifactId: 'a1'");
    } finally {
      process.kill(-(server.pid as number), "SIGTERM");
    }
  }, 420_000);
});
