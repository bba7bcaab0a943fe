/**
 * ProtoJSON input for 1.0.1 (issue 15 item 1). A2A 1.0 adopts ProtoJSON (specification-1.0.1.md §5.5:
 * senders MUST write the lowerCamel JSON names), and ProtoJSON parsers accept a field under its JSON name
 * and under its original proto name. The server reads every method's params that way, on every binding:
 *
 * - `history_length`, `task_id`, `context_id`, `page_size`, `push_notification_config`… are read as
 *   `historyLength`, `taskId`, ... (the table of fields is derived from the proto: A2A_INPUT_FIELDS);
 * - unknown fields are ignored as ProtoJSON's "ignore unknown fields" reads them: left out before
 *   validation, so never validated, stored or echoed. A message sent with `"tckUnknownField": 1` comes
 *   back without it from GetTask and ListTasks, and the responses stay valid against the schema. (The
 *   validators themselves keep to the schema, which leaves 1.0.1 objects open: they are not asked to
 *   refuse unknown fields, the reader drops them first.)
 * - free-form values (`metadata`, a data part's `data`) are kept as sent, snake_case keys included.
 *
 * 0.3.0 is not ProtoJSON: its params are read as they are.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { independentValidator } from "../../support/project.js";
import { FRAMEWORKS, rawPost, startServer, type RunningServer } from "../../support/servers.js";

type Json = Record<string, unknown>;
const HEADERS = { "content-type": "application/json", "a2a-version": "1.0" };

for (const framework of FRAMEWORKS) {
  describe(`1.0.1 ProtoJSON input on ${framework}`, () => {
    let server: RunningServer;
    beforeAll(async () => {
      server = await startServer("1.0.1", framework, { rest: true });
    });
    afterAll(async () => server.close());
    const rpc = async (method: string, params: Json) => {
      const r = await rawPost(server.rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), HEADERS);
      const body = r.json as Json;
      return { text: r.text, result: body.result as Json | undefined, error: body.error as Json | undefined };
    };
    /** A task with a history of two messages (ask, then the answer), the first with an unknown field. */
    const twoTurnTask = async () => {
      const first = await rpc("SendMessage", {
        message: { role: "ROLE_USER", message_id: `m-${Math.random()}`, parts: [{ text: "ask", tckUnknownField: "part" }], tckUnknownField: 1, metadata: { keep_me: { snake_case: true } } },
        tckUnknownField: true,
      });
      expect(first.error, first.text).toBeUndefined();
      const task = first.result?.task as Json;
      const second = await rpc("SendMessage", { message: { role: "ROLE_USER", message_id: `m-${Math.random()}`, task_id: task.id, context_id: task.contextId, parts: [{ text: "Ada" }] } });
      expect(second.error, second.text).toBeUndefined();
      expect((second.result?.task as Json).id, "task_id continued the task").toBe(task.id);
      return task.id as string;
    };

    it("GetTask with history_length trims the history like historyLength", async () => {
      const id = await twoTurnTask();
      const full = await rpc("GetTask", { id });
      expect(((full.result as Json).history as unknown[]).length).toBeGreaterThanOrEqual(2);
      const snake = await rpc("GetTask", { id, history_length: 1 });
      expect(snake.error, snake.text).toBeUndefined();
      expect((snake.result as Json).history as unknown[]).toHaveLength(1);
      const none = await rpc("GetTask", { id, history_length: 0 });
      expect((none.result as Json).history ?? []).toEqual([]);
    });

    it("a snake_case field still gets the validators' precision: history_length: -1 is -32602 at /params/historyLength", async () => {
      const id = await twoTurnTask();
      const bad = await rpc("GetTask", { id, history_length: "all" });
      expect(bad.error?.code, bad.text).toBe(-32602);
      expect(bad.text).toContain("params.historyLength");
    });

    it("unknown fields are never stored or echoed: GetTask and ListTasks answer without tckUnknownField, valid against the schema", async () => {
      const id = await twoTurnTask();
      const got = await rpc("GetTask", { id });
      expect(got.text).not.toContain("tckUnknownField");
      expect(independentValidator("1.0.1", "Task")(got.result), JSON.stringify(independentValidator("1.0.1", "Task").errors)).toBe(true);
      const history = (got.result as Json).history as Json[];
      expect(history[0]).toMatchObject({ messageId: expect.any(String), metadata: { keep_me: { snake_case: true } } });
      expect(history[0]).not.toHaveProperty("message_id");
      const listed = await rpc("ListTasks", { page_size: 100, context_id: (got.result as Json).contextId });
      expect(listed.error, listed.text).toBeUndefined();
      expect((listed.result as { tasks: Json[] }).tasks.map((t) => t.id)).toEqual([id]);
      expect(listed.text).not.toContain("tckUnknownField");
      expect(listed.text).not.toContain("message_id");
    });

    it("the JSON name wins when a field comes under both names", async () => {
      const id = await twoTurnTask();
      const both = await rpc("GetTask", { id, historyLength: 1, history_length: 0 });
      expect((both.result as Json).history as unknown[]).toHaveLength(1);
    });

    it("CreateTaskPushNotificationConfig with task_id and SendMessage's configuration.task_push_notification_config", async () => {
      const id = await twoTurnTask();
      const created = await rpc("CreateTaskPushNotificationConfig", { task_id: id, id: "cfg-1", url: "http://127.0.0.1:9/hook", unknown_field: 1 });
      expect(created.error, created.text).toBeUndefined();
      expect(created.result).toMatchObject({ taskId: id, id: "cfg-1", url: "http://127.0.0.1:9/hook" });
      expect(created.text).not.toContain("unknown_field");
      const sent = await rpc("SendMessage", {
        message: { role: "ROLE_USER", message_id: `m-${Math.random()}`, parts: [{ text: "task" }] },
        configuration: { return_immediately: false, history_length: 0, task_push_notification_config: { url: "http://127.0.0.1:9/other" } },
      });
      expect(sent.error, sent.text).toBeUndefined();
      const task = sent.result?.task as Json;
      expect(task.history ?? []).toEqual([]);
      const configs = await rpc("ListTaskPushNotificationConfigs", { task_id: task.id });
      expect(JSON.stringify(configs.result)).toContain("http://127.0.0.1:9/other");
    });

    it("HTTP+JSON: a body with proto names and unknown fields; ?history_length= in the query", async () => {
      const sent = await rawPost(`${server.restUrl}/message:send`, JSON.stringify({ message: { role: "ROLE_USER", message_id: "m-rest-1", parts: [{ text: "task" }], tckUnknownField: 1 } }), HEADERS);
      expect(sent.status, sent.text).toBe(200);
      expect(sent.text).not.toContain("tckUnknownField");
      const id = ((sent.json as Json).task as Json).id as string;
      const got = await fetch(`${server.restUrl}/tasks/${id}?history_length=0`, { headers: HEADERS });
      const task = (await got.json()) as Json;
      expect(task.history ?? []).toEqual([]);
    });
  });
}

describe("0.3.0 is not ProtoJSON: params are read as sent", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer("0.3.0", "node");
  });
  afterAll(async () => server.close());
  it("tasks/get with history_length is not historyLength there", async () => {
    const sent = await rawPost(server.rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params: { message: { kind: "message", role: "user", messageId: "m-03", parts: [{ kind: "text", text: "task" }] } } }));
    const id = ((sent.json as Json).result as Json).id;
    const got = await rawPost(server.rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tasks/get", params: { id, history_length: 0 } }));
    expect((((got.json as Json).result as Json).history as unknown[]).length).toBeGreaterThan(0);
  });
});
