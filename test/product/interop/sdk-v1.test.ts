/**
 * Interoperability with the official A2A JavaScript SDK 1.x, @a2a-js/sdk 1.3.0 (A2A 1.0), installed under
 * the npm alias `a2a-sdk-v1` next to the pinned 0.3.14, both ways:
 *
 *  1. the SDK's client against our generated 1.0.1 server, behind each of the four adapters, over each
 *     binding (JSON-RPC, §9, and HTTP+JSON, §11: the same behaviours, the SDK's transport for each);
 *  2. our generated 1.0.1 client against the SDK's Express server (DefaultRequestHandler + InMemoryTaskStore
 *     behind `jsonRpcHandler` and `restHandler`) running an echo agent written with the SDK's executor API
 *     (test/support/sdk-agents/sdk-1.x.ts), over each binding;
 *  3. where the SDK departs from the A2A 1.0.1 spec ([V1]…[V12]), a test states what the spec requires and
 *     pins the departure with `departs()` (each is written up in docs/interop.md, "A2A 1.0"), next to the
 *     same check passing on our server;
 *  4. problems on our side found through the SDK (U1…U10), as skipped tests naming the problem; the same
 *     checks pass on the SDK's server (all but U8).
 *
 * Everything listens on 127.0.0.1, port 0, and is closed after the tests.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTasksRequest,
  Role,
  SubscribeToTaskRequest,
  TaskPushNotificationConfig,
  TaskState,
  type Message,
  type StreamResponse,
  type Task,
} from "a2a-sdk-v1";
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory, type Client } from "a2a-sdk-v1/client";
import { TaskNotCancelableError, TaskNotFoundError } from "a2a-sdk-v1/errors";
import {
  A2AClient,
  A2AResponseValidationError,
  A2ATaskNotCancelableError,
  A2ATaskNotFoundError,
  A2AUnsupportedOperationError,
  restTransport,
} from "../../../generated/a2a-1.0.1/client.js";
import { clientValidation } from "../../../generated/a2a-1.0.1/client-validation.js";
import type * as Models from "../../../generated/a2a-1.0.1/models.js";
import {
  capturingFetch,
  capturingRestFetch,
  checkCaptured,
  FRAMEWORKS,
  modules,
  startServer,
  startWebhookReceiver,
  type Captured,
  type RunningServer,
  TEST_AUTH,
  TEST_TOKEN,
  type VersionModules,
  type WebhookReceiver,
} from "../../support/servers.js";
import { sdkText, startSdkV1Server, type SdkV1Server } from "../../support/sdk-agents/sdk-1.x.js";
import { errorOf, rawBody, resultOf, rpc1, sdkSend, startTwoLineSseStubV1, wireMessage } from "../../support/wire/jsonrpc-1.0.js";
import { departs, drain, textOf } from "../../support/wire/jsonrpc.js";

type Json = Record<string, unknown>;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// The SDK logs every handled error, push delivery and warning to the console; keep the output readable.
beforeAll(() => {
  for (const level of ["error", "warn", "info"] as const) vi.spyOn(console, level).mockImplementation(() => undefined);
});
afterAll(() => {
  vi.restoreAllMocks();
});

const isTask = (result: Message | Task): result is Task => "status" in result;
/** The `$case` of each SDK stream event (the StreamResponse oneof). */
const casesOf = (events: StreamResponse[]) => events.map((e) => e.payload?.$case);
/** The task id of an SDK stream event. */
const sdkTaskIdOf = (event: StreamResponse | undefined): string | undefined => {
  const p = event?.payload;
  if (!p) return undefined;
  return p.$case === "task" ? p.value.id : p.value.taskId;
};
/** The state of an SDK stream event that carries one (task, statusUpdate). */
const sdkStateOf = (event: StreamResponse | undefined): TaskState | undefined => {
  const p = event?.payload;
  return p?.$case === "task" || p?.$case === "statusUpdate" ? p.value.status?.state : undefined;
};

/** A card declaring one bearer scheme, in ProtoJSON. */
const securedCard = {
  securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } } },
  securityRequirements: [{ schemes: { bearer: { list: [] } } }],
};

/** A fetch for the SDK client that records every request (with its A2A-Version) and captures the answers. */
function sdkFetch(log: Array<Promise<Captured>>, requests: string[]) {
  const capture = capturingFetch(log);
  return (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const version = new Headers(init?.headers).get("a2a-version");
    requests.push(`${init?.method ?? "GET"} ${String(input)} A2A-Version: ${version}`);
    // Our test servers declare the extended card, so they have a security scheme (§13.3): the SDK sends its token.
    const authorized = init?.method === "POST" ? { ...init, headers: { ...Object.fromEntries(new Headers(init.headers)), authorization: `Bearer ${TEST_TOKEN}` } } : init;
    return init?.method === "POST" ? capture(String(input), authorized as RequestInit) : fetch(input, init);
  };
}

/** The same for the SDK's REST client: every call under `restUrl` carries the token and its answer is captured. */
function sdkRestFetch(log: Array<Promise<Captured>>, requests: string[], m: VersionModules, restUrl: string) {
  const capture = capturingRestFetch(log, m, restUrl);
  return (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const version = new Headers(init?.headers).get("a2a-version");
    requests.push(`${init?.method ?? "GET"} ${String(input)} A2A-Version: ${version}`);
    if (!String(input).startsWith(restUrl)) return fetch(input, init);
    return capture(String(input), { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), authorization: `Bearer ${TEST_TOKEN}` } });
  };
}

// =====================================================================================================
// 1. The SDK's client against our generated server

const BINDINGS = ["JSONRPC", "HTTP+JSON"] as const;
type Binding = (typeof BINDINGS)[number];

/** The SDK's transport factory of a binding. */
const sdkTransport = (binding: Binding, fetchImpl: typeof fetch) =>
  binding === "JSONRPC" ? new JsonRpcTransportFactory({ fetchImpl }) : new RestTransportFactory({ fetchImpl });

/** The wire bodies of the captured answers to a method (JSON-RPC: each body's `result`; HTTP+JSON: the bodies). */
const wireResults = async (log: Array<Promise<Captured>>, method: string) =>
  (await Promise.all(log)).filter((c) => c.method === method).flatMap((c) => (c.binding === "HTTP+JSON" ? c.bodies : c.bodies.map((b) => (b as Json).result))) as Json[];

