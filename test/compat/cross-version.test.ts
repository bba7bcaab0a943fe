import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { convertCard } from "../../src/card/convert.js";
import { bundledIR } from "../../src/load/protocol.js";
import { independentValidator } from "../support/project.js";
import { startWebhookReceiver, type WebhookReceiver } from "../support/servers.js";
import { compatOutput, rpc, startCompatAgent, type CompatAgent } from "../support/compat/agent.js";

/**
 * One agent, two versions, one store (issue 10): a task one version's client starts is seen, continued
 * and canceled by the other's; subscribers of both versions to one task each get every event in their own
 * shape; push configs notify in the shape of the client that registered them; mixed versions and unknown
 * versions are refused precisely (specification-1.0.1.md §3.2.6: no A2A-Version means 0.3; §3.3.2
 * VersionNotSupportedError). Raw JSON-RPC over fetch, each body checked against its version's schema.
 */
type Json = Record<string, unknown>;

const V03 = {} as Record<string, string>;
const V10 = { "A2A-Version": "1.0" };

const message03 = (text: string, ids: Json = {}) => ({ message: { kind: "message", messageId: crypto.randomUUID(), role: "user", parts: [{ kind: "text", text }], ...ids } });
const message10 = (text: string, ids: Json = {}) => ({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }], ...ids } });

/** The result of a response checked against the version's response definition (an independent Ajv). */
function checked(version: "0.3.0" | "1.0.1", definition: string, body: Json): Json {
  const validate = independentValidator(version, definition);
  expect(validate(body), `${definition}: ${JSON.stringify(validate.errors?.slice(0, 3))} in ${JSON.stringify(body).slice(0, 400)}`).toBe(true);
  expect(body.error).toBeUndefined();
  return body.result as Json;
}

