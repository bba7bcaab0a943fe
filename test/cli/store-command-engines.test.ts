/**
 * Issue 36: `a2a-codegen store status|migrate --url <url> [--sql]` on the server engines, PostgreSQL and
 * MySQL (A2A_TEST_POSTGRES_URL / A2A_TEST_MYSQL_URL; `source .ci/engines.sh`), each in a database of its
 * own: status names the pending migrations, `--sql` prints them and changes nothing, and the printed
 * script, run by hand as a DBA would, gives the schema the store opens without migrating.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import mysql from "mysql2/promise";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { MysqlStore, mysqlMigrations } from "../../src/runtime/stores/mysql.js";
import { PostgresStore } from "../../src/runtime/stores/postgres.js";
import { migrations as postgresMigrations } from "../../src/runtime/stores/postgres/schema.js";
import type { A2AStore } from "../../src/runtime/stores/contract.js";
import { ROOT } from "../support/project.js";
import { engineUrl } from "../support/engines.js";

function cli(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [join(ROOT, "dist", "bin.cjs"), ...args], { encoding: "utf8", timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

interface Engine {
  name: string;
  known: number;
  /** A fresh database: its URL, how to run a script in it, and how to remove it. */
  database(): Promise<{ url: string; run(script: string): Promise<void>; tables(): Promise<string[]>; drop(): Promise<void> }>;
  openWithoutMigrating(url: string): Promise<A2AStore>;
}

const engines: Engine[] = [];
const pgUrl = engineUrl("postgres", "the store command on PostgreSQL");
if (pgUrl) {
  engines.push({
    name: "postgres",
    known: postgresMigrations("a2a_").length,
    async database() {
      const name = `cli_${Date.now().toString(36)}_${process.pid}`;
      const admin = new pg.Client({ connectionString: pgUrl });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      const url = new URL(pgUrl);
      url.pathname = `/${name}`;
      const withClient = async <T>(f: (c: pg.Client) => Promise<T>) => {
        const client = new pg.Client({ connectionString: url.toString() });
        await client.connect();
        try {
          return await f(client);
        } finally {
          await client.end();
        }
      };
      return {
        url: url.toString(),
        run: (script) => withClient(async (c) => void (await c.query(script))),
        tables: () => withClient(async (c) => (await c.query<{ t: string }>("SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")).rows.map((r) => r.t)),
        drop: async () => {
          const again = new pg.Client({ connectionString: pgUrl });
          await again.connect();
          await again.query(`DROP DATABASE IF EXISTS ${name}`);
          await again.end();
        },
      };
    },
    openWithoutMigrating: (url) => PostgresStore.connect({ connectionString: url, migrate: false }),
  });
}
const myUrl = engineUrl("mysql", "the store command on MySQL");
if (myUrl) {
  engines.push({
    name: "mysql",
    known: mysqlMigrations("a2a_").length,
    async database() {
      const name = `cli_${Date.now().toString(36)}_${process.pid}`;
      const admin = await mysql.createConnection({ uri: myUrl });
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      const url = new URL(myUrl);
      url.pathname = `/${name}`;
      const withConnection = async <T>(f: (c: mysql.Connection) => Promise<T>) => {
        const connection = await mysql.createConnection({ uri: url.toString(), multipleStatements: true });
        try {
          return await f(connection);
        } finally {
          await connection.end();
        }
      };
      return {
        url: url.toString(),
        run: (script) => withConnection(async (c) => void (await c.query(script))),
        tables: () => withConnection(async (c) => (await c.query<mysql.RowDataPacket[]>("SELECT table_name AS t FROM information_schema.tables WHERE table_schema = DATABASE()"))[0].map((r) => String(r.t)).sort()),
        drop: async () => {
          const again = await mysql.createConnection({ uri: myUrl });
          await again.query(`DROP DATABASE IF EXISTS ${name}`);
          await again.end();
        },
      };
    },
    openWithoutMigrating: (url) => MysqlStore.connect({ url, migrate: false }),
  });
}

for (const engine of engines) {
  describe(`a2a-codegen store on ${engine.name} (issue 36)`, () => {
    it("status names the pending migrations; --sql prints them, changing nothing; the script applied by hand gives the store's schema", async () => {
      const db = await engine.database();
      try {
        const all = Array.from({ length: engine.known }, (_, i) => i + 1).join(", ");
        const status = cli("store", "status", "--url", db.url);
        expect(status.code, status.err).toBe(0);
        expect(status.out).toContain(`${engine.name} (tables a2a_*): schema at version 0 of ${engine.known}; pending: ${all}`);
        const script = cli("store", "migrate", "--url", db.url, "--sql");
        expect(script.code, script.err).toBe(0);
        expect(script.out).toContain(`-- migration ${engine.known}`);
        expect(script.out).toMatch(engine.name === "postgres" ? /^BEGIN;\nSELECT pg_advisory_xact_lock/ : /^SELECT GET_LOCK\(/);
        expect(await db.tables()).toEqual([]);
        await db.run(script.out);
        const store = await engine.openWithoutMigrating(db.url);
        try {
          await store.tasks.commit({ task: { id: "t", contextId: "c", status: { state: "working" } }, expectedVersion: 0, events: [{ event: { n: 1 }, final: false }] });
          expect((await store.tasks.load("t"))?.version).toBe(1);
        } finally {
          await store.close();
        }
        expect(cli("store", "status", "--url", db.url).out).toContain(`schema at version ${engine.known} of ${engine.known}, up to date`);
        expect(cli("store", "migrate", "--url", db.url, "--sql").out.trim()).toBe("-- the schema is up to date: nothing to apply");
        expect(cli("store", "migrate", "--url", db.url).out).toContain(`schema at version ${engine.known}, up to date`);
      } finally {
        await db.drop();
      }
    });

    it("migrate applies the migrations a fresh database lacks", async () => {
      const db = await engine.database();
      try {
        const migrate = cli("store", "migrate", "--url", db.url);
        expect(migrate.code, migrate.err).toBe(0);
        expect(migrate.out).toContain(`schema at version ${engine.known}, up to date`);
        expect(await db.tables()).toContain("a2a_tasks");
        await (await engine.openWithoutMigrating(db.url)).close();
      } finally {
        await db.drop();
      }
    });
  });
}
