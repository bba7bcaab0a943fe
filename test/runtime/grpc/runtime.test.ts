/**
 * The gRPC binding in front of the real task runtime: the generated 1.0.1 and 0.3.0 server cores (the test
 * agent of test/support/servers.ts), whose card lists a GRPC interface, served as they are (`serveGrpc(core)`: the core's
 * own transport-free service) and called with the client transport. The protocol basics over gRPC (send, stream, get with
 * historyLength, list, cancel, subscribe, push configs, extended card, version negotiation, auth on/off),
 * every result checked against the version's schema.
 */
import grpc from "@grpc/grpc-js";
import type protobuf from "protobufjs";
import { withGrpcInterface } from "../../support/grpc/fake-service.js";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grpcDescriptor } from "../../../src/emit/grpc.js";
import { A2AError } from "../../../src/runtime/client/client.js";
import { loadGrpcBinding, type GrpcBindingSpec } from "../../../src/runtime/grpc/binding.js";
import { GrpcTransport } from "../../../src/runtime/grpc/client-transport.js";
import { serveGrpc, type GrpcServerHandle } from "../../../src/runtime/grpc/server.js";
import { SHAPES_0_3_0 } from "../../../src/runtime/wire/shapes-0.3.0.js";
import type { Validator } from "../../../src/runtime/validation.js";
import { generatedValidators, SCHEMA_DIR } from "../../support/project.js";
import { modules, TEST_AUTH, TEST_TOKEN, testCard, testExecutor } from "../../support/servers.js";

type Json = Record<string, unknown>;

interface Version {
  version: "1.0.1" | "0.3.0";
  proto: string;
  headers: Record<string, string>;
  method: Record<"send" | "stream" | "get" | "list" | "cancel" | "subscribe" | "pushSet" | "pushGet" | "pushList" | "pushDelete" | "card", string>;
  message(text: string, extra?: Json): Json;
  /** The task or message of a send result. */
  unwrap(result: unknown): Json;
  /** The kind of a stream event: task, message, status, artifact. */
  kindOf(event: unknown): string;
  nonBlocking: Json;
  state(task: Json): string;
  valid(validators: Record<string, Validator<unknown>>, method: string, result: unknown): boolean;
}

const V1: Version = {
  version: "1.0.1",
  proto: "a2a-1.0.1.proto",
  headers: { "a2a-version": "1.0" },
  method: { send: "SendMessage", stream: "SendStreamingMessage", get: "GetTask", list: "ListTasks", cancel: "CancelTask", subscribe: "SubscribeToTask", pushSet: "CreateTaskPushNotificationConfig", pushGet: "GetTaskPushNotificationConfig", pushList: "ListTaskPushNotificationConfigs", pushDelete: "DeleteTaskPushNotificationConfig", card: "GetExtendedAgentCard" },
  message: (text, extra = {}) => ({ messageId: `m-${Math.random()}`, role: "ROLE_USER", parts: [{ text }], ...extra }),
  unwrap: (result) => ((result as Json).task ?? (result as Json).message) as Json,
  kindOf: (event) => ({ task: "task", message: "message", statusUpdate: "status", artifactUpdate: "artifact" })[Object.keys(event as Json)[0] as string] ?? "?",
  nonBlocking: { returnImmediately: true },
  state: (task) => String((task.status as Json).state).replace("TASK_STATE_", "").toLowerCase().replace("_", "-"),
  valid: (validators, method, result) => validators[`${method}RpcSuccessResponse`]?.({ jsonrpc: "2.0", id: 1, result }) === true || validators[`${method}RpcResponse`]?.({ jsonrpc: "2.0", id: 1, result }) === true,
};

