/**
 * Durable tasks off Node (issue 35 item 4, docs/edge.md): the agent on Deno and on Bun, pointed at Redis
 * with the generated RedisStore, keeps its tasks across a restart of the process. On Workers the store
 * drivers have no TCP socket (docs/edge.md says what to do there).
 */
import { describe, expect, it } from "vitest";
import { engineUrl } from "../support/engines.js";
import { agentProject, bundle, runtimeUnavailable, startAgent } from "./runtimes.js";

type Json = Record<string, unknown>;
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
