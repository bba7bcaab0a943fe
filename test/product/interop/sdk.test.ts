/**
 * Interoperability with the official A2A JavaScript SDK, @a2a-js/sdk 0.3.14 (A2A 0.3.0), both ways:
 *
 *  1. the SDK's client against our generated 0.3.0 server, behind each of the four adapters, over each
 *     binding (JSON-RPC, §3.2.1, and HTTP+JSON, §3.2.3: the same behaviours, the SDK's transport for each);
 *  2. our generated 0.3.0 client against the SDK's Express server (DefaultRequestHandler + InMemoryTaskStore,
 *     JSON-RPC and `restHandler`) running an echo agent written with the SDK's executor API
 *     (test/support/sdk-agents/sdk-0.3.ts), over each binding;
 *  3. where the SDK departs from the A2A 0.3.0 spec, a test states what the spec requires and pins the
 *     departure with `departs()` (each is written up in docs/interop.md), next to the same check passing
 *     on our server;
 *  4. problems on our side, found through the SDK, as skipped tests naming the problem.
 *
 * Everything listens on 127.0.0.1, port 0, and is closed after the tests.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from "@a2a-js/sdk";
import {
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  TaskNotCancelableError,
  TaskNotFoundError,
  type Client,
} from "@a2a-js/sdk/client";
import {
  A2AClient,
  A2ATaskNotCancelableError,
  A2ATaskNotFoundError,
  restTransport,
} from "../../../generated/a2a-0.3.0/client.js";
import { clientValidation } from "../../../generated/a2a-0.3.0/client-validation.js";
import {
  capturingFetch,
  capturingRestFetch,
  checkCaptured,
  FRAMEWORKS,
  modules,
  startServer,
  startWebhookReceiver,
  testCard,
  testExecutor,
  type Captured,
  type RunningServer,
  TEST_TOKEN,
  type VersionModules,
  type WebhookReceiver,
} from "../../support/servers.js";
import { startSdkServer, type SdkServer } from "../../support/sdk-agents/sdk-0.3.js";
import { departs, drain, rawRpc, startTwoLineSseStub, textOf, userMessage } from "../../support/wire/jsonrpc.js";

type Json = Record<string, unknown>;
type StreamEvent = Message | Task | TaskStatusUpdateEvent | TaskArtifactUpdateEvent;

// The SDK logs every handled error, push delivery and warning to the console; keep the output readable.
beforeAll(() => {
  for (const level of ["error", "warn", "info"] as const) vi.spyOn(console, level).mockImplementation(() => undefined);
});
afterAll(() => {
  vi.restoreAllMocks();
});

/** The task id of any stream event. */
const taskIdOf = (event: StreamEvent): string | undefined => (event.kind === "task" ? event.id : event.taskId);

/** A fetch for the SDK client that records every request and captures the JSON-RPC answers for schema checks. */
function sdkFetch(log: Array<Promise<Captured>>, requests: string[]) {
  const capture = capturingFetch(log);
  return (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    requests.push(`${init?.method ?? "GET"} ${String(input)}`);
    // Our test servers declare the extended card, so they have a security scheme (§13.3): the SDK sends its token.
    const authorized = init?.method === "POST" ? { ...init, headers: { ...Object.fromEntries(new Headers(init.headers)), authorization: `Bearer ${TEST_TOKEN}` } } : init;
    return init?.method === "POST" ? capture(String(input), authorized as RequestInit) : fetch(input, init);
  };
}

