/**
 * What every part of the Redis store shares: its options, connecting a client (bounded by the connect
 * timeout), the error mapping (`StoreUnavailableError` for a lost engine), the connection that sends
 * commands and runs scripts (counting round trips), and the stored form of strings Redis would change
 * (U+0001, lone surrogates).
 */
import { createClient } from "@redis/client";
import { StoreError, StoreUnavailableError } from "../errors.js";
import { SCRIPTS, SHAS, type ScriptName } from "./scripts.js";

export interface RedisStoreOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…`. */
  url: string;
  /** Prefix of every key and channel; default "a2a:". */
  keyPrefix?: string;
  /** Longest wait for a connection, in ms; default 5_000. */
  connectTimeoutMs?: number;
  /** Longest wait for a command, in ms; default 10_000. */
  commandTimeoutMs?: number;
  /** Where connection errors seen in the background are reported; default: nowhere (they surface as StoreUnavailableError). */
  onBackgroundError?: (error: StoreError) => void;
}

type Reply = string | number | null | Reply[];

export type Client = ReturnType<typeof createClient<{}, {}, {}, 2>>;

export const ENGINE = "redis";

/** Maps a client error to a store error: the engine's unavailability, or a failure naming the operation. */
export function redisError(error: unknown, operation: string): StoreError {
  if (error instanceof StoreError) return error;
  const name = error instanceof Error ? error.name : "";
  const message = error instanceof Error ? error.message : String(error);
  const replyError = name === "ErrorReply" || name === "SimpleError" || name === "BlobError";
  if (!replyError && /offline|closed|timeout|timed out|connect|socket|ECONN|EPIPE|ENOTFOUND|EHOSTUNREACH|abort/i.test(`${name} ${message}`)) {
    return new StoreUnavailableError(ENGINE, `${operation}: ${message}`, { cause: error });
  }
  if (/^(LOADING|BUSY|MASTERDOWN|TRYAGAIN)/.test(message)) return new StoreUnavailableError(ENGINE, `${operation}: ${message}`, { cause: error });
  return new StoreError(`${ENGINE} store: ${operation} failed: ${message}`, "failed", { cause: error });
}

export class Connection {
  /** Commands sent so far (round trips), for benchmarks. */
  readonly roundTrips = { count: 0 };
  readonly client: Client;
  readonly prefix: string;

  constructor(
    client: Client,
    prefix: string,
  ) {
    this.client = client;
    this.prefix = prefix;
  }

  async command<T extends Reply>(args: string[], operation: string): Promise<T> {
    this.roundTrips.count++;
    try {
      return fromStoredReply(await this.client.sendCommand(args.map(toStoredText))) as T;
    } catch (error) {
      throw redisError(error, operation);
    }
  }

  /** Runs a script by its hash, loading it on the first NOSCRIPT. */
  async script<T extends Reply>(name: ScriptName, args: Array<string | number>): Promise<T> {
    const argv = [this.prefix, ...args.map((arg) => toStoredText(String(arg)))];
    this.roundTrips.count++;
    try {
      return fromStoredReply(await this.client.sendCommand(["EVALSHA", SHAS[name], "0", ...argv])) as T;
    } catch (error) {
      if (!(error instanceof Error) || !/NOSCRIPT/.test(error.message)) throw redisError(error, name);
    }
    this.roundTrips.count++;
    try {
      return fromStoredReply(await this.client.sendCommand(["EVAL", SCRIPTS[name], "0", ...argv])) as T;
    } catch (error) {
      throw redisError(error, name);
    }
  }
}

/*
 * Strings Redis would change: a command's strings travel as UTF-8, where a lone surrogate becomes U+FFFD
 * (two ids would become one). Any JSON string is a valid id or value (the other engines keep it), so each
 * lone surrogate, and U+0001 (so that the form can be read back), is sent as U+0001 and its code in 4
 * lower-case hex digits, and replies are read back the same way. JSON texts (JSON.stringify escapes both)
 * and every other string travel as they are.
 */
const UNSTORABLE = /\u0001|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function toStoredText(text: string): string {
  return text.replace(UNSTORABLE, (c) => `\u0001${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

export function fromStoredText(text: string): string {
  return text.includes("\u0001") ? text.replace(/\u0001([0-9a-f]{4})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))) : text;
}

function fromStoredReply(reply: unknown): unknown {
  if (typeof reply === "string") return fromStoredText(reply);
  return Array.isArray(reply) ? reply.map(fromStoredReply) : reply;
}

export function clientOptions(options: RedisStoreOptions) {
  return {
    url: options.url,
    RESP: 2 as const,
    // Fail fast while disconnected: callers get StoreUnavailableError, not a queue that grows.
    disableOfflineQueue: true,
    commandOptions: { timeout: options.commandTimeoutMs ?? 10_000 },
    socket: {
      connectTimeout: options.connectTimeoutMs ?? 5_000,
      // Reconnect forever, backing off to 2 s: the store recovers by itself when Redis is back.
      reconnectStrategy: (retries: number) => Math.min(100 * 2 ** Math.min(retries, 5), 2_000),
    },
  };
}

/** Connects a client, giving up after the connect timeout (never waits forever for a first connection). */
export async function connectClient(client: Client, timeoutMs: number, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreUnavailableError(ENGINE, `${what}: no connection within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([client.connect(), timeout]);
  } catch (error) {
    client.destroy();
    throw redisError(error, what);
  } finally {
    clearTimeout(timer);
  }
}
