/**
 * Issue 17, 10, end to end: a request nested 10,000 levels deep is answered -32602 (Invalid params) with
 * its request id and the pointer of the place, on every adapter; before, printing the issue threw a
 * RangeError and the server answered 500 with id null. JSON-RPC 2.0 §5.1: -32602 is "Invalid method
 * parameter(s)"; schema/specification-1.0.1.md §5.4 maps it for A2A.
 */
import { afterAll, describe, expect, it } from "vitest";
import { FRAMEWORKS, startServer, type RunningServer } from "../../support/servers.js";

/** The JSON text of a value nested `levels` deep (JSON.stringify itself throws a RangeError at this depth). */
function deep(levels: number): string {
  return '{"a":'.repeat(levels) + '"x"' + "}".repeat(levels);
}

describe("a request 10,000 levels deep", () => {
  const servers: RunningServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  for (const framework of FRAMEWORKS) {
    it(`${framework}: -32602 naming the pointer, the request's id echoed`, async () => {
      const server = await startServer("1.0.1", framework);
      servers.push(server);
      for (const [where, message] of [
        ["/params/message/role", `{"messageId":"m","role":${deep(10_000)},"parts":[{"text":"hi"}]}`],
        ["/params/message/metadata", `{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}],"metadata":${deep(10_000)}}`],
      ] as const) {
        const body = `{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{"message":${message}}}`;
        const response = await fetch(server.rpcUrl, { method: "POST", headers: { "content-type": "application/json", "a2a-version": "1.0" }, body });
        const json = (await response.json()) as { id: unknown; error?: { code: number; message: string } };
        expect(response.status).not.toBe(500);
        expect(json.id).toBe(7);
        expect(json.error?.code).toBe(-32602);
        expect(JSON.stringify(json.error)).toContain(`${where}/a/a/a`);
        expect(JSON.stringify(json.error)).toMatch(/nested deeper than 100 levels/);
      }
    });
  }
});
