/**
 * Issue 11's acceptance, with real processes: three instances of a generated 1.0.1 agent (generated with
 * `--store postgres,mysql,redis`, each its own Node process) on one engine, behind a small round-robin proxy
 * on 127.0.0.1. Send on one, get/list/cancel/subscribe on the others; multi-turn across instances;
 * concurrent sends to one task from two instances; 10,000 tasks through the proxy with none lost; kill -9
 * of the instance running a long task: the subscribers on another instance get the terminal event within
 * the lease time, the task is readable, and its webhook is delivered by a live instance (the outbox).
 * Engines: `source .ci/engines.sh` (A2A_TEST_POSTGRES_URL, A2A_TEST_REDIS_URL); see test/support/stores/engines-under-test.ts.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate } from "../../../src/generate.js";
import { testCard } from "../../support/servers.js";
import { sseCall } from "../../support/wire/jsonrpc.js";
import { scriptEngine } from "../../support/stores/contract.js";
import { enginesUnderTest, freshNamespace } from "../../support/stores/engines-under-test.js";

type Json = Record<string, unknown>;
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const WORK = join(ROOT, "node_modules", ".cache", `a2a-multi-instance-${process.pid}`);
const LEASE_MS = 1_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const AGENT = `
import { createA2AServer } from "./gen/server/core.js";
import { createNodeServer } from "./gen/server/node.js";
import { connectStore } from "./gen/runtime/stores/connect.js";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const ns = process.env.NS;
const store = await connectStore(process.env.A2A_STORE_URL, { postgres: { tablePrefix: ns + "_" }, mysql: { tablePrefix: ns + "_" }, redis: { keyPrefix: ns + ":" } });
const executor = {
  async execute(c, events) {
    const text = c.text.trim();
    if (text === "hang") {
      events.working("hanging");
      while (!c.signal.aborted) await sleep(10);
      return;
    }
    if (text.startsWith("tick")) {
      for (let i = 1; i <= Number(text.split(" ")[1]); i++) { events.working("tick " + i); await sleep(10); }
      events.completed("ticked");
      return;
    }
    if (text === "ask" || c.task) { await sleep(10); events.inputRequired("got " + text + " on " + process.env.INSTANCE); return; }
    events.completed("done " + text);
  },
};
const server = createA2AServer({
  card: JSON.parse(process.env.CARD),
  executor,
  store,
  instanceId: process.env.INSTANCE,
  leaseMs: Number(process.env.LEASE_MS),
  pushNotifications: { allow: ["127.0.0.1"], retries: 0, backoffMs: 10, timeoutMs: 2000 },
  logger: { error: () => undefined, warn: () => undefined },
});
const http = createNodeServer(server);
http.listen(0, "127.0.0.1", () => console.log(JSON.stringify({ port: http.address().port })));
`;

const { engines } = enginesUnderTest("the multi-instance tests");
const durable = engines.filter((e) => e.name !== "memory");

beforeAll(async () => {
  if (durable.length === 0) return;
  const result = await generate({ spec: "1.0.1", stores: ["postgres", "mysql", "redis", "sqlite"], frameworks: ["node"], out: join(WORK, "gen") });
  for (const [path, text] of Object.entries(result.files)) {
    const out = join(WORK, "src", path);
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, text);
  }
  // Compiled to JavaScript once (no type check: the compile tests do that), for plain `node` processes.
  const config = { compilerOptions: { target: "es2022", module: "nodenext", moduleResolution: "nodenext", outDir: "gen", rootDir: "src", noCheck: true, skipLibCheck: true, types: [] }, include: ["src/**/*.ts"] };
  writeFileSync(join(WORK, "tsconfig.json"), JSON.stringify(config));
  writeFileSync(join(WORK, "package.json"), JSON.stringify({ type: "module" }));
  const run = spawnSync(join(ROOT, "node_modules", ".bin", "tsc"), ["-p", join(WORK, "tsconfig.json")], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(`tsc: ${run.stdout}${run.stderr}`);
  writeFileSync(join(WORK, "agent.mjs"), AGENT);
}, 120_000);
afterAll(() => rmSync(WORK, { recursive: true, force: true }));

interface Instance {
  name: string;
  url: string;
  child: ChildProcess;
}

