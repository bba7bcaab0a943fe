import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Message as Message03, Task as Task03 } from "@a2a-js/sdk";
import { ClientFactory as Factory03, ClientFactoryOptions as Options03, DefaultAgentCardResolver as Resolver03, JsonRpcTransportFactory as Transport03, TaskNotCancelableError as NotCancelable03, TaskNotFoundError as NotFound03, type Client as Client03 } from "@a2a-js/sdk/client";
import {
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  Role,
  SubscribeToTaskRequest,
  TaskPushNotificationConfig,
  TaskState,
  type Message,
  type StreamResponse,
  type Task,
} from "a2a-sdk-v1";
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from "a2a-sdk-v1/client";
import { TaskNotCancelableError } from "a2a-sdk-v1/errors";
import { capturingFetch, checkCaptured, startWebhookReceiver, TEST_TOKEN, type Captured, type WebhookReceiver } from "../support/servers.js";
import { sdkSend } from "../support/wire/jsonrpc-1.0.js";
import { drain, textOf, userMessage } from "../support/wire/jsonrpc.js";
import { startCompatAgent, type CompatAgent } from "../support/compat/agent.js";

/**
 * Interop (issue 10): the official SDK's clients of both versions, @a2a-js/sdk 0.3.14 (A2A 0.3) and
 * @a2a-js/sdk 1.3.0 (A2A 1.0, npm alias `a2a-sdk-v1`), against ONE compat agent at the same time, each
 * discovering it from the same dual card: send, stream, get, cancel, resubscribe/subscribe and push configs.
 * Every answer each got is checked against its version's schema; a task one SDK started is read by the other.
 */
type Json = Record<string, unknown>;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(() => {
  for (const level of ["error", "warn", "info"] as const) vi.spyOn(console, level).mockImplementation(() => undefined);
});
afterAll(() => {
  vi.restoreAllMocks();
});

/** A fetch that records each request (with its A2A-Version) and captures the JSON-RPC answers. */
function recordingFetch(log: Array<Promise<Captured>>, requests: string[]) {
  const capture = capturingFetch(log);
  return (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const version = new Headers(init?.headers).get("a2a-version");
    requests.push(`${init?.method ?? "GET"} ${String(input)} A2A-Version: ${version}`);
    // The agent's extended card makes it a secured agent (1.0.1 §13.3): calls carry the harness's token.
    const authorized = init?.method === "POST" ? { ...init, headers: { ...Object.fromEntries(new Headers(init.headers)), authorization: `Bearer ${TEST_TOKEN}` } } : init;
    return init?.method === "POST" ? capture(String(input), authorized) : fetch(input, init);
  };
}

const sdkText = (m: { parts?: Array<{ content?: { $case: string; value: unknown } }> } | undefined) =>
  (m?.parts ?? []).map((p) => (p.content?.$case === "text" ? String(p.content.value) : "")).join("");
const caseOf = (e: StreamResponse | undefined) => e?.payload?.$case;
const stateOf = (e: StreamResponse | undefined) => (e?.payload?.$case === "task" || e?.payload?.$case === "statusUpdate" ? e.payload.value.status?.state : undefined);
const taskIdOf = (e: StreamResponse | undefined) => (e?.payload?.$case === "task" ? e.payload.value.id : (e?.payload?.value as { taskId?: string } | undefined)?.taskId);

