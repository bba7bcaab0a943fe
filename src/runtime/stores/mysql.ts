/**
 * The MySQL store (mysql2; MySQL 8 or MariaDB 10.6 and later): tasks, push configs, task event logs, the
 * push outbox and execution leases in tables it creates and migrates itself.
 *
 * - Migrations are versioned (`<prefix>migrations`) and run under a named lock (GET_LOCK), so that several
 *   instances starting at once migrate once. MySQL commits each DDL statement by itself: a migration cut
 *   short is finished by the next run (it is recorded only once all its statements ran).
 * - Task updates are compare-and-set on a `version` column; a commit writes the task, its events, its
 *   push notifications and its lease change in one transaction sent as one round trip (the connections
 *   allow several statements per call; every value is bound by the driver, never spliced in).
 * - Live event subscriptions: MySQL has no notifications, so the store polls the log end of the tasks
 *   followed every `pollMs` while anyone subscribes (its own commits wake its subscribers at once).
 * - Time (leases, outbox, retention) is the database's clock, so instances need not agree on theirs.
 * - Transactions run at READ COMMITTED (no gap locks between unrelated tasks); a deadlock the engine
 *   breaks is run again.
 * - A lost connection gives `StoreUnavailableError` (bounded by `connectTimeoutMs` and `queryTimeoutMs`,
 *   never a hang or a crash); the pool opens new connections by itself.
 */
import mysql from "mysql2/promise";
import { StoreError, StoreUnavailableError } from "./errors.js";
import type { A2AStore } from "./contract.js";
import { MysqlTaskEventLog } from "./mysql/event-log.js";
import { MysqlExecutionLeases } from "./mysql/leases.js";
import { MysqlPushOutbox } from "./mysql/outbox.js";
import { MysqlPushConfigStore } from "./mysql/push-configs.js";
import { migrationLock, migrationsTable, mysqlMigrations, mysqlTables } from "./mysql/schema.js";
import { ENGINE, mysqlError, NOW_MS, type RoundTripCounter, rowsOf, Sql } from "./mysql/sql.js";
import { MysqlTaskStore } from "./mysql/task-store.js";

export { mysqlMigrations, migrationLock, migrationsTable } from "./mysql/schema.js";

export interface MysqlStoreOptions {
  /** `mysql://user:password@host:port/database` (`mariadb://` too), or the connection settings in `pool`. */
  url?: string;
  /** Extra mysql2 pool settings (ssl, connectionLimit, ...); `url` wins over its own. */
  pool?: mysql.PoolOptions;
  /** Prefix of the tables (letters, digits, `_`); default "a2a_". */
  tablePrefix?: string;
  /** Longest wait for a connection, in ms; default 5_000. */
  connectTimeoutMs?: number;
  /** Longest wait for a query, in ms; default 10_000. */
  queryTimeoutMs?: number;
  /** How often other instances' commits are looked for while anyone subscribes to a log, in ms; default 50. */
  pollMs?: number;
  /** Run the migrations when connecting; default true. Without them, a database behind this store's schema is refused. */
  migrate?: boolean;
  /** Where connection errors seen in the background are reported; default: nowhere (they surface as StoreUnavailableError). */
  onBackgroundError?: (error: StoreError) => void;
}

/**
 * What each new connection sets first, whatever the server's defaults: strict mode (a value too long for
 * its column is an error, never cut short, so two long ids cannot become one), backslash escapes in
 * strings (what the driver's escaping of bound values relies on), long patch lists read whole, and no
 * gap locks.
 */
const SESSION_SETUP = [
  "SET SESSION sql_mode = 'STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION'",
  "SET SESSION group_concat_max_len = 1073741824",
  "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
].join("; ");

export class MysqlStore implements A2AStore {
  readonly engine = ENGINE;
  readonly tasks: MysqlTaskStore;
  readonly pushConfigs: MysqlPushConfigStore;
  readonly events: MysqlTaskEventLog;
  readonly outbox: MysqlPushOutbox;
  readonly leases: MysqlExecutionLeases;
  /** Calls sent so far (round trips), for benchmarks. */
  readonly roundTrips: RoundTripCounter = { count: 0 };
  /** The tables' name prefix. */
  readonly prefix: string;
  private closed = false;
  private readonly pool: mysql.Pool;
  private readonly sql: Sql;

  private constructor(pool: mysql.Pool, prefix: string, queryTimeoutMs: number, pollMs: number) {
    this.pool = pool;
    this.prefix = prefix;
    this.sql = new Sql(pool, this.roundTrips, queryTimeoutMs, () => this.closed);
    this.events = new MysqlTaskEventLog(this.sql, prefix, pollMs);
    this.tasks = new MysqlTaskStore(this.sql, prefix, (taskId) => this.events.wake(taskId));
    this.pushConfigs = new MysqlPushConfigStore(this.sql, prefix);
    this.outbox = new MysqlPushOutbox(this.sql, prefix);
    this.leases = new MysqlExecutionLeases(this.sql, prefix);
  }

