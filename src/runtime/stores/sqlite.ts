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
import { StoreUnavailableError } from "./errors.js";
import { BetterSqliteDriver, ENGINE, openSqliteDatabase, sqliteError, sqlitePathOf } from "./sqlite-database.js";
import { prepareSchema } from "./sql-database.js";
import { SqlFamilyStore } from "./sql-store.js";

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


export class SqliteStore extends SqlFamilyStore {
  private readonly db: Database.Database;
  /** The database file. */
  readonly path: string;

  private constructor(db: Database.Database, path: string, pollMs: number) {
    super(ENGINE, new BetterSqliteDriver(db), pollMs);
    this.db = db;
    this.path = path;
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
      prepareSchema(new BetterSqliteDriver(db), ENGINE, options.migrate !== false, `run \`a2a-codegen store migrate --url sqlite:${options.path}\``);
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

  /** Reads from the file (`SELECT 1`); StoreUnavailableError once closed or when the file cannot be read. */
  async ping(): Promise<void> {
    if (this.closed) throw new StoreUnavailableError(ENGINE, "ping: the store is closed");
    try {
      this.db.prepare("SELECT 1").get();
    } catch (error) {
      throw sqliteError(error, "ping");
    }
  }

  protected release(): void {
    this.db.close();
  }
}
