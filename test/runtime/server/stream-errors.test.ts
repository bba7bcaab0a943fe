/**
 * Streams to the letter of the spec (issue 15 items 3, 4 and 10), on every adapter, for 1.0.1 (JSON-RPC and
 * HTTP+JSON) and 0.3.0 (JSON-RPC):
 *
 * - item 4: an error before the first event of a streaming call (invalid params, unknown task, terminal
 *   task, streaming not declared, an executor's refusal) is, in 1.0.1, a plain JSON-RPC error response
 *   (application/json, HTTP 200; specification-1.0.1.md §9.4 "JSON-RPC Protocol Binding": a streaming
 *   method answers an SSE stream *of results*; an error is a JSON-RPC error response, §9.5), and on
 *   HTTP+JSON the §11.6 error status; in 0.3.0 it stays one SSE error event (specification-0.3.0.md §7
 *   / line "for streaming methods, an SSE stream where each event's data is a JSONRPCResponse"), which is
 *   also the only form @a2a-js/sdk 0.3.14's client reads the code of (test/product/interop/sdk-stream-errors.test.ts,
 *   docs/interop.md "Stream errors");
 * - item 3: SubscribeToTask / tasks/resubscribe on an interrupted task (input-required) stays open until
 *   the task reaches a terminal state, and the last event carries it (1.0.1 §3.1.6 "The stream MUST
 *   terminate when the task reaches a terminal state"; the first event is the Task);
 * - item 10: the executor raises the version's A2A errors with the generated classes of server/core.ts:
 *   before the first event the error is the call's; after it, the task fails with the error's message.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FRAMEWORKS, rawPost, sleep, startServer, testExecutor, type RunningServer, type VersionModules } from "../../support/servers.js";

type Json = Record<string, unknown>;

/** The test agent plus two refusals: "refuse" raises before any event, "late refuse" after the first one. */
function refusingExecutor(core: VersionModules["core"]) {
  const base = testExecutor();
  const errors = core as unknown as Record<string, new (message?: string, data?: unknown) => Error>;
  return {
    async execute(ctx: Parameters<typeof base.execute>[0], events: Parameters<typeof base.execute>[1] & { working(m?: string): void }) {
      if (ctx.text === "refuse") throw new (errors.A2AUnsupportedOperationError as new (message?: string, data?: unknown) => Error)("this agent does not do that", { why: "policy" });
      if (ctx.text === "late refuse") {
        events.working("checking");
        await sleep(5);
        throw new (errors.A2AInvalidParamsError as new (message?: string) => Error)("the amount must be positive");
      }
      return base.execute(ctx, events);
    },
  };
}