/** The same for the SDK's REST client: every call under `restUrl` carries the token and its answer is captured. */
function sdkRestFetch(log: Array<Promise<Captured>>, requests: string[], m: VersionModules, restUrl: string) {
  const capture = capturingRestFetch(log, m, restUrl);
  return (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    requests.push(`${init?.method ?? "GET"} ${String(input)}`);
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

/** The JSON-RPC error code of an SDK client error (its REST errors carry no JSON-RPC body). */
const rpcCodeOf = (error: unknown) => (error as { errorResponse?: { error: Json } }).errorResponse?.error.code;

for (const framework of FRAMEWORKS) {
  describe.each(BINDINGS)(`the SDK's client against our 0.3.0 server (${framework}, %s)`, (binding) => {
    let server: RunningServer;
    let hook: WebhookReceiver;
    let client: Client;
    const log: Array<Promise<Captured>> = [];
    const requests: string[] = [];

    beforeAll(async () => {
      // Heartbeats every 10 ms, so that the SDK's SSE parser meets comment lines in the slow streams.
      server = await startServer("0.3.0", framework, { rest: true, extendedCard: { name: "Extended" }, heartbeatMs: 10 });
      hook = await startWebhookReceiver();
      const fetchImpl = (binding === "JSONRPC" ? sdkFetch(log, requests) : sdkRestFetch(log, requests, await modules("0.3.0"), server.restUrl)) as typeof fetch;
      // Only the binding under test: the card prefers JSON-RPC, which the SDK would otherwise pick.
      const factory = new ClientFactory({ transports: [sdkTransport(binding, fetchImpl)], cardResolver: new DefaultAgentCardResolver({ fetchImpl }) });
      client = await factory.createFromUrl(server.baseUrl);
    });
    afterAll(async () => {
      await server.close();
      await hook.close();
    });
    /** Every answer the SDK client got is checked against the 0.3.0 schema (REST: its proto, then translated), independently. */
    const checkAll = async () => {
      const { checked, problems } = await checkCaptured("0.3.0", log);
      expect(problems).toEqual([]);
      expect(checked).toBeGreaterThan(0);
    };

    it("discovers the card from the base URL and calls the interface of its binding (JSON-RPC: the card's url; HTTP+JSON: POST …/v1/message:send)", async () => {
      expect(requests[0]).toBe(`GET ${server.baseUrl}/.well-known/agent-card.json`);
      const card = await new DefaultAgentCardResolver().resolve(server.baseUrl);
      expect(card).toMatchObject({ name: "Test Agent", protocolVersion: "0.3.0", url: server.rpcUrl, capabilities: { streaming: true } });
      await client.sendMessage({ message: userMessage("hello") });
      expect(requests.at(-1)).toBe(binding === "JSONRPC" ? `POST ${server.rpcUrl}` : `POST ${server.restUrl}/v1/message:send`);
      // The card says supportsAuthenticatedExtendedCard: the SDK fetches it (JSON-RPC: agent/getAuthenticatedExtendedCard;
      // HTTP+JSON: GET …/v1/card). Only for authenticated callers (specification-1.0.1.md §13.3; the card has a
      // bearer scheme): anonymous, it is refused.
      const only = (fetchImpl: typeof fetch) => new ClientFactory({ transports: [sdkTransport(binding, fetchImpl)] });
      const anonymous = await only(fetch).createFromUrl(server.baseUrl);
      await expect(anonymous.getAgentCard()).rejects.toThrow();
      const authorized = (binding === "JSONRPC" ? sdkFetch([], []) : sdkRestFetch([], [], await modules("0.3.0"), server.restUrl)) as typeof fetch;
      const other = await only(authorized).createFromUrl(server.baseUrl);
      expect((await other.getAgentCard()).name).toBe("Extended");
      await checkAll();
    });

    it("sendMessage: a direct message reply to 'hello', in the client's context", async () => {
      const sent = userMessage("hello", { contextId: `ctx-${framework}` });
      const reply = await client.sendMessage({ message: sent });
      expect(reply.kind).toBe("message");
      const message = reply as Message;
      expect(message.role).toBe("agent");
      expect(textOf(message)).toBe("hello back");
      expect(message.contextId).toBe(sent.contextId);
      expect(message.messageId).not.toBe(sent.messageId);
      await checkAll();
    });

    it("sendMessage: a completed task with its artifact for 'task'", async () => {
      const sent = userMessage("task");
      const task = (await client.sendMessage({ message: sent })) as Task;
      expect(task.kind).toBe("task");
      expect(task.status.state).toBe("completed");
      expect(textOf(task.status.message)).toBe("done");
      expect(task.artifacts?.map((a) => [a.artifactId, a.name, textOf(a)])).toEqual([["result", "result", "the result"]]);
      expect(task.history?.[0]).toMatchObject({ messageId: sent.messageId, role: "user", taskId: task.id, contextId: task.contextId });
      await checkAll();
    });

    it("sendMessageStream: the task, the status updates, the artifact chunks, the final status", async () => {
      const sent = userMessage("stream");
      const events = await drain(client.sendMessageStream({ message: sent }));
      expect(events.map((e) => e.kind)).toEqual(["task", "status-update", "artifact-update", "artifact-update", "artifact-update", "status-update"]);
      const task = events[0] as Task;
      expect(task.status.state).toBe("submitted");
      expect(task.history?.map((m) => m.messageId)).toEqual([sent.messageId]);
      expect(events.every((e) => taskIdOf(e) === task.id && e.contextId === task.contextId)).toBe(true);
      const statuses = events.filter((e): e is TaskStatusUpdateEvent => e.kind === "status-update");
      expect(statuses.map((e) => [e.status.state, e.final])).toEqual([
        ["working", false],
        ["completed", true],
      ]);
      expect(textOf(statuses[1]?.status.message)).toBe("the end");
      const chunks = events.filter((e): e is TaskArtifactUpdateEvent => e.kind === "artifact-update");
      // `?? false`: over HTTP+JSON the answers are ProtoJSON, which leaves a false boolean out (a2a-0.3.0.proto).
      expect(chunks.map((e) => [e.artifact.artifactId, textOf(e.artifact), e.lastChunk ?? false])).toEqual([
        ["story", "once ", false],
        ["story", "upon ", false],
        ["story", "a time", true],
      ]);
      // [D15] The SDK's REST client drops `append`: our server sends `"append": true` on the later chunks (on the wire:
      // `data: {"artifactUpdate":{…,"append":true,…}}`), and every chunk reaches its caller as append false (§7.2.3).
      const appends = () => expect(chunks.map((e) => e.append ?? false)).toEqual([false, true, true]);
      if (binding === "JSONRPC") appends();
      else await departs(appends);
      const stored = await client.getTask({ id: task.id });
      expect(stored.artifacts?.map(textOf)).toEqual(["once upon a time"]);
      await checkAll();
    });

    it("getTask: the whole history, then trimmed by historyLength; an unknown id is TaskNotFound", async () => {
      const task = (await client.sendMessage({ message: userMessage("task") })) as Task;
      expect((await client.getTask({ id: task.id })).history?.map(textOf)).toEqual(["task", "on it", "done"]);
      expect((await client.getTask({ id: task.id, historyLength: 2 })).history?.map(textOf)).toEqual(["on it", "done"]);
      expect((await client.getTask({ id: task.id, historyLength: 0 })).history ?? []).toEqual([]);
      const error = await client.getTask({ id: "no-such-task" }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TaskNotFoundError);
      if (binding === "JSONRPC") expect(rpcCodeOf(error)).toBe(-32001);
      await checkAll();
    });

    it("multi-turn: input-required, then the follow-up completes the same task", async () => {
      const first = (await client.sendMessage({ message: userMessage("ask") })) as Task;
      expect(first.status.state).toBe("input-required");
      expect(textOf(first.status.message)).toBe("what is your name?");
      const second = (await client.sendMessage({ message: userMessage("Bob", { taskId: first.id, contextId: first.contextId }) })) as Task;
      expect(second).toMatchObject({ kind: "task", id: first.id, contextId: first.contextId, status: { state: "completed" } });
      expect(textOf(second.status.message)).toBe("got: Bob");
      expect(second.history?.filter((m) => m.role === "user").map(textOf)).toEqual(["ask", "Bob"]);
      await checkAll();
    });

    it("cancelTask: a 'slow' stream is canceled and ends; canceling again is TaskNotCancelable", async () => {
      const stream = client.sendMessageStream({ message: userMessage("slow") });
      const first = (await stream.next()).value as Task;
      expect(first.kind).toBe("task");
      const working = (await stream.next()).value as TaskStatusUpdateEvent;
      expect(working).toMatchObject({ kind: "status-update", taskId: first.id, final: false, status: { state: "working" } });
      expect(textOf(working.status.message)).toBe("working slowly");
      const canceled = await client.cancelTask({ id: first.id });
      expect(canceled).toMatchObject({ kind: "task", id: first.id, status: { state: "canceled" } });
      const rest = await drain(stream);
      expect(rest.at(-1)).toMatchObject({ kind: "status-update", taskId: first.id, final: true, status: { state: "canceled" } });
      const again = await client.cancelTask({ id: first.id }).catch((e: unknown) => e);
      expect(again).toBeInstanceOf(TaskNotCancelableError);
      if (binding === "JSONRPC") expect(rpcCodeOf(again)).toBe(-32002);
      expect((await client.getTask({ id: first.id })).status.state).toBe("canceled");
      await checkAll();
    });

    it("resubscribeTask: joins a running 'slow' task, then sees its cancellation end the stream", async () => {
      const stream = client.sendMessageStream({ message: userMessage("slow") });
      const first = (await stream.next()).value as Task;
      await stream.next(); // working
      const resubscribed = client.resubscribeTask({ id: first.id });
      const head = (await resubscribed.next()).value as Task;
      expect(head).toMatchObject({ kind: "task", id: first.id, contextId: first.contextId, status: { state: "working" } });
      await client.cancelTask({ id: first.id });
      const seen = await drain(resubscribed);
      expect(seen.at(-1)).toMatchObject({ kind: "status-update", taskId: first.id, final: true, status: { state: "canceled" } });
      expect((await drain(stream)).at(-1)).toMatchObject({ status: { state: "canceled" } });
      await checkAll();
    });

    it("push notification configs: set, get, list, a delivery with the token, delete", async () => {
      const task = (await client.sendMessage({ message: userMessage("ask") })) as Task;
      const config = { id: `cfg-${framework}-${binding}`, url: hook.url, token: "tok-sdk" };
      expect(await client.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig: config })).toMatchObject({
        taskId: task.id,
        pushNotificationConfig: config,
      });
      expect(await client.getTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: config.id })).toMatchObject({
        taskId: task.id,
        pushNotificationConfig: config,
      });
      expect(await client.listTaskPushNotificationConfig({ id: task.id })).toMatchObject([{ taskId: task.id, pushNotificationConfig: config }]);
      await client.sendMessage({ message: userMessage("Ann", { taskId: task.id, contextId: task.contextId }) });
      const delivery = await hook.waitFor((body) => body.id === task.id && (body.status as Json).state === "completed");
      expect(delivery.headers["x-a2a-notification-token"]).toBe("tok-sdk");
      expect(delivery.body).toMatchObject({ kind: "task", contextId: task.contextId });
      await client.deleteTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: config.id });
      expect(await client.listTaskPushNotificationConfig({ id: task.id })).toEqual([]);
      await checkAll();
    });
  });
}

