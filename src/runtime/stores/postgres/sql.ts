/**
 * What every part of the PostgreSQL store shares: the error mapping (`StoreUnavailableError` for a lost
 * engine), the query surface, prepared statement names, and the stored form of strings PostgreSQL cannot
 * hold (U+0000, U+0001, lone surrogates) with the type parsers that read them back.
 */
import { createHash } from "node:crypto";
import pg from "pg";
import { StoreError, StoreUnavailableError } from "../errors.js";

/** Counts the statements sent, per operation, for benchmarks (round trips per request). */
export interface RoundTripCounter {
  count: number;
}

export const ENGINE = "postgres";

const UNAVAILABLE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH", "EAI_AGAIN", "57P01", "57P02", "57P03", "53300"]);

/** Maps a driver error to a store error: the engine's unavailability, or a failure naming the operation. */
export function postgresError(error: unknown, operation: string): StoreError {
  if (error instanceof StoreError) return error;
  const code = typeof error === "object" && error !== null && "code" in error ? String((error as { code: unknown }).code) : "";
  const message = error instanceof Error ? error.message : String(error);
  if (UNAVAILABLE_CODES.has(code) || code.startsWith("08") || /terminat|timeout|timed out|connection|not queryable|ended/i.test(message)) {
    return new StoreUnavailableError(ENGINE, `${operation}: ${message}`, { cause: error });
  }
  return new StoreError(`${ENGINE} store: ${operation} failed: ${message}`, "failed", { cause: error });
}

export interface Queryable {
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

/** A part of the store (push configs, outbox, leases) over its connections and its tables' prefix. */
export abstract class PostgresPart {
  protected readonly db: Queryable;
  /** The tables' name prefix. */
  protected readonly p: string;

  constructor(db: Queryable, p: string) {
    this.db = db;
    this.p = p;
  }
}

const statementNames = new Map<string, string>();

/** A prepared statement's name: a short hash of its text (the store sends a small, fixed set of texts). */
export function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `a2a_${createHash("sha1").update(text).digest("hex").slice(0, 20)}`;
    statementNames.set(text, name);
  }
  return name;
}

// Strings PostgreSQL cannot hold

/*
 * Any JSON string is a valid id, text or metadata value, and the other engines keep it as it is. PostgreSQL
 * text cannot hold U+0000; a lone surrogate cannot be written as UTF-8 (it would arrive as U+FFFD, so two
 * ids would become one); and the json operators the store uses (`->`, `->>`) refuse the JSON escapes of
 * both. So the store writes each such character, and U+0001 (so that the form can be read back), as
 * U+0001 followed by its code in 4 lower-case hex digits: in a text parameter as those characters, in a
 * json parameter (`$n::json`) as the escape `\u0001` followed by the digits (which `->>` reads as the same
 * characters). Reads undo it (the text and json type parsers below). Other strings are stored as they are,
 * so rows written before read the same.
 */

/** U+0000, U+0001 and lone surrogates: what a stored text writes as U+0001 and 4 hex digits. */
const UNSTORABLE = /[\u0000\u0001]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** The JSON escapes of those characters (and every other escape, so that an escaped backslash is skipped). */
const UNSTORABLE_ESCAPE = /\\(?:u(0000|0001|d[89a-f][0-9a-f]{2})|[^])/gi;

export function toStoredText(text: string): string {
  return text.replace(UNSTORABLE, (c) => `\u0001${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

export function fromStoredText(text: string): string {
  return text.includes("\u0001") ? text.replace(/\u0001([0-9a-f]{4})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))) : text;
}

function toStoredJson(json: string): string {
  return json.includes("\\u") ? json.replace(UNSTORABLE_ESCAPE, (m, hex: string | undefined) => (hex === undefined ? m : `\\u0001${hex.toLowerCase()}`)) : json;
}

function fromStoredJson(json: string): unknown {
  const text = json.includes("\\u0001") ? json.replace(/\\(?:u0001([0-9a-f]{4})|[^])/g, (m, hex: string | undefined) => (hex === undefined ? m : `\\u${hex}`)) : json;
  return JSON.parse(text) as unknown;
}

const jsonParameters = new Map<string, ReadonlySet<number>>();

/** A statement's values as stored: the strings of its `$n::json` parameters as JSON, the other strings as text. */
export function storableValues(statement: string, values: readonly unknown[]): unknown[] {
  let json = jsonParameters.get(statement);
  if (json === undefined) {
    json = new Set([...statement.matchAll(/\$(\d+)::json\b/g)].map((m) => Number(m[1]) - 1));
    jsonParameters.set(statement, json);
  }
  const positions = json;
  return values.map((value, i) => (typeof value !== "string" ? value : positions.has(i) ? toStoredJson(value) : toStoredText(value)));
}

const TEXT_OID = 25;

const JSON_OID = 114;

/** The type parsers of the store's connections: text and json as they were before they were stored. */
export const STORED_TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if (format !== "binary" && oid === TEXT_OID) return fromStoredText;
    if (format !== "binary" && oid === JSON_OID) return fromStoredJson;
    return format === undefined ? pg.types.getTypeParser(oid) : pg.types.getTypeParser(oid, format);
  }) as pg.CustomTypesConfig["getTypeParser"],
};
