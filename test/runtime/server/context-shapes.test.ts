import { describe, expect, it } from "vitest";
import { httpCallContext } from "../../../src/runtime/http.js";
import { startServer } from "./harness.js";

/**
 * The contexts the runtime makes for every request (the executor's RequestContext, the call context a
 * binding passes the service) read their `signal` through a getter of their class, never through a getter
 * of their own. An object literal with a getter gets a hidden class of its own from V8, in the old
 * generation, whose getter kept every request's objects alive through young-generation collections: a
 * hello message/send took 2.5× as long in-process (the commit that made them classes has the numbers).
 * The signals still abort: a canceled task's executor sees its context's signal abort.
 */
describe("per-request contexts share their class's signal getter", () => {
  it("the executor's context has no signal getter of its own, and its signal aborts when the task is canceled", async () => {
    const seen: { own: PropertyDescriptor | undefined; proto: PropertyDescriptor | undefined; signal: unknown; aborted?: boolean }[] = [];
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    const server = await startServer("0.3.0", "node", {
      executor: () => ({
        async execute(ctx: { signal: AbortSignal }, events: { working(): void }) {
          const entry = { own: Object.getOwnPropertyDescriptor(ctx, "signal"), proto: Object.getOwnPropertyDescriptor(Object.getPrototypeOf(ctx), "signal"), signal: ctx.signal };
          seen.push(entry);
          events.working();
          started();
          await new Promise<void>((resolve) => {
            ctx.signal.addEventListener("abort", () => resolve(), { once: true });
            setTimeout(resolve, 3000);
          });
          seen[0] = { ...entry, aborted: ctx.signal.aborted };
        },
        async cancel() {},
      }),
    });
    try {
      const rpc = async (method: string, params: unknown) => {
        const response = await fetch(server.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
        return (await response.json()) as { result?: { id?: string; status?: { state?: string } }; error?: unknown };
      };
      const sent = await rpc("message/send", {
        message: { kind: "message", role: "user", messageId: "m-ctx", parts: [{ kind: "text", text: "wait" }] },
        configuration: { blocking: false },
      });
      await running;
      const canceled = await rpc("tasks/cancel", { id: sent.result?.id });
      expect(canceled.result?.status?.state).toBe("canceled");
      const until = Date.now() + 4000;
      while (seen[0]?.aborted === undefined && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));

      for (const entry of seen) {
        expect(entry.own).toBeUndefined();
        expect(typeof entry.proto?.get).toBe("function");
        expect(entry.signal).toBeInstanceOf(AbortSignal);
      }
      expect(seen).toHaveLength(1);
      // specification-0.3.0.md §7.4 (tasks/cancel): the canceled task's work stops; here through its signal.
      expect(seen[0]?.aborted).toBe(true);
    } finally {
      await server.close();
    }
  });

  it("an HTTP call context has no signal getter of its own; its signal is the request's, or one that never aborts", () => {
    const controller = new AbortController();
    const request = { method: "POST", path: "/a2a", query: new URLSearchParams(), headers: {}, body: undefined, signal: controller.signal };
    const withSignal = httpCallContext(request, "JSONRPC", { principal: "p" });
    const without = httpCallContext({ ...request, signal: undefined }, "JSONRPC");
    for (const ctx of [withSignal, without]) {
      expect(Object.getOwnPropertyDescriptor(ctx, "signal")).toBeUndefined();
      expect(ctx.signal).toBeInstanceOf(AbortSignal);
    }
    expect(withSignal.signal).toBe(controller.signal);
    expect(withSignal.authenticated).toEqual({ principal: "p" });
    expect(without.authenticated).toBeUndefined();
    expect(without.signal.aborted).toBe(false);
  });
});
