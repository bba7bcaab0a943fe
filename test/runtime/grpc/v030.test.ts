/**
 * The gRPC binding of A2A 0.3.0 (specification-0.3.0.md §3.2.2, §3.5.6; schema/a2a-0.3.0.proto, package
 * a2a.v1). The service speaks 0.3.0's JSON-RPC shapes (schema/a2a-0.3.0.json); the wire speaks the proto's,
 * which differ (runtime/wire/shapes-0.3.0.ts). Each decision where they disagree is pinned here:
 *   D1 resource names: GetTask `name: "tasks/{id}"` ⇄ params `{ id }`; a bad name is INVALID_ARGUMENT on `name`;
 *   D2 enums: TASK_STATE_CANCELLED ⇄ "canceled" (the spec's spelling), ROLE_USER ⇄ "user";
 *   D3 parts: `{ file: { fileWithUri, mimeType } }` ⇄ `{ kind: "file", file: { uri, mimeType } }`, data in `data.data`;
 *   D4 push configs: `tasks/{id}/pushNotificationConfigs/{configId}` ⇄ `{ taskId, pushNotificationConfig.id }`;
 *   D5 fields the proto lacks are lost (Part metadata, file name, referenceTaskIds);
 *   D6 `historyLength: 0` cannot be told from "not set" (plain int32 in 0.3.0's proto);
 *   D7 `blocking` (plain bool, default false, on the wire; blocking unless false in JSON-RPC): the client
 *      writes it out, a wire configuration without it is non-blocking.
 * Interop: our transport against the SDK 1.3.0's legacy (0.3) gRPC server, and its legacy gRPC client against
 * our binding.
 */
import grpc from "@grpc/grpc-js";
import { AgentCard as SdkAgentCard, TaskState } from "a2a-sdk-v1";
import { ClientFactory, ClientFactoryOptions } from "a2a-sdk-v1/client";
import { GrpcTransportFactory } from "a2a-sdk-v1/client/grpc";
import { LegacyA2AService, legacyGrpcService } from "a2a-sdk-v1/compat/v0_3/server/grpc";
import { DefaultRequestHandler, InMemoryTaskStore } from "a2a-sdk-v1/server";
import { UserBuilder } from "a2a-sdk-v1/server/grpc";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { grpcDescriptor } from "../../../src/emit/grpc.js";
import { A2AError } from "../../../src/runtime/client/client.js";
import { loadGrpcBinding, type GrpcBindingSpec, type LoadedGrpcBinding } from "../../../src/runtime/grpc/binding.js";
import { GrpcTransport } from "../../../src/runtime/grpc/client-transport.js";
import { decodeStatus, STATUS_DETAILS_KEY } from "../../../src/runtime/grpc/google-rpc.js";
import { serveGrpc, type A2AServiceLike, type GrpcCallContext, type GrpcServerHandle } from "../../../src/runtime/grpc/server.js";
import { SHAPES_0_3_0 } from "../../../src/runtime/wire/shapes-0.3.0.js";
import type { Validator } from "../../../src/runtime/validation.js";
import { GENERATED, generatedValidators, SCHEMA_DIR } from "../../support/project.js";
import { EchoExecutor, sdkText } from "../../support/sdk-agents/sdk-1.x.js";
import { sdkSend } from "../../support/wire/jsonrpc-1.0.js";
import { drain } from "../../support/wire/jsonrpc.js";
import { CARD } from "../../support/grpc/fake-service.js";

type Json = Record<string, unknown>;
let spec: GrpcBindingSpec;
let binding: LoadedGrpcBinding;
let validators: Record<string, Validator<unknown>>;

async function binding030(): Promise<GrpcBindingSpec> {
  const protocol = (await import(join(GENERATED, "a2a-0.3.0", "protocol.ts"))) as { A2A_PROFILE: { errorCodes: Record<string, number>; methods: Record<string, string> } };
  const d = grpcDescriptor(join(SCHEMA_DIR, "a2a-0.3.0.proto"), Object.values(protocol.A2A_PROFILE.methods), "0.3.0");
  return { proto: d.proto, service: d.service, methods: d.methods, errorCodes: protocol.A2A_PROFILE.errorCodes, shapes: SHAPES_0_3_0 };
}

function valid(definition: string, value: unknown): void {
  const validate = validators[definition] as Validator<unknown>;
  if (!validate(value)) throw new Error(`${definition} invalid: ${JSON.stringify(validate.errors)}\n${JSON.stringify(value)}`);
}

