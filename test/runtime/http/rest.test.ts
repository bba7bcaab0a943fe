import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { A2A_HTTP_ROUTES } from "../../../generated/a2a-0.3.0/protocol.js";
import { SHAPES_0_3_0 } from "../../../src/runtime/wire/shapes-0.3.0.js";
import { expandRoute } from "../../../src/runtime/wire/http-routes.js";
import { FRAMEWORKS, distinctTimestamp, restErrorProblem, sseData, startServer, subset, type RunningServer } from "../../support/servers.js";
import { protoJsonProblem, restErrorProblem030 } from "../../support/wire/rest-0.3.0.js";

/**
 * The HTTP+JSON binding of both versions that have one, on every adapter: one suite, parameterized over
 * (version × adapter).
 *
 * 1.0.1 (specification-1.0.1.md §11): routes from the proto's google.api.http rules (§11.3, with the
 * tenant-prefixed additional bindings), query parameters (§11.5), and the bad-input table: every refusal is an
 * HTTP status with a google.rpc.Status body (§11.6), the status from the §5.4 table, and names the field.
 *
 * 0.3.0 (specification-0.3.0.md §3.2.3, §3.3.3, §3.5.3, §3.5.6), generated from the google.api.http rules of
 * a2a-0.3.0.proto. The decision on the wire shapes. §3.2.3 asks for "JSON objects that are structurally
 * equivalent to the core A2A data structures" and "application/json"; it does not say whether those are the
 * JSON-RPC shapes (`kind`, `parts`, "completed") or the proto's (`content`, "TASK_STATE_COMPLETED"). The routes
 * come from the proto, whose rules bind path variables and bodies to the proto's request messages (`name:
 * "tasks/{id}"`, `body: "config"`), and the official 0.3 SDK (@a2a-js/sdk 0.3.14) speaks the proto's JSON on
 * both sides. So the wire carries the ProtoJSON of the 0.3 proto's messages, translated to and from the
 * JSON-RPC shapes the service speaks by the translation the gRPC binding uses. Errors: the text defines no
 * body, only "a consistent JSON format that maps to A2A error types"; the A2A error object itself
 * (`{ code, message, data }`, §8) is that, and the SDK's client reads it into typed errors.
 *
 * On both: no input crashes the server (a good request is served after each bad one), and a refusal names the
 * field as the REST request has it.
 */
type Json = Record<string, unknown>;

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: Json | undefined;
}
type Request = (method: string, path: string, body?: string | Uint8Array, headers?: Record<string, string>) => Promise<Answer>;
type BadInput = [name: string, call: () => Promise<Answer>, status: number, expected: Json];

const V1 = { "a2a-version": "1.0" };
const JSON_V1 = { "content-type": "application/json", ...V1 };
const JSON_TYPE = { "content-type": "application/json" };
/** A 1.0.1 message (ProtoJSON: `parts`). */
const message = (over: Json = {}) => ({ messageId: `m-${Math.random()}`, role: "ROLE_USER", parts: [{ text: "hello" }], ...over });
/** A 0.3.0 message (the 0.3 proto's JSON: `content`). */
const message030 = (over: Json = {}) => ({ messageId: `m-${Math.random()}`, role: "ROLE_USER", content: [{ text: "hello" }], ...over });

/** What differs between the two versions' HTTP+JSON bindings; the behaviours below are the same. */
interface RestBinding {
  version: "1.0.1" | "0.3.0";
  /** The headers of a request with a JSON body. */
  headers: Record<string, string>;
  /** Sends a message with one text part (and the task and context ids given). */
  sendText(request: Request, text: string, ids?: Json): Promise<Answer>;
  /** The bad-input table of the version. */
  badInput(request: Request, sendText: (text: string, over?: Json) => Promise<Answer>): BadInput[];
  /** A refusal in the version's error shape, with the status and the body's fields as expected. */
  refused(r: Answer, status: number, expected: Json): void;
  /** The field of a refusal of a body nested 5,000 levels, and what it must look like. */
  nestedField(r: Answer): string;
  nestedPattern: RegExp;
  /** A message naming a task with another contextId (§3.4.3 on 1.0.1): refused naming message.contextId as the body has it. */
  namesContextId(r: Answer): void;
}

