/**
 * Interop over 0.3.0's HTTP+JSON binding (specification-0.3.0.md §3.2.3) with the official SDK
 * @a2a-js/sdk 0.3.14, both directions:
 * 1. the SDK's REST client (RestTransportFactory) against our generated 0.3.0 server on every adapter,
 *    every answer it gets checked independently (against a2a-0.3.0.proto as ProtoJSON, and translated,
 *    against the 0.3.0 schema);
 * 2. our generated 0.3.0 client with `restTransport` (validating every result against the schema) against
 *    the SDK's `restHandler` server with an echo agent written against the SDK's executor API.
 * Where the SDK departs from the proto or the text, `departs()` pins it (docs/interop.md).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { AgentCard, Message, Task } from "@a2a-js/sdk";
import { ClientFactory, DefaultAgentCardResolver, RestTransportFactory, TaskNotCancelableError, TaskNotFoundError, type Client } from "@a2a-js/sdk/client";
import { DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server";
import { agentCardHandler, restHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import { A2AClient, A2ATaskNotCancelableError, A2ATaskNotFoundError, restTransport } from "../../../generated/a2a-0.3.0/client.js";
import { capturingRestFetch, checkCaptured, FRAMEWORKS, modules, startServer, TEST_TOKEN, type Captured, type RunningServer } from "../../support/servers.js";
import { EchoExecutor } from "../../support/sdk-agents/sdk-0.3.js";
import { departs, drain, textOf, userMessage } from "../../support/wire/jsonrpc.js";

type Json = Record<string, unknown>;

beforeAll(() => {
  for (const level of ["error", "warn", "info"] as const) vi.spyOn(console, level).mockImplementation(() => undefined);
});
afterAll(() => {
  vi.restoreAllMocks();
});

const isTask = (result: Message | Task): result is Task => result.kind === "task";

// =====================================================================================================
// 1. The SDK's REST client against our generated 0.3.0 server

for (const framework of FRAMEWORKS) {
  describe(`the SDK 0.3.14 REST client against our 0.3.0 server (${framework})`, () => {
    let server: RunningServer;
    let client: Client;
    const log: Array<Promise<Captured>> = [];
    const requests: string[] = [];

    beforeAll(async () => {
      // The card declares the extended card, hence a bearer scheme (§13.3): every REST call carries the token.
      server = await startServer("0.3.0", framework, { rest: true, extendedCard: { name: "Extended" }, heartbeatMs: 10 });
      const m = await modules("0.3.0");
      const capture = capturingRestFetch(log, m, server.restUrl);
      const fetchImpl = ((input: string | URL | Request, init?: RequestInit) => {
        requests.push(`${init?.method ?? "GET"} ${String(input)}`);
        if (!String(input).startsWith(server.restUrl)) return fetch(input, init);
        return capture(String(input), { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), authorization: `Bearer ${TEST_TOKEN}` } });
      }) as typeof fetch;
      // Only the REST transport: the card prefers JSON-RPC, which the SDK would otherwise pick.
      const factory = new ClientFactory({ transports: [new RestTransportFactory({ fetchImpl })], cardResolver: new DefaultAgentCardResolver({ fetchImpl }) });
      client = await factory.createFromUrl(server.baseUrl);
    });
    afterAll(async () => server.close());
    const checkAll = async () => {
      const { checked, problems } = await checkCaptured("0.3.0", log);
      expect(problems).toEqual([]);
      expect(checked).toBeGreaterThan(0);
    };

    it("picks the card's HTTP+JSON interface and sends a message (POST …/v1/message:send)", async () => {
      const reply = await client.sendMessage({ message: userMessage("hello") });
      expect(isTask(reply)).toBe(false);
      expect(textOf(reply)).toBe("hello back");
      expect(requests).toContain(`POST ${server.restUrl}/v1/message:send`);
      await checkAll();
    });

    it("a task with its artifact; getTask with historyLength; an unknown id is TaskNotFoundError", async () => {
      const task = (await client.sendMessage({ message: userMessage("task") })) as Task;
      expect(task.status.state).toBe("completed");
      expect(task.artifacts?.map(textOf)).toEqual(["the result"]);
      const got = await client.getTask({ id: task.id, historyLength: 1 });
      expect(got.id).toBe(task.id);
      expect(got.history).toHaveLength(1);
      await expect(client.getTask({ id: "no-such-task" })).rejects.toBeInstanceOf(TaskNotFoundError);
      await checkAll();
    });

    it("multi-turn, stream (the story in chunks), resubscribe, cancel; a canceled task is TaskNotCancelableError", async () => {
      const ask = (await client.sendMessage({ message: userMessage("ask") })) as Task;
      expect(ask.status.state).toBe("input-required");
      const done = (await client.sendMessage({ message: userMessage("Bob", { taskId: ask.id, contextId: ask.contextId }) })) as Task;
      expect(done.status.state).toBe("completed");
      const events = await drain(client.sendMessageStream({ message: userMessage("stream") }));
      const story = events.filter((e) => e.kind === "artifact-update").map((e) => textOf((e as { artifact: unknown }).artifact)).join("");
      expect(story).toBe("once upon a time");
      const slow = client.sendMessageStream({ message: userMessage("slow") });
      const first = (await slow.next()).value as Task;
      // The cancel must come after the resubscription is registered: it answers the task's current state first.
      const resubscribed = client.resubscribeTask({ id: first.id });
      const current = await resubscribed.next();
      expect((current.value as { status: { state: string } }).status.state).toBe("working");
      const joined = drain(resubscribed);
      const canceled = await client.cancelTask({ id: first.id });
      expect(canceled.status.state).toBe("canceled");
      expect(((await joined).at(-1) as { status: { state: string } }).status.state).toBe("canceled");
      await drain(slow);
      await expect(client.cancelTask({ id: first.id })).rejects.toBeInstanceOf(TaskNotCancelableError);
      await checkAll();
    });

    it("push configs: set (the proto's body: the TaskPushNotificationConfig), get, list, delete", async () => {
      const task = (await client.sendMessage({ message: userMessage("ask") })) as Task;
      const set = await client.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig: { id: "cfg", url: "http://127.0.0.1:9/hook", token: "tok" } });
      expect(set).toMatchObject({ taskId: task.id, pushNotificationConfig: { id: "cfg", url: "http://127.0.0.1:9/hook" } });
      expect(await client.getTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: "cfg" })).toMatchObject({ pushNotificationConfig: { token: "tok" } });
      expect((await client.listTaskPushNotificationConfig({ id: task.id })).map((c) => c.pushNotificationConfig.id)).toEqual(["cfg"]);
      await client.deleteTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: "cfg" });
      expect(await client.listTaskPushNotificationConfig({ id: task.id })).toEqual([]);
      await checkAll();
    });

    it("the authenticated extended card (GET …/v1/card with the token)", async () => {
      const card = await client.getAgentCard();
      expect(card.name).toBe("Extended");
      expect(requests).toContain(`GET ${server.restUrl}/v1/card`);
      await checkAll();
    });
  });
}

// =====================================================================================================
// 2. Our generated 0.3.0 client over REST against the SDK's restHandler server

describe("our 0.3.0 client over HTTP+JSON against the SDK 0.3.14 REST server", () => {
  let http: Server;
  let base: string;
  let handler: DefaultRequestHandler;
  let client: A2AClient;

  beforeAll(async () => {
    const express = (await import("express")).default;
    const card: AgentCard = {
      name: "SDK Echo Agent",
      description: "The official SDK's REST server, echoing",
      protocolVersion: "0.3.0",
      version: "1.0.0",
      url: "http://127.0.0.1:1/rest",
      preferredTransport: "HTTP+JSON",
      capabilities: { streaming: true, pushNotifications: true },
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: [{ id: "echo", name: "Echo", description: "Echoes", tags: ["test"] }],
    };
    const store = new InMemoryTaskStore();
    const executor = new EchoExecutor();
    executor.contextOf = async (taskId) => (await store.load(taskId))?.contextId;
    handler = new DefaultRequestHandler(card, store, executor);
    const app = express();
    app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: async () => card }));
    app.use("/rest", restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
    http = createServer(app);
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", () => resolve()));
    base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    card.url = `${base}/rest`;
    client = await A2AClient.fromAgentUrl(base, { transports: [restTransport], validateResponses: true });
  });
  afterAll(async () => {
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  });

  it("picks the card's preferred HTTP+JSON transport; a direct reply and a task, each valid against the 0.3.0 schema", async () => {
    expect(client.transport.binding).toBe("HTTP+JSON");
    const reply = (await client.sendMessage(A2AClient.sendParams("hello"))) as Json;
    expect(reply.kind).toBe("message");
    expect(textOf(reply)).toBe("echo: hello");
    const task = (await client.sendMessage(A2AClient.sendParams("task"))) as Json;
    expect(task).toMatchObject({ kind: "task", status: { state: "completed" } });
    expect(textOf((task.artifacts as Json[])[0])).toBe("echo: task");
    const got = (await client.getTask({ id: String(task.id), historyLength: 1 })) as Json;
    expect(got.history as Json[]).toHaveLength(1);
    await expect(client.getTask({ id: "no-such-task" })).rejects.toBeInstanceOf(A2ATaskNotFoundError);
  });

  it("a stream and a resubscription end on the final event; cancel, then TaskNotCancelable (the SDK's 409 read by its code)", async () => {
    const events = (await drain(client.sendStreamingMessage(A2AClient.sendParams("stream")))) as Json[];
    expect(events.filter((e) => e.kind === "artifact-update").map((e) => textOf(e.artifact)).join("")).toBe("once upon a time");
    expect(events.at(-1)).toMatchObject({ kind: "status-update", final: true, status: { state: "completed" } });
    const slow = client.sendStreamingMessage(A2AClient.sendParams("slow"));
    const first = (await slow.next()).value as Json;
    const id = String(first.id);
    // The cancel must come after the resubscription is registered: it answers the task's current state first.
    const resubscribed = client.taskResubscription({ id });
    const current = (await resubscribed.next()).value as Json;
    expect((current.status as Json).state).toBe("working");
    const joined = drain(resubscribed);
    const canceled = (await client.cancelTask({ id })) as Json;
    expect((canceled.status as Json).state).toBe("canceled");
    expect(((await joined).at(-1) as Json).status).toMatchObject({ state: "canceled" });
    await drain(slow);
    await expect(client.cancelTask({ id })).rejects.toBeInstanceOf(A2ATaskNotCancelableError);
  });

  it("push configs: get, list and delete over REST (a config the SDK's handler holds)", async () => {
    const task = (await client.sendMessage(A2AClient.sendParams("ask"))) as Json;
    const taskId = String(task.id);
    await handler.setTaskPushNotificationConfig({ taskId, pushNotificationConfig: { id: "cfg", url: "http://127.0.0.1:9/hook", token: "tok" } });
    const got = (await client.getTaskPushNotificationConfig({ id: taskId, pushNotificationConfigId: "cfg" })) as Json;
    expect(got).toMatchObject({ taskId, pushNotificationConfig: { id: "cfg", token: "tok" } });
    expect(((await client.listTaskPushNotificationConfig({ id: taskId })) as Json[]).map((c) => (c.pushNotificationConfig as Json).id)).toEqual(["cfg"]);
    await client.deleteTaskPushNotificationConfig({ id: taskId, pushNotificationConfigId: "cfg" });
    expect(await client.listTaskPushNotificationConfig({ id: taskId })).toEqual([]);
  });

  it("[departs] set: the SDK's server reads the body as the whole CreateTaskPushNotificationConfigRequest, not the proto's `body: \"config\"`", async () => {
    const task = (await client.sendMessage(A2AClient.sendParams("ask"))) as Json;
    const taskId = String(task.id);
    // a2a-0.3.0.proto: `post: "/v1/{parent=tasks/*}/pushNotificationConfigs", body: "config"`: the body is the
    // TaskPushNotificationConfig, as our client (and the SDK's own REST client) sends it. The SDK's server
    // wants `{ parent, config }` in the body and answers -32602 "Request must include a `config` object".
    await departs(async () => {
      const set = await client.setTaskPushNotificationConfig({ taskId, pushNotificationConfig: { id: "cfg", url: "http://127.0.0.1:9/hook" } }).catch((error: unknown) => error);
      expect(set).toMatchObject({ taskId, pushNotificationConfig: { id: "cfg" } });
    });
    // What it does accept: the request message in the body (and the task from `parent`, not from the path).
    const raw = await fetch(`${base}/rest/v1/tasks/${taskId}/pushNotificationConfigs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ parent: `tasks/${taskId}`, config: { pushNotificationConfig: { id: "cfg2", url: "http://127.0.0.1:9/hook" } } }),
    });
    expect(raw.status).toBe(201);
  });
});
