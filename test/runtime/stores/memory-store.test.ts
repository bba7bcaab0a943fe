/**
 * The store pieces of src/runtime/stores/ beyond the store contract (test/runtime/stores/):
 * the in-memory store's bounds, the facts stores index, page tokens, values that cannot be stored,
 * and compare-and-set under real latency.
 */
import { describe, expect, it } from "vitest";
import { InMemoryStore, scheduleRetention } from "../../../src/runtime/stores/memory.js";
import { InMemoryTaskStore } from "../../../src/runtime/stores/memory-task-store.js";
import { StoreError, TaskVersionConflictError } from "../../../src/runtime/stores/errors.js";
import { decodePageToken, encodePageToken } from "../../../src/runtime/stores/paging.js";
import { taskFacts } from "../../../src/runtime/stores/task-json.js";
import type { A2AStore, TaskStore } from "../../../src/runtime/stores/contract.js";
import { slowStore } from "../../support/stores/slow.js";

const task = (id: string, extra: Record<string, unknown> = {}) => ({ id, contextId: "c", status: { state: "working", timestamp: "2026-01-01T00:00:00.000Z" }, ...extra });

describe("InMemoryStore", () => {
  it("keeps at most maxTasks, oldest out first, and forgets the events, configs and lease of a task it drops", async () => {
    const store = new InMemoryStore({ maxTasks: 2 });
    for (const id of ["a", "b"]) {
      await store.tasks.commit({ task: task(id), expectedVersion: 0, events: [{ event: { id }, final: false }], lease: { acquire: "me", ttlMs: 60_000 } });
      await store.pushConfigs.set(id, { url: "https://h.example" });
    }
    await store.tasks.commit({ task: task("c"), expectedVersion: 0 });
    expect(store.tasks.size).toBe(2);
    expect(await store.tasks.load("a")).toBeUndefined();
    expect(await store.events.read("a")).toEqual([]);
    expect(await store.pushConfigs.list("a")).toEqual([]);
    expect(await store.leases.holder("a")).toBeUndefined();
    expect(await store.events.read("b")).toHaveLength(1);
    expect(await store.leases.holder("b")).toMatchObject({ owner: "me" });
  });

  it("still serves the original TaskStore interface (get, save, list) the server uses", async () => {
    const tasks: TaskStore = new InMemoryTaskStore();
    await tasks.save(task("t1"));
    await tasks.save(task("t2", { contextId: "other" }));
    await tasks.save({ ...task("t1"), metadata: { again: true } });
    expect(await tasks.get("t1")).toMatchObject({ metadata: { again: true } });
    // Newest save first.
    expect((await tasks.list!()).map((t) => t.id)).toEqual(["t1", "t2"]);
    expect((await tasks.list!({ contextId: "other" })).map((t) => t.id)).toEqual(["t2"]);
  });
});

describe("values a store refuses", () => {
  it("refuses a task nested deeper than JSON.stringify can write, stores nothing, and keeps listing (issue 16 item 1)", async () => {
    const store = new InMemoryStore();
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 20_000; i++) deep = { d: deep };
    const write = store.tasks.commit({ task: task("deep", { metadata: deep }), expectedVersion: 0 });
    await expect(write).rejects.toBeInstanceOf(StoreError);
    await expect(write).rejects.toMatchObject({ code: "invalid", message: expect.stringMatching(/^task "deep" cannot be stored: /) });
    await expect(store.tasks.save(task("deep", { metadata: deep }))).rejects.toMatchObject({ code: "invalid" });
    await expect(store.pushConfigs.set("x", { url: "https://h.example", deep })).rejects.toMatchObject({ code: "invalid" });
    expect(await store.tasks.load("deep")).toBeUndefined();
    expect(await store.tasks.query({})).toMatchObject({ totalSize: 0 });
  });

  it("refuses a task without an id, naming the field", async () => {
    await expect(new InMemoryStore().tasks.commit({ task: { status: {} }, expectedVersion: 0 })).rejects.toThrow(/^task\.id: expected a non-empty string$/);
  });
});

