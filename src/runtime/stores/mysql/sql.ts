/**
 * What every part of the MySQL store shares: the statement surface over the pool (one call, one round
 * trip, however many statements it holds), the error mapping (`StoreUnavailableError` for a lost engine),
 * the database clock in SQL, and the stored form of ids.
 */
import { randomBytes } from "node:crypto";
import type mysql from "mysql2/promise";
import { StoreError, StoreUnavailableError } from "../errors.js";

export const ENGINE = "mysql";

/** Counts the calls sent (each one round trip, whatever statements it holds), for benchmarks. */
export interface RoundTripCounter {
  count: number;
}

/** The database's clock in epoch ms (UTC: no session time zone or daylight-saving hour changes it). */
export const NOW_MS = "(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)";

/** The driver's result of one statement: rows of a SELECT, or the counts of a write. */
export type Rows = Array<Record<string, unknown>>;
export interface WriteResult {
  affectedRows: number;
  insertId: number;
}
/** One call's results, one per statement (a single statement's result is a one-element list). */
export type Results = Array<Rows | WriteResult>;

/** A statement's rows, as the columns it selects (the statement says what they are). */
export function rowsOf<R>(result: Rows | WriteResult | undefined): R[] {
  return (result ?? []) as unknown as R[];
}

const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "EAI_AGAIN",
  "PROTOCOL_CONNECTION_LOST",
  "PROTOCOL_SEQUENCE_TIMEOUT",
  "ER_CON_COUNT_ERROR",
  "ER_SERVER_SHUTDOWN",
  "ER_CONNECTION_KILLED",
  "ER_QUERY_INTERRUPTED",
  "POOL_CLOSED",
]);

/** Maps a driver error to a store error: the engine's unavailability, or a failure naming the operation. */
export function mysqlError(error: unknown, operation: string): StoreError {
  if (error instanceof StoreError) return error;
  const code = typeof error === "object" && error !== null && "code" in error ? String((error as { code: unknown }).code) : "";
  const fatal = typeof error === "object" && error !== null && (error as { fatal?: unknown }).fatal === true;
  const message = error instanceof Error ? error.message : String(error);
  if (UNAVAILABLE_CODES.has(code) || fatal || /timeout|timed out|closed state|connection lost|can't add new command/i.test(message)) {
    return new StoreUnavailableError(ENGINE, `${operation}: ${message}`, { cause: error });
  }
  return new StoreError(`${ENGINE} store: ${operation} failed: ${message}`, "failed", { cause: error });
}

/** A driver error's code (`ER_DUP_ENTRY`, `ER_LOCK_DEADLOCK`, ...), "" for none. */
export function errorCode(error: unknown): string {
  const cause = error instanceof StoreError ? error.cause : error;
  return typeof cause === "object" && cause !== null && "code" in cause ? String((cause as { code: unknown }).code) : "";
}

/**
 * The statements of the store, each call one round trip: `query` for a statement or several without a
 * transaction (the pool's next connection), `transaction` for several run as one transaction on one
 * connection (rolled back, with nothing half-written, when one fails).
 */
export class Sql {
  private readonly pool: mysql.Pool;
  private readonly counter: RoundTripCounter;
  private readonly timeoutMs: number;
  private readonly isClosed: () => boolean;

  constructor(pool: mysql.Pool, counter: RoundTripCounter, timeoutMs: number, isClosed: () => boolean) {
    this.pool = pool;
    this.counter = counter;
    this.timeoutMs = timeoutMs;
    this.isClosed = isClosed;
  }

  /**
   * Runs `text` (statements separated by `;`, values bound to its `?`s); the results of each statement.
   * The store's calls write in their first statement only (what follows reads), so a deadlock, which the
   * engine breaks by rolling that statement back, runs the call again (up to 5 times).
   */
  async query(operation: string, text: string, values: readonly unknown[] = []): Promise<Results> {
    if (this.isClosed()) throw new StoreError(`${ENGINE} store: closed`, "failed");
    for (let attempt = 1; ; attempt++) {
      this.counter.count++;
      try {
        const [result] = await this.pool.query({ sql: text, values: [...values], timeout: this.timeoutMs });
        return resultsOf(text, result);
      } catch (error) {
        if (errorCode(error) === "ER_LOCK_DEADLOCK" && attempt < 5) continue;
        throw mysqlError(error, operation);
      }
    }
  }