// =====================================================================================================
// 2. Our generated client against the SDK's server

describe.each(BINDINGS)("our generated 0.3.0 client against the SDK's Express server (%s)", (binding) => {
  let sdk: SdkServer;
  let hook: WebhookReceiver;
  let client: A2AClient;
  const log: Array<Promise<Captured>> = [];
  const requests: string[] = [];

  beforeAll(async () => {
    sdk = await startSdkServer();
    hook = await startWebhookReceiver();
    const capture = binding === "JSONRPC" ? capturingFetch(log) : capturingRestFetch(log, await modules("0.3.0"), sdk.restUrl);
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
    const { checked, problems } = await checkCaptured("0.3.0", log);
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(0);
  };

  it("discovers the SDK's card from the base URL and calls the interface of the chosen binding", async () => {
    expect(requests[0]).toBe(`GET ${sdk.baseUrl}/.well-known/agent-card.json`);
    expect(client.card).toMatchObject({ name: "SDK Echo Agent", protocolVersion: "0.3.0", preferredTransport: "JSONRPC" });
    expect(client.transport.binding).toBe(binding);
    expect(client.endpoint).toBe(binding === "JSONRPC" ? sdk.rpcUrl : sdk.restUrl);
    await client.sendMessage({ message: A2AClient.userMessage("hello") });
    expect(requests.at(-1)).toBe(binding === "JSONRPC" ? `POST ${sdk.rpcUrl}` : `POST ${sdk.restUrl}/v1/message:send`);
    await checkAll();
  });

  it("sendMessage: the echo as a direct Message", async () => {
    const reply = await client.sendMessage({ message: A2AClient.userMessage("hello", { contextId: "ctx-ours" }) });
    expect(reply).toMatchObject({ kind: "message", role: "agent", contextId: "ctx-ours" });
    expect(textOf(reply)).toBe("echo: hello");
    expect("taskId" in reply).toBe(false);
    await checkAll();
  });

  it("sendMessage: the echo as a completed Task with an artifact", async () => {
    const sent = A2AClient.userMessage("task");
    const task = await client.sendMessage({ message: sent });
    expect(task.kind).toBe("task");
    if (task.kind !== "task") return;
    expect(task.status.state).toBe("completed");
    expect(textOf(task.status.message)).toBe("done");
    expect(task.artifacts?.map((a) => [a.artifactId, textOf(a)])).toEqual([["echo", "echo: task"]]);
    expect(task.history?.[0]).toMatchObject({ messageId: sent.messageId, role: "user", taskId: task.id });
    await checkAll();
  });

  it("sendStreamingMessage: the task, status updates, the artifact chunks, the final status", async () => {
    const events = (await drain(client.sendStreamingMessage({ message: A2AClient.userMessage("stream") }))) as StreamEvent[];
    expect(events.map((e) => e.kind)).toEqual(["task", "status-update", "artifact-update", "artifact-update", "artifact-update", "status-update"]);
    const task = events[0] as Task;
    expect(events.every((e) => taskIdOf(e) === task.id)).toBe(true);
    const chunks = events.filter((e): e is TaskArtifactUpdateEvent => e.kind === "artifact-update");
    // `?? false`: the SDK's REST server leaves false booleans out, as ProtoJSON does (the fields are optional, §6.7).
    expect(chunks.map((e) => [textOf(e.artifact), e.append ?? false, e.lastChunk ?? false])).toEqual([
      ["once ", false, false],
      ["upon ", true, false],
      ["a time", true, true],
    ]);
    expect(events.at(-1)).toMatchObject({ kind: "status-update", final: true, status: { state: "completed" } });
    expect(textOf((events.at(-1) as TaskStatusUpdateEvent).status.message)).toBe("the end");
    const stored = await client.getTask({ id: task.id });
    expect(stored.artifacts?.map(textOf)).toEqual(["once upon a time"]);
    await checkAll();
  });

  it("getTask: historyLength trims to the most recent messages; an unknown id is A2ATaskNotFoundError", async () => {
    const task = await client.sendMessage({ message: A2AClient.userMessage("task") });
    const id = (task as Task).id;
    expect((await client.getTask({ id, historyLength: 3 })).history?.map(textOf)).toEqual(["task", "on it", "done"]);
    expect((await client.getTask({ id, historyLength: 1 })).history?.map(textOf)).toEqual(["done"]);
    await expect(client.getTask({ id: "no-such-task" })).rejects.toMatchObject({ name: "A2ATaskNotFoundError", code: -32001 });
    await checkAll();
  });

  it("multi-turn: input-required, then the follow-up completes the same task", async () => {
    const first = (await client.sendMessage({ message: A2AClient.userMessage("ask") })) as Task;
    expect(first.status.state).toBe("input-required");
    const second = (await client.sendMessage({
      message: A2AClient.userMessage("Bob", { taskId: first.id, contextId: first.contextId }),
    })) as Task;
    expect(second).toMatchObject({ id: first.id, status: { state: "completed" } });
    expect(textOf(second.status.message)).toBe("got: Bob");
    await checkAll();
  });

  it("cancelTask: a 'slow' stream is canceled and ends; canceling again is A2ATaskNotCancelableError", async () => {
    const stream = client.sendStreamingMessage({ message: A2AClient.userMessage("slow") });
    const first = (await stream.next()).value as Task;
    expect(first).toMatchObject({ kind: "task", status: { state: "submitted" } });
    expect((await stream.next()).value).toMatchObject({ kind: "status-update", status: { state: "working" } });
    const canceled = await client.cancelTask({ id: first.id });
    expect(canceled).toMatchObject({ id: first.id, status: { state: "canceled" } });
    expect((await drain(stream)).at(-1)).toMatchObject({ kind: "status-update", final: true, status: { state: "canceled" } });
    const again = await client.cancelTask({ id: first.id }).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(A2ATaskNotCancelableError);
    expect(again).toMatchObject({ code: -32002 });
    await checkAll();
  });

  it("taskResubscription: joins a running 'slow' task and sees its cancellation", async () => {
    const stream = client.sendStreamingMessage({ message: A2AClient.userMessage("slow") });
    const first = (await stream.next()).value as Task;
    await stream.next(); // working
    const resubscribed = client.taskResubscription({ id: first.id });
    expect((await resubscribed.next()).value).toMatchObject({ kind: "task", id: first.id, status: { state: "working" } });
    await client.cancelTask({ id: first.id });
    expect((await drain(resubscribed)).at(-1)).toMatchObject({ kind: "status-update", taskId: first.id, final: true, status: { state: "canceled" } });
    await drain(stream);
    // A finished task: the SDK sends the task, and our client ends on its terminal state.
    expect(await drain(client.taskResubscription({ id: first.id }))).toMatchObject([{ kind: "task", status: { state: "canceled" } }]);
    await checkAll();
  });

  it("push notification configs: set, get, list, a delivery with the token, delete", async () => {
    const task = (await client.sendMessage({ message: A2AClient.userMessage("ask") })) as Task;
    const config = { id: "cfg-ours", url: hook.url, token: "tok-ours" };
    // Over HTTP+JSON the SDK's server refuses the proto's body for `set` (a departure, pinned below): set behind its back.
    const set =
      binding === "JSONRPC"
        ? await client.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig: config })
        : await sdk.handler.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig: config });
    expect(set).toEqual({
      taskId: task.id,
      pushNotificationConfig: config,
    });
    expect(await client.getTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: "cfg-ours" })).toEqual({
      taskId: task.id,
      pushNotificationConfig: config,
    });
    expect(await client.listTaskPushNotificationConfig({ id: task.id })).toEqual([{ taskId: task.id, pushNotificationConfig: config }]);
    await client.sendMessage({ message: A2AClient.userMessage("Ann", { taskId: task.id, contextId: task.contextId }) });
    const delivery = await hook.waitFor((body) => body.id === task.id && (body.status as Json).state === "completed");
    expect(delivery.headers["x-a2a-notification-token"]).toBe("tok-ours");
    expect(delivery.body).toMatchObject({ kind: "task", contextId: task.contextId });
    expect(await client.deleteTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: "cfg-ours" })).toBeNull();
    expect(await client.listTaskPushNotificationConfig({ id: task.id })).toEqual([]);
    await checkAll();
  });

  it("stream errors: the SDK's error answers to failing streams become typed errors (JSON-RPC: `event: error` frames)", async () => {
    const unknown = A2AClient.userMessage("more", { taskId: "no-such-task" });
    const streamed = () => expect(drain(client.sendStreamingMessage({ message: unknown }))).rejects.toBeInstanceOf(A2ATaskNotFoundError);
    const resubscribed = () => expect(drain(client.taskResubscription({ id: "no-such-task" }))).rejects.toBeInstanceOf(A2ATaskNotFoundError);
    if (binding === "JSONRPC") {
      await streamed();
      await resubscribed();
      await checkAll();
    } else {
      // [D14] Over HTTP+JSON the SDK's server fails to serialize the error of a failing stream ("Bug: toJson
      // serializer …") and answers an internal error instead of TaskNotFound (§3.2.3, §8.2).
      await departs(streamed);
      await departs(resubscribed);
    }
  });
});

