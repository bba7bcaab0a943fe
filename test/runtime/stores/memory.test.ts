/** The store contract on the in-memory store (the embedded default). */
import { describe, expect, it } from "vitest";
import { InMemoryStore } from "../../../src/runtime/tasks.js";
import { storeContract } from "./contract.js";

const stores = new Map<string, InMemoryStore>();
storeContract("memory", {
  // One process: two "instances" of a namespace are the same store.
  async open(ns) {
    let store = stores.get(ns);
    if (!store) stores.set(ns, (store = new InMemoryStore()));
    return store;
  },
  async drop(ns) {
    stores.delete(ns);
  },
});

describe("in-memory store retention of finished tasks' events", () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const task = (id: string, state: string) => ({ id, contextId: "c", status: { state, timestamp: new Date().toISOString() } });
  const event = (n: number) => ({ kind: "status-update", n });

  it("keeps a followed finished task's events for finishedEventsMs after its last write, then drops them and keeps the task; sequences go on", async () => {
    const store = new InMemoryStore({ finishedEventsMs: 100 });
    try {
      await store.tasks.commit({ task: task("done", "working"), expectedVersion: 0, events: [{ event: event(1), final: false }] });
      // A stream follows it (and goes away before the end: its client may resume with Last-Event-ID).
      store.events.subscribe("done", () => undefined).close();
      await store.tasks.commit({ task: task("done", "completed"), expectedVersion: 1, events: [{ event: event(2), final: true }] });
      await store.tasks.commit({ task: task("running", "working"), expectedVersion: 0, events: [{ event: event(1), final: false }] });
      // Within the window: a client resuming with Last-Event-ID 1 gets the rest.
      expect(await store.events.read("done", 1)).toEqual([{ seq: 2, event: event(2), final: true }]);
      await sleep(60);
      // A later write to the finished task starts its window again.
      await store.tasks.commit({ task: { ...task("done", "completed"), metadata: { late: true } }, expectedVersion: 2 });
      await sleep(60);
      expect(await store.events.read("done")).toHaveLength(2);
      await sleep(1_200);
      expect(await store.events.read("done")).toEqual([]);
      expect(await store.tasks.load("done")).toMatchObject({ version: 3, task: { metadata: { late: true } } });
      // A running task keeps its whole log.
      expect(await store.events.read("running")).toHaveLength(1);
      // The sequence goes on after the dropped events, with no gap.
      expect(await store.events.append("done", [{ event: event(3), final: false }])).toEqual([3]);
      expect(await store.events.read("done")).toEqual([{ seq: 3, event: event(3), final: false }]);
      expect(await store.events.read("done", 1)).toEqual([{ seq: 3, event: event(3), final: false }]);
    } finally {
      await store.close();
    }
  });

  it("drops the events of a finished task no stream followed when it finishes (no client has an event id to resume from)", async () => {
    const store = new InMemoryStore();
    await store.tasks.commit({ task: task("quiet", "working"), expectedVersion: 0, events: [{ event: event(1), final: false }] });
    expect(await store.events.read("quiet")).toHaveLength(1);
    await store.tasks.commit({ task: task("quiet", "completed"), expectedVersion: 1, events: [{ event: event(2), final: true }] });
    expect(await store.events.read("quiet")).toEqual([]);
    expect(await store.tasks.load("quiet")).toMatchObject({ version: 2, task: { status: { state: "completed" } } });
    // A subscription to it from now on starts after its last sequence, and a new event follows on.
    const received: number[] = [];
    const subscription = store.events.subscribe("quiet", (e) => received.push(e.seq));
    expect(await store.events.append("quiet", [{ event: event(3), final: false }])).toEqual([3]);
    expect(received).toEqual([3]);
    subscription.close();
    await store.close();
  });

  it("keeps the events of a followed task by default for 10 s", async () => {
    const store = new InMemoryStore();
    await store.tasks.commit({ task: task("t", "working"), expectedVersion: 0 });
    store.events.subscribe("t", () => undefined).close();
    await store.tasks.commit({ task: task("t", "failed"), expectedVersion: 1, events: [{ event: event(1), final: true }] });
    await sleep(1_100);
    expect(await store.events.read("t")).toHaveLength(1);
    await store.close();
  });
});

describe("in-memory event log delivery", () => {
  it("delivers each event once to a subscriber that joins while a batch is being delivered", async () => {
    const store = new InMemoryStore();
    await store.tasks.commit({ task: { id: "t", contextId: "c", status: { state: "working" } }, expectedVersion: 0 });
    const late: number[] = [];
    let joined = false;
    const first = store.events.subscribe("t", () => {
      if (joined) return;
      joined = true;
      store.events.subscribe("t", (e) => late.push(e.seq));
    });
    await store.events.append("t", [1, 2, 3].map((n) => ({ event: { n }, final: false })));
    await store.events.append("t", [{ event: { n: 4 }, final: false }]);
    expect(late).toEqual([1, 2, 3, 4]);
    first.close();
  });

  it("forgets a subscription to a task that was never created once it closes", async () => {
    const store = new InMemoryStore();
    store.events.subscribe("never", () => undefined).close();
    expect(store.events.wasFollowed("never")).toBe(false);
    await store.tasks.commit({ task: { id: "kept", contextId: "c", status: { state: "working" } }, expectedVersion: 0 });
    store.events.subscribe("kept", () => undefined).close();
    expect(store.events.wasFollowed("kept")).toBe(true);
  });

  it("knows the sequence of a log's last event without reading (parsing) the events, also once they were dropped", async () => {
    const store = new InMemoryStore();
    await store.tasks.commit({ task: { id: "t", contextId: "c", status: { state: "working" } }, expectedVersion: 0 });
    expect(await store.events.end("t")).toBe(0);
    expect(await store.events.end("missing")).toBe(0);
    await store.events.append("t", [1, 2, 3].map((n) => ({ event: { n }, final: false })));
    expect(await store.events.end("t")).toBe(3);
    // Finished with no stream following it: the events are dropped, the sequence stays.
    await store.tasks.commit({ task: { id: "t", contextId: "c", status: { state: "completed" } }, expectedVersion: 1, events: [{ event: { n: 4 }, final: true }] });
    expect(await store.events.read("t")).toEqual([]);
    expect(await store.events.end("t")).toBe(4);
  });
});
