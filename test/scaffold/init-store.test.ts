/**
 * `a2a-codegen init --store postgres|mysql|redis|memory` (sqlite, the default: scaffold-durable.test.ts): the scaffolded agent reads A2A_STORE_URL, its config
 * generates the engine's store, its package.json names the engine's client, its README shows two
 * instances against one database; the project type-checks under its own strict settings, and two
 * instances of it, started as the README says, serve the same tasks (with an engine: .ci/engines.sh).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { init } from "../../src/scaffold/init.js";
import { projectTempDir, ROOT } from "../support/project.js";
import { engineUrl } from "../support/engines.js";

type Json = Record<string, unknown>;
const made: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

async function scaffold(store: string | undefined): Promise<string> {
  const dir = join(projectTempDir("init-store-"), "agent");
  made.push(dir);
  await init({ dir, spec: "1.0.1", framework: "node", transports: ["jsonrpc"], codegenSpec: "file:../a2a-codegen.tgz", ...(store ? { store } : {}) });
  return dir;
}

describe("init --store", () => {
  it("postgres: generates the engine's store, depends on pg, connects to A2A_STORE_URL, documents two instances", async () => {
    const dir = await scaffold("postgres");
    expect(JSON.parse(readFileSync(join(dir, "a2a-codegen.config.json"), "utf8"))).toMatchObject({ stores: ["postgres"] });
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { dependencies: Json; devDependencies: Json };
    expect(pkg.dependencies).toHaveProperty("pg");
    expect(pkg.devDependencies).toHaveProperty("@types/pg");
    expect(pkg.dependencies).not.toHaveProperty("@redis/client");
    expect(existsSync(join(dir, "generated", "runtime", "stores", "postgres.ts"))).toBe(true);
    expect(existsSync(join(dir, "generated", "runtime", "stores", "redis.ts"))).toBe(false);
    const server = readFileSync(join(dir, "src", "server.ts"), "utf8");
    expect(server).toContain('const storeUrl = process.env["A2A_STORE_URL"];');
    expect(server).toContain("connectStore(storeUrl)");
    expect(server).toMatch(/createA2AServer\(\{ card, executor: agent, store \}\)/);
    const readme = readFileSync(join(dir, "README.md"), "utf8");
    expect(readme).toContain("A2A_STORE_URL=postgres://");
    // Compiled once, then each instance served on its own port (two `npm start` would compile at once).
    expect(readme).toMatch(/npm run build +# generate and compile once\nPORT=3001 npm run serve &\nPORT=3002 npm run serve &/);
  }, 60_000);

  it("redis: the Redis client instead", async () => {
    const dir = await scaffold("redis");
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { dependencies: Json };
    expect(pkg.dependencies).toHaveProperty("@redis/client");
    expect(pkg.dependencies).not.toHaveProperty("pg");
    expect(readFileSync(join(dir, "README.md"), "utf8")).toContain("A2A_STORE_URL=redis://");
  }, 60_000);

  it("memory (--store memory; the default is sqlite since issue 36): no engine, no database client, and a clear refusal of A2A_STORE_URL", async () => {
    const dir = await scaffold("memory");
    expect(JSON.parse(readFileSync(join(dir, "a2a-codegen.config.json"), "utf8"))).not.toHaveProperty("stores");
    // runtime/stores/ holds the store contract and the in-memory engine; no engine file, no connect.ts.
    for (const engineFile of ["connect.ts", "postgres.ts", "redis.ts", "follower.ts", "patch-policy.ts"]) {
      expect(existsSync(join(dir, "generated", "runtime", "stores", engineFile)), engineFile).toBe(false);
    }
    expect(existsSync(join(dir, "generated", "runtime", "stores", "memory.ts"))).toBe(true);
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { dependencies: Json };
    expect(Object.keys(pkg.dependencies)).not.toContain("pg");
    expect(readFileSync(join(dir, "src", "server.ts"), "utf8")).toContain("A2A_STORE_URL is set, but this agent keeps its tasks in memory");
  }, 60_000);

  it("refuses an unknown store, naming the choices", async () => {
    await expect(init({ dir: join(projectTempDir("init-store-"), "x"), spec: "1.0.1", store: "mongo" })).rejects.toThrow(/unknown store "mongo"; stores: memory, postgres, mysql, redis/);
  });

  // The engines that run as servers: each scaffolded agent type-checks, builds and serves from two instances.
  for (const [engine, engineUrlOf] of [
    ["postgres", () => engineUrl("postgres", "init --store postgres with two instances")],
    ["mysql", () => engineUrl("mysql", "init --store mysql with two instances")],
  ] as const) {
    const url = engineUrlOf();
    it.skipIf(!url)(`${engine}: the project type-checks and builds; two instances on one database serve the same tasks`, async () => {
      const dir = await scaffold(engine);
      symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
      const tsc = spawnSync(join(ROOT, "node_modules", ".bin", "tsc"), ["-p", dir], { encoding: "utf8" });
      expect(tsc.status, `${tsc.stdout}${tsc.stderr}`).toBe(0);
      const lines: string[] = [];
      const start = (port: number) =>
        new Promise<string>((resolve, reject) => {
          const child = spawn(process.execPath, [join(dir, "dist", "src", "server.js")], { env: { ...process.env, PORT: String(port), A2A_STORE_URL: url }, stdio: ["ignore", "pipe", "pipe"] });
          children.push(child);
          let out = "";
          child.stdout?.on("data", (d: Buffer) => {
            out += d.toString();
            if (/ listening on /.test(out)) lines.push(out);
            const url = / listening on (http:\/\/\S+) /.exec(out)?.[1];
            if (url) resolve(url);
          });
          child.stderr?.on("data", (d: Buffer) => (out += d.toString()));
          child.once("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
        });
      const [one, two] = await Promise.all([start(0), start(0)]);
      // The start-up line names the store, its URL without a password (issue 29, item 13).
      const shown = new URL(url as string);
      if (shown.password) shown.password = "***";
      expect(lines.join("\n")).toContain(`; tasks in ${engine} at ${shown.href}`);
      const rpc = async (url: string | undefined, method: string, params: Json) => {
        const r = await fetch(`${url}/`, { method: "POST", headers: { "content-type": "application/json", "a2a-version": "1.0" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
        return ((await r.json()) as { result: Json }).result;
      };
      const sent = (await rpc(one, "SendMessage", { message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hello" }] }, configuration: { returnImmediately: true } })) as { task?: Json; message?: Json };
      const taskId = sent.task?.id;
      expect(taskId, JSON.stringify(sent)).toBeDefined();
      expect(await rpc(two, "GetTask", { id: taskId })).toMatchObject({ id: taskId });
    }, 120_000);
  }
});
