/**
 * The store contract on the Durable Object store under workerd (miniflare, no nodejs_compat): every call of
 * the suite runs on `ctx.storage.sql` of a SQLite-backed Durable Object (fixtures/store-worker.ts, reached
 * through remote-store.ts); each namespace is an object of its own, and its two stores are two stores on
 * that object's storage. The same suite runs in Node on a stand-in of ctx.storage
 * (test/runtime/stores/durable-object.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storeContract } from "../support/stores/contract.js";
import { openRemoteStore } from "./remote-store.js";
import { agentProject, bundle, runtimeUnavailable, startWorkerd, type RunningAgent } from "./runtimes.js";

const why = runtimeUnavailable("workerd");
if (why !== undefined) {
  if (process.env["CI"] === "true") throw new Error(`workerd cannot start on this machine: ${why}`);
  describe.skip(`durable-object store on workerd (workerd cannot start on this machine: ${why})`, () => it("skipped", () => undefined));
} else {
  let worker: RunningAgent | undefined;
  beforeAll(async () => {
    const script = await bundle(await agentProject(["durable-object"]), "store-worker.ts");
    worker = await startWorkerd(script, { STORE: { className: "StoreObject", useSQLite: true } });
  }, 120_000);
  afterAll(async () => worker?.close());

  storeContract("durable-object on workerd", {
    open: (ns) => openRemoteStore(worker!.url, ns),
    unfit: { "refuses a task it cannot store, and stores nothing of it": "a cyclic task cannot cross to workerd as JSON (test/runtime/stores/durable-object.test.ts runs it)" },
  });

  describe("durable-object store on workerd's own limits", () => {
    it("logs a commit of more events than one statement may bind there (100 values: 25 events a statement)", async () => {
      const store = await openRemoteStore(worker!.url, `limits-${Date.now().toString(36)}`);
      try {
        const events = Array.from({ length: 60 }, (_, n) => ({ event: { n }, final: n === 59 }));
        const written = await store.tasks.commit({ task: { id: "many", contextId: "c", status: { state: "working", timestamp: new Date().toISOString() } }, expectedVersion: 0, events });
        expect(written.sequences).toEqual(events.map((_, i) => i + 1));
        expect((await store.events.read("many")).map((e) => e.event)).toEqual(events.map((e) => e.event));
      } finally {
        await store.close();
      }
    });
  });
}