describe("@a2a-js/sdk 0.3.14 and 1.3.0 clients against one compat agent", () => {
  let agent: CompatAgent;
  let hook: WebhookReceiver;
  let c03: Client03;
  let c10: Client;
  const log03: Array<Promise<Captured>> = [];
  const log10: Array<Promise<Captured>> = [];
  const requests03: string[] = [];
  const requests10: string[] = [];

  beforeAll(async () => {
    agent = await startCompatAgent("node", { extendedCard: { name: "Extended" } });
    hook = await startWebhookReceiver();
    const fetch03 = recordingFetch(log03, requests03);
    c03 = await new Factory03(
      Options03.createFrom(Options03.default, { transports: [new Transport03({ fetchImpl: fetch03 })], cardResolver: new Resolver03({ fetchImpl: fetch03 }) }),
    ).createFromUrl(agent.baseUrl);
    const fetch10 = recordingFetch(log10, requests10) as typeof fetch;
    c10 = await new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl: fetch10 })], cardResolver: new DefaultAgentCardResolver({ fetchImpl: fetch10 }) }),
    ).createFromUrl(agent.baseUrl);
  }, 120_000);
  afterAll(async () => {
    await agent.close();
    await hook.close();
  });
  const checkAll = async () => {
    expect((await checkCaptured("0.3.0", log03)).problems).toEqual([]);
    expect((await checkCaptured("1.0.1", log10)).problems).toEqual([]);
  };

  it("both discover the same card: 0.3.14 calls `url` without A2A-Version, 1.3.0 the 1.0 interface with A2A-Version: 1.0", async () => {
    await c03.sendMessage({ message: userMessage("hello") });
    await c10.sendMessage(sdkSend("hello"));
    expect(requests03.filter((r) => r.startsWith("POST")).at(-1)).toBe(`POST ${agent.rpcUrl} A2A-Version: null`);
    expect(requests10.filter((r) => r.startsWith("POST")).at(-1)).toBe(`POST ${agent.rpcUrl} A2A-Version: 1.0`);
    expect(c10.protocolVersion).toBe("1.0");
    await checkAll();
  });

  it("send: each gets the reply and the task in its own version", async () => {
    const reply03 = (await c03.sendMessage({ message: userMessage("hello") })) as Message03;
    expect(reply03).toMatchObject({ kind: "message", role: "agent" });
    expect(textOf(reply03)).toBe("hello back");
    const reply10 = (await c10.sendMessage(sdkSend("hello"))) as Message;
    expect(reply10.role).toBe(Role.ROLE_AGENT);
    expect(sdkText(reply10 as never)).toBe("hello back");
    const task03 = (await c03.sendMessage({ message: userMessage("task") })) as Task03;
    expect(task03).toMatchObject({ kind: "task", status: { state: "completed" } });
    expect(task03.artifacts?.map((a) => textOf(a))).toEqual(["the result"]);
    const task10 = (await c10.sendMessage(sdkSend("task"))) as Task;
    expect(task10.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    await checkAll();
  });

  it("get: a task the 0.3.14 client started is read by the 1.3.0 client, and the reverse; unknown ids are TaskNotFoundError", async () => {
    const started03 = (await c03.sendMessage({ message: userMessage("ask") })) as Task03;
    const seen10 = await c10.getTask(GetTaskRequest.fromJSON({ id: started03.id }));
    expect(seen10).toMatchObject({ id: started03.id, contextId: started03.contextId, status: { state: TaskState.TASK_STATE_INPUT_REQUIRED } });
    // Continued by the 1.0 client; the 0.3 client sees the end.
    await c10.sendMessage(sdkSend("Bob", { taskId: started03.id, contextId: started03.contextId }));
    const after03 = await c03.getTask({ id: started03.id });
    expect(after03.status.state).toBe("completed");
    expect(after03.history?.filter((m) => m.role === "user").map((m) => textOf(m))).toEqual(["ask", "Bob"]);
    const started10 = (await c10.sendMessage(sdkSend("task"))) as Task;
    expect((await c03.getTask({ id: started10.id, historyLength: 1 })).history).toHaveLength(1);
    await expect(c03.getTask({ id: "nope" })).rejects.toBeInstanceOf(NotFound03);
    await checkAll();
  });

  it("stream: 0.3.14 gets kind-tagged events ending final; 1.3.0 gets StreamResponses ending on the terminal state", async () => {
    const events03 = await drain(c03.sendMessageStream({ message: userMessage("stream") }));
    expect(events03.map((e) => e.kind)).toEqual(["task", "status-update", "artifact-update", "artifact-update", "artifact-update", "status-update"]);
    expect(events03.at(-1)).toMatchObject({ final: true, status: { state: "completed" } });
    const events10 = await drain(c10.sendMessageStream(sdkSend("stream")));
    expect(events10.map(caseOf)).toEqual(["task", "statusUpdate", "artifactUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"]);
    expect(stateOf(events10.at(-1))).toBe(TaskState.TASK_STATE_COMPLETED);
    await checkAll();
  });

  it("cancel and resubscribe/subscribe across versions: both subscribers see the cancellation a 0.3.14 client makes of a 1.3.0 client's task", async () => {
    const stream = c10.sendMessageStream(sdkSend("slow"));
    const taskId = taskIdOf((await stream.next()).value as StreamResponse) as string;
    await stream.next(); // working
    const sub03 = c03.resubscribeTask({ id: taskId });
    const sub10 = c10.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: taskId }));
    const head03 = (await sub03.next()).value as Task03;
    const head10 = (await sub10.next()).value as StreamResponse;
    expect(head03).toMatchObject({ kind: "task", id: taskId, status: { state: "working" } });
    expect(caseOf(head10)).toBe("task");
    await sleep(20);
    const canceled = await c03.cancelTask({ id: taskId });
    expect(canceled).toMatchObject({ kind: "task", id: taskId, status: { state: "canceled" } });
    expect((await drain(sub03)).at(-1)).toMatchObject({ kind: "status-update", taskId, final: true, status: { state: "canceled" } });
    expect(stateOf((await drain(sub10)).at(-1))).toBe(TaskState.TASK_STATE_CANCELED);
    expect(stateOf((await drain(stream)).at(-1))).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(c10.cancelTask(CancelTaskRequest.fromJSON({ id: taskId }))).rejects.toBeInstanceOf(TaskNotCancelableError);
    await expect(c03.cancelTask({ id: taskId })).rejects.toBeInstanceOf(NotCancelable03);
    await checkAll();
  });

  it("push configs: each SDK sets, gets, lists and deletes its config on one task; each webhook gets its own version's payload", async () => {
    const task = (await c03.sendMessage({ message: userMessage("ask") })) as Task03;
    const config03 = { id: "cfg-03", url: `${hook.url}?v=03`, token: "tok-03" };
    expect(await c03.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig: config03 })).toMatchObject({ taskId: task.id, pushNotificationConfig: config03 });
    expect(await c03.getTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: "cfg-03" })).toMatchObject({ pushNotificationConfig: config03 });
    const config10 = TaskPushNotificationConfig.fromJSON({ taskId: task.id, id: "cfg-10", url: `${hook.url}?v=10`, token: "tok-10" });
    expect(await c10.createTaskPushNotificationConfig(config10)).toMatchObject({ taskId: task.id, id: "cfg-10", token: "tok-10" });
    expect(await c10.getTaskPushNotificationConfig(GetTaskPushNotificationConfigRequest.fromJSON({ taskId: task.id, id: "cfg-10" }))).toMatchObject({ id: "cfg-10" });
    // Both see both.
    expect((await c03.listTaskPushNotificationConfig({ id: task.id })).map((c) => c.pushNotificationConfig.id)).toEqual(["cfg-03", "cfg-10"]);
    expect((await c10.listTaskPushNotificationConfig(ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: task.id }))).configs.map((c) => c.id)).toEqual(["cfg-03", "cfg-10"]);

    await c10.sendMessage(sdkSend("Ann", { taskId: task.id, contextId: task.contextId }));
    const to03 = await hook.waitFor((body) => body.kind === "task" && body.id === task.id && (body.status as Json).state === "completed");
    const to10 = await hook.waitFor((body) => (body.task as Json | undefined)?.id === task.id && ((body.task as Json).status as Json).state === "TASK_STATE_COMPLETED");
    expect(to03.headers["x-a2a-notification-token"]).toBe("tok-03");
    expect(to10.headers["x-a2a-notification-token"]).toBe("tok-10");

    await c03.deleteTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: "cfg-03" });
    await c10.deleteTaskPushNotificationConfig(DeleteTaskPushNotificationConfigRequest.fromJSON({ taskId: task.id, id: "cfg-10" }));
    expect(await c03.listTaskPushNotificationConfig({ id: task.id })).toEqual([]);
    await checkAll();
  });

  it("the extended card: each SDK reads it from the dual card's flag of its version", async () => {
    expect((await c03.getAgentCard()).name).toBe("Extended");
    expect((await c10.getAgentCard()).name).toBe("Extended");
    await checkAll();
  });
});
