/**
 * Issue 34 item 3's acceptance: graceful shutdown of a scaffolded agent (its SIGTERM handler calls
 * `close({ graceMs })`) while two instances (real processes) share one store: a SQLite file always, and
 * PostgreSQL (a database of its own) and Redis (a logical database of its own) when
 * A2A_TEST_POSTGRES_URL / A2A_TEST_REDIS_URL name them (`source .ci/engines.sh`; else skipped, saying so). 20 streaming turns run
 * on instance A; A gets SIGTERM: the turns that end within the grace period complete on A (their streams
 * end with the final event), the others are handed over (their leases expired at once) and their streams
 * end cleanly; each client then resumes on instance B with SubscribeToTask and Last-Event-ID (1.0.1 §3.1.6)
 * and B runs the turn again (a `resumable` executor). No turn is lost, no event is missed (the event ids a
 * client saw are exactly the task's logged events), and A is gone within grace + 1 s (the issue's bound).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { init } from "../../src/scaffold/init.js";
import pg from "pg";
import { createClient } from "@redis/client";
import { PostgresStore } from "../../src/runtime/stores/postgres.js";
import { RedisStore } from "../../src/runtime/stores/redis.js";
import { SqliteStore } from "../../src/runtime/stores/sqlite.js";
import type { A2AStore } from "../../src/runtime/stores/contract.js";
import { engineUrl } from "../support/engines.js";
import { TURN_MARK } from "../../src/runtime/tasks/task-streams.js";
import { projectTempDir, ROOT } from "../support/project.js";

type Json = Record<string, unknown>;
const GRACE_MS = 1_500;
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
});

/** The agent under test: "ticks N" reports N steps 100 ms apart, then completes; run again where it is resumed. */
const AGENT = `// The test's agent.
import type { AgentExecutor } from "../generated/server/core.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const agent: AgentExecutor = {
  resumable: true,
  async execute(ctx, events) {
    const steps = Number(ctx.text.trim().split(" ")[1] ?? 1);
    for (let i = 1; i <= steps; i++) {
      if (ctx.signal.aborted) return;
      events.working(\`step \${i} of \${steps} on \${process.pid}\`);
      await sleep(100);
    }
    events.completed(\`done on \${process.pid}\`);
  },
};
`;

function projectEnv(storeUrl: string | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", PORT: "0", SHUTDOWN_GRACE_MS: String(GRACE_MS) };
  for (const key of Object.keys(env)) if (key.startsWith("VITEST") || key === "NODE_OPTIONS") delete env[key];
  delete env.A2A_STORE_URL;
  if (storeUrl) env.A2A_STORE_URL = storeUrl;
  return env;
}

function start(dir: string, storeUrl: string | undefined): Promise<{ url: string; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(dir, "dist", "src", "server.js")], { cwd: dir, env: projectEnv(storeUrl), stdio: ["ignore", "pipe", "pipe"] });
    children.push(child);
    let out = "";
    const onData = (d: Buffer) => {
      out += d.toString();
      const url = / listening on (http:\/\/[\d.]+:\d+)/.exec(out)?.[1];
      if (url) resolve({ url, child });
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

interface StreamEvent {
  id: number;
  result: Json;
}

/** An SSE stream of JSON-RPC responses, read as it comes: `events`, and `ended` once the server closed it. */
function openStream(url: string, method: string, params: Json, extra: Record<string, string> = {}) {
  const events: StreamEvent[] = [];
  const ended = (async () => {
    const response = await fetch(`${url}/`, {
      method: "POST",
      headers: { "content-type": "application/json", "a2a-version": "1.0", ...extra },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      signal: AbortSignal.timeout(30_000),
    });
    if (!(response.headers.get("content-type") ?? "").startsWith("text/event-stream")) throw new Error(`${method}: ${response.status} ${await response.text()}`);
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const lines = buffer.slice(0, end).split("\n");
        buffer = buffer.slice(end + 2);
        const data = lines.filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("\n");
        if (!data) continue;
        const parsed = JSON.parse(data) as Json;
        if (parsed.error) throw new Error(`${method}: ${JSON.stringify(parsed.error)}`);
        events.push({ id: Number(lines.find((l) => l.startsWith("id:"))?.slice(3).trim()), result: parsed.result as Json });
      }
    }
  })();
  return { events, ended };
}

const stateOf = (result: Json | undefined): unknown => {
  const status = ((result?.statusUpdate ?? result?.task) as Json | undefined)?.status as Json | undefined;
  return status?.state;
};

/** A store the scaffold is generated for: the URL both instances get, and how the test reads it afterwards. */
interface Engine {
  name: "sqlite" | "postgres" | "redis";
  /** A2A_STORE_URL (undefined: the scaffold's default, ./data/agent.db), made for this test alone. */
  prepare(): Promise<string | undefined>;
  open(dir: string, url: string | undefined): Promise<A2AStore>;
  cleanUp(url: string | undefined): Promise<void>;
}

