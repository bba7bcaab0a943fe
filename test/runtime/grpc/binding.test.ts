import grpc from "@grpc/grpc-js";
import protobuf from "protobufjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadGrpcBinding, type GrpcBindingSpec, type LoadedGrpcBinding } from "../../../src/runtime/grpc/binding.js";
import { grpcEndpoint, grpcInterfaceOf, GrpcTransport } from "../../../src/runtime/grpc/client-transport.js";
import { decodeStatus, STATUS_DETAILS_KEY } from "../../../src/runtime/grpc/google-rpc.js";
import { ProtoJsonError } from "../../../src/runtime/grpc/proto-json.js";
import { serveGrpc, type GrpcServerHandle } from "../../../src/runtime/grpc/server.js";
import { A2AError, A2AResponseValidationError, A2ATransportError } from "../../../src/runtime/client/client.js";
import type { Validator } from "../../../src/runtime/validation.js";
import { generatedValidators } from "../../support/project.js";
import { binding101, FakeService } from "../../support/grpc/fake-service.js";

/**
 * The gRPC binding of 1.0.1 end to end on 127.0.0.1 (schema/specification-1.0.1.md §10): a fake service
 * behind serveGrpc, called with a plain grpc-js client (protobuf bytes encoded here with protobufjs from
 * the bundled proto) and with the client transport. Every result is checked against the 1.0.1 schema.
 */
type Json = Record<string, unknown>;
const V = { "a2a-version": "1.0" };

let spec: GrpcBindingSpec;
let binding: LoadedGrpcBinding;
let service: FakeService;
let server: GrpcServerHandle;
let transport: GrpcTransport;
let raw: grpc.Client;
let validators: Record<string, Validator<unknown>>;

beforeAll(async () => {
  spec = await binding101();
  binding = loadGrpcBinding(spec);
  validators = await generatedValidators("1.0.1");
  service = new FakeService();
  server = await serveGrpc(spec, service, { maxMessageBytes: 64 * 1024, logger: { error: () => {} } });
  transport = new GrpcTransport(spec, `127.0.0.1:${server.port}`, { headers: V });
  raw = new grpc.Client(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
});

afterAll(async () => {
  transport.close();
  raw.close();
  await server.close();
});

function type(name: string): protobuf.Type {
  return binding.root.lookupType(`lf.a2a.v1.${name}`);
}

/** A unary call with grpc-js alone: bytes in, bytes (or the ServiceError) out. */
function rawUnary(rpc: string, bytes: Uint8Array, metadata: Record<string, string> = V): Promise<{ bytes?: Buffer; error?: grpc.ServiceError }> {
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries(metadata)) md.set(k, v);
  return new Promise((resolve) => {
    raw.makeUnaryRequest(`/lf.a2a.v1.A2AService/${rpc}`, (b: Uint8Array) => Buffer.from(b), (b: Buffer) => b, bytes, md, (error, response) =>
      resolve(error ? { error } : { bytes: response as Buffer }),
    );
  });
}

function details(error: grpc.ServiceError): Json[] {
  const bin = error.metadata.get(STATUS_DETAILS_KEY)[0];
  expect(bin).toBeInstanceOf(Buffer);
  const status = decodeStatus(binding.root, bin as Buffer);
  expect(status.code).toBe(error.code);
  return status.details as Json[];
}

function valid(definition: string, value: unknown): void {
  const validate = validators[definition] as Validator<unknown>;
  if (!validate(value)) throw new Error(`${definition} invalid: ${JSON.stringify(validate.errors)}\n${JSON.stringify(value)}`);
}

const userMessage = (text: string, extra: Json = {}): Json => ({ messageId: `u-${Math.random()}`, role: "ROLE_USER", parts: [{ text }], ...extra });