const REST_1_0_1: RestBinding = {
  version: "1.0.1",
  headers: JSON_V1,
  sendText: (request, text, ids = {}) => request("POST", "/message:send", JSON.stringify({ message: message({ ...ids, parts: [{ text }] }) })),
  badInput: (request) => [
    ["an unknown route → 404", () => request("GET", "/no/such/route", undefined, V1), 404, { status: "NOT_FOUND" }],
    ["a route's path with another verb → 405", () => request("DELETE", "/message:send", undefined, V1), 405, { code: 405 }],
    ["GET on a POST-only verb path → 405", () => request("GET", "/tasks/x:cancel", undefined, V1), 405, { code: 405 }],
    ["malformed JSON → 400", () => request("POST", "/message:send", '{"message":'), 400, { status: "INVALID_ARGUMENT", message: "Malformed JSON body", details: [{ "@type": "type.googleapis.com/google.rpc.BadRequest" }] }],
    ["a body that is an array → 400", () => request("POST", "/message:send", "[1]"), 400, { status: "INVALID_ARGUMENT" }],
    ["a text/plain body → 415", () => request("POST", "/message:send", JSON.stringify({ message: message() }), { "content-type": "text/plain", ...V1 }), 415, { code: 415 }],
    ["a body over the limit → 413", () => request("POST", "/message:send", " ".repeat(70 * 1024)), 413, { code: 413 }],
    ["a message without parts → 400 naming message.parts", () => request("POST", "/message:send", JSON.stringify({ message: (({ parts: _p, ...m }) => m)(message()) })), 400, { details: [{ fieldViolations: [{ field: "message.parts" }] }] }],
    ["an unknown role (enum value) → 400 naming message.role", () => request("POST", "/message:send", JSON.stringify({ message: message({ role: "user" }) })), 400, { details: [{ fieldViolations: [{ field: "message.role" }] }] }],
    ["a part with two contents (an invalid oneof) → 400 naming the part", () => request("POST", "/message:send", JSON.stringify({ message: message({ parts: [{ text: "a", url: "https://x" }] }) })), 400, { status: "INVALID_ARGUMENT" }],
    ["an unknown task state in the query → 400 naming status", () => request("GET", "/tasks?status=TASK_STATE_BOGUS", undefined, V1), 400, { details: [{ fieldViolations: [{ field: "status" }] }] }],
    ["historyLength that is not a number → 400 naming historyLength", () => request("GET", "/tasks/x?historyLength=abc", undefined, V1), 400, { details: [{ fieldViolations: [{ field: "historyLength" }] }] }],
    ["a body id that contradicts the path → 400 naming id", () => request("POST", "/tasks/a:cancel", JSON.stringify({ id: "b" })), 400, { details: [{ fieldViolations: [{ field: "id" }] }] }],
    ["no A2A-Version → 400 VERSION_NOT_SUPPORTED", () => request("GET", "/tasks/x", undefined, {}), 400, { status: "FAILED_PRECONDITION", details: [{ reason: "VERSION_NOT_SUPPORTED" }] }],
    ["a streaming call with a bad body → 400 JSON, not a stream", () => request("POST", "/message:stream", JSON.stringify({ message: message({ role: "nobody" }) })), 400, { details: [{ fieldViolations: [{ field: "message.role" }] }] }],
    // Hardening issue 16, item 1: 5,000 levels (V8's JSON.stringify overflows near 4,500): refused naming the field, never stored.
    ["metadata nested 5,000 levels → 400 naming message.metadata.a…", () => request("POST", "/message:send", `{"message":{"messageId":"m-deep","role":"ROLE_USER","parts":[{"text":"task"}],"metadata":${'{"a":'.repeat(5000)}1${"}".repeat(5000)}}}`), 400, { status: "INVALID_ARGUMENT", details: [{ "@type": "type.googleapis.com/google.rpc.BadRequest" }] }],
    ["a streamed data part nested 5,000 levels → 400 JSON, not a stream", () => request("POST", "/message:stream", `{"message":{"messageId":"m-deep","role":"ROLE_USER","parts":[{"data":${'{"a":'.repeat(5000)}1${"}".repeat(5000)}}]}}`), 400, { status: "INVALID_ARGUMENT", details: [{ "@type": "type.googleapis.com/google.rpc.BadRequest" }] }],
    // Issue 15: spec-text constraints (§5.7), ProtoJSON input (proto names in the query, unknown fields).
    ["historyLength -1 → 400 naming historyLength", () => request("GET", "/tasks/x?historyLength=-1", undefined, V1), 400, { details: [{ fieldViolations: [{ field: "historyLength" }] }] }],
    ["history_length (a proto name) -1 → 400 naming historyLength", () => request("GET", "/tasks/x?history_length=-1", undefined, V1), 400, { details: [{ fieldViolations: [{ field: "historyLength" }] }] }],
    ["pageSize 0 → 400 naming pageSize", () => request("GET", "/tasks?pageSize=0", undefined, V1), 400, { details: [{ fieldViolations: [{ field: "pageSize" }] }] }],
    ["an empty parts list → 400 naming message.parts", () => request("POST", "/message:send", JSON.stringify({ message: message({ parts: [] }) })), 400, { details: [{ fieldViolations: [{ field: "message.parts" }] }] }],
    ["an unknown field is ignored, the rest judged: unknown task → 404", () => request("POST", "/tasks/none:cancel", JSON.stringify({ tckUnknownField: 1 })), 404, { details: [{ reason: "TASK_NOT_FOUND" }] }],
    ["a push config for an unknown task → 404", () => request("POST", "/tasks/none/pushNotificationConfigs", JSON.stringify({ url: "http://10.0.0.1/h" })), 404, { details: [{ reason: "TASK_NOT_FOUND" }] }],
  ],
  refused: (r, status, expected) => {
    expect(r.status, r.text).toBe(status);
    expect(r.headers.get("content-type") ?? "").toMatch(/json/);
    expect(restErrorProblem(r.json, status), r.text).toBeUndefined();
    expect(subset(r.json?.error, expected), r.text).toBe(true);
  },
  nestedField: (r) => String(((((r.json as Json).error as Json).details as Json[])[0]?.fieldViolations as Json[])[0]?.field),
  nestedPattern: /^message\.(metadata|parts\[0\]\.data)(\.a)+$/,
  namesContextId: (r) => {
    REST_1_0_1.refused(r, 400, { status: "INVALID_ARGUMENT", details: [{ fieldViolations: [{ field: "message.contextId" }] }] });
    expect(r.text).not.toMatch(/\/params|params\./);
  },
};

