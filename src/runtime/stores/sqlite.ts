/**
 * The SQLite store (better-sqlite3): tasks, push configs, task event logs, the push outbox and execution
 * leases in one database file, in WAL mode, which the store creates and migrates itself.
 *
 * - One file serves one agent process or several on one host: every write holds SQLite's single writer
 *   lock (across processes) from its first read on, either as one IMMEDIATE transaction or, for a task's
 *   commit, as one statement that is atomic by itself (the task_commits view's trigger), so compare-and-set
 *   commits, outbox claims and lease take-overs are atomic between processes; a writer that finds the lock
 *   taken waits up to `busyTimeoutMs`.
 * - Migrations are versioned (`migrations` table) and run in one IMMEDIATE transaction: processes starting
 *   at once migrate once. A file migrated by a newer store is refused.
 * - Live event subscriptions: a commit of this store wakes its own subscribers at once; commits of other
 *   connections (other processes) are seen by polling `PRAGMA data_version` every `pollMs` while anyone
 *   subscribes. Events are always read from the log after the last sequence delivered (follower.ts).
 * - Time (leases, outbox, retention) is the host's clock: every process on one host shares it.
 * - The driver is synchronous: a call blocks the event loop for the statement's time (microseconds for
 *   the store's indexed statements), or up to `busyTimeoutMs` while another process writes.
 */
import type Database from "better-sqlite3";
import { StoreError, StoreUnavailableError } from "./errors.js";
import type { A2AStore } from "./contract.js";
import { BetterSqliteDriver, ENGINE, migrateSqlite, newerSchemaError, openSqliteDatabase, sqliteError, sqlitePathOf, sqliteSchemaVersion } from "./sqlite-database.js";
import { Sql, SQLITE_MIGRATIONS } from "./sql-database.js";
import { purgeFinished, SqlitePushConfigStore, SqliteTaskStore } from "./sql-tasks.js";
import { SqliteTaskEventLog } from "./sql-events.js";
import { SqliteExecutionLeases, SqlitePushOutbox } from "./sqlite-queues.js";

export { migrateSqlite, openSqliteDatabase, sqliteError, sqlitePathOf, sqliteSchemaVersion } from "./sqlite-database.js";
export { SQLITE_MIGRATIONS } from "./sql-database.js";
export { SqliteExecutionLeases, SqlitePushOutbox } from "./sqlite-queues.js";
export { SqlitePushConfigStore, SqliteTaskStore } from "./sql-tasks.js";
export { SqliteTaskEventLog } from "./sql-events.js";

export interface SqliteStoreOptions {
  /** The database file (created with its folder when missing), or ":memory:" (one connection only). */
  path: string;
  /** Longest wait for another process's write lock, in ms; default 5_000. */
  busyTimeoutMs?: number;
  /** How often other processes' commits are looked for while anyone subscribes to a log, in ms; default 25. */
  pollMs?: number;
  /** Run the migrations when opening; default true. Without them, a file behind this store's schema is refused. */
  migrate?: boolean;
}


export class SqliteStore implements A2AStore {
  readonly engine = ENGINE;
  readonly tasks: SqliteTaskStore;
  readonly pushConfigs: SqlitePushConfigStore;
  readonly events: SqliteTaskEventLog;
  readonly outbox: SqlitePushOutbox;
  readonly leases: SqliteExecutionLeases;
  /** Statements run so far, for benchmarks. */
  readonly roundTrips = { count: 0 };
  private closed = false;
  private readonly db: Database.Database;
  private readonly sql: Sql;
  /** The database file. */
  readonly path: string;

  private constructor(db: Database.Database, path: string, pollMs: number) {
    this.db = db;
    this.path = path;
    const sql = (this.sql = new Sql(ENGINE, new BetterSqliteDriver(db), this.roundTrips, () => this.closed));
    this.events = new SqliteTaskEventLog(sql, pollMs);
    this.tasks = new SqliteTaskStore(sql, (taskId) => this.events.wake(taskId));
    this.pushConfigs = new SqlitePushConfigStore(sql);
    this.outbox = new SqlitePushOutbox(sql);
    this.leases = new SqliteExecutionLeases(sql);
  }

  /** Opens (creating) the file, runs the pending migrations, and returns the store. */
  static async open(options: SqliteStoreOptions): Promise<SqliteStore> {
    let db: Database.Database;
    try {
      db = openSqliteDatabase(options.path, options.busyTimeoutMs ?? 5_000);
    } catch (error) {
      throw new StoreUnavailableError(ENGINE, `open ${options.path}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    try {
      if (options.migrate !== false) migrateSqlite(db);
      else {
        const current = sqliteSchemaVersion(db);
        if (current > SQLITE_MIGRATIONS.length) throw newerSchemaError(current, SQLITE_MIGRATIONS.length);
        if (current < SQLITE_MIGRATIONS.length) {
          throw new StoreError(
            `${ENGINE} store: the database schema is at version ${current}, this store needs ${SQLITE_MIGRATIONS.length}; run \`a2a-codegen store migrate --url sqlite:${options.path}\``,
            "failed",
          );
        }
      }
    } catch (error) {
      db.close();
      throw sqliteError(error, "migrate");
    }
    return new SqliteStore(db, options.path, options.pollMs ?? 25);
  }

  /** Opens the store of a `sqlite:<path>` or `file:<path>` URL (`sqlite::memory:` for a private in-memory one). */
  static connect(url: string, options: Omit<SqliteStoreOptions, "path"> = {}): Promise<SqliteStore> {
    return SqliteStore.open({ ...options, path: sqlitePathOf(url) });
  }

  async purgeFinished(options: { olderThanMs: number; limit?: number }): Promise<number> {
    return purgeFinished(this.sql, options);
  }

  /** Reads from the file (`SELECT 1`); StoreUnavailableError once closed or when the file cannot be read. */
  async ping(): Promise<void> {
    if (this.closed) throw new StoreUnavailableError(ENGINE, "ping: the store is closed");
    try {
      this.db.prepare("SELECT 1").get();
    } catch (error) {
      throw sqliteError(error, "ping");
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.events.stop();
    this.db.close();
  }
}