  /** Connects, runs the pending migrations, and returns the store; `StoreUnavailableError` when the engine cannot be reached. */
  static async connect(options: MysqlStoreOptions): Promise<MysqlStore> {
    const prefix = options.tablePrefix ?? "a2a_";
    if (!/^[a-z_][a-z0-9_]{0,39}$/.test(prefix)) throw new StoreError(`tablePrefix: expected lower-case letters, digits and "_" (at most 40), got ${JSON.stringify(prefix)}`, "invalid");
    const pool = mysql.createPool({
      connectionLimit: 10,
      maxIdle: 10,
      idleTimeout: 30_000,
      enableKeepAlive: true,
      ...options.pool,
      ...(options.url !== undefined ? { uri: options.url.replace(/^mariadb:/i, "mysql:") } : {}),
      connectTimeout: options.connectTimeoutMs ?? 5_000,
      // Several statements per call: a commit is one round trip. Values are always bound by the driver.
      multipleStatements: true,
      charset: "utf8mb4",
      timezone: "Z",
    });
    pool.pool.on("connection", (connection) => {
      connection.query(SESSION_SETUP, (error: unknown) => {
        if (error) options.onBackgroundError?.(mysqlError(error, "session setup"));
      });
    });
    const store = new MysqlStore(pool, prefix, options.queryTimeoutMs ?? 10_000, options.pollMs ?? 50);
    try {
      if (options.migrate !== false) await store.migrate();
      else {
        const current = await store.schemaVersion();
        const known = mysqlMigrations(prefix).length;
        if (current > known) throw newerSchemaError(current, known);
        if (current < known) {
          throw new StoreError(`${ENGINE} store: the database schema is at version ${current}, this store needs ${known}; run \`a2a-codegen store migrate --url mysql://…\``, "failed");
        }
      }
    } catch (error) {
      await store.close();
      throw error;
    }
    return store;
  }

  /** The schema version of the database (0: none of this store's tables yet). */
  async schemaVersion(): Promise<number> {
    const table = `${this.prefix}migrations`;
    const results = await this.sql.query(
      "schema version",
      "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?",
      [table],
    );
    if (Number(rowsOf<{ n: number }>(results[0])[0]?.n ?? 0) === 0) return 0;
    const [row] = await this.sql.rows<{ v: number | null }>("schema version", `SELECT max(version) AS v FROM ${table}`);
    return Number(row?.v ?? 0);
  }

  /** Applies the migrations this database lacks, once across instances; returns the schema version. */
  async migrate(): Promise<number> {
    const p = this.prefix;
    const all = mysqlMigrations(p);
    let connection: mysql.PoolConnection;
    try {
      connection = await this.pool.getConnection();
    } catch (error) {
      throw mysqlError(error, "migrate");
    }
    let locked = false;
    try {
      const [lock] = await connection.query<Array<mysql.RowDataPacket & { got: number | null }>>(`SELECT GET_LOCK(${migrationLock(p)}, 60) AS got`);
      if (Number(lock[0]?.got) !== 1) throw new StoreError(`${ENGINE} store: migrate: another instance held the migration lock for 60 s`, "failed");
      locked = true;
      await connection.query(migrationsTable(p));
      const [rows] = await connection.query<Array<mysql.RowDataPacket & { v: number }>>(`SELECT coalesce(max(version), 0) AS v FROM ${p}migrations`);
      const current = Number(rows[0]?.v ?? 0);
      if (current > all.length) throw newerSchemaError(current, all.length);
      for (let version = current + 1; version <= all.length; version++) {
        for (const statement of all[version - 1] as string[]) await connection.query(statement);
        await connection.query(`INSERT INTO ${p}migrations (version, applied_at) VALUES (?, ${NOW_MS})`, [version]);
      }
      return all.length;
    } catch (error) {
      throw mysqlError(error, "migrate");
    } finally {
      if (locked) await connection.query(`DO RELEASE_LOCK(${migrationLock(p)})`).catch(() => undefined);
      connection.release();
    }
  }

  async purgeFinished(options: { olderThanMs: number; limit?: number }): Promise<number> {
    const p = this.prefix;
    const ids = await this.sql.rows<{ id: Buffer }>(
      "purge",
      `SELECT id FROM ${p}tasks WHERE terminal AND updated_at < ${NOW_MS} - ? ORDER BY updated_at LIMIT ?`,
      [options.olderThanMs, options.limit ?? 10_000],
    );
    if (ids.length === 0) return 0;
    const list = ids.map((r) => r.id);
    const marks = list.map(() => "?").join(", ");
    // A task written again meanwhile (not finished any more) is kept, with all that belongs to it.
    const results = await this.sql.transaction(
      "purge",
      [
        `CREATE TEMPORARY TABLE IF NOT EXISTS ${p}purged (id VARBINARY(768) NOT NULL PRIMARY KEY)`,
        `DELETE FROM ${p}purged`,
        `INSERT INTO ${p}purged (id) SELECT id FROM ${p}tasks WHERE id IN (${marks}) AND terminal AND updated_at < ${NOW_MS} - ? FOR UPDATE`,
        ...["events", "task_patches", "push_configs", "leases"].map((t) => `DELETE x FROM ${p}${t} x JOIN ${p}purged d ON x.task_id = d.id`),
        `DELETE x FROM ${p}tasks x JOIN ${p}purged d ON x.id = d.id`,
      ],
      [...list, options.olderThanMs],
    );
    return Number((results.at(-1) as { affectedRows: number }).affectedRows);
  }

  /** One round trip (`SELECT 1`, readiness); StoreUnavailableError when the engine does not answer or the store is closed. */
  async ping(): Promise<void> {
    if (this.closed) throw new StoreUnavailableError(ENGINE, "ping: the store is closed");
    try {
      await this.pool.query("SELECT 1");
    } catch (error) {
      throw mysqlError(error, "ping");
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.events.stop();
    await this.pool.end().catch(() => undefined);
  }

  /** Drops every table of this store (tests and uninstall). */
  async dropTables(): Promise<void> {
    await this.sql.query("drop tables", `DROP TABLE IF EXISTS ${mysqlTables(this.prefix).join(", ")}`);
  }
}

function newerSchemaError(current: number, known: number): StoreError {
  return new StoreError(`${ENGINE} store: the database schema is at version ${current}, newer than this store knows (${known}); upgrade the agent`, "failed");
}
