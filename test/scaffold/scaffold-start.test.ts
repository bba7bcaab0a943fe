/**
 * A scaffolded agent as a newcomer starts it (issue 29, items 12-15), without npm install: the project
 * is made by init() inside this checkout (as following the README literally does), gets the checkout's
 * node_modules, and its own commands are run: the compiled server, `npm start` (a2a-codegen on PATH is
 * this build), its own tests with vitest.
 * - 12: a port clash is one line naming the variable (GRPC_PORT, PORT), exit 1, no stack trace; the
 *   README's two-instance commands give each instance its own ports.
 * - 13: a store agent refuses to start without A2A_STORE_URL, and its start-up line names the store with
 *   the URL's password redacted; a memory agent says it keeps tasks in memory.
 * - 14: `npm start` regenerates first: an edited agent-card.json is what the agent serves.
 * - 15: the project's own vitest config: its tests run inside another project that has one.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer as createNetServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { init } from "../../src/scaffold/init.js";
import { vendorInto } from "../../src/scaffold/codegen-spec.js";
import { projectTempDir, ROOT, tempDir } from "../support/project.js";

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
});

/** The environment of a command run in a project: no vitest of ours, a2a-codegen (this build) on PATH. */
function projectEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0", npm_config_update_notifier: "false", ...extra };
  for (const key of Object.keys(env)) if (key.startsWith("VITEST") || key === "NODE_OPTIONS") delete env[key];
  delete env.A2A_STORE_URL;
  if (extra.A2A_STORE_URL !== undefined) env.A2A_STORE_URL = extra.A2A_STORE_URL;
  env.PATH = `${BIN}:${env.PATH ?? ""}`;
  return env;
}

const BIN = join(tempDir("a2a-codegen-bin-"), "bin");
mkdirSync(BIN);
writeFileSync(join(BIN, "a2a-codegen"), `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, "dist", "bin.cjs")}" "$@"\n`);
chmodSync(join(BIN, "a2a-codegen"), 0o755);

async function project(options: { store?: string; transports: string[] }): Promise<string> {
  const dir = join(projectTempDir("scaffold-start-"), "agent");
  await init({ dir, spec: "1.0.1", framework: "node", transports: options.transports, codegenSpec: "file:vendor/a2a-codegen.tgz", compat: false, ...(options.store ? { store: options.store } : {}) });
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  const tsc = spawnSync(join(ROOT, "node_modules", ".bin", "tsc"), ["-p", dir], { encoding: "utf8" });
  if (tsc.status !== 0) throw new Error(`tsc: ${tsc.stdout}${tsc.stderr}`);
  return dir;
}

/** Runs a command in a project until it prints its listening line (resolves the output) or exits (rejects with it). */
function started(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ out: string; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    children.push(child);
    let out = "";
    const onData = (d: Buffer) => {
      out += d.toString();
      if (/ listening on /.test(out)) resolve({ out, child });
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(Object.assign(new Error(`exited ${code}`), { code, out })));
  });
}

