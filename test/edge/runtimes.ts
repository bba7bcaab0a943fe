/**
 * The edge runtimes of the runtime tests, all from npm packages (node_modules): workerd through
 * miniflare, Deno (the `deno` package) and Bun (the `bun` package). An agent is bundled with esbuild
 * (platform "neutral": a `node:` import anywhere on its path fails the bundle) and started on each; the
 * tests talk to it over HTTP from Node.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { generateAndWrite } from "../../src/generate.js";
import { ROOT, projectTempDir } from "../support/project.js";

export const RUNTIMES = ["workerd", "deno", "bun"] as const;
export type Runtime = (typeof RUNTIMES)[number];

export interface RunningAgent {
  /** The agent's origin, e.g. http://127.0.0.1:8787 */
  url: string;
  close(): Promise<void>;
}

export const BIN = join(ROOT, "node_modules", ".bin");

/** A folder with the generated 1.0.1 output (frameworks web and hono; `stores`: engines too) in a2a/ and the fixtures beside it. */
export async function agentProject(stores: Array<"redis" | "postgres" | "durable-object"> = []): Promise<string> {
  const dir = projectTempDir("a2a-edge-");
  await generateAndWrite({ spec: "1.0.1", out: join(dir, "a2a"), frameworks: ["web", "hono"], transports: ["jsonrpc", "rest"], stores, cwd: dir });
  cpSync(join(ROOT, "test", "edge", "fixtures"), dir, { recursive: true });
  return dir;
}

/**
 * Bundles an entry of the project (worker.ts, deno.ts, bun.ts) into one ES module; returns its path.
 * Platform "neutral" (the default): nothing of Node may be on the path. Platform "node": for an agent with a
 * store engine's driver (node-redis on node:net), which Deno and Bun run through their Node compatibility.
 */
export async function bundle(dir: string, entry: string, platform: "neutral" | "node" = "neutral"): Promise<string> {
  const outfile = join(dir, "dist", entry.replace(/\.ts$/, ".js"));
  mkdirSync(join(dir, "dist"), { recursive: true });
  const node = platform === "node" ? { banner: { js: 'import { createRequire } from "node:module"; const require = createRequire(import.meta.url);' } } : {};
  await build({ entryPoints: [join(dir, entry)], outfile, bundle: true, format: "esm", platform, target: "es2022", logLevel: "silent", ...node });
  return outfile;
}

/**
 * Why a runtime cannot run on this machine (its binary missing or not starting), undefined when it can: the
 * one case the runtime tests skip. A failure of the agent itself on a runtime that runs is a test failure.
 */
export function runtimeUnavailable(runtime: Runtime): string | undefined {
  const command = runtime === "workerd" ? join(ROOT, "node_modules", "workerd", "bin", "workerd") : join(BIN, runtime);
  if (!existsSync(command)) return `${command} is not installed`;
  const probe = spawnSync(command, ["--version"], { encoding: "utf8", timeout: 20_000 });
  if (probe.status !== 0) return `${runtime} --version failed: ${probe.error?.message ?? (probe.stderr || `exit ${probe.status}`)}`;
  return undefined;
}

export async function startAgent(runtime: Runtime, script: string, env: Record<string, string> = {}): Promise<RunningAgent> {
  if (runtime === "workerd") return startWorkerd(script);
  const args = runtime === "deno" ? ["run", "--allow-net", "--allow-env", "--allow-read", "--allow-sys", "--no-prompt", script] : ["run", script];
  return startProcess(join(BIN, runtime), args, { env });
}

/** Runs a bundled Worker under workerd; its Durable Objects by binding name → class name. */
export async function startWorkerd(
  script: string,
  durableObjects: Record<string, string | { className: string; useSQLite: boolean }> = { A2A_AGENT: "A2AAgent" },
  compatibilityDate = "2025-09-01",
  /** A folder the Durable Objects' storage is kept in (miniflare `durableObjectsPersist`): another start on it finds it again. */
  persist?: string,
): Promise<RunningAgent> {
  const { Miniflare } = await import("miniflare");
  // No nodejs_compat flag: the agent runs on web APIs alone, in a Durable Object (fixtures/worker.ts).
  const mf = new Miniflare({ modules: true, scriptPath: script, compatibilityDate, host: "127.0.0.1", port: 0, durableObjects, ...(persist === undefined ? {} : { durableObjectsPersist: persist }) });
  const url = await mf.ready;
  return { url: url.origin, close: () => mf.dispose() };
}

/** Starts a process that prints `listening on <port>` (or `listening on http://host:<port>`); rejects with its output when it exits first or takes over 20 s. */
export function startProcess(command: string, args: string[], options: { env?: Record<string, string>; cwd?: string } = {}): Promise<RunningAgent> {
  if (!existsSync(command)) return Promise.reject(new Error(`${command} is not installed`));
  const child: ChildProcess = spawn(command, args, { cwd: options.cwd, env: { ...process.env, NO_COLOR: "1", ...options.env }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`no "listening on" within 20 s:\n${output}`)), 20_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(error);
    };
    child.on("error", fail);
    child.on("exit", (code) => fail(new Error(`exited (${code}) before listening:\n${output}`)));
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (?:http:\/\/[\w.]+:)?(\d+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      child.removeAllListeners("exit");
      resolve({
        url: `http://127.0.0.1:${match[1]}`,
        close: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once("exit", () => done());
            child.kill("SIGTERM");
          }),
      });
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  });
}