for (const framework of FRAMEWORKS) {
  describe.each(BINDINGS)(`the SDK 1.x client against our 1.0.1 server (${framework}, %s)`, (binding) => {
    let server: RunningServer;
    let hook: WebhookReceiver;
    let client: Client;
    const log: Array<Promise<Captured>> = [];
    const requests: string[] = [];
    /** The fetch of an SDK client of this binding, authorized, capturing into `into`. */
    const fetchFor = async (into: Array<Promise<Captured>>, seen: string[]) =>
      (binding === "JSONRPC" ? sdkFetch(into, seen) : sdkRestFetch(into, seen, await modules("1.0.1"), server.restUrl)) as typeof fetch;

    beforeAll(async () => {
      // Heartbeats every 10 ms, so that the SDK's SSE parser meets comment lines in the slow streams.
      server = await startServer("1.0.1", framework, { rest: true, extendedCard: { name: "Extended" }, heartbeatMs: 10 });
      hook = await startWebhookReceiver();
      const fetchImpl = await fetchFor(log, requests);
      // Only the binding under test: the card lists JSON-RPC first, which the SDK would otherwise prefer.
      const factory = new ClientFactory({ transports: [sdkTransport(binding, fetchImpl)], cardResolver: new DefaultAgentCardResolver({ fetchImpl }) });
      client = await factory.createFromUrl(server.baseUrl);
    });
    afterAll(async () => {
      await server.close();
      await hook.close();
    });
    /** Every answer the SDK client got is checked against the 1.0.1 schema, independently. */
    const checkAll = async () => {
      const { checked, problems } = await checkCaptured("1.0.1", log);
      expect(problems).toEqual([]);
      expect(checked).toBeGreaterThan(0);
    };

    it("discovers the card from the base URL and calls the interface of its binding it lists, with A2A-Version 1.0", async () => {
      expect(requests[0]).toBe(`GET ${server.baseUrl}/.well-known/agent-card.json A2A-Version: 1.0`);
      const card = await new DefaultAgentCardResolver().resolve(server.baseUrl);
      expect(card).toMatchObject({
        name: "Test Agent",
        supportedInterfaces: [
          { url: server.rpcUrl, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
          { url: server.restUrl, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
        ],
        capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
      });
      expect(client.protocolVersion).toBe("1.0");
      await client.sendMessage(sdkSend("hello"));
      expect(requests.at(-1)).toBe(binding === "JSONRPC" ? `POST ${server.rpcUrl} A2A-Version: 1.0` : `POST ${server.restUrl}/message:send A2A-Version: 1.0`);
      // The card says capabilities.extendedAgentCard: the SDK fetches it (JSON-RPC: GetExtendedAgentCard; HTTP+JSON:
      // GET …/extendedAgentCard). Only for authenticated callers (specification-1.0.1.md §13.3; the card has a
      // bearer scheme): anonymous, it is refused.
      const only = (fetchImpl: typeof fetch) => new ClientFactory({ transports: [sdkTransport(binding, fetchImpl)] });
      const anonymous = await only(fetch).createFromUrl(server.baseUrl);
      await expect(anonymous.getAgentCard()).rejects.toThrow();
      const other = await only(await fetchFor([], [])).createFromUrl(server.baseUrl);
      expect((await other.getAgentCard()).name).toBe("Extended");
      await checkAll();
    });

    it("sendMessage: a direct Message reply to 'hello', in the client's context, naming no task", async () => {
      const sent = sdkSend("hello", { contextId: `ctx-${framework}` });
      const reply = await client.sendMessage(sent);
      expect(isTask(reply)).toBe(false);
      const message = reply as Message;
      expect(message.role).toBe(Role.ROLE_AGENT);
      expect(sdkText(message)).toBe("hello back");
      expect(message.contextId).toBe(`ctx-${framework}`);
      expect(message.messageId).not.toBe(sent.message?.messageId);
      expect(message.taskId).toBe(""); // ts-proto's default: absent on the wire
      await checkAll();
    });

    it("sendMessage: a completed Task with its artifact for 'task'", async () => {
      const sent = sdkSend("task");
      const task = (await client.sendMessage(sent)) as Task;
      expect(isTask(task)).toBe(true);
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(sdkText(task.status?.message)).toBe("done");
      expect(task.artifacts.map((a) => [a.artifactId, a.name, sdkText(a)])).toEqual([["result", "result", "the result"]]);
      expect(task.history[0]).toMatchObject({ messageId: sent.message?.messageId, role: Role.ROLE_USER, taskId: task.id, contextId: task.contextId });
      await checkAll();
    });

    it("sendMessageStream: the task, the status updates, three appended artifact chunks, the terminal status (no `final`)", async () => {
      const sent = sdkSend("stream");
      const events = await drain(client.sendMessageStream(sent));
      expect(casesOf(events)).toEqual(["task", "statusUpdate", "artifactUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"]);
      const first = events[0]?.payload;
      if (first?.$case !== "task") throw new Error("the stream does not begin with the task");
      const task = first.value;
      expect(task.status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);
      expect(task.history.map((m) => m.messageId)).toEqual([sent.message?.messageId]);
      expect(events.every((e) => sdkTaskIdOf(e) === task.id)).toBe(true);
      const statuses = events.flatMap((e) => (e.payload?.$case === "statusUpdate" ? [e.payload.value] : []));
      expect(statuses.map((s) => s.status?.state)).toEqual([TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_COMPLETED]);
      expect(sdkText(statuses[1]?.status?.message)).toBe("the end");
      const chunks = events.flatMap((e) => (e.payload?.$case === "artifactUpdate" ? [e.payload.value] : []));
      expect(chunks.map((c) => [c.artifact?.artifactId, sdkText(c.artifact), c.append, c.lastChunk])).toEqual([
        ["story", "once ", false, false],
        ["story", "upon ", true, false],
        ["story", "a time", true, true],
      ]);
      // On the wire: 1.0 has no `final` flag; the stream ends on the terminal state.
      const wire = await wireResults(log, "SendStreamingMessage");
      const updates = wire.map((b) => b.statusUpdate as Json | undefined).filter((u) => u !== undefined);
      expect(updates).toHaveLength(2);
      expect(updates.some((u) => "final" in u)).toBe(false);
      const stored = await client.getTask(GetTaskRequest.fromJSON({ id: task.id }));
      expect(stored.artifacts.map(sdkText)).toEqual(["once upon a time"]);
      await checkAll();
    });

    it("getTask: the whole history, trimmed by historyLength (2, 0); an unknown id is TaskNotFoundError", async () => {
      const task = (await client.sendMessage(sdkSend("task"))) as Task;
      expect((await client.getTask(GetTaskRequest.fromJSON({ id: task.id }))).history.map(sdkText)).toEqual(["task", "on it", "done"]);
      expect((await client.getTask(GetTaskRequest.fromJSON({ id: task.id, historyLength: 2 }))).history.map(sdkText)).toEqual(["on it", "done"]);
      expect((await client.getTask(GetTaskRequest.fromJSON({ id: task.id, historyLength: 0 }))).history).toEqual([]);
      const error = await client.getTask(GetTaskRequest.fromJSON({ id: "no-such-task" })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TaskNotFoundError);
      if (binding === "JSONRPC") expect(error).toMatchObject({ envelopeCode: -32001 });
      await checkAll();
    });

    it("listTasks: filters by context and state, newest first, pages with the token, leaves artifacts out unless asked", async () => {
      const contextId = `ctx-list-${framework}`;
      const ids: string[] = [];
      for (const text of ["task", "task", "ask"]) {
        ids.push(((await client.sendMessage(sdkSend(text, { contextId }))) as Task).id);
        await sleep(2); // distinct status timestamps: equal ones are ordered by id (1.0.1 §3.1.4 orders by time only)
      }
      const all = await client.listTasks(ListTasksRequest.fromJSON({ contextId }));
      expect(all.totalSize).toBe(3);
      expect(all.nextPageToken).toBe("");
      expect(all.tasks.map((t) => t.id)).toEqual([...ids].reverse());
      expect(all.tasks.every((t) => t.artifacts.length === 0)).toBe(true);
      const asking = await client.listTasks(ListTasksRequest.fromJSON({ contextId, status: "TASK_STATE_INPUT_REQUIRED" }));
      expect(asking.tasks.map((t) => t.id)).toEqual([ids[2]]);
      const page1 = await client.listTasks(ListTasksRequest.fromJSON({ contextId, pageSize: 2, includeArtifacts: true }));
      expect(page1.tasks.map((t) => t.id)).toEqual([ids[2], ids[1]]);
      expect(page1.tasks[1]?.artifacts.map(sdkText)).toEqual(["the result"]);
      expect(page1.nextPageToken).not.toBe("");
      const page2 = await client.listTasks(ListTasksRequest.fromJSON({ contextId, pageSize: 2, pageToken: page1.nextPageToken }));
      expect(page2.tasks.map((t) => t.id)).toEqual([ids[0]]);
      expect(page2.nextPageToken).toBe("");
      await checkAll();
    });

    it("multi-turn: input-required, then the follow-up completes the same task", async () => {
      const first = (await client.sendMessage(sdkSend("ask"))) as Task;
      expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(sdkText(first.status?.message)).toBe("what is your name?");
      const second = (await client.sendMessage(sdkSend("Bob", { taskId: first.id, contextId: first.contextId }))) as Task;
      expect(second).toMatchObject({ id: first.id, contextId: first.contextId, status: { state: TaskState.TASK_STATE_COMPLETED } });
      expect(sdkText(second.status?.message)).toBe("got: Bob");
      expect(second.history.filter((m) => m.role === Role.ROLE_USER).map(sdkText)).toEqual(["ask", "Bob"]);
      await checkAll();
    });

    it("cancelTask: a 'slow' stream is canceled and ends; canceling again is TaskNotCancelableError (-32002)", async () => {
      const stream = client.sendMessageStream(sdkSend("slow"));
      const first = (await stream.next()).value as StreamResponse;
      const taskId = sdkTaskIdOf(first) as string;
      expect(sdkStateOf(first)).toBe(TaskState.TASK_STATE_SUBMITTED);
      const working = (await stream.next()).value as StreamResponse;
      expect(working.payload?.$case).toBe("statusUpdate");
      expect(sdkStateOf(working)).toBe(TaskState.TASK_STATE_WORKING);
      if (working.payload?.$case === "statusUpdate") expect(sdkText(working.payload.value.status?.message)).toBe("working slowly");
      const canceled = await client.cancelTask(CancelTaskRequest.fromJSON({ id: taskId }));
      expect(canceled).toMatchObject({ id: taskId, status: { state: TaskState.TASK_STATE_CANCELED } });
      const rest = await drain(stream);
      expect(rest.at(-1)?.payload?.$case).toBe("statusUpdate");
      expect(sdkStateOf(rest.at(-1))).toBe(TaskState.TASK_STATE_CANCELED);
      const again = await client.cancelTask(CancelTaskRequest.fromJSON({ id: taskId })).catch((e: unknown) => e);
      expect(again).toBeInstanceOf(TaskNotCancelableError);
      if (binding === "JSONRPC") expect(again).toMatchObject({ envelopeCode: -32002 });
      expect((await client.getTask(GetTaskRequest.fromJSON({ id: taskId }))).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      await checkAll();
    });

    it("resubscribeTask (SubscribeToTask): joins a running 'slow' task, first event the task, then sees the cancellation end it", async () => {
      const stream = client.sendMessageStream(sdkSend("slow"));
      const taskId = sdkTaskIdOf((await stream.next()).value as StreamResponse) as string;
      await stream.next(); // working
      const resubscribed = client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: taskId }));
      const head = (await resubscribed.next()).value as StreamResponse;
      expect(head.payload?.$case).toBe("task");
      expect(sdkTaskIdOf(head)).toBe(taskId);
      expect(sdkStateOf(head)).toBe(TaskState.TASK_STATE_WORKING);
      await client.cancelTask(CancelTaskRequest.fromJSON({ id: taskId }));
      const seen = await drain(resubscribed);
      expect(seen.at(-1)?.payload?.$case).toBe("statusUpdate");
      expect(sdkStateOf(seen.at(-1))).toBe(TaskState.TASK_STATE_CANCELED);
      expect(sdkStateOf((await drain(stream)).at(-1))).toBe(TaskState.TASK_STATE_CANCELED);
      await checkAll();
    });

    it("push notification configs: create, get, list, a delivery with the token, delete", async () => {
      const task = (await client.sendMessage(sdkSend("ask"))) as Task;
      const config = TaskPushNotificationConfig.fromJSON({ taskId: task.id, id: `cfg-${framework}-${binding}`, url: hook.url, token: "tok-sdk" });
      const expected = { taskId: task.id, id: `cfg-${framework}-${binding}`, url: hook.url, token: "tok-sdk" };
      expect(await client.createTaskPushNotificationConfig(config)).toMatchObject(expected);
      expect(await client.getTaskPushNotificationConfig(GetTaskPushNotificationConfigRequest.fromJSON({ taskId: task.id, id: config.id }))).toMatchObject(expected);
      const listed = await client.listTaskPushNotificationConfig(ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: task.id }));
      expect(listed.configs).toMatchObject([expected]);
      await client.sendMessage(sdkSend("Ann", { taskId: task.id, contextId: task.contextId }));
      // The payload's shape is U5 (below); here: a delivery about this task's completion, with the token.
      const delivery = await hook.waitFor((body) => JSON.stringify(body).includes(task.id) && JSON.stringify(body).includes("TASK_STATE_COMPLETED"));
      expect(delivery.headers["x-a2a-notification-token"]).toBe("tok-sdk");
      await client.deleteTaskPushNotificationConfig(DeleteTaskPushNotificationConfigRequest.fromJSON({ taskId: task.id, id: config.id }));
      expect((await client.listTaskPushNotificationConfig(ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: task.id }))).configs).toEqual([]);
      await checkAll();
    });
  });
}

