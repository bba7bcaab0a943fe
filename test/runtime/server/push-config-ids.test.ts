/**
 * Push notification config ids (issue 15 items 11 and 12), on every adapter over JSON-RPC.
 * 1.0.1 §3.1.7 (Create Push Notification Config): the request is a TaskPushNotificationConfig whose
 * `taskId` names the task and whose `id` names the config; without `taskId` it is InvalidParams naming
 * the field (the config's `id` is never taken for the task id).
 * 0.3.0 §7.5–7.6 (tasks/pushNotificationConfig/set, get): `PushNotificationConfig.id` is optional and a
 * get may name only the task. As @a2a-js/sdk 0.3.14's DefaultRequestHandler does, a config set without an
 * id gets the task id as its id, and a get without a config id answers that config, even after others.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FRAMEWORKS, rawPost, startServer, type RunningServer } from "../../support/servers.js";

type Json = Record<string, unknown>;
const V1_HEADERS = { "content-type": "application/json", "a2a-version": "1.0" };

for (const framework of FRAMEWORKS) {
  describe(`1.0.1 CreateTaskPushNotificationConfig on ${framework}`, () => {
    let server: RunningServer;
    beforeAll(async () => {
      server = await startServer("1.0.1", framework);
    });
    afterAll(async () => server.close());
    const rpc = async (method: string, params: Json) => {
      const r = await rawPost(server.rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), V1_HEADERS);
      return { text: r.text, ...(r.json as Json) } as Json & { text: string };
    };

    it("§3.1.7: without taskId → InvalidParams naming taskId, even when `id` names an existing task", async () => {
      const task = ((await rpc("SendMessage", { message: { role: "ROLE_USER", messageId: "m1", parts: [{ text: "ask" }] } })).result as Json).task as Json;
      const r = await rpc("CreateTaskPushNotificationConfig", { id: task.id, url: "http://127.0.0.1:9/hook" });
      const error = r.error as Json;
      expect(error?.code, r.text).toBe(-32602);
      const violations = ((error.data as Json[])[0]?.fieldViolations ?? []) as Json[];
      expect(violations.map((v) => v.field), r.text).toContain("params.taskId");
      // With taskId it is created, its id the one given.
      const ok = await rpc("CreateTaskPushNotificationConfig", { taskId: task.id, id: "cfg-1", url: "http://127.0.0.1:9/hook" });
      expect(ok.result, ok.text).toMatchObject({ taskId: task.id, id: "cfg-1" });
    });
  });

  describe(`0.3.0 push config ids on ${framework}`, () => {
    let server: RunningServer;
    beforeAll(async () => {
      server = await startServer("0.3.0", framework);
    });
    afterAll(async () => server.close());
    const rpc = async (method: string, params: Json) => {
      const r = await rawPost(server.rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }));
      return { text: r.text, ...(r.json as Json) } as Json & { text: string };
    };

    it("set without an id, then get with only the task id, agree (even after another config is set)", async () => {
      const task = (await rpc("message/send", { message: { kind: "message", role: "user", messageId: "m1", parts: [{ kind: "text", text: "ask" }] } })).result as Json;
      const set = await rpc("tasks/pushNotificationConfig/set", { taskId: task.id, pushNotificationConfig: { url: "http://127.0.0.1:9/first" } });
      expect(set.result, set.text).toMatchObject({ taskId: task.id, pushNotificationConfig: { id: task.id, url: "http://127.0.0.1:9/first" } });
      await rpc("tasks/pushNotificationConfig/set", { taskId: task.id, pushNotificationConfig: { id: "second", url: "http://127.0.0.1:9/second" } });
      const got = await rpc("tasks/pushNotificationConfig/get", { id: task.id });
      expect(got.result, got.text).toMatchObject({ taskId: task.id, pushNotificationConfig: { id: task.id, url: "http://127.0.0.1:9/first" } });
      const named = await rpc("tasks/pushNotificationConfig/get", { id: task.id, pushNotificationConfigId: "second" });
      expect(named.result, named.text).toMatchObject({ pushNotificationConfig: { id: "second" } });
    });
  });
}
