import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capturingFetch, capturingRestFetch, checkCaptured, FRAMEWORKS, modules, startWebhookReceiver, TEST_TOKEN, type Captured, type WebhookReceiver } from "../support/servers.js";
import { compatOutput, startCompatAgent, type CompatAgent, type CompatOutput } from "../support/compat/agent.js";
import { validator } from "../support/compat/mapping.js";

/**
 * The protocol suite against one compat agent (issue 10: `generate --spec 1.0.1 --compat 0.3.0`, one
 * `createA2AServer`, one executor, one store), run twice: with the generated 0.3.0 client (no A2A-Version
 * header: 0.3, specification-1.0.1.md §3.2.6) and with the generated 1.0.1 client (`A2A-Version: 1.0`), on
 * every binding (issue 9): JSON-RPC and HTTP+JSON on all four adapters (0.3's REST routes are `/v1/…`
 * beside 1.0's, specification-0.3.0.md §3.5.6), and gRPC on grpc-js (0.3's `a2a.v1.A2AService` beside
 * 1.0's `lf.a2a.v1.A2AService` on one port). Every response body and SSE event is checked against the
 * caller's version's schema by an independent Ajv (test/support/servers.ts; 0.3's REST wire against its
 * proto too; gRPC results as the client decoded them), so a 0.3 client never sees a 1.0 shape, nor the reverse.
 */
type Json = Record<string, unknown>;

const canon = (value: unknown) => String(value).replace(/^(TASK_STATE_|ROLE_)/, "").toLowerCase().replace(/_/g, "-");
const stateOf = (value: unknown) => canon(((value as Json).status as Json | undefined)?.state);
const unwrap = (value: unknown): Json => {
  const v = value as Json;
  const keys = v && typeof v === "object" ? Object.keys(v) : [];
  return keys.length === 1 && ["task", "message", "statusUpdate", "artifactUpdate"].includes(keys[0] as string) ? (v[keys[0] as string] as Json) : v;
};
const textOf = (message: unknown) => (((message as Json | undefined)?.parts as Json[] | undefined) ?? []).map((p) => String(p.text ?? "")).join("");

interface Client {
  card?: Json;
  transport?: { binding: string };
  call(method: string, params: unknown): Promise<unknown>;
  stream(method: string, params: unknown): AsyncGenerator<unknown, void, undefined>;
}

/** The method names and params shapes of each caller's version. */
const CALLERS = {
  "0.3.0": {
    send: "message/send",
    stream: "message/stream",
    get: "tasks/get",
    cancel: "tasks/cancel",
    resubscribe: "tasks/resubscribe",
    pushSet: "tasks/pushNotificationConfig/set",
    pushGet: "tasks/pushNotificationConfig/get",
    pushList: "tasks/pushNotificationConfig/list",
    pushDelete: "tasks/pushNotificationConfig/delete",
    extendedCard: "agent/getAuthenticatedExtendedCard",
    pushSetParams: (taskId: string, config: Json) => ({ taskId, pushNotificationConfig: config }),
    configOf: (result: unknown) => (result as Json).pushNotificationConfig as Json,
    pushGetParams: (taskId: string, configId: string) => ({ id: taskId, pushNotificationConfigId: configId }),
    listParams: (taskId: string) => ({ id: taskId }),
    listed: (result: unknown) => result as Json[],
    deleteParams: (taskId: string, configId: string) => ({ id: taskId, pushNotificationConfigId: configId }),
  },
  "1.0.1": {
    send: "SendMessage",
    stream: "SendStreamingMessage",
    get: "GetTask",
    cancel: "CancelTask",
    resubscribe: "SubscribeToTask",
    pushSet: "CreateTaskPushNotificationConfig",
    pushGet: "GetTaskPushNotificationConfig",
    pushList: "ListTaskPushNotificationConfigs",
    pushDelete: "DeleteTaskPushNotificationConfig",
    extendedCard: "GetExtendedAgentCard",
    pushSetParams: (taskId: string, config: Json) => ({ taskId, ...config }),
    configOf: (result: unknown) => result as Json,
    pushGetParams: (taskId: string, configId: string) => ({ taskId, id: configId }),
    listParams: (taskId: string) => ({ taskId }),
    // gRPC: an empty repeated field is not serialized (proto3): no `configs` is none.
    listed: (result: unknown) => ((result as Json).configs as Json[] | undefined) ?? [],
    deleteParams: (taskId: string, configId: string) => ({ taskId, id: configId }),
  },
} as const;