const V030: Version = {
  version: "0.3.0",
  proto: "a2a-0.3.0.proto",
  headers: {},
  method: { send: "message/send", stream: "message/stream", get: "tasks/get", list: "", cancel: "tasks/cancel", subscribe: "tasks/resubscribe", pushSet: "tasks/pushNotificationConfig/set", pushGet: "tasks/pushNotificationConfig/get", pushList: "tasks/pushNotificationConfig/list", pushDelete: "tasks/pushNotificationConfig/delete", card: "agent/getAuthenticatedExtendedCard" },
  message: (text, extra = {}) => ({ kind: "message", messageId: `m-${Math.random()}`, role: "user", parts: [{ kind: "text", text }], ...extra }),
  unwrap: (result) => result as Json,
  kindOf: (event) => ({ task: "task", message: "message", "status-update": "status", "artifact-update": "artifact" })[String((event as Json).kind)] ?? "?",
  nonBlocking: { blocking: false },
  state: (task) => String((task.status as Json).state),
  valid: (validators, method, result) => {
    const name = { "message/send": "SendMessageResponse", "message/stream": "SendStreamingMessageResponse", "tasks/get": "GetTaskResponse", "tasks/cancel": "CancelTaskResponse", "tasks/resubscribe": "SendStreamingMessageResponse", "tasks/pushNotificationConfig/set": "SetTaskPushNotificationConfigResponse", "tasks/pushNotificationConfig/get": "GetTaskPushNotificationConfigResponse", "tasks/pushNotificationConfig/list": "ListTaskPushNotificationConfigResponse", "tasks/pushNotificationConfig/delete": "DeleteTaskPushNotificationConfigResponse", "agent/getAuthenticatedExtendedCard": "GetAuthenticatedExtendedCardResponse" }[method];
    return name !== undefined && validators[name]?.({ jsonrpc: "2.0", id: 1, result }) === true;
  },
};

async function bindingOf(v: Version): Promise<GrpcBindingSpec> {
  const m = await modules(v.version);
  const profile = m.protocol.A2A_PROFILE as unknown as { errorCodes: Record<string, number>; methods: Record<string, string> };
  const d = grpcDescriptor(join(SCHEMA_DIR, v.proto), Object.values(profile.methods), v.version);
  return { proto: d.proto, service: d.service, methods: d.methods, errorCodes: profile.errorCodes, ...(v.version === "0.3.0" ? { shapes: SHAPES_0_3_0 } : {}) };
}

async function start(v: Version, options: { auth?: boolean } = {}) {
  const m = await modules(v.version);
  const setup = { extendedCard: { name: "Extended" }, ...(options.auth ? { auth: { verify: (c: { value: string }) => (c.value === "secret" ? true : c.value === "forbidden" ? { allow: false, status: 403 } : false) } } : {}) };
  const card = testCard(v.version, setup);
  const core = m.core.createA2AServer({
    card: withGrpcInterface(card) as never,
      transports: ["GRPC"],
    executor: testExecutor() as never,
    rpcPath: "/a2a",
    extendedCard: { ...card, name: "Extended" } as never,
    // The webhook is a closed port on loopback, allow-listed: configs are stored, deliveries fail quietly.
    pushNotifications: { allow: ["127.0.0.1"], retries: 0, timeoutMs: 500 },
    logger: { error: () => undefined, warn: () => undefined },
    // The card declares the extended card, so it has a security scheme (§13.3): the test token, or the auth tests' verifier.
    auth: (options.auth ? setup.auth : TEST_AUTH) as never,
  });
  const spec = await bindingOf(v);
  const server = await serveGrpc(spec, core as never);
  return { spec, server, core, close: async () => (await server.close(), await core.close()) };
}

async function drain(stream: AsyncIterable<unknown>, max = Infinity): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const item of stream) {
    out.push(item);
    if (out.length >= max) break;
  }
  return out;
}

