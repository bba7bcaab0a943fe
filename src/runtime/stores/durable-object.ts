/**
 * The Durable Object store (`--store durable-object`): an agent on Cloudflare Workers keeps its tasks, push
 * configs, task event logs, push outbox and execution leases in the SQLite database of its own Durable Object
 * (`ctx.storage.sql`), which outlives an eviction, a restart or a deploy of the object.
 *
 * The SQL is the SQLite store's (sql-database.ts, sql-tasks.ts, sql-events.ts, sqlite-queues.ts); only the
 * driver differs: statements go through `ctx.storage.sql.exec`, and a transaction is
 * `ctx.storage.transactionSync` (a Durable Object refuses BEGIN and COMMIT statements). Nothing here imports a
 * `node:` module or a package: the store runs on workerd without `nodejs_compat`.
 *
 * - One Durable Object is one instance of the agent: every request of the agent reaches it, and its storage is
 *   its own (no other object reads it). Compare-and-set commits, the event log with its live subscriptions and
 *   Last-Event-ID resume, push configs, owner scopes and retention (`purgeFinished`) hold as on every store;
 *   leases and outbox claims are kept too, though only this one instance ever takes them.
 * - Stores opened on one storage in one object share their live subscriptions (a commit through one wakes the
 *   subscribers of all).
 * - The limits are the platform's (Cloudflare's documented ones at the time of writing): up to 10 GB of storage
 *   per object; a row or string of up to 2 MB (a task's JSON is one row; a commit's events, which travel as one
 *   JSON string, or its pushes, are written apart when that string would exceed it); up to 100 values bound per
 *   statement (events written apart go in statements of 25).
 */
import { StoreUnavailableError } from "./errors.js";
import { prepareSchema, sqlStoreError, type SqlDriver } from "./sql-database.js";
import type { SqliteTaskEventLog } from "./sql-events.js";
import { SqlFamilyStore } from "./sql-store.js";

export const DURABLE_OBJECT_ENGINE = "durable-object";

/** What the store reads of a cursor `ctx.storage.sql.exec` returns. */
export interface SqlCursorLike {
  toArray(): Array<Record<string, unknown>>;
}

/** The part of a SQLite-backed Durable Object's storage (`ctx.storage`) the store uses. */
export interface DurableObjectStorageLike {
  readonly sql: { exec(query: string, ...bindings: never[]): SqlCursorLike };
  transactionSync<T>(fn: () => T): T;
}

export interface DurableObjectStoreOptions {
  /** Run the migrations when opening; default true. Without them, a database behind this store's schema is refused. */
  migrate?: boolean;
}

/** A Durable Object's SQL storage as a `SqlDriver` (sql-database.ts). */
export class DurableObjectSqlDriver implements SqlDriver {
  /** A Durable Object binds at most 100 values per statement. */
  readonly maxParameters = 100;
  /** A Durable Object's strings and rows hold at most 2 MB. */
  readonly maxStringBytes = 2_000_000;
  private readonly storage: DurableObjectStorageLike;

  constructor(storage: DurableObjectStorageLike) {
    this.storage = storage;
  }

  private rows<R>(text: string, values: readonly unknown[]): R[] {
    return this.storage.sql.exec(text, ...(values as never[])).toArray() as R[];
  }

  get<R>(text: string, values: readonly unknown[]): R | undefined {
    return this.rows<R>(text, values)[0];
  }

  all<R>(text: string, values: readonly unknown[]): R[] {
    return this.rows<R>(text, values);
  }

  run(text: string, values: readonly unknown[]): number {
    this.rows(text, values);
    // The cursor's rowsWritten counts index rows too: the statement's own count is SQLite's changes().
    return this.rows<{ n: number }>("SELECT changes() AS n", [])[0]?.n ?? 0;
  }

  exec(script: string): void {
    this.storage.sql.exec(script).toArray();
  }

  /** One object runs one piece of code at a time: a write and a read snapshot are both `transactionSync`. */
  transaction<T>(_kind: "write" | "read", fn: () => T): T {
    return this.storage.transactionSync(fn);
  }
}

/** The stores opened on each storage in this isolate: their event logs wake one another's subscribers. */
const peersOf = new WeakMap<object, Set<SqliteTaskEventLog>>();

export class DurableObjectSqlStore extends SqlFamilyStore {
  private constructor(storage: DurableObjectStorageLike) {
    let peers = peersOf.get(storage);
    if (!peers) peersOf.set(storage, (peers = new Set()));
    // One object, one connection: no other writer to poll for (0).
    super(DURABLE_OBJECT_ENGINE, new DurableObjectSqlDriver(storage), 0, peers);
  }

  /**
   * The store on a Durable Object's storage (`ctx.storage`, a class declared with `new_sqlite_classes`), its
   * tables created or migrated first. Synchronous: call it in the object's constructor or on its first request.
   */
  static open(storage: DurableObjectStorageLike, options: DurableObjectStoreOptions = {}): DurableObjectSqlStore {
    try {
      prepareSchema(new DurableObjectSqlDriver(storage), DURABLE_OBJECT_ENGINE, options.migrate !== false, "open it with migrate: true");
    } catch (error) {
      throw sqlStoreError(DURABLE_OBJECT_ENGINE, error, "migrate");
    }
    return new DurableObjectSqlStore(storage);
  }

  /** Reads from the database (`SELECT 1`); StoreUnavailableError once closed. */
  async ping(): Promise<void> {
    if (this.closed) throw new StoreUnavailableError(DURABLE_OBJECT_ENGINE, "ping: the store is closed");
    this.sql.read("ping", () => this.sql.get("SELECT 1 AS one"));
  }

  /** The storage stays the object's: nothing to give back. */
  protected release(): void {}
}
