/**
 * The SQLite store's database file on better-sqlite3: opening it (WAL), its `sqlite:` URLs, and the driver
 * (`SqlDriver`, sql-database.ts) the store's SQL runs through. The schema, the migrations and the statement
 * helper are the SQLite family's own (sql-database.ts), shared with the Durable Object store.
 */
import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { StoreError } from "./errors.js";
import { migrateSchema, schemaVersionOf, sqlStoreError, type SqlDriver } from "./sql-database.js";

export const ENGINE = "sqlite";

/** Maps a driver error to a store error: the lock held too long or the file unreachable, or a failure naming the operation. */
export function sqliteError(error: unknown, operation: string): StoreError {
  return sqlStoreError(ENGINE, error, operation);
}

/** better-sqlite3 as a `SqlDriver`: prepared statements cached by text; transactions BEGIN [IMMEDIATE] … COMMIT. */
export class BetterSqliteDriver implements SqlDriver {
  /** BEGIN and COMMIT. */
  readonly transactionStatements = 2;
  private readonly statements = new Map<string, Database.Statement>();
  private readonly db: Database.Database;

  constructor(db: Database.Database) {
    this.db = db;
  }

  private statement(text: string): Database.Statement {
    let statement = this.statements.get(text);
    if (!statement) this.statements.set(text, (statement = this.db.prepare(text)));
    return statement;
  }

  get<R>(text: string, values: readonly unknown[]): R | undefined {
    return this.statement(text).get(...values) as R | undefined;
  }

  all<R>(text: string, values: readonly unknown[]): R[] {
    return this.statement(text).all(...values) as R[];
  }

  run(text: string, values: readonly unknown[]): number {
    return this.statement(text).run(...values).changes;
  }

  exec(script: string): void {
    this.db.exec(script);
  }

  transaction<T>(kind: "write" | "read", fn: () => T): T {
    this.statement(kind === "write" ? "BEGIN IMMEDIATE" : "BEGIN").run();
    let result: T;
    try {
      result = fn();
      this.statement("COMMIT").run();
    } catch (error) {
      if (this.db.inTransaction) this.db.prepare("ROLLBACK").run();
      throw error;
    }
    return result;
  }

  dataVersion(): number {
    return this.db.pragma("data_version", { simple: true }) as number;
  }
}

/** The schema version a database file holds (0: none yet), read without changing it. */
export function sqliteSchemaVersion(db: Database.Database): number {
  return schemaVersionOf(new BetterSqliteDriver(db));
}

/**
 * Applies the migrations the file lacks in one IMMEDIATE transaction (once across processes); returns the
 * versions applied. A file at a newer version than this store knows is refused.
 */
export function migrateSqlite(db: Database.Database): number[] {
  return migrateSchema(new BetterSqliteDriver(db), ENGINE);
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