let out: CompatOutput;
beforeAll(async () => {
  out = await compatOutput();
}, 120_000);

/** A client whose every result and streamed event is logged as the JSON-RPC response it would be (for gRPC, which no fetch sees). */
function recording(client: Client, log: Array<Promise<Captured>>): Client {
  const record = (method: string, result: unknown) => log.push(Promise.resolve({ method, status: 200, bodies: [{ jsonrpc: "2.0", id: 1, result }] }));
  return {
    ...(client.card ? { card: client.card } : {}),
    ...(client.transport ? { transport: client.transport } : {}),
    call: async (method, params) => {
      const result = await client.call(method, params);
      record(method, result);
      return result;
    },
    stream: async function* (method, params) {
      for await (const event of client.stream(method, params)) {
        record(method, event);
        yield event;
      }
    },
  };
}

const BINDINGS = ["JSONRPC", "HTTP+JSON", "GRPC"] as const;

for (const caller of ["0.3.0", "1.0.1"] as const)
for (const binding of BINDINGS) {
  const v1 = caller === "1.0.1";
  const m = CALLERS[caller];
  // gRPC has its own server (grpc-js): one run; the HTTP bindings run on every adapter.
  const frameworks = binding === "GRPC" ? (["node"] as const) : FRAMEWORKS;
  describe(`a compat agent called by the generated ${caller} client${binding === "JSONRPC" ? "" : ` over ${binding}`}`, () => {
    for (const framework of frameworks) {
      describe(binding === "GRPC" ? "grpc-js" : framework, () => {
        let agent: CompatAgent;
        let client: Client;
        const log: Array<Promise<Captured>> = [];
        const sendParams = (text: string, ids: { taskId?: string; contextId?: string } = {}) =>
          (v1 ? out.client.A2AClient.sendParams(text, ids) : out.compatClient.A2AClient.sendParams(text, ids)) as unknown;
        beforeAll(async () => {
          agent = await startCompatAgent(framework, { extendedCard: { name: "Extended" }, ...(binding === "JSONRPC" ? {} : { bindings: ["HTTP+JSON", "GRPC"] as const }) });
          const Client = (v1 ? out.client.A2AClient : out.compatClient.A2AClient) as unknown as { fromAgentUrl(url: string, options: object): Promise<Client> };
          const transports = binding === "HTTP+JSON" ? [(v1 ? out.client : out.compatClient).restTransport] : binding === "GRPC" ? [(v1 ? out.grpcClient : out.compatGrpcClient).grpcTransport] : [];
          const fetchImpl = binding === "HTTP+JSON" ? capturingRestFetch(log, await modules(caller), agent.restUrl) : capturingFetch(log);
          const made = await Client.fromAgentUrl(agent.baseUrl, { fetch: fetchImpl, auth: { type: "bearer", token: TEST_TOKEN }, transports, binding, validation: (v1 ? out.validation : out.compatValidation).clientValidation, trustedOrigins: [agent.grpcTarget] });
          client = binding === "GRPC" ? recording(made, log) : made;
        });
        afterAll(async () => {
          await agent.close();
        });
        const checkAll = async () => {
          const { checked, problems } = await checkCaptured(caller, log);
          expect(problems).toEqual([]);
          return checked;
        };

        it("reads the dual card and calls the endpoint of its version", async () => {
          expect(client.card?.name).toBe("Test Agent");
          const interfaces = client.card?.supportedInterfaces as Json[];
          expect(client.card?.url).toBe(agent.rpcUrl);
          expect(client.transport?.binding).toBe(binding);
          if (binding === "JSONRPC") {
            expect(interfaces.map((i) => i.protocolVersion)).toEqual(["1.0", "0.3"]);
            return;
          }
          // Every binding served to 0.3 clients, in both forms (1.0 supportedInterfaces; 0.3 additionalInterfaces, §5.6).
          expect(interfaces.map((i) => `${String(i.protocolBinding)} ${String(i.protocolVersion)}`)).toEqual(["JSONRPC 1.0", "JSONRPC 0.3", "HTTP+JSON 1.0", "HTTP+JSON 0.3", "GRPC 1.0", "GRPC 0.3"]);
          expect(client.card?.preferredTransport).toBe("JSONRPC");
          expect(client.card?.additionalInterfaces).toEqual([
            { url: agent.rpcUrl, transport: "JSONRPC" },
            { url: agent.restUrl, transport: "HTTP+JSON" },
            { url: agent.grpcTarget, transport: "GRPC" },
          ]);
          const v03 = validator("0.3.0", "AgentCard");
          expect(v03(client.card), JSON.stringify(v03.errors)).toBe(true);
        });

        it("send: a direct message reply", async () => {
          const result = unwrap(await client.call(m.send, sendParams("hello")));
          expect("parts" in result && !("status" in result)).toBe(true);
          expect(canon(result.role)).toBe("agent");
          expect(textOf(result)).toBe("hello back");
          if (!v1) expect(result.kind).toBe("message");
          expect(await checkAll()).toBeGreaterThan(0);
        });

        it("send: a task with an artifact", async () => {
          const task = unwrap(await client.call(m.send, sendParams("task")));
          expect(stateOf(task)).toBe("completed");
          expect(textOf((task.artifacts as Json[])[0])).toBe("the result");
          expect(textOf((task.status as Json).message)).toBe("done");
          expect(task.kind).toBe(v1 ? undefined : "task");
          await checkAll();
        });

        it("multi-turn: input-required, then the follow-up completes the same task", async () => {
          const first = unwrap(await client.call(m.send, sendParams("ask")));
          expect(stateOf(first)).toBe("input-required");
          const second = unwrap(await client.call(m.send, sendParams("Bob", { taskId: String(first.id), contextId: String(first.contextId) })));
          expect(second.id).toBe(first.id);
          expect(stateOf(second)).toBe("completed");
          expect(textOf((second.status as Json).message)).toBe("got: Bob");
          expect((second.history as Json[]).filter((h) => canon(h.role) === "user").map(textOf)).toEqual(["ask", "Bob"]);
          await checkAll();
        });

        it("stream: the task, then status and artifact updates with appended chunks, ending on the final one", async () => {
          const events: Json[] = [];
          for await (const event of client.stream(m.stream, sendParams("stream"))) events.push(unwrap(event));
          const artifactEvents = events.filter((e) => "artifact" in e);
          expect(artifactEvents.map((e) => textOf(e.artifact))).toEqual(["once ", "upon ", "a time"]);
          // gRPC: proto3 does not serialize a bool at its default (`append: false` arrives absent, i.e. false).
          expect(artifactEvents.map((e) => (binding === "GRPC" ? e.append === true : e.append))).toEqual([false, true, true]);
          const last = events.at(-1) as Json;
          expect(stateOf(last)).toBe("completed");
          if (!v1) {
            expect(events[0]?.kind).toBe("task");
            expect(last.final).toBe(true);
            expect(events.slice(0, -1).every((e) => e.final !== true)).toBe(true);
          }
          const task = (await client.call(m.get, { id: String(last.taskId) })) as Json;
          expect(textOf((task.artifacts as Json[])[0])).toBe("once upon a time");
          await checkAll();
        });

        it("get: historyLength trims the history; an unknown task is TaskNotFoundError", async () => {
          const task = unwrap(await client.call(m.send, sendParams("task")));
          const full = (await client.call(m.get, { id: task.id })) as Json;
          expect((full.history as Json[]).length).toBeGreaterThanOrEqual(2);
          const trimmed = (await client.call(m.get, { id: task.id, historyLength: 1 })) as Json;
          expect(trimmed.history as Json[]).toHaveLength(1);
          const missing = (await client.call(m.get, { id: "no-such-task" }).catch((e: unknown) => e)) as { code: number; data?: unknown };
          expect(missing.code).toBe(-32001);
          // 1.0 errors carry google.rpc details (1.0.1 §3.3.2); 0.3 errors the data as it is (JSON-RPC, and 0.3's REST error object).
          if (v1 && binding !== "GRPC") expect((missing.data as Json[])[0]?.["@type"]).toBe("type.googleapis.com/google.rpc.ErrorInfo");
          else if (!v1 && binding !== "GRPC") expect(missing.data).toEqual({ taskId: "no-such-task" });
          await checkAll();
        });

        it("cancel: a working task is canceled (its stream ends); a canceled one is not cancelable", async () => {
          const stream = client.stream(m.stream, sendParams("slow"));
          const first = unwrap((await stream.next()).value);
          const taskId = String(first.taskId ?? first.id);
          const canceled = (await client.call(m.cancel, { id: taskId })) as Json;
          expect(stateOf(canceled)).toBe("canceled");
          const rest: Json[] = [];
          for await (const event of stream) rest.push(unwrap(event));
          expect(stateOf(rest.at(-1))).toBe("canceled");
          await expect(client.call(m.cancel, { id: taskId })).rejects.toMatchObject({ code: -32002 });
          await checkAll();
        });

        it("resubscribe: a second stream joins a running task and sees its end", async () => {
          const stream = client.stream(m.stream, sendParams("slow"));
          const first = unwrap((await stream.next()).value);
          const taskId = String(first.taskId ?? first.id);
          const reader = (async () => {
            const seen: Json[] = [];
            for await (const event of client.stream(m.resubscribe, { id: taskId })) seen.push(unwrap(event));
            return seen;
          })();
          await new Promise((resolve) => setTimeout(resolve, 50));
          await client.call(m.cancel, { id: taskId });
          const seen = await reader;
          expect(seen[0]?.id).toBe(taskId);
          expect(stateOf(seen.at(-1))).toBe("canceled");
          for await (const _ of stream) void _;
          await checkAll();
        });

        describe("push notifications", () => {
          let hook: WebhookReceiver;
          beforeAll(async () => {
            hook = await startWebhookReceiver();
          });
          afterAll(async () => {
            await hook.close();
          });

          it(`config set/get/list/delete; the webhook gets the task in ${caller}'s shape with the token`, async () => {
            const first = unwrap(await client.call(m.send, sendParams("ask")));
            const taskId = String(first.id);
            const set = (await client.call(m.pushSet, m.pushSetParams(taskId, { id: "cfg-1", url: hook.url, token: "tok-123" }))) as Json;
            expect(m.configOf(set)).toMatchObject({ id: "cfg-1", url: hook.url, token: "tok-123" });
            const got = (await client.call(m.pushGet, m.pushGetParams(taskId, "cfg-1"))) as Json;
            expect(m.configOf(got).token).toBe("tok-123");
            expect(m.listed(await client.call(m.pushList, m.listParams(taskId)))).toHaveLength(1);
            await client.call(m.send, sendParams("Ann", { taskId, contextId: String(first.contextId) }));
            const call = await hook.waitFor((body) => unwrap(body).id === taskId && canon((unwrap(body).status as Json).state) === "completed");
            expect(call.headers["x-a2a-notification-token"]).toBe("tok-123");
            if (v1) {
              // 1.0: a StreamResponse as application/a2a+json.
              expect(call.headers["content-type"]).toBe("application/a2a+json");
              expect(Object.keys(call.body)).toEqual(["task"]);
            } else {
              // 0.3 §9.5: the Task itself, as application/json, in 0.3's shape.
              expect(call.headers["content-type"]).toBe("application/json");
              expect(call.body.kind).toBe("task");
              expect((call.body.status as Json).state).toBe("completed");
            }
            await client.call(m.pushDelete, m.deleteParams(taskId, "cfg-1"));
            expect(m.listed(await client.call(m.pushList, m.listParams(taskId)))).toHaveLength(0);
            await checkAll();
          });
        });

        it("extended card", async () => {
          const card = (await client.call(m.extendedCard, v1 ? {} : undefined)) as Json;
          expect(card.name).toBe("Extended");
          // A 0.3 client gets the extended card with the 0.3 fields it needs too.
          if (!v1) expect(card.url).toBe(agent.rpcUrl);
          await checkAll();
        });
      });
    }
  });
}