for (const v of [V1, V030]) {
  describe(`${v.version} over gRPC, in front of the generated server core`, () => {
    let running: Awaited<ReturnType<typeof start>>;
    let client: GrpcTransport;
    let validators: Record<string, Validator<unknown>>;
    const valid = (method: string, result: unknown) => expect(v.valid(validators, method, result), `${method}: ${JSON.stringify(result)}`).toBe(true);

    beforeAll(async () => {
      validators = await generatedValidators(v.version);
      running = await start(v);
      client = new GrpcTransport(running.spec, `127.0.0.1:${running.server.port}`, { headers: v.headers, auth: { type: "bearer", token: TEST_TOKEN } });
    });
    afterAll(async () => {
      client.close();
      await running.close();
    });

    it("send: a direct reply, a completed task; get with historyLength", async () => {
      const reply = await client.call(v.method.send, { message: v.message("hello") });
      valid(v.method.send, reply);
      expect(v.unwrap(reply).parts).toEqual([expect.objectContaining({ text: "hello back" })]);
      const sent = await client.call(v.method.send, { message: v.message("task") });
      valid(v.method.send, sent);
      const task = v.unwrap(sent);
      expect(v.state(task)).toBe("completed");
      const got = (await client.call(v.method.get, { id: task.id, historyLength: 1 })) as Json;
      valid(v.method.get, got);
      expect(got.id).toBe(task.id);
      expect((got.history as Json[]).length).toBe(1);
    });

    it("multi-turn (§3.4): input-required, then the follow-up in the same task and context completes it", async () => {
      const first = v.unwrap(await client.call(v.method.send, { message: v.message("ask") }));
      expect(v.state(first)).toBe("input-required");
      const second = await client.call(v.method.send, { message: v.message("Ada", { taskId: first.id, contextId: first.contextId }) });
      valid(v.method.send, second);
      const task = v.unwrap(second);
      expect(task.id).toBe(first.id);
      expect(task.contextId).toBe(first.contextId);
      expect(v.state(task)).toBe("completed");
      expect(JSON.stringify((task.status as Json).message)).toContain("got: Ada");
    });

    it("errors name fields as the rpc's request has them (message.contextId; 0.3.0's message.content), never params.…", async () => {
      const first = v.unwrap(await client.call(v.method.send, { message: v.message("ask") }));
      // specification-1.0.1.md §3.4.3: a message naming a task with another contextId MUST be rejected.
      const mismatch = (await client.call(v.method.send, { message: v.message("Bob", { taskId: first.id, contextId: "another-context" }) }).catch((e: unknown) => e)) as { code: number; data?: unknown };
      expect(mismatch.code).toBe(-32602);
      const fields = (data: unknown) => (data as Json[]).flatMap((d) => ((d.fieldViolations as Json[] | undefined) ?? []).map((f) => String(f.field)));
      expect(fields(mismatch.data)).toEqual(["message.contextId"]);
      expect(JSON.stringify(mismatch.data)).not.toMatch(/\/params|params\./);
      expect((mismatch as unknown as Error).message).not.toMatch(/\/params|params\./);
      if (v.version === "0.3.0") {
        // No content: the service's /message/parts is the wire's message.content.
        const empty = (await client.call(v.method.send, { message: { ...v.message("x"), parts: undefined } }).catch((e: unknown) => e)) as { data?: unknown };
        expect(fields(empty.data)).toContain("message.content");
      }
    });

    it("deep nesting (hardening issue 16, item 1): refused naming the field, nothing stored, the server keeps serving", async () => {
      const deep = (n: number): Json => {
        let value: Json = { leaf: 1 };
        for (let i = 0; i < n; i++) value = { a: value };
        return value;
      };
      // The client refuses to encode what no server would read (proto-json's depth limit), naming the field.
      const refused = (await client.call(v.method.send, { message: v.message("task", { metadata: deep(300) }) }).catch((e: unknown) => e)) as Error & { field?: string };
      expect(refused.name).toBe("ProtoJsonError");
      expect(refused.field).toMatch(/^message\.metadata(\.a)+$/);
      // Far deeper than any encoder would write, as raw bytes: a Struct nested 5,000 levels in the request's metadata.
      const rpc = (await import("../../../src/runtime/grpc/binding.js")).loadGrpcBinding(running.spec).rpcs.get(v.version === "1.0.1" ? "SendMessage" : "SendMessage");
      const type = rpc?.requestType as import("protobufjs").Type;
      const tag = (field: number, bytes: Uint8Array) => Buffer.concat([Buffer.from([(field << 3) | 2]), varint(bytes.length), bytes]);
      let struct: Uint8Array = new Uint8Array();
      for (let i = 0; i < 5_000; i++) struct = tag(1, Buffer.concat([tag(1, Buffer.from("a")), tag(2, tag(5, struct))]));
      const wireMessage = v.version === "1.0.1" ? v.message("task") : { messageId: "m-deep", role: "ROLE_USER", content: [{ text: "task" }] };
      const head = type.encode(type.fromObject({ message: wireMessage })).finish();
      const metadataField = (type.fields.metadata as { id: number }).id;
      const raw = Buffer.concat([head, tag(metadataField, struct)]);
      const grpcJs = (await import("@grpc/grpc-js")).default;
      const c = new grpcJs.Client(`127.0.0.1:${running.server.port}`, grpcJs.credentials.createInsecure());
      const md = new grpcJs.Metadata();
      for (const [k, val] of Object.entries({ ...v.headers, authorization: `Bearer ${TEST_TOKEN}` })) md.set(k, val);
      const error = await new Promise<{ code: number; details: string } | null>((resolve) => c.makeUnaryRequest(rpc?.path as string, (b: Buffer) => b, (b: Buffer) => b, raw, md, (e) => resolve(e as never)));
      c.close();
      expect(error?.code).toBe(grpcJs.status.INVALID_ARGUMENT);
      expect(error?.details, error?.details).toMatch(/^Invalid SendMessageRequest: not a valid SendMessageRequest message: nested deeper than 100 messages/);
      // Nothing was stored: the server still lists and serves.
      const ok = await client.call(v.method.send, { message: v.message("hello") });
      valid(v.method.send, ok);
      if (v.version === "1.0.1") valid(v.method.list, await client.call(v.method.list, { pageSize: 100 }));
    });

    it("stream: the task, status and artifact events; the chunks make the story", async () => {
      const events = await drain(client.stream(v.method.stream, { message: v.message("stream") }));
      for (const event of events) valid(v.method.stream, event);
      expect(v.kindOf(events[0])).toBe("task");
      const text = events
        .filter((e) => v.kindOf(e) === "artifact")
        .map((e) => {
          const update = (v.version === "1.0.1" ? (e as Json).artifactUpdate : e) as Json;
          return ((update.artifact as Json).parts as Json[]).map((p) => p.text).join("");
        })
        .join("");
      expect(text).toBe("once upon a time");
      expect(v.state(((v.version === "1.0.1" ? (events.at(-1) as Json).statusUpdate : events.at(-1)) as Json) as Json)).toBe("completed");
    });

    it("cancel a running task; subscribe to one and leave", async () => {
      const slow = v.unwrap(await client.call(v.method.send, { message: v.message("slow"), configuration: v.nonBlocking }));
      const events = await drain(client.stream(v.method.subscribe, { id: slow.id }), 1);
      valid(v.method.subscribe, events[0]);
      const canceled = (await client.call(v.method.cancel, { id: slow.id })) as Json;
      valid(v.method.cancel, canceled);
      expect(v.state(canceled)).toBe("canceled");
      const again = await client.call(v.method.cancel, { id: slow.id }).catch((e: unknown) => e);
      expect(again).toMatchObject({ code: -32002 });
    });

    it("push notification configs: set, get, list, delete", async () => {
      const task = v.unwrap(await client.call(v.method.send, { message: v.message("ask") }));
      const params = v.version === "1.0.1" ? { taskId: task.id, id: "cfg", url: "http://127.0.0.1:9/a2a" } : { taskId: task.id, pushNotificationConfig: { id: "cfg", url: "http://127.0.0.1:9/a2a" } };
      const set = await client.call(v.method.pushSet, params);
      valid(v.method.pushSet, set);
      const getParams = v.version === "1.0.1" ? { taskId: task.id, id: "cfg" } : { id: task.id, pushNotificationConfigId: "cfg" };
      expect(await client.call(v.method.pushGet, getParams)).toEqual(set);
      const listed = await client.call(v.method.pushList, v.version === "1.0.1" ? { taskId: task.id } : { id: task.id });
      valid(v.method.pushList, listed);
      await client.call(v.method.pushDelete, getParams);
      const missing = await client.call(v.method.pushGet, getParams).catch((e: unknown) => e);
      expect(missing).toBeInstanceOf(A2AError);
    });

    it("the extended card; an unknown task is TaskNotFoundError (-32001)", async () => {
      const card = await client.call(v.method.card, v.version === "1.0.1" ? {} : undefined);
      valid(v.method.card, card);
      expect((card as Json).name).toBe("Extended");
      await expect(client.call(v.method.get, { id: "no-such-task" })).rejects.toMatchObject({ code: -32001 });
    });

    if (v.version === "1.0.1") {
      it("ListTasks; a2a-version negotiation (§3.6.2): none or another version is -32009", async () => {
        const listed = (await client.call(v.method.list, { pageSize: 5 })) as Json;
        valid(v.method.list, listed);
        expect((listed.tasks as Json[]).length).toBeGreaterThan(0);
        const old = new GrpcTransport(running.spec, `127.0.0.1:${running.server.port}`, { headers: { "a2a-version": "0.3" }, auth: { type: "bearer", token: TEST_TOKEN } });
        const none = new GrpcTransport(running.spec, `127.0.0.1:${running.server.port}`, { auth: { type: "bearer", token: TEST_TOKEN } });
        try {
          await expect(old.call(v.method.get, { id: "x" })).rejects.toMatchObject({ code: -32009 });
          await expect(none.call(v.method.get, { id: "x" })).rejects.toMatchObject({ code: -32009 });
        } finally {
          old.close();
          none.close();
        }
      });
    }

    it("auth on (the card's bearer scheme in metadata): none → -32000 UNAUTHENTICATED, wrong → PERMISSION_DENIED, right → served", async () => {
      const secured = await start(v, { auth: true });
      const target = `127.0.0.1:${secured.server.port}`;
      const none = new GrpcTransport(secured.spec, target, { headers: v.headers });
      const forbidden = new GrpcTransport(secured.spec, target, { headers: v.headers, auth: { type: "bearer", token: "forbidden" } });
      const good = new GrpcTransport(secured.spec, target, { headers: v.headers, auth: { type: "bearer", token: "secret" } });
      try {
        const unauthenticated = (await none.call(v.method.send, { message: v.message("hello") }).catch((e: unknown) => e)) as A2AError & { cause?: unknown };
        expect(unauthenticated).toMatchObject({ code: -32000 });
        await expect(forbidden.call(v.method.send, { message: v.message("hello") })).rejects.toMatchObject({ code: -32000 });
        const reply = await good.call(v.method.send, { message: v.message("hello") });
        valid(v.method.send, reply);
      } finally {
        none.close();
        forbidden.close();
        good.close();
        await secured.close();
      }
    });
  });
}

