/** The store contract on the in-memory store (the embedded default). */
import { describe, expect, it, vi } from "vitest";
import { compactTaskText, expandTaskText } from "../../../src/runtime/stores/task-json.js";
import { InMemoryStore } from "../../../src/runtime/stores/memory.js";
import { rng } from "../../support/seeded-random.js";
import { storeContract } from "../../support/stores/contract.js";

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
    // Numbered like any other (the runtime's event ids), though never serialized nor kept.
    const done = await store.tasks.commit({ task: task("quiet", "completed"), expectedVersion: 1, events: [{ event: event(2), final: false }, { event: event(3), final: true }] });
    expect(done.sequences).toEqual([2, 3]);
    expect(await store.events.read("quiet")).toEqual([]);
    expect(await store.events.end("quiet")).toBe(3);
    expect(await store.tasks.load("quiet")).toMatchObject({ version: 2, task: { status: { state: "completed" } } });
    // A subscription to it from now on starts after its last sequence, and a new event follows on.
    const received: number[] = [];
    const subscription = store.events.subscribe("quiet", (e) => received.push(e.seq));
    expect(await store.events.append("quiet", [{ event: event(4), final: false }])).toEqual([4]);
    expect(received).toEqual([4]);
    subscription.close();
    await store.close();
  });

  it("serializes the events of a finishing commit only where a stream follows or followed the task", async () => {
    const store = new InMemoryStore();
    const stringify = vi.spyOn(JSON, "stringify");
    try {
      const events = [{ event: event(1), final: false }, { event: event(2), final: true }];
      await store.tasks.commit({ task: task("unread", "completed"), text: JSON.stringify(task("unread", "completed")), expectedVersion: 0, events });
      stringify.mockClear();
      await store.tasks.commit({ task: task("unread2", "completed"), text: JSON.stringify(task("unread2", "completed")), expectedVersion: 0, events });
      expect(stringify.mock.calls.filter(([value]) => value === events[0]?.event || value === events[1]?.event)).toHaveLength(0);
      const subscription = store.events.subscribe("watched", () => undefined);
      await store.tasks.commit({ task: task("watched", "completed"), text: JSON.stringify(task("watched", "completed")), expectedVersion: 0, events });
      subscription.close();
      expect(stringify.mock.calls.filter(([value]) => value === events[0]?.event || value === events[1]?.event)).toHaveLength(2);
      expect((await store.events.read("watched")).map((e) => e.seq)).toEqual([1, 2]);
    } finally {
      stringify.mockRestore();
      await store.close();
    }
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

describe("in-memory store: a task's text kept with its ids written once", () => {
  const message = (text: string, taskId: string, contextId: string, messageId: string) => ({ kind: "message", role: "agent", messageId, parts: [{ kind: "text", text }], taskId, contextId });

  it("keeps a finished task's text about a third shorter and reads back the same task", async () => {
    const store = new InMemoryStore();
    const [id, ctx] = ["79633c48-2b7b-4755-87b1-8a7fb57b45dd", "222cf06c-495d-41cf-b09f-e2ce02f8e066"];
    const done = message("done", id, ctx, "m3");
    const task = {
      kind: "task",
      id,
      contextId: ctx,
      status: { state: "completed", timestamp: "2026-11-24T02:21:22.239Z", message: done },
      history: [message("task", id, ctx, "m1"), message("on it", id, ctx, "m2"), done],
      artifacts: [{ artifactId: "result", parts: [{ kind: "text", text: "the result" }] }],
    };
    await store.tasks.commit({ task, expectedVersion: 0 });
    const text = JSON.stringify(task);
    const kept = compactTaskText(text, id, ctx);
    expect(kept.length).toBeLessThan(text.length * 0.7);
    expect(await store.tasks.get(id)).toEqual(task);
    expect((await store.tasks.query({ contextId: ctx })).tasks).toEqual([task]);
    // A running task is kept as written (it is written again soon); it reads back the same.
    const running = { ...task, id: "t2", status: { state: "working" }, history: [message("task", "t2", ctx, "m4")] };
    await store.tasks.commit({ task: running, expectedVersion: 0 });
    expect(await store.tasks.get("t2")).toEqual(running);
  });

  it("round-trips any text exactly: ids that need escaping or look like replacement patterns, members of other tasks, the pattern inside strings, control characters", () => {
    const r = rng(20261124);
    // Ids that need escaping in JSON, that are replacement patterns of String.replace ($&, $$, $'), or prefixes of one another.
    const ids = ["t", 'quote"d', "back\\slash", "ünïcode-✓", "line\nbreak", "\u0001", "t1", "t10", "a$&b", "$$", "$'", ""];
    const strings = ['"taskId":"t"', '\u0001\u0002', "taskId", "contextId", '"contextId":"c"', "plain"];
    const value = (depth: number): unknown => {
      switch (r.int(depth > 2 ? 3 : 6)) {
        case 0:
          return r.pick(strings);
        case 1:
          return r.pick(ids);
        case 2:
          return r.int(100);
        case 3:
          return Array.from({ length: r.int(3) }, () => value(depth + 1));
        default: {
          const o: Record<string, unknown> = {};
          for (let i = r.int(4); i > 0; i--) o[r.pick(["taskId", "contextId", "id", "text", r.pick(strings)])] = value(depth + 1);
          return o;
        }
      }
    };
    for (let n = 0; n < 2_000; n++) {
      const taskId = r.pick(ids.filter((i) => i !== ""));
      const contextId = r.pick(ids);
      const text = JSON.stringify({ id: taskId, contextId, taskId, history: [{ taskId, contextId, x: value(0) }, value(0)] });
      const kept = compactTaskText(text, taskId, contextId);
      expect(expandTaskText(kept, taskId, contextId)).toBe(text);
      expect(kept.length).toBeLessThan(text.length);
    }
  });
});

describe("in-memory store: a running task's interim writes (TaskCommit.interim)", () => {
  const running = (n: number) => ({ kind: "task", id: "t1", contextId: "c1", status: { state: "working" }, artifacts: [{ artifactId: "a", parts: Array.from({ length: n }, (_, i) => ({ kind: "text", text: `p${i}` })) }] });

  it("says it keeps them as objects; a read is a value of the reader's own; the next write replaces the object", async () => {
    const store = new InMemoryStore();
    expect(store.tasks.keepsInterimTasks).toBe(true);
    const first = running(2);
    await store.tasks.commit({ task: first, expectedVersion: 0, interim: true });
    const read = (await store.tasks.get("t1")) as ReturnType<typeof running>;
    expect(read).toEqual(first);
    expect(read).not.toBe(first);
    read.artifacts[0]?.parts.push({ kind: "text", text: "a reader's" });
    expect(((await store.tasks.load("t1"))?.task as ReturnType<typeof running>).artifacts[0]?.parts).toHaveLength(2);
    const done = { ...running(3), status: { state: "completed" } };
    await store.tasks.commit({ task: done, expectedVersion: 1, interim: true }); // finished: kept as text whatever it says
    expect(await store.tasks.get("t1")).toEqual(done);
    expect((await store.tasks.query({})).tasks).toEqual([done]);
  });

  it("reads an interim write with its interimText: the writer may go on appending to the task's parts", async () => {
    const store = new InMemoryStore();
    const task = running(2);
    const parts = task.artifacts[0]?.parts ?? [];
    const asWritten = JSON.stringify(task);
    let reads = 0;
    await store.tasks.commit({
      task,
      expectedVersion: 0,
      interim: true,
      interimText: () => {
        reads++;
        return asWritten;
      },
    });
    parts.push({ kind: "text", text: "p2, for the next write" }); // what the runtime does before its next write
    expect(reads).toBe(0); // nothing serialized at the write
    expect(await store.tasks.get("t1")).toEqual(running(2));
    expect(((await store.tasks.query({})).tasks[0] as ReturnType<typeof running>).artifacts[0]?.parts).toHaveLength(2);
    expect(reads).toBe(2);
    // The next write replaces it, with what it holds.
    await store.tasks.commit({ task: { ...task }, expectedVersion: 1, interim: true, interimText: () => JSON.stringify(running(3)) });
    expect(((await store.tasks.get("t1")) as ReturnType<typeof running>).artifacts[0]?.parts).toHaveLength(3);
  });

  it("only a write that says it is interim and has no text skips serializing: any other refuses what JSON cannot write", async () => {
    const store = new InMemoryStore();
    const bad = { ...running(1), metadata: { big: 10n } };
    await expect(store.tasks.commit({ task: bad, expectedVersion: 0 })).rejects.toMatchObject({ code: "invalid" });
    // Interim: the writer vouches that every change is in the write's events (serialized, so refused there).
    const event = { kind: "artifact-update", taskId: "t1", contextId: "c1", artifact: { artifactId: "a", parts: [{ kind: "text", text: "p0" }] }, big: 1n };
    await expect(store.tasks.commit({ task: running(1), expectedVersion: 0, interim: true, events: [{ event, final: false }] })).rejects.toMatchObject({ code: "invalid" });
    expect(await store.tasks.get("t1")).toBeUndefined();
  });
});
