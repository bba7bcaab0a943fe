import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FRAMEWORKS, distinctTimestamp, restErrorProblem, sseData, startServer, subset, type RunningServer } from "../../support/servers.js";

/**
 * The HTTP+JSON binding of 1.0.1 (specification-1.0.1.md §11) on every adapter: routes from the proto's
 * google.api.http rules (§11.3, with the tenant-prefixed additional bindings), query parameters (§11.5),
 * and the bad-input table: every refusal is an HTTP status with a google.rpc.Status body (§11.6), the
 * status from the §5.4 table, and names the field; no input crashes the server (a good request is served
 * after each bad one).
 */
type Json = Record<string, unknown>;
const V1 = { "a2a-version": "1.0" };
const JSON_V1 = { "content-type": "application/json", ...V1 };
const message = (over: Json = {}) => ({ messageId: `m-${Math.random()}`, role: "ROLE_USER", parts: [{ text: "hello" }], ...over });

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: Json | undefined;
}

for (const framework of FRAMEWORKS) {
  describe(`A2A 1.0.1 over HTTP+JSON on ${framework}`, () => {
    let server: RunningServer;
    beforeAll(async () => {
      server = await startServer("1.0.1", framework, { rest: true, maxBodyBytes: 64 * 1024, allow: [] });
    });
    afterAll(async () => server.close());

    const request = async (method: string, path: string, body?: string | Uint8Array, headers: Record<string, string> = JSON_V1): Promise<Answer> => {
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
    const send = async (text: string, path = "/message:send") => {
      const r = await request("POST", path, JSON.stringify({ message: message({ parts: [{ text }] }) }));
      return r;
    };
    /** A refusal in §11.6's shape with the status the §5.4 table gives, and the body's fields as expected. */
    const refused = (r: Answer, status: number, expected: Json) => {
      expect(r.status, r.text).toBe(status);
      expect(r.headers.get("content-type") ?? "").toMatch(/json/);
      expect(restErrorProblem(r.json, status), r.text).toBeUndefined();
      expect(subset(r.json?.error, expected), r.text).toBe(true);
    };

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

    describe("bad input (§11.6 error bodies, §5.4 statuses)", () => {
      const cases: Array<[string, () => Promise<Answer>, number, Json]> = [
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
      ];
      it.each(cases)("%s", async (name, call, status, expected) => {
        const r = await call();
        refused(r, status, expected);
        if (name.includes("nested")) expect(String(((((r.json as Json).error as Json).details as Json[])[0]?.fieldViolations as Json[])[0]?.field)).toMatch(/^message\.(metadata|parts\[0\]\.data)(\.a)+$/);
        if (status === 405) expect(r.headers.get("allow")).toMatch(/^(GET|POST|DELETE)/);
        const ok = await send("hello");
        expect(ok.json).toMatchObject({ message: { role: "ROLE_AGENT" } });
      });

      it("a runtime refusal names the field as the REST body has it: message.contextId, not params.message.contextId", async () => {
        const task = ((await send("ask")).json as Json).task as Json;
        // §3.4.3: a message naming task A with another contextId MUST be rejected.
        const r = await request("POST", "/message:send", JSON.stringify({ message: message({ taskId: task.id, contextId: "another-context", parts: [{ text: "Bob" }] }) }));
        refused(r, 400, { status: "INVALID_ARGUMENT", details: [{ fieldViolations: [{ field: "message.contextId" }] }] });
        expect(r.text).not.toMatch(/\/params|params\./);
      });

      it("a webhook on a private address is refused (400 naming the url)", async () => {
        const task = ((await send("ask")).json as Json).task as Json;
        const r = await request("POST", `/tasks/${String(task.id)}/pushNotificationConfigs`, JSON.stringify({ url: "http://10.0.0.1/h" }));
        refused(r, 400, { status: "INVALID_ARGUMENT", details: [{ reason: "INVALID_PARAMS", metadata: { url: "http://10.0.0.1/h" } }] });
      });
    });
  });
}

describe("the card's interfaces are checked at startup", () => {
  it("a listed binding that is not served is an error naming it", async () => {
    await expect(startServer("1.0.1", "node", { card: { supportedInterfaces: [{ url: "http://127.0.0.1:1/a2a", protocolBinding: "GRPC", protocolVersion: "1.0" }] } })).rejects.toThrow(/GRPC interface/);
    // Versions without a proto are JSON-RPC only (0.3.0 has HTTP+JSON from a2a-0.3.0.proto: rest-v030.test.ts).
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
