/**
 * Issue 29 item 18 (a): on an agent that serves 1.0.1 and 0.3.0 (`--spec 1.0.1 --compat 0.3.0`), HTTP+JSON
 * requests without `A2A-Version`. specification-1.0.1.md §3.2.6: "Clients MUST send the A2A-Version header
 * with each request … If the version is not specified, agents MUST interpret it as 0.3", and "agents MUST
 * process requests using the semantics of the requested A2A-Version … If the version is not supported by
 * the interface, agents MUST return a VersionNotSupportedError". This agent serves 0.3's routes (`/v1/…`,
 * a2a-0.3.0.proto) under its HTTP+JSON URL (`/rest`): a request without the header on one of them is served
 * in 0.3; one on a route only 1.0 has is refused, and the refusal must be consistent with what the agent
 * serves: read as 0.3, 0.3 has no such route, the agent serves 1.0 and 0.3, and the header to send (it
 * said "this agent speaks 1.0" to a 0.3 client it serves).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCompatAgent, type CompatAgent } from "../support/compat/agent.js";

type Json = Record<string, unknown>;
const JSON_TYPE = { "content-type": "application/json" };

async function call(agent: CompatAgent, method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
  const response = await fetch(`${agent.restUrl}${path}`, { method, headers: { ...JSON_TYPE, ...headers }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await response.text();
  return { status: response.status, text, json: (text.startsWith("{") ? JSON.parse(text) : undefined) as Json | undefined };
}

/** VersionNotSupportedError in either version's error form: 1.0's google.rpc status or 0.3's error object. */
const refusalOf = (json: Json | undefined): { message: string; supported: unknown } | undefined => {
  if (!json) return undefined;
  if (json["code"] === -32009) return { message: String(json["message"]), supported: (json["data"] as Json | undefined)?.["supported"] };
  const error = json["error"] as Json | undefined;
  const info = ((error?.["details"] as Json[] | undefined) ?? []).find((d) => d["reason"] === "VERSION_NOT_SUPPORTED");
  return info ? { message: String(error?.["message"]), supported: JSON.parse(String((info["metadata"] as Json)["supported"])) } : undefined;
};

const send03 = { message: { messageId: "m-03", role: "ROLE_USER", content: [{ text: "task" }] } };

/** Routes only 1.0 has (a2a-1.0.1.proto; with and without a tenant): 0.3's proto has none of them. */
const ONLY_1_0: Array<[string, string]> = [
  ["POST", "/message:send"],
  ["POST", "/message:stream"],
  ["GET", "/tasks/t1"],
  ["GET", "/tasks"],
  ["POST", "/tasks/t1:cancel"],
  ["GET", "/tasks/t1:subscribe"],
  ["POST", "/tasks/t1/pushNotificationConfigs"],
  ["GET", "/tasks/t1/pushNotificationConfigs"],
  ["GET", "/tasks/t1/pushNotificationConfigs/c1"],
  ["DELETE", "/tasks/t1/pushNotificationConfigs/c1"],
  ["GET", "/extendedAgentCard"],
  // 1.0's tenant routes under `v1`, which look like 0.3's but that 0.3 does not have (it has no ListTasks).
  ["GET", "/v1/tasks"],
  ["GET", "/v1/extendedAgentCard"],
  ["GET", "/acme/tasks/t1"],
];

