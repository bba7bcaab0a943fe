import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { A2A_HTTP_ROUTES } from "../../../generated/a2a-0.3.0/protocol.js";
import { SHAPES_0_3_0 } from "../../../src/runtime/wire/shapes-0.3.0.js";
import { expandRoute } from "../../../src/runtime/wire/http-routes.js";
import { FRAMEWORKS, sseData, startServer, subset, type RunningServer } from "../../support/servers.js";
import { protoJsonProblem, restErrorProblem030 } from "../../support/wire/rest-0.3.0.js";

/**
 * A2A 0.3.0's HTTP+JSON binding (specification-0.3.0.md §3.2.3, §3.3.3, §3.5.3, §3.5.6), generated from the
 * google.api.http rules of a2a-0.3.0.proto, on every adapter.
 *
 * The decision on the wire shapes. §3.2.3 asks for "JSON objects that are structurally equivalent to the
 * core A2A data structures" and "application/json"; it does not say whether those are the JSON-RPC shapes
 * (`kind`, `parts`, "completed") or the proto's (`content`, "TASK_STATE_COMPLETED"). The routes come from
 * the proto, whose rules bind path variables and bodies to the proto's request messages (`name:
 * "tasks/{id}"`, `body: "config"`), and the official 0.3 SDK (@a2a-js/sdk 0.3.14) speaks the proto's JSON
 * on both sides. So the wire carries the ProtoJSON of the 0.3 proto's messages, translated to and from the
 * JSON-RPC shapes the service speaks by the translation the gRPC binding uses. Errors: the text defines no
 * body, only "a consistent JSON format that maps to A2A error types"; the A2A error object itself
 * (`{ code, message, data }`, §8) is that, and the SDK's client reads it into typed errors.
 */
type Json = Record<string, unknown>;

const message = (over: Json = {}) => ({ messageId: `m-${Math.random()}`, role: "ROLE_USER", content: [{ text: "hello" }], ...over });
const JSON_TYPE = { "content-type": "application/json" };

describe("decisions (specification-0.3.0.md §3.5.6's table; the proto's rules where the text is silent)", () => {
  const path = (method: string, params: unknown) => {
    const rpc = A2A_HTTP_ROUTES.find((r) => r.method === method)?.rpc as string;
    const request = expandRoute(A2A_HTTP_ROUTES, method, SHAPES_0_3_0.paramsToWire(rpc, params));
    return request ? `${request.verb} ${request.path}${request.query.size > 0 ? `?${request.query.toString()}` : ""}` : undefined;
  };

  it("every JSON-RPC method has the REST endpoint of the table", () => {
    expect(path("message/send", { message: {} })).toBe("POST /v1/message:send");
    expect(path("message/stream", { message: {} })).toBe("POST /v1/message:stream");
    expect(path("tasks/get", { id: "t1", historyLength: 2 })).toBe("GET /v1/tasks/t1?historyLength=2");
    expect(path("tasks/cancel", { id: "t1" })).toBe("POST /v1/tasks/t1:cancel");
    // The proto's rule is GET; the table says POST: both are served (the spec-text route), clients use the proto's.
    expect(path("tasks/resubscribe", { id: "t1" })).toBe("GET /v1/tasks/t1:subscribe");
    expect(A2A_HTTP_ROUTES.filter((r) => r.method === "tasks/resubscribe").map((r) => r.verb)).toEqual(["GET", "POST"]);
    // The proto's rule says `{parent=task/*/pushNotificationConfigs}`; the table's `/v1/tasks/{id}/pushNotificationConfigs` decides.
    expect(path("tasks/pushNotificationConfig/set", { taskId: "t1", pushNotificationConfig: { url: "https://x" } })).toBe("POST /v1/tasks/t1/pushNotificationConfigs");
    expect(path("tasks/pushNotificationConfig/get", { id: "t1", pushNotificationConfigId: "c1" })).toBe("GET /v1/tasks/t1/pushNotificationConfigs/c1");
    expect(path("tasks/pushNotificationConfig/list", { id: "t1" })).toBe("GET /v1/tasks/t1/pushNotificationConfigs");
    expect(path("tasks/pushNotificationConfig/delete", { id: "t1", pushNotificationConfigId: "c1" })).toBe("DELETE /v1/tasks/t1/pushNotificationConfigs/c1");
    expect(path("agent/getAuthenticatedExtendedCard", {})).toBe("GET /v1/card");
  });

  it("`tasks/list` of the table has no rpc in a2a-0.3.0.proto nor a method in the 0.3.0 schema: not served", () => {
    expect(A2A_HTTP_ROUTES.some((r) => /list/i.test(r.method) && !r.method.includes("pushNotificationConfig"))).toBe(false);
  });
});

