/**
 * gRPC interoperability with the official SDK 1.x (@a2a-js/sdk 1.3.0, installed as `a2a-sdk-v1`), both ways,
 * on 127.0.0.1 (schema/specification-1.0.1.md §10):
 *  1. the SDK's client (ClientFactory + GrpcTransportFactory) against our binding, serving the fake service;
 *  2. our client transport against the SDK's gRPC server (grpcService + DefaultRequestHandler) running the
 *     SDK echo agent of the JSON-RPC interop suite.
 * What differs is written up in docs/grpc.md ("Interoperability").
 */
import grpc from "@grpc/grpc-js";
import {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTasksRequest,
  SendMessageRequest,
  TaskPushNotificationConfig,
  TaskState,
  type Task,
} from "a2a-sdk-v1";
import { ClientFactory, ClientFactoryOptions, type Client } from "a2a-sdk-v1/client";
import { GrpcTransportFactory } from "a2a-sdk-v1/client/grpc";
import { TaskNotFoundError } from "a2a-sdk-v1/errors";
import { DefaultRequestHandler, InMemoryTaskStore } from "a2a-sdk-v1/server";
import { A2AService, grpcService as sdkGrpcService, UserBuilder } from "a2a-sdk-v1/server/grpc";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { A2AError } from "../../../src/runtime/client/client.js";
import type { GrpcBindingSpec } from "../../../src/runtime/grpc/binding.js";
import { GrpcTransport } from "../../../src/runtime/grpc/client-transport.js";
import { serveGrpc, type GrpcServerHandle } from "../../../src/runtime/grpc/server.js";
import type { Validator } from "../../../src/runtime/validation.js";
import { generatedValidators } from "../../support/project.js";
import { EchoExecutor, sdkText } from "../../support/sdk-agents/sdk-1.x.js";
import { sdkSend } from "../../support/wire/jsonrpc-1.0.js";
import { drain } from "../../support/wire/jsonrpc.js";
import { modules, TEST_AUTH, TEST_TOKEN, testCard, testExecutor } from "../../support/servers.js";
import { binding101, CARD, FakeService, withGrpcInterface } from "../../support/grpc/fake-service.js";

type Json = Record<string, unknown>;
let spec: GrpcBindingSpec;
let validators: Record<string, Validator<unknown>>;

beforeAll(async () => {
  spec = await binding101();
  validators = await generatedValidators("1.0.1");
  for (const level of ["error", "warn", "info"] as const) vi.spyOn(console, level).mockImplementation(() => undefined);
});
afterAll(() => {
  vi.restoreAllMocks();
});

function valid(definition: string, value: unknown): void {
  const validate = validators[definition] as Validator<unknown>;
  if (!validate(value)) throw new Error(`${definition} invalid: ${JSON.stringify(validate.errors)}`);
}