describe("a 1.0.1 agent serving 0.3.0 over HTTP+JSON: requests without A2A-Version (§3.2.6)", () => {
  let agent: CompatAgent;
  beforeAll(async () => {
    agent = await startCompatAgent("node", { bindings: ["HTTP+JSON"] });
  }, 120_000);
  afterAll(async () => agent.close());

  it("every 0.3 route is served in 0.3, never refused for its version", async () => {
    const sent = await call(agent, "POST", "/v1/message:send", {}, send03);
    expect(sent.status, sent.text).toBe(200);
    const id = String(((sent.json as Json)["task"] as Json)["id"]);
    const routes: Array<[string, string, unknown?]> = [
      ["POST", "/v1/message:stream", send03],
      ["GET", `/v1/tasks/${id}`],
      ["POST", `/v1/tasks/${id}:cancel`, {}],
      ["GET", `/v1/tasks/${id}:subscribe`],
      ["POST", `/v1/tasks/${id}:subscribe`, {}],
      ["POST", `/v1/tasks/${id}/pushNotificationConfigs`, { name: `tasks/${id}/pushNotificationConfigs/c1`, pushNotificationConfig: { id: "c1", url: "https://example.com/hook" } }],
      ["GET", `/v1/tasks/${id}/pushNotificationConfigs`],
      ["GET", `/v1/tasks/${id}/pushNotificationConfigs/c1`],
      ["DELETE", `/v1/tasks/${id}/pushNotificationConfigs/c1`],
      ["GET", "/v1/card"],
    ];
    for (const [method, path, body] of routes) {
      const r = await call(agent, method, path, {}, body);
      expect(refusalOf(r.json), `${method} ${path}: ${r.text}`).toBeUndefined();
      expect(r.status, `${method} ${path}: ${r.text}`).toBeLessThan(500);
      // 0.3's error object when refused for another reason (a finished task is not cancelable, no extended card…).
      if (r.status >= 400) expect(r.json, `${method} ${path}`).toMatchObject({ code: expect.any(Number), message: expect.any(String) });
    }
  });

  it("a route only 1.0 has: VersionNotSupportedError saying it is read as 0.3, 0.3 has no such route, both versions served, and the header to send", async () => {
    for (const [method, path] of ONLY_1_0) {
      const r = await call(agent, method, path, {}, method === "POST" ? {} : undefined);
      const refusal = refusalOf(r.json);
      expect(r.status, `${method} ${path}: ${r.text}`).toBe(400);
      expect(refusal?.message, `${method} ${path}`).toBe(
        `No A2A-Version given (read as 0.3), but ${method} /rest${path} is an A2A 1.0 route that 0.3 does not have; this agent serves 1.0 and 0.3: send A2A-Version: 1.0 to call it in 1.0`,
      );
      expect(refusal?.supported).toEqual(["1.0", "0.3"]);
      expect(r.text).not.toMatch(/this agent speaks/);
      // As the refusal says: with the header, the same request is 1.0's (answered, or refused for other reasons than its version).
      const asked = await call(agent, method, path, { "A2A-Version": "1.0" }, method === "POST" ? {} : undefined);
      expect(refusalOf(asked.json), `${method} ${path} with A2A-Version: 1.0: ${asked.text}`).toBeUndefined();
    }
  });

  it("with A2A-Version: 0.3 on a route only 1.0 has, the refusal names the version given", async () => {
    const r = await call(agent, "GET", "/tasks/t1", { "A2A-Version": "0.3" });
    expect(refusalOf(r.json)?.message).toBe("A2A-Version 0.3 given, but GET /rest/tasks/t1 is an A2A 1.0 route that 0.3 does not have; this agent serves 1.0 and 0.3: send A2A-Version: 1.0 to call it in 1.0");
  });

  it("a version the agent does not serve, on either version's routes: both served versions named", async () => {
    for (const path of ["/tasks/t1", "/v1/tasks/t1"]) {
      const r = await call(agent, "GET", path, { "A2A-Version": "2.0" });
      expect(refusalOf(r.json), path).toEqual({ message: "Version 2.0 is not supported; this agent serves 1.0 and 0.3: send A2A-Version: 1.0 or 0.3", supported: ["1.0", "0.3"] });
    }
  });
});

describe("a 1.0.1 agent serving 1.0.1 only: without A2A-Version it speaks only 1.0, and says how to ask", () => {
  let agent: CompatAgent;
  beforeAll(async () => {
    agent = await startCompatAgent("node", { bindings: ["HTTP+JSON"], compat: false });
  }, 120_000);
  afterAll(async () => agent.close());

  it("GET /tasks/t1 and /v1/tasks/t1 (a tenant, not 0.3's route here)", async () => {
    for (const path of ["/tasks/t1", "/v1/tasks/t1"]) {
      const r = await call(agent, "GET", path);
      expect(refusalOf(r.json), path).toEqual({ message: "No A2A-Version given (read as 0.3); this agent speaks 1.0: send A2A-Version: 1.0", supported: ["1.0"] });
    }
  });
});