describe("cross-version on one compat agent", () => {
  let agent: CompatAgent;
  let hook03: WebhookReceiver;
  let hook10: WebhookReceiver;
  beforeAll(async () => {
    agent = await startCompatAgent("node");
    hook03 = await startWebhookReceiver();
    hook10 = await startWebhookReceiver();
  }, 120_000);
  afterAll(async () => {
    await agent.close();
    await hook03.close();
    await hook10.close();
  });

  it("a task a 0.3 client starts is seen (GetTask, ListTasks), continued and finished by a 1.0 client", async () => {
    const started = checked("0.3.0", "SendMessageSuccessResponse", (await rpc(agent.rpcUrl, "message/send", message03("ask"), V03)).body);
    expect(started).toMatchObject({ kind: "task", status: { state: "input-required" } });
    const taskId = String(started.id);
    const seen = checked("1.0.1", "GetTaskRpcResponse", (await rpc(agent.rpcUrl, "GetTask", { id: taskId }, V10)).body);
    expect(seen).toMatchObject({ id: taskId, status: { state: "TASK_STATE_INPUT_REQUIRED" } });
    const listed = checked("1.0.1", "ListTasksRpcResponse", (await rpc(agent.rpcUrl, "ListTasks", { contextId: started.contextId }, V10)).body);
    expect((listed.tasks as Json[]).map((t) => t.id)).toEqual([taskId]);
    const continued = checked("1.0.1", "SendMessageRpcResponse", (await rpc(agent.rpcUrl, "SendMessage", message10("Bob", { taskId, contextId: started.contextId }), V10)).body);
    expect(continued).toMatchObject({ task: { id: taskId, status: { state: "TASK_STATE_COMPLETED" } } });
    // And the 0.3 client sees the whole conversation in its shape.
    const after = checked("0.3.0", "GetTaskSuccessResponse", (await rpc(agent.rpcUrl, "tasks/get", { id: taskId }, V03)).body);
    expect((after.history as Json[]).map((m) => [m.role, (m.parts as Json[])[0]?.text])).toEqual([
      ["user", "ask"],
      ["agent", "what is your name?"],
      ["user", "Bob"],
      ["agent", "got: Bob"],
    ]);
  });

  it("a task a 1.0 client starts is continued by a 0.3 client and canceled by it; the 1.0 client sees it canceled", async () => {
    const started = checked("1.0.1", "SendMessageRpcResponse", (await rpc(agent.rpcUrl, "SendMessage", message10("ask"), V10)).body);
    const task = started.task as Json;
    const taskId = String(task.id);
    const continued = checked("0.3.0", "SendMessageSuccessResponse", (await rpc(agent.rpcUrl, "message/send", message03("ask", { taskId, contextId: task.contextId }), V03)).body);
    expect(continued).toMatchObject({ kind: "task", id: taskId, status: { state: "input-required" } });
    const canceled = checked("0.3.0", "CancelTaskSuccessResponse", (await rpc(agent.rpcUrl, "tasks/cancel", { id: taskId }, V03)).body);
    expect(canceled).toMatchObject({ kind: "task", id: taskId, status: { state: "canceled" } });
    const seen = checked("1.0.1", "GetTaskRpcResponse", (await rpc(agent.rpcUrl, "GetTask", { id: taskId }, V10)).body);
    expect(seen).toMatchObject({ status: { state: "TASK_STATE_CANCELED" } });
    // Canceled is terminal for both: the 1.0 client's cancel is TaskNotCancelableError.
    const again = (await rpc(agent.rpcUrl, "CancelTask", { id: taskId }, V10)).body;
    expect((again.error as Json).code).toBe(-32002);
  });

  it("a task a 0.3 client streams is canceled by a 1.0 client: the 0.3 stream ends on canceled with final: true", async () => {
    const stream = rpc(agent.rpcUrl, "message/stream", message03("slow"), V03);
    const taskId = await waitForTask(agent, "working slowly");
    const canceled = checked("1.0.1", "CancelTaskRpcResponse", (await rpc(agent.rpcUrl, "CancelTask", { id: taskId }, V10)).body);
    expect(canceled).toMatchObject({ id: taskId, status: { state: "TASK_STATE_CANCELED" } });
    const events = ((await stream).body.events as Json[]).map((e) => checked("0.3.0", "SendStreamingMessageSuccessResponse", e));
    expect(events.at(-1)).toMatchObject({ kind: "status-update", taskId, final: true, status: { state: "canceled" } });
  });

  it("a 0.3 subscriber and a 1.0 subscriber of one task both get every event, each in its own shape", async () => {
    const stream = rpc(agent.rpcUrl, "SendStreamingMessage", message10("slow"), V10);
    const taskId = await waitForTask(agent, "working slowly");
    const sub03 = rpc(agent.rpcUrl, "tasks/resubscribe", { id: taskId }, V03);
    const sub10 = rpc(agent.rpcUrl, "SubscribeToTask", { id: taskId }, V10);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await rpc(agent.rpcUrl, "tasks/cancel", { id: taskId }, V03);
    const events03 = ((await sub03).body.events as Json[]).map((e) => checked("0.3.0", "SendStreamingMessageSuccessResponse", e));
    const events10 = ((await sub10).body.events as Json[]).map((e) => checked("1.0.1", "SendStreamingMessageRpcResponse", e));
    await stream;
    // The same events: the task, then the cancellation.
    expect(events03.map((e) => [e.kind, e.kind === "task" ? e.id : e.taskId, (e.status as Json).state])).toEqual([
      ["task", taskId, "working"],
      ["status-update", taskId, "canceled"],
    ]);
    expect(events10.map((e) => [Object.keys(e)[0], ((Object.values(e)[0] as Json).status as Json).state])).toEqual([
      ["task", "TASK_STATE_WORKING"],
      ["statusUpdate", "TASK_STATE_CANCELED"],
    ]);
    expect(events03.at(-1)?.final).toBe(true);
  });

  it("push: a 0.3 client's webhook gets 0.3 payloads and a 1.0 client's 1.0 payloads, for the same task", async () => {
    const started = checked("0.3.0", "SendMessageSuccessResponse", (await rpc(agent.rpcUrl, "message/send", message03("ask"), V03)).body);
    const taskId = String(started.id);
    checked("0.3.0", "SetTaskPushNotificationConfigSuccessResponse", (await rpc(agent.rpcUrl, "tasks/pushNotificationConfig/set", { taskId, pushNotificationConfig: { id: "old", url: hook03.url, token: "t03" } }, V03)).body);
    checked("1.0.1", "CreateTaskPushNotificationConfigRpcResponse", (await rpc(agent.rpcUrl, "CreateTaskPushNotificationConfig", { taskId, id: "new", url: hook10.url, token: "t10" }, V10)).body);
    // Each version lists both configs, in its own shape: the recorded version is not part of either.
    const list10 = checked("1.0.1", "ListTaskPushNotificationConfigsRpcResponse", (await rpc(agent.rpcUrl, "ListTaskPushNotificationConfigs", { taskId }, V10)).body);
    expect((list10.configs as Json[]).map((c) => Object.keys(c).sort())).toEqual([
      ["id", "taskId", "token", "url"],
      ["id", "taskId", "token", "url"],
    ]);
    const list03 = checked("0.3.0", "ListTaskPushNotificationConfigSuccessResponse", (await rpc(agent.rpcUrl, "tasks/pushNotificationConfig/list", { id: taskId }, V03)).body) as unknown as Json[];
    expect(list03.map((c) => (c.pushNotificationConfig as Json).id)).toEqual(["old", "new"]);

    await rpc(agent.rpcUrl, "SendMessage", message10("Ann", { taskId, contextId: started.contextId }), V10);
    const completed = (body: Json) => {
      const task = (body.task ?? body) as Json;
      return task.id === taskId && String((task.status as Json).state).toLowerCase().includes("completed");
    };
    const to03 = await hook03.waitFor(completed);
    const to10 = await hook10.waitFor(completed);
    expect(to03.headers["x-a2a-notification-token"]).toBe("t03");
    expect(to03.headers["content-type"]).toBe("application/json");
    expect(independentValidator("0.3.0", "Task")(to03.body)).toBe(true);
    expect(to03.body).toMatchObject({ kind: "task", status: { state: "completed" } });
    expect(to10.headers["x-a2a-notification-token"]).toBe("t10");
    expect(to10.headers["content-type"]).toBe("application/a2a+json");
    expect(independentValidator("1.0.1", "StreamResponse")(to10.body)).toBe(true);
    expect(to10.body).toMatchObject({ task: { status: { state: "TASK_STATE_COMPLETED" } } });
  });

  it("a push config sent with a 0.3 message/send notifies in 0.3's shape", async () => {
    const params = { ...message03("ask"), configuration: { acceptedOutputModes: ["text/plain"], pushNotificationConfig: { url: hook03.url, token: "inline" } } };
    const started = checked("0.3.0", "SendMessageSuccessResponse", (await rpc(agent.rpcUrl, "message/send", params, V03)).body);
    await rpc(agent.rpcUrl, "SendMessage", message10("Zed", { taskId: started.id, contextId: started.contextId }), V10);
    const call = await hook03.waitFor((body) => body.id === started.id && (body.status as Json).state === "completed");
    expect(call.headers["x-a2a-notification-token"]).toBe("inline");
    expect(call.body.kind).toBe("task");
  });

  it("a 0.3 client that walks away from a stream releases its subscription while the task still runs", async () => {
    const out = await compatOutput();
    const client = await out.compatClient.A2AClient.fromAgentUrl(agent.baseUrl);
    const stream = client.sendStreamingMessage(out.compatClient.A2AClient.sendParams("slow"));
    const first = (await stream.next()).value as Json;
    const taskId = String(first.id ?? first.taskId);
    await stream.next(); // working: nothing more comes until the task is canceled or ends
    expect(agent.core.bus.listenerCount(taskId)).toBe(1);
    await stream.return(undefined);
    for (let i = 0; i < 100 && agent.core.bus.listenerCount(taskId) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(agent.core.bus.listenerCount(taskId)).toBe(0);
    // Released by the disconnect, not by the task ending: it is still working.
    const task = checked("1.0.1", "GetTaskRpcResponse", (await rpc(agent.rpcUrl, "GetTask", { id: taskId }, V10)).body);
    expect(task).toMatchObject({ status: { state: "TASK_STATE_WORKING" } });
    await rpc(agent.rpcUrl, "CancelTask", { id: taskId }, V10);
  });

  describe("bad input", () => {
    it("a 1.0 header with a 0.3 method is an invalid request naming both, in 1.0's error form", async () => {
      const { body } = await rpc(agent.rpcUrl, "message/send", message03("hello"), V10);
      const error = body.error as Json;
      expect(error.code).toBe(-32600);
      expect(error.message).toContain("message/send is an A2A 0.3 method");
      expect(error.message).toContain("A2A-Version 1.0");
      expect(error.message).toContain("SendMessage");
      expect((error.data as Json[])[0]?.["@type"]).toBe("type.googleapis.com/google.rpc.ErrorInfo");
    });

    it("a 1.0 method without a header (0.3, §3.2.6) or with A2A-Version: 0.3 is an invalid request naming the fix, in 0.3's form", async () => {
      for (const headers of [V03, { "A2A-Version": "0.3" }]) {
        const { body } = await rpc(agent.rpcUrl, "SendMessage", message10("hello"), headers);
        const error = body.error as Json;
        expect(error.code).toBe(-32600);
        expect(error.message).toContain("SendMessage is an A2A 1.0 method");
        expect(error.message).toContain("A2A-Version: 1.0");
        expect(error.data).toEqual({ method: "SendMessage" });
        expect(independentValidator("0.3.0", "JSONRPCErrorResponse")(body)).toBe(true);
      }
      // ListTasks has no 0.3 counterpart: the same answer.
      const list = (await rpc(agent.rpcUrl, "ListTasks", {}, V03)).body.error as Json;
      expect(list.code).toBe(-32600);
      expect(list.message).toContain("ListTasks is an A2A 1.0 method");
    });

    it("an unknown A2A-Version is VersionNotSupportedError (-32009) listing the versions served", async () => {
      for (const version of ["2.0", "0.2", "banana"]) {
        const { body } = await rpc(agent.rpcUrl, "SendMessage", message10("hello"), { "A2A-Version": version });
        const error = body.error as Json;
        expect(error.code).toBe(-32009);
        expect(error.message).toContain(`A2A-Version ${version} is not supported`);
        expect(error.message).toContain("1.0 and 0.3");
        const info = (error.data as Json[])[0] as Json;
        expect(info.reason).toBe("VERSION_NOT_SUPPORTED");
        expect(JSON.parse(String((info.metadata as Json).supported))).toEqual(["1.0", "0.3"]);
      }
      // The query parameter counts as the header does.
      const query = await fetch(`${agent.rpcUrl}?A2A-Version=3.1`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } }) });
      expect((((await query.json()) as Json).error as Json).code).toBe(-32009);
    });

    it("a 0.3 request invalid in 0.3's schema is InvalidParams with 0.3's issues (pointer, expected, got)", async () => {
      const { body } = await rpc(agent.rpcUrl, "message/send", { message: { kind: "message", messageId: "m", role: "robot", parts: [] } }, V03);
      const error = body.error as Json;
      expect(error.code).toBe(-32602);
      const issues = (error.data as { issues: Json[] }).issues;
      expect(issues.map((i) => i.pointer)).toContain("/params/message/role");
    });

    it("an agent without an extended card: each version's own error (0.3 AuthenticatedExtendedCardNotConfiguredError, 1.0 §3.3.4 UnsupportedOperationError)", async () => {
      const v03 = (await rpc(agent.rpcUrl, "agent/getAuthenticatedExtendedCard", undefined, V03)).body;
      expect((v03.error as Json).code).toBe(-32007);
      expect(independentValidator("0.3.0", "JSONRPCErrorResponse")(v03)).toBe(true);
      const v10 = (await rpc(agent.rpcUrl, "GetExtendedAgentCard", {}, V10)).body;
      expect((v10.error as Json).code).toBe(-32004);
    });

    it("a batch may mix versions item by item only as the header allows", async () => {
      const response = await fetch(agent.rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify([
          { jsonrpc: "2.0", id: 1, method: "message/send", params: message03("hello") },
          { jsonrpc: "2.0", id: 2, method: "SendMessage", params: message10("hello") },
        ]),
      });
      const [first, second] = (await response.json()) as Json[];
      expect((first?.result as Json).kind).toBe("message");
      expect((second?.error as Json).code).toBe(-32600);
    });
  });
});

