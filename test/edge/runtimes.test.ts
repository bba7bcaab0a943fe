/**
 * The protocol suite against a generated A2A 1.0.1 agent (framework "web": the web-standard fetch
 * handler) running on the real edge runtimes from npm packages: workerd (Cloudflare Workers, through
 * miniflare, without nodejs_compat), Deno and Bun. The agent is bundled with esbuild for a neutral
 * platform, so a `node:` import anywhere on its path fails the bundle (and the test).
 *
 * A runtime that cannot start on this machine skips its tests with a message naming it; under CI=true
 * it fails instead.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentProject, bundle, RUNTIMES, runtimeUnavailable, startAgent, type RunningAgent, type Runtime } from "./runtimes.js";

type Json = Record<string, unknown>;
const ENTRY: Record<Runtime, string> = { workerd: "worker.ts", deno: "deno.ts", bun: "bun.ts" };
const HONO_ENTRY: Record<Runtime, string> = { workerd: "hono-worker.ts", deno: "hono-deno.ts", bun: "hono-bun.ts" };
const V1 = { "content-type": "application/json", "a2a-version": "1.0" };

let project: Promise<string> | undefined;
const projectOnce = () => (project ??= agentProject());

/** A webhook receiver on 127.0.0.2 (the agent allow-lists that address, no other loopback one): the push notifications it got. */
const received: Array<{ headers: IncomingHttpHeaders; body: Json }> = [];
let hook: Server;
let hookUrl: string;
beforeAll(async () => {
  hook = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      received.push({ headers: req.headers, body: JSON.parse(body) as Json });
      res.end("ok");
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, "127.0.0.2", resolve));
  hookUrl = `http://127.0.0.2:${(hook.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise<void>((resolve) => (hook.closeAllConnections(), hook.close(() => resolve()))));

const message = (text: string) => ({ messageId: `m-${Math.random().toString(36).slice(2)}`, role: "ROLE_USER", parts: [{ text }] });

/** Reads Server-Sent Events until the stream ends or `until` says enough. */
async function readEvents(response: Response, until: (event: Json) => boolean = () => false): Promise<Json[]> {
  const events: Json[] = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return events;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = block.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("\n");
        if (data === "") continue;
        const event = JSON.parse(data) as Json;
        events.push(event);
        if (until(event)) return events;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

const stateOf = (event: Json) => (((event.result as Json | undefined)?.statusUpdate as Json | undefined)?.status as Json | undefined)?.state;

for (const runtime of RUNTIMES) {
  describe(`the protocol suite on ${runtime}`, () => {
    let agent: RunningAgent | undefined;
    let unavailable: string | undefined;
    beforeAll(async () => {
      const script = await bundle(await projectOnce(), ENTRY[runtime]);
      unavailable = runtimeUnavailable(runtime);
      if (unavailable !== undefined) {
        if (process.env["CI"] === "true") throw new Error(`${runtime} cannot start on this machine: ${unavailable}`);
        console.warn(`SKIPPED: ${runtime} cannot start on this machine: ${unavailable}`);
        return;
      }
      agent = await startAgent(runtime, script);
    });
    afterAll(async () => agent?.close());

    const test = (name: string, body: () => Promise<void>) =>
      it(name, async (ctx) => {
        if (unavailable !== undefined) ctx.skip(`${runtime} cannot start on this machine: ${unavailable}`);
        await body();
      });
    let nextId = 1;
    const post = (body: string, path = "/a2a") => fetch(`${agent!.url}${path}`, { method: "POST", headers: V1, body });
    const call = async (method: string, params: unknown): Promise<Json> => (await (await post(JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params }))).json()) as Json;
    const result = async (method: string, params: unknown): Promise<Json> => {
      const answer = await call(method, params);
      expect(answer.error).toBeUndefined();
      return answer.result as Json;
    };
    const startSlowTask = async () => ((await result("SendMessage", { message: message("slow"), configuration: { returnImmediately: true } })).task as Json).id as string;

    test("serves the agent card (1.0.1 §8.2)", async () => {
      const response = await fetch(`${agent!.url}/.well-known/agent-card.json`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ name: "Edge Agent", capabilities: { streaming: true, pushNotifications: true } });
    });

    test("SendMessage answers a message and runs a task to completion (1.0.1 §3.1.1, §9.4.1)", async () => {
      expect(await result("SendMessage", { message: message("hello") })).toMatchObject({ message: { role: "ROLE_AGENT", parts: [{ text: "hello back" }] } });
      const { task } = await result("SendMessage", { message: message("task") });
      expect(task).toMatchObject({ status: { state: "TASK_STATE_COMPLETED" }, artifacts: [{ artifactId: "result", parts: [{ text: "the result" }] }] });
      // GetTask (§3.1.3) finds it, on JSON-RPC and on HTTP+JSON (§11.3: GET /tasks/{id}).
      const id = (task as Json).id as string;
      expect(await result("GetTask", { id })).toMatchObject({ id, status: { state: "TASK_STATE_COMPLETED" } });
      const rest = await fetch(`${agent!.url}/a2a/tasks/${id}`, { headers: { "a2a-version": "1.0" } });
      expect(rest.status).toBe(200);
      expect(await rest.json()).toMatchObject({ id, status: { state: "TASK_STATE_COMPLETED" } });
    });

    test("SendStreamingMessage streams the artifact in chunks over SSE, then the final status (1.0.1 §3.1.2, §3.5.2)", async () => {
      const response = await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params: { message: message("stream") } }));
      expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
      const events = await readEvents(response);
      const chunks = events.flatMap((e) => (((e.result as Json).artifactUpdate as Json | undefined)?.artifact as Json | undefined)?.parts as Array<{ text: string }> ?? []).map((p) => p.text);
      expect(chunks).toEqual(["once ", "upon ", "a time"]);
      expect(stateOf(events.at(-1)!)).toBe("TASK_STATE_COMPLETED");
    });

    test("CancelTask cancels a running task (1.0.1 §3.1.5)", async () => {
      const id = await startSlowTask();
      expect(await result("CancelTask", { id })).toMatchObject({ id, status: { state: "TASK_STATE_CANCELED" } });
      expect(await result("GetTask", { id })).toMatchObject({ status: { state: "TASK_STATE_CANCELED" } });
    });

    test("SubscribeToTask: two subscribers of a running task both see it canceled, then the streams end (1.0.1 §3.1.6)", async () => {
      const id = await startSlowTask();
      const subscribe = () => post(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "SubscribeToTask", params: { id } }));
      const first = await subscribe();
      const again = await subscribe();
      const reading = [readEvents(first), readEvents(again)];
      await result("CancelTask", { id });
      for (const events of await Promise.all(reading)) {
        // The first event is the task as it stands (§3.1.6), the last its canceled status.
        expect((events[0]?.result as Json).task).toMatchObject({ id });
        expect(stateOf(events.at(-1)!)).toBe("TASK_STATE_CANCELED");
      }
    });

    test("push notification configs: create, get, list, a notification on the webhook, delete (1.0.1 §3.1.7–3.1.10, §3.5.3)", async () => {
      const taskId = await startSlowTask();
      const created = await result("CreateTaskPushNotificationConfig", { taskId, url: hookUrl, token: `tok-${runtime}` });
      expect(created).toMatchObject({ taskId, url: hookUrl, token: `tok-${runtime}` });
      const id = created.id as string;
      expect(await result("GetTaskPushNotificationConfig", { taskId, id })).toMatchObject({ id, url: hookUrl });
      expect(((await result("ListTaskPushNotificationConfigs", { taskId })).configs as Json[]).map((c) => c.id)).toEqual([id]);
      await result("CancelTask", { id: taskId });
      const deadline = Date.now() + 10_000;
      const mine = () => received.find((r) => r.headers["x-a2a-notification-token"] === `tok-${runtime}` && JSON.stringify(r.body).includes("TASK_STATE_CANCELED"));
      while (!mine() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(JSON.stringify(mine()?.body)).toContain(taskId);
      await result("DeleteTaskPushNotificationConfig", { taskId, id });
      expect((await result("ListTaskPushNotificationConfigs", { taskId })).configs ?? []).toEqual([]);
    });

    test("refuses a webhook URL that points inside, in any spelling (SSRF guard)", async () => {
      const taskId = await startSlowTask();
      for (const url of ["http://169.254.169.254/latest", "http://0x7f.0.0.3/", "http://[::ffff:10.0.0.1]/", "http://user:pw@hooks.example.com/"]) {
        expect(await call("CreateTaskPushNotificationConfig", { taskId, url })).toMatchObject({ error: { code: -32602 } });
      }
      await result("CancelTask", { id: taskId });
    });

    // The node transport (Deno, Bun) resolves a host name and refuses a non-public answer; the fetch transport
    // (workerd) cannot see DNS answers and keeps the URL (docs/edge.md: the platform's egress covers it there).
    test("a host name that resolves to loopback: refused where DNS can be asked, kept on Workers", async () => {
      const taskId = await startSlowTask();
      const answer = await call("CreateTaskPushNotificationConfig", { taskId, url: "http://localhost:9/hook" });
      if (runtime === "workerd") expect(answer).toMatchObject({ result: { url: "http://localhost:9/hook" } });
      else {
        expect(answer).toMatchObject({ error: { code: -32602 } });
        expect(JSON.stringify(answer.error)).toContain("non-public address (loopback)");
      }
      await result("CancelTask", { id: taskId });
    });

    test("errors: malformed JSON → -32700, an unknown method → -32601, an unknown task → -32001 (1.0.1 §9.5, §5.4)", async () => {
      expect(await (await post('{"jsonrpc":"2.0","id":1,')).json()).toMatchObject({ id: null, error: { code: -32700 } });
      expect(await call("NoSuchMethod", {})).toMatchObject({ error: { code: -32601 } });
      expect(await call("GetTask", { id: "no-such-task" })).toMatchObject({ error: { code: -32001 } });
      const rest = await fetch(`${agent!.url}/a2a/tasks/no-such-task`, { headers: { "a2a-version": "1.0" } });
      expect(rest.status).toBe(404);
    });
  });
}

/** The generated Hono app (server/hono.ts, no @hono/node-server) on the same runtimes: a send, a stream, a cancel. */
for (const runtime of RUNTIMES) {
  describe(`the Hono app on ${runtime}`, () => {
    let agent: RunningAgent | undefined;
    const unavailable = runtimeUnavailable(runtime);
    beforeAll(async () => {
      const script = await bundle(await projectOnce(), HONO_ENTRY[runtime]);
      if (unavailable !== undefined) {
        if (process.env["CI"] === "true") throw new Error(`${runtime} cannot start on this machine: ${unavailable}`);
        return;
      }
      agent = await startAgent(runtime, script);
    });
    afterAll(async () => agent?.close());
    const rpc = async (method: string, params: unknown): Promise<Response> =>
      fetch(`${agent!.url}/a2a`, { method: "POST", headers: V1, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });

    it("sends, streams and cancels (1.0.1 §3.1.1, §3.1.2, §3.1.5)", async (ctx) => {
      if (unavailable !== undefined) ctx.skip(`${runtime} cannot start on this machine: ${unavailable}`);
      expect(await (await rpc("SendMessage", { message: message("task") })).json()).toMatchObject({ result: { task: { status: { state: "TASK_STATE_COMPLETED" } } } });
      const events = await readEvents(await rpc("SendStreamingMessage", { message: message("stream") }));
      expect(stateOf(events.at(-1)!)).toBe("TASK_STATE_COMPLETED");
      const slow = (await (await rpc("SendMessage", { message: message("slow"), configuration: { returnImmediately: true } })).json()) as { result: { task: { id: string } } };
      expect(await (await rpc("CancelTask", { id: slow.result.task.id })).json()).toMatchObject({ result: { status: { state: "TASK_STATE_CANCELED" } } });
      // Paths that are not the agent's go on to the rest of the app: Hono's 404.
      expect((await fetch(`${agent!.url}/elsewhere`)).status).toBe(404);
    });
  });
}