/** A raw JSON-RPC POST: status, content type, the JSON body or the SSE events' data. */
async function rpc(url: string, body: Json, headers: Record<string, string>) {
  const response = await fetch(url, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json", ...headers } });
  const text = await response.text();
  const type = (response.headers.get("content-type") ?? "").split(";")[0];
  const events = type === "text/event-stream" ? sseData(text) : [];
  return { status: response.status, type, text, json: type === "application/json" ? (JSON.parse(text) as Json) : undefined, events };
}

function sseData(text: string): Json[] {
  return text
    .split(/\r?\n\r?\n/)
    .map((block) => block.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("\n"))
    .filter((d) => d !== "")
    .map((d) => JSON.parse(d) as Json);
}

const V1 = { "a2a-version": "1.0" };
const userMessage1 = (text: string, taskId?: string) => ({ message: { role: "ROLE_USER", messageId: `m-${Math.random()}`, parts: [{ text }], ...(taskId ? { taskId } : {}) } });
const userMessage03 = (text: string, taskId?: string) => ({ message: { kind: "message", role: "user", messageId: `m-${Math.random()}`, parts: [{ kind: "text", text }], ...(taskId ? { taskId } : {}) } });
const stateOf = (event: Json): unknown => ((event.task ?? event.statusUpdate ?? event) as { status?: { state?: unknown } }).status?.state;

for (const framework of FRAMEWORKS) {
  describe(`1.0.1 streams on ${framework}`, () => {
    let server: RunningServer;
    let quiet: RunningServer;
    beforeAll(async () => {
      server = await startServer("1.0.1", framework, { rest: true, executor: refusingExecutor });
      quiet = await startServer("1.0.1", framework, { streaming: false });
    });
    afterAll(async () => {
      await server.close();
      await quiet.close();
    });
    const call = (method: string, params: Json, id: number | string = 1, url = server.rpcUrl) => rpc(url, { jsonrpc: "2.0", id, method, params }, V1);
    const completedTask = async () => {
      const sent = await call("SendMessage", userMessage1("task"));
      return ((sent.json?.result as Json).task as Json).id as string;
    };

    describe("item 4: an error before the first event is a plain JSON-RPC error response (§9.4, §9.5)", () => {
      it("SendStreamingMessage with invalid params → application/json, HTTP 200, -32602 naming the field, id echoed", async () => {
        const r = await call("SendStreamingMessage", { message: { role: "ROLE_USER", messageId: "m1", parts: "nope" } }, "s-1");
        expect(r.status).toBe(200);
        expect(r.type, r.text).toBe("application/json");
        expect(r.json).toMatchObject({ jsonrpc: "2.0", id: "s-1", error: { code: -32602 } });
        expect(r.text).toContain("message.parts");
      });
      it("SubscribeToTask on an unknown task → JSON -32001 (TaskNotFoundError)", async () => {
        const r = await call("SubscribeToTask", { id: "no-such-task" }, 7);
        expect(r.type, r.text).toBe("application/json");
        expect(r.json).toMatchObject({ id: 7, error: { code: -32001 } });
      });
      it("SubscribeToTask on a terminal task → JSON -32004 (UnsupportedOperationError, §3.1.6)", async () => {
        const r = await call("SubscribeToTask", { id: await completedTask() });
        expect(r.type, r.text).toBe("application/json");
        expect(r.json).toMatchObject({ error: { code: -32004 } });
      });
      it("SendStreamingMessage to an agent that does not declare streaming → JSON -32004 (§3.3.4 Capability Validation)", async () => {
        const r = await call("SendStreamingMessage", userMessage1("task"), 1, quiet.rpcUrl);
        expect(r.type, r.text).toBe("application/json");
        expect(r.json).toMatchObject({ error: { code: -32004 } });
      });
      it("a stream that starts is SSE: its events are JSON-RPC responses carrying the results", async () => {
        const r = await call("SendStreamingMessage", userMessage1("task"), 3);
        expect(r.type).toBe("text/event-stream");
        expect(r.events.length).toBeGreaterThan(1);
        expect(r.events.every((e) => e.id === 3 && "result" in e)).toBe(true);
        expect(stateOf(r.events.at(-1)?.result as Json)).toBe("TASK_STATE_COMPLETED");
      });
      it("HTTP+JSON: GET /tasks/{unknown}:subscribe → 404 google.rpc.Status, not a stream", async () => {
        const response = await fetch(`${server.restUrl}/tasks/no-such-task:subscribe`, { headers: V1 });
        expect(response.status).toBe(404);
        expect(response.headers.get("content-type")).toContain("json");
        expect(((await response.json()) as { error: Json }).error).toMatchObject({ code: 404, status: "NOT_FOUND" });
      });
    });

    describe("item 10: the executor raises A2A errors (generated classes of server/core.ts)", () => {
      it("raised before the first event, SendMessage answers it: code, message and data as details", async () => {
        const r = await call("SendMessage", userMessage1("refuse"));
        expect(r.json?.error, r.text).toMatchObject({ code: -32004, message: "this agent does not do that" });
        expect(JSON.stringify((r.json?.error as Json).data)).toContain("UNSUPPORTED_OPERATION");
      });
      it("raised before the first event of SendStreamingMessage: a JSON error response, no task is left behind", async () => {
        const r = await call("SendStreamingMessage", userMessage1("refuse"));
        expect(r.type, r.text).toBe("application/json");
        expect(r.json?.error).toMatchObject({ code: -32004, message: "this agent does not do that" });
        const listed = await call("ListTasks", {});
        const tasks = (listed.json?.result as { tasks: Json[] }).tasks;
        expect(tasks.some((t) => JSON.stringify(t.history ?? []).includes('"refuse"'))).toBe(false);
      });
      it("raised after the first event: the task fails with the error's message", async () => {
        const r = await call("SendStreamingMessage", userMessage1("late refuse"));
        expect(r.type).toBe("text/event-stream");
        const last = r.events.at(-1)?.result as Json;
        expect(stateOf(last)).toBe("TASK_STATE_FAILED");
        expect(JSON.stringify(last)).toContain("the amount must be positive");
      });
      it("HTTP+JSON: message:send raising before the first event → the error's §5.4 status with ErrorInfo UNSUPPORTED_OPERATION", async () => {
        const r = await rawPost(`${server.restUrl}/message:send`, JSON.stringify(userMessage1("refuse")), { "content-type": "application/json", ...V1 });
        expect(r.status, r.text).toBeGreaterThanOrEqual(400);
        expect(r.text).toContain("UNSUPPORTED_OPERATION");
        expect(r.text).toContain("this agent does not do that");
      });
      it("HTTP+JSON: message:stream raising before the first event → an HTTP error, not a stream", async () => {
        const r = await rawPost(`${server.restUrl}/message:stream`, JSON.stringify(userMessage1("refuse")), { "content-type": "application/json", ...V1 });
        expect(r.status, r.text).toBeGreaterThanOrEqual(400);
        expect(r.headers.get("content-type")).not.toContain("event-stream");
        expect(r.text).toContain("UNSUPPORTED_OPERATION");
      });
    });

    describe("item 3: SubscribeToTask on an interrupted task stays open until a terminal state (§3.1.6)", () => {
      it("JSON-RPC: the Task (input-required) first, then the follow-up turn, the last event TASK_STATE_COMPLETED", async () => {
        const asked = await call("SendMessage", userMessage1("ask"));
        const task = (asked.json?.result as Json).task as Json;
        expect(stateOf({ task })).toBe("TASK_STATE_INPUT_REQUIRED");
        const subscribed = call("SubscribeToTask", { id: task.id }, 9);
        await sleep(50); // the subscription is open before the answer arrives
        const answered = await call("SendMessage", userMessage1("Ada", task.id as string));
        expect(stateOf((answered.json?.result as Json) ?? {})).toBe("TASK_STATE_COMPLETED");
        const r = await subscribed;
        expect(r.type, r.text).toBe("text/event-stream");
        expect(stateOf(r.events[0]?.result as Json)).toBe("TASK_STATE_INPUT_REQUIRED");
        expect(stateOf(r.events.at(-1)?.result as Json)).toBe("TASK_STATE_COMPLETED");
      });
      it("HTTP+JSON: GET /tasks/{id}:subscribe the same way", async () => {
        const asked = await call("SendMessage", userMessage1("ask"));
        const id = ((asked.json?.result as Json).task as Json).id as string;
        const subscribed = fetch(`${server.restUrl}/tasks/${id}:subscribe`, { headers: V1 }).then(async (r) => ({ type: r.headers.get("content-type"), events: sseData(await r.text()) }));
        await sleep(50);
        await call("SendMessage", userMessage1("Ada", id));
        const r = await subscribed;
        expect(r.type).toContain("text/event-stream");
        expect(stateOf(r.events[0] as Json)).toBe("TASK_STATE_INPUT_REQUIRED");
        expect(stateOf(r.events.at(-1) as Json)).toBe("TASK_STATE_COMPLETED");
      });
    });
  });

  describe(`0.3.0 streams on ${framework}`, () => {
    let server: RunningServer;
    beforeAll(async () => {
      server = await startServer("0.3.0", framework, { executor: refusingExecutor });
    });
    afterAll(async () => server.close());
    const call = (method: string, params: Json, id: number | string = 1) => rpc(server.rpcUrl, { jsonrpc: "2.0", id, method, params }, {});

    it("item 4: an error before the first event stays one SSE error event (0.3.0 §7; the 0.3 SDK client reads only this form)", async () => {
      const bad = await call("message/stream", { message: { kind: "message", role: "user", messageId: "m1", parts: "nope" } }, 4);
      expect(bad.type, bad.text).toBe("text/event-stream");
      expect(bad.events).toHaveLength(1);
      expect(bad.events[0]).toMatchObject({ id: 4, error: { code: -32602 } });
      const unknown = await call("tasks/resubscribe", { id: "no-such-task" }, 5);
      expect(unknown.type).toBe("text/event-stream");
      expect(unknown.events[0]).toMatchObject({ id: 5, error: { code: -32001 } });
    });

    it("item 10: raised before the first event → message/send's error, message/stream's one error event", async () => {
      const sent = await call("message/send", userMessage03("refuse"));
      expect(sent.json?.error, sent.text).toMatchObject({ code: -32004, message: "this agent does not do that", data: { why: "policy" } });
      const streamed = await call("message/stream", userMessage03("refuse"), 6);
      expect(streamed.type).toBe("text/event-stream");
      expect(streamed.events).toEqual([{ jsonrpc: "2.0", id: 6, error: { code: -32004, message: "this agent does not do that", data: { why: "policy" } } }]);
    });

    it("item 10: raised after the first event → the task fails with the error's message (final: true)", async () => {
      const r = await call("message/stream", userMessage03("late refuse"));
      const last = r.events.at(-1)?.result as Json;
      expect(last).toMatchObject({ kind: "status-update", final: true, status: { state: "failed" } });
      expect(JSON.stringify(last)).toContain("the amount must be positive");
    });

    it("item 3: tasks/resubscribe on an input-required task follows the next turn; only the terminal event is final", async () => {
      const asked = await call("message/send", userMessage03("ask"));
      const task = asked.json?.result as Json;
      expect(stateOf(task)).toBe("input-required");
      const subscribed = call("tasks/resubscribe", { id: task.id });
      await sleep(50);
      await call("message/send", userMessage03("Ada", task.id as string));
      const r = await subscribed;
      const results = r.events.map((e) => e.result as Json);
      expect(results[0]).toMatchObject({ kind: "task", status: { state: "input-required" } });
      expect(results.at(-1)).toMatchObject({ kind: "status-update", final: true, status: { state: "completed" } });
      expect(results.slice(0, -1).some((e) => e.final === true)).toBe(false);
    });
  });
}