class Err extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** A 0.3.0 service: validates params with the generated 0.3.0 validators, answers in 0.3.0 shapes. */
class Fake030 implements A2AServiceLike {
  readonly calls: Array<{ method: string; params: unknown }> = [];
  readonly tasks = new Map<string, Json>();
  readonly configs = new Map<string, Json[]>();
  private n = 0;
  private readonly paramsOf: Record<string, string> = {
    "message/send": "MessageSendParams",
    "message/stream": "MessageSendParams",
    "tasks/get": "TaskQueryParams",
    "tasks/cancel": "TaskIdParams",
    "tasks/resubscribe": "TaskIdParams",
    "tasks/pushNotificationConfig/set": "TaskPushNotificationConfig",
    "tasks/pushNotificationConfig/get": "GetTaskPushNotificationConfigParams",
    "tasks/pushNotificationConfig/list": "ListTaskPushNotificationConfigParams",
    "tasks/pushNotificationConfig/delete": "DeleteTaskPushNotificationConfigParams",
  };

  private admit(method: string, params: unknown): Json {
    this.calls.push({ method, params });
    const definition = this.paramsOf[method];
    if (definition && !validators[definition]?.(params)) throw new Err(-32602, "Invalid params", { issues: validators[definition]?.errors });
    return params as Json;
  }

  async call(method: string, params: unknown, _ctx: GrpcCallContext): Promise<unknown> {
    const p = this.admit(method, params);
    switch (method) {
      case "message/send": {
        const message = p.message as Json;
        const id = `t-${++this.n}`;
        const task = {
          kind: "task",
          id,
          contextId: "c-1",
          status: { state: "completed", timestamp: "2025-01-01T00:00:00Z", message: { kind: "message", messageId: `s-${id}`, role: "agent", parts: [{ kind: "text", text: "done" }] } },
          artifacts: [{ artifactId: "a", parts: [{ kind: "text", text: "x" }, { kind: "file", file: { uri: "https://f.example/x.png", mimeType: "image/png" } }, { kind: "data", data: { k: [1, null] } }] }],
          history: [{ ...message, taskId: id, contextId: "c-1" }],
        };
        this.tasks.set(id, task);
        return task;
      }
      case "tasks/get": {
        const task = this.tasks.get(String(p.id));
        if (!task) throw new Err(-32001, "Task not found", { id: p.id });
        return task;
      }
      case "tasks/cancel": {
        const task = this.tasks.get(String(p.id));
        if (!task) throw new Err(-32001, "Task not found");
        return { ...task, status: { state: "canceled" } };
      }
      case "tasks/pushNotificationConfig/set": {
        const config = { ...(p.pushNotificationConfig as Json), id: ((p.pushNotificationConfig as Json).id as string | undefined) ?? "generated" };
        this.configs.set(String(p.taskId), [...(this.configs.get(String(p.taskId)) ?? []), config]);
        return { taskId: p.taskId, pushNotificationConfig: config };
      }
      case "tasks/pushNotificationConfig/get": {
        const config = (this.configs.get(String(p.id)) ?? []).find((c) => c.id === p.pushNotificationConfigId);
        if (!config) throw new Err(-32001, "Task not found");
        return { taskId: p.id, pushNotificationConfig: config };
      }
      case "tasks/pushNotificationConfig/list":
        return (this.configs.get(String(p.id)) ?? []).map((c) => ({ taskId: p.id, pushNotificationConfig: c }));
      case "tasks/pushNotificationConfig/delete":
        this.configs.set(String(p.id), (this.configs.get(String(p.id)) ?? []).filter((c) => c.id !== p.pushNotificationConfigId));
        return null;
      case "agent/getAuthenticatedExtendedCard":
        return {
          protocolVersion: "0.3.0",
          name: "Fake 0.3",
          description: "d",
          url: "https://agent.example.com/a2a",
          preferredTransport: "GRPC",
          version: "1",
          capabilities: { streaming: true },
          securitySchemes: { key: { type: "apiKey", in: "header", name: "x-api-key" }, bearer: { type: "http", scheme: "bearer" } },
          security: [{ key: [] }, { bearer: ["read"] }],
          defaultInputModes: ["text/plain"],
          defaultOutputModes: ["text/plain"],
          skills: [{ id: "s", name: "S", description: "d", tags: ["t"] }],
        };
      default:
        throw new Err(-32601, `Method not found: ${method}`);
    }
  }