// =====================================================================================================
// 3. Where the SDK departs from A2A 0.3.0 (docs/interop.md, "Departures"), and the same checks on our server

describe("SDK departures from A2A 0.3.0, and the gaps our server closes", () => {
  let sdk: SdkServer;
  let ours: RunningServer;

  beforeAll(async () => {
    sdk = await startSdkServer();
    // No webhook host is allow-listed, and a small body limit.
    ours = await startServer("0.3.0", "node", { allow: [], maxBodyBytes: 64 * 1024 });
  });
  afterAll(async () => {
    await sdk.close();
    await ours.close();
  });

  /** A result of a raw call, or the raw answer when it was not a success. */
  const resultOf = async (url: string, method: string, params: unknown): Promise<Json> => {
    const answer = await rawRpc(url, method, params);
    const result = answer.bodies[0]?.result as Json | undefined;
    if (!result) throw new Error(`${method} failed: ${answer.status} ${answer.text.slice(0, 300)}`);
    return result;
  };
  const errorOf = (answer: { bodies: Json[] }) => answer.bodies.at(-1)?.error as Json | undefined;

  it("[D1] tasks/get with historyLength 0 returns no messages (§7.3.1 TaskQueryParams.historyLength)", async () => {
    for (const url of [sdk.rpcUrl, ours.rpcUrl]) {
      const task = await resultOf(url, "message/send", { message: userMessage("task") });
      const got = await resultOf(url, "tasks/get", { id: task.id, historyLength: 0 });
      const check = () => expect((got.history as unknown[] | undefined) ?? []).toHaveLength(0);
      if (url === sdk.rpcUrl) await departs(check); // the SDK returns the whole history: slice(-0)
      else check();
    }
  });

  it("[D2] message/send honors configuration.historyLength (§7.1.1 MessageSendConfiguration.historyLength)", async () => {
    for (const url of [sdk.rpcUrl, ours.rpcUrl]) {
      const task = await resultOf(url, "message/send", { message: userMessage("task"), configuration: { historyLength: 1 } });
      const check = () => expect((task.history as Json[]).map(textOf)).toEqual(["done"]);
      if (url === sdk.rpcUrl) await departs(check); // the SDK ignores it: 3 messages
      else check();
    }
  });

  it("[D3] a notification (no id) gets no response (§6.11.1, JSON-RPC 2.0 §4.1)", async () => {
    for (const url of [sdk.rpcUrl, ours.rpcUrl]) {
      const answer = await rawRpc(url, "tasks/get", { id: "no-such-task" }, null, { notification: true });
      expect(answer.status).toBeLessThan(300);
      const check = () => expect(answer.text).toBe("");
      if (url === sdk.rpcUrl) await departs(check); // the SDK answers {"id":null,"error":{"code":-32001,...}}
      else {
        check();
        expect(answer.status).toBe(204);
      }
    }
  });

  it("[D4] the response to a request with id 0 carries id 0, in a stream's error too (§6.11.2)", async () => {
    for (const url of [sdk.rpcUrl, ours.rpcUrl]) {
      const answer = await rawRpc(url, "message/stream", { message: userMessage("more", { taskId: "no-such-task" }) }, 0);
      expect(errorOf(answer)).toMatchObject({ code: -32001 });
      const check = () => expect(answer.bodies.at(-1)?.id).toBe(0);
      if (url === sdk.rpcUrl) await departs(check); // the SDK's Express handler writes `id: req.body?.id || null`
      else check();
    }
  });

  it("[D5] params of the wrong type are Invalid params -32602 (§8.1)", async () => {
    for (const url of [sdk.rpcUrl, ours.rpcUrl]) {
      const answer = await rawRpc(url, "tasks/get", { id: 42, historyLength: "all" });
      const check = () => expect(errorOf(answer)).toMatchObject({ code: -32602 });
      if (url === sdk.rpcUrl) await departs(check); // the SDK looks the number up: -32001 "Task not found: 42"
      else check();
    }
  });

  it("[D6] a malformed message (no kind, role or parts) is refused with -32602 (§8.1, §10.2 input validation)", async () => {
    for (const url of [sdk.rpcUrl, ours.rpcUrl]) {
      const answer = await rawRpc(url, "message/send", { message: { messageId: "m-malformed" } });
      const check = () => expect(errorOf(answer)).toMatchObject({ code: -32602 });
      if (url === sdk.rpcUrl) await departs(check); // the SDK runs the agent on it and answers a task
      else check();
    }
  });

  it("[D7] a missing push notification config is not an internal error -32603 (§8.1)", async () => {
    for (const url of [sdk.rpcUrl, ours.rpcUrl]) {
      const task = await resultOf(url, "message/send", { message: userMessage("ask") });
      const answer = await rawRpc(url, "tasks/pushNotificationConfig/get", { id: task.id, pushNotificationConfigId: "none" });
      expect(errorOf(answer)).toBeDefined();
      const check = () => expect(errorOf(answer)?.code).not.toBe(-32603);
      if (url === sdk.rpcUrl) await departs(check);
      else check(); // ours: -32602
    }
  });

  it("[D8] a message to a finished task is refused, but not as Invalid Request -32600 (§7.1, §8.1)", async () => {
    for (const url of [sdk.rpcUrl, ours.rpcUrl]) {
      const task = await resultOf(url, "message/send", { message: userMessage("task") });
      const answer = await rawRpc(url, "message/send", { message: userMessage("more", { taskId: String(task.id), contextId: String(task.contextId) }) });
      expect(errorOf(answer)).toBeDefined();
      const check = () => expect(errorOf(answer)?.code).not.toBe(-32600);
      if (url === sdk.rpcUrl) await departs(check);
      else check(); // ours: -32602
    }
  });

  it("[D9] a too-large body is answered with a JSON-RPC error, not an HTML page (§7: the body MUST be a JSONRPCResponse)", async () => {
    const big = { message: userMessage("x".repeat(200_000)) };
    for (const url of [sdk.rpcUrl, ours.rpcUrl]) {
      const answer = await rawRpc(url, "message/send", big);
      expect(answer.status).toBe(413);
      const check = () => {
        expect(answer.contentType).toMatch(/^application\/json/);
        expect(answer.bodies[0]).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
      };
      if (url === sdk.rpcUrl) await departs(check); // Express's default error page: text/html with a stack trace
      else check();
    }
  });

  it("[D10] the card's security schemes are enforced: no credentials, 401 (§4.4)", async () => {
    const securedCard = { securitySchemes: { bearer: { type: "http" as const, scheme: "bearer" } }, security: [{ bearer: [] }] };
    const secured = await startSdkServer({ card: securedCard });
    const m = await modules("0.3.0");
    const auth = { verify: (credential: { value: string }) => credential.value === "secret" };
    const oursSecured = await startServer("0.3.0", "node", { auth });
    try {
      const sdkAnswer = await rawRpc(secured.rpcUrl, "tasks/get", { id: "no-such-task" });
      await departs(() => expect(sdkAnswer.status).toBe(401)); // the SDK serves it: 200, -32001
      const oursAnswer = await rawRpc(oursSecured.rpcUrl, "tasks/get", { id: "no-such-task" });
      expect(oursAnswer.status).toBe(401);
      expect(oursAnswer.bodies[0]).toMatchObject({ error: { code: -32000 } });
      const authorized = await rawRpc(oursSecured.rpcUrl, "tasks/get", { id: "no-such-task" }, 1, { headers: { authorization: "Bearer secret" } });
      expect(errorOf(authorized)).toMatchObject({ code: -32001 });
      // And ours fails closed: a card with security schemes and no verifier does not start.
      expect(() =>
        m.core.createA2AServer({ card: testCard("0.3.0", { auth }) as never, executor: testExecutor() as never }),
      ).toThrow(/security schemes/);
    } finally {
      await secured.close();
      await oursSecured.close();
    }
  });

  it("[D11] webhook URLs are checked against SSRF (§10.2): loopback and non-http URLs are refused", async () => {
    // Set on a task that gets no more events, so that nothing is ever sent to these URLs.
    for (const url of [sdk.rpcUrl, ours.rpcUrl]) {
      const task = await resultOf(url, "message/send", { message: userMessage("ask") });
      for (const webhook of ["http://127.0.0.1:1/admin", "file:///etc/passwd"]) {
        const answer = await rawRpc(url, "tasks/pushNotificationConfig/set", { taskId: task.id, pushNotificationConfig: { url: webhook } });
        const check = () => expect(errorOf(answer)).toMatchObject({ code: -32602 });
        if (url === sdk.rpcUrl) await departs(check); // the SDK stores any string and later fetch()es it
        else check();
      }
    }
  });

  it("[D12] the SDK client joins an SSE event's `data:` lines (§3.3.1: SSE as the W3C defines it)", async () => {
    const stub = await startTwoLineSseStub();
    try {
      const card = { ...sdk.card, url: stub.url };
      const sdkClient = await new ClientFactory().createFromAgentCard(card);
      const sdkEvents = drain(sdkClient.sendMessageStream({ message: userMessage("hi") }));
      const received = await sdkEvents.catch((e: unknown) => e);
      await departs(() => expect(received).toMatchObject([{ kind: "message", parts: [{ text: "two lines" }] }]));
      // Ours joins them.
      const ourEvents = await drain(new A2AClient(stub.url).sendStreamingMessage({ message: A2AClient.userMessage("hi") }));
      expect(ourEvents).toMatchObject([{ kind: "message", parts: [{ text: "two lines" }] }]);
    } finally {
      await stub.close();
    }
  });

  it("[difference, spec leaves it open] tasks/get without historyLength: the SDK answers history: [], ours the whole history", async () => {
    const sdkTask = await resultOf(sdk.rpcUrl, "message/send", { message: userMessage("task") });
    expect((await resultOf(sdk.rpcUrl, "tasks/get", { id: sdkTask.id })).history).toEqual([]);
    const ourTask = await resultOf(ours.rpcUrl, "message/send", { message: userMessage("task") });
    expect(((await resultOf(ours.rpcUrl, "tasks/get", { id: ourTask.id })).history as Json[]).map(textOf)).toEqual(["task", "on it", "done"]);
  });

  it("[D13] HTTP+JSON set: the SDK's server reads the body as the whole request, not the proto's `body: \"config\"` (a2a-0.3.0.proto)", async () => {
    const client = await A2AClient.fromAgentUrl(sdk.baseUrl, { transports: [restTransport], binding: "HTTP+JSON" });
    const task = (await client.sendMessage({ message: A2AClient.userMessage("ask") })) as Task;
    // a2a-0.3.0.proto: `post: "/v1/{parent=tasks/*}/pushNotificationConfigs", body: "config"`: the body is the
    // TaskPushNotificationConfig, as our client (and the SDK's own REST client) sends it. The SDK's server
    // wants `{ parent, config }` in the body and answers -32602 "Request must include a `config` object".
    await departs(async () => {
      const set = await client.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig: { id: "cfg", url: "http://127.0.0.1:9/hook" } }).catch((error: unknown) => error);
      expect(set).toMatchObject({ taskId: task.id, pushNotificationConfig: { id: "cfg" } });
    });
    // What it does accept: the request message in the body (and the task from `parent`, not from the path).
    const raw = await fetch(`${sdk.restUrl}/v1/tasks/${task.id}/pushNotificationConfigs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ parent: `tasks/${task.id}`, config: { pushNotificationConfig: { id: "cfg2", url: "http://127.0.0.1:9/hook" } } }),
    });
    expect(raw.status).toBe(201);
  });
});

// =====================================================================================================
// 4. Problems on our side, found through the SDK (skipped until fixed; see docs/interop.md, "Problems on our side")

describe("problems on our side", () => {
  let server: RunningServer;
  let client: Client;
  beforeAll(async () => {
    server = await startServer("0.3.0", "node");
    client = await new ClientFactory().createFromUrl(server.baseUrl);
  });
  afterAll(async () => {
    await server.close();
  });

  // Fixed P1: a streaming method that fails before its first event (unknown task id, invalid params,
  // streaming not supported) was answered with plain JSON; A2A 0.3.0 §3.3.1 and §7 answer a streaming
  // method with `text/event-stream`, the error as one event's JSON-RPC response.
  it("P1: message/stream and tasks/resubscribe errors reach the SDK client as typed A2A errors", async () => {
    const streamError = await drain(client.sendMessageStream({ message: userMessage("more", { taskId: "no-such-task" }) })).catch((e: unknown) => e);
    expect((streamError as Error).message).toMatch(/Code: -32001/);
    expect((streamError as Error).cause).toBeInstanceOf(TaskNotFoundError);
    const resubscribeError = await drain(client.resubscribeTask({ id: "no-such-task" })).catch((e: unknown) => e);
    expect((resubscribeError as Error).cause).toBeInstanceOf(TaskNotFoundError);
  });

  // Fixed P2: a direct Message reply (no task) carried a `taskId` that named no task. Message.taskId is
  // "the identifier of the task this message is part of" (schema 0.3.0): a direct reply has none.
  it("P2: a direct reply names no task that does not exist", async () => {
    const reply = (await client.sendMessage({ message: userMessage("hello") })) as Message;
    expect(reply.kind).toBe("message");
    expect(reply.taskId).toBeUndefined();
    expect(typeof reply.contextId).toBe("string");
  });

  // Fixed P3: every execution's signal added an "abort" listener to the server-wide shutdown signal and
  // never removed it (one per message); now AbortSignal.any, which holds no listener on the inputs' behalf.
  it("P3: finished executions leave no listener on the server's shutdown signal", async () => {
    const { getEventListeners } = await import("node:events");
    const shutdown = (server.core as unknown as { service: { runtime: { closing: AbortSignal } } }).service.runtime.closing;
    const before = getEventListeners(shutdown, "abort").length;
    for (let i = 0; i < 10; i++) await client.sendMessage({ message: userMessage(i % 2 ? "task" : "hello") });
    expect(getEventListeners(shutdown, "abort").length).toBe(before);
  });
});
