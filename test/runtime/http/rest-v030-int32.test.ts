/**
 * Issue 29 item 9: 0.3.0's HTTP+JSON binding carries the proto's messages (specification-0.3.0.md §3.2.3,
 * §3.5.6; a2a-0.3.0.proto: `int32 history_length`). A historyLength out of int32's range cannot be such a
 * message: it is refused with InvalidParams (-32602, 400) naming the field as the request has it, as the
 * compat surface and the gRPC binding do, instead of being served.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../support/servers.js";

type Json = Record<string, unknown>;

describe("0.3.0 HTTP+JSON: historyLength beyond int32", () => {
  let server: RunningServer;
  let taskId: string;
  beforeAll(async () => {
    server = await startServer("0.3.0", "node", { rest: true });
    const sent = await fetch(`${server.restUrl}/v1/message:send`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: { messageId: "m-task", role: "ROLE_USER", content: [{ text: "task" }] } }),
    });
    taskId = String((((await sent.json()) as Json).task as Json).id);
  });
  afterAll(async () => server.close());

  it.each(["2147483648", "-2147483649", "9007199254740993"])("GET /v1/tasks/{id}?historyLength=%s → 400 naming /historyLength", async (value) => {
    const r = await fetch(`${server.restUrl}/v1/tasks/${taskId}?historyLength=${value}`);
    const body = (await r.json()) as Json;
    expect(r.status, JSON.stringify(body)).toBe(400);
    expect(body).toMatchObject({ code: -32602, data: { issues: [{ pointer: "/historyLength" }] } });
    expect(JSON.stringify(body)).toContain("int32");
  });

  it("the largest int32 is served", async () => {
    const r = await fetch(`${server.restUrl}/v1/tasks/${taskId}?historyLength=2147483647`);
    expect(r.status).toBe(200);
  });

  it("POST /v1/message:send with configuration.historyLength 2147483648 → 400 naming /configuration/historyLength", async () => {
    const r = await fetch(`${server.restUrl}/v1/message:send`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: { messageId: "m-big", role: "ROLE_USER", content: [{ text: "task" }] }, configuration: { historyLength: 2147483648 } }),
    });
    const body = (await r.json()) as Json;
    expect(r.status, JSON.stringify(body)).toBe(400);
    expect(body).toMatchObject({ code: -32602, data: { issues: [{ pointer: "/configuration/historyLength" }] } });
  });
});
