import { beforeAll, describe, expect, it } from "vitest";
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, tempDir } from "./helpers.js";

/**
 * `a2a-codegen init`, as a user runs it: the README's commands in a fresh folder (a2a-codegen from a
 * local `npm pack`, never a registry publish), then the project's own type-check, tests and server,
 * for each framework. One `npm install` is shared by the four projects.
 */
type Json = Record<string, unknown>;
const work = tempDir("a2a-codegen-scaffold-");
const bin = join(work, "bin");
let env: NodeJS.ProcessEnv;

function sh(command: string, args: string[], cwd: string, timeout = 300_000): { code: number | null; out: string } {
  const r = spawnSync(command, args, { cwd, env, encoding: "utf8", timeout });
  return { code: r.status, out: `${r.stdout}\n${r.stderr}` };
}

/** The README's "Scaffold an agent" commands, read from the README itself. */
function readmeCommands(): string[] {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const section = readme.split("## Scaffold an agent")[1]?.split("\n## ")[0] ?? "";
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  return block
    .split("\n")
    .map((l) => l.replace(/#.*$/, "").trim())
    .filter(Boolean);
}

beforeAll(() => {
  // a2a-codegen as a package, and its bin on PATH, as after `npm i -g a2a-codegen`.
  const packed = execFileSync("npm", ["pack", "--pack-destination", work, "--silent"], { cwd: ROOT, encoding: "utf8" }).trim().split("\n").pop() as string;
  mkdirSync(bin);
  writeFileSync(join(bin, "a2a-codegen"), `#!/bin/sh\nexec node ${join(ROOT, "dist", "cli.js")} "$@"\n`);
  chmodSync(join(bin, "a2a-codegen"), 0o755);
  env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, A2A_CODEGEN_PACKAGE: `file:${join(work, packed)}`, npm_config_audit: "false", npm_config_fund: "false" };
}, 120_000);

async function serve(dir: string): Promise<{ child: ChildProcess; url: string; exited: Promise<number | null> }> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = spawn("npm", ["start"], { cwd: dir, env: { ...env, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"], detached: true });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not listen: ${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/listening on/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
  });
  return { child, url: `http://127.0.0.1:${port}`, exited };
}

async function talk(dir: string, url: string): Promise<void> {
  const { A2AClient } = (await import(join(dir, "generated", "client.ts"))) as typeof import("../generated/a2a-0.3.0/client.js");
  const client = await A2AClient.fromAgentUrl(url);
  const methods = await methodsOf(dir);
  const reply = (await client.call(methods.send as never, A2AClient.sendParams("hello") as never)) as unknown as Json;
  const text = JSON.stringify(reply);
  expect(text).toContain("You said: hello");
  const chunks: string[] = [];
  for await (const event of client.stream(methods.stream as never, A2AClient.sendParams("stream a b") as never)) {
    const artifact = (A2AClient.unwrap(event) as Json).artifact as Json | undefined;
    if (artifact) chunks.push(String(((artifact.parts as Json[])[0] as Json).text));
  }
  expect(chunks.join("")).toBe("a b ");
}

async function methodsOf(dir: string): Promise<Record<string, string>> {
  const protocol = (await import(join(dir, "generated", "protocol.ts"))) as { A2A_PROFILE: { methods: Record<string, string> } };
  return protocol.A2A_PROFILE.methods;
}

describe("a2a-codegen init", () => {
  let first: string;

  it("the README's commands give a project whose server answers the generated client", async () => {
    const commands = readmeCommands();
    expect(commands).toEqual(["a2a-codegen init my-agent", "cd my-agent", "npm install", "npm start"]);
    const init = sh("a2a-codegen", ["init", "my-agent"], work);
    expect(init.out).toMatch(/created my-agent: 9 files, and generated\/ for A2A 1\.0\.1/);
    expect(init.code).toBe(0);
    first = join(work, "my-agent");
    const install = sh("npm", ["install"], first);
    expect(install.code, install.out).toBe(0);
    const server = await serve(first);
    try {
      await talk(first, server.url);
    } finally {
      process.kill(-(server.child.pid as number), "SIGTERM");
    }
    // Stopped cleanly: the process is gone and the port is free.
    await server.exited;
    await expect(fetch(server.url)).rejects.toThrow();
  });

  it("the project's own tests and type-check pass", () => {
    const test = sh("npm", ["test"], first);
    expect(test.out).toMatch(/4 passed/);
    expect(test.code).toBe(0);
    const check = sh("npm", ["run", "check"], first);
    expect(check.code, check.out).toBe(0);
  });

  it.each([
    ["express", "0.2.5"],
    ["hono", "0.3.0"],
    ["node", "0.1.0"],
    ["fastify", "0.3.0"],
  ])("%s (A2A %s): init, type-check, its tests, its server", async (framework, spec) => {
    // Share the first project's install, with this framework added.
    const extra: Record<string, string[]> = { express: ["express@^5.1.0", "@types/express@^5.0.0"], hono: ["hono@^4.8.0", "@hono/node-server@^1.14.0"], node: [] };
    if (extra[framework]?.length) {
      const add = sh("npm", ["install", "--no-save", ...(extra[framework] as string[])], first);
      expect(add.code, add.out).toBe(0);
    }
    const init = sh("a2a-codegen", ["init", `agent-${framework}-${spec}`, "--framework", framework, "--spec", spec], work);
    expect(init.code, init.out).toBe(0);
    const dir = join(work, `agent-${framework}-${spec}`);
    symlinkSync(join(first, "node_modules"), join(dir, "node_modules"), "dir");
    const typecheck = sh("npm", ["run", "typecheck"], dir);
    expect(typecheck.code, typecheck.out).toBe(0);
    const test = sh("npm", ["test"], dir);
    expect(test.out).toMatch(/4 passed/);
    const server = await serve(dir);
    try {
      await talk(dir, server.url);
    } finally {
      process.kill(-(server.child.pid as number), "SIGTERM");
    }
    await server.exited;
  });

  it("regenerating with another spec version: user files untouched, the spec changes and the type errors they cause reported", () => {
    const init = sh("a2a-codegen", ["init", "regen", "--spec", "0.2.5"], work);
    expect(init.code, init.out).toBe(0);
    const dir = join(work, "regen");
    symlinkSync(join(first, "node_modules"), join(dir, "node_modules"), "dir");
    // The user's own code leans on a fact of 0.2.5: where the card is served.
    const agentFile = join(dir, "src", "agent.ts");
    const edited = `${readFileSync(agentFile, "utf8")}\nimport { WELL_KNOWN_AGENT_CARD_PATH } from "../generated/protocol.js";\nexport const cardPath: "/.well-known/agent.json" = WELL_KNOWN_AGENT_CARD_PATH;\n`;
    writeFileSync(agentFile, edited);
    const line = edited.split("\n").findIndex((l) => l.startsWith("export const cardPath")) + 1;
    const userFiles = ["src/agent.ts", "src/server.ts", "test/agent.test.ts", "agent-card.json", "package.json", "README.md"];
    const before = Object.fromEntries(userFiles.map((f) => [f, readFileSync(join(dir, f), "utf8")]));
    const protocolBefore = readFileSync(join(dir, "generated", "protocol.ts"), "utf8");

    const config = JSON.parse(readFileSync(join(dir, "a2a-codegen.config.json"), "utf8")) as Json;
    writeFileSync(join(dir, "a2a-codegen.config.json"), JSON.stringify({ ...config, spec: "0.3.0" }, null, 2));
    const regen = sh("a2a-codegen", ["generate"], dir);
    expect(regen.code, regen.out).toBe(0);
    expect(regen.out).toMatch(/The spec changed\. A2A 0\.2\.5 → 0\.3\.0/);
    expect(regen.out).toMatch(/\+ agent\/getAuthenticatedExtendedCard/);
    expect(regen.out).toMatch(/wellKnownAgentCardPath: "\/\.well-known\/agent\.json" → "\/\.well-known\/agent-card\.json"/);
    expect(regen.out).toMatch(new RegExp(`src/agent\\.ts:${line}:\\d+ TS2322 Type '"/\\.well-known/agent-card\\.json"' is not assignable`));
    for (const f of userFiles) expect(readFileSync(join(dir, f), "utf8"), f).toBe(before[f]);
    expect(readFileSync(join(dir, "generated", "protocol.ts"), "utf8")).not.toBe(protocolBefore);
    expect(readFileSync(join(dir, "generated", "protocol.ts"), "utf8")).toMatch(/SPEC_VERSION = "0\.3\.0"/);
  });

  it("refuses a non-empty folder without --force, and never overwrites a file with it", () => {
    const dir = join(work, "busy");
    mkdirSync(dir);
    writeFileSync(join(dir, "src.txt"), "mine");
    const refused = sh("a2a-codegen", ["init", "busy"], work);
    expect(refused.code).toBe(2);
    expect(refused.out).toMatch(/busy: the folder is not empty; use --force/);
    mkdirSync(join(dir, "src"));
    writeFileSync(join(dir, "src", "agent.ts"), "// my own agent\n");
    const forced = sh("a2a-codegen", ["init", "busy", "--force"], work);
    expect(forced.code, forced.out).toBe(0);
    expect(forced.out).toMatch(/left as they were: src\/agent\.ts/);
    expect(readFileSync(join(dir, "src", "agent.ts"), "utf8")).toBe("// my own agent\n");
  });
});
