/** The store contract on SQLite (no server: a temp folder per run, a file per namespace), and what is SQLite's own. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteStore, sqlitePathOf } from "../../../src/runtime/stores/sqlite.js";
import { storeContract } from "./contract.js";

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

  it("reads the file of sqlite: and file: URLs", () => {
    expect(sqlitePathOf("sqlite:./data/agent.db")).toBe("./data/agent.db");
    expect(sqlitePathOf("sqlite:///var/lib/agent.db")).toBe("/var/lib/agent.db");
    expect(sqlitePathOf("file:agent.db")).toBe("agent.db");
    expect(sqlitePathOf("sqlite:my%20agent.db")).toBe("my agent.db");
    expect(() => sqlitePathOf("sqlite:")).toThrow(/needs a file path/);
  });
});