  async stream(method: string, params: unknown, _ctx: GrpcCallContext): Promise<AsyncIterable<unknown>> {
    const p = this.admit(method, params);
    if (method !== "message/stream") throw new Err(-32004, "Unsupported");
    const task = (await this.call("message/send", p, _ctx)) as Json;
    return (async function* () {
      yield { ...task, status: { state: "submitted" } };
      yield { kind: "status-update", taskId: task.id, contextId: task.contextId, status: { state: "working" }, final: false };
      yield { kind: "artifact-update", taskId: task.id, contextId: task.contextId, artifact: { artifactId: "a", parts: [{ kind: "text", text: "chunk" }] }, append: true, lastChunk: true };
      yield { kind: "status-update", taskId: task.id, contextId: task.contextId, status: { state: "completed" }, final: true };
    })();
  }
}

beforeAll(async () => {
  spec = await binding030();
  binding = loadGrpcBinding(spec);
  validators = await generatedValidators("0.3.0");
  for (const level of ["error", "warn", "info"] as const) vi.spyOn(console, level).mockImplementation(() => undefined);
});
afterAll(() => {
  vi.restoreAllMocks();
});

const userMessage = (text: string): Json => ({ kind: "message", messageId: `m-${Math.random()}`, role: "user", parts: [{ kind: "text", text }] });