describe("gRPC binding 1.0.1: every rpc (§10.4)", () => {
  it("serves exactly the proto's 11 rpcs, by their gRPC names (§5.3)", () => {
    expect([...binding.rpcs.keys()].sort()).toEqual(
      [
        "CancelTask",
        "CreateTaskPushNotificationConfig",
        "DeleteTaskPushNotificationConfig",
        "GetExtendedAgentCard",
        "GetTask",
        "GetTaskPushNotificationConfig",
        "ListTaskPushNotificationConfigs",
        "ListTasks",
        "SendMessage",
        "SendStreamingMessage",
        "SubscribeToTask",
      ].sort(),
    );
    expect(binding.rpcs.get("SendStreamingMessage")?.streaming).toBe(true);
    expect(binding.rpcs.get("SubscribeToTask")?.streaming).toBe(true);
    expect(binding.rpcs.get("SendMessage")?.streaming).toBe(false);
  });

  it("SendMessage over plain grpc-js: protobuf on the wire, ProtoJSON at the service", async () => {
    const Request = type("SendMessageRequest");
    const request = Request.encode(
      Request.fromObject({ message: { message_id: "m1", role: 1, parts: [{ text: "hello" }, { raw: Buffer.from([0, 1, 2, 255]) }], metadata: { fields: { k: { stringValue: "v" } } } }, configuration: { history_length: 0 } }),
    ).finish();
    const { bytes, error } = await rawUnary("SendMessage", request);
    expect(error).toBeUndefined();
    // What the service got: the 1.0 JSON shapes (camelCase, enum names, bytes as base64, Struct as an object,
    // an explicitly set optional int32 0 kept).
    const call = service.calls.at(-1) as { params: Json };
    expect(call.params).toEqual({
      message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hello" }, { raw: "AAEC/w==" }], metadata: { k: "v" } },
      configuration: { historyLength: 0 },
    });
    // What came back: a SendMessageResponse whose task is in the wire's enum numbers and Timestamp.
    const response = type("SendMessageResponse").decode(bytes as Buffer) as unknown as { task: { id: string; status: { state: number; timestamp: { seconds: unknown; nanos: number } }; history: unknown[] } };
    expect(response.task.id).toMatch(/^task-/);
    expect(response.task.status.state).toBe(3); // TASK_STATE_COMPLETED
    expect(Number(String(response.task.status.timestamp.seconds))).toBe(Date.UTC(2025, 0, 2, 3, 4, 5) / 1000);
    expect(response.task.history).toEqual([]); // historyLength 0
  });

  it("SendMessage through the client transport: a task, and a direct message (§3.1.1)", async () => {
    const result = (await transport.call("SendMessage", { message: userMessage("hello there"), metadata: { trace: { id: 7 } } })) as Json;
    valid("SendMessageResponse", result);
    const task = result.task as Json;
    expect((task.status as Json).state).toBe("TASK_STATE_COMPLETED");
    expect(task.metadata).toEqual({ tags: ["a", "b"], score: 0.5, nothing: null });
    const artifact = (task.artifacts as Json[])[0] as Json;
    const parts = artifact.parts as Json[];
    expect(parts[0]).toEqual({ text: "hello there" });
    expect(parts[1]).toEqual({ data: { echoed: [{ text: "hello there" }], nested: { ok: true, n: 1.5 } } });
    expect(Buffer.from(String((parts[2] as Json).raw), "base64").toString()).toBe("bytes \u00ff");
    expect((task.status as Json).timestamp).toBe("2025-01-02T03:04:05Z");
    expect((service.calls.at(-1)?.params as Json).metadata).toEqual({ trace: { id: 7 } });

    const reply = (await transport.call("SendMessage", { message: userMessage("hi") })) as Json;
    valid("SendMessageResponse", reply);
    expect(reply).toEqual({ message: expect.objectContaining({ role: "ROLE_AGENT", parts: [{ text: "hello!" }] }) });
  });

  it("GetTask with historyLength, ListTasks with a status filter, CancelTask (§3.1.3-5)", async () => {
    const sent = ((await transport.call("SendMessage", { message: userMessage("for get") })) as Json).task as Json;
    const got = (await transport.call("GetTask", { id: sent.id, historyLength: 1 })) as Json;
    valid("Task", got);
    expect(got.id).toBe(sent.id);
    expect((got.history as Json[]).length).toBe(1);
    const noHistory = (await transport.call("GetTask", { id: sent.id, historyLength: 0 })) as Json;
    expect(noHistory.history).toBeUndefined();

    service.addWorkingTask("w-1");
    const listed = (await transport.call("ListTasks", { status: "TASK_STATE_WORKING" })) as Json;
    valid("ListTasksResponse", listed);
    expect((listed.tasks as Json[]).map((t) => t.id)).toEqual(["w-1"]);
    expect(service.calls.at(-1)?.params).toEqual({ status: "TASK_STATE_WORKING" });

    const canceled = (await transport.call("CancelTask", { id: "w-1" })) as Json;
    valid("Task", canceled);
    expect((canceled.status as Json).state).toBe("TASK_STATE_CANCELED");
  });

  it("push notification config CRUD and the extended card (§3.1.7-11)", async () => {
    const task = ((await transport.call("SendMessage", { message: userMessage("push") })) as Json).task as Json;
    const created = (await transport.call("CreateTaskPushNotificationConfig", {
      taskId: task.id,
      url: "https://hooks.example.com/a2a",
      token: "t",
      authentication: { scheme: "Bearer", credentials: "c" },
    })) as Json;
    valid("TaskPushNotificationConfig", created);
    expect(created).toMatchObject({ taskId: task.id, url: "https://hooks.example.com/a2a", authentication: { scheme: "Bearer", credentials: "c" } });
    const got = (await transport.call("GetTaskPushNotificationConfig", { taskId: task.id, id: created.id })) as Json;
    expect(got).toEqual(created);
    const listed = (await transport.call("ListTaskPushNotificationConfigs", { taskId: task.id })) as Json;
    valid("ListTaskPushNotificationConfigsResponse", listed);
    expect(listed.configs).toEqual([created]);
    const deleted = await transport.call("DeleteTaskPushNotificationConfig", { taskId: task.id, id: created.id });
    expect(deleted).toEqual({}); // google.protobuf.Empty
    expect(((await transport.call("ListTaskPushNotificationConfigs", { taskId: task.id })) as Json).configs).toBeUndefined();

    const card = (await transport.call("GetExtendedAgentCard", {})) as Json;
    valid("AgentCard", card);
    expect(card.description).toBe("The extended card");
    expect(card.securitySchemes).toEqual({ bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } }, key: { apiKeySecurityScheme: { location: "header", name: "x-api-key" } } });
  });
});

