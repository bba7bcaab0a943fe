/**
 * Constraints the specification text states but the schema does not (issue 15 item 2), kept as version facts
 * beside the schema (`schema/a2a-<version>.constraints.json`) and emitted into the validators:
 *
 * - 1.0.1 (specification-1.0.1.md §5.7 "Arrays marked as required MUST contain at least one element", the
 *   §9.5 example "At least one part is required", and §5.7's "Validation Error Example": historyLength
 *   "Must be non-negative integer", pageSize "Must be between 1 and 100 inclusive"): Message.parts and
 *   historyLength ≥ 0 (GetTask, SendMessage's configuration, ListTasks), ListTasks pageSize 1–100.
 *   (Artifact.parts is REQUIRED too, but ProtoJSON writers leave an empty list out and the 1.x SDKs send
 *   artifacts without parts: test/proto-defaults.test.ts; it is not enforced.)
 * - 0.3.0 (specification-0.3.0.md §2: a Message is "containing one or more `Parts`"; §7.3.1 and §7.1.1:
 *   historyLength is "The number of most recent messages … to retrieve"): Message.parts for requests only
 *   (`"appliesTo": "requests"`: the real-world 0.3 corpus holds agent messages and artifacts with
 *   `parts: []` in responses, which keep the schema's verdict), historyLength ≥ 0 (tasks/get, and
 *   message/send's configuration).
 *
 * Each is checked on the generated validator (the issue names the field, the bound and the value), then on
 * the servers of every adapter, JSON-RPC and HTTP+JSON: -32602 / 400 naming the field. The constraints
 * files are read here as the facts they are, so that a constraint added there is tested too.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatedValidators, independentValidator, SCHEMA_DIR } from "../../support/project.js";
import { FRAMEWORKS, rawPost, startServer, type RunningServer } from "../../support/servers.js";

type Json = Record<string, unknown>;
interface Constraint {
  definition: string;
  property: string;
  schema: Record<string, number>;
  source: string;
  appliesTo?: "requests";
}
const constraintsOf = (version: string): Constraint[] =>
  (JSON.parse(readFileSync(join(SCHEMA_DIR, `a2a-${version}.constraints.json`), "utf8")) as { constraints: Constraint[] }).constraints;

/** The smallest valid value of a definition the tests need, per version. */
const VALID: Record<string, Record<string, Json>> = {
  "1.0.1": {
    Message: { role: "ROLE_USER", messageId: "m-1", parts: [{ text: "hi" }] },
    GetTaskRequest: { id: "t-1" },
    SendMessageConfiguration: {},
    ListTasksRequest: {},
  },
  "0.3.0": {
    Message: { kind: "message", role: "user", messageId: "m-1", parts: [{ kind: "text", text: "hi" }] },
    TaskQueryParams: { id: "t-1" },
    MessageSendConfiguration: {},
  },
};

/** Where a request-only constraint holds: the params definition and the property that holds the definition. */
const REQUEST_SITES: Record<string, Record<string, Array<[string, string]>>> = {
  "0.3.0": { Message: [["MessageSendParams", "message"]] },
};

/** A response of each version that carries the definition (which keeps the schema's verdict). */
const RESPONSES: Record<string, Record<string, (value: Json) => [string, Json]>> = {
  "0.3.0": { Message: (message) => ["SendMessageSuccessResponse", { jsonrpc: "2.0", id: 1, result: { ...message, role: "agent" } }] },
};

/** A value just past a constraint's bound (and one at it). */
function around(keyword: string, bound: number): { bad: unknown; good: unknown } {
  switch (keyword) {
    case "minItems":
      return { bad: [], good: undefined };
    case "minimum":
      return { bad: bound - 1, good: bound };
    case "maximum":
      return { bad: bound + 1, good: bound };
    default:
      throw new Error(`no test values for ${keyword}`);
  }
}

