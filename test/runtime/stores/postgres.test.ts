/** The store contract on PostgreSQL (A2A_TEST_POSTGRES_URL; `source .ci/engines.sh` starts one), and what is PostgreSQL's own. */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { PostgresStore } from "../../../src/runtime/stores/postgres.js";
import { engineUrl, roundTripSuite, scriptEngine, storeContract, unreachableEngineSuite } from "../../support/stores/contract.js";

unreachableEngineSuite(
  "postgres",
  (url) => PostgresStore.connect({ connectionString: url(0), connectTimeoutMs: 1_000, queryTimeoutMs: 1_000 }),
  (port) => `postgres://postgres@127.0.0.1:${port}/postgres`,
);

const url = engineUrl("A2A_TEST_POSTGRES_URL", "PostgreSQL");
if (url) {
  const shared = url;
  const open = (ns: string, url?: string) => PostgresStore.connect({ connectionString: url ?? shared, tablePrefix: `${ns}_`, connectTimeoutMs: 2_000, queryTimeoutMs: 5_000 });
  const drop = async (ns: string) => {
    const store = await open(ns);
    await store.dropTables();
    await store.close();
  };
  storeContract("postgres", { open, drop, privateEngine: scriptEngine("postgres") });
  roundTripSuite("postgres", open, drop);

  describe("postgres store migrations", () => {
    it("migrates once when several instances start at once (advisory lock)", async () => {
      const ns = `m${Date.now().toString(36)}`;
      const stores = await Promise.all(Array.from({ length: 5 }, () => open(ns)));
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query<{ version: number }>(`SELECT version FROM ${ns}_migrations ORDER BY version`);
        expect(rows.map((r) => r.version)).toEqual([1, 2, 3]);
        const tables = await client.query<{ table_name: string }>(
          "SELECT table_name FROM information_schema.tables WHERE table_name LIKE $1 ORDER BY table_name",
          [`${ns}\\_%`],
        );
        expect(tables.rows.map((r) => r.table_name)).toEqual(["events", "leases", "migrations", "outbox", "push_configs", "task_patches", "tasks"].map((t) => `${ns}_${t}`));
        // A database migrated by a newer store is refused, with a message saying so.
        await client.query(`INSERT INTO ${ns}_migrations (version) VALUES (99)`);
        await expect(open(ns)).rejects.toThrow(/schema is at version 99, newer than this store knows \(3\)/);
      } finally {
        for (const store of stores) await store.close();
        await client.end();
        await drop(ns).catch(() => undefined);
        const cleanup = new pg.Client({ connectionString: url });
        await cleanup.connect();
        await cleanup.query(`DROP TABLE IF EXISTS ${ns}_events, ${ns}_task_patches, ${ns}_tasks, ${ns}_push_configs, ${ns}_outbox, ${ns}_leases, ${ns}_migrations CASCADE`);
        await cleanup.end();
      }
    });

    it("refuses a table prefix that is not a plain identifier, naming the option", async () => {
      await expect(PostgresStore.connect({ connectionString: url, tablePrefix: "x; DROP TABLE y" })).rejects.toThrow(/^tablePrefix: expected lower-case letters/);
    });
  });
}
