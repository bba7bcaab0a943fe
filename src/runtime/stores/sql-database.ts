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
  /** The longest string, in UTF-8 bytes, one value may hold (a Durable Object: 2 MB); default none. */
  readonly maxStringBytes?: number;
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

/**
 * The messages migration 2's trigger raises (spelled out in its text, which never changes): the write's
 * version is not the task's; a live lease of another instance blocks it.
 */
export const COMMIT_CONFLICT = "a2a store: version conflict";
export const COMMIT_LEASE_HELD = "a2a store: execution lease held";

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
  // A task's commit as one statement (issue 36): an INSERT into task_commits runs this trigger, and that
  // one statement is atomic with everything its trigger writes (a RAISE rolls all of it back), so a commit
  // needs no transaction. On a file, a write statement outside a transaction takes the writer lock before
  // it reads, as BEGIN IMMEDIATE does. The events are a JSON array of [final, text], the pushes of [task id,
  // target, payload]; the two RAISE messages are how sql-tasks.ts tells a version conflict from a lease held.
  `CREATE VIEW task_commits AS SELECT
     NULL AS id, NULL AS expected_version, NULL AS task, NULL AS patch, NULL AS context_id, NULL AS state,
     NULL AS terminal, NULL AS status_time, NULL AS now, NULL AS owner, NULL AS write_id, NULL AS events,
     NULL AS event_count, NULL AS pushes, NULL AS lease_acquire, NULL AS lease_expires, NULL AS lease_release
   WHERE 0;
   CREATE TRIGGER task_commit INSTEAD OF INSERT ON task_commits BEGIN
     SELECT RAISE(ABORT, 'a2a store: version conflict') WHERE coalesce((SELECT version FROM tasks WHERE id = NEW.id), 0) <> NEW.expected_version;
     SELECT RAISE(ABORT, 'a2a store: execution lease held') WHERE NEW.lease_acquire IS NOT NULL
       AND EXISTS (SELECT 1 FROM leases WHERE task_id = NEW.id AND owner <> NEW.lease_acquire AND expires_at > NEW.now);
     INSERT INTO tasks (id, task, context_id, state, terminal, status_time, version, last_seq, updated_at, owner, last_write)
       SELECT NEW.id, NEW.task, NEW.context_id, NEW.state, NEW.terminal, NEW.status_time, 1, NEW.event_count, NEW.now, NEW.owner, NEW.write_id
       WHERE NEW.expected_version = 0;
     -- A patch is kept by the version it makes, the task's text staying as it was; a whole text drops the patches kept before it.
     UPDATE tasks SET task = coalesce(NEW.task, task), context_id = NEW.context_id, state = NEW.state, terminal = NEW.terminal,
         status_time = NEW.status_time, version = version + 1, last_seq = last_seq + NEW.event_count, updated_at = NEW.now,
         last_write = NEW.write_id, patches = CASE WHEN NEW.patch IS NULL THEN 0 ELSE patches + 1 END
       WHERE id = NEW.id AND version = NEW.expected_version AND NEW.expected_version > 0;
     DELETE FROM task_patches WHERE task_id = NEW.id AND NEW.patch IS NULL AND NEW.expected_version > 0;
     INSERT INTO task_patches (task_id, version, patch) SELECT NEW.id, NEW.expected_version + 1, NEW.patch WHERE NEW.patch IS NOT NULL;
     INSERT INTO events (task_id, seq, final, event)
       SELECT NEW.id, t.last_seq - NEW.event_count + 1 + e.key, json_extract(e.value, '$[0]'), json_extract(e.value, '$[1]')
       FROM json_each(NEW.events) AS e, tasks AS t WHERE t.id = NEW.id;
     INSERT INTO outbox (task_id, target, payload, due_at)
       SELECT json_extract(p.value, '$[0]'), json_extract(p.value, '$[1]'), json_extract(p.value, '$[2]'), NEW.now FROM json_each(NEW.pushes) AS p;
     INSERT INTO leases (task_id, owner, expires_at) SELECT NEW.id, NEW.lease_acquire, NEW.lease_expires WHERE NEW.lease_acquire IS NOT NULL
       ON CONFLICT (task_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at;
     DELETE FROM leases WHERE task_id = NEW.id AND owner = NEW.lease_release;
   END;`,
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

/**
 * Makes the database's schema this store's: the pending migrations applied (`migrate`), or, without them, a
 * database at another version refused (`howToMigrate` says what to do about an older one).
 */
export function prepareSchema(driver: SqlDriver, engine: string, migrate: boolean, howToMigrate: string): void {
  if (migrate) {
    migrateSchema(driver, engine);
    return;
  }
  const current = schemaVersionOf(driver);
  if (current > SQLITE_MIGRATIONS.length) throw newerSchemaError(engine, current, SQLITE_MIGRATIONS.length);
  if (current < SQLITE_MIGRATIONS.length) {
    throw new StoreError(`${engine} store: the database schema is at version ${current}, this store needs ${SQLITE_MIGRATIONS.length}; ${howToMigrate}`, "failed");
  }
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

  /** The longest string, in UTF-8 bytes, one value may hold (undefined: no limit the store meets). */
  get maxStringBytes(): number | undefined {
    return this.driver.maxStringBytes;
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