const REST_0_3_0: RestBinding = {
  version: "0.3.0",
  headers: JSON_TYPE,
  sendText: (request, text, ids = {}) => request("POST", "/v1/message:send", JSON.stringify({ message: message030({ ...ids, content: [{ text }] }) })),
  badInput: (request) => {
    const send = (over: Json = {}) => request("POST", "/v1/message:send", JSON.stringify({ message: message030(over) }));
    return [
      ["an unknown route → 404", () => request("GET", "/v1/no/such/route"), 404, { code: -32601 }],
      ["a route's path with another verb → 405", () => request("DELETE", "/v1/message:send"), 405, { code: -32601 }],
      ["GET on the cancel path → 405", () => request("GET", "/v1/tasks/x:cancel"), 405, { code: -32601 }],
      ["malformed JSON → 400 parse error", () => request("POST", "/v1/message:send", '{"message":'), 400, { code: -32700 }],
      ["a body that is an array → 400", () => request("POST", "/v1/message:send", "[1]"), 400, { code: -32602 }],
      ["a text/plain body → 415", () => request("POST", "/v1/message:send", JSON.stringify({ message: message030() }), { "content-type": "text/plain" }), 415, { code: -32600 }],
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
      ["a streaming call with a bad body → 400 JSON, not a stream", () => request("POST", "/v1/message:stream", JSON.stringify({ message: message030({ role: "nobody" }) })), 400, { code: -32602, data: { issues: [{ pointer: "/message/role" }] } }],
    ];
  },
  refused: (r, status, expected) => {
    expect(r.status, r.text).toBe(status);
    expect(r.headers.get("content-type") ?? "").toMatch(/^application\/json/);
    expect(restErrorProblem030(r.json), r.text).toBeUndefined();
    expect(subset(r.json, expected), r.text.slice(0, 500)).toBe(true);
  },
  nestedField: (r) => String((((r.json as Json).data as Json).issues as Json[])[0]?.pointer),
  nestedPattern: /^\/message\/(metadata|content\/0\/data\/data)(\/a)+$/,
  namesContextId: (r) => {
    expect(r.status, r.text).toBe(400);
    const issues = ((r.json as Json).data as Json).issues as Json[];
    expect(issues[0]).toMatchObject({ pointer: "/message/contextId" });
    expect(String(issues[0]?.message)).toMatch(/^\/message\/contextId: /);
  },
};