describe("gRPC binding 1.0.1: streaming (§10.7)", () => {
  it("SendStreamingMessage yields the task, then status and artifact updates, each a valid StreamResponse", async () => {
    const events: Json[] = [];
    for await (const event of transport.stream("SendStreamingMessage", { message: userMessage("stream me") })) events.push(event as Json);
    for (const event of events) valid("StreamResponse", event);
    expect(events.map((e) => Object.keys(e)[0])).toEqual(["task", "statusUpdate", "artifactUpdate", "statusUpdate"]);
    expect(((events[1] as Json).statusUpdate as Json).status).toEqual({ state: "TASK_STATE_WORKING", timestamp: "2025-01-02T03:04:05.678Z" });
    expect(((events[2] as Json).artifactUpdate as Json).artifact).toEqual({ artifactId: "a1", parts: [{ text: "chunk" }, { data: { n: 1, list: [true, null, "x"] } }] });
    expect(((events[2] as Json).artifactUpdate as Json).lastChunk).toBe(true);
    expect(((events[3] as Json).statusUpdate as Json).metadata).toEqual({ final: true });
    expect(service.streams.at(-1)?.released).toBe(true);
  });

  it("SubscribeToTask on a terminal task is UnsupportedOperationError: FAILED_PRECONDITION before any event (§10.4.6)", async () => {
    const task = ((await transport.call("SendMessage", { message: userMessage("done") })) as Json).task as Json;
    const error = await collect(transport.stream("SubscribeToTask", { id: task.id })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(A2AError);
    expect((error as A2AError).code).toBe(-32004);
  });

  it("leaving the loop cancels the call: the service's stream is released and its signal aborted", async () => {
    service.addWorkingTask("sub-1");
    const before = service.streams.length;
    let seen = 0;
    for await (const event of transport.stream("SubscribeToTask", { id: "sub-1" })) {
      valid("StreamResponse", event);
      if (++seen === 3) break;
    }
    const record = service.streams[before];
    expect(record?.method).toBe("SubscribeToTask");
    await waitFor(() => record?.released === true);
    expect(record?.signal.aborted).toBe(true);
  });

  it("a plain grpc-js client that cancels mid-stream releases it too", async () => {
    service.addWorkingTask("sub-2");
    const before = service.streams.length;
    const md = new grpc.Metadata();
    md.set("a2a-version", "1.0");
    const Request = type("SubscribeToTaskRequest");
    const call = raw.makeServerStreamRequest("/lf.a2a.v1.A2AService/SubscribeToTask", (b: Uint8Array) => Buffer.from(b), (b: Buffer) => b, Request.encode({ id: "sub-2" }).finish(), md, {});
    const errors: grpc.ServiceError[] = [];
    call.on("error", (e: grpc.ServiceError) => errors.push(e));
    await new Promise<void>((resolve) => call.once("data", () => resolve()));
    call.cancel();
    const record = service.streams[before];
    await waitFor(() => record?.released === true);
    expect(record?.signal.aborted).toBe(true);
    await waitFor(() => errors.length > 0);
    expect(errors[0]?.code).toBe(grpc.status.CANCELLED);
  });

  it("50 concurrent subscriptions left early: every one of the service's streams is released", async () => {
    const before = service.streams.length;
    await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        service.addWorkingTask(`many-${i}`);
        for await (const event of transport.stream("SubscribeToTask", { id: `many-${i}` })) {
          expect(event).toHaveProperty("task");
          break;
        }
      }),
    );
    const mine = service.streams.slice(before);
    expect(mine).toHaveLength(50);
    await waitFor(() => mine.every((s) => s.released));
    expect(mine.every((s) => s.signal.aborted)).toBe(true);
  });

  it("aborting the signal ends the client's loop with the signal's reason", async () => {
    service.addWorkingTask("sub-3");
    const abort = new AbortController();
    const events: unknown[] = [];
    const error = await (async () => {
      for await (const event of transport.stream("SubscribeToTask", { id: "sub-3" }, { signal: abort.signal })) {
        events.push(event);
        if (events.length === 2) abort.abort(new Error("enough"));
      }
    })().catch((e: unknown) => e);
    expect((error as Error).message).toBe("enough");
  });
});

