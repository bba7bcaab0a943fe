/**
 * Issue 29 item 18 (b): an error names a property as the request that carries it has it. 0.3.0's HTTP+JSON
 * binding carries the proto's JSON (specification-0.3.0.md §3.2.3 / §3.5.6; a2a-0.3.0.proto), where a
 * message's parts are `content`; the service checks the JSON-RPC shape, where they are `parts`. The pointer
 * was re-pointed (`/message/content`) but the text kept the JSON-RPC name (`required property "parts"`):
 * every word of the issue must name the field as the caller sent it, on every 0.3 route, on the plain 0.3.0
 * agent and on the 0.3 routes of a 1.0.1 agent that serves 0.3.0 too (`--compat 0.3.0`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repointIssues } from "../../../src/runtime/wire/issue-pointers.js";
import { SHAPES_0_3_0 } from "../../../src/runtime/wire/shapes-0.3.0.js";
import { startCompatAgent, type CompatAgent } from "../../support/compat/agent.js";
import { rawPost, startServer, type RunningServer } from "../../support/servers.js";

type Json = Record<string, unknown>;
const JSON_TYPE = { "content-type": "application/json" };
const issuesOf = (json: unknown) => (((json as Json).data as Json).issues as Json[]) ?? [];

describe("re-pointing an issue renames the property its text names (unit)", () => {
  const toWire = (rpc: string) => (pointer: string) => SHAPES_0_3_0.pointerToWire(rpc, pointer);

  it("a missing `parts` is a missing `content` in every word", () => {
    const data = { issues: [{ pointer: "/params/message/parts", expected: 'a property "parts"', got: "missing", keyword: "required", message: '/params/message/parts: required property "parts" is missing' }] };
    expect(repointIssues(data, toWire("SendMessage"))).toEqual({
      issues: [{ pointer: "/message/content", expected: 'a property "content"', got: "missing", keyword: "required", message: '/message/content: required property "content" is missing' }],
    });
  });

  it("a task id (`id`) is the wire's `name`; a push config id the wire's `name` too", () => {
    const data = { issues: [{ pointer: "/params/id", expected: 'a property "id"', got: "missing", keyword: "required", message: '/params/id: required property "id" is missing' }] };
    expect(JSON.stringify(repointIssues(data, toWire("GetTask")))).not.toContain('"id\\"');
    expect(repointIssues(data, toWire("GetTask"))).toMatchObject({ issues: [{ pointer: "/name", expected: 'a property "name"', message: '/name: required property "name" is missing' }] });
  });

  it("\"one of these properties\" names each under its wire name; a name the wire keeps stays", () => {
    const data = { issues: [{ pointer: "/params/message", expected: 'a property "parts" or "messageId"', got: "neither", keyword: "requiredOneOf", message: '/params/message: must have a property "parts" or "messageId"' }] };
    expect(repointIssues(data, toWire("SendMessage"))).toMatchObject({ issues: [{ pointer: "/message", expected: 'a property "content" or "messageId"', message: '/message: must have a property "content" or "messageId"' }] });
  });

  it("names the wire has unchanged (`url` under the push config) and other issues stay as they are", () => {
    const data = { issues: [{ pointer: "/params/configuration/pushNotificationConfig/url", expected: 'a property "url"', got: "missing", keyword: "required", message: '/params/configuration/pushNotificationConfig/url: required property "url" is missing' }] };
    expect(repointIssues(data, toWire("SendMessage"))).toMatchObject({ issues: [{ pointer: "/configuration/pushNotification/url", expected: 'a property "url"' }] });
    const type = { issues: [{ pointer: "/params/message/parts", expected: "array", got: "string", keyword: "type", message: "/params/message/parts: expected array, got string" }] };
    expect(repointIssues(type, toWire("SendMessage"))).toMatchObject({ issues: [{ pointer: "/message/content", expected: "array", message: "/message/content: expected array, got string" }] });
  });
});

const withoutContent = JSON.stringify({ message: { messageId: "m-1", role: "ROLE_USER" } });

/** The 0.3 routes taking a message, each refused with the missing field named `content` in pointer and text. */
async function expectContentNamed(restUrl: string, headers: Record<string, string>): Promise<void> {
  for (const route of ["/v1/message:send", "/v1/message:stream"]) {
    const r = await rawPost(`${restUrl}${route}`, withoutContent, { ...JSON_TYPE, ...headers });
    expect(r.status, `${route}: ${r.text}`).toBe(400);
    expect(r.json, route).toMatchObject({ code: -32602 });
    const issues = issuesOf(r.json);
    expect(issues, route).toEqual([expect.objectContaining({ pointer: "/message/content", keyword: "required", expected: 'a property "content"', message: '/message/content: required property "content" is missing' })]);
    expect(r.text, route).not.toMatch(/"parts|\bparts\b/);
  }
}

describe("0.3.0 agent over HTTP+JSON: a message without its parts names `content` (§3.2.3)", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer("0.3.0", "node", { rest: true });
  });
  afterAll(async () => server.close());

  it("POST /v1/message:send and :stream", async () => {
    await expectContentNamed(server.restUrl, {});
  });
});

describe("1.0.1 agent serving 0.3.0 (--compat): its 0.3 routes name `content` too", () => {
  let agent: CompatAgent;
  beforeAll(async () => {
    agent = await startCompatAgent("node", { bindings: ["HTTP+JSON"] });
  }, 120_000);
  afterAll(async () => agent.close());

  it("without A2A-Version (0.3, specification-1.0.1.md §3.2.6) and with A2A-Version: 0.3", async () => {
    await expectContentNamed(agent.restUrl, {});
    await expectContentNamed(agent.restUrl, { "A2A-Version": "0.3" });
  });
});