const MATRIX = [REST_1_0_1, REST_0_3_0].flatMap((binding) => FRAMEWORKS.map((framework) => ({ version: binding.version, framework, binding })));

describe("0.3.0 decisions (specification-0.3.0.md §3.5.6's table; the proto's rules where the text is silent)", () => {
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

describe.each(MATRIX)("A2A $version over HTTP+JSON on $framework", ({ version, framework, binding }) => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(version, framework, { rest: true, maxBodyBytes: 64 * 1024, allow: [] });
  });
  afterAll(async () => server.close());

  const request: Request = async (method, path, body, headers = binding.headers) => {
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
  const sendText = (text: string, ids: Json = {}) => binding.sendText(request, text, ids);

  describe("bad input: a refusal in the version's error shape (1.0.1: §11.6 error bodies, §5.4 statuses) naming the field as the REST request has it; the server keeps serving", () => {
    it.each(binding.badInput(request, sendText))("%s", async (name, call, status, expected) => {
      const r = await call();
      binding.refused(r, status, expected);
      if (name.includes("nested")) expect(binding.nestedField(r)).toMatch(binding.nestedPattern);
      if (status === 405) expect(r.headers.get("allow")).toMatch(/^(GET|POST|DELETE)/);
      const ok = await sendText("hello");
      expect(ok.json).toMatchObject({ message: { role: "ROLE_AGENT" } });
    });

    it("a context id that contradicts the task's is named as the REST body has it (message.contextId), not params.…", async () => {
      const task = ((await sendText("ask")).json as Json).task as Json;
      // §3.4.3 (1.0.1): a message naming task A with another contextId MUST be rejected.
      binding.namesContextId(await sendText("Bob", { taskId: task.id, contextId: "another-context" }));
    });
  });

  if (version === "1.0.1") {
    const send = (text: string, path = "/message:send") => request("POST", path, JSON.stringify({ message: message({ parts: [{ text }] }) }));
    const refused = binding.refused;

    describe("routes (§11.3)", () => {
      it("POST /message:send answers a SendMessageResponse; the tenant-prefixed path too", async () => {
        const direct = await send("hello");
        expect(direct.status).toBe(200);
        expect(direct.headers.get("content-type")).toMatch(/^application\/a2a\+json/);
        expect(direct.json).toMatchObject({ message: { role: "ROLE_AGENT", parts: [{ text: "hello back" }] } });
        const tenant = await send("task", "/acme/message:send");
        expect(tenant.status).toBe(200);
        expect(tenant.json).toMatchObject({ task: { status: { state: "TASK_STATE_COMPLETED" } } });
      });

      it("GET /tasks/{id} with historyLength as a query parameter; the id percent-decoded", async () => {
        const task = ((await send("task")).json as Json).task as Json;
        const got = await request("GET", `/tasks/${encodeURIComponent(String(task.id))}?historyLength=1`, undefined, V1);
        expect(got.status).toBe(200);
        expect(got.json).toMatchObject({ id: task.id });
        expect((got.json as Json).history as unknown[]).toHaveLength(1);
        const odd = await request("GET", "/tasks/a%3Ab%2Fc", undefined, V1);
        refused(odd, 404, { status: "NOT_FOUND", details: [{ reason: "TASK_NOT_FOUND", metadata: { taskId: "a:b/c" } }] });
      });

      it("GET /tasks filters by query parameters (contextId, status, pageSize, includeArtifacts)", async () => {
        const contextId = `ctx-rest-${framework}`;
        const ids: string[] = [];
        for (const text of ["task", "ask"]) {
          const r = await request("POST", "/message:send", JSON.stringify({ message: message({ contextId, parts: [{ text }] }) }));
          ids.push(String(((r.json as Json).task as Json).id));
          await distinctTimestamp();
        }
        const all = await request("GET", `/tasks?contextId=${contextId}`, undefined, V1);
        expect(all.json).toMatchObject({ totalSize: 2, tasks: [{ id: ids[1] }, { id: ids[0] }] });
        const waiting = await request("GET", `/tasks?contextId=${contextId}&status=TASK_STATE_INPUT_REQUIRED&pageSize=1&includeArtifacts=true`, undefined, V1);
        expect(((waiting.json as Json).tasks as Json[]).map((t) => t.id)).toEqual([ids[1]]);
        expect((waiting.json as Json).pageSize).toBe(1);
      });

      it("POST /tasks/{id}:cancel, GET /tasks/{id}:subscribe on a finished task → UnsupportedOperation 400 (§3.1.6)", async () => {
        const task = ((await send("ask")).json as Json).task as Json;
        const canceled = await request("POST", `/tasks/${String(task.id)}:cancel`, "");
        expect(canceled.status).toBe(200);
        expect(canceled.json).toMatchObject({ id: task.id, status: { state: "TASK_STATE_CANCELED" } });
        refused(await request("POST", `/tasks/${String(task.id)}:cancel`, "{}"), 400, { status: "FAILED_PRECONDITION", details: [{ reason: "TASK_NOT_CANCELABLE" }] });
        refused(await request("GET", `/tasks/${String(task.id)}:subscribe`, undefined, V1), 400, { status: "FAILED_PRECONDITION", details: [{ reason: "UNSUPPORTED_OPERATION" }] });
      });

      it("POST /message:stream answers Server-Sent Events of StreamResponse objects (§11.7)", async () => {
        const response = await fetch(`${server.restUrl}/message:stream`, { method: "POST", headers: JSON_V1, body: JSON.stringify({ message: message({ parts: [{ text: "task" }] }) }) });
        expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
        const events = sseData(await response.text()).map((data) => JSON.parse(data) as Json);
        expect(Object.keys(events[0] as Json)).toEqual(["task"]);
        expect(events.at(-1)).toMatchObject({ statusUpdate: { status: { state: "TASK_STATE_COMPLETED" } } });
      });
    });

    it("a webhook on a private address is refused (400 naming the url)", async () => {
      const task = ((await send("ask")).json as Json).task as Json;
      const r = await request("POST", `/tasks/${String(task.id)}/pushNotificationConfigs`, JSON.stringify({ url: "http://10.0.0.1/h" }));
      refused(r, 400, { status: "INVALID_ARGUMENT", details: [{ reason: "INVALID_PARAMS", metadata: { url: "http://10.0.0.1/h" } }] });
    });
  }

  if (version === "0.3.0") {
    const send = (over: Json = {}) => request("POST", "/v1/message:send", JSON.stringify({ message: message030(over) }));

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
      const response = await fetch(`${server.restUrl}/v1/message:stream`, { method: "POST", headers: JSON_TYPE, body: JSON.stringify({ message: message030({ content: [{ text: "stream" }] }) }) });
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
  }
});

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

