/**
 * A compat agent (`generate --spec 1.0.1 --compat 0.3.0 --transports jsonrpc,rest,grpc`) on HTTP+JSON and
 * gRPC (issue 9): the version rules of each binding, one task followed by a 0.3 and a 1.0 client on
 * different bindings, and the official 0.3 SDK's REST and gRPC clients against it.
 *
 * Version rules. specification-1.0.1.md §3.2.6: the client names its version in `A2A-Version` (an HTTP
 * header or query parameter; gRPC metadata, §10.2), a missing one meaning 0.3, and "agents MUST process
 * requests using the semantics of the requested A2A-Version … If the version is not supported by the
 * interface, agents MUST return a VersionNotSupportedError". HTTP+JSON: 0.3's routes are `/v1/…`
 * (schema/a2a-0.3.0.proto), 1.0's are unprefixed, but 1.0's `/{tenant}/message:send` also matches
 * `/v1/message:send`: the header decides which version's route a path both have is. gRPC: the packages
 * differ (0.3 `a2a.v1.A2AService`, 1.0 `lf.a2a.v1.A2AService`); each service speaks its version only.
 */
import grpc from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { protoPath as healthProto } from "grpc-health-check";
import type { Message, Task } from "@a2a-js/sdk";
import { ClientFactory, DefaultAgentCardResolver, RestTransportFactory, TaskNotFoundError, type Client as SdkClient } from "@a2a-js/sdk/client";
import { GrpcTransportFactory } from "@a2a-js/sdk/client/grpc";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { capturingRestFetch, checkCaptured, FRAMEWORKS, modules, TEST_TOKEN, type Captured } from "../support/servers.js";
import { drain, textOf, userMessage } from "../support/wire/jsonrpc.js";
import { AUTH_ERROR_CODE } from "../../src/runtime/a2a-error.js";
import { compatOutput, startCompatAgent, type CompatAgent, type CompatOutput } from "../support/compat/agent.js";

type Json = Record<string, unknown>;

interface Client {
  transport: { binding: string };
  call(method: string, params: unknown): Promise<unknown>;
  stream(method: string, params: unknown): AsyncGenerator<unknown, void, undefined>;
}

const canon = (value: unknown) => String(value).replace(/^(TASK_STATE_|ROLE_)/, "").toLowerCase().replace(/_/g, "-");
const unwrap = (value: unknown): Json => {
  const v = value as Json;
  const keys = v && typeof v === "object" ? Object.keys(v) : [];
  return keys.length === 1 && ["task", "message", "statusUpdate", "artifactUpdate"].includes(keys[0] as string) ? (v[keys[0] as string] as Json) : v;
};
const stateOf = (value: unknown) => canon((unwrap(value).status as Json | undefined)?.state);

let out: CompatOutput;
beforeAll(async () => {
  out = await compatOutput();
  for (const level of ["error", "warn", "info"] as const) vi.spyOn(console, level).mockImplementation(() => undefined);
}, 120_000);
afterAll(() => {
  vi.restoreAllMocks();
});

/** A generated client of `version` over `binding`, picked from the dual card. */
async function clientOf(agent: CompatAgent, version: "0.3.0" | "1.0.1", binding: "JSONRPC" | "HTTP+JSON" | "GRPC"): Promise<Client> {
  const v1 = version === "1.0.1";
  const Client = (v1 ? out.client.A2AClient : out.compatClient.A2AClient) as unknown as { fromAgentUrl(url: string, options: object): Promise<Client> };
  const transports = binding === "HTTP+JSON" ? [(v1 ? out.client : out.compatClient).restTransport] : binding === "GRPC" ? [(v1 ? out.grpcClient : out.compatGrpcClient).grpcTransport] : [];
  const client = await Client.fromAgentUrl(agent.baseUrl, { transports, binding, validation: (v1 ? out.validation : out.compatValidation).clientValidation, trustedOrigins: [agent.grpcTarget] });
  expect(client.transport.binding).toBe(binding);
  return client;
}

