/**
 * The SQL of the SQLite-family stores, apart from any driver: the versioned schema, the migrations, the
 * statement helper every part of those stores writes through, the error mapping, and the key encoding of id
 * columns. A driver (`SqlDriver`) runs the statements: better-sqlite3 for the file store (sqlite-database.ts),
 * a Durable Object's `ctx.storage.sql` on Cloudflare Workers (durable-object.ts). Nothing here imports a
 * driver or a `node:` module, so the Workers store bundles without them.
 */
import { StoreError, StoreUnavailableError } from "./errors.js";

/**
 * What the stores need of a synchronous SQLite connection. `values` are bound to the `?` placeholders in
 * order; they are strings, numbers or null.
 */
export interface SqlDriver {
  /** The first row of a statement (undefined: none). */
  get<R>(text: string, values: readonly unknown[]): R | undefined;
  all<R>(text: string, values: readonly unknown[]): R[];
  /** Runs a statement; returns the rows it changed. */
  run(text: string, values: readonly unknown[]): number;
  /** Runs statements without values, several separated by `;` (the migrations). */
  exec(script: string): void;
  /**
   * `fn` in one transaction, committed when it returns and rolled back when it throws: `"write"` takes the
   * writer lock first (no read inside it is stale), `"read"` reads one snapshot.
   */
  transaction<T>(kind: "write" | "read", fn: () => T): T;
  /** Changes whenever another connection commits (undefined: this connection is the only one). */
  dataVersion?(): number;
  /** The most values one statement may bind (a Durable Object allows 100); default 999. */
  readonly maxParameters?: number;
  /** The statements a transaction adds to those run in it (BEGIN and COMMIT: 2), for the store's count; default 0. */
  readonly transactionStatements?: number;
}

/** Maps a driver error to a store error: the lock held too long or the file unreachable, or a failure naming the operation. */
export function sqlStoreError(engine: string, error: unknown, operation: string): StoreError {
  if (error instanceof StoreError) return error;
  const code = typeof error === "object" && error !== null && "code" in error ? String((error as { code: unknown }).code) : "";
  const message = error instanceof Error ? error.message : String(error);
  if (/^SQLITE_(BUSY|LOCKED|CANTOPEN|IOERR|FULL|READONLY)/.test(code) || /ENOENT|EACCES|EROFS/.test(code)) {
    return new StoreUnavailableError(engine, `${operation}: ${message}`, { cause: error });
  }
  return new StoreError(`${engine} store: ${operation} failed: ${message}`, "failed", { cause: error });
}

/** The versioned schema: migration N is `SQLITE_MIGRATIONS[N - 1]`; never edit a published one, add one. */
export const SQLITE_MIGRATIONS: readonly string[] = [
  `CREATE TABLE tasks (
     id TEXT PRIMARY KEY,
     context_id TEXT NOT NULL,
     state TEXT NOT NULL,
     terminal INTEGER NOT NULL,
     status_time INTEGER NOT NULL,
     version INTEGER NOT NULL,
     last_seq INTEGER NOT NULL DEFAULT 0,
     updated_at INTEGER NOT NULL,
     owner TEXT NOT NULL DEFAULT '',
     last_write TEXT,
     patches INTEGER NOT NULL DEFAULT 0,
     task TEXT NOT NULL
   );
   -- ListTasks is scoped by owner (the service always passes it): its indexes lead with the owner. Fewer
   -- indexes, fewer pages written at every commit (each final write changes status_time in every one).
   CREATE INDEX tasks_owner ON tasks (owner, status_time, id);
   CREATE INDEX tasks_owner_context ON tasks (owner, context_id, status_time, id);
   CREATE INDEX tasks_finished ON tasks (updated_at) WHERE terminal = 1;
   CREATE TABLE events (
     task_id TEXT NOT NULL,
     seq INTEGER NOT NULL,
     final INTEGER NOT NULL,
     event TEXT NOT NULL,
     PRIMARY KEY (task_id, seq)
   ) WITHOUT ROWID;
   CREATE TABLE task_patches (
     task_id TEXT NOT NULL,
     version INTEGER NOT NULL,
     patch TEXT NOT NULL,
     PRIMARY KEY (task_id, version)
   ) WITHOUT ROWID;
   CREATE TABLE push_configs (
     position INTEGER PRIMARY KEY AUTOINCREMENT,
     task_id TEXT NOT NULL,
     config_id TEXT NOT NULL,
     config TEXT NOT NULL,
     UNIQUE (task_id, config_id)
   );
   CREATE TABLE outbox (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     task_id TEXT NOT NULL,
     target TEXT NOT NULL,
     payload TEXT NOT NULL,
     attempts INTEGER NOT NULL DEFAULT 0,
     due_at INTEGER NOT NULL,
     owner TEXT
   );
   CREATE INDEX outbox_due ON outbox (due_at, id);
   CREATE TABLE leases (
     task_id TEXT PRIMARY KEY,
     owner TEXT NOT NULL,
     expires_at INTEGER NOT NULL
   ) WITHOUT ROWID;
   CREATE INDEX leases_expiry ON leases (expires_at);`,
];