async function startInstance(name: string, storeUrl: string, ns: string): Promise<Instance> {
  const card = testCard("1.0.1");
  const child = spawn(process.execPath, [join(WORK, "agent.mjs")], {
    env: { ...process.env, NS: ns, A2A_STORE_URL: storeUrl, INSTANCE: name, LEASE_MS: String(LEASE_MS), CARD: JSON.stringify(card) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once("exit", (code) => reject(new Error(`instance ${name} exited (${code}): ${stderr}`)));
  });
  return { name, url: `http://127.0.0.1:${port}/a2a`, child };
}

/** A round-robin reverse proxy over the instances (streams pass through as they come). */
async function roundRobin(instances: Instance[]): Promise<{ url: string; server: Server }> {
  let next = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const target = new URL(instances[next++ % instances.length]!.url);
    const upstream = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/a2a`, server };
}

let rpcId = 0;
async function rpc(url: string, method: string, params: Json): Promise<Json> {
  const response = await fetch(url, {
    signal: AbortSignal.timeout(20_000),
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0" },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++rpcId, method, params }),
  });
  const body = (await response.json()) as { result?: Json; error?: Json };
  if (body.error) throw Object.assign(new Error(`${method}: ${JSON.stringify(body.error)}`), { rpc: body.error });
  return body.result as Json;
}


const message = (text: string, over: Json = {}) => ({ messageId: `m-${Math.random()}`, role: "ROLE_USER", parts: [{ text }], ...over });
const taskOf = (result: Json) => result.task as Json;
const stateOf = (event: Json) => ((event.task ?? event.statusUpdate) as { status?: { state?: string } } | undefined)?.status?.state;

for (const engine of durable) {
  describe(`three agent processes on ${engine.name}, behind a round-robin proxy`, () => {
    const ns = freshNamespace();
    const storeUrl = engine.url as string;
    let instances: Instance[] = [];
    let proxy: { url: string; server: Server };
    beforeAll(async () => {
      // One namespace per suite (table / key prefix), created by the first instance, migrated once.
      instances = await Promise.all(["i0", "i1", "i2"].map((n) => startInstance(n, storeUrl, ns)));
      proxy = await roundRobin(instances);
    }, 60_000);
    afterAll(async () => {
      for (const i of instances) i.child.kill("SIGKILL");
      await new Promise<void>((r) => proxy?.server.close(() => r()));
      await engine.drop(ns).catch(() => undefined);
    });

    it("sends on one instance; gets, lists, subscribes and cancels on the others; multi-turn across instances", async () => {
      const [i0, i1, i2] = instances as [Instance, Instance, Instance];
      const contextId = `ctx-${Math.random()}`;
      const task = taskOf(await rpc(i0.url, "SendMessage", { message: message("ask", { contextId }) }));
      expect(await rpc(i1.url, "GetTask", { id: task.id })).toMatchObject({ id: task.id, status: { state: "TASK_STATE_INPUT_REQUIRED" } });
      expect(((await rpc(i2.url, "ListTasks", { contextId })) as { tasks: Json[] }).tasks.map((t) => t.id)).toEqual([task.id]);
      // Multi-turn: each turn on another instance, the history whole.
      await rpc(i1.url, "SendMessage", { message: message("two", { taskId: task.id }) });
      await rpc(i2.url, "SendMessage", { message: message("three", { taskId: task.id }) });
      const history = ((await rpc(i0.url, "GetTask", { id: task.id })) as { history: Array<{ parts: Array<{ text: string }> }> }).history.map((m) => m.parts[0]?.text);
      expect(history).toEqual(["ask", "got ask on i0", "two", "got two on i1", "three", "got three on i2"]);
      // A stream started on one instance, followed from another: every event, in order.
      const started = await rpc(i0.url, "SendMessage", { message: message("tick 20"), configuration: { returnImmediately: true } });
      const followed = await sseCall(i1.url, "SubscribeToTask", { id: taskOf(started).id });
      expect(followed.map((e) => stateOf(e.data)).at(-1)).toBe("TASK_STATE_COMPLETED");
      const ids = followed.map((e) => Number(e.id));
      ids.slice(1).forEach((id, k) => expect(id).toBeGreaterThan(ids[k] as number));
      // Resuming from the middle with Last-Event-ID on a third instance: exactly the rest.
      const middle = followed[Math.floor(followed.length / 2)]!;
      const rest = await sseCall(i2.url, "SubscribeToTask", { id: taskOf(started).id }, { "last-event-id": String(middle.id) });
      expect(rest.map((e) => e.id)).toEqual(followed.filter((e) => Number(e.id) > Number(middle.id)).map((e) => e.id));
      // Cancel on another instance than the one running it.
      const hanging = taskOf(await rpc(i0.url, "SendMessage", { message: message("hang"), configuration: { returnImmediately: true } }));
      expect(await rpc(i2.url, "CancelTask", { id: hanging.id })).toMatchObject({ status: { state: "TASK_STATE_CANCELED" } });
      expect(await rpc(i1.url, "GetTask", { id: hanging.id })).toMatchObject({ status: { state: "TASK_STATE_CANCELED" } });
    }, 60_000);

    it("applies concurrent sends to one task from two instances, in some order, none lost", async () => {
      const [i0, i1, i2] = instances as [Instance, Instance, Instance];
      const task = taskOf(await rpc(i0.url, "SendMessage", { message: message("ask") }));
      await Promise.all([
        rpc(i1.url, "SendMessage", { message: message("x", { taskId: task.id }) }),
        rpc(i2.url, "SendMessage", { message: message("y", { taskId: task.id }) }),
        rpc(i1.url, "SendMessage", { message: message("z", { taskId: task.id }) }),
      ]);
      const history = ((await rpc(i0.url, "GetTask", { id: task.id })) as { history: Array<{ role: string; parts: Array<{ text: string }> }> }).history;
      expect(history).toHaveLength(8);
      history.forEach((m, k) => expect(m.role).toBe(k % 2 === 0 ? "ROLE_USER" : "ROLE_AGENT"));
      for (let k = 0; k < 8; k += 2) expect(history[k + 1]?.parts[0]?.text).toMatch(new RegExp(`^got ${history[k]?.parts[0]?.text} on i\\d$`));
    }, 30_000);

    it("takes 10,000 tasks through the proxy and loses none", async () => {
      const contextId = `bulk-${Math.random()}`;
      const sent = new Set<string>();
      // JSON-RPC batches of 25 SendMessage (each one task, run by the instance the proxy picked), 24 at a time.
      let next = 0;
      const started = Date.now();
      await Promise.all(
        Array.from({ length: 24 }, async () => {
          while (next < 10_000) {
            const from = next;
            next += 25;
            const batch = Array.from({ length: Math.min(25, 10_000 - from) }, (_, k) => ({
              jsonrpc: "2.0",
              id: from + k,
              method: "SendMessage",
              params: { message: message(`n${from + k}`, { contextId }) },
            }));
            const response = await fetch(proxy.url, { method: "POST", headers: { "content-type": "application/json", "a2a-version": "1.0" }, body: JSON.stringify(batch) });
            const answers = (await response.json()) as Array<{ result?: { task: Json }; error?: unknown }>;
            expect(answers).toHaveLength(batch.length);
            for (const answer of answers) {
              expect(answer.error).toBeUndefined();
              expect(answer.result?.task.status).toMatchObject({ state: "TASK_STATE_COMPLETED" });
              sent.add(String(answer.result?.task.id));
            }
          }
        }),
      );
      const elapsed = Date.now() - started;
      expect(sent.size).toBe(10_000);
      const listed = new Set<string>();
      let pageToken = "";
      let total = 0;
      do {
        const page = (await rpc(proxy.url, "ListTasks", { contextId, pageSize: 100, ...(pageToken ? { pageToken } : {}) })) as { tasks: Json[]; nextPageToken: string; totalSize: number };
        for (const t of page.tasks) listed.add(String(t.id));
        total = page.totalSize;
        pageToken = page.nextPageToken;
      } while (pageToken);
      expect(total).toBe(10_000);
      expect([...sent].filter((id) => !listed.has(id))).toEqual([]);
      console.log(`${engine.name}: 10,000 tasks through 3 instances in ${elapsed} ms (${Math.round(10_000_000 / elapsed)} tasks/s)`);
    }, 180_000);

    it("kill -9 of the instance running a long task: subscribers elsewhere get FAILED within the lease time, the webhook is delivered", async () => {
      const [i0, i1, i2] = instances as [Instance, Instance, Instance];
      const received: Json[] = [];
      const hooks = createServer((req, res) => {
        let body = "";
        req.on("data", (d: Buffer) => (body += d.toString()));
        req.on("end", () => {
          received.push(JSON.parse(body) as Json);
          res.writeHead(200).end();
        });
      });
      await new Promise<void>((r) => hooks.listen(0, "127.0.0.1", r));
      try {
        const hookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hook`;
        const task = taskOf(
          await rpc(i0.url, "SendMessage", { message: message("hang"), configuration: { returnImmediately: true, taskPushNotificationConfig: { url: hookUrl, token: "t" } } }),
        );
        const following = sseCall(i1.url, "SubscribeToTask", { id: task.id });
        await sleep(200);
        i0.child.kill("SIGKILL");
        const killedAt = Date.now();
        const events = await following;
        const waited = Date.now() - killedAt;
        expect(stateOf(events.at(-1)!.data)).toBe("TASK_STATE_FAILED");
        expect(JSON.stringify(events.at(-1)!.data)).toContain("stopped before the task finished");
        expect(waited).toBeLessThan(LEASE_MS * 4);
        expect(await rpc(i2.url, "GetTask", { id: task.id })).toMatchObject({ status: { state: "TASK_STATE_FAILED" } });
        const until = Date.now() + 5_000;
        while (!received.some((b) => JSON.stringify(b).includes("TASK_STATE_FAILED")) && Date.now() < until) await sleep(20);
        expect(received.some((b) => (b.task as Json | undefined)?.id === task.id && JSON.stringify(b).includes("TASK_STATE_FAILED"))).toBe(true);
      } finally {
        await new Promise<void>((r) => hooks.close(() => r()));
      }
    }, 30_000);

  // An engine that runs as a server of its own restarts under load; SQLite is a file in the process (its
  // reopening is tested in test/runtime/stores/sqlite.test.ts).
  const privateEngine = engine.name === "postgres" || engine.name === "mysql" || engine.name === "redis" ? scriptEngine(engine.name) : undefined;
  if (engine.name === "postgres" || engine.name === "mysql" || engine.name === "redis") it.skipIf(!privateEngine)(`${engine.name} restarting under load: clean -32603 errors while it is down, service resumes by itself, no task corrupted`, async () => {
    const control = await privateEngine!();
    const ns = freshNamespace();
    const pair = await Promise.all(["r0", "r1"].map((n) => startInstance(n, control.url, ns)));
    try {
      const contextId = `restart-${Math.random()}`;
      const answered = new Map<string, string>();
      const errors: Json[] = [];
      let stop = false;
      const load = Array.from({ length: 6 }, async (_, k) => {
        while (!stop) {
          try {
            const task = taskOf(await rpc(pair[k % 2]!.url, "SendMessage", { message: message(`r${k}`, { contextId }) }));
            answered.set(String(task.id), String((task.status as Json).state));
          } catch (error) {
            const rpcError = (error as { rpc?: Json }).rpc;
            // Only the clean answer: no transport failure, no hang (fetch gives up after 20 s), no stack.
            expect(rpcError, String(error)).toBeDefined();
            errors.push(rpcError as Json);
            await sleep(50);
          }
        }
      });
      await sleep(500);
      // Longer than the ~3 s an update retries for: some sends must fail (cleanly).
      await control.stop();
      await sleep(5_000);
      await control.start();
      // Recovery by itself: sends succeed again on both instances.
      const until = Date.now() + 30_000;
      let recovered = 0;
      while (recovered < 2 && Date.now() < until) {
        recovered = 0;
        for (const i of pair) {
          try {
            await rpc(i.url, "SendMessage", { message: message("after", { contextId }) });
            recovered++;
          } catch {
            await sleep(200);
          }
        }
      }
      stop = true;
      await Promise.all(load);
      expect(recovered).toBe(2);
      expect(errors.length).toBeGreaterThan(0);
      for (const e of errors) expect(e).toMatchObject({ code: -32603, message: "The task store is unavailable; try again later" });
      expect(JSON.stringify(errors)).not.toMatch(/ECONN|at .*\.js/);
      // Every task answered as completed is stored completed; no stored task is half-written.
      for (const [id, state] of answered) {
        expect(state).toBe("TASK_STATE_COMPLETED");
        expect(await rpc(pair[0]!.url, "GetTask", { id })).toMatchObject({ id, status: { state: "TASK_STATE_COMPLETED" } });
      }
      let pageToken = "";
      do {
        const page = (await rpc(pair[1]!.url, "ListTasks", { contextId, pageSize: 100, ...(pageToken ? { pageToken } : {}) })) as { tasks: Json[]; nextPageToken: string };
        for (const t of page.tasks) expect((t.status as Json).state).toBe("TASK_STATE_COMPLETED");
        pageToken = page.nextPageToken;
      } while (pageToken);
    } finally {
      for (const i of pair) i.child.kill("SIGKILL");
      await control.down();
    }
  }, 120_000);
  });
}
