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
 * - 0.3.0 keeps its schema's verdicts: the real-world 0.3 corpus holds messages with `parts: []` that the
 *   corpus tests pin as valid, so its constraints are not emitted yet.
 *
 * Each is checked on the generated validator (the issue names the field, the bound and the value), then on
 * the 1.0.1 servers of every adapter, JSON-RPC and HTTP+JSON: -32602 / 400 naming the field. The
 * constraints files are read here as the facts they are, so that a constraint added there is tested too.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatedValidators, independentValidator, SCHEMA_DIR } from "../helpers.js";
import { FRAMEWORKS, rawPost, startServer, type RunningServer } from "./harness.js";

type Json = Record<string, unknown>;
interface Constraint {
  definition: string;
  property: string;
  schema: Record<string, number>;
  source: string;
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

for (const version of ["1.0.1"]) {
  describe(`${version}: the spec-text constraints in the generated validators`, () => {
    for (const constraint of constraintsOf(version)) {
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
    beforeAll(async () => {
      v1 = await startServer("1.0.1", framework, { rest: true });
    });
    afterAll(async () => v1.close());
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

  });
}