const MIGRATIONS_TABLE = "CREATE TABLE IF NOT EXISTS migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)";

/** The schema version a database holds (0: none yet), read without changing it. */
export function schemaVersionOf(driver: SqlDriver): number {
  const table = driver.get("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = 'migrations'", []);
  if (!table) return 0;
  return driver.get<{ v: number }>("SELECT coalesce(max(version), 0) AS v FROM migrations", [])?.v ?? 0;
}

/**
 * Applies the migrations the database lacks in one write transaction (once across connections); returns the
 * versions applied. A database at a newer version than this store knows is refused.
 */
export function migrateSchema(driver: SqlDriver, engine: string): number[] {
  return driver.transaction("write", () => {
    driver.exec(MIGRATIONS_TABLE);
    const current = schemaVersionOf(driver);
    if (current > SQLITE_MIGRATIONS.length) throw newerSchemaError(engine, current, SQLITE_MIGRATIONS.length);
    const applied: number[] = [];
    for (let version = current + 1; version <= SQLITE_MIGRATIONS.length; version++) {
      driver.exec(SQLITE_MIGRATIONS[version - 1] as string);
      driver.run("INSERT INTO migrations (version, applied_at) VALUES (?, ?)", [version, Date.now()]);
      applied.push(version);
    }
    return applied;
  });
}

export function newerSchemaError(engine: string, current: number, known: number): StoreError {
  return new StoreError(`${engine} store: the database schema is at version ${current}, newer than this store knows (${known}); upgrade the agent`, "failed");
}

// ---------------------------------------------------------------------------------------------------

/** The statements of a store, through its driver: counted (a transaction's own statements too), refused once the store is closed, and mapped to store errors. */
export class Sql {
  readonly engine: string;
  private readonly driver: SqlDriver;
  private readonly counter: { count: number };
  private readonly isClosed: () => boolean;

  constructor(engine: string, driver: SqlDriver, counter: { count: number }, isClosed: () => boolean) {
    this.engine = engine;
    this.driver = driver;
    this.counter = counter;
    this.isClosed = isClosed;
  }

  /** The driver for `statements` more statements (counted), unless the store is closed. */
  private open(statements = 1): SqlDriver {
    if (this.isClosed()) throw new StoreError(`${this.engine} store: closed`, "failed");
    this.counter.count += statements;
    return this.driver;
  }

  get<R>(text: string, ...values: unknown[]): R | undefined {
    return this.open().get<R>(text, values);
  }

  all<R>(text: string, ...values: unknown[]): R[] {
    return this.open().all<R>(text, values);
  }

  run(text: string, ...values: unknown[]): number {
    return this.open().run(text, values);
  }

  /** Runs `fn` in a write transaction (the write lock taken first, so no read inside it is stale). */
  write<T>(operation: string, fn: () => T): T {
    return this.transaction(operation, "write", fn);
  }

  /** Runs the reads of `fn` (one statement: its own snapshot). */
  read<T>(operation: string, fn: () => T): T {
    try {
      return fn();
    } catch (error) {
      throw sqlStoreError(this.engine, error, operation);
    }
  }

  /** Runs the reads of `fn` in one read transaction (one snapshot: a task row and its patches agree). */
  snapshot<T>(operation: string, fn: () => T): T {
    return this.transaction(operation, "read", fn);
  }

  private transaction<T>(operation: string, kind: "write" | "read", fn: () => T): T {
    try {
      return this.open(this.driver.transactionStatements ?? 0).transaction(kind, fn);
    } catch (error) {
      throw sqlStoreError(this.engine, error, operation);
    }
  }

  /** The most values one statement may bind. */
  get maxParameters(): number {
    return this.driver.maxParameters ?? 999;
  }

  /** Changes whenever another connection commits (undefined: no other connection can). */
  dataVersion(): number | undefined {
    return this.driver.dataVersion?.();
  }
}

// ---------------------------------------------------------------------------------------------------
// Strings SQLite's UTF-8 text cannot hold

/*
 * Any JSON string is a valid id. A lone surrogate cannot be written as UTF-8 (it would arrive as U+FFFD,
 * so two ids would become one). Id, owner and write-id columns thus write each lone surrogate, U+0000 and
 * U+0001 as U+0001 followed by its code in 4 hex digits, and reads undo it; JSON columns are safe as they
 * are (JSON.stringify escapes lone surrogates).
 */
const UNSTORABLE = /[\u0000\u0001]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function key(text: string): string {
  return text.replace(UNSTORABLE, (c) => `\u0001${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

export function unkey(text: string): string {
  return text.includes("\u0001") ? text.replace(/\u0001([0-9a-f]{4})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))) : text;
}