describe("0.3.0 over gRPC: our transport ⇄ our binding", () => {
  let server: GrpcServerHandle;
  let service: Fake030;
  let transport: GrpcTransport;
  let raw: grpc.Client;
  beforeAll(async () => {
    service = new Fake030();
    server = await serveGrpc(spec, service);
    transport = new GrpcTransport(spec, `127.0.0.1:${server.port}`);
    raw = new grpc.Client(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
  });
  afterAll(async () => {
    transport.close();
    raw.close();
    await server.close();
  });

  it("serves the 10 rpcs of 0.3.0's A2AService (§3.5.6), each as its JSON-RPC method", () => {
    expect(Object.fromEntries([...binding.rpcs.values()].map((r) => [r.name, r.method]))).toEqual({
      SendMessage: "message/send",
      SendStreamingMessage: "message/stream",
      GetTask: "tasks/get",
      CancelTask: "tasks/cancel",
      TaskSubscription: "tasks/resubscribe",
      CreateTaskPushNotificationConfig: "tasks/pushNotificationConfig/set",
      GetTaskPushNotificationConfig: "tasks/pushNotificationConfig/get",
      ListTaskPushNotificationConfig: "tasks/pushNotificationConfig/list",
      DeleteTaskPushNotificationConfig: "tasks/pushNotificationConfig/delete",
      GetAgentCard: "agent/getAuthenticatedExtendedCard",
    });
  });

  it("message/send: valid 0.3.0 params reach the service, a valid 0.3.0 Task comes back (D2, D3)", async () => {
    const task = (await transport.call("message/send", { message: userMessage("go"), configuration: { blocking: true, acceptedOutputModes: ["text/plain"], historyLength: 3 } })) as Json;
    valid("Task", task);
    expect(service.calls.at(-1)?.params).toEqual({ message: expect.objectContaining({ kind: "message", role: "user", parts: [{ kind: "text", text: "go" }] }), configuration: { blocking: true, acceptedOutputModes: ["text/plain"], historyLength: 3 } });
    valid("MessageSendParams", service.calls.at(-1)?.params);
    expect((task.artifacts as Json[])[0]).toEqual({ artifactId: "a", parts: [{ kind: "text", text: "x" }, { kind: "file", file: { uri: "https://f.example/x.png", mimeType: "image/png" } }, { kind: "data", data: { k: [1, null] } }] });
    expect((task.status as Json).state).toBe("completed");
  });

  it("D1: tasks/get is GetTask { name: \"tasks/{id}\" } on the wire; a bad name is INVALID_ARGUMENT on `name`", async () => {
    const task = (await transport.call("message/send", { message: userMessage("get") })) as Json;
    const Request = binding.root.lookupType("a2a.v1.GetTaskRequest");
    const bytes = await new Promise<Buffer>((resolve, reject) =>
      raw.makeUnaryRequest("/a2a.v1.A2AService/GetTask", (b: Uint8Array) => Buffer.from(b), (b: Buffer) => b, Request.encode({ name: `tasks/${String(task.id)}` }).finish(), new grpc.Metadata(), (e, r) => (e ? reject(e) : resolve(r as Buffer))),
    );
    expect((binding.root.lookupType("a2a.v1.Task").decode(bytes) as unknown as { id: string }).id).toBe(task.id);
    expect(service.calls.at(-1)?.params).toEqual({ id: task.id });
    const error = await new Promise<grpc.ServiceError>((resolve) =>
      raw.makeUnaryRequest("/a2a.v1.A2AService/GetTask", (b: Uint8Array) => Buffer.from(b), (b: Buffer) => b, Request.encode({ name: "task-without-collection" }).finish(), new grpc.Metadata(), (e) => resolve(e as grpc.ServiceError)),
    );
    expect(error.code).toBe(grpc.status.INVALID_ARGUMENT);
    const status = decodeStatus(binding.root, error.metadata.get(STATUS_DETAILS_KEY)[0] as Buffer);
    expect(status.details[0]).toMatchObject({ fieldViolations: [{ field: "name", description: 'expected "tasks/{id}", got "task-without-collection"' }] });
  });

  it("D2: a canceled task is TASK_STATE_CANCELLED (5) on the wire and \"canceled\" to the service's client", async () => {
    const task = (await transport.call("message/send", { message: userMessage("c") })) as Json;
    const canceled = (await transport.call("tasks/cancel", { id: task.id })) as Json;
    valid("Task", canceled);
    expect((canceled.status as Json).state).toBe("canceled");
    expect(binding.root.lookupEnum("a2a.v1.TaskState").values.TASK_STATE_CANCELLED).toBe(5);
  });

  it("message/stream: task, status and artifact updates with kind, final on the last (§7.2)", async () => {
    const events = (await drain(transport.stream("message/stream", { message: userMessage("s") }))) as Json[];
    for (const event of events) expect(validators.SendStreamingMessageResponse?.({ jsonrpc: "2.0", id: 1, result: event }), JSON.stringify(event)).toBe(true);
    expect(events.map((e) => e.kind)).toEqual(["task", "status-update", "artifact-update", "status-update"]);
    expect(events.map((e) => e.final)).toEqual([undefined, false, undefined, true]);
  });

  it("D4: push config set/get/list/delete through resource names", async () => {
    const task = (await transport.call("message/send", { message: userMessage("p") })) as Json;
    const set = (await transport.call("tasks/pushNotificationConfig/set", { taskId: task.id, pushNotificationConfig: { id: "cfg-1", url: "https://h.example/x", authentication: { schemes: ["Bearer"] } } })) as Json;
    valid("TaskPushNotificationConfig", set);
    expect(set).toEqual({ taskId: task.id, pushNotificationConfig: { id: "cfg-1", url: "https://h.example/x", authentication: { schemes: ["Bearer"] } } });
    expect(await transport.call("tasks/pushNotificationConfig/get", { id: task.id, pushNotificationConfigId: "cfg-1" })).toEqual(set);
    expect(await transport.call("tasks/pushNotificationConfig/list", { id: task.id })).toEqual([set]);
    expect(await transport.call("tasks/pushNotificationConfig/delete", { id: task.id, pushNotificationConfigId: "cfg-1" })).toBeNull();
    expect(await transport.call("tasks/pushNotificationConfig/list", { id: task.id })).toEqual([]);
  });

  it("the extended card: security schemes and requirements mapped both ways, valid 0.3.0 AgentCard", async () => {
    const card = (await transport.call("agent/getAuthenticatedExtendedCard", undefined)) as Json;
    valid("AgentCard", card);
    expect(card.securitySchemes).toEqual({ key: { type: "apiKey", in: "header", name: "x-api-key" }, bearer: { type: "http", scheme: "bearer" } });
    expect(card.security).toEqual([{ key: [] }, { bearer: ["read"] }]);
  });

  it("errors: TaskNotFound is NOT_FOUND with ErrorInfo TASK_NOT_FOUND and 0.3's data as metadata", async () => {
    const error = await transport.call("tasks/get", { id: "missing" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(A2AError);
    expect(error).toMatchObject({ code: -32001, data: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org", metadata: { id: "missing" } }] });
  });

  it("D5, D6: what 0.3.0's proto cannot carry", async () => {
    const message = { ...userMessage("lossy"), referenceTaskIds: ["t0"], parts: [{ kind: "text", text: "a", metadata: { m: 1 } }, { kind: "file", file: { name: "f.txt", bytes: "aGk=", mimeType: "text/plain" } }] };
    await transport.call("message/send", { message, configuration: { historyLength: 0 } });
    const got = service.calls.at(-1)?.params as Json;
    expect((got.message as Json).referenceTaskIds).toBeUndefined();
    expect((got.message as Json).parts).toEqual([{ kind: "text", text: "a" }, { kind: "file", file: { bytes: "aGk=", mimeType: "text/plain" } }]);
    expect(got.configuration).toEqual({ blocking: true });
  });

  it("D7: blocking survives the wire both ways; a wire configuration without it is non-blocking", async () => {
    await transport.call("message/send", { message: userMessage("b"), configuration: { blocking: false } });
    expect((service.calls.at(-1)?.params as Json).configuration).toEqual({ blocking: false });
    await transport.call("message/send", { message: userMessage("b"), configuration: { acceptedOutputModes: ["text/plain"] } });
    expect((service.calls.at(-1)?.params as Json).configuration).toEqual({ acceptedOutputModes: ["text/plain"], blocking: true });
    await transport.call("message/send", { message: userMessage("b") });
    expect((service.calls.at(-1)?.params as Json).configuration).toBeUndefined();
    expect(SHAPES_0_3_0.paramsFromWire("SendMessage", { message: { messageId: "m", role: "ROLE_USER", content: [{ text: "x" }] }, configuration: { historyLength: 2 } })).toMatchObject({ configuration: { historyLength: 2, blocking: false } });
  });
});

describe("0.3.0 over gRPC: interop with @a2a-js/sdk 1.3.0's legacy (0.3) gRPC", () => {
  it("our transport against the SDK's legacyGrpcService: send, stream, get, errors", async () => {
    // The SDK serves a version only when its card lists an interface of it.
    const card = SdkAgentCard.fromJSON({ ...CARD, supportedInterfaces: [{ url: "127.0.0.1:0", protocolBinding: "GRPC", protocolVersion: "0.3" }], securitySchemes: {}, securityRequirements: [] });
    const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new EchoExecutor());
    const server = new grpc.Server();
    server.addService(LegacyA2AService, legacyGrpcService({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
    const port = await new Promise<number>((resolve, reject) => server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
    const transport = new GrpcTransport(spec, `127.0.0.1:${port}`);
    try {
      const reply = (await transport.call("message/send", { message: userMessage("hello") })) as Json;
      expect(reply).toMatchObject({ kind: "message", role: "agent", parts: [{ kind: "text", text: "echo: hello" }] });
      valid("Message", reply);
      const task = (await transport.call("message/send", { message: userMessage("task") })) as Json;
      valid("Task", task);
      expect((task.status as Json).state).toBe("completed");
      const got = (await transport.call("tasks/get", { id: task.id })) as Json;
      expect(got.id).toBe(task.id);
      const events = (await drain(transport.stream("message/stream", { message: userMessage("stream") }))) as Json[];
      expect(events.filter((e) => e.kind === "artifact-update").map((e) => (((e.artifact as Json).parts as Json[])[0] as Json).text).join("")).toBe("once upon a time");
      expect(events.at(-1)).toMatchObject({ kind: "status-update", status: { state: "completed" } });
      const missing = await transport.call("tasks/get", { id: "nope" }).catch((e: unknown) => e);
      expect(missing).toMatchObject({ code: -32001 });
    } finally {
      transport.close();
      await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    }
  });

  it("the SDK's legacy gRPC client (protocolVersion 0.3) against our 0.3.0 binding", async () => {
    const service = new Fake030();
    const server = await serveGrpc(spec, service);
    try {
      const card = SdkAgentCard.fromJSON({ ...CARD, supportedInterfaces: [{ url: `127.0.0.1:${server.port}`, protocolBinding: "GRPC", protocolVersion: "0.3" }], securitySchemes: {}, securityRequirements: [] });
      const factory = new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new GrpcTransportFactory({ grpcChannelCredentials: grpc.credentials.createInsecure(), legacyCompat: { enabled: true } })] }),
      );
      const client = await factory.createFromAgentCard(card);
      const task = await client.sendMessage(sdkSend("from the sdk"));
      expect("status" in task && task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      valid("MessageSendParams", service.calls.at(-1)?.params);
      expect(sdkText((task as { artifacts?: Array<{ parts?: never[] }> }).artifacts?.[0])).toBe("x");
      const events = await drain(client.sendMessageStream(sdkSend("stream")));
      expect(events.map((e) => e.payload?.$case)).toEqual(["task", "statusUpdate", "artifactUpdate", "statusUpdate"]);
    } finally {
      await server.close();
    }
  });
});
