/**
 * Interop over the HTTP+JSON binding (specification-1.0.1.md §11) with the official SDK 1.x
 * (@a2a-js/sdk 1.3.0, installed as `a2a-sdk-v1`), both directions:
 * 1. the SDK's REST client (RestTransportFactory) against our generated 1.0.1 server on every adapter,
 *    every answer it gets checked against the 1.0.1 schema independently;
 * 2. our REST client transport (runtime/client/rest.ts, with the generated validators on) against the
 *    SDK's `restHandler` server.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { AgentCard, CancelTaskRequest, GetTaskRequest, TaskState, type Message, type StreamResponse, type Task } from "a2a-sdk-v1";
import { DefaultRequestHandler, InMemoryTaskStore } from "a2a-sdk-v1/server";
import { agentCardHandler, restHandler, UserBuilder } from "a2a-sdk-v1/server/express";
import { ClientFactory, DefaultAgentCardResolver, RestTransportFactory, type Client } from "a2a-sdk-v1/client";
import { TaskNotFoundError } from "a2a-sdk-v1/errors";
import { A2AClient, A2AJsonRpcError, A2ATaskNotFoundError } from "../../../generated/a2a-1.0.1/client.js";
import { isFinalEvent as isFinalIn } from "../../../generated/a2a-1.0.1/runtime/client/protocol.js";
import { ProtocolShapes } from "../../../generated/a2a-1.0.1/runtime/protocol-shapes.js";
import { A2A_HTTP_ROUTES, A2A_METHODS, A2A_PROFILE } from "../../../generated/a2a-1.0.1/protocol.js";
import { RestTransport } from "../../../generated/a2a-1.0.1/runtime/client/rest.js";
import { validators } from "../../../generated/a2a-1.0.1/validators.js";
import { capturingRestFetch, checkCaptured, FRAMEWORKS, modules, startServer, type Captured, type RunningServer } from "../../support/servers.js";
import { EchoExecutor, sdkText } from "../../support/sdk-agents/sdk-1.x.js";
import { sdkSend } from "../../support/wire/jsonrpc-1.0.js";
import { drain } from "../../support/wire/jsonrpc.js";

type Json = Record<string, unknown>;

beforeAll(() => {
  for (const level of ["error", "warn", "info"] as const) vi.spyOn(console, level).mockImplementation(() => undefined);
});
afterAll(() => {
  vi.restoreAllMocks();
});

const isTask = (result: Message | Task): result is Task => "status" in result;
const casesOf = (events: StreamResponse[]) => events.map((e) => e.payload?.$case);

// =====================================================================================================
// 1. The SDK's REST client against our generated server

for (const framework of FRAMEWORKS) {
  describe(`the SDK 1.x REST client against our 1.0.1 server (${framework})`, () => {
    let server: RunningServer;
    let client: Client;
    const log: Array<Promise<Captured>> = [];
    const requests: string[] = [];

    beforeAll(async () => {
      server = await startServer("1.0.1", framework, { rest: true, heartbeatMs: 10 });
      const m = await modules("1.0.1");
      const capture = capturingRestFetch(log, m, server.restUrl);
      const fetchImpl = ((input: string | URL | Request, init?: RequestInit) => {
        requests.push(`${init?.method ?? "GET"} ${String(input)}`);
        return String(input).startsWith(server.restUrl) ? capture(String(input), init ?? {}) : fetch(input, init);
      }) as typeof fetch;
      // Only the REST transport: the card lists JSON-RPC first, which the SDK would otherwise prefer.
      const factory = new ClientFactory({ transports: [new RestTransportFactory({ fetchImpl })], cardResolver: new DefaultAgentCardResolver({ fetchImpl }) });
      client = await factory.createFromUrl(server.baseUrl);
    });
    afterAll(async () => server.close());
    const checkAll = async () => {
      const { checked, problems } = await checkCaptured("1.0.1", log);
      expect(problems).toEqual([]);
      expect(checked).toBeGreaterThan(0);
    };

    it("picks the HTTP+JSON interface the card lists and sends a message (POST …/message:send)", async () => {
      const reply = await client.sendMessage(sdkSend("hello"));
      expect(isTask(reply)).toBe(false);
      expect(sdkText(reply as Message)).toBe("hello back");
      expect(requests).toContain(`POST ${server.restUrl}/message:send`);
      await checkAll();
    });

    it("a task with its artifact; getTask by id (GET …/tasks/{id}); an unknown id is TaskNotFoundError", async () => {
      const task = (await client.sendMessage(sdkSend("task"))) as Task;
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(task.artifacts.map(sdkText)).toEqual(["the result"]);
      const got = await client.getTask(GetTaskRequest.fromJSON({ id: task.id, historyLength: 1 }));
      expect(got.id).toBe(task.id);
      expect(got.history).toHaveLength(1);
      await expect(client.getTask(GetTaskRequest.fromJSON({ id: "no-such-task" }))).rejects.toBeInstanceOf(TaskNotFoundError);
      await checkAll();
    });

    it("a stream (SSE of StreamResponse): the task, updates, three chunks, the terminal status", async () => {
      const events = await drain(client.sendMessageStream(sdkSend("stream")));
      expect(casesOf(events)).toEqual(["task", "statusUpdate", "artifactUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"]);
      await checkAll();
    });

    it("cancelTask on a working task (POST …/tasks/{id}:cancel)", async () => {
      const stream = client.sendMessageStream(sdkSend("slow"));
      const first = (await stream.next()).value as StreamResponse;
      const taskId = first.payload?.$case === "task" ? first.payload.value.id : "";
      const canceled = await client.cancelTask(CancelTaskRequest.fromJSON({ id: taskId }));
      expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      await drain(stream);
      await checkAll();
    });
  });
}

// =====================================================================================================
// 2. Our REST client transport against the SDK's REST server

describe("our REST client transport against the SDK 1.x restHandler", () => {
  let server: Server;
  let restUrl: string;
  let transport: RestTransport;

  beforeAll(async () => {
    const express = (await import("express")).default;
    const app = express();
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    restUrl = `${baseUrl}/rest`;
    const card = AgentCard.fromJSON({
      name: "SDK Echo Agent",
      description: "The official SDK 1.x's REST server",
      version: "1.0.0",
      supportedInterfaces: [{ url: restUrl, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" }],
      capabilities: { streaming: true, pushNotifications: false },
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: [{ id: "echo", name: "Echo", description: "Echoes", tags: ["test"] }],
    });
    const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new EchoExecutor());
    app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: handler }));
    app.use("/rest", restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
    const classes = [A2ATaskNotFoundError];
    transport = new RestTransport(restUrl, A2A_HTTP_ROUTES, { profile: A2A_PROFILE }, { validateResponses: true }, {
      makeError: (method, error) => new (classes.find((c) => c.code === error.code) ?? A2AJsonRpcError)(method, error),
      isFinal: (result) => isFinalIn(new ProtocolShapes(A2A_PROFILE), result),
      validate: (method, response) => {
        const type = (A2A_METHODS as Record<string, { responseType: string | null }>)[method]?.responseType;
        const validate = type ? validators[type as keyof typeof validators] : undefined;
        return !validate || validate(response) ? null : (validate.errors ?? []);
      },
    });
  });
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );

  it("SendMessage: a direct message, then a task; every result valid against the 1.0.1 schema", async () => {
    const reply = (await transport.call("SendMessage", A2AClient.sendParams("hello"))) as Json;
    expect(sdkTextOf(reply.message)).toBe("echo: hello");
    const task = (await transport.call("SendMessage", A2AClient.sendParams("task"))) as Json;
    expect(((task.task as Json).status as Json).state).toBe("TASK_STATE_COMPLETED");
  });

  it("GetTask with historyLength (a query parameter); an unknown id is A2ATaskNotFoundError", async () => {
    const task = ((await transport.call("SendMessage", A2AClient.sendParams("task"))) as Json).task as Json;
    const got = (await transport.call("GetTask", { id: task.id, historyLength: 1 })) as Json;
    expect(got.id).toBe(task.id);
    expect(got.history as unknown[]).toHaveLength(1);
    await expect(transport.call("GetTask", { id: "no-such-task" })).rejects.toBeInstanceOf(A2ATaskNotFoundError);
  });

  it("SendStreamingMessage: the events until the terminal status", async () => {
    const events: Json[] = [];
    for await (const event of transport.stream("SendStreamingMessage", A2AClient.sendParams("stream"))) events.push(event as Json);
    expect(events.map((e) => Object.keys(e)[0])).toEqual(["task", "statusUpdate", "artifactUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"]);
  });

  it("CancelTask on a running task; its stream ends", async () => {
    const stream = transport.stream("SendStreamingMessage", A2AClient.sendParams("slow"));
    const first = (await stream.next()).value as Json;
    const taskId = String((first.task as Json).id);
    const canceled = (await transport.call("CancelTask", { id: taskId })) as Json;
    expect((canceled.status as Json).state).toBe("TASK_STATE_CANCELED");
    for await (const _ of stream) void _;
  });
});

function sdkTextOf(message: unknown): string {
  return (((message as Json | undefined)?.parts as Json[] | undefined) ?? []).map((p) => String(p.text ?? "")).join("");
}
