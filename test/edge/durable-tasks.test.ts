/**
 * Durable tasks off Node (issue 35 item 4, docs/edge.md): the agent on Deno and on Bun, pointed at Redis
 * with the generated RedisStore, keeps its tasks across a restart of the process; on Workers (workerd through
 * miniflare) the agent's Durable Object keeps them in its own SQLite storage (the generated
 * DurableObjectSqlStore), kept in a folder across a restart of workerd.
 */
import { describe, expect, it } from "vitest";
import { engineUrl } from "../support/engines.js";
import { projectTempDir } from "../support/project.js";
import { sseCall } from "../support/wire/jsonrpc.js";
import { agentProject, bundle, runtimeUnavailable, startAgent, startWorkerd } from "./runtimes.js";

type Json = Record<string, unknown>;

let rpcId = 0;
async function rpc(url: string, method: string, params: Json): Promise<Json> {
  const response = await fetch(`${url}/a2a`, { method: "POST", headers: { "content-type": "application/json", "a2a-version": "1.0" }, body: JSON.stringify({ jsonrpc: "2.0", id: ++rpcId, method, params }) });
  return (await response.json()) as Json;
}

describe("an agent on Workers (workerd) with its tasks in its Durable Object's storage", () => {
  it("finds a task again after workerd restarts on the same storage (1.0.1 §3.1.3), and a stream resumes from Last-Event-ID (§3.1.6)", async (ctx) => {
    const why = runtimeUnavailable("workerd");
    if (why !== undefined) {
      if (process.env["CI"] === "true") throw new Error(`workerd cannot start on this machine: ${why}`);
      return ctx.skip(`workerd cannot start on this machine: ${why}`);
    }
    const script = await bundle(await agentProject(["durable-object"]), "durable-worker.ts");
    const persist = projectTempDir("a2a-do-persist-");
    const objects = { A2A_AGENT: { className: "A2AAgent", useSQLite: true } };
    const message = (text: string) => ({ message: { messageId: `m-${text}-${Date.now()}`, role: "ROLE_USER", parts: [{ text }] } });

    const first = await startWorkerd(script, objects, undefined, persist);
    let taskId: string;
    let streamed: Array<{ id: string | undefined; data: Json }>;
    try {
      taskId = (((await rpc(first.url, "SendMessage", message("task"))).result as Json).task as Json).id as string;
      streamed = await sseCall(`${first.url}/a2a`, "SendStreamingMessage", message("stream"));
    } finally {
      await first.close();
    }
    const streamId = (streamed[0]?.data["task"] as Json | undefined)?.id as string;
    expect(streamId).toEqual(expect.any(String));
    expect(streamed.every((e) => /^\d+$/.test(e.id ?? ""))).toBe(true);

    const second = await startWorkerd(script, objects, undefined, persist);
    try {
      expect(await rpc(second.url, "GetTask", { id: taskId })).toMatchObject({
        result: { id: taskId, status: { state: "TASK_STATE_COMPLETED" }, artifacts: [{ artifactId: "result", parts: [{ text: "the result" }] }] },
      });
      expect(await rpc(second.url, "GetTask", { id: streamId })).toMatchObject({
        result: { id: streamId, status: { state: "TASK_STATE_COMPLETED" }, artifacts: [{ artifactId: "story", parts: [{ text: "once " }, { text: "upon " }, { text: "a time" }] }] },
      });
      // The stream's events from the middle on, read from the log the first workerd wrote: exactly the rest, with the same ids.
      const middle = streamed[Math.floor(streamed.length / 2)]!;
      const rest = await sseCall(`${second.url}/a2a`, "SubscribeToTask", { id: streamId }, { "last-event-id": String(middle.id) });
      const expected = streamed.filter((e) => Number(e.id) > Number(middle.id));
      expect(expected.length).toBeGreaterThan(0);
      expect(rest.map((e) => e.id)).toEqual(expected.map((e) => e.id));
      expect(rest.map((e) => e.data)).toEqual(expected.map((e) => e.data));
    } finally {
      await second.close();
    }
  });
});
const redisUrl = engineUrl("redis", "durable tasks on Deno and Bun");

if (redisUrl !== undefined) {
  describe.each(["deno", "bun"] as const)("an agent on %s with its tasks in Redis", (runtime) => {
    it("finds a task again after a restart of the process (1.0.1 §3.1.3)", async (ctx) => {
      const why = runtimeUnavailable(runtime);
      if (why !== undefined) {
        if (process.env["CI"] === "true") throw new Error(`${runtime} cannot start on this machine: ${why}`);
        return ctx.skip(`${runtime} cannot start on this machine: ${why}`);
      }
      const script = await bundle(await agentProject(["redis"]), "redis-agent.ts", "node");
      const env = { A2A_STORE_URL: redisUrl, A2A_KEY_PREFIX: `edge-${runtime}-${Date.now().toString(36)}:` };
      const call = async (url: string, method: string, params: Json): Promise<Json> => {
        const response = await fetch(`${url}/a2a`, { method: "POST", headers: { "content-type": "application/json", "a2a-version": "1.0" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
        return (await response.json()) as Json;
      };

      const first = await startAgent(runtime, script, env);
      let id: string;
      try {
        const sent = await call(first.url, "SendMessage", { message: { messageId: "m-1", role: "ROLE_USER", parts: [{ text: "task" }] } });
        id = ((sent.result as Json).task as Json).id as string;
      } finally {
        await first.close();
      }
      const second = await startAgent(runtime, script, env);
      try {
        expect(await call(second.url, "GetTask", { id })).toMatchObject({
          result: { id, status: { state: "TASK_STATE_COMPLETED" }, artifacts: [{ artifactId: "result", parts: [{ text: "the result" }] }] },
        });
      } finally {
        await second.close();
      }
    });
  });
}
