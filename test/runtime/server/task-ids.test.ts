/**
 * Task and context ids (issue 16 item 3), specification-1.0.1.md §3.4:
 * §3.4.2 "Task IDs are server-generated when a new task is created": the send params of 0.2+ and 1.0
 * have no `id`; 1.0.1 says ids are server-generated, so there a `params.id` is InvalidParams naming `id`;
 * 0.2–0.3 texts are silent, so there it is ignored (never the task's id); 0.1.0's `tasks/send` legitimately
 * carries `id` (specification-0.1.0.md, TaskSendParams).
 * §3.4.3 "Agents MUST reject messages containing mismatching contextId and taskId": InvalidParams naming
 * `message.contextId` (applied to 0.3.0 too, whose message carries both ids the same way).
 * Every adapter; JSON-RPC and (1.0.1) HTTP+JSON.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FRAMEWORKS, rawPost, startServer, type RunningServer } from "../../support/servers.js";

type Json = Record<string, unknown>;

const V1_HEADERS = { "content-type": "application/json", "a2a-version": "1.0" };

/** Whether an error names the field: 0.x `data.issues[].pointer`, 1.0 BadRequest `fieldViolations[].field` (JSON-RPC and REST). */
function namesField(error: Json | undefined, pointer: string, field: string): boolean {
  const data = error?.data ?? error?.details;
  if (data && typeof data === "object" && Array.isArray((data as Json).issues)) return ((data as Json).issues as Json[]).some((i) => i.pointer === pointer);
  if (Array.isArray(data)) return data.some((d: Json) => Array.isArray(d.fieldViolations) && (d.fieldViolations as Json[]).some((v) => v.field === field || v.field === `params.${field}`));
  return false;
}

for (const framework of FRAMEWORKS) {
  describe(`task and context ids (§3.4), 0.3.0 JSON-RPC on ${framework}`, () => {
    let server: RunningServer;
    beforeAll(async () => {
      server = await startServer("0.3.0", framework);
    });
    afterAll(async () => server.close());
    const message = (text: string, over: Json = {}) => ({ kind: "message", role: "user", messageId: `m-${Math.random()}`, parts: [{ kind: "text", text }], ...over });
    const send = (params: Json) => rawPost(server.rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params }));

    it("§3.4.3: a message naming a task with another contextId is InvalidParams naming message.contextId", async () => {
      const task = (await send({ message: message("ask") })).json?.result as Json;
      expect((task.status as Json).state).toBe("input-required");
      const r = await send({ message: message("more", { taskId: task.id, contextId: "another-context" }) });
      const error = (r.json as Json).error as Json;
      expect(error?.code, r.text).toBe(-32602);
      expect(namesField(error, "/params/message/contextId", "message.contextId"), r.text).toBe(true);
      // The task's own contextId (or none) continues it.
      const ok = await send({ message: message("more", { taskId: task.id, contextId: task.contextId }) });
      expect(((ok.json as Json).result as Json).id, ok.text).toBe(task.id);
    });

    it("params.id does not choose a new task's id: 0.3.0's MessageSendParams has no id (the text is silent), so it is ignored", async () => {
      // Real 0.2/0.3 clients (a2a-java samples in the corpus) still send the 0.1.0 `id`: served, the id the server's.
      const r = await send({ id: "client-chosen", message: message("task") });
      const task = (r.json as Json).result as Json;
      expect(task?.kind, r.text).toBe("task");
      expect(task.id).not.toBe("client-chosen");
    });
  });

  describe(`task and context ids (§3.4), 1.0.1 JSON-RPC and HTTP+JSON on ${framework}`, () => {
    let server: RunningServer;
    beforeAll(async () => {
      server = await startServer("1.0.1", framework, { rest: true });
    });
    afterAll(async () => server.close());
    const message = (text: string, over: Json = {}) => ({ role: "ROLE_USER", messageId: `m-${Math.random()}`, parts: [{ text }], ...over });
    const rpc = async (params: Json) => {
      const r = await rawPost(server.rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params }), V1_HEADERS);
      return { status: r.status, text: r.text, result: (r.json as Json).result as Json | undefined, error: (r.json as Json).error as Json | undefined };
    };
    const rest = async (params: Json) => {
      const r = await rawPost(`${server.restUrl}/message:send`, JSON.stringify(params), V1_HEADERS);
      return { status: r.status, text: r.text, result: r.status === 200 ? (r.json as Json) : undefined, error: r.status === 200 ? undefined : ((r.json as Json).error as Json) };
    };

    for (const [binding, call] of [["JSON-RPC", rpc], ["HTTP+JSON", rest]] as const) {
      it(`${binding}: §3.4.3 a message naming a task with another contextId is InvalidParams naming message.contextId`, async () => {
        const task = (await call({ message: message("ask") })).result?.task as Json;
        expect((task.status as Json).state).toBe("TASK_STATE_INPUT_REQUIRED");
        const r = await call({ message: message("more", { taskId: task.id, contextId: "another-context" }) });
        if (binding === "JSON-RPC") expect(r.error?.code, r.text).toBe(-32602);
        else expect(r.status, r.text).toBe(400);
        expect(namesField(r.error, "/params/message/contextId", "message.contextId"), r.text).toBe(true);
        const ok = await call({ message: message("more", { taskId: task.id }) });
        expect((ok.result?.task as Json)?.id, ok.text).toBe(task.id);
      });

      it(`${binding}: §3.4.2 params.id choosing a new task's id is InvalidParams naming id`, async () => {
        const r = await call({ id: "client-chosen", message: message("task") });
        if (binding === "JSON-RPC") expect(r.error?.code, r.text).toBe(-32602);
        else expect(r.status, r.text).toBe(400);
        expect(namesField(r.error, "/params/id", "id"), r.text).toBe(true);
      });
    }
  });

  describe(`task ids, 0.1.0 on ${framework}`, () => {
    let server: RunningServer;
    beforeAll(async () => {
      server = await startServer("0.1.0", framework);
    });
    afterAll(async () => server.close());

    it("tasks/send's `id` names the task (specification-0.1.0.md TaskSendParams): still accepted", async () => {
      const params = { id: "client-chosen-0.1", message: { role: "user", parts: [{ type: "text", text: "task" }] } };
      const r = await rawPost(server.rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/send", params }));
      expect(((r.json as Json).result as Json)?.id, r.text).toBe("client-chosen-0.1");
    });
  });
}
