/**
 * The store engines the server tests run on: in-memory and SQLite always; PostgreSQL, MySQL and Redis when
 * A2A_TEST_POSTGRES_URL / A2A_TEST_MYSQL_URL / A2A_TEST_REDIS_URL name one (`source .ci/engines.sh` starts them). In CI a
 * missing engine fails loudly; locally its tests are skipped with a message naming it.
 */
import { engineUrl } from "../engines.js";
import { MysqlStore } from "../../../src/runtime/stores/mysql.js";
import { PostgresStore } from "../../../src/runtime/stores/postgres.js";
import { RedisStore } from "../../../src/runtime/stores/redis.js";
import { InMemoryStore } from "../../../src/runtime/stores/memory.js";
import { SqliteStore } from "../../../src/runtime/stores/sqlite.js";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { A2AStore } from "../../../src/runtime/stores/contract.js";

export interface EngineUnderTest {
  name: "memory" | "sqlite" | "postgres" | "mysql" | "redis";
  /** The engine's URL (undefined for memory). */
  url: string | undefined;
  /** A store in a fresh namespace `ns` (every call with the same `ns` shares it). */
  open(ns: string): Promise<A2AStore>;
  /** Removes what a namespace left in the engine. */
  drop(ns: string): Promise<void>;
}

/**
 * The engines to run `what` (the tests of the calling file) on. A missing durable engine registers a
 * skipped suite naming it and how to start it (a failing one in CI): test/support/engines.ts.
 */
export function enginesUnderTest(what = "the server tests"): { engines: EngineUnderTest[]; missing: string[] } {
  const engines: EngineUnderTest[] = [];
  const missing: string[] = [];
  const memories = new Map<string, InMemoryStore>();
  engines.push({
    name: "memory",
    url: undefined,
    open: async (ns) => {
      let store = memories.get(ns);
      if (!store) memories.set(ns, (store = new InMemoryStore()));
      return store;
    },
    drop: async (ns) => void memories.delete(ns),
  });
  // SQLite needs no server: always there, a file per namespace in a folder of this test file's own
  // (the OS removes it with the temp folder); `url` is one file, for the suites that start agent processes.
  const sqliteDir = mkdtempSync(join(tmpdir(), "a2a-sqlite-engine-"));
  engines.push({
    name: "sqlite",
    url: `sqlite:${join(sqliteDir, "shared.db")}`,
    open: (ns) => SqliteStore.open({ path: join(sqliteDir, `${ns}.db`) }),
    drop: async () => undefined,
  });
  const pgUrl = engineUrl("postgres", what);
  if (pgUrl) {
    const open = (ns: string) => PostgresStore.connect({ connectionString: pgUrl, tablePrefix: `${ns}_`, connectTimeoutMs: 2_000, queryTimeoutMs: 5_000 });
    engines.push({
      name: "postgres",
      url: pgUrl,
      open,
      drop: async (ns) => {
        const store = await open(ns);
        await store.dropTables();
        await store.close();
      },
    });
  } else missing.push("PostgreSQL (A2A_TEST_POSTGRES_URL)");
  const mysqlUrl = engineUrl("mysql", what);
  if (mysqlUrl) {
    const open = (ns: string) => MysqlStore.connect({ url: mysqlUrl, tablePrefix: `${ns}_`, connectTimeoutMs: 2_000, queryTimeoutMs: 5_000 });
    engines.push({
      name: "mysql",
      url: mysqlUrl,
      open,
      drop: async (ns) => {
        const store = await open(ns);
        await store.dropTables();
        await store.close();
      },
    });
  } else missing.push("MySQL (A2A_TEST_MYSQL_URL)");
  const redisUrl = engineUrl("redis", what);
  if (redisUrl) {
    engines.push({
      name: "redis",
      url: redisUrl,
      open: (ns) => RedisStore.connect({ url: redisUrl, keyPrefix: `${ns}:`, connectTimeoutMs: 2_000, commandTimeoutMs: 5_000 }),
      drop: async (ns) => {
        const store = await RedisStore.connect({ url: redisUrl, keyPrefix: `${ns}:` });
        await store.dropKeys();
        await store.close();
      },
    });
  } else missing.push("Redis (A2A_TEST_REDIS_URL)");
  return { engines, missing };
}

let counter = 0;
/** A namespace no other test run uses (table prefix / key prefix). */
export function freshNamespace(): string {
  return `s${Date.now().toString(36)}${process.pid.toString(36)}${(counter++).toString(36)}`;
}