/** A protobuf varint. */
function varint(n: number): Buffer {
  const out: number[] = [];
  while (n > 127) {
    out.push((n & 127) | 128);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Buffer.from(out);
}

/**
 * Required extensions over gRPC (issue 15 item 9; specification-1.0.1.md §3.2.6 and §3.3.4): the version's
 * extensions header travels as metadata (`a2a-extensions`). A call that does not activate an extension the
 * card marks `required: true` is ExtensionSupportRequiredError (FAILED_PRECONDITION); a call that activates
 * it is served, and the activated (declared) extensions are echoed in the answer's initial metadata.
 */
describe("1.0.1 over gRPC: required extensions in metadata", () => {
  const GEO = "https://example.com/extensions/geolocation/v1";
  let running: { server: GrpcServerHandle; close(): Promise<void> };
  let raw: grpc.Client;
  let request: protobuf.Type;

  beforeAll(async () => {
    const m = await modules("1.0.1");
    const card = testCard("1.0.1", {}) as Json;
    card.capabilities = { ...(card.capabilities as Json), extensions: [{ uri: GEO, description: "Where the user is", required: true }] };
    const core = m.core.createA2AServer({ card: withGrpcInterface(card) as never, transports: ["GRPC"], executor: testExecutor() as never, rpcPath: "/a2a", logger: { error: () => undefined, warn: () => undefined } });
    const spec = await bindingOf(V1);
    const server = await serveGrpc(spec, core as never);
    running = { server, close: async () => (await server.close(), await core.close()) };
    request = loadGrpcBinding(spec).root.lookupType("lf.a2a.v1.SendMessageRequest");
    raw = new grpc.Client(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
  });
  afterAll(async () => {
    raw.close();
    await running.close();
  });

  /** SendMessage with plain grpc-js: the answer's initial metadata and its status. */
  const send = (metadata: Record<string, string>) => {
    const md = new grpc.Metadata();
    for (const [k, v] of Object.entries(metadata)) md.set(k, v);
    const bytes = request.encode(request.fromObject({ message: { message_id: `m-${Math.random()}`, role: "ROLE_USER", parts: [{ text: "hello" }] } })).finish();
    return new Promise<{ headers: grpc.Metadata | undefined; error: grpc.ServiceError | null }>((resolve) => {
      let headers: grpc.Metadata | undefined;
      const call = raw.makeUnaryRequest("/lf.a2a.v1.A2AService/SendMessage", (b: Uint8Array) => Buffer.from(b), (b: Buffer) => b, bytes, md, (error) => resolve({ headers, error }));
      call.on("metadata", (m: grpc.Metadata) => (headers = m));
    });
  };

  it("without a2a-extensions: FAILED_PRECONDITION naming the extension (§3.3.4)", async () => {
    const { error } = await send({ "a2a-version": "1.0" });
    expect(error?.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(error?.details).toContain(GEO);
  });

  it("activating it: served, and the activated extension echoed in the answer's metadata (§3.2.6)", async () => {
    const { error, headers } = await send({ "a2a-version": "1.0", "a2a-extensions": `${GEO}, https://example.com/undeclared` });
    expect(error).toBeNull();
    expect(headers?.get("a2a-extensions")).toEqual([GEO]);
  });
});
