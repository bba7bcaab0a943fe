/**
 * The durable engines a test file runs on: SQLite always, and from A2A_TEST_POSTGRES_URL / A2A_TEST_MYSQL_URL /
 * A2A_TEST_REDIS_URL (an absent one
 * skips with a message, or fails with CI=true: `engineUrl`), each with how to open a store on a table or
 * key prefix of its own and how to remove what it wrote.
 */
import { MysqlStore } from "../../../src/runtime/stores/mysql.js";
import { PostgresStore } from "../../../src/runtime/stores/postgres.js";
import { RedisStore } from "../../../src/runtime/stores/redis.js";
import { SqliteStore } from "../../../src/runtime/stores/sqlite.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { A2AStore } from "../../../src/runtime/stores/contract.js";
import { engineUrl } from "./contract.js";

export interface DurableEngine {
  name: "sqlite" | "postgres" | "mysql" | "redis";
  open(ns: string): Promise<A2AStore>;
  /** Deletes the namespace's tables or keys (through a store opened on it). */
  drop(store: A2AStore): Promise<void>;
}

export function durableEngines(): DurableEngine[] {
  const engines: DurableEngine[] = [];
  // SQLite needs no server: always there, a file per namespace in a temp folder.
  const sqliteDir = mkdtempSync(join(tmpdir(), "a2a-sqlite-durable-"));
  engines.push({
    name: "sqlite",
    open: (ns) => SqliteStore.open({ path: join(sqliteDir, `${ns}.db`) }),
    drop: async (s) => {
      const path = (s as SqliteStore).path;
      await s.close();
      for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
    },
  });
  const pgUrl = engineUrl("A2A_TEST_POSTGRES_URL", "PostgreSQL");
  if (pgUrl) {
    engines.push({ name: "postgres", open: (ns) => PostgresStore.connect({ connectionString: pgUrl, tablePrefix: `${ns}_` }), drop: (s) => (s as PostgresStore).dropTables() });
  }
  const mysqlUrl = engineUrl("A2A_TEST_MYSQL_URL", "MySQL");
  if (mysqlUrl) engines.push({ name: "mysql", open: (ns) => MysqlStore.connect({ url: mysqlUrl, tablePrefix: `${ns}_` }), drop: (s) => (s as MysqlStore).dropTables() });
  const redisUrl = engineUrl("A2A_TEST_REDIS_URL", "Redis");
  if (redisUrl) engines.push({ name: "redis", open: (ns) => RedisStore.connect({ url: redisUrl, keyPrefix: `${ns}:` }), drop: (s) => (s as RedisStore).dropKeys() });
  return engines;
}
