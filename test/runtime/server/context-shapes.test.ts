import { describe, expect, it } from "vitest";
import { httpCallContext } from "../../../src/runtime/http/http.js";
import { startServer } from "../../support/servers.js";

/**
 * The contexts the runtime makes for every request (the executor's RequestContext, the call context a
 * binding passes the service) read their `signal` through one getter function shared by all of them. An
 * object literal with its own `get signal()` closure gets a hidden class of its own from V8, in the old
 * generation, which kept every request's objects alive through young-generation collections: a hello
 * message/send took 2.5× as long in-process (the commit that changed them has the numbers). The getter is
 * an own enumerable property, so that a copy (`{ ...ctx, text }`) keeps the signal, as it did.
 */
describe("per-request contexts share one signal getter", () => {
  it("every executor context has the same signal getter, a copy keeps the signal, and it aborts when the task is canceled", async () => {
    const contexts: { signal: AbortSignal }[] = [];
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    const server = await startServer("0.3.0", "node", {
      executor: () => ({
        async execute(ctx: { signal: AbortSignal; text: string }, events: { working(): void; completed(): void }) {
          contexts.push(ctx);
          if (ctx.text !== "wait") {
            events.completed();
            return;
          }
          events.working();
          started();
          // An executor that hands a copy of its context on, as a wrapper of another executor would.
          const copy = { ...ctx, text: "changed" };
          await new Promise<void>((resolve) => {
            copy.signal.addEventListener("abort", () => resolve(), { once: true });
            setTimeout(resolve, 3000);
          });
        },
        async cancel() {},
      }),
    });
    try {
      const rpc = async (method: string, params: unknown) => {
        const response = await fetch(server.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
        return (await response.json()) as { result?: { id?: string; status?: { state?: string } } };
      };
      const message = (text: string) => ({ message: { kind: "message", role: "user", messageId: `m-${text}`, parts: [{ kind: "text", text }] } });
      await rpc("message/send", message("one"));
      const sent = await rpc("message/send", { ...message("wait"), configuration: { blocking: false } });
      await running;
      const canceled = await rpc("tasks/cancel", { id: sent.result?.id });
      expect(canceled.result?.status?.state).toBe("canceled");

      expect(contexts).toHaveLength(2);
      const [first, second] = contexts.map((ctx) => Object.getOwnPropertyDescriptor(ctx, "signal"));
      expect(typeof first?.get).toBe("function");
      expect(first?.get).toBe(second?.get);
      expect(first?.enumerable).toBe(true);
      const waited = contexts[1] as { signal: AbortSignal };
      const until = Date.now() + 4000;
      while (!waited.signal.aborted && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
      // specification-0.3.0.md §7.4 (tasks/cancel): the canceled task's work stops; here through its signal.
      expect(waited.signal.aborted).toBe(true);
      expect({ ...waited }.signal).toBe(waited.signal);
    } finally {
      await server.close();
    }
  });

  it("every HTTP call context has the same signal getter; its signal is the request's, or one that never aborts; authenticated is absent unless given", () => {
    const controller = new AbortController();
    const request = { method: "POST", path: "/a2a", query: new URLSearchParams(), headers: {}, body: undefined, signal: controller.signal };
    const withSignal = httpCallContext(request, "JSONRPC", { principal: "p" });
    const without = httpCallContext({ ...request, signal: undefined }, "JSONRPC");
    expect(Object.getOwnPropertyDescriptor(withSignal, "signal")?.get).toBe(Object.getOwnPropertyDescriptor(without, "signal")?.get);
    expect(withSignal.signal).toBe(controller.signal);
    expect({ ...withSignal, headers: {} }.signal).toBe(controller.signal);
    expect(without.signal).toBeInstanceOf(AbortSignal);
    expect(without.signal.aborted).toBe(false);
    expect(withSignal.authenticated).toEqual({ principal: "p" });
    expect("authenticated" in without).toBe(false);
  });
});