const send03 = (text: string) => ({ message: { kind: "message", messageId: `m-${Math.random()}`, role: "user", parts: [{ kind: "text", text }] } });
const send1 = (text: string) => ({ message: { messageId: `m-${Math.random()}`, role: "ROLE_USER", parts: [{ text }] } });

describe("version rules per binding", () => {
  let agent: CompatAgent;
  beforeAll(async () => {
    agent = await startCompatAgent("node", { bindings: ["HTTP+JSON", "GRPC"] });
  });
  afterAll(async () => agent.close());

  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${agent.restUrl}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as Json };
  };
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${agent.restUrl}${path}`, { headers });
    return { status: response.status, body: (await response.json()) as Json };
  };
  const wire03 = { message: { messageId: "w1", role: "ROLE_USER", content: [{ text: "hello" }] } };

  it("HTTP+JSON: /v1/message:send without A2A-Version is 0.3 (§3.2.6): the 0.3 proto's JSON back", async () => {
    const answer = await post("/v1/message:send", wire03);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ message: { role: "ROLE_AGENT", content: [{ text: "hello back" }] } });
    // Named in the query instead of a header (§3.2.6: "MAY provide the A2A-Version as a request parameter").
    expect((await post("/v1/message:send?A2A-Version=0.3", wire03)).body).toMatchObject({ message: { content: [{ text: "hello back" }] } });
  });

  it("HTTP+JSON: the same path with A2A-Version: 1.0 is 1.0's /{tenant}/message:send (tenant \"v1\"): 1.0's shapes", async () => {
    const answer = await post("/v1/message:send", send1("hello"), { "A2A-Version": "1.0" });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ message: { role: "ROLE_AGENT", parts: [{ text: "hello back" }] } });
    // And 0.3's body there is a 1.0 request with 0.3 fields: refused naming the field, in 1.0's error shape.
    const refused = await post("/v1/message:send", wire03, { "A2A-Version": "1.0" });
    expect(refused.status).toBe(400);
    expect((refused.body.error as Json).status).toBe("INVALID_ARGUMENT");
  });

  it("HTTP+JSON: a 1.0 route without A2A-Version is a 0.3 request: VersionNotSupportedError (1.0's error body)", async () => {
    const answer = await post("/message:send", send1("hello"));
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ status: "FAILED_PRECONDITION" });
    expect(String((answer.body.error as Json).message)).toMatch(/No A2A-Version given \(read as 0\.3\)/);
  });

  it("HTTP+JSON: a 0.3 route with A2A-Version: 1.0 that 1.0 does not have (/v1/card) is VersionNotSupportedError (0.3's error object)", async () => {
    const answer = await get("/v1/card", { "A2A-Version": "1.0" });
    // The status of 1.0's table (specification-1.0.1.md §5.4: VersionNotSupportedError is 400), 0.3 having none.
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: -32009 });
    expect(String(answer.body.message)).toMatch(/GET \/rest\/v1\/card is an A2A 0\.3 route that 1\.0 does not have; this agent serves 1\.0 and 0\.3: send A2A-Version: 0\.3/);
  });

  it("HTTP+JSON: an unknown version is VersionNotSupportedError; an unknown route is the named version's 404", async () => {
    const unknown = await get("/v1/tasks/t1", { "A2A-Version": "0.9" });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: -32009 });
    const missing03 = await get("/v1/nothing/here/at/all");
    expect(missing03.status).toBe(404);
    expect(missing03.body).toMatchObject({ code: -32601 });
    const missing1 = await get("/v1/nothing/here/at/all", { "A2A-Version": "1.0" });
    expect(missing1.status).toBe(404);
    expect(missing1.body.error).toMatchObject({ code: 404, status: "NOT_FOUND" });
  });

  it("HTTP+JSON: bad input on 0.3's routes is refused naming the field as 0.3's request has it, in 0.3's error object", async () => {
    const empty = await post("/v1/message:send", { message: { messageId: "w2", role: "ROLE_USER", content: [] } });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ code: -32602 });
    // specification-0.3.0.md §2: a message has "one or more Parts"; 0.3's proto calls them `content`.
    expect((empty.body.data as { issues: Json[] }).issues).toEqual([expect.objectContaining({ pointer: "/message/content", keyword: "minItems" })]);
    expect(JSON.stringify(empty.body)).not.toMatch(/\/params|params\.|\/parts/);
    const malformed = await fetch(`${agent.restUrl}/v1/message:send`, { method: "POST", headers: { "content-type": "application/json" }, body: "{not json" });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ code: -32700 });
    const wrongVerb = await fetch(`${agent.restUrl}/v1/message:send`);
    expect(wrongVerb.status).toBe(405);
    expect(wrongVerb.headers.get("allow")).toBe("POST");
  });

  it("gRPC: bytes that are not 0.3's SendMessageRequest are INVALID_ARGUMENT; both packages' services are there, nothing else", async () => {
    const raw = new grpc.Client(agent.grpcTarget, grpc.credentials.createInsecure());
    const call = (path: string, bytes: Buffer) =>
      new Promise<grpc.ServiceError | null>((resolve) => {
        raw.makeUnaryRequest(path, (b: Buffer) => b, (b: Buffer) => b, bytes, (error) => resolve(error));
      });
    expect((await call("/a2a.v1.A2AService/SendMessage", Buffer.from([0x0a, 0xff, 0xff, 0xff])))?.code).toBe(grpc.status.INVALID_ARGUMENT);
    // An empty GetTaskRequest: 0.3's needs a name of the form tasks/{id} (D1 of docs/grpc.md), 1.0's an id.
    expect((await call("/a2a.v1.A2AService/GetTask", Buffer.alloc(0)))?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect((await call("/a2a.v1.A2AService/ListTasks", Buffer.alloc(0)))?.code).toBe(grpc.status.UNIMPLEMENTED);
    expect((await call("/a2a.v2.A2AService/SendMessage", Buffer.alloc(0)))?.code).toBe(grpc.status.UNIMPLEMENTED);
    raw.close();
  });

  it("gRPC: 0.3's service refuses a2a-version 1.0 and 1.0's refuses a call without it (VersionNotSupportedError, FAILED_PRECONDITION)", async () => {
    const raw = new grpc.Client(agent.grpcTarget, grpc.credentials.createInsecure());
    const metadata = new grpc.Metadata();
    metadata.set("a2a-version", "1.0");
    const refused = await new Promise<grpc.ServiceError | null>((resolve) => raw.makeUnaryRequest("/a2a.v1.A2AService/GetAgentCard", (b: Buffer) => b, (b: Buffer) => b, Buffer.alloc(0), metadata, (error) => resolve(error)));
    // specification-1.0.1.md §5.4: VersionNotSupportedError is FAILED_PRECONDITION (0.3 defines no such error).
    expect(refused?.code).toBe(grpc.status.FAILED_PRECONDITION);
    raw.close();
    const compat = out.compatGrpcClient as unknown as { createGrpcTransport(target: string, options: object): { call(method: string, params: unknown): Promise<unknown>; close(): void } };
    const primary = out.grpcClient as unknown as typeof compat;
    const as1 = compat.createGrpcTransport(agent.grpcTarget, { headers: { "a2a-version": "1.0" } });
    await expect(as1.call("message/send", send03("hello"))).rejects.toMatchObject({ code: -32009, message: expect.stringMatching(/is to A2A 0\.3's service, not 1\.0's; this agent serves 1\.0 and 0\.3: send A2A-Version: 0\.3/) });
    const as03 = compat.createGrpcTransport(agent.grpcTarget, { headers: { "a2a-version": "0.3" } });
    expect(unwrap(await as03.call("message/send", send03("hello"))).parts).toEqual([{ kind: "text", text: "hello back" }]);
    const bare = primary.createGrpcTransport(agent.grpcTarget, {});
    await expect(bare.call("SendMessage", send1("hello"))).rejects.toMatchObject({ code: -32009, message: expect.stringMatching(/read as 0\.3/) });
    for (const t of [as1, as03, bare]) t.close();
  });
});

describe("extensions and auth on 0.3's REST and gRPC (the same rules as on JSON-RPC)", () => {
  const GEO = "https://example.com/extensions/geolocation/v1";
  const wire03 = { message: { messageId: "e1", role: "ROLE_USER", content: [{ text: "hello" }] } };
  type GrpcClientModule = { createGrpcTransport(target: string, options: object): { call(method: string, params: unknown): Promise<unknown>; close(): void } };

  it("a required extension: activated in 0.3's X-A2A-Extensions (REST header, gRPC metadata) it is served (and echoed in the REST header); without it refused in 0.3's terms (-32600, data.required)", async () => {
    const agent = await startCompatAgent("node", { bindings: ["HTTP+JSON", "GRPC"], card: { capabilities: { streaming: true, pushNotifications: true, extensions: [{ uri: GEO, description: "Where the user is", required: true }] } } });
    try {
      const post = (headers: Record<string, string>) => fetch(`${agent.restUrl}/v1/message:send`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(wire03) });
      const activated = await post({ "X-A2A-Extensions": GEO });
      expect(activated.status).toBe(200);
      expect(activated.headers.get("x-a2a-extensions")).toBe(GEO);
      const refused = await post({});
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ code: -32600, data: { required: [GEO] } });
      const grpc03 = out.compatGrpcClient as unknown as GrpcClientModule;
      const withIt = grpc03.createGrpcTransport(agent.grpcTarget, { headers: { "x-a2a-extensions": GEO } });
      expect(unwrap(await withIt.call("message/send", send03("hello"))).kind).toBe("message");
      const without = grpc03.createGrpcTransport(agent.grpcTarget, {});
      await expect(without.call("message/send", send03("hello"))).rejects.toMatchObject({ code: -32600 });
      for (const t of [withIt, without]) t.close();
      // The echo of the activated extension in the answer's initial metadata, read with plain grpc-js
      // (0.3's gRPC binding: X-A2A-Extensions as metadata, specification-0.3.0.md §3.2.6 / §7.1).
      const root = join(import.meta.dirname, "..", "..", "schema");
      const A2AService03 = (grpc.loadPackageDefinition(loadSync(join(root, "a2a-0.3.0.proto"), { includeDirs: [join(root, "proto")], enums: String })) as unknown as {
        a2a: { v1: { A2AService: new (address: string, credentials: grpc.ChannelCredentials) => grpc.Client & { SendMessage(request: object, metadata: grpc.Metadata, callback: (error: grpc.ServiceError | null) => void): grpc.ClientUnaryCall } } };
      }).a2a.v1.A2AService;
      const raw = new A2AService03(agent.grpcTarget, grpc.credentials.createInsecure());
      try {
        const metadata = new grpc.Metadata();
        metadata.set("x-a2a-extensions", `${GEO}, https://example.com/undeclared`);
        const echoed = await new Promise<{ error: grpc.ServiceError | null; headers: grpc.Metadata | undefined }>((resolve) => {
          let headers: grpc.Metadata | undefined;
          const call = raw.SendMessage({ request: { messageId: "m-echo", role: "ROLE_USER", content: [{ text: "hello" }] } }, metadata, (error) => resolve({ error, headers }));
          call.on("metadata", (m: grpc.Metadata) => (headers = m));
        });
        expect(echoed.error).toBeNull();
        expect(echoed.headers?.get("x-a2a-extensions")).toEqual([GEO]);
      } finally {
        raw.close();
      }
    } finally {
      await agent.close();
    }
  });

  it("a secured agent: a 0.3 call without credentials is 401 with WWW-Authenticate on REST, UNAUTHENTICATED on gRPC; with them it is served", async () => {
    const agent = await startCompatAgent("node", { bindings: ["HTTP+JSON", "GRPC"], extendedCard: { name: "Extended" } });
    try {
      const anonymous = await fetch(`${agent.restUrl}/v1/message:send`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(wire03) });
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get("www-authenticate")).toMatch(/^Bearer/);
      const authorized = await fetch(`${agent.restUrl}/v1/message:send`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${TEST_TOKEN}` }, body: JSON.stringify(wire03) });
      expect(authorized.status).toBe(200);
      const grpc03 = out.compatGrpcClient as unknown as GrpcClientModule;
      const bare = grpc03.createGrpcTransport(agent.grpcTarget, {});
      // UNAUTHENTICATED, which the client reads as the auth error code.
      await expect(bare.call("message/send", send03("hello"))).rejects.toMatchObject({ code: AUTH_ERROR_CODE });
      const bearer = grpc03.createGrpcTransport(agent.grpcTarget, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
      expect(unwrap(await bearer.call("message/send", send03("hello"))).kind).toBe("message");
      for (const t of [bare, bearer]) t.close();
    } finally {
      await agent.close();
    }
  });
});

describe("the gRPC health service of a compat agent (serveGrpc(core, { health: true }))", () => {
  it("is SERVING for the server and for each version's A2AService", async () => {
    const agent = await startCompatAgent("node", { bindings: ["GRPC"], grpcOptions: { health: true } });
    const Health = (grpc.loadPackageDefinition(loadSync(healthProto, { enums: String })) as unknown as {
      grpc: { health: { v1: { Health: new (address: string, credentials: grpc.ChannelCredentials) => grpc.Client & { Check(request: { service: string }, callback: (error: grpc.ServiceError | null, response?: { status: string }) => void): void } } } };
    }).grpc.health.v1.Health;
    const client = new Health(agent.grpcTarget, grpc.credentials.createInsecure());
    const check = (service: string) => new Promise<string | number | undefined>((resolve) => client.Check({ service }, (error, response) => resolve(error ? error.code : response?.status)));
    try {
      expect(await check("")).toBe("SERVING");
      expect(await check("lf.a2a.v1.A2AService")).toBe("SERVING");
      expect(await check("a2a.v1.A2AService")).toBe("SERVING");
      expect(await check("other.Service")).toBe(grpc.status.NOT_FOUND);
    } finally {
      client.close();
      await agent.close();
    }
  });
});

describe("gRPC reflection on a compat agent (serveGrpc(core, { reflection: true }))", () => {
  it("lists and describes both versions' A2AService", async () => {
    const agent = await startCompatAgent("node", { bindings: ["GRPC"], grpcOptions: { reflection: true } });
    const dir = dirname(createRequire(import.meta.url).resolve("@grpc/reflection/package.json"));
    const Reflection = (grpc.loadPackageDefinition(loadSync(join(dir, "build", "proto", "grpc", "reflection", "v1alpha", "reflection.proto"))) as unknown as {
      grpc: { reflection: { v1alpha: { ServerReflection: grpc.ServiceClientConstructor } } };
    }).grpc.reflection.v1alpha.ServerReflection;
    const client = new Reflection(agent.grpcTarget, grpc.credentials.createInsecure());
    type Answer = { listServicesResponse?: { service: Array<{ name: string }> }; fileDescriptorResponse?: { fileDescriptorProto: Buffer[] }; errorResponse?: { errorMessage: string } };
    const ask = (request: object) =>
      new Promise<Answer>((resolve, reject) => {
        const call = (client as unknown as { ServerReflectionInfo(): grpc.ClientDuplexStream<object, Answer> }).ServerReflectionInfo();
        call.on("data", (answer: Answer) => {
          resolve(answer);
          call.end();
        });
        call.on("error", reject);
        call.write(request);
      });
    try {
      const names = (await ask({ listServices: "" })).listServicesResponse?.service.map((s) => s.name) ?? [];
      expect(names).toEqual(expect.arrayContaining(["lf.a2a.v1.A2AService", "a2a.v1.A2AService"]));
      for (const [symbol, rpc] of [
        ["a2a.v1.A2AService", "TaskSubscription"],
        ["lf.a2a.v1.A2AService", "SubscribeToTask"],
      ] as const) {
        const answer = await ask({ fileContainingSymbol: symbol });
        expect(answer.errorResponse).toBeUndefined();
        expect(Buffer.concat(answer.fileDescriptorResponse?.fileDescriptorProto ?? []).toString("latin1")).toContain(rpc);
      }
    } finally {
      client.close();
      await agent.close();
    }
  });
});

describe("the startup check of the card's interfaces covers its 0.3 form", () => {
  it("a 0.3 interface whose binding is not served to 0.3 clients is a startup error naming it", async () => {
    // The 1.0 card carries a 0.3 `additionalInterfaces` entry of its own (the dual card keeps a field the card has): gRPC, not served.
    const started = startCompatAgent("node", { card: { additionalInterfaces: [{ url: "127.0.0.1:1", transport: "GRPC" }] } });
    await expect(started).rejects.toThrow(/the agent card's 0\.3\.0 form lists a GRPC interface \(127\.0\.0\.1:1\) that is not served to 0\.3 clients \(served to them: JSONRPC\)/);
  });

  it("a card listing HTTP+JSON and gRPC serves 0.3 on both: nothing to refuse", async () => {
    const agent = await startCompatAgent("node", { bindings: ["HTTP+JSON", "GRPC"] });
    await agent.close();
  });
});

describe("one task, a 0.3 and a 1.0 client on different bindings", () => {
  let agent: CompatAgent;
  beforeAll(async () => {
    agent = await startCompatAgent("express", { bindings: ["HTTP+JSON", "GRPC"] });
  });
  afterAll(async () => agent.close());

  for (const [b03, b1] of [
    ["HTTP+JSON", "GRPC"],
    ["GRPC", "HTTP+JSON"],
    ["JSONRPC", "GRPC"],
  ] as const) {
    it(`0.3 over ${b03} starts a stream; 1.0 over ${b1} subscribes and cancels; both streams end canceled, in their own shapes`, async () => {
      const c03 = await clientOf(agent, "0.3.0", b03);
      const c1 = await clientOf(agent, "1.0.1", b1);
      const stream = c03.stream("message/stream", send03("slow"));
      const first = unwrap((await stream.next()).value);
      expect(first.kind).toBe("task");
      const taskId = String(first.id);
      const watcher = drain(c1.stream("SubscribeToTask", { id: taskId }));
      await new Promise((resolve) => setTimeout(resolve, 50));
      const canceled = (await c1.call("CancelTask", { id: taskId })) as Json;
      expect(canceled.status).toMatchObject({ state: "TASK_STATE_CANCELED" });
      const seen1 = (await watcher).map(unwrap);
      expect(stateOf(seen1.at(-1))).toBe("canceled");
      expect(String((seen1.at(-1)?.status as Json).state)).toBe("TASK_STATE_CANCELED");
      const rest03 = (await drain(stream)).map(unwrap);
      expect(rest03.at(-1)).toMatchObject({ kind: "status-update", final: true, status: { state: "canceled" } });
      // The 0.3 client reads the task the 1.0 client canceled; cancelling again is TaskNotCancelableError in 0.3 too.
      expect(((await c03.call("tasks/get", { id: taskId })) as Json).status).toMatchObject({ state: "canceled" });
      await expect(c03.call("tasks/cancel", { id: taskId })).rejects.toMatchObject({ code: -32002 });
    });
  }
});

// =====================================================================================================
// The official 0.3 SDK (@a2a-js/sdk 0.3.14) against the compat agent

for (const framework of FRAMEWORKS) {
  describe(`@a2a-js/sdk 0.3.14's REST client against a compat agent (${framework})`, () => {
    let agent: CompatAgent;
    let client: SdkClient;
    const log: Array<Promise<Captured>> = [];
    const requests: string[] = [];
    beforeAll(async () => {
      agent = await startCompatAgent(framework, { bindings: ["HTTP+JSON", "GRPC"] });
      const capture = capturingRestFetch(log, await modules("0.3.0"), agent.restUrl);
      const fetchImpl = ((input: string | URL | Request, init?: RequestInit) => {
        requests.push(`${init?.method ?? "GET"} ${String(input)}`);
        return String(input).startsWith(agent.restUrl) ? capture(String(input), init ?? {}) : fetch(input, init);
      }) as typeof fetch;
      // Only the REST transport: the card's preferredTransport is JSON-RPC, which the SDK would otherwise pick.
      const factory = new ClientFactory({ transports: [new RestTransportFactory({ fetchImpl })], cardResolver: new DefaultAgentCardResolver({ fetchImpl }) });
      client = await factory.createFromUrl(agent.baseUrl);
    });
    afterAll(async () => agent.close());
    const checkAll = async () => {
      const { checked, problems } = await checkCaptured("0.3.0", log);
      expect(problems).toEqual([]);
      expect(checked).toBeGreaterThan(0);
    };

    it("finds HTTP+JSON in additionalInterfaces and calls 0.3's routes (…/v1/message:send), no A2A-Version", async () => {
      const reply = (await client.sendMessage({ message: userMessage("hello") })) as Message;
      expect(reply.kind).toBe("message");
      expect(textOf(reply)).toBe("hello back");
      expect(requests).toContain(`POST ${agent.restUrl}/v1/message:send`);
      await checkAll();
    });

    it("task, get with historyLength, stream, resubscribe and cancel; an unknown id is TaskNotFoundError", async () => {
      const task = (await client.sendMessage({ message: userMessage("task") })) as Task;
      expect(task.status.state).toBe("completed");
      expect((await client.getTask({ id: task.id, historyLength: 1 })).history).toHaveLength(1);
      await expect(client.getTask({ id: "no-such-task" })).rejects.toBeInstanceOf(TaskNotFoundError);
      const story = (await drain(client.sendMessageStream({ message: userMessage("stream") })))
        .filter((e) => e.kind === "artifact-update")
        .map((e) => textOf((e as { artifact: unknown }).artifact))
        .join("");
      expect(story).toBe("once upon a time");
      const slow = client.sendMessageStream({ message: userMessage("slow") });
      const first = (await slow.next()).value as Task;
      const joined = drain(client.resubscribeTask({ id: first.id }));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect((await client.cancelTask({ id: first.id })).status.state).toBe("canceled");
      expect(((await joined).at(-1) as { status: { state: string } }).status.state).toBe("canceled");
      await drain(slow);
      await checkAll();
    });

    it("push configs: set, get, list, delete", async () => {
      const task = (await client.sendMessage({ message: userMessage("ask") })) as Task;
      await client.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig: { id: "cfg", url: "http://127.0.0.1:9/hook", token: "tok" } });
      expect(await client.getTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: "cfg" })).toMatchObject({ pushNotificationConfig: { token: "tok" } });
      expect((await client.listTaskPushNotificationConfig({ id: task.id })).map((c) => c.pushNotificationConfig.id)).toEqual(["cfg"]);
      await client.deleteTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: "cfg" });
      expect(await client.listTaskPushNotificationConfig({ id: task.id })).toEqual([]);
      await checkAll();
    });
  });
}

