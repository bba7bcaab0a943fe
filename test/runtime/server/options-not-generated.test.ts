/**
 * The options of a feature an output was generated without: `telemetry` (--telemetry) and `compat`
 * (--compat). Each is typed `false` there, so that code written for both kinds of output compiles.
 * Any other value is refused when the server is made, with a TypeError naming the option and its flag.
 * Plain JavaScript can pass one, and so can a cast. They once reached the runtime's internal hooks: with
 * `telemetry`, every call then answered "Internal error"; with `compat`, even `false` threw
 * "options.compat?.serve is not a function".
 */
import { describe, expect, it } from "vitest";
import { modules, testCard, testExecutor } from "../../support/servers.js";

const REFUSED: ReadonlyArray<readonly [string, unknown]> = [
  ["telemetry", {}],
  ["telemetry", { recordPrincipal: true }],
  ["telemetry", true],
  ["compat", {}],
  ["compat", { card: testCard("0.3.0") }],
  ["compat", true],
];

// Neither bundled output is generated with --telemetry or --compat (generated/, the defaults).
for (const version of ["1.0.1", "0.3.0"] as const) {
  describe(`${version}, generated without --telemetry and --compat: their options`, () => {
    it("refuses a value other than false when the server is made, naming the option and its flag", async () => {
      const m = await modules(version);
      const card = testCard(version);
      for (const [option, value] of REFUSED) {
        const make = () => m.core.createA2AServer({ card: card as never, executor: testExecutor() as never, [option]: value } as never);
        expect(make, `${option}: ${JSON.stringify(value)}`).toThrow(TypeError);
        expect(make, `${option}: ${JSON.stringify(value)}`).toThrow(new RegExp(`^${option}: this server was generated without --${option}; generate it with --${option}`));
      }
    });

    it("takes false (off) and undefined, and then answers as it does without the options", async () => {
      const m = await modules(version);
      const card = testCard(version);
      const method = version === "1.0.1" ? "SendMessage" : "message/send";
      for (const options of [{ telemetry: false, compat: false } as const, { telemetry: undefined, compat: undefined }]) {
        const core = m.core.createA2AServer({ card: card as never, executor: testExecutor() as never, rpcPath: "/a2a", ...options });
        const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: m.client.A2AClient.sendParams("hello") });
        const answer = await core.handle({ method: "POST", path: "/a2a", query: new URLSearchParams(), headers: { "content-type": "application/json", ...(version === "1.0.1" ? { "a2a-version": "1.0" } : {}) }, body });
        expect(answer.status).toBe(200);
        expect(answer.kind === "json" ? JSON.parse(answer.body) : undefined).toMatchObject({ jsonrpc: "2.0", id: 1, result: {} });
        await core.close();
      }
    });
  });
}
