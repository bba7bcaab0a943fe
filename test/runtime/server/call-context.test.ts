import { describe, expect, it } from "vitest";
import { FRAMEWORKS, startServer } from "../../support/servers.js";

/**
 * The call context every binding passes to the service (runtime/service/service.ts CallContext) carries a signal
 * that aborts when the caller goes away; over HTTP each adapter ties it to the connection. Seen through a
 * custom method, which gets the request.
 */
describe("the call context's signal aborts when the client goes away (every adapter)", () => {
  it.each(FRAMEWORKS)("%s: a custom method sees its request's signal abort when the client disconnects", async (framework) => {
    const seen: string[] = [];
    const server = await startServer("0.3.0", framework, {
      methods: {
        "test/wait": async (_params, { request }) => {
          await new Promise<void>((resolve) => {
            if (request.signal?.aborted) resolve();
            request.signal?.addEventListener("abort", () => resolve(), { once: true });
            setTimeout(resolve, 3000);
          });
          seen.push(request.signal?.aborted ? "aborted" : "timed out");
          return "done";
        },
      },
    });
    try {
      const controller = new AbortController();
      const call = fetch(server.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "test/wait" }), signal: controller.signal }).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 100));
      controller.abort();
      await call;
      const until = Date.now() + 4000;
      while (seen.length === 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(seen).toEqual(["aborted"]);
    } finally {
      await server.close();
    }
  });
});
