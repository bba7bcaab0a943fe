/** The store contract on SQLite (no server: a temp folder per run, a file per namespace), and what is SQLite's own. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteStore, sqlitePathOf } from "../../../src/runtime/stores/sqlite.js";
import { storeContract } from "../../support/stores/contract.js";

const dir = mkdtempSync(join(tmpdir(), "a2a-sqlite-contract-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const open = (ns: string) => SqliteStore.open({ path: join(dir, `${ns}.db`) });
const drop = async (ns: string) => {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(join(dir, `${ns}.db${suffix}`), { force: true });
};
storeContract("sqlite", { open, drop });

describe("sqlite store files and migrations", () => {
  it("creates the file and its folder, in WAL mode, migrated once when several stores open it at once", async () => {
    const path = join(dir, "nested", "deeper", "agent.db");
    const stores = await Promise.all(Array.from({ length: 4 }, () => SqliteStore.open({ path })));
    for (const store of stores) await store.close();
    const db = new Database(path, { readonly: true });
    try {
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      expect(db.prepare("SELECT version FROM migrations ORDER BY version").all()).toEqual([{ version: 1 }]);
    } finally {
      db.close();
    }
  });

  it("refuses a file migrated by a newer store, and one behind its schema when told not to migrate, naming the command", async () => {
    const newer = join(dir, "newer.db");
    await (await SqliteStore.open({ path: newer })).close();
    const db = new Database(newer);
    db.prepare("INSERT INTO migrations (version, applied_at) VALUES (99, 0)").run();
    db.close();
    await expect(SqliteStore.open({ path: newer })).rejects.toThrow(/schema is at version 99, newer than this store knows \(1\); upgrade the agent/);
    const empty = join(dir, "empty.db");
    await expect(SqliteStore.open({ path: empty, migrate: false })).rejects.toThrow(/schema is at version 0, this store needs 1; run `a2a-codegen store migrate --url sqlite:.*empty\.db`/);
  });

  it("keeps a task, its log, its push configs, pending pushes and leases across a restart (the file reopened)", async () => {
    const path = join(dir, "restart.db");
    const before = await SqliteStore.open({ path });
    const task = { id: "r1", contextId: "c", status: { state: "working", timestamp: new Date().toISOString() }, history: [{ role: "user", parts: [{ text: "hi" }] }] };
    await before.tasks.commit({ task, expectedVersion: 0, owner: "alice", events: [{ event: { n: 1 }, final: false }], pushes: [{ taskId: "r1", target: { url: "http://127.0.0.1:1/hook" }, payload: { n: 1 } }], lease: { acquire: "i1", ttlMs: 60_000 } });
    await before.pushConfigs.set("r1", { id: "p1", url: "http://127.0.0.1:1/hook" });
    // A new connection opens the file, as the agent started again does (kill -9 itself: scaffold-durable.test.ts).
    const after = await SqliteStore.open({ path });
    try {
      expect(await after.tasks.load("r1")).toMatchObject({ task, version: 1, owner: "alice", logSeq: 1 });
      expect(await after.events.read("r1")).toEqual([{ seq: 1, final: false, event: { n: 1 } }]);
      expect(await after.pushConfigs.list("r1")).toEqual([{ id: "p1", url: "http://127.0.0.1:1/hook" }]);
      expect(await after.leases.holder("r1")).toMatchObject({ owner: "i1" });
      const claimed = await after.outbox.claim("i2", { leaseMs: 1_000 });
      expect(claimed).toMatchObject([{ taskId: "r1", target: { url: "http://127.0.0.1:1/hook" }, payload: { n: 1 }, attempts: 1 }]);
      expect(await after.outbox.ack(claimed[0]!.id, "i2")).toBe(true);
      expect(await after.outbox.size()).toBe(0);
    } finally {
      await after.close();
      await before.close();
    }
  });

  it("reads the file of sqlite: and file: URLs", () => {
    expect(sqlitePathOf("sqlite:./data/agent.db")).toBe("./data/agent.db");
    expect(sqlitePathOf("sqlite:///var/lib/agent.db")).toBe("/var/lib/agent.db");
    expect(sqlitePathOf("file:agent.db")).toBe("agent.db");
    expect(sqlitePathOf("sqlite:my%20agent.db")).toBe("my agent.db");
    expect(() => sqlitePathOf("sqlite:")).toThrow(/needs a file path/);
  });
});
