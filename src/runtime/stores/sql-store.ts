/**
 * What the SQLite-family stores (the file store on better-sqlite3, sqlite.ts; the Durable Object store,
 * durable-object.ts) have in common once their driver is open: the five parts over one `Sql`, the
 * statement count, retention, and closing. Each store adds its driver, how it opens and how it pings.
 */
import type { A2AStore } from "./contract.js";
import { Sql, type SqlDriver } from "./sql-database.js";
import { SqliteTaskEventLog } from "./sql-events.js";
import { purgeFinished, SqlitePushConfigStore, SqliteTaskStore } from "./sql-tasks.js";
import { SqliteExecutionLeases, SqlitePushOutbox } from "./sqlite-queues.js";

export abstract class SqlFamilyStore implements A2AStore {
  readonly engine: string;
  readonly tasks: SqliteTaskStore;
  readonly pushConfigs: SqlitePushConfigStore;
  readonly events: SqliteTaskEventLog;
  readonly outbox: SqlitePushOutbox;
  readonly leases: SqliteExecutionLeases;
  /** Statements run so far, for benchmarks. */
  readonly roundTrips = { count: 0 };
  protected closed = false;
  protected readonly sql: Sql;

  /**
   * @param pollMs how often other connections' commits are looked for while anyone subscribes (0: never;
   *   no other connection writes)
   * @param peers the event logs of the other stores on the same database in this isolate (sql-events.ts)
   */
  protected constructor(engine: string, driver: SqlDriver, pollMs: number, peers?: Set<SqliteTaskEventLog>) {
    this.engine = engine;
    const sql = (this.sql = new Sql(engine, driver, this.roundTrips, () => this.closed));
    this.events = new SqliteTaskEventLog(sql, pollMs, peers);
    this.tasks = new SqliteTaskStore(sql, (taskId) => this.events.wake(taskId));
    this.pushConfigs = new SqlitePushConfigStore(sql);
    this.outbox = new SqlitePushOutbox(sql);
    this.leases = new SqliteExecutionLeases(sql);
  }

  async purgeFinished(options: { olderThanMs: number; limit?: number }): Promise<number> {
    return purgeFinished(this.sql, options);
  }

  abstract ping(): Promise<void>;

  /** Stops the subscriptions' wake-ups, then lets the store release its driver (idempotent). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.events.stop();
    this.release();
  }

  /** What closing gives back beside the subscriptions (a file store closes its file). */
  protected abstract release(): void;
}