describe("the SDK's gRPC client → our gRPC binding", () => {
  let server: GrpcServerHandle;
  let service: FakeService;
  let client: Client;

  beforeAll(async () => {
    service = new FakeService();
    server = await serveGrpc(spec, service);
    const card = AgentCard.fromJSON({ ...CARD, supportedInterfaces: [{ url: `127.0.0.1:${server.port}`, protocolBinding: "GRPC", protocolVersion: "1.0" }], securitySchemes: {}, securityRequirements: [] });
    const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new GrpcTransportFactory({ grpcChannelCredentials: grpc.credentials.createInsecure() })] }));
    client = await factory.createFromAgentCard(card);
  });
  afterAll(async () => {
    await server.close();
  });

  it("SendMessage: the SDK gets the task, with the a2a-version metadata it sends (§10.2)", async () => {
    const result = await client.sendMessage(sdkSend("hello sdk"));
    expect("status" in result).toBe(true);
    const task = result as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(sdkText(task.artifacts?.[0])).toBe("hello sdk");
    expect(service.calls.at(-1)?.headers["a2a-version"]).toBe("1.0");
    // What our service got from the SDK's protobuf is valid 1.0.1 params.
    valid("SendMessageRequest", service.calls.at(-1)?.params);
  });

  it("SendStreamingMessage: every event arrives, in order, as the SDK's StreamResponse cases", async () => {
    const events = await drain(client.sendMessageStream(sdkSend("stream")));
    expect(events.map((e) => e.payload?.$case)).toEqual(["task", "statusUpdate", "artifactUpdate", "statusUpdate"]);
  });

  it("GetTask, ListTasks, and TaskNotFoundError as the SDK's typed error (status + ErrorInfo)", async () => {
    const task = (await client.sendMessage(sdkSend("get me"))) as Task;
    const got = await client.getTask(GetTaskRequest.fromJSON({ id: task.id, historyLength: 1 }));
    expect(got.id).toBe(task.id);
    expect(got.history).toHaveLength(1);
    const listed = await client.listTasks(ListTasksRequest.fromJSON({ pageSize: 10 }));
    expect(listed.tasks.map((t) => t.id)).toContain(task.id);
    await expect(client.getTask(GetTaskRequest.fromJSON({ id: "missing" }))).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it("SubscribeToTask: the SDK's loop gets the events; leaving it releases our stream", async () => {
    service.addWorkingTask("sdk-sub");
    const before = service.streams.length;
    let n = 0;
    for await (const event of client.resubscribeTask({ tenant: "", id: "sdk-sub" })) {
      expect(["task", "statusUpdate"]).toContain(event.payload?.$case);
      if (++n === 2) break;
    }
    const record = service.streams[before];
    for (let i = 0; i < 200 && !record?.released; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(record?.released).toBe(true);
  });
});

describe("our gRPC client transport → the SDK's gRPC server", () => {
  let server: grpc.Server;
  let transport: GrpcTransport;

  beforeAll(async () => {
    const card = AgentCard.fromJSON({ ...CARD, securitySchemes: {}, securityRequirements: [] });
    const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new EchoExecutor());
    server = new grpc.Server();
    server.addService(A2AService, sdkGrpcService({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
    const port = await new Promise<number>((resolve, reject) => server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
    transport = new GrpcTransport(spec, `127.0.0.1:${port}`, { headers: { "a2a-version": "1.0" } });
  });
  afterAll(async () => {
    transport.close();
    await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
  });

  const message = (text: string, extra: Json = {}): Json => ({ messageId: `m-${Math.random()}`, role: "ROLE_USER", parts: [{ text }], ...extra });

  it("SendMessage: a direct reply and a task, valid 1.0.1 results", async () => {
    const reply = (await transport.call("SendMessage", { message: message("hello") })) as Json;
    valid("SendMessageResponse", reply);
    expect(reply).toMatchObject({ message: { role: "ROLE_AGENT", parts: [{ text: "echo: hello" }] } });
    const task = (await transport.call("SendMessage", { message: message("task") })) as Json;
    valid("SendMessageResponse", task);
    expect(task).toMatchObject({ task: { status: { state: "TASK_STATE_COMPLETED" } } });
  });

  it("SendStreamingMessage: the task's events, each a valid StreamResponse, chunks appended", async () => {
    const events = (await drain(transport.stream("SendStreamingMessage", { message: message("stream") }))) as Json[];
    for (const event of events) valid("StreamResponse", event);
    const chunks = events.filter((e) => e.artifactUpdate).map((e) => ((((e.artifactUpdate as Json).artifact as Json).parts as Json[])[0] as Json).text);
    expect(chunks.join("")).toBe("once upon a time");
    expect(Object.keys(events.at(-1) ?? {})).toEqual(["statusUpdate"]);
  });

  it("GetTask, ListTasks, CancelTask, push configs; the SDK's errors come back as our typed A2A errors", async () => {
    const task = ((await transport.call("SendMessage", { message: message("ask") })) as Json).task as Json;
    expect((task.status as Json).state).toBe("TASK_STATE_INPUT_REQUIRED");
    const got = (await transport.call("GetTask", { id: task.id })) as Json;
    valid("Task", got);
    const listed = (await transport.call("ListTasks", {})) as Json;
    valid("ListTasksResponse", listed);
    expect((listed.tasks as Json[]).map((t) => t.id)).toContain(task.id);
    const created = (await transport.call("CreateTaskPushNotificationConfig", { taskId: task.id, url: "https://hooks.example.com/x" })) as Json;
    valid("TaskPushNotificationConfig", created);
    const configs = (await transport.call("ListTaskPushNotificationConfigs", { taskId: task.id })) as Json;
    expect((configs.configs as Json[]).map((c) => c.url)).toEqual(["https://hooks.example.com/x"]);
    expect(await transport.call("DeleteTaskPushNotificationConfig", { taskId: task.id, id: created.id })).toEqual({});

    const missing = await transport.call("GetTask", { id: "nope" }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(A2AError);
    expect((missing as A2AError).code).toBe(-32001);
    // The SDK's server sends the ErrorInfo of §10.6; our client hands it over as the error's data.
    expect((missing as A2AError).data).toEqual([{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org" }]);

    const done = ((await transport.call("SendMessage", { message: message("task") })) as Json).task as Json;
    const notCancelable = await transport.call("CancelTask", { id: done.id }).catch((e: unknown) => e);
    expect((notCancelable as A2AError).code).toBe(-32002);
  });
});

describe("the SDK's gRPC client → our binding in front of the real generated 1.0.1 core", () => {
  let server: GrpcServerHandle;
  let close: () => Promise<void>;
  let client: Client;

  beforeAll(async () => {
    const m = await modules("1.0.1");
    const card = testCard("1.0.1", { extendedCard: { name: "Extended" } });
    const core = m.core.createA2AServer({
      card: withGrpcInterface(card) as never,
      transports: ["GRPC"],
      executor: testExecutor() as never,
      rpcPath: "/a2a",
      extendedCard: { ...card, name: "Extended" } as never,
      // The card declares the extended card, so it has a security scheme (§13.3); the SDK's calls carry the token.
      auth: TEST_AUTH as never,
      pushNotifications: { allow: ["127.0.0.1"], retries: 0, timeoutMs: 200 },
      logger: { error: () => undefined, warn: () => undefined },
    });
    server = await serveGrpc(spec, core as never);
    close = async () => {
      await server.close();
      await core.close();
    };
    const sdkCard = AgentCard.fromJSON({ ...card, supportedInterfaces: [{ url: `127.0.0.1:${server.port}`, protocolBinding: "GRPC", protocolVersion: "1.0" }] });
    // The bearer token as a service parameter (gRPC metadata) of every call, set by an interceptor.
    const bearer = {
      before: async (args: { options?: { serviceParameters?: Record<string, string> } }) => {
        args.options = { ...args.options, serviceParameters: { ...args.options?.serviceParameters, authorization: `Bearer ${TEST_TOKEN}` } };
      },
      after: async () => undefined,
    };
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new GrpcTransportFactory({ grpcChannelCredentials: grpc.credentials.createInsecure() })], clientConfig: { interceptors: [bearer as never] } }),
    );
    client = await factory.createFromAgentCard(sdkCard);
  });
  afterAll(async () => {
    await close();
  });

  it("send, stream (the story in chunks), get with historyLength, cancel, push configs, extended card", async () => {
    const reply = await client.sendMessage(sdkSend("hello"));
    expect("role" in reply && sdkText(reply)).toBe("hello back");
    const task = (await client.sendMessage(sdkSend("task"))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(sdkText(task.artifacts?.[0])).toBe("the result");
    const got = await client.getTask(GetTaskRequest.fromJSON({ id: task.id, historyLength: 1 }));
    expect(got.history).toHaveLength(1);

    const events = await drain(client.sendMessageStream(sdkSend("stream")));
    const story = events.map((e) => (e.payload?.$case === "artifactUpdate" ? sdkText(e.payload.value.artifact) : "")).join("");
    expect(story).toBe("once upon a time");

    const slow = (await client.sendMessage(SendMessageRequest.fromJSON({ message: { messageId: "slow-1", role: "ROLE_USER", parts: [{ text: "slow" }] }, configuration: { returnImmediately: true } }))) as Task;
    const canceled = await client.cancelTask(CancelTaskRequest.fromJSON({ id: slow.id }));
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);

    const ask = (await client.sendMessage(sdkSend("ask"))) as Task;
    const config = await client.createTaskPushNotificationConfig(TaskPushNotificationConfig.fromJSON({ taskId: ask.id, id: "cfg", url: "http://127.0.0.1:9/hook" }));
    expect(config.url).toBe("http://127.0.0.1:9/hook");
    const listed = await client.listTaskPushNotificationConfig(ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: ask.id }));
    expect(listed.configs.map((c) => c.id)).toEqual(["cfg"]);
    await client.deleteTaskPushNotificationConfig(DeleteTaskPushNotificationConfigRequest.fromJSON({ taskId: ask.id, id: "cfg" }));
    expect((await client.listTaskPushNotificationConfig(ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: ask.id }))).configs).toEqual([]);

    // Client.getAgentCard() fetches the extended card over the transport when the card offers one.
    const extended = await client.getAgentCard();
    expect(extended.name).toBe("Extended");
  });
});
