/**
 * The request body timeout (issue 16 item 6, server part): a body trickled at a byte at a time is cut
 * once the body timeout passes, on every adapter and both HTTP bindings, with an answer in the binding's
 * error form (JSON-RPC 2.0 error object, specification-1.0.1.md §9.5; google.rpc.Status, §11.6) and the
 * connection closed. No timing is asserted: only that the answer is the timeout refusal, given while
 * most of the declared body is still unsent.
 */
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FRAMEWORKS, startServer, type RunningServer } from "../../support/servers.js";

/** Sends headers declaring `length` bytes, then one byte every `everyMs`; resolves with the raw answer and how many bytes were sent. */
function trickle(url: string, headers: Record<string, string>, length: number, everyMs: number): Promise<{ answer: string; sent: number }> {
  const { hostname, port, pathname } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let answer = "";
    let sent = 0;
    let timer: ReturnType<typeof setInterval> | undefined;
    const body = "{".padEnd(length, " ");
    socket.on("connect", () => {
      const head = [`POST ${pathname} HTTP/1.1`, `host: ${hostname}:${port}`, `content-length: ${length}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), "", ""].join("\r\n");
      socket.write(head);
      timer = setInterval(() => {
        if (sent >= length || socket.destroyed) return;
        socket.write(body[sent] ?? " ");
        sent++;
      }, everyMs);
    });
    socket.on("data", (chunk) => (answer += chunk.toString("utf8")));
    const done = () => {
      clearInterval(timer);
      resolve({ answer, sent });
    };
    socket.on("end", done);
    socket.on("close", done);
    socket.on("error", (error) => (answer ? done() : reject(error)));
  });
}

const CASES = [
  { version: "0.3.0", binding: "JSON-RPC", path: "", headers: { "content-type": "application/json" }, expect: /"code":-32600.*Request body not received within 200 ms/ },
  { version: "1.0.1", binding: "JSON-RPC", path: "", headers: { "content-type": "application/json", "a2a-version": "1.0" }, expect: /"code":-32600.*Request body not received within 200 ms/ },
  { version: "1.0.1", binding: "HTTP+JSON", path: "/message:send", headers: { "content-type": "application/json", "a2a-version": "1.0" }, expect: /"status":"DEADLINE_EXCEEDED".*Request body not received within 200 ms/ },
] as const;

for (const framework of FRAMEWORKS) {
  for (const c of CASES) {
    describe(`request body timeout, ${c.version} ${c.binding} on ${framework}`, () => {
      let server: RunningServer;
      beforeAll(async () => {
        server = await startServer(c.version, framework, { bodyTimeoutMs: 200, rest: c.binding === "HTTP+JSON" });
      });
      afterAll(async () => server.close());

      it("a body trickled a byte at a time is answered 408 in the binding's error form, the connection closed", async () => {
        const { answer, sent } = await trickle(server.rpcUrl + c.path, c.headers, 500, 50);
        expect(answer).toMatch(/^HTTP\/1\.1 408 /);
        expect(answer).toMatch(c.expect);
        expect(answer.toLowerCase()).toMatch(/connection: close/);
        expect(sent).toBeLessThan(500);
      });
    });
  }
}
