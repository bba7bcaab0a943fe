/**
 * A Durable Object's `ctx.storage` (its `sql.exec` and `transactionSync`) over better-sqlite3, for the fast
 * run of the store contract on the Durable Object store in Node (test/runtime/stores/durable-object.test.ts).
 * It keeps the platform's rules the store must live with: no BEGIN, COMMIT, ROLLBACK or SAVEPOINT statement
 * (a transaction is `transactionSync`), at most 100 bound values per statement, no bound string over 2 MB
 * (Cloudflare documents 2 MB as a Durable Object's largest string or row). The store's real run is on
 * workerd (test/edge/durable-object-store.test.ts).
 */
import Database from "better-sqlite3";
import type { DurableObjectStorageLike, SqlCursorLike } from "../../../src/runtime/stores/durable-object.js";

const MAX_BOUND_VALUES = 100;
const MAX_STRING_BYTES = 2_000_000;

export class SqlStorageOverSqlite implements DurableObjectStorageLike {
  private readonly db: Database.Database;
  private depth = 0;
  readonly sql: { exec(query: string, ...bindings: never[]): SqlCursorLike };

  constructor(path = ":memory:") {
    this.db = new Database(path);
    this.sql = { exec: (query, ...bindings) => this.exec(query, bindings) };
  }

  private exec(query: string, bindings: readonly unknown[]): SqlCursorLike {
    if (/^\s*(BEGIN|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE)\b/i.test(query)) throw new Error(`${query.trim().split(/\s/)[0]} is not allowed in a Durable Object: use ctx.storage.transactionSync()`);
    if (bindings.length > MAX_BOUND_VALUES) throw new Error(`too many SQL variables: ${bindings.length} (a Durable Object binds up to ${MAX_BOUND_VALUES})`);
    if (bindings.some((b) => typeof b === "string" && Buffer.byteLength(b) > MAX_STRING_BYTES)) throw new Error("string or blob too big: SQLITE_TOOBIG");
    let statement: Database.Statement;
    try {
      statement = this.db.prepare(query);
    } catch (error) {
      if (bindings.length === 0 && error instanceof RangeError) {
        this.db.exec(query); // several statements
        return { toArray: () => [] };
      }
      throw error;
    }
    const rows = statement.reader ? (statement.all(...bindings) as Array<Record<string, unknown>>) : (statement.run(...bindings), []);
    return { toArray: () => rows };
  }

  transactionSync<T>(fn: () => T): T {
    const name = `t${this.depth}`;
    this.db.exec(this.depth === 0 ? "BEGIN IMMEDIATE" : `SAVEPOINT ${name}`);
    this.depth++;
    try {
      const result = fn();
      this.depth--;
      this.db.exec(this.depth === 0 ? "COMMIT" : `RELEASE ${name}`);
      return result;
    } catch (error) {
      this.depth--;
      this.db.exec(this.depth === 0 ? "ROLLBACK" : `ROLLBACK TO ${name}; RELEASE ${name}`);
      throw error;
    }
  }

  close(): void {
    this.db.close();
  }
}
