// The client test suite of the test kit (issue 32): written only against the generated MockAgent (no
// sockets), run by mock-client.test.ts through the mock's own fetch and by msw-client.test.ts through MSW.
// Each case scripts the mock, calls the generated 1.0.1 client and asserts on the answer and the recorded call.
import { describe, expect, it } from "vitest";
import type { Kit } from "./generated-kit.js";

type Connect = (mock: any, binding: "JSONRPC" | "HTTP+JSON") => Promise<any>;

export function clientSuite(kit: () => Kit, connect: Connect): void {
  describe.each(["JSONRPC", "HTTP+JSON"] as const)("over %s", (binding) => {
    const setup = async () => {
      const { MockAgent, fixtures } = kit().testing;
      const mock = new MockAgent();
      return { mock, fixtures, MockAgent, A2AClient: kit().client["A2AClient"], client: await connect(mock, binding) };
    };

    it("sends a message and gets the scripted task (1.0.1 §3.1.1 SendMessage)", async () => {
      const { mock, fixtures, A2AClient, client } = await setup();
      const task = fixtures.Task({ id: "task-1", status: { state: "TASK_STATE_COMPLETED" } });
      mock.on("SendMessage", { result: { task } });
      const answer = A2AClient.unwrap(await client.sendMessage(A2AClient.sendParams("hello")));
      expect(answer).toMatchObject({ id: "task-1", status: { state: "TASK_STATE_COMPLETED" } });
      const [call] = mock.callsOf("SendMessage");
      expect(call.binding).toBe(binding);
      expect(call.params.message.parts[0].text).toBe("hello");
    });

    it("streams the scripted events in order, delays included (1.0.1 §3.1.2 SendStreamingMessage)", async () => {
      const { mock, fixtures, client, A2AClient } = await setup();
      const status = (state: string) => ({ statusUpdate: fixtures.TaskStatusUpdateEvent({ taskId: "task-2", status: { state } }) });
      mock.on("SendStreamingMessage", { stream: [{ result: status("TASK_STATE_WORKING") }, { result: status("TASK_STATE_COMPLETED"), delayMs: 5 }] });
      const states: string[] = [];
      for await (const event of client.sendStreamingMessage(A2AClient.sendParams("stream it"))) states.push(A2AClient.unwrap(event).status.state);
      expect(states).toEqual(["TASK_STATE_WORKING", "TASK_STATE_COMPLETED"]);
      expect(mock.callsOf("SendStreamingMessage")).toHaveLength(1);
    });

    it("gets a task by id, the id recorded as sent (1.0.1 §3.1.3 GetTask)", async () => {
      const { mock, fixtures, client } = await setup();
      mock.on("GetTask", (call: any) => ({ result: fixtures.Task({ id: call.params.id }) }));
      expect((await client.getTask({ id: "task-3" })).id).toBe("task-3");
      expect(mock.callsOf("GetTask")[0].params.id).toBe("task-3");
    });

    it("cancels a task (1.0.1 §3.1.5 CancelTask)", async () => {
      const { mock, fixtures, client } = await setup();
      mock.on("CancelTask", { result: fixtures.Task({ id: "task-4", status: { state: "TASK_STATE_CANCELED" } }) });
      expect((await client.cancelTask({ id: "task-4" })).status.state).toBe("TASK_STATE_CANCELED");
    });

    it("throws the version's typed error for a scripted A2A error (1.0.1 §3.3.2)", async () => {
      const { mock, client, MockAgent } = await setup();
      mock.on("GetTask", { error: MockAgent.error("TaskNotFoundError", "no such task") });
      const error = await client.getTask({ id: "missing" }).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(kit().client["A2ATaskNotFoundError"]);
      expect(error).toMatchObject({ code: -32001 });
    });

    it("answers once scripts before the standing one, and an unscripted method as method-not-found", async () => {
      const { mock, client, MockAgent, fixtures } = await setup();
      mock.once("CancelTask", { error: MockAgent.error("TaskNotCancelableError") }).on("CancelTask", { result: fixtures.Task({ id: "t" }) });
      await expect(client.cancelTask({ id: "t" })).rejects.toMatchObject({ code: -32002 });
      expect((await client.cancelTask({ id: "t" })).id).toBe("t");
      await expect(client.listTasks({})).rejects.toMatchObject({ code: -32601 });
    });

    it("ends a stream with the scripted error after its events", async () => {
      const { mock, fixtures, client, A2AClient, MockAgent } = await setup();
      mock.on("SendStreamingMessage", {
        stream: [{ result: { task: fixtures.Task({ id: "task-5" }) } }, { error: MockAgent.error("UnsupportedOperationError", "stop") }],
      });
      const seen: unknown[] = [];
      const error = await (async () => {
        for await (const event of client.sendStreamingMessage(A2AClient.sendParams("x"))) seen.push(A2AClient.unwrap(event));
      })().then(() => undefined, (e: unknown) => e);
      expect(seen).toHaveLength(1);
      expect(error).toMatchObject({ code: -32004 });
    });
  });
}