// =====================================================================================================
// 2. Our generated client against the SDK's server

/** The task of a SendMessage result or stream event (1.0 wraps results by kind: `{ task }`, `{ message }`, …). */
function taskOf(result: Models.SendMessageResponse | Models.StreamResponse | void): Models.Task {
  if (!result || !("task" in result)) throw new Error(`not a task: ${JSON.stringify(result)}`);
  return result.task;
}

describe.each(BINDINGS)("our generated 1.0.1 client against the SDK 1.x Express server (%s)", (binding) => {
  let sdk: SdkV1Server;
  let hook: WebhookReceiver;
  let client: A2AClient;
  const log: Array<Promise<Captured>> = [];
  const requests: string[] = [];

  beforeAll(async () => {
    sdk = await startSdkV1Server();
    hook = await startWebhookReceiver();
    const capture = binding === "JSONRPC" ? capturingFetch(log) : capturingRestFetch(log, await modules("1.0.1"), sdk.restUrl);
    client = await A2AClient.fromAgentUrl(sdk.baseUrl, {
      // validation: every answer of the SDK (and its card) goes through our generated validators too.
      validation: clientValidation,
      transports: [restTransport],
      binding,
      fetch: (input, init) => {
        requests.push(`${init.method ?? "GET"} ${input}`);
        return binding === "JSONRPC" || input.startsWith(sdk.restUrl) ? capture(input, init) : fetch(input, init);
      },
    });
  });
  afterAll(async () => {
    await sdk.close();
    await hook.close();
  });
  const checkAll = async () => {
    const { checked, problems } = await checkCaptured("1.0.1", log);
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(0);
  };

  it("discovers the SDK's card from the base URL and calls the interface of the chosen binding (the SDK checks A2A-Version)", async () => {
    expect(requests[0]).toBe(`GET ${sdk.baseUrl}/.well-known/agent-card.json`);
    expect(client.card).toMatchObject({
      name: "SDK Echo Agent",
      supportedInterfaces: [
        { url: sdk.rpcUrl, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
        { url: sdk.restUrl, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
      ],
    });
    expect(client.transport.binding).toBe(binding);
    expect(client.endpoint).toBe(binding === "JSONRPC" ? sdk.rpcUrl : sdk.restUrl);
    // The SDK answers VersionNotSupportedError (-32009) to a request without A2A-Version 1.0; ours sends it.
    expect(await client.sendMessage(A2AClient.sendParams("hello"))).toHaveProperty("message");
    expect(requests.at(-1)).toBe(binding === "JSONRPC" ? `POST ${sdk.rpcUrl}` : `POST ${sdk.restUrl}/message:send`);
    expect(errorOf(await rpc1(sdk.rpcUrl, "GetTask", { id: "x" }, 1, { headers: { "a2a-version": "" } }))).toMatchObject({ code: -32009 });
    await checkAll();
  });

  it("SendMessage: the echo as a direct Message", async () => {
    const reply = await client.sendMessage(A2AClient.sendParams("hello", { contextId: "ctx-ours" }));
    expect(Object.keys(reply)).toEqual(["message"]);
    const message = "message" in reply ? reply.message : ({} as Models.Message);
    expect(message).toMatchObject({ role: "ROLE_AGENT", contextId: "ctx-ours" });
    expect(textOf(message)).toBe("echo: hello");
    expect("taskId" in message).toBe(false);
    await checkAll();
  });

  it("SendMessage: the echo as a completed Task with an artifact", async () => {
    const sent = A2AClient.userMessage("task");
    const reply = await client.sendMessage(A2AClient.sendParams(sent));
    const task = taskOf(reply);
    expect(task).toMatchObject({ status: { state: "TASK_STATE_COMPLETED" } });
    expect(textOf(task.status.message)).toBe("done");
    expect((task.artifacts ?? []).map((a) => [a.artifactId, textOf(a)])).toEqual([["echo", "echo: task"]]);
    expect(task.history?.[0]).toMatchObject({ messageId: sent.messageId, role: "ROLE_USER", taskId: task.id });
    await checkAll();
  });

  it("SendStreamingMessage: the task, the status updates, the artifact chunks, the terminal status", async () => {
    const events = (await drain(client.sendStreamingMessage(A2AClient.sendParams("stream")))) as Json[];
    expect(events.map((e) => Object.keys(e)[0])).toEqual(["task", "statusUpdate", "artifactUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"]);
    const task = events[0]?.task as Json;
    expect(task.status).toMatchObject({ state: "TASK_STATE_SUBMITTED" });
    const chunks = events.flatMap((e) => (e.artifactUpdate ? [e.artifactUpdate as Json] : []));
    expect(chunks.every((c) => c.taskId === task.id)).toBe(true);
    // ProtoJSON leaves out fields at their default: `append: false` / `lastChunk: false` are absent.
    expect(chunks.map((c) => [textOf(c.artifact), c.append ?? false, c.lastChunk ?? false])).toEqual([
      ["once ", false, false],
      ["upon ", true, false],
      ["a time", true, true],
    ]);
    const last = events.at(-1)?.statusUpdate as Json;
    expect(last).toMatchObject({ taskId: task.id, status: { state: "TASK_STATE_COMPLETED" } });
    expect("final" in last).toBe(false);
    expect(textOf((last.status as Json).message)).toBe("the end");
    const stored = await client.getTask({ id: String(task.id) });
    expect((stored.artifacts ?? []).map(textOf)).toEqual(["once upon a time"]);
    await checkAll();
  });

  it("GetTask: historyLength trims to the most recent messages (0: none); an unknown id is A2ATaskNotFoundError", async () => {
    const reply = await client.sendMessage(A2AClient.sendParams("task"));
    const id = String(taskOf(reply).id);
    expect((await client.getTask({ id })).history?.map(textOf)).toEqual(["task", "on it", "done"]);
    expect((await client.getTask({ id, historyLength: 1 })).history?.map(textOf)).toEqual(["done"]);
    expect((await client.getTask({ id, historyLength: 0 })).history).toBeUndefined();
    await expect(client.getTask({ id: "no-such-task" })).rejects.toMatchObject({ name: "A2ATaskNotFoundError", code: -32001 });
    await checkAll();
  });

  it("ListTasks: filters by context and state, newest first, pages with the SDK's cursor, artifacts only when asked", async () => {
    const contextId = "ctx-ours-list";
    const ids: string[] = [];
    for (const text of ["task", "task", "ask"]) {
      const reply = await client.sendMessage(A2AClient.sendParams(text, { contextId }));
      ids.push(String(taskOf(reply).id));
      await sleep(2); // distinct status timestamps: the SDK orders by them
    }
    const all = await client.listTasks({ contextId });
    expect(all).toMatchObject({ totalSize: 3, nextPageToken: "", pageSize: 50 });
    expect(all.tasks.map((t) => t.id)).toEqual([...ids].reverse());
    expect(all.tasks.every((t) => !("artifacts" in t))).toBe(true);
    const asking = await client.listTasks({ contextId, status: "TASK_STATE_INPUT_REQUIRED" });
    expect(asking.tasks.map((t) => t.id)).toEqual([ids[2]]);
    const page1 = await client.listTasks({ contextId, pageSize: 2, includeArtifacts: true });
    expect(page1.tasks.map((t) => t.id)).toEqual([ids[2], ids[1]]);
    expect(page1.tasks[1]?.artifacts?.map(textOf)).toEqual(["echo: task"]);
    expect(page1.nextPageToken).not.toBe("");
    const page2 = await client.listTasks({ contextId, pageSize: 2, pageToken: page1.nextPageToken });
    expect(page2.tasks.map((t) => t.id)).toEqual([ids[0]]);
    expect(page2.nextPageToken).toBe("");
    await checkAll();
  });

  it("multi-turn: input-required, then the follow-up completes the same task", async () => {
    const first = taskOf(await client.sendMessage(A2AClient.sendParams("ask")));
    expect(first.status).toMatchObject({ state: "TASK_STATE_INPUT_REQUIRED" });
    const ids = { taskId: String(first.id), contextId: String(first.contextId) };
    const second = taskOf(await client.sendMessage(A2AClient.sendParams("Bob", ids)));
    expect(second).toMatchObject({ id: first.id, status: { state: "TASK_STATE_COMPLETED" } });
    expect(textOf(second.status.message)).toBe("got: Bob");
    await checkAll();
  });

  it("CancelTask: a 'slow' stream is canceled and ends on the canceled state; a completed task is A2ATaskNotCancelableError", async () => {
    const stream = client.sendStreamingMessage(A2AClient.sendParams("slow"));
    const first = taskOf((await stream.next()).value);
    expect(first.status).toMatchObject({ state: "TASK_STATE_SUBMITTED" });
    expect((await stream.next()).value).toMatchObject({ statusUpdate: { status: { state: "TASK_STATE_WORKING" } } });
    const canceled = await client.cancelTask({ id: String(first.id) });
    expect(canceled).toMatchObject({ id: first.id, status: { state: "TASK_STATE_CANCELED" } });
    expect((await drain(stream)).at(-1)).toMatchObject({ statusUpdate: { taskId: first.id, status: { state: "TASK_STATE_CANCELED" } } });
    // (Canceling it again: the SDK answers the canceled task; see "differences the spec leaves open".)
    const done = taskOf(await client.sendMessage(A2AClient.sendParams("task")));
    const refused = await client.cancelTask({ id: String(done.id) }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(A2ATaskNotCancelableError);
    expect(refused).toMatchObject({ code: -32002 });
    await checkAll();
  });

  it("SubscribeToTask: joins a running 'slow' task (first event the task) and sees its cancellation; a finished task is A2AUnsupportedOperationError", async () => {
    const stream = client.sendStreamingMessage(A2AClient.sendParams("slow"));
    const taskId = String(taskOf((await stream.next()).value).id);
    await stream.next(); // working
    const subscribed = client.subscribeToTask({ id: taskId });
    expect((await subscribed.next()).value).toMatchObject({ task: { id: taskId, status: { state: "TASK_STATE_WORKING" } } });
    await client.cancelTask({ id: taskId });
    expect((await drain(subscribed)).at(-1)).toMatchObject({ statusUpdate: { taskId, status: { state: "TASK_STATE_CANCELED" } } });
    await drain(stream);
    // §3.1.6: subscribing to a task in a terminal state is UnsupportedOperationError (the SDK sends it as plain JSON, [V1]).
    await expect(drain(client.subscribeToTask({ id: taskId }))).rejects.toBeInstanceOf(A2AUnsupportedOperationError);
    await checkAll();
  });

  it("push notification configs: create, get, list, a delivery (StreamResponse, a2a+json, the token), delete", async () => {
    const task = taskOf(await client.sendMessage(A2AClient.sendParams("ask")));
    const taskId = String(task.id);
    const config = { taskId, id: "cfg-ours", url: hook.url, token: "tok-ours" };
    expect(await client.createTaskPushNotificationConfig(config)).toEqual(config);
    expect(await client.getTaskPushNotificationConfig({ taskId, id: "cfg-ours" })).toEqual(config);
    expect(await client.listTaskPushNotificationConfigs({ taskId })).toEqual({ configs: [config] });
    await client.sendMessage(A2AClient.sendParams("Ann", { taskId, contextId: String(task.contextId) }));
    const delivery = await hook.waitFor((body) => ((body.statusUpdate as Json | undefined)?.status as Json | undefined)?.state === "TASK_STATE_COMPLETED");
    expect(delivery.headers["x-a2a-notification-token"]).toBe("tok-ours");
    expect(delivery.headers["content-type"]).toBe("application/a2a+json");
    expect(delivery.body).toMatchObject({ statusUpdate: { taskId, contextId: task.contextId } });
    await checkAll();
    const deleted = await client.deleteTaskPushNotificationConfig({ taskId, id: "cfg-ours" }).catch((e: unknown) => e);
    if (binding === "JSONRPC") {
      // Delete: the SDK answers `result: null`, not google.protobuf.Empty's `{}` ([V11]); our validating client says so.
      expect(deleted).toBeInstanceOf(A2AResponseValidationError);
      expect((deleted as A2AResponseValidationError).issues).toMatchObject([{ pointer: "/result", got: "null" }]);
      await departs(() => expect(deleted).toEqual({}));
      const { problems } = await checkCaptured("1.0.1", log);
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^DeleteTaskPushNotificationConfig: .*"result":null/);
    } else {
      // Over HTTP+JSON the SDK's answer has no body, which our client reads as google.protobuf.Empty (V11 is JSON-RPC's).
      expect(deleted).toEqual({});
    }
    // The config is gone all the same (ProtoJSON leaves out the empty `configs`).
    expect((await client.listTaskPushNotificationConfigs({ taskId })).configs ?? []).toEqual([]);
    await checkAll();
  });

  it("GetExtendedAgentCard on a card without the capability: A2AUnsupportedOperationError (-32004, §3.3.4)", async () => {
    await expect(client.getExtendedAgentCard({})).rejects.toMatchObject({ name: "A2AUnsupportedOperationError", code: -32004 });
    await checkAll();
  });

  it("stream errors: the SDK's plain-JSON answers to failing streaming calls become typed errors", async () => {
    const unknown = A2AClient.sendParams("more", { taskId: "no-such-task" });
    await expect(drain(client.sendStreamingMessage(unknown))).rejects.toBeInstanceOf(A2ATaskNotFoundError);
    await expect(drain(client.subscribeToTask({ id: "no-such-task" }))).rejects.toBeInstanceOf(A2ATaskNotFoundError);
    await checkAll();
  });
});

// =====================================================================================================
// 3. Where the SDK departs from A2A 1.0.1 (docs/interop.md, "A2A 1.0"), and the same checks on our server

describe("SDK 1.x departures from A2A 1.0.1, and the same checks on our server", () => {
  let sdk: SdkV1Server;
  let ours: RunningServer;

  beforeAll(async () => {
    sdk = await startSdkV1Server();
    // Webhooks: only 127.0.0.1 is allow-listed (the harness's default). A small body limit.
    ours = await startServer("1.0.1", "node", { maxBodyBytes: 64 * 1024 });
  });
  afterAll(async () => {
    await sdk.close();
    await ours.close();
  });
  const both = () => [
    ["sdk", sdk.rpcUrl],
    ["ours", ours.rpcUrl],
  ] as const;

  it("[V1] a streaming method that fails before its first event answers a plain JSON-RPC error (application/json, 200), as the SDK does (issue 15 item 4)", async () => {
    for (const [, url] of both()) {
      const answers = [
        await rpc1(url, "SendStreamingMessage", { message: wireMessage("more", { taskId: "no-such-task" }) }),
        await rpc1(url, "SubscribeToTask", { id: "no-such-task" }),
      ];
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        expect(errorOf(answer)).toMatchObject({ code: -32001 });
        expect(answer.contentType).toMatch(/^application\/json/);
      }
    }
  });

  it("[V2] the answer to a request with id 0 carries id 0, in a failing stream too (§9.3: JSON-RPC 2.0)", async () => {
    for (const [who, url] of both()) {
      const answer = await rpc1(url, "SendStreamingMessage", { message: wireMessage("more", { taskId: "no-such-task" }) }, 0);
      expect(errorOf(answer)).toMatchObject({ code: -32001 });
      const check = () => expect(answer.bodies.at(-1)?.id).toBe(0);
      if (who === "sdk") await departs(check); // `id: req.body?.id || null`
      else check();
    }
  });

  it("[V3] a notification (no id) gets no response (JSON-RPC 2.0 §4.1)", async () => {
    for (const [who, url] of both()) {
      const answer = await rpc1(url, "GetTask", { id: "no-such-task" }, null, { notification: true });
      expect(answer.status).toBeLessThan(300);
      const check = () => expect(answer.text).toBe("");
      if (who === "sdk") await departs(check); // {"id":null,"error":{"code":-32001,…}}
      else {
        check();
        expect(answer.status).toBe(204);
      }
    }
  });

  it("[V4] params of the wrong type are Invalid params -32602 (§3.3.2: servers MUST validate all input parameters)", async () => {
    for (const [who, url] of both()) {
      const answer = await rpc1(url, "GetTask", { id: 42, historyLength: "all" });
      const check = () => expect(errorOf(answer)).toMatchObject({ code: -32602 });
      if (who === "sdk") await departs(check); // -32001 "Task not found: 42"
      else check();
    }
  });

  it("[V5] a message without role or parts, or with a 0.3 role, is refused with -32602 (§5.7 REQUIRED fields, §5.5 enums)", async () => {
    for (const [who, url] of both()) {
      const missing = await rpc1(url, "SendMessage", { message: { messageId: "m-malformed" } });
      const oldRole = await rpc1(url, "SendMessage", { message: wireMessage("task", { role: "user" } as never) });
      const check = () => {
        expect(errorOf(missing)).toMatchObject({ code: -32602 });
        expect(errorOf(oldRole)).toMatchObject({ code: -32602 });
      };
      if (who === "sdk") {
        await departs(check); // the SDK runs the agent on both
        // and stores the unknown role, then answers it back as "UNRECOGNIZED", which is no Role.
        expect(JSON.stringify(oldRole.bodies[0])).toContain('"role":"UNRECOGNIZED"');
      } else check();
    }
  });

  it("[V6] a request that is not a valid JSON-RPC Request object is -32600 with id null (§9.5)", async () => {
    for (const [who, url] of both()) {
      const answer = await rawBody(url, JSON.stringify({ jsonrpc: "1.0", id: { not: "an id" }, method: "GetTask", params: { id: "x" } }));
      const check = () => expect(answer.json).toMatchObject({ id: null, error: { code: -32600 } });
      if (who === "sdk") await departs(check); // -32602 "Invalid JSON-RPC Request.", the object id echoed
      else check();
    }
  });

  it("[V7] a too-large body is answered with a JSON-RPC error, not an HTML page (§9.1: responses are application/json)", async () => {
    const big = { message: wireMessage("x".repeat(200_000)) };
    for (const [who, url] of both()) {
      const answer = await rpc1(url, "SendMessage", big);
      expect(answer.status).toBe(413);
      const check = () => {
        expect(answer.contentType).toMatch(/^application\/json/);
        expect(answer.bodies[0]).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
      };
      if (who === "sdk") await departs(check); // Express's default error page, text/html, with a stack trace
      else check();
    }
  });

  it("[V8] the card's security requirements are enforced: no credentials, 401 (§7.4 MUST authenticate every request)", async () => {
    const secured = await startSdkV1Server({ card: securedCard });
    const auth = { verify: (credential: { value: string }) => credential.value === "secret" };
    const oursSecured = await startServer("1.0.1", "node", { auth });
    try {
      const sdkAnswer = await rpc1(secured.rpcUrl, "GetTask", { id: "no-such-task" });
      await departs(() => expect(sdkAnswer.status).toBe(401)); // served: 200, -32001
      const oursAnswer = await rpc1(oursSecured.rpcUrl, "GetTask", { id: "no-such-task" });
      expect(oursAnswer.status).toBe(401);
      expect(errorOf(await rpc1(oursSecured.rpcUrl, "GetTask", { id: "x" }, 1, { headers: { authorization: "Bearer secret" } }))).toMatchObject({ code: -32001 });
    } finally {
      await secured.close();
      await oursSecured.close();
    }
  });

  it("[V9] the well-known card is ProtoJSON: a security scheme is its oneof field, not ts-proto's `$case` (§5.5, §1.4)", async () => {
    const secured = await startSdkV1Server({ card: securedCard });
    const oursSecured = await startServer("1.0.1", "node", { auth: { verify: () => true } });
    try {
      for (const base of [secured.baseUrl, oursSecured.baseUrl]) {
        const card = (await (await fetch(`${base}/.well-known/agent-card.json`)).json()) as Json;
        const check = () => expect((card.securitySchemes as Json).bearer).toMatchObject({ httpAuthSecurityScheme: { scheme: "Bearer" } });
        if (base === secured.baseUrl) {
          await departs(check); // {"scheme":{"$case":"httpAuthSecurityScheme","value":{…}}}
          // So our client with its schema checks refuses the card, and the SDK's own resolver parses the scheme away.
          await expect(A2AClient.fromAgentUrl(base, { validation: clientValidation })).rejects.toThrow(/securitySchemes\/bearer/);
          expect((await new DefaultAgentCardResolver().resolve(base)).securitySchemes.bearer?.scheme).toBeUndefined();
        } else check();
      }
    } finally {
      await secured.close();
      await oursSecured.close();
    }
  });

  it("[V10] webhook URLs are checked against SSRF (§13.2 SHOULD): private and non-http URLs are refused", async () => {
    // Set on a task that gets no more events, so that nothing is ever sent to these URLs.
    for (const [who, url] of both()) {
      const task = (await resultOf(url, "SendMessage", { message: wireMessage("ask") })).task as Json;
      for (const webhook of ["http://10.0.0.1/admin", "file:///etc/passwd"]) {
        const answer = await rpc1(url, "CreateTaskPushNotificationConfig", { taskId: task.id, id: "ssrf", url: webhook });
        const check = () => expect(errorOf(answer)).toMatchObject({ code: -32602 });
        if (who === "sdk") await departs(check); // stored, and later fetch()ed
        else check();
      }
    }
  });

  it("[V11] DeleteTaskPushNotificationConfig answers google.protobuf.Empty, `{}` (proto, §1.4)", async () => {
    for (const [who, url] of both()) {
      const task = (await resultOf(url, "SendMessage", { message: wireMessage("ask") })).task as Json;
      await resultOf(url, "CreateTaskPushNotificationConfig", { taskId: task.id, id: "gone", url: "http://127.0.0.1:1/hook" });
      const answer = await rpc1(url, "DeleteTaskPushNotificationConfig", { taskId: task.id, id: "gone" });
      expect(answer.bodies[0]).toHaveProperty("result");
      const check = () => expect(answer.bodies[0]?.result).toEqual({});
      if (who === "sdk") await departs(check); // result: null
      else check();
    }
  });

  it("[V12] ListTasks statusTimestampAfter includes tasks at that very time (proto: 'greater than or equal to')", async () => {
    // Ours excludes them as well: U8 below.
    const task = (await resultOf(sdk.rpcUrl, "SendMessage", { message: wireMessage("task", { contextId: "ctx-ts" }) })).task as Json;
    const listed = await resultOf(sdk.rpcUrl, "ListTasks", { contextId: "ctx-ts", statusTimestampAfter: (task.status as Json).timestamp });
    await departs(() => expect((listed.tasks as Json[]).map((t) => t.id)).toEqual([task.id])); // `>`: none
  });

  it("[fixed since 0.3.14] historyLength 0 and SendMessage's historyLength, -32001 for a missing config, -32004 for a finished task, multi-line SSE data", async () => {
    const task = (await resultOf(sdk.rpcUrl, "SendMessage", { message: wireMessage("task"), configuration: { historyLength: 1 } })).task as Json;
    expect((task.history as Json[]).map(textOf)).toEqual(["done"]);
    expect(await resultOf(sdk.rpcUrl, "GetTask", { id: task.id, historyLength: 0 })).not.toHaveProperty("history");
    expect(errorOf(await rpc1(sdk.rpcUrl, "GetTaskPushNotificationConfig", { taskId: task.id, id: "none" }))).toMatchObject({ code: -32001 });
    expect(errorOf(await rpc1(sdk.rpcUrl, "SendMessage", { message: wireMessage("more", { taskId: String(task.id) }) }))).toMatchObject({ code: -32004 });
    const stub = await startTwoLineSseStubV1();
    try {
      const card = { ...sdk.card, supportedInterfaces: [{ url: stub.url, protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant: "" }] };
      const sdkClient = await new ClientFactory().createFromAgentCard(card);
      const events = await drain(sdkClient.sendMessageStream(sdkSend("hi")));
      expect(events.map((e) => (e.payload?.$case === "message" ? sdkText(e.payload.value) : e.payload?.$case))).toEqual(["two lines"]);
      const ours = await drain(new A2AClient(stub.url).sendStreamingMessage(A2AClient.sendParams("hi")));
      expect(ours).toMatchObject([{ message: { parts: [{ text: "two lines" }] } }]);
    } finally {
      await stub.close();
    }
  });

  it("[difference, the spec is of two minds] canceling a canceled task: the SDK answers the task, ours -32002 (§3.1.5 vs §3.3.1)", async () => {
    for (const [who, url] of both()) {
      const task = (await resultOf(url, "SendMessage", { message: wireMessage("ask") })).task as Json;
      expect(await resultOf(url, "CancelTask", { id: task.id })).toMatchObject({ status: { state: "TASK_STATE_CANCELED" } });
      const again = await rpc1(url, "CancelTask", { id: task.id });
      if (who === "sdk") expect(again.bodies[0]?.result).toMatchObject({ id: task.id, status: { state: "TASK_STATE_CANCELED" } });
      else expect(errorOf(again)).toMatchObject({ code: -32002 });
    }
  });
});

// =====================================================================================================
// 4. Problems on our side, found through the SDK (U1…U10): each check passes on the SDK's server ("the SDK:")
//    and is skipped on ours until fixed (see docs/interop.md, "A2A 1.0", "Problems on our side"). U8 fails
//    on both servers (the SDK's half is [V12]).

describe("problems on our side (A2A 1.0.1)", () => {
  let sdk: SdkV1Server;
  let ours: RunningServer;
  let hook: WebhookReceiver;

  beforeAll(async () => {
    sdk = await startSdkV1Server();
    ours = await startServer("1.0.1", "node");
    hook = await startWebhookReceiver();
  });
  afterAll(async () => {
    await sdk.close();
    await ours.close();
    await hook.close();
  });

  const checks = {
    /** U1: §3.1.1 / §3.1.2: a message to a task in a terminal state is UnsupportedOperationError. */
    async terminalTaskMessage(url: string) {
      const task = (await resultOf(url, "SendMessage", { message: wireMessage("task") })).task as Json;
      const answer = await rpc1(url, "SendMessage", { message: wireMessage("more", { taskId: String(task.id), contextId: String(task.contextId) }) });
      expect(errorOf(answer)).toMatchObject({ code: -32004 });
    },
    /** U2: §3.1.6 / §9.4.6: SubscribeToTask on a task in a terminal state is UnsupportedOperationError. */
    async terminalTaskSubscribe(url: string) {
      const task = (await resultOf(url, "SendMessage", { message: wireMessage("task") })).task as Json;
      const answer = await rpc1(url, "SubscribeToTask", { id: task.id });
      expect(errorOf(answer)).toMatchObject({ code: -32004 });
    },
    /** U3: §3.1.8: a push config that does not exist is TaskNotFoundError. */
    async missingConfig(url: string) {
      const task = (await resultOf(url, "SendMessage", { message: wireMessage("ask") })).task as Json;
      const answer = await rpc1(url, "GetTaskPushNotificationConfig", { taskId: task.id, id: "none" });
      expect(errorOf(answer)).toMatchObject({ code: -32001 });
    },
    /** U4: §3.1.10: delete MUST be idempotent (its errors: only PushNotificationNotSupported and TaskNotFound). */
    async deleteTwice(url: string) {
      const task = (await resultOf(url, "SendMessage", { message: wireMessage("ask") })).task as Json;
      await resultOf(url, "CreateTaskPushNotificationConfig", { taskId: task.id, id: "twice", url: "http://127.0.0.1:1/hook" });
      for (let i = 0; i < 2; i++) {
        const answer = await rpc1(url, "DeleteTaskPushNotificationConfig", { taskId: task.id, id: "twice" });
        expect(errorOf(answer)).toBeUndefined();
      }
    },
    /** U5: §4.3.3: the webhook gets a StreamResponse, `Content-Type: application/a2a+json`. */
    async pushPayload(url: string) {
      const task = (await resultOf(url, "SendMessage", { message: wireMessage("ask") })).task as Json;
      await resultOf(url, "CreateTaskPushNotificationConfig", { taskId: task.id, id: "shape", url: hook.url, token: "tok-shape" });
      await resultOf(url, "SendMessage", { message: wireMessage("Ann", { taskId: String(task.id), contextId: String(task.contextId) }) });
      const delivery = await hook.waitFor((body) => JSON.stringify(body).includes(String(task.id)) && JSON.stringify(body).includes("TASK_STATE_COMPLETED"));
      expect(delivery.headers["content-type"]).toMatch(/^application\/a2a\+json/);
      expect(Object.keys(delivery.body)).toHaveLength(1);
      expect(["task", "message", "statusUpdate", "artifactUpdate"]).toContain(Object.keys(delivery.body)[0]);
    },
    /** U6: §9.5 / §3.3.2: `error.data` is an array of objects, each with a `@type`. */
    async errorDetails(url: string) {
      for (const answer of [await rpc1(url, "GetTask", { id: "no-such-task" }), await rpc1(url, "GetTask", { id: 42 }), await rpc1(url, "GetTask", { id: "x" }, 1, { headers: { "a2a-version": "0.3" } })]) {
        const data = errorOf(answer)?.data;
        expect(Array.isArray(data)).toBe(true);
        expect((data as Json[]).every((d) => typeof d["@type"] === "string")).toBe(true);
      }
    },
    /** U7: §3.3.4: GetExtendedAgentCard without the capability is UnsupportedOperationError (-32004). */
    async extendedCardNotDeclared(url: string) {
      expect(errorOf(await rpc1(url, "GetExtendedAgentCard", {}))).toMatchObject({ code: -32004 });
    },
    /** U9: §3.3.2: an invalid `statusTimestampAfter` (a google.protobuf.Timestamp) is Invalid params. */
    async badTimestamp(url: string) {
      expect(errorOf(await rpc1(url, "ListTasks", { statusTimestampAfter: "yesterday" }))).toMatchObject({ code: -32602 });
    },
    /** U10: §3.2.4: historyLength 0: "the history field SHOULD be omitted". */
    async historyZero(url: string) {
      const task = (await resultOf(url, "SendMessage", { message: wireMessage("task") })).task as Json;
      expect(await resultOf(url, "GetTask", { id: task.id, historyLength: 0 })).not.toHaveProperty("history");
    },
  };

  it("the SDK: U1 U2 U3 U4 U5 U6 U7 U9 U10 pass on its server", async () => {
    for (const check of Object.values(checks)) await check(sdk.rpcUrl);
  });

  it("U1 (fixed): SendMessage to a completed task is -32602, not UnsupportedOperationError -32004", () => checks.terminalTaskMessage(ours.rpcUrl));
  it("U2 (fixed): SubscribeToTask on a completed task streams the task instead of UnsupportedOperationError -32004", () => checks.terminalTaskSubscribe(ours.rpcUrl));
  it("U3 (fixed): GetTaskPushNotificationConfig for an unknown config id is -32602, not TaskNotFoundError -32001", () => checks.missingConfig(ours.rpcUrl));
  it("U4 (fixed): deleting a push config twice: the second DeleteTaskPushNotificationConfig is -32602 (not idempotent)", () => checks.deleteTwice(ours.rpcUrl));
  it("U5 (fixed): push notifications POST the bare Task as application/json, not a StreamResponse as application/a2a+json", () => checks.pushPayload(ours.rpcUrl));
  it("U6 (fixed): JSON-RPC error data is an object ({taskId}, {issues}, {supported}), not an array of @type details", () => checks.errorDetails(ours.rpcUrl));
  it("U7 (fixed): GetExtendedAgentCard is -32601 Method not found, not -32004 (undeclared) / -32007 (declared, not configured)", async () => {
    await checks.extendedCardNotDeclared(ours.rpcUrl);
    // A card declaring the extended card needs a security scheme (§13.3): the server refuses to start without one.
    const declared = await startServer("1.0.1", "node", { card: { capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true } }, auth: TEST_AUTH });
    try {
      expect(errorOf(await rpc1(declared.rpcUrl, "GetExtendedAgentCard", {}, 1, { headers: { authorization: `Bearer ${TEST_TOKEN}` } }))).toMatchObject({ code: -32007 });
    } finally {
      await declared.close();
    }
  });
  it("U8 (fixed): ListTasks statusTimestampAfter leaves out tasks at exactly that time (proto: greater than or equal)", async () => {
    const task = (await resultOf(ours.rpcUrl, "SendMessage", { message: wireMessage("task", { contextId: "ctx-ts" }) })).task as Json;
    const listed = await resultOf(ours.rpcUrl, "ListTasks", { contextId: "ctx-ts", statusTimestampAfter: (task.status as Json).timestamp });
    expect((listed.tasks as Json[]).map((t) => t.id)).toEqual([task.id]);
  });
  it("U9 (fixed): ListTasks ignores an invalid statusTimestampAfter ('yesterday') instead of -32602", () => checks.badTimestamp(ours.rpcUrl));
  it("U10 (fixed): GetTask with historyLength 0 answers `history: []` instead of leaving the field out", () => checks.historyZero(ours.rpcUrl));

});
