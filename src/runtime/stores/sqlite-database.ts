/**
 * The SQLite store's database: opening a file (WAL), its `sqlite:` URLs, the versioned migrations, the
 * statement helper every part of the store writes through, and the key encoding of id columns.
 */
import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { StoreError, StoreUnavailableError } from "./errors.js";

export const ENGINE = "sqlite";

/** Maps a driver error to a store error: the lock held too long or the file unreachable, or a failure naming the operation. */
export function sqliteError(error: unknown, operation: string): StoreError {
  if (error instanceof StoreError) return error;
  const code = typeof error === "object" && error !== null && "code" in error ? String((error as { code: unknown }).code) : "";
  const message = error instanceof Error ? error.message : String(error);
  if (/^SQLITE_(BUSY|LOCKED|CANTOPEN|IOERR|FULL|READONLY)/.test(code) || /ENOENT|EACCES|EROFS/.test(code)) {
    return new StoreUnavailableError(ENGINE, `${operation}: ${message}`, { cause: error });
  }
  return new StoreError(`${ENGINE} store: ${operation} failed: ${message}`, "failed", { cause: error });
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

/** The schema version a database file holds (0: none yet), read without changing it. */
export function sqliteSchemaVersion(db: Database.Database): number {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'migrations'").get();
  if (!table) return 0;
  const row = db.prepare("SELECT coalesce(max(version), 0) AS v FROM migrations").get() as { v: number };
  return row.v;
}

/**
 * Applies the migrations the file lacks in one IMMEDIATE transaction (once across processes); returns the
 * versions applied. A file at a newer version than this store knows is refused.
 */
export function migrateSqlite(db: Database.Database): number[] {
  return db.transaction(() => {
    db.exec(MIGRATIONS_TABLE);
    const current = sqliteSchemaVersion(db);
    if (current > SQLITE_MIGRATIONS.length) throw newerSchemaError(current, SQLITE_MIGRATIONS.length);
    const applied: number[] = [];
    for (let version = current + 1; version <= SQLITE_MIGRATIONS.length; version++) {
      db.exec(SQLITE_MIGRATIONS[version - 1] as string);
      db.prepare("INSERT INTO migrations (version, applied_at) VALUES (?, ?)").run(version, Date.now());
      applied.push(version);
    }
    return applied;
  }).immediate();
}

export function newerSchemaError(current: number, known: number): StoreError {
  return new StoreError(`${ENGINE} store: the database schema is at version ${current}, newer than this store knows (${known}); upgrade the agent`, "failed");
}

/** Opens a database file as the store uses it: WAL, a busy timeout, the folder created. */
export function openSqliteDatabase(path: string, busyTimeoutMs = 5_000): Database.Database {
  if (path !== ":memory:" && path !== "") mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { timeout: busyTimeoutMs });
  if (path !== ":memory:") db.pragma("journal_mode = WAL");
  // WAL with synchronous=NORMAL: a commit survives a process crash (kill -9); only a power loss may lose the last ones.
  db.pragma("synchronous = NORMAL");
  return db;
}

/** The file of a `sqlite:` / `file:` URL: `sqlite:./data/agent.db`, `sqlite:///abs/agent.db`, `file:agent.db`. */
export function sqlitePathOf(url: string): string {
  const match = /^(?:sqlite|file):(.*)$/i.exec(url);
  if (!match) throw new StoreError(`store URL: expected sqlite:<path> or file:<path>`, "invalid");
  let path = (match[1] ?? "").replace(/[?#].*$/, "");
  if (path.startsWith("//")) path = path.slice(2); // sqlite:///abs → /abs, sqlite://./rel → ./rel
  path = decodeURIComponent(path);
  if (path === "") throw new StoreError("store URL: sqlite: needs a file path (sqlite:./data/agent.db)", "invalid");
  return path;
}

// ---------------------------------------------------------------------------------------------------

/** Prepared statements, cached by text, counted, and mapped to store errors. */
export class Sql {
  private readonly statements = new Map<string, Database.Statement>();
  private readonly db: Database.Database;
  private readonly counter: { count: number };
  private readonly isClosed: () => boolean;

  constructor(db: Database.Database, counter: { count: number }, isClosed: () => boolean) {
    this.db = db;
    this.counter = counter;
    this.isClosed = isClosed;
  }

  private statement(text: string): Database.Statement {
    if (this.isClosed()) throw new StoreError(`${ENGINE} store: closed`, "failed");
    let statement = this.statements.get(text);
    if (!statement) this.statements.set(text, (statement = this.db.prepare(text)));
    this.counter.count++;
    return statement;
  }

  get<R>(text: string, ...values: unknown[]): R | undefined {
    return this.statement(text).get(...values) as R | undefined;
  }

  all<R>(text: string, ...values: unknown[]): R[] {
    return this.statement(text).all(...values) as R[];
  }

  run(text: string, ...values: unknown[]): number {
    return this.statement(text).run(...values).changes;
  }

  /** Runs `fn` in an IMMEDIATE transaction (the write lock taken first, so no read inside it is stale). */
  write<T>(operation: string, fn: () => T): T {
    return this.transaction(operation, "BEGIN IMMEDIATE", fn);
  }

  /** Runs the reads of `fn` (one statement: its own snapshot). */
  read<T>(operation: string, fn: () => T): T {
    try {
      return fn();
    } catch (error) {
      throw sqliteError(error, operation);
    }
  }

  /** Runs the reads of `fn` in one read transaction (one snapshot: a task row and its patches agree). */
  snapshot<T>(operation: string, fn: () => T): T {
    return this.transaction(operation, "BEGIN", fn);
  }

  /** `fn` between `begin` and COMMIT (ROLLBACK when it throws), as prepared statements, counted. */
  private transaction<T>(operation: string, begin: "BEGIN" | "BEGIN IMMEDIATE", fn: () => T): T {
    try {
      this.statement(begin).run();
    } catch (error) {
      throw sqliteError(error, operation);
    }
    let result: T;
    try {
      result = fn();
      this.statement("COMMIT").run();
    } catch (error) {
      if (this.db.inTransaction) this.db.prepare("ROLLBACK").run();
      throw sqliteError(error, operation);
    }
    return result;
  }

  /** Changes whenever another connection commits to the file. */
  dataVersion(): number {
    return this.db.pragma("data_version", { simple: true }) as number;
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