describe("gRPC binding 1.0.1: errors as status codes with google.rpc details (§5.4, §10.6)", () => {
  it("TaskNotFoundError is NOT_FOUND with an ErrorInfo TASK_NOT_FOUND in the a2a-protocol.org domain", async () => {
    const { error } = await rawUnary("GetTask", type("GetTaskRequest").encode({ id: "nope" }).finish());
    expect(error?.code).toBe(grpc.status.NOT_FOUND);
    expect(error?.details).toBe("Task nope not found");
    expect(details(error as grpc.ServiceError)).toEqual([
      { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org", metadata: { taskId: "nope" } },
    ]);
    const typed = await transport.call("GetTask", { id: "nope" }).catch((e: unknown) => e);
    expect(typed).toBeInstanceOf(A2AError);
    expect(typed).toMatchObject({ code: -32001, message: "Task nope not found", method: "GetTask" });
    expect((typed as A2AError).data).toEqual(details(error as grpc.ServiceError));
  });

  it("TaskNotCancelableError is FAILED_PRECONDITION, told apart by its ErrorInfo reason", async () => {
    const task = ((await transport.call("SendMessage", { message: userMessage("finished") })) as Json).task as Json;
    const { error } = await rawUnary("CancelTask", type("CancelTaskRequest").encode({ id: task.id }).finish());
    expect(error?.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(details(error as grpc.ServiceError)[0]).toMatchObject({ reason: "TASK_NOT_CANCELABLE", domain: "a2a-protocol.org" });
    const typed = await transport.call("CancelTask", { id: task.id }).catch((e: unknown) => e);
    expect(typed).toMatchObject({ code: -32002 });
  });

  it("a missing a2a-version (read as 0.3) is VersionNotSupportedError: FAILED_PRECONDITION (§3.6.2, §10.2)", async () => {
    const { error } = await rawUnary("GetTask", type("GetTaskRequest").encode({ id: "x" }).finish(), {});
    expect(error?.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(details(error as grpc.ServiceError)[0]).toMatchObject({ reason: "VERSION_NOT_SUPPORTED" });
    expect(service.calls.at(-1)?.headers["a2a-version"]).toBeUndefined();
    const other = new GrpcTransport(spec, `127.0.0.1:${server.port}`, { headers: { "A2A-Version": "0.3" } });
    try {
      const typed = await other.call("GetTask", { id: "x" }).catch((e: unknown) => e);
      expect(typed).toMatchObject({ code: -32009 });
      expect(service.calls.at(-1)?.headers["a2a-version"]).toBe("0.3"); // metadata keys lower-cased (§10.2)
    } finally {
      other.close();
    }
  });

  it("params the service's validator refuses are INVALID_ARGUMENT with a BadRequest naming the field", async () => {
    // A message without parts and without a messageId: valid protobuf, invalid A2A.
    const { error } = await rawUnary("SendMessage", type("SendMessageRequest").encode({ message: { role: 1 } }).finish());
    expect(error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    const [badRequest] = details(error as grpc.ServiceError);
    expect(badRequest?.["@type"]).toBe("type.googleapis.com/google.rpc.BadRequest");
    const fields = (badRequest?.fieldViolations as Json[]).map((v) => v.field);
    expect(fields).toEqual(expect.arrayContaining(["message.messageId"]));
    const typed = await transport.call("SendMessage", { message: { role: "ROLE_USER", messageId: "m" } }).catch((e: unknown) => e);
    expect(typed).toMatchObject({ code: -32602 });
    expect(JSON.stringify((typed as A2AError).data)).toContain("message.parts");
  });

  it("an unknown method of the service is UNIMPLEMENTED; an unknown rpc path is grpc-js's UNIMPLEMENTED", async () => {
    const { error } = await rawUnary("NoSuchRpc", new Uint8Array());
    expect(error?.code).toBe(grpc.status.UNIMPLEMENTED);
  });
});

describe("gRPC binding 1.0.1: bad input never crashes (§3.3.2 validation errors)", () => {
  it("bytes that are not the request message: INVALID_ARGUMENT naming the message, the service not called", async () => {
    const calls = service.calls.length;
    const { error } = await rawUnary("SendMessage", Buffer.from([0x12, 0xff, 0xff, 0xff, 0x0f, 0x01]));
    expect(error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(error?.details).toMatch(/^Invalid SendMessageRequest: not a valid SendMessageRequest message/);
    expect(details(error as grpc.ServiceError)[0]?.["@type"]).toBe("type.googleapis.com/google.rpc.BadRequest");
    expect(service.calls.length).toBe(calls);
  });

  it("an enum number the proto does not name: INVALID_ARGUMENT naming the field", async () => {
    const request = type("SendMessageRequest").encode({ message: { message_id: "m", role: 7, parts: [{ text: "x" }] } }).finish();
    const { error } = await rawUnary("SendMessage", request);
    expect(error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(details(error as grpc.ServiceError)).toEqual([
      { "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: [{ field: "message.role", description: "unknown value 7 of enum Role" }] },
    ]);
    const list = await rawUnary("ListTasks", type("ListTasksRequest").encode({ status: 42 }).finish());
    expect(list.error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(details(list.error as grpc.ServiceError)[0]?.fieldViolations).toEqual([{ field: "status", description: "unknown value 42 of enum TaskState" }]);
  });

  it("data nested deeper than protobuf's recursion limit (100) is INVALID_ARGUMENT, not a stack overflow", async () => {
    const wrap = (field: number, bytes: Uint8Array) => protobuf.Writer.create().uint32((field << 3) | 2).bytes(bytes).finish();
    let value: Uint8Array = Uint8Array.from([0x11, 0, 0, 0, 0, 0, 0, 0, 0]); // Value.number_value 0
    for (let i = 0; i < 150; i++) value = wrap(6, wrap(1, value)); // Value.list_value.values[0]
    const message = Buffer.concat([wrap(1, Buffer.from("m")), Buffer.from([0x20, 1]), wrap(5, wrap(4, value))]); // id, role, parts[0].data
    const { error } = await rawUnary("SendMessage", wrap(2, message));
    expect(error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(error?.details).toMatch(/nested deeper than 100 messages \(protobuf.s recursion limit\)/);
  });

  it("a Part with no content (its oneof unset) is refused by validation, naming the part", async () => {
    const request = type("SendMessageRequest").encode({ message: { message_id: "m", role: 1, parts: [{ media_type: "text/plain" }] } }).finish();
    const { error } = await rawUnary("SendMessage", request);
    expect(error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(JSON.stringify(details(error as grpc.ServiceError))).toContain("message.parts[0]");
  });

  it("the client transport refuses bad params before sending: unknown enum names, two oneof members, wrong types", async () => {
    const calls = service.calls.length;
    await expect(transport.call("SendMessage", { message: { ...userMessage("x"), role: "ROLE_ROBOT" } })).rejects.toThrow(
      new ProtoJsonError("message.role", 'unknown value "ROLE_ROBOT" of enum Role; expected one of ROLE_UNSPECIFIED, ROLE_USER, ROLE_AGENT'),
    );
    await expect(transport.call("SendMessage", { message: userMessage("x", { parts: [{ text: "a", url: "https://x" }] }) })).rejects.toThrow(/message\.parts\[0\]\.url: only one of "text", "raw", "url", "data" may be set; text is set too/);
    await expect(transport.call("GetTask", { id: 5 })).rejects.toThrow(/^id: expected a string, got number 5$/);
    await expect(transport.call("GetTask", { id: "x", extra: 1 })).rejects.toThrow(/^extra: unknown field of GetTaskRequest$/);
    expect(service.calls.length).toBe(calls);
  });

  it("a message over maxMessageBytes is refused with RESOURCE_EXHAUSTED, the service not called", async () => {
    const calls = service.calls.length;
    const big = userMessage("x".repeat(100 * 1024));
    const error = await transport.call("SendMessage", { message: big }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(A2ATransportError);
    expect((error as Error).message).toMatch(/RESOURCE_EXHAUSTED/);
    expect(service.calls.length).toBe(calls);
    // The server still serves.
    expect(await transport.call("SendMessage", { message: userMessage("hi") })).toMatchObject({ message: { role: "ROLE_AGENT" } });
  });
});

describe("gRPC binding 1.0.1: auth in metadata (§7, §10.2)", () => {
  let authServer: GrpcServerHandle;
  const authService = new FakeService({ auth: true });
  beforeAll(async () => {
    authServer = await serveGrpc(spec, authService);
  });
  afterAll(async () => {
    await authServer.close();
  });

  it("no credentials: UNAUTHENTICATED with the challenge in www-authenticate", async () => {
    const client = new grpc.Client(`127.0.0.1:${authServer.port}`, grpc.credentials.createInsecure());
    const md = new grpc.Metadata();
    md.set("a2a-version", "1.0");
    const error = await new Promise<grpc.ServiceError>((resolve) =>
      client.makeUnaryRequest("/lf.a2a.v1.A2AService/GetExtendedAgentCard", (b: Uint8Array) => Buffer.from(b), (b: Buffer) => b, new Uint8Array(), md, (e) => resolve(e as grpc.ServiceError)),
    );
    client.close();
    expect(error.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(error.metadata.get("www-authenticate")).toEqual(['Bearer realm="a2a"']);
  });

  it("a bearer token and an API key travel as metadata; a wrong one is PERMISSION_DENIED", async () => {
    const target = `127.0.0.1:${authServer.port}`;
    const bearer = new GrpcTransport(spec, target, { headers: V, auth: { type: "bearer", token: async () => "good" } });
    const key = new GrpcTransport(spec, target, { headers: V, auth: { type: "apiKey", name: "X-API-Key", value: "key" } });
    const wrong = new GrpcTransport(spec, target, { headers: V, auth: { type: "bearer", token: "bad" } });
    try {
      expect(await bearer.call("GetExtendedAgentCard", {})).toMatchObject({ name: "Fake agent" });
      expect(authService.calls.at(-1)?.headers.authorization).toBe("Bearer good");
      expect(await key.call("GetExtendedAgentCard", {})).toMatchObject({ name: "Fake agent" });
      expect(authService.calls.at(-1)?.headers["x-api-key"]).toBe("key");
      const denied = await wrong.call("GetExtendedAgentCard", {}).catch((e: unknown) => e);
      expect(denied).toBeInstanceOf(A2AError);
      expect(denied).toMatchObject({ code: -32000, message: "Forbidden" });
    } finally {
      bearer.close();
      key.close();
      wrong.close();
    }
  });
});

describe("gRPC client transport", () => {
  it("finds the gRPC interface of a 1.0 card (§8.3) and of a 0.3 card (§5.6)", () => {
    expect(grpcInterfaceOf({ supportedInterfaces: [{ url: "https://a/rpc", protocolBinding: "JSONRPC" }, { url: "grpc.a:443", protocolBinding: "GRPC", tenant: "t1" }] })).toEqual({ url: "grpc.a:443", tenant: "t1" });
    expect(grpcInterfaceOf({ supportedInterfaces: [{ url: "https://a/rpc", protocolBinding: "JSONRPC" }] })).toBeUndefined();
    expect(grpcInterfaceOf({ url: "grpc.b:443", preferredTransport: "GRPC" })).toEqual({ url: "grpc.b:443" });
    expect(grpcInterfaceOf({ url: "https://b/rpc", preferredTransport: "JSONRPC", additionalInterfaces: [{ url: "grpc.b:50051", transport: "GRPC" }] })).toEqual({ url: "grpc.b:50051" });
    expect(grpcInterfaceOf(null)).toBeUndefined();
  });

  it("puts the interface's tenant in every request message that has the field (§4.4.6)", async () => {
    const tenanted = new GrpcTransport(spec, `127.0.0.1:${server.port}`, { headers: V, tenant: "acme" });
    try {
      await tenanted.call("GetExtendedAgentCard", {});
      expect(service.calls.at(-1)?.params).toEqual({ tenant: "acme" });
      await tenanted.call("ListTasks", { tenant: "other", pageSize: 1 });
      expect(service.calls.at(-1)?.params).toEqual({ tenant: "other", pageSize: 1 });
    } finally {
      tenanted.close();
    }
  });

  it("a header that cannot be gRPC metadata is a transport error naming it; nothing is sent", async () => {
    const calls = service.calls.length;
    await expect(transport.call("GetTask", { id: "x" }, { headers: { "bad header": "v" } })).rejects.toThrow(/^header "bad header" cannot be sent as gRPC metadata/);
    expect(service.calls.length).toBe(calls);
  });

  it("reads a target as host:port or as the card's URL (TLS for https/grpcs and non-loopback hosts)", () => {
    expect(grpcEndpoint("127.0.0.1:50051")).toEqual({ address: "127.0.0.1:50051", secure: false });
    expect(grpcEndpoint("localhost:50051")).toEqual({ address: "localhost:50051", secure: false });
    expect(grpcEndpoint("agent.example.com:443")).toEqual({ address: "agent.example.com:443", secure: true });
    expect(grpcEndpoint("https://grpc.example.com/a2a")).toEqual({ address: "grpc.example.com:443", secure: true });
    expect(grpcEndpoint("grpcs://grpc.example.com:8443")).toEqual({ address: "grpc.example.com:8443", secure: true });
    expect(grpcEndpoint("grpc://10.0.0.5:50051")).toEqual({ address: "10.0.0.5:50051", secure: false });
    expect(grpcEndpoint("http://[::1]:50051")).toEqual({ address: "[::1]:50051", secure: false });
    expect(grpcEndpoint("[::1]:50051")).toEqual({ address: "[::1]:50051", secure: false });
  });

  it("validateResponses checks each result as a JSON-RPC response of the method, with the generated validators", async () => {
    const validate = (method: string, response: unknown) => {
      const validator = validators[`${method}RpcSuccessResponse`] as Validator<unknown>;
      return validator(response) ? null : (validator.errors ?? []);
    };
    const checked = new GrpcTransport(spec, `127.0.0.1:${server.port}`, { headers: V, validateResponses: true }, { validate });
    const strict = new GrpcTransport(spec, `127.0.0.1:${server.port}`, { headers: V, validateResponses: true }, { validate: () => [{ pointer: "/result/id", expected: "x", got: "y", keyword: "const", message: "/result/id: expected x" }] });
    try {
      const task = ((await checked.call("SendMessage", { message: userMessage("v") })) as Json).task as Json;
      expect(await checked.call("GetTask", { id: task.id })).toMatchObject({ id: task.id });
      await expect(strict.call("GetTask", { id: task.id })).rejects.toThrow(A2AResponseValidationError);
    } finally {
      checked.close();
      strict.close();
    }
  });

  it("an unreachable agent is an A2ATransportError", async () => {
    const nowhere = new GrpcTransport(spec, "127.0.0.1:1", { headers: V, timeoutMs: 2_000 });
    try {
      const error = await nowhere.call("GetTask", { id: "x" }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(A2ATransportError);
    } finally {
      nowhere.close();
    }
  });

  it("uses its error factory (the generated client's typed errors) and refuses a method with no rpc", async () => {
    class Typed extends Error {
      constructor(readonly code: number) {
        super(`typed ${code}`);
      }
    }
    const typed = new GrpcTransport(spec, `127.0.0.1:${server.port}`, { headers: V }, { makeError: (_m, e) => new Typed(e.code) });
    try {
      await expect(typed.call("GetTask", { id: "missing" })).rejects.toThrow(new Typed(-32001));
      await expect(typed.call("tasks/get", { id: "x" })).rejects.toThrow(/no rpc for this method/);
      await expect(typed.call("SendStreamingMessage", {})).rejects.toThrow(/a streaming rpc: use stream\(\)/);
    } finally {
      typed.close();
    }
  });
});

async function collect(iterable: AsyncIterable<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

async function waitFor(condition: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("gRPC binding: failures inside the service", () => {
  const logged: unknown[] = [];
  let failing: GrpcServerHandle;
  let client: GrpcTransport;
  const ServiceA2AError = class extends Error {
    constructor(
      readonly code: number,
      message: string,
    ) {
      super(message);
    }
  };
  beforeAll(async () => {
    failing = await serveGrpc(
      spec,
      {
        async call(method) {
          if (method === "GetTask") throw new TypeError("secret internals: db password is hunter2");
          return { id: "t", status: { state: "TASK_STATE_WORKING" }, unexpected: "a field the proto does not have is left out" };
        },
        async stream() {
          return (async function* () {
            yield { statusUpdate: { taskId: "t", contextId: "c", status: { state: "TASK_STATE_WORKING" } } };
            throw new ServiceA2AError(-32004, "stopped mid-stream");
          })();
        },
      },
      { logger: { error: (message, detail) => logged.push([message, detail]) } },
    );
    client = new GrpcTransport(spec, `127.0.0.1:${failing.port}`);
  });
  afterAll(async () => {
    client.close();
    await failing.close();
  });

  it("a crash in the service is INTERNAL \"Internal error\": logged, its text never sent", async () => {
    const error = await client.call("GetTask", { id: "t" }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: -32603, message: "Internal error" });
    expect(JSON.stringify(error)).not.toContain("hunter2");
    expect(logged).toHaveLength(1);
    expect(String((logged[0] as unknown[])[0])).toBe("a2a: internal error in gRPC GetTask");
  });

  it("an answer with a field the proto lacks is served without it", async () => {
    expect(await client.call("CancelTask", { id: "t" })).toEqual({ id: "t", status: { state: "TASK_STATE_WORKING" } });
  });

  it("an A2A error after the first event: the client gets the event, then the typed error", async () => {
    const events: unknown[] = [];
    const error = await (async () => {
      for await (const event of client.stream("SubscribeToTask", { id: "t" })) events.push(event);
    })().catch((e: unknown) => e);
    expect(events).toHaveLength(1);
    expect(error).toBeInstanceOf(A2AError);
    expect(error).toMatchObject({ code: -32004, message: "stopped mid-stream" });
  });
});

describe("gRPC binding: stream timeouts bound the wait for the headers, not the stream", () => {
  let slow: GrpcServerHandle;
  let client: GrpcTransport;
  beforeAll(async () => {
    slow = await serveGrpc(spec, {
      async call() {
        return {};
      },
      async stream(method) {
        // SubscribeToTask: accepted at once, first event after 300 ms. SendStreamingMessage: accepted after 300 ms.
        if (method === "SendStreamingMessage") await new Promise((resolve) => setTimeout(resolve, 300));
        return (async function* () {
          if (method === "SubscribeToTask") await new Promise((resolve) => setTimeout(resolve, 300));
          yield { statusUpdate: { taskId: "t", contextId: "c", status: { state: "TASK_STATE_WORKING" } } };
        })();
      },
    });
    client = new GrpcTransport(spec, `127.0.0.1:${slow.port}`, { timeoutMs: 100 });
  });
  afterAll(async () => {
    client.close();
    await slow.close();
  });

  it("an accepted stream whose first event is late is not timed out", async () => {
    expect(await collect(client.stream("SubscribeToTask", { id: "t" }))).toHaveLength(1);
  });

  it("a stream not accepted within timeoutMs is an A2ATransportError", async () => {
    const error = await collect(client.stream("SendStreamingMessage", { message: userMessage("x") })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(A2ATransportError);
    expect((error as Error).message).toBe("SendStreamingMessage: timed out after 100 ms");
  });
});

describe("gRPC binding: the unary call's signal", () => {
  const signals: AbortSignal[] = [];
  let handle: GrpcServerHandle;
  let client: GrpcTransport;
  beforeAll(async () => {
    handle = await serveGrpc(spec, {
      async call(method, _params, ctx) {
        signals.push(ctx.signal);
        if (method === "GetTask") await new Promise((resolve) => setTimeout(resolve, 2_000)); // slow: the client leaves first
        return { id: "t", status: { state: "TASK_STATE_WORKING" } };
      },
      async stream() {
        throw new Error("not used");
      },
    });
    client = new GrpcTransport(spec, `127.0.0.1:${handle.port}`);
  });
  afterAll(async () => {
    client.close();
    await handle.close();
  });

  it("stays unaborted once the call is answered (grpc-js reports every finished call as cancelled)", async () => {
    await client.call("CancelTask", { id: "t" });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(signals.at(-1)?.aborted).toBe(false);
  });

  it("is aborted when the client's deadline (timeoutMs) passes; the client reports the timeout", async () => {
    const hurried = new GrpcTransport(spec, `127.0.0.1:${handle.port}`, { timeoutMs: 100 });
    try {
      const before = signals.length;
      const error = await hurried.call("GetTask", { id: "t" }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(A2ATransportError);
      expect((error as Error).message).toBe("GetTask: timed out after 100 ms");
      await waitFor(() => signals[before]?.aborted === true);
    } finally {
      hurried.close();
    }
  });

  it("is aborted when the client cancels a running call", async () => {
    const abort = new AbortController();
    const pending = client.call("GetTask", { id: "t" }, { signal: abort.signal }).catch((e: unknown) => e);
    const index = signals.length;
    await waitFor(() => signals.length === index + 1);
    abort.abort(new Error("changed my mind"));
    expect(((await pending) as Error).message).toBe("changed my mind");
    await waitFor(() => signals[index]?.aborted === true);
  });
});