for (const version of ["1.0.1", "0.3.0"]) {
  describe(`${version}: the spec-text constraints in the generated validators`, () => {
    for (const constraint of constraintsOf(version).filter((c) => c.appliesTo === "requests")) {
      for (const [keyword, bound] of Object.entries(constraint.schema)) {
        it(`requests only: ${constraint.definition}.${constraint.property} ${keyword} ${bound} (${constraint.source.slice(0, 60)}…)`, async () => {
          const validators = await generatedValidators(version);
          const base = VALID[version]?.[constraint.definition] as Json;
          const sites = REQUEST_SITES[version]?.[constraint.definition] ?? [];
          expect(base, `a valid ${constraint.definition} in the test`).toBeDefined();
          expect(sites.length, `the params that carry ${constraint.definition} in the test`).toBeGreaterThan(0);
          const { bad } = around(keyword, bound);
          const value = { ...base, [constraint.property]: bad };
          // The definition itself, and a response that carries it, keep the schema's verdict ...
          expect(validators[constraint.definition]?.(value), JSON.stringify(validators[constraint.definition]?.errors)).toBe(true);
          const response = RESPONSES[version]?.[constraint.definition]?.(value);
          if (response) expect(validators[response[0]]?.(response[1]), JSON.stringify(validators[response[0]]?.errors)).toBe(true);
          // ... the params of a request refuse it, naming the field.
          for (const [params, property] of sites) {
            const validate = validators[params];
            expect(independentValidator(version, params)({ [property]: value })).toBe(true);
            expect(validate?.({ [property]: value })).toBe(false);
            expect(validate?.errors).toEqual([expect.objectContaining({ pointer: `/${property}/${constraint.property}`, keyword })]);
            expect(validate?.({ [property]: base }), JSON.stringify(validate?.errors)).toBe(true);
          }
        });
      }
    }
    for (const constraint of constraintsOf(version).filter((c) => c.appliesTo !== "requests")) {
      for (const [keyword, bound] of Object.entries(constraint.schema)) {
        it(`${constraint.definition}.${constraint.property} ${keyword} ${bound} (${constraint.source.slice(0, 60)}…)`, async () => {
          const validators = await generatedValidators(version);
          const validate = validators[constraint.definition];
          const base = VALID[version]?.[constraint.definition];
          expect(validate, `a validator for ${constraint.definition}`).toBeDefined();
          expect(base, `a valid ${constraint.definition} in the test`).toBeDefined();
          const { bad, good } = around(keyword, bound);
          // The schema alone accepts the value (the constraint is the text's, not the schema's) ...
          expect(independentValidator(version, constraint.definition)({ ...base, [constraint.property]: bad })).toBe(true);
          // ... the generated validator refuses it, naming the field.
          expect(validate?.({ ...base, [constraint.property]: bad })).toBe(false);
          expect(validate?.errors).toEqual([expect.objectContaining({ pointer: `/${constraint.property}`, keyword })]);
          if (good !== undefined) expect(validate?.({ ...base, [constraint.property]: good }), JSON.stringify(validate?.errors)).toBe(true);
        });
      }
    }
  });
}