describe("@a2a-js/sdk 0.3.14's gRPC client against a compat agent (0.3's a2a.v1.A2AService)", () => {
  let agent: CompatAgent;
  let client: SdkClient;
  beforeAll(async () => {
    agent = await startCompatAgent("node", { bindings: ["HTTP+JSON", "GRPC"] });
    const factory = new ClientFactory({ transports: [new GrpcTransportFactory({ grpcChannelCredentials: grpc.credentials.createInsecure() })] });
    client = await factory.createFromUrl(agent.baseUrl);
  });
  afterAll(async () => agent.close());

  it("finds GRPC in additionalInterfaces: send, task with get, stream, cancel; an unknown id is TaskNotFoundError", async () => {
    const reply = (await client.sendMessage({ message: userMessage("hello") })) as Message;
    expect(textOf(reply)).toBe("hello back");
    const task = (await client.sendMessage({ message: userMessage("task") })) as Task;
    expect(task.status.state).toBe("completed");
    expect((await client.getTask({ id: task.id })).id).toBe(task.id);
    await expect(client.getTask({ id: "no-such-task" })).rejects.toBeInstanceOf(TaskNotFoundError);
    const story = (await drain(client.sendMessageStream({ message: userMessage("stream") })))
      .filter((e) => e.kind === "artifact-update")
      .map((e) => textOf((e as { artifact: unknown }).artifact))
      .join("");
    expect(story).toBe("once upon a time");
    const slow = client.sendMessageStream({ message: userMessage("slow") });
    const first = (await slow.next()).value as Task;
    expect((await client.cancelTask({ id: first.id })).status.state).toBe("canceled");
    await drain(slow);
  });
});