describe("compat: false", () => {
  it("serves 1.0.1 only: a request without A2A-Version is VersionNotSupportedError, the card has no 0.3 interface", async () => {
    const agent = await startCompatAgent("node", { compat: false });
    try {
      const { body } = await rpc(agent.rpcUrl, "SendMessage", message10("hello"), V03);
      expect((body.error as Json).code).toBe(-32009);
      // 0.3's methods are not there at all.
      expect(((await rpc(agent.rpcUrl, "message/send", message03("hello"), V03)).body.error as Json).code).toBe(-32601);
      const card = (await (await fetch(`${agent.baseUrl}/.well-known/agent-card.json`)).json()) as Json;
      expect((card.supportedInterfaces as Json[]).map((i) => i.protocolVersion)).toEqual(["1.0"]);
      expect(card.url).toBeUndefined();
    } finally {
      await agent.close();
    }
  });
});

describe("security schemes on a compat agent", () => {
  const verify = (credential: { value: string }) => (credential.value === "secret" ? true : credential.value === "forbidden" ? { allow: false, status: 403 } : false);
  /** The secured 1.0 card (testCard) in 0.3's shape, as a2a-codegen's card converter writes it (compat/a2a-0.3.0/card.ts with --card). */
  const compatCard = (card: Json) => convertCard(card, bundledIR("1.0.1"), bundledIR("0.3.0")).card;

  it("one set of credentials for both versions: 401 with the challenge without them, each generated client served with them; the card's schemes in both shapes", async () => {
    const out = await compatOutput();
    const probe = await startCompatAgent("node", { auth: { verify } });
    const card03 = compatCard(probe.card);
    await probe.close();
    const agent = await startCompatAgent("node", { auth: { verify }, compat: { card: card03 } });
    try {
      const served = (await (await fetch(`${agent.baseUrl}/.well-known/agent-card.json`)).json()) as Json;
      expect(independentValidator("0.3.0", "AgentCard")(served)).toBe(true);
      expect(served).toMatchObject({ securitySchemes: { bearer: { type: "http", httpAuthSecurityScheme: { scheme: "Bearer" } } }, security: [{ bearer: [] }] });
      for (const headers of [V03, V10]) {
        const none = await fetch(agent.rpcUrl, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: headers === V10 ? "GetTask" : "tasks/get", params: { id: "x" } }) });
        expect(none.status).toBe(401);
        expect(none.headers.get("www-authenticate")).toMatch(/^Bearer realm="a2a"/);
      }
      const c03 = await out.compatClient.A2AClient.fromAgentUrl(agent.baseUrl, { auth: { type: "bearer", token: "secret" } });
      const c10 = await out.client.A2AClient.fromAgentUrl(agent.baseUrl, { auth: { type: "bearer", token: "secret" } });
      const task = await c03.sendMessage(out.compatClient.A2AClient.sendParams("ask"));
      if (task.kind !== "task") throw new Error("expected a task");
      expect((await c10.getTask({ id: task.id })).status.state).toBe("TASK_STATE_INPUT_REQUIRED");
      const forbidden = await out.compatClient.A2AClient.fromAgentUrl(agent.baseUrl, { auth: { type: "bearer", token: "forbidden" } });
      await expect(forbidden.getTask({ id: task.id })).rejects.toMatchObject({ code: -32000 });
    } finally {
      await agent.close();
    }
  });

  it("without the card's 0.3 form the schemes are in 1.0's shape only, which the generated 0.3.0 client with its schema checks refuses (why --card emits compat/…/card.ts)", async () => {
    const out = await compatOutput();
    const agent = await startCompatAgent("node", { auth: { verify } });
    try {
      await expect(out.compatClient.A2AClient.fromAgentUrl(agent.baseUrl, { auth: { type: "bearer", token: "secret" }, validation: out.compatValidation.clientValidation })).rejects.toThrow(/securitySchemes/);
    } finally {
      await agent.close();
    }
  });
});