const WHAT = "the graceful shutdown test";
const ENGINES: Engine[] = [
  {
    name: "sqlite",
    prepare: async () => undefined,
    open: (dir) => SqliteStore.connect(`sqlite:${join(dir, "data", "agent.db")}`),
    cleanUp: async () => undefined,
  },
];
const pgUrl = engineUrl("postgres", WHAT);
if (pgUrl) {
  const database = `a2a_shutdown_${process.pid}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  const urlOf = () => {
    const url = new URL(pgUrl);
    url.pathname = `/${database}`;
    return url.href;
  };
  ENGINES.push({
    name: "postgres",
    prepare: async () => {
      await admin(`DROP DATABASE IF EXISTS ${database}`);
      await admin(`CREATE DATABASE ${database}`);
      return urlOf();
    },
    open: (_dir, url) => PostgresStore.connect({ connectionString: url as string }),
    cleanUp: () => admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`),
  });
}
const redisUrl = engineUrl("redis", WHAT);
if (redisUrl) {
  // A logical database no other test uses (they keep to database 0, each under a key prefix of its own).
  const urlOf = () => {
    const url = new URL(redisUrl);
    url.pathname = "/11";
    return url.href;
  };
  const flush = async () => {
    const client = createClient({ url: urlOf() });
    await client.connect();
    await client.flushDb();
    await client.close();
  };
  ENGINES.push({
    name: "redis",
    prepare: async () => {
      await flush();
      return urlOf();
    },
    open: (_dir, url) => RedisStore.connect({ url: url as string }),
    cleanUp: flush,
  });
}

for (const engine of ENGINES) describe(`graceful shutdown of a scaffolded agent on a shared ${engine.name} store (issue 34 item 3)`, () => {
  let dir: string;
  let storeUrl: string | undefined;
  beforeAll(async () => {
    dir = join(projectTempDir("graceful-shutdown-"), "agent");
    await init({ dir, spec: "1.0.1", framework: "node", transports: ["jsonrpc"], codegenSpec: "file:vendor/a2a-codegen.tgz", compat: false, store: engine.name });
    writeFileSync(join(dir, "src", "agent.ts"), AGENT);
    symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
    const tsc = spawnSync(join(ROOT, "node_modules", ".bin", "tsc"), ["-p", dir], { encoding: "utf8" });
    if (tsc.status !== 0) throw new Error(`tsc: ${tsc.stdout}${tsc.stderr}`);
    storeUrl = await engine.prepare();
  }, 180_000);
  afterAll(() => engine.cleanUp(storeUrl));

  it("SIGTERM during 20 streaming turns: none lost, every stream completes or resumes on the other instance with no gap, shutdown within grace + 1 s", async () => {
    const a = await start(dir, storeUrl);
    const b = await start(dir, storeUrl);
    // Half end well within the grace period (5 steps: 0.5 s), half outlive it (40 steps: 4 s).
    const turns = Array.from({ length: 20 }, (_, i) => {
      const steps = i % 2 === 0 ? 5 : 40;
      const stream = openStream(a.url, "SendStreamingMessage", { message: { messageId: `m-${i}`, role: "ROLE_USER", parts: [{ text: `ticks ${steps}` }] } });
      return { steps, stream };
    });
    // Every turn has begun (its task and first step arrived) before the signal.
    for (let i = 0; i < 200 && !turns.every((t) => t.stream.events.length >= 2); i++) await new Promise((r) => setTimeout(r, 20));
    expect(turns.every((t) => t.stream.events.length >= 2)).toBe(true);

    const signalled = Date.now();
    const exited = new Promise<number | null>((resolve) => a.child.once("exit", (code) => resolve(code)));
    a.child.kill("SIGTERM");
    const outcomes = await Promise.allSettled(turns.map((t) => t.stream.ended));
    // Every stream ended cleanly: no error event, no broken connection.
    expect(outcomes.filter((o) => o.status === "rejected")).toEqual([]);
    expect(await exited).toBe(0);
    const shutdownMs = Date.now() - signalled;
    expect(shutdownMs).toBeLessThanOrEqual(GRACE_MS + 1_000);

    let resumed = 0;
    const seen: Array<{ taskId: string; ids: number[] }> = [];
    for (const turn of turns) {
      const events = [...turn.stream.events];
      const taskId = String(((events[0]?.result.task ?? {}) as Json).id);
      if (stateOf(events.at(-1)?.result) !== "TASK_STATE_COMPLETED") {
        // Resumed on B after the last event received (SSE Last-Event-ID).
        resumed++;
        const last = events.at(-1)?.id ?? 0;
        const again = openStream(b.url, "SubscribeToTask", { id: taskId }, { "last-event-id": String(last) });
        await again.ended;
        expect(again.events.length).toBeGreaterThan(0);
        events.push(...again.events);
      }
      expect(stateOf(events.at(-1)?.result), taskId).toBe("TASK_STATE_COMPLETED");
      seen.push({ taskId, ids: events.map((e) => e.id) });
    }
    // The short turns finished on A within the grace period; the long ones were handed over and resumed on B.
    expect(resumed).toBe(10);

    // No gap: each client saw exactly the task's logged events (turn marks are never streamed), in order, once.
    const store = await engine.open(dir, storeUrl);
    try {
      for (const { taskId, ids } of seen) {
        const logged = (await store.events.read(taskId, 0, 10_000)).filter((e) => e.event[TURN_MARK] === undefined).map((e) => e.seq);
        expect(ids, taskId).toEqual(logged);
        const task = (await store.tasks.load(taskId))?.task as Json;
        expect((task.status as Json).state).toBe("TASK_STATE_COMPLETED");
      }
    } finally {
      await store.close();
      b.child.kill("SIGTERM");
    }
  }, 120_000);
});
