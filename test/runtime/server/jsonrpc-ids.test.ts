/**
 * JSON-RPC ids (issue 16 item 8). JSON-RPC 2.0 §4: an id is "a String, Number, or NULL value"; null and
 * fractional numbers are only SHOULD NOTs, so they are legal and the response echoes them (§5: "It MUST
 * be the same as the value of the id member in the Request Object"). An integer beyond 2^53 is echoed
 * exactly as it was written (a double would round it). The A2A specifications defer to JSON-RPC 2.0 for the
 * envelope (schema/specification-1.0.1.md §9.1; schema/specification-0.3.0.md §6.11).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FRAMEWORKS, rawPost, startServer, type RunningServer } from "../../support/servers.js";

const getTask = (idText: string, version: string) =>
  `{"jsonrpc":"2.0","id":${idText},"method":"${version === "1.0.1" ? "GetTask" : "tasks/get"}","params":{"id":"no-such-task"}}`;

const headers = (version: string): Record<string, string> =>
  version === "1.0.1" ? { "content-type": "application/json", "a2a-version": "1.0" } : { "content-type": "application/json" };

/** The raw text of the response's `id` member (the JSON parse of the test would round it too). */
const idTextOf = (text: string) => /"id":(-?[0-9][0-9.eE+-]*|null|"[^"]*")/.exec(text)?.[1];

for (const version of ["0.3.0", "1.0.1"]) {
  for (const framework of FRAMEWORKS) {
    describe(`JSON-RPC ids, ${version} on ${framework}`, () => {
      let server: RunningServer;
      beforeAll(async () => {
        server = await startServer(version, framework);
      });
      afterAll(async () => server.close());

      it.each([
        ["null", "null"],
        ["a fractional number", "1.5"],
        ["an integer beyond 2^53", "9007199254740993"],
        ["a negative integer beyond 2^53", "-123456789012345678901234567890"],
        ["a string", '"abc"'],
      ])("%s is echoed, the call answered (TaskNotFound, not -32600)", async (_name, idText) => {
        const response = await rawPost(server.rpcUrl, getTask(idText, version), headers(version));
        expect(response.status).toBe(200);
        expect(idTextOf(response.text), response.text).toBe(idText);
        expect((response.json as { error?: { code: number } }).error?.code).toBe(-32001);
      });

      it("an integer id beyond 2^53 is echoed exactly in a batch", async () => {
        const body = `[${getTask("9007199254740993", version)},${getTask("2", version)}]`;
        const response = await rawPost(server.rpcUrl, body, headers(version));
        expect(response.text).toMatch(/"id":9007199254740993[,}]/);
        expect(response.text).toMatch(/"id":2[,}]/);
      });

      it("an integer id beyond 2^53 is echoed exactly on a stream's events", async () => {
        const method = version === "1.0.1" ? "SendStreamingMessage" : "message/stream";
        const message =
          version === "1.0.1"
            ? { role: "ROLE_USER", messageId: "m-big", parts: [{ text: "hello" }] }
            : { kind: "message", role: "user", messageId: "m-big", parts: [{ kind: "text", text: "hello" }] };
        const body = `{"jsonrpc":"2.0","id":12345678901234567890,"method":"${method}","params":${JSON.stringify({ message })}}`;
        const response = await rawPost(server.rpcUrl, body, headers(version));
        expect(response.headers.get("content-type")).toMatch(/text\/event-stream/);
        const events = response.text.split("\n").filter((line) => line.startsWith("data:"));
        expect(events.length).toBeGreaterThan(0);
        for (const event of events) expect(event).toMatch(/"id":12345678901234567890[,}]/);
      });
    });
  }
}
