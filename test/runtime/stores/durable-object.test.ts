/**
 * The store contract on the Durable Object store (durable-object.ts) in Node: its SQL through a stand-in of
 * `ctx.storage` over better-sqlite3 that keeps the platform's rules (test/support/stores/sql-storage.ts). The
 * same store on workerd's own `ctx.storage.sql` runs the contract in test/edge/durable-object-store.test.ts.
 */
import { afterAll, describe, expect, it } from "vitest";
import { DurableObjectSqlStore } from "../../../src/runtime/stores/durable-object.js";
import { StoreUnavailableError, TaskVersionConflictError } from "../../../src/runtime/stores/errors.js";
import { SQLITE_MIGRATIONS } from "../../../src/runtime/stores/sql-database.js";
import { storeContract } from "../../support/stores/contract.js";
import { SqlStorageOverSqlite } from "../../support/stores/sql-storage.js";

const storages = new Map<string, SqlStorageOverSqlite>();
afterAll(() => {
  for (const storage of storages.values()) storage.close();
});

/** One storage per namespace: two stores opened on it are two stores of one Durable Object. */
function storageOf(ns: string): SqlStorageOverSqlite {
  let storage = storages.get(ns);
  if (!storage) storages.set(ns, (storage = new SqlStorageOverSqlite()));
  return storage;
}

storeContract("durable-object (Node stand-in)", {
  open: async (ns) => DurableObjectSqlStore.open(storageOf(ns)),
  drop: async (ns) => {
    storages.get(ns)?.close();
    storages.delete(ns);
  },
});

describe("durable-object store on its storage", () => {
  it("creates its tables once, and a store opened again on the storage finds what the first wrote", async () => {
    const storage = new SqlStorageOverSqlite();
    try {
      const first = DurableObjectSqlStore.open(storage);
      await first.tasks.commit({ task: { id: "d1", contextId: "c", status: { state: "working", timestamp: new Date().toISOString() } }, expectedVersion: 0, owner: "alice", events: [{ event: { n: 1 }, final: false }] });
      await first.close();
      await expect(first.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
      const again = DurableObjectSqlStore.open(storage);
      expect(await again.tasks.load("d1")).toMatchObject({ version: 1, owner: "alice", logSeq: 1 });
      expect(storage.sql.exec("SELECT version FROM migrations ORDER BY version").toArray()).toEqual(SQLITE_MIGRATIONS.map((_, i) => ({ version: i + 1 })));
      expect(() => DurableObjectSqlStore.open(storage, { migrate: false })).not.toThrow();
      expect(() => DurableObjectSqlStore.open(new SqlStorageOverSqlite(), { migrate: false })).toThrow(`schema is at version 0, this store needs ${SQLITE_MIGRATIONS.length}`);
    } finally {
      storage.close();
    }
  });

  it("logs more events at once than one statement may bind values for (100): a commit's as one JSON value, an append's 25 a statement", async () => {
    const storage = new SqlStorageOverSqlite();
    try {
      const store = DurableObjectSqlStore.open(storage);
      const events = Array.from({ length: 60 }, (_, n) => ({ event: { n }, final: false }));
      const before = store.roundTrips.count;
      const written = await store.tasks.commit({ task: { id: "many", contextId: "c", status: { state: "working", timestamp: new Date().toISOString() } }, expectedVersion: 0, events });
      expect(store.roundTrips.count - before).toBe(1);
      expect(written.sequences).toEqual(events.map((_, i) => i + 1));
      const more = Array.from({ length: 60 }, (_, n) => ({ event: { n: 60 + n }, final: n === 59 }));
      expect(await store.events.append("many", more)).toEqual(more.map((_, i) => 61 + i));
      expect((await store.events.read("many")).map((e) => e.event)).toEqual([...events, ...more].map((e) => e.event));
    } finally {
      storage.close();
    }
  });

  it("writes a commit whose events would make a string over 2 MB apart, in one transaction with it, and refuses it whole on a conflict", async () => {
    const storage = new SqlStorageOverSqlite();
    try {
      const store = DurableObjectSqlStore.open(storage);
      const task = { id: "big", contextId: "c", status: { state: "working", timestamp: new Date().toISOString() } };
      await store.tasks.commit({ task, expectedVersion: 0, events: [{ event: { n: 0 }, final: false }] });
      // Three events of 0.9 MB each: each fits in a string, their JSON together does not.
      const events = Array.from({ length: 3 }, (_, n) => ({ event: { n: n + 1, text: "\"x\"".repeat(300_000) }, final: false }));
      const pushes = [{ taskId: "big", target: { url: "http://127.0.0.1:1/hook" }, payload: { n: 1 } }];
      const stale = store.tasks.commit({ task, expectedVersion: 7, events, pushes });
      await expect(stale).rejects.toBeInstanceOf(TaskVersionConflictError);
      await expect(stale).rejects.toMatchObject({ expectedVersion: 7, actualVersion: 1 });
      expect(await store.events.read("big")).toHaveLength(1);
      expect(await store.outbox.size()).toBe(0);
      expect(await store.tasks.commit({ task, expectedVersion: 1, events, pushes })).toEqual({ version: 2, sequences: [2, 3, 4] });
      expect((await store.events.read("big")).map((e) => e.event)).toEqual([{ n: 0 }, ...events.map((e) => e.event)]);
      expect(await store.outbox.size()).toBe(1);
      expect(await store.tasks.load("big")).toMatchObject({ version: 2, logSeq: 4 });
    } finally {
      storage.close();
    }
  });
});
