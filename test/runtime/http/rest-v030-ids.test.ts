/**
 * Issue 29 item 3: A2A 0.3.0's HTTP+JSON routes take a task or push config id in the path (specification-0.3.0.md
 * §3.5.6's table: `/v1/tasks/{id}`, `:cancel`, `:subscribe`, `/pushNotificationConfigs/{configId}`). A `%` in
 * the id (`%25` in the path) is an id like any other: an id that names no task is TaskNotFoundError (-32001,
 * §8.2) with 404, as on 1.0, not -32603 (the id was percent-decoded twice). And an id with a `%` that names a
 * push config is found.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FRAMEWORKS, startServer, type RunningServer } from "../../support/servers.js";

type Json = Record<string, unknown>;
const JSON_TYPE = { "content-type": "application/json" };

for (const framework of FRAMEWORKS) {
  describe(`0.3.0 HTTP+JSON: a % in an id on ${framework}`, () => {
    let server: RunningServer;
    beforeAll(async () => {
      server = await startServer("0.3.0", framework, { rest: true });
    });
    afterAll(async () => server.close());

    const request = async (method: string, path: string, body?: string) => {
      const response = await fetch(server.restUrl + path, { method, headers: JSON_TYPE, ...(body !== undefined ? { body } : {}) });
      const text = await response.text();
      let json: Json | undefined;
      try {
        json = JSON.parse(text) as Json;
      } catch {
        json = undefined;
      }
      return { status: response.status, text, json };
    };

    const routes: Array<[string, string, string | undefined]> = [
      ["GET", "/v1/tasks/%25", undefined],
      ["GET", "/v1/tasks/a%25zz?historyLength=1", undefined],
      ["POST", "/v1/tasks/%25:cancel", "{}"],
      ["GET", "/v1/tasks/%25:subscribe", undefined],
      ["POST", "/v1/tasks/%25:subscribe", "{}"],
      ["POST", "/v1/tasks/%25/pushNotificationConfigs", JSON.stringify({ pushNotificationConfig: { url: "https://example.com/hook" } })],
      ["GET", "/v1/tasks/%25/pushNotificationConfigs", undefined],
      ["GET", "/v1/tasks/%25/pushNotificationConfigs/%25", undefined],
      ["DELETE", "/v1/tasks/%25/pushNotificationConfigs/%25", undefined],
    ];
    it.each(routes)("%s %s → 404 TaskNotFoundError, not 500", async (method, path, body) => {
      const r = await request(method, path, body);
      expect(r.status, r.text).toBe(404);
      expect(r.json, r.text).toMatchObject({ code: -32001 });
    });

    it("a push config id with a % is kept and found by it (`%25` in the path)", async () => {
      const sent = await request("POST", "/v1/message:send", JSON.stringify({ message: { messageId: `m-${Math.random()}`, role: "ROLE_USER", content: [{ text: "task" }] } }));
      const id = String(((sent.json as Json).task as Json).id);
      const set = await request("POST", `/v1/tasks/${id}/pushNotificationConfigs`, JSON.stringify({ pushNotificationConfig: { id: "50%off", url: "http://127.0.0.1:9/hook" } }));
      expect(set.status, set.text).toBe(200);
      const got = await request("GET", `/v1/tasks/${id}/pushNotificationConfigs/50%25off`);
      expect(got.status, got.text).toBe(200);
      expect(got.json).toMatchObject({ name: `tasks/${id}/pushNotificationConfigs/50%off` });
      const missing = await request("GET", `/v1/tasks/${id}/pushNotificationConfigs/%25`);
      expect(missing.status, missing.text).toBe(404);
    });
  });
}
