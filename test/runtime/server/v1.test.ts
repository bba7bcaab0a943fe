import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FRAMEWORKS, distinctTimestamp, rawPost, startServer, type RunningServer, subset } from "../../support/servers.js";

/**
 * What A2A 1.0 adds on top of the protocol suite: version negotiation, ListTasks with filters and
 * pagination, and the bad-input table and SSRF guard in 1.0's shapes, on every adapter.
 */
type Json = Record<string, unknown>;
const V1 = { "content-type": "application/json", "a2a-version": "1.0" };
const message = (over: Json = {}) => ({ messageId: `m-${Math.random()}`, role: "ROLE_USER", parts: [{ text: "hello" }], ...over });
const rpc = (id: unknown, method: string, params?: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });


for (const framework of FRAMEWORKS) {
  describe(`A2A 1.0.1 on ${framework}`, () => {
    let server: RunningServer;
    beforeAll(async () => {
      server = await startServer("1.0.1", framework, { maxBodyBytes: 64 * 1024, allow: [] });
    });
    afterAll(async () => server.close());
    const post = (body: string, headers: Record<string, string> = V1) => rawPost(server.rpcUrl, body, headers);

    describe("version negotiation (A2A-Version)", () => {
      it("1.0 is served", async () => {
        const r = await post(rpc(1, "SendMessage", { message: message() }));
        expect(r.json).toMatchObject({ id: 1, result: { message: { role: "ROLE_AGENT" } } });
      });
      it("as a query parameter too", async () => {
        const r = await rawPost(`${server.rpcUrl}?A2A-Version=1.0`, rpc(2, "GetTask", { id: "none" }), { "content-type": "application/json" });
        expect(r.json).toMatchObject({ id: 2, error: { code: -32001 } });
      });
      it.each([
        ["no header (read as 0.3)", {}],
        ["0.3", { "a2a-version": "0.3" }],
        ["2.0", { "a2a-version": "2.0" }],
      ])("%s → VersionNotSupportedError (-32009)", async (_name, extra) => {
        const r = await post(rpc(3, "GetTask", { id: "none" }), { "content-type": "application/json", ...extra });
        expect(r.json).toMatchObject({
          id: 3,
          error: { code: -32009, data: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "VERSION_NOT_SUPPORTED", metadata: { supported: '["1.0"]' } }] },
        });
      });
    });

    describe("ListTasks", () => {
      it("filters by context and state, pages with a token, trims history, leaves artifacts out unless asked", async () => {
        const contextId = `ctx-${framework}`;
        const ids: string[] = [];
        for (const text of ["task", "task", "ask"]) {
          const r = await post(rpc(1, "SendMessage", { message: message({ contextId, parts: [{ text }] }) }));
          ids.push(String((((r.json as Json).result as Json).task as Json).id));
          await distinctTimestamp();
        }
        const all = ((await post(rpc(2, "ListTasks", { contextId }))).json as Json).result as Json;
        expect(all).toMatchObject({ totalSize: 3, nextPageToken: "", pageSize: 50 });
        expect((all.tasks as Json[]).map((t) => t.id)).toEqual([...ids].reverse());
        expect((all.tasks as Json[]).every((t) => !("artifacts" in t))).toBe(true);

        const working = ((await post(rpc(3, "ListTasks", { contextId, status: "TASK_STATE_INPUT_REQUIRED" }))).json as Json).result as Json;
        expect((working.tasks as Json[]).map((t) => t.id)).toEqual([ids[2]]);

        const page1 = ((await post(rpc(4, "ListTasks", { contextId, pageSize: 2, historyLength: 1, includeArtifacts: true }))).json as Json).result as Json;
        expect(page1.tasks as Json[]).toHaveLength(2);
        // The token is opaque (1.0.1 §3.1.4): a cursor the store wrote, not an offset.
        expect(page1.nextPageToken).toMatch(/^[\w-]+$/);
        expect(((page1.tasks as Json[])[1] as Json).artifacts).toBeDefined();
        expect((((page1.tasks as Json[])[0] as Json).history as Json[]).length).toBeLessThanOrEqual(1);
        const page2 = ((await post(rpc(5, "ListTasks", { contextId, pageSize: 2, pageToken: page1.nextPageToken }))).json as Json).result as Json;
        expect((page2.tasks as Json[]).map((t) => t.id)).toEqual([ids[0]]);
        expect(page2.nextPageToken).toBe("");
      });
    });

    describe("bad input in 1.0's shapes", () => {
      const cases: Array<[string, string, number, Json]> = [
        ["malformed JSON → -32700", '{"jsonrpc":"2.0","id":1,', 200, { id: null, error: { code: -32700 } }],
        ["a 0.x method name → -32601", rpc(1, "message/send", { message: message() }), 200, { id: 1, error: { code: -32601 } }],
        ["a message without parts → -32602", rpc(2, "SendMessage", { message: (({ parts: _p, ...m }) => m)(message()) }), 200, { id: 2, error: { code: -32602, data: [{ "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: [{ field: "params.message.parts" }] }] } }],
        ["a 0.x role → -32602 listing the roles", rpc(3, "SendMessage", { message: message({ role: "user" }) }), 200, { id: 3, error: { code: -32602, data: [{ fieldViolations: [{ field: "params.message.role" }] }] } }],
        ["a part with two contents (a oneof) → -32602", rpc(4, "SendMessage", { message: message({ parts: [{ text: "a", url: "https://x" }] }) }), 200, { id: 4, error: { code: -32602 } }],
        ["a part with no content → -32602", rpc(5, "SendMessage", { message: message({ parts: [{ mediaType: "text/plain" }] }) }), 200, { id: 5, error: { code: -32602 } }],
        ["id 0 is echoed", rpc(0, "GetTask", { id: "none" }), 200, { id: 0, error: { code: -32001 } }],
        ["a body over the limit → 413", " ".repeat(70 * 1024), 413, { id: null, error: { code: -32600 } }],
        // Issue 15: spec-text constraints (§5.7, §9.5), ProtoJSON input, streams that fail before their first event (§9.5).
        ["an empty parts list (§9.5 \"At least one part is required\") → -32602 naming it", rpc(6, "SendMessage", { message: message({ parts: [] }) }), 200, { id: 6, error: { code: -32602, data: [{ fieldViolations: [{ field: "params.message.parts" }] }] } }],
        ["historyLength -1 (§5.7) → -32602 naming it", rpc(7, "GetTask", { id: "none", historyLength: -1 }), 200, { id: 7, error: { code: -32602, data: [{ fieldViolations: [{ field: "params.historyLength" }] }] } }],
        ["history_length -1 (a proto name) → -32602 naming historyLength", rpc(8, "GetTask", { id: "none", history_length: -1 }), 200, { id: 8, error: { code: -32602, data: [{ fieldViolations: [{ field: "params.historyLength" }] }] } }],
        ["ListTasks pageSize 101 (§5.7: 1–100) → -32602 naming it", rpc(9, "ListTasks", { pageSize: 101 }), 200, { id: 9, error: { code: -32602, data: [{ fieldViolations: [{ field: "params.pageSize" }] }] } }],
        ["an unknown field is ignored (ProtoJSON), not refused", rpc(10, "GetTask", { id: "none", tckUnknownField: 1 }), 200, { id: 10, error: { code: -32001 } }],
        ["a stream for an unknown task → a plain JSON-RPC error", rpc(11, "SubscribeToTask", { id: "none" }), 200, { id: 11, error: { code: -32001 } }],
      ];
      it.each(cases)("%s", async (_name, body, status, expected) => {
        const r = await post(body);
        expect(r.status).toBe(status);
        expect(subset(r.json, expected), r.text).toBe(true);
        const ok = await post(rpc(99, "SendMessage", { message: message() }));
        expect(ok.json).toMatchObject({ id: 99, result: { message: {} } });
      });
    });

    describe("webhook SSRF guard", () => {
      it.each(["http://127.0.0.1:8080/h", "http://[::1]/h", "http://10.0.0.1/h", "http://192.168.1.1/h", "http://169.254.169.254/latest", "http://localhost/h"])(
        "refuses %s",
        async (url) => {
          const created = await post(rpc(1, "SendMessage", { message: message({ parts: [{ text: "ask" }] }) }));
          const taskId = String((((created.json as Json).result as Json).task as Json).id);
          const r = await post(rpc(2, "CreateTaskPushNotificationConfig", { taskId, url }));
          expect(r.json).toMatchObject({ id: 2, error: { code: -32602, data: [{ reason: "INVALID_PARAMS", metadata: { url } }] } });
        },
      );
    });
  });
}