/** Runs the compiled server to its end (it must fail to start); its exit code and output. */
function failedStart(dir: string, env: NodeJS.ProcessEnv): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(dir, "dist", "src", "server.js")], { cwd: dir, env: projectEnv(env), encoding: "utf8", timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const freePortPair = () => 21_000 + 2 * Math.floor(Math.random() * 5_000);

describe("a scaffolded agent's start (issue 29, items 12-14)", () => {
  let grpcAgent: string;
  let storeAgent: string;
  beforeAll(async () => {
    [grpcAgent, storeAgent] = await Promise.all([project({ transports: ["jsonrpc", "grpc"], store: "memory" }), project({ transports: ["jsonrpc", "grpc"], store: "postgres" })]);
  }, 180_000);

  it("item 12: a port in use is one line naming GRPC_PORT or PORT, exit 1, no stack trace", async () => {
    const port = freePortPair();
    const first = await started(process.execPath, [join(grpcAgent, "dist", "src", "server.js")], grpcAgent, projectEnv({ PORT: String(port), GRPC_PORT: String(port + 1) }));
    expect(first.out).toContain(`gRPC on 127.0.0.1:${port + 1}`);
    try {
      const grpcClash = failedStart(grpcAgent, { PORT: String(port + 2), GRPC_PORT: String(port + 1) });
      expect(grpcClash.code).toBe(1);
      expect(grpcClash.stderr.trim()).toBe(`agent: port ${port + 1} on 127.0.0.1 is already in use: set GRPC_PORT to a free port (another instance? give each its own GRPC_PORT)`);
      const httpClash = failedStart(grpcAgent, { PORT: String(port), GRPC_PORT: String(port + 3) });
      expect(httpClash.code).toBe(1);
      expect(httpClash.stderr.trim()).toBe(`agent: port ${port} on 127.0.0.1 is already in use: set PORT to a free port (another instance? give each its own PORT)`);
      for (const r of [grpcClash, httpClash]) expect(r.stderr).not.toMatch(/^\s+at /m);
    } finally {
      first.child.kill("SIGTERM");
    }
  });

  it("item 12: a start() that fails on its HTTP port closes the gRPC server it opened (nothing left listening)", async () => {
    const port = freePortPair();
    const blocker = createNetServer();
    await new Promise<void>((resolve) => blocker.listen(port, "127.0.0.1", resolve));
    try {
      const { start } = (await import(join(grpcAgent, "dist", "src", "server.js"))) as { start(port: number, host: string, grpcPort: number): Promise<{ close(): Promise<void> }> };
      await expect(start(port, "127.0.0.1", port + 1)).rejects.toThrow(`port ${port} on 127.0.0.1 is already in use: set PORT to a free port`);
      // The gRPC port is free again: a second listener gets it.
      const probe = createNetServer();
      await new Promise<void>((resolve, reject) => probe.once("error", reject).listen(port + 1, "127.0.0.1", resolve));
      await new Promise<void>((resolve) => probe.close(() => resolve()));
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });

  it("item 12: the README's two-instance commands give each instance its own HTTP and gRPC ports", () => {
    const readme = readFileSync(join(storeAgent, "README.md"), "utf8");
    const section = readme.split("Two instances against one database")[1] ?? "";
    const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
    const instances = block.split("\n").filter((l) => / npm run serve &$/.test(l));
    expect(instances).toHaveLength(2);
    expect(block).toMatch(/^npm run build\b/m);
    const ports = instances.map((l) => Object.fromEntries([...l.matchAll(/(\w+)=(\d+)/g)].map((m) => [m[1], m[2]])));
    for (const p of ports) expect(Object.keys(p).sort()).toEqual(["GRPC_PORT", "PORT"]);
    const all = ports.flatMap((p) => [p.PORT, p.GRPC_PORT]);
    expect(new Set(all).size).toBe(4);
    expect(all).not.toContain("50051"); // the default: a third `npm start` still starts
    expect(JSON.parse(readFileSync(join(storeAgent, "package.json"), "utf8")).scripts).toMatchObject({ build: "a2a-codegen generate --quiet && tsc -p .", serve: "node dist/src/server.js" });
  });

  it("item 13: a store agent without A2A_STORE_URL does not start: one line naming the variable", () => {
    const r = failedStart(storeAgent, { PORT: "0" });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe("agent: A2A_STORE_URL is not set: this agent keeps its tasks in postgres; set it to the database's URL (postgres://…)");
    expect(r.stdout).not.toMatch(/listening/);
  });

  it("item 13: the store's URL is named without its password, also when the store cannot be reached", () => {
    const r = failedStart(storeAgent, { PORT: "0", A2A_STORE_URL: "postgres://agent:s3cret-pw@127.0.0.1:1/tasks?connect_timeout=2" });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^agent: cannot use the store postgres at postgres:\/\/agent:\*\*\*@127\.0\.0\.1:1\/tasks\?connect_timeout=2 \(A2A_STORE_URL\): /);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(`${r.stdout}${r.stderr}`).not.toContain("s3cret-pw");
  });

  it("item 13: a memory agent's start-up line says its tasks are in memory", async () => {
    const port = freePortPair();
    const running = await started(process.execPath, [join(grpcAgent, "dist", "src", "server.js")], grpcAgent, projectEnv({ PORT: String(port), GRPC_PORT: String(port + 1) }));
    running.child.kill("SIGTERM");
    expect(running.out).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+ .*; tasks in memory \(this process only\)/);
  });

  it("item 14: npm start regenerates first: the agent serves the edited agent-card.json", async () => {
    const cardFile = join(grpcAgent, "agent-card.json");
    const card = JSON.parse(readFileSync(cardFile, "utf8")) as Record<string, unknown>;
    writeFileSync(cardFile, JSON.stringify({ ...card, description: "An edited description" }, null, 2));
    const port = freePortPair();
    const running = await started("npm", ["start"], grpcAgent, projectEnv({ PORT: String(port), GRPC_PORT: String(port + 1) }));
    try {
      const served = (await (await fetch(`http://127.0.0.1:${port}/.well-known/agent-card.json`)).json()) as { description: string };
      expect(served.description).toBe("An edited description");
    } finally {
      running.child.kill("SIGTERM");
    }
    expect(JSON.parse(readFileSync(join(grpcAgent, "package.json"), "utf8")).scripts.prestart).toBe("a2a-codegen generate --quiet");
  });
});

describe("a scaffold inside another project (issue 29, item 15)", () => {
  it("runs its own tests with its own vitest config, not the enclosing project's", async () => {
    const dir = await project({ transports: ["jsonrpc"] });
    // The enclosing folder (this checkout's node_modules/.cache, inside the checkout) has a config that finds nothing.
    writeFileSync(join(dir, "..", "vitest.config.ts"), 'export default { test: { include: ["nothing/**/*.test.ts"] } };\n');
    const r = spawnSync(process.execPath, [join(ROOT, "node_modules", "vitest", "vitest.mjs"), "run"], { cwd: dir, env: projectEnv(), encoding: "utf8", timeout: 180_000 });
    const out = `${r.stdout}${r.stderr}`;
    expect(out).not.toMatch(/No test files found/);
    expect(out).toMatch(/Tests +\d+ passed/);
    expect(r.status, out).toBe(0);
  }, 240_000);

  it("the a2a-codegen tarball init ran from is copied into vendor/ and depended on as file:vendor/…", () => {
    const from = tempDir();
    writeFileSync(join(from, "a2a-codegen-9.9.9.tgz"), "tarball bytes");
    const dir = tempDir();
    expect(vendorInto({ spec: `file:${join(from, "a2a-codegen-9.9.9.tgz")}`, source: "tarball" }, dir)).toEqual({ spec: "file:vendor/a2a-codegen-9.9.9.tgz", source: "tarball" });
    expect(readFileSync(join(dir, "vendor", "a2a-codegen-9.9.9.tgz"), "utf8")).toBe("tarball bytes");
  });
});
