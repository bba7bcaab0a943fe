/**
 * Issue 36: a scaffolded agent is durable by default. `init` (no --store) generates the SQLite store and
 * the agent keeps its tasks in ./data/agent.db, created on first start; after `kill -9` and a restart,
 * GetTask returns the task with its history (1.0.1 §3.1.3) and a stream resumes after the Last-Event-ID it
 * names (1.0.1 §3.1.6, SubscribeToTask), and a push notification still in the outbox when the process died
 * is sent by the restarted agent (1.0.1 §3.2.2 taskPushNotificationConfig; delivery is at least once). The
 * project is made by init() inside this checkout and gets its node_modules (the fast pattern of
 * scaffold-start.test.ts); its compiled server is run.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { init } from "../../src/scaffold/init.js";
import { projectTempDir, ROOT } from "../support/project.js";

type Json = Record<string, unknown>;
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
});

function projectEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", PORT: "0" };
  for (const key of Object.keys(env)) if (key.startsWith("VITEST") || key === "NODE_OPTIONS") delete env[key];
  delete env.A2A_STORE_URL;
  return env;
}

/** Starts the compiled server; resolves its URL and start-up output once it listens. */
function start(dir: string): Promise<{ url: string; out: string; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(dir, "dist", "src", "server.js")], { cwd: dir, env: projectEnv(), stdio: ["ignore", "pipe", "pipe"] });
    children.push(child);
    let out = "";
    const onData = (d: Buffer) => {
      out += d.toString();
      const url = / listening on (http:\/\/[\d.]+:\d+)/.exec(out)?.[1];
      if (url) resolve({ url, out, child });
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

let rpcId = 0;
const body = (method: string, params: Json) => JSON.stringify({ jsonrpc: "2.0", id: ++rpcId, method, params });
const headers = (extra: Record<string, string> = {}) => ({ "content-type": "application/json", "a2a-version": "1.0", ...extra });

/** Reads SSE events ({id, data}) from a response until `enough` says so, then aborts the request. */
async function readEvents(url: string, method: string, params: Json, enough: (events: Array<{ id: number; data: Json }>) => boolean, extra: Record<string, string> = {}) {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 20_000);
  const response = await fetch(`${url}/`, { method: "POST", headers: headers(extra), body: body(method, params), signal: abort.signal });
  const events: Array<{ id: number; data: Json }> = [];
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const lines = block.split("\n");
        const data = lines.filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("\n");
        if (!data) continue;
        const parsed = JSON.parse(data) as Json;
        events.push({ id: Number(lines.find((l) => l.startsWith("id:"))?.slice(3).trim()), data: (parsed.result ?? parsed) as Json });
      }
      if (enough(events)) break;
    }
  } catch (error) {
    if (!abort.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
  return events;
}

describe("a scaffolded agent, durable by default (issue 36)", () => {
  let dir: string;
  beforeAll(async () => {
    dir = join(projectTempDir("scaffold-durable-"), "agent");
    await init({ dir, spec: "1.0.1", framework: "node", transports: ["jsonrpc"], codegenSpec: "file:vendor/a2a-codegen.tgz", compat: false });
    // What a user does to turn push notifications on (the scaffold's card says false): the capability in
    // the card, and the webhook host allowed (127.0.0.1 here; the sender refuses loopback by default), with
    // no immediate retries, so that a failed delivery goes back to the outbox at once.
    const server = join(dir, "src", "server.ts");
    const source = readFileSync(server, "utf8");
    const create = "createA2AServer({ card, executor: agent, store })";
    if (!source.includes(create)) throw new Error(`src/server.ts no longer calls ${create}`);
    writeFileSync(
      server,
      source.replace(
        create,
        'createA2AServer({ card: { ...card, capabilities: { ...card.capabilities, pushNotifications: true } }, executor: agent, store, pushNotifications: { allow: ["127.0.0.1"], retries: 0 } })',
      ),
    );
    symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
    const tsc = spawnSync(join(ROOT, "node_modules", ".bin", "tsc"), ["-p", dir], { encoding: "utf8" });
    if (tsc.status !== 0) throw new Error(`tsc: ${tsc.stdout}${tsc.stderr}`);
  }, 180_000);

  it("init without --store generates the SQLite store, depends on better-sqlite3 and ignores data/", () => {
    expect(JSON.parse(readFileSync(join(dir, "a2a-codegen.config.json"), "utf8"))).toMatchObject({ stores: ["sqlite"] });
    expect(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).dependencies).toHaveProperty("better-sqlite3");
    expect(existsSync(join(dir, "generated", "runtime", "stores", "sqlite.ts"))).toBe(true);
    expect(existsSync(join(dir, "generated", "runtime", "stores", "postgres.ts"))).toBe(false);
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toMatch(/^data\/$/m);
  });

  it("refuses an A2A_STORE_URL of another engine in one line, without echoing it", () => {
    const r = spawnSync(process.execPath, [join(dir, "dist", "src", "server.js")], { cwd: dir, env: { ...projectEnv(), A2A_STORE_URL: "postgres://agent:s3cret@127.0.0.1:1/db" }, encoding: "utf8", timeout: 60_000 });
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe(
      'agent: A2A_STORE_URL: this agent keeps its tasks in SQLite and takes sqlite:<path> (or file:<path>); for another engine, scaffold it with --store postgres|mysql|redis (or add it to "stores" in a2a-codegen.config.json)',
    );
    expect(`${r.stdout}${r.stderr}`).not.toContain("s3cret");
  });

  it("survives kill -9: GetTask returns the task with its history, and the stream resumes after Last-Event-ID", async () => {
    expect(existsSync(join(dir, "data", "agent.db"))).toBe(false);
    const first = await start(dir);
    expect(first.out).toMatch(/; tasks in sqlite at \.\/data\/agent\.db/);
    expect(existsSync(join(dir, "data", "agent.db"))).toBe(true);
    const words = Array.from({ length: 200 }, (_, i) => `w${i}`);
    const message = { messageId: "m-durable", role: "ROLE_USER", parts: [{ text: `stream ${words.join(" ")}` }] };
    // Streams the long task until a few of its chunks arrived, then the process dies at once.
    const before = await readEvents(first.url, "SendStreamingMessage", { message }, (events) => events.length >= 6);
    first.child.kill("SIGKILL");
    await new Promise((r) => first.child.once("exit", r));
    const taskId = String(((before[0]?.data.task ?? before[0]?.data) as Json).id);
    expect(taskId).not.toBe("undefined");
    for (const e of before.slice(1)) expect(Number.isInteger(e.id)).toBe(true);

    const second = await start(dir);
    const got = (await (await fetch(`${second.url}/`, { method: "POST", headers: headers(), body: body("GetTask", { id: taskId }) })).json()) as { result: Json };
    const task = got.result as { id: string; history: Array<{ role: string; parts: Array<{ text?: string }> }>; artifacts?: Array<{ parts: Array<{ text?: string }> }> };
    expect(task.id).toBe(taskId);
    expect(task.history[0]).toMatchObject({ role: "ROLE_USER", parts: [{ text: message.parts[0]!.text }] });
    // The chunks streamed before the kill are in the task's artifact.
    expect(task.artifacts?.[0]?.parts.map((p) => p.text).join("")).toMatch(/^w0 w1 w2 /);

    // SubscribeToTask with Last-Event-ID (from the middle of what the first stream got): the events after
    // it, in order, the ones the first stream got after it first (read back from the file), none at or before it.
    const middle = before[2]!;
    const expected = before.filter((e) => e.id > middle.id);
    const resumed = await readEvents(second.url, "SubscribeToTask", { id: taskId }, (events) => events.length >= expected.length, { "last-event-id": String(middle.id) });
    expect(resumed.slice(0, expected.length).map((e) => e.id)).toEqual(expected.map((e) => e.id));
    expect(resumed.slice(0, expected.length).map((e) => e.data)).toEqual(expected.map((e) => e.data));
    resumed.slice(1).forEach((e, k) => expect(e.id).toBeGreaterThan(resumed[k]!.id));
    second.child.kill("SIGTERM");
  }, 60_000);

  it("sends after a restart the push notification that was pending in the outbox when the process was killed", async () => {
    // The webhook fails every delivery (503) until the agent has been killed, then accepts.
    let accepting = false;
    const failed: Json[] = [];
    const delivered: Json[] = [];
    const hook = createServer((req: IncomingMessage, res: ServerResponse) => {
      let text = "";
      req.on("data", (d: Buffer) => (text += d.toString()));
      req.on("end", () => {
        (accepting ? delivered : failed).push(JSON.parse(text) as Json);
        res.writeHead(accepting ? 200 : 503).end();
      });
    });
    await new Promise<void>((r) => hook.listen(0, "127.0.0.1", r));
    const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
    try {
      const first = await start(dir);
      const sent = (await (
        await fetch(`${first.url}/`, {
          method: "POST",
          headers: headers(),
          body: body("SendMessage", { message: { messageId: "m-push", role: "ROLE_USER", parts: [{ text: "stream one two three" }] }, configuration: { taskPushNotificationConfig: { url: hookUrl, token: "t-push" } } }),
        })
      ).json()) as { result: { task?: Json } };
      expect(sent, JSON.stringify(sent)).toHaveProperty("result.task");
      const taskId = String(sent.result.task?.id);
      expect(sent.result.task).toMatchObject({ status: { state: "TASK_STATE_COMPLETED" } });
      // A delivery was attempted and failed: the notification went back to the outbox (due again in 1 s).
      const until = Date.now() + 20_000;
      while (failed.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      expect(failed.length).toBeGreaterThan(0);
      await new Promise((r) => setTimeout(r, 200));
      first.child.kill("SIGKILL");
      await new Promise((r) => first.child.once("exit", r));
      expect(delivered).toEqual([]);

      accepting = true;
      const second = await start(dir);
      // The restarted agent claims the pending notification (once it is due, or once the dead process's
      // claim on it expired) and delivers it: the completed task.
      const deadline = Date.now() + 45_000;
      const completed = () => delivered.some((b) => JSON.stringify(b).includes(taskId) && JSON.stringify(b).includes("TASK_STATE_COMPLETED"));
      while (!completed() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(completed(), JSON.stringify({ failed, delivered })).toBe(true);
      second.child.kill("SIGTERM");
    } finally {
      await new Promise<void>((r) => hook.close(() => r()));
    }
  }, 90_000);
});