for (const framework of FRAMEWORKS) {
  describe(`A2A 0.3.0 over HTTP+JSON on ${framework}`, () => {
    let server: RunningServer;
    beforeAll(async () => {
      server = await startServer("0.3.0", framework, { rest: true, maxBodyBytes: 64 * 1024, allow: [] });
    });
    afterAll(async () => server.close());

    const request = async (method: string, path: string, body?: string, headers: Record<string, string> = JSON_TYPE) => {
      const response = await fetch(server.restUrl + path, { method, headers, ...(body !== undefined ? { body } : {}) });
      const text = await response.text();
      let json: Json | undefined;
      try {
        json = text ? (JSON.parse(text) as Json) : undefined;
      } catch {
        json = undefined;
      }
      return { status: response.status, headers: response.headers, text, json };
    };
    const send = (over: Json = {}) => request("POST", "/v1/message:send", JSON.stringify({ message: message(over) }));

    it("the wire is the proto's JSON (§3.2.3: application/json), checked against a2a-0.3.0.proto", async () => {
      const direct = await send();
      expect(direct.status).toBe(200);
      expect(direct.headers.get("content-type")).toMatch(/^application\/json/);
      expect(direct.json).toMatchObject({ message: { role: "ROLE_AGENT", content: [{ text: "hello back" }] } });
      expect(protoJsonProblem("SendMessage", direct.json)).toBeUndefined();
      const task = ((await send({ content: [{ text: "task" }] })).json as Json).task as Json;
      expect(task).toMatchObject({ status: { state: "TASK_STATE_COMPLETED" }, artifacts: [{ parts: [{ text: "the result" }] }] });
      expect(task).not.toHaveProperty("kind");
      const got = await request("GET", `/v1/tasks/${String(task.id)}?historyLength=1`);
      expect(protoJsonProblem("GetTask", got.json)).toBeUndefined();
      expect((got.json as Json).history as unknown[]).toHaveLength(1);
    });

    it("streams are SSE of StreamResponse (§3.3.3); subscribe answers GET and POST", async () => {
      const response = await fetch(`${server.restUrl}/v1/message:stream`, { method: "POST", headers: JSON_TYPE, body: JSON.stringify({ message: message({ content: [{ text: "stream" }] }) }) });
      expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
      const events = sseData(await response.text()).map((data) => JSON.parse(data) as Json);
      expect(Object.keys(events[0] as Json)).toEqual(["task"]);
      expect(events.map((e) => Object.keys(e)[0])).toContain("artifactUpdate");
      expect(events.at(-1)).toMatchObject({ statusUpdate: { final: true, status: { state: "TASK_STATE_COMPLETED" } } });
      for (const event of events) expect(protoJsonProblem("SendStreamingMessage", event)).toBeUndefined();
      const id = String(((events[0] as Json).task as Json).id);
      for (const verb of ["GET", "POST"]) {
        const finished = await request(verb, `/v1/tasks/${id}:subscribe`, verb === "POST" ? "" : undefined);
        expect(finished.status, finished.text).toBe(400);
        expect(finished.json).toMatchObject({ code: -32004 });
      }
    });

    it("errors are the A2A error object with the A2A code and a fitting HTTP status", async () => {
      const missing = await request("GET", "/v1/tasks/no-such-task");
      expect(missing.status).toBe(404);
      expect(missing.json).toEqual({ code: -32001, message: "Task not found", data: { taskId: "no-such-task" } });
      const card = await request("GET", "/v1/card");
      expect(card.status).toBe(400);
      expect(restErrorProblem030(card.json)).toBeUndefined();
    });

    describe("bad input: an error naming the field as the REST request has it; the server keeps serving", () => {
      const cases: Array<[string, () => ReturnType<typeof request>, number, Json]> = [
        ["an unknown route → 404", () => request("GET", "/v1/no/such/route"), 404, { code: -32601 }],
        ["a route's path with another verb → 405", () => request("DELETE", "/v1/message:send"), 405, { code: -32601 }],
        ["GET on the cancel path → 405", () => request("GET", "/v1/tasks/x:cancel"), 405, { code: -32601 }],
        ["malformed JSON → 400 parse error", () => request("POST", "/v1/message:send", '{"message":'), 400, { code: -32700 }],
        ["a body that is an array → 400", () => request("POST", "/v1/message:send", "[1]"), 400, { code: -32602 }],
        ["a text/plain body → 415", () => request("POST", "/v1/message:send", JSON.stringify({ message: message() }), { "content-type": "text/plain" }), 415, { code: -32600 }],
        ["a body over the limit → 413", () => request("POST", "/v1/message:send", " ".repeat(70 * 1024)), 413, { code: -32600 }],
        ["a message without content → 400 naming /message/content", () => send({ content: undefined }), 400, { code: -32602, data: { issues: [{ pointer: "/message/content" }] } }],
        ["content that is not a list → 400 naming /message/content", () => send({ content: "hi" }), 400, { code: -32602, data: { issues: [{ pointer: "/message/content" }] } }],
        ["a file part's uri of the wrong type → 400 naming …/fileWithUri", () => send({ content: [{ file: { fileWithUri: 5 } }] }), 400, { code: -32602, data: { issues: [{ pointer: "/message/content/0/file/fileWithUri" }] } }],
        ["a part with two members (an invalid oneof) → 400 naming the part", () => send({ content: [{ text: "a", data: { data: {} } }] }), 400, { code: -32602, data: { issues: [{ pointer: "/message/content/0" }] } }],
        ["an unknown role → 400 naming /message/role", () => send({ role: "ROLE_BOT" }), 400, { code: -32602, data: { issues: [{ pointer: "/message/role" }] } }],
        ["historyLength that is not a number → 400 naming historyLength", () => request("GET", "/v1/tasks/x?historyLength=abc"), 400, { code: -32602, data: { issues: [{ pointer: "/historyLength" }] } }],
        ["a body name that contradicts the path → 400 naming name", () => request("POST", "/v1/tasks/a:cancel", JSON.stringify({ name: "tasks/b" })), 400, { code: -32602, data: { issues: [{ pointer: "/name" }] } }],
        ["a push config whose url is not a string → 400 naming …/url", () => request("POST", "/v1/tasks/t/pushNotificationConfigs", JSON.stringify({ pushNotificationConfig: { url: 5 } })), 400, { code: -32602, data: { issues: [{ pointer: "/config/pushNotificationConfig/url" }] } }],
        ["a push config for an unknown task → 404", () => request("POST", "/v1/tasks/none/pushNotificationConfigs", JSON.stringify({ pushNotificationConfig: { url: "http://10.0.0.1/h" } })), 404, { code: -32001 }],
        // Hardening issue 16, item 1: 5,000 levels (V8's JSON.stringify overflows near 4,500): refused naming the pointer, never stored.
        ["metadata nested 5,000 levels → 400 naming /message/metadata/a/…", () => request("POST", "/v1/message:send", `{"message":{"messageId":"m-deep","role":"ROLE_USER","content":[{"text":"task"}],"metadata":${'{"a":'.repeat(5000)}1${"}".repeat(5000)}}}`), 400, { code: -32602, data: { issues: [{ keyword: "maxDepth" }] } }],
        ["a streamed data part nested 5,000 levels → 400 JSON naming …/data/data/a/…, not a stream", () => request("POST", "/v1/message:stream", `{"message":{"messageId":"m-deep","role":"ROLE_USER","content":[{"data":{"data":${'{"a":'.repeat(5000)}1${"}".repeat(5000)}}}]}}`), 400, { code: -32602, data: { issues: [{ keyword: "maxDepth" }] } }],
        ["a streaming call with a bad body → 400 JSON, not a stream", () => request("POST", "/v1/message:stream", JSON.stringify({ message: message({ role: "nobody" }) })), 400, { code: -32602, data: { issues: [{ pointer: "/message/role" }] } }],
      ];
      it.each(cases)("%s", async (_name, call, status, expected) => {
        const r = await call();
        expect(r.status, r.text).toBe(status);
        expect(r.headers.get("content-type") ?? "").toMatch(/^application\/json/);
        expect(restErrorProblem030(r.json), r.text).toBeUndefined();
        expect(subset(r.json, expected), r.text.slice(0, 500)).toBe(true);
        if (_name.includes("nested")) expect(String((((r.json as Json).data as Json).issues as Json[])[0]?.pointer)).toMatch(/^\/message\/(metadata|content\/0\/data\/data)(\/a)+$/);
        if (status === 405) expect(r.headers.get("allow")).toMatch(/^(GET|POST|DELETE)/);
        const ok = await send();
        expect(ok.json).toMatchObject({ message: { role: "ROLE_AGENT" } });
      });

      it("a context id that contradicts the task's is named as the REST body has it (message.contextId), not params.…", async () => {
        const task = ((await send({ content: [{ text: "ask" }] })).json as Json).task as Json;
        const r = await send({ taskId: task.id, contextId: "another-context", content: [{ text: "Bob" }] });
        expect(r.status, r.text).toBe(400);
        const issues = ((r.json as Json).data as Json).issues as Json[];
        expect(issues[0]).toMatchObject({ pointer: "/message/contextId" });
        expect(String(issues[0]?.message)).toMatch(/^\/message\/contextId: /);
      });
    });
  });
}

describe("0.3.0 over HTTP+JSON with security schemes", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer("0.3.0", "node", {
      rest: true,
      extendedCard: { name: "Extended" },
      auth: { verify: (credential) => (credential.value === "secret" ? true : credential.value === "forbidden" ? { allow: false, status: 403 } : false) },
    });
  });
  afterAll(async () => server.close());
  const get = (path: string, token?: string) => fetch(server.restUrl + path, { headers: token ? { authorization: `Bearer ${token}` } : {} });

  it("401 with WWW-Authenticate without credentials, 403 when the verifier says so, the extended card with them", async () => {
    const anonymous = await get("/v1/card");
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(restErrorProblem030(await anonymous.json())).toBeUndefined();
    expect((await get("/v1/card", "forbidden")).status).toBe(403);
    const card = await get("/v1/card", "secret");
    expect(card.status).toBe(200);
    const body = (await card.json()) as Json;
    expect(body.name).toBe("Extended");
    expect(protoJsonProblem("GetAgentCard", body)).toBeUndefined();
  });
});