describe("taskFacts", () => {
  it("reads the context (0.1.0 sessionId too), the state in any version's spelling, and the status time", () => {
    expect(taskFacts({ id: "t", contextId: "c", status: { state: "TASK_STATE_COMPLETED", timestamp: "2026-01-01T00:00:01Z" } })).toEqual({
      id: "t",
      contextId: "c",
      state: "TASK_STATE_COMPLETED",
      terminal: true,
      statusTime: Date.parse("2026-01-01T00:00:01Z"),
    });
    expect(taskFacts({ id: "t", sessionId: "s", status: { state: "canceled" } }, 42)).toMatchObject({ contextId: "s", terminal: true, statusTime: 42 });
    for (const state of ["working", "submitted", "input-required", "TASK_STATE_WORKING", "TASK_STATE_AUTH_REQUIRED", "unknown"]) {
      expect(taskFacts({ id: "t", status: { state } }).terminal, state).toBe(false);
    }
    for (const state of ["completed", "failed", "rejected", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"]) {
      expect(taskFacts({ id: "t", status: { state } }).terminal, state).toBe(true);
    }
  });
});

describe("page tokens", () => {
  it("round-trip any id, and refuse what this server did not write", () => {
    for (const id of ["plain", "with:colon", "ünïcødé ☃ 𝄞", ""]) {
      expect(decodePageToken(encodePageToken(1_700_000_000_123, id))).toEqual({ statusTime: 1_700_000_000_123, id });
    }
    expect(encodePageToken(1, "x")).toMatch(/^[A-Za-z0-9_-]+$/);
    for (const bad of ["", "%%%", "WzEsMl0", encodePageToken(1, "x").slice(0, -2), btoa('["1","x"]')]) {
      expect(() => decodePageToken(bad), bad).toThrow(/^pageToken: not a page token of this server$/);
    }
  });
});

describe("compare-and-set under real latency (a store that takes 5 ms per call)", () => {
  it("applies every concurrent read-modify-write once when writers retry on conflict; a blind save would lose them", async () => {
    const run = async (store: A2AStore, useCas: boolean) => {
      await store.tasks.commit({ task: task("t", { history: [] }), expectedVersion: 0 });
      await Promise.all(
        Array.from({ length: 4 }, async (_, writer) => {
          for (let turn = 0; turn < 2; turn++) {
            for (;;) {
              const current = (await store.tasks.load("t"))!;
              const next = { ...current.task, history: [...(current.task.history as string[]), `${writer}.${turn}`] };
              if (!useCas) {
                await store.tasks.save(next);
                break;
              }
              try {
                await store.tasks.commit({ task: next, expectedVersion: current.version });
                break;
              } catch (error) {
                if (!(error instanceof TaskVersionConflictError)) throw error;
              }
            }
          }
        }),
      );
      return ((await store.tasks.get("t"))!.history as string[]).length;
    };
    expect(await run(slowStore(new InMemoryStore(), 5), true)).toBe(8);
    // The same writers with last-writer-wins saves lose turns: the race is real.
    expect(await run(slowStore(new InMemoryStore(), 5), false)).toBeLessThan(8);
  });
});

describe("scheduleRetention", () => {
  it("purges at each tick until stopped, and reports failures without stopping", async () => {
    const calls: number[] = [];
    const errors: unknown[] = [];
    const store = {
      async purgeFinished(options: { olderThanMs: number }) {
        calls.push(options.olderThanMs);
        if (calls.length === 1) throw new StoreError("engine down", "unavailable");
        return 0;
      },
    };
    const stop = scheduleRetention(store, { olderThanMs: 60_000, everyMs: 10, onError: (e) => errors.push(e) });
    while (calls.length < 3) await new Promise((r) => setTimeout(r, 5));
    stop();
    const after = calls.length;
    await new Promise((r) => setTimeout(r, 50));
    expect(calls.length).toBe(after);
    expect(calls.every((ms) => ms === 60_000)).toBe(true);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: "unavailable" });
  });
});