  /** The first result's rows (a statement that reads). */
  async rows<R>(operation: string, text: string, values: readonly unknown[] = []): Promise<R[]> {
    return (await this.query(operation, text, values))[0] as unknown as R[];
  }

  /** The rows changed (matched) by a statement that writes. */
  async changed(operation: string, text: string, values: readonly unknown[] = []): Promise<number> {
    return ((await this.query(operation, text, values))[0] as WriteResult).affectedRows;
  }

  /**
   * Runs `statements` in one transaction, sent in one round trip (`START TRANSACTION; …; COMMIT`). A
   * statement that fails rolls it all back (one more round trip, on that path only); a deadlock, which
   * the engine resolves by rolling one transaction back, runs it again (up to 5 times).
   */
  async transaction(operation: string, statements: readonly string[], values: readonly unknown[]): Promise<Results> {
    if (this.isClosed()) throw new StoreError(`${ENGINE} store: closed`, "failed");
    const text = ["START TRANSACTION", ...statements, "COMMIT"].join(";\n");
    for (let attempt = 1; ; attempt++) {
      let connection: mysql.PoolConnection;
      this.counter.count++;
      try {
        connection = await this.pool.getConnection();
      } catch (error) {
        throw mysqlError(error, operation);
      }
      try {
        const [result] = await connection.query({ sql: text, values: [...values], timeout: this.timeoutMs });
        connection.release();
        // Without START TRANSACTION's and COMMIT's results.
        return resultsOf(text, result).slice(1, -1);
      } catch (error) {
        const mapped = mysqlError(error, operation);
        if (mapped instanceof StoreUnavailableError) {
          connection.destroy();
          throw mapped;
        }
        await connection.query("ROLLBACK").then(
          () => connection.release(),
          () => connection.destroy(),
        );
        if (errorCode(error) === "ER_LOCK_DEADLOCK" && attempt < 5) continue;
        throw mapped;
      }
    }
  }
}

/** The driver's result as one entry per statement. */
function resultsOf(text: string, result: unknown): Results {
  // Several statements give an array of per-statement results; one gives its rows (an array) or its counts.
  // (The store's statement texts hold a ";" only between statements: every value is bound, never written in.)
  const several = text.includes(";");
  const list = (several ? result : [result]) as unknown[];
  return list.map((r) => (Array.isArray(r) ? (r as Rows) : (r as WriteResult)));
}

/** A part of the store (push configs, outbox, leases) over its statements and its tables' prefix. */
export abstract class MysqlPart {
  protected readonly sql: Sql;
  /** The tables' name prefix. */
  protected readonly p: string;

  constructor(sql: Sql, p: string) {
    this.sql = sql;
    this.p = p;
  }
}

/** A token that marks the rows one claim took (so that the same call reads back those rows only). */
export function claimToken(): string {
  return randomBytes(12).toString("hex");
}

// Stored ids

/*
 * Ids (task, context, owner, config ids) are kept in VARBINARY columns as UTF-8, compared byte for byte.
 * Any JSON string is a valid id, but a lone surrogate cannot be written as UTF-8 (it would arrive as
 * U+FFFD, so two ids would become one): the store writes each lone surrogate, and U+0001 (so that the form
 * can be read back), as U+0001 followed by its code in 4 lower-case hex digits. Reads undo it. JSON texts
 * (tasks, events, configs) need nothing: JSON.stringify escapes lone surrogates.
 */

const UNSTORABLE = /\u0001|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** An id as stored. */
export function key(text: string): string {
  return text.replace(UNSTORABLE, (c) => `\u0001${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** An id as it was before it was stored (from the VARBINARY column's bytes). */
export function unkey(stored: unknown): string {
  const text = Buffer.isBuffer(stored) ? stored.toString("utf8") : String(stored);
  return text.includes("\u0001") ? text.replace(/\u0001([0-9a-f]{4})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))) : text;
}
