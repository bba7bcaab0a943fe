// The mock agent of a 0.3.0 output (issue 32): the same kit over 0.3.0's method names and shapes (JSON-RPC;
// 0.3.0 §7.1 message/send, §7.2 message/stream, §7.3 tasks/get).
import { beforeAll, expect, it } from "vitest";
import { generateKit, type Kit } from "./generated-kit.js";

let kit: Kit;
beforeAll(async () => {
  kit = await generateKit("0.3.0");
}, 120_000);

it("answers 0.3.0's methods with scripted results, streams and errors", async () => {
  const { MockAgent, fixtures } = kit.testing;
  const A2AClient = kit.client["A2AClient"];
  const mock = new MockAgent();
  const client = await mock.client();
  mock.on("message/send", { result: fixtures.Task({ id: "t-03", status: { state: "completed" } }) });
  expect(await client.sendMessage(A2AClient.sendParams("hi"))).toMatchObject({ kind: "task", id: "t-03" });
  mock.on("message/stream", { stream: [{ result: fixtures.TaskStatusUpdateEvent({ taskId: "t-03", status: { state: "working" } }) }, { result: fixtures.TaskStatusUpdateEvent({ taskId: "t-03", status: { state: "completed" }, final: true }) }] });
  const states: string[] = [];
  for await (const event of client.sendStreamingMessage(A2AClient.sendParams("hi"))) states.push(event.status.state);
  expect(states).toEqual(["working", "completed"]);
  mock.on("tasks/get", { error: MockAgent.error("TaskNotFoundError") });
  await expect(client.getTask({ id: "nope" })).rejects.toMatchObject({ code: -32001 });
  expect(mock.calls.map((c: { method: string }) => c.method)).toEqual(["message/send", "message/stream", "tasks/get"]);
});
