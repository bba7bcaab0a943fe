/**
 * A server generated without --telemetry has no telemetry to turn on. Its `telemetry` option is typed
 * `false`, so that code written for both kinds of output compiles. Any other value is refused when the
 * server is made, with a TypeError naming the option and the flag. Plain JavaScript can pass one, and so
 * can a cast. It once reached the runtime's internal hooks, and every call then answered "Internal error".
 */
import { describe, expect, it } from "vitest";
import { modules, testCard, testExecutor } from "../../support/servers.js";

for (const version of ["1.0.1", "0.3.0"] as const) {
  describe(`${version}, generated without --telemetry: the telemetry option`, () => {
    it("refuses an options object or true when the server is made, naming --telemetry", async () => {
      const m = await modules(version);
      const card = testCard(version);
      for (const telemetry of [{}, { recordPrincipal: true }, true]) {
        // @ts-expect-error -- the option is typed `false` in this output; plain JavaScript can pass anything
        const make = () => m.core.createA2AServer({ card: card as never, executor: testExecutor() as never, telemetry });
        expect(make).toThrow(TypeError);
        expect(make).toThrow(/^telemetry: .*generated without --telemetry.*--telemetry/);
      }
    });

    it("takes false (off) and undefined, and then answers as it does without the option", async () => {
      const m = await modules(version);
      const card = testCard(version);
      for (const options of [{ telemetry: false as const }, { telemetry: undefined }]) {
        const core = m.core.createA2AServer({ card: card as never, executor: testExecutor() as never, rpcPath: "/a2a", ...options });
        const method = version === "1.0.1" ? "SendMessage" : "message/send";
        const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: m.client.A2AClient.sendParams("hello") });
        const answer = await core.handle({ method: "POST", path: "/a2a", query: new URLSearchParams(), headers: { "content-type": "application/json", ...(version === "1.0.1" ? { "a2a-version": "1.0" } : {}) }, body });
        expect(answer.status).toBe(200);
        expect(answer.kind === "json" ? JSON.parse(answer.body) : undefined).toMatchObject({ jsonrpc: "2.0", id: 1, result: {} });
        await core.close();
      }
    });
  });
}
