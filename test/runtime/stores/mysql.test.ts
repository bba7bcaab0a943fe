/** The store contract on MySQL (A2A_TEST_MYSQL_URL: MariaDB or MySQL; `source .ci/engines.sh` starts MariaDB), and what is MySQL's own. */
import mysql from "mysql2/promise";
import { describe, expect, it } from "vitest";
import { MysqlStore } from "../../../src/runtime/stores/mysql.js";
import { engineUrl, roundTripSuite, scriptEngine, storeContract, unreachableEngineSuite } from "../../support/stores/contract.js";

unreachableEngineSuite(
  "mysql",
  (url) => MysqlStore.connect({ url: url(0), connectTimeoutMs: 1_000, queryTimeoutMs: 1_000 }),
  (port) => `mysql://root@127.0.0.1:${port}/a2a`,
);

const url = engineUrl("A2A_TEST_MYSQL_URL", "MySQL");
if (url) {
  const shared = url;
  const open = (ns: string, url?: string) => MysqlStore.connect({ url: url ?? shared, tablePrefix: `${ns}_`, connectTimeoutMs: 2_000, queryTimeoutMs: 5_000 });
  const drop = async (ns: string) => {
    const store = await open(ns);
    await store.dropTables();
    await store.close();
  };
  storeContract("mysql", { open, drop, privateEngine: scriptEngine("mysql") });
  roundTripSuite("mysql", open, drop);

  describe("mysql store migrations", () => {
    it("migrates once when several instances start at once (named lock), and refuses a newer schema", async () => {
      const ns = `m${Date.now().toString(36)}`;
      const stores = await Promise.all(Array.from({ length: 5 }, () => open(ns)));
      const client = await mysql.createConnection({ uri: url });
      try {
        const [rows] = await client.query<mysql.RowDataPacket[]>(`SELECT version FROM ${ns}_migrations ORDER BY version`);
        expect(rows.map((r) => r.version)).toEqual([1]);
        const [tables] = await client.query<mysql.RowDataPacket[]>(
          "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name LIKE ? ORDER BY table_name",
          [`${ns}\\_%`],
        );
        expect(tables.map((r) => String(r.name)).sort()).toEqual(["events", "leases", "migrations", "outbox", "push_configs", "task_patches", "tasks"].map((t) => `${ns}_${t}`));
        // A database migrated by a newer store is refused, with a message saying so.
        await client.query(`INSERT INTO ${ns}_migrations (version, applied_at) VALUES (99, 0)`);
        await expect(open(ns)).rejects.toThrow(/schema is at version 99, newer than this store knows \(1\)/);
      } finally {
        for (const store of stores) await store.close();
        await client.end();
        await drop(ns).catch(() => undefined);
      }
    });

    it("without migrating, refuses a database behind its schema and names the command that migrates it", async () => {
      const ns = `n${Date.now().toString(36)}`;
      await expect(MysqlStore.connect({ url, tablePrefix: `${ns}_`, migrate: false })).rejects.toThrow(/schema is at version 0, this store needs 1; run `a2a-codegen store migrate --url mysql:/);
    });

    it("refuses an id longer than its column (768 bytes) instead of cutting it short, so that two long ids never become one", async () => {
      const ns = `l${Date.now().toString(36)}`;
      const store = await open(ns);
      try {
        const long = (end: string) => ({ id: `${"x".repeat(800)}${end}`, contextId: "c", status: { state: "working" } });
        await expect(store.tasks.commit({ task: long("a"), expectedVersion: 0 })).rejects.toThrow(/mysql store: commit failed: .*too long/i);
        await expect(store.tasks.commit({ task: long("b"), expectedVersion: 0 })).rejects.toThrow(/too long/i);
        expect((await store.tasks.query({})).totalSize).toBe(0);
        // Quotes and backslashes in ids are bound values like any other.
        const odd = `it's a \\ "task" \\'; DROP TABLE ${ns}_tasks; --`;
        await store.tasks.commit({ task: { id: odd, contextId: "c", status: { state: "working" } }, expectedVersion: 0 });
        expect((await store.tasks.load(odd))?.task).toMatchObject({ id: odd });
      } finally {
        await store.close();
        await drop(ns);
      }
    });

    it("refuses a table prefix that is not a plain identifier, naming the option", async () => {
      await expect(MysqlStore.connect({ url, tablePrefix: "x; DROP TABLE y" })).rejects.toThrow(/^tablePrefix: expected lower-case letters/);
    });
  });
}