describe("the card's interfaces are checked at startup", () => {
  it("a listed binding that is not served is an error naming it", async () => {
    await expect(startServer("1.0.1", "node", { card: { supportedInterfaces: [{ url: "http://127.0.0.1:1/a2a", protocolBinding: "GRPC", protocolVersion: "1.0" }] } })).rejects.toThrow(/GRPC interface/);
    // Versions without a proto are JSON-RPC only (0.3.0 has HTTP+JSON from a2a-0.3.0.proto: the suites above).
    await expect(startServer("0.2.6", "node", { card: { preferredTransport: "HTTP+JSON" } })).rejects.toThrow(/HTTP\+JSON interface .* has no HTTP\+JSON binding/);
  });

  it("a card that lists only HTTP+JSON is served over REST, not JSON-RPC", async () => {
    const server = await startServer("1.0.1", "node", { card: { supportedInterfaces: [{ url: "http://127.0.0.1:1/a2a", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" }] } });
    try {
      const body = JSON.stringify({ message: message() });
      const rest = await fetch(`${server.restUrl}/message:send`, { method: "POST", headers: JSON_V1, body });
      expect(rest.status).toBe(200);
      const rpc = await fetch(server.rpcUrl, { method: "POST", headers: JSON_V1, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: message() } }) });
      expect(rpc.status).toBe(404);
      expect(restErrorProblem(await rpc.json(), 404)).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});