describe("losses", () => {
  it("what a 0.3 request carries that 1.0 cannot hold reaches onLoss, with its pointer", async () => {
    const losses: Json[] = [];
    const agent = await startCompatAgent("node", { losses });
    try {
      await rpc(agent.rpcUrl, "tasks/get", { id: "x", metadata: { trace: "1" } }, V03);
      expect(losses).toContainEqual(expect.objectContaining({ direction: "toPrimary", field: "metadata", reason: "no-field", pointer: "/metadata" }));
    } finally {
      await agent.close();
    }
  });
});

/** The id of the newest task whose status message says `text` (a stream's task, found through ListTasks). */
async function waitForTask(agent: CompatAgent, text: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const listed = (await rpc(agent.rpcUrl, "ListTasks", {}, V10)).body.result as Json;
    const hit = ((listed?.tasks as Json[]) ?? []).find((t) => {
      const status = t.status as Json;
      return status.state === "TASK_STATE_WORKING" && (((status.message as Json | undefined)?.parts as Json[] | undefined)?.[0]?.text ?? "") === text;
    });
    if (hit) return String(hit.id);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no working task says "${text}"`);
}

describe("extensions on a compat agent (specification-1.0.1.md §3.2.6, §3.3.4; the 0.3 SDKs' X-A2A-Extensions)", () => {
  const GEO = "https://example.com/extensions/geolocation/v1";
  const post = (url: string, body: Json, headers: Record<string, string>) =>
    fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, ...body }) });

  it("each version's client activates a required extension in its own header and gets it echoed there; without it each is refused in its version's form", async () => {
    const agent = await startCompatAgent("node", { card: { capabilities: { streaming: true, pushNotifications: true, extensions: [{ uri: GEO, description: "Where the user is", required: true }] } } });
    try {
      const v10 = await post(agent.rpcUrl, { method: "SendMessage", params: message10("hello") }, { ...V10, "A2A-Extensions": GEO });
      const b10 = (await v10.json()) as Json;
      expect(b10.result, JSON.stringify(b10)).toBeDefined();
      expect(v10.headers.get("a2a-extensions")).toBe(GEO);
      const v03 = await post(agent.rpcUrl, { method: "message/send", params: message03("hello") }, { "X-A2A-Extensions": GEO });
      const b03 = (await v03.json()) as Json;
      expect(b03.result, JSON.stringify(b03)).toBeDefined();
      expect(v03.headers.get("x-a2a-extensions")).toBe(GEO);
      const refused10 = (await (await post(agent.rpcUrl, { method: "SendMessage", params: message10("hello") }, V10)).json()) as Json;
      expect(refused10.error).toMatchObject({ code: -32008 });
      const refused03 = (await (await post(agent.rpcUrl, { method: "message/send", params: message03("hello") }, {})).json()) as Json;
      expect(refused03.error).toMatchObject({ code: -32600, data: { required: [GEO] } });
    } finally {
      await agent.close();
    }
  });
});