for (const framework of FRAMEWORKS) {
  describe(`spec-text constraints on the servers (${framework})`, () => {
    let v1: RunningServer;
    let v03: RunningServer;
    beforeAll(async () => {
      v1 = await startServer("1.0.1", framework, { rest: true });
      v03 = await startServer("0.3.0", framework, { rest: true });
    });
    afterAll(async () => Promise.all([v1.close(), v03.close()]));
    const headers = { "content-type": "application/json", "a2a-version": "1.0" };
    const rpc = async (server: RunningServer, method: string, params: Json) => {
      const r = await rawPost(server.rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), headers);
      return { text: r.text, error: (r.json as Json | undefined)?.error as Json | undefined };
    };

    it("1.0.1 JSON-RPC: empty parts (§9.5 \"At least one part is required\"), historyLength -1, pageSize 0 and 101 → -32602 naming the field", async () => {
      const empty = await rpc(v1, "SendMessage", { message: { role: "ROLE_USER", messageId: "m-1", parts: [] } });
      expect(empty.error?.code, empty.text).toBe(-32602);
      expect(empty.text).toContain("params.message.parts");
      expect(empty.text).toContain("at least 1 item");
      const history = await rpc(v1, "GetTask", { id: "t-1", historyLength: -1 });
      expect(history.error?.code, history.text).toBe(-32602);
      expect(history.text).toContain("params.historyLength");
      for (const pageSize of [0, 101]) {
        const page = await rpc(v1, "ListTasks", { pageSize });
        expect(page.error?.code, page.text).toBe(-32602);
        expect(page.text).toContain("params.pageSize");
      }
      const fine = await rpc(v1, "ListTasks", { pageSize: 100, historyLength: 0 });
      expect(fine.error, fine.text).toBeUndefined();
    });

    it("1.0.1 HTTP+JSON: GET /tasks?pageSize=101 and /tasks/{id}?historyLength=-1 → 400 BadRequest naming the field", async () => {
      const page = await fetch(`${v1.restUrl}/tasks?pageSize=101`, { headers });
      expect(page.status).toBe(400);
      expect(await page.text()).toContain("pageSize");
      const history = await fetch(`${v1.restUrl}/tasks/t-1?historyLength=-1`, { headers });
      expect(history.status).toBe(400);
      expect(await history.text()).toContain("historyLength");
      const empty = await rawPost(`${v1.restUrl}/message:send`, JSON.stringify({ message: { role: "ROLE_USER", messageId: "m-1", parts: [] } }), headers);
      expect(empty.status, empty.text).toBe(400);
      expect(empty.text).toContain("message.parts");
    });

    it("0.3.0 JSON-RPC: empty parts in message/send and message/stream (§2 \"one or more `Parts`\"), historyLength -1 (§7.3.1, §7.1.1) → -32602 naming the field (responses keep the schema's verdict: the validator tests above)", async () => {
      const message = (parts: unknown[]) => ({ kind: "message", role: "user", messageId: `m-${Math.random()}`, parts });
      for (const method of ["message/send", "message/stream"]) {
        const r = await rawPost(v03.rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { message: message([]) } }), { "content-type": "application/json" });
        // A streaming call that fails before its first event answers with the error as the one SSE event.
        const body = r.text.includes("data:") ? r.text.slice(r.text.indexOf("data:") + 5).trim().split("\n")[0] ?? "" : r.text;
        const error = (JSON.parse(body) as Json).error as Json | undefined;
        expect(error?.code, r.text).toBe(-32602);
        expect(error?.data, r.text).toMatchObject({ issues: [{ pointer: "/params/message/parts", keyword: "minItems" }] });
        expect(r.text).toContain("/params/message/parts: expected at least 1 item, got 0 items");
      }
      const history = await rpc(v03, "tasks/get", { id: "t-1", historyLength: -1 });
      expect(history.error?.code, history.text).toBe(-32602);
      expect(history.error?.data, history.text).toMatchObject({ issues: [{ pointer: "/params/historyLength", keyword: "minimum" }] });
      const configured = await rpc(v03, "message/send", { message: message([{ kind: "text", text: "hi" }]), configuration: { historyLength: -1 } });
      expect(configured.error?.code, configured.text).toBe(-32602);
      expect(configured.error?.data, configured.text).toMatchObject({ issues: [{ pointer: "/params/configuration/historyLength", keyword: "minimum" }] });
      const fine = await rpc(v03, "message/send", { message: message([{ kind: "text", text: "hi" }]), configuration: { historyLength: 0 } });
      expect(fine.error, fine.text).toBeUndefined();
    });

    it("0.3.0 HTTP+JSON: POST /v1/message:send with empty content and GET /v1/tasks/{id}?historyLength=-1 → 400 naming the field", async () => {
      const json = { "content-type": "application/json" };
      const empty = await rawPost(`${v03.restUrl}/v1/message:send`, JSON.stringify({ message: { messageId: "m-1", role: "ROLE_USER", content: [] } }), json);
      expect(empty.status, empty.text).toBe(400);
      expect((empty.json as Json).data, empty.text).toMatchObject({ issues: [{ pointer: "/message/content", keyword: "minItems" }] });
      const history = await fetch(`${v03.restUrl}/v1/tasks/t-1?historyLength=-1`, { headers: json });
      const text = await history.text();
      expect(history.status, text).toBe(400);
      expect((JSON.parse(text) as Json).data, text).toMatchObject({ issues: [{ pointer: "/historyLength", keyword: "minimum" }] });
    });

  });
}
