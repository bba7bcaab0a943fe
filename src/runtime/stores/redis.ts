/**
 * The Redis store (node-redis, `@redis/client`): tasks, push configs, task event logs, the push outbox
 * and execution leases in keys under one prefix.
 *
 * Why node-redis: it is the client Redis maintains (ioredis is in maintenance mode), it is written in
 * TypeScript, and it has what a store that must never hang needs built in: per-command timeouts,
 * `disableOfflineQueue` (commands fail at once while disconnected instead of piling up), a reconnect
 * strategy, and Pub/Sub subscriptions restored after a reconnection. The core package is used alone
 * (no Redis Stack modules), so a generated agent adds one dependency.
 *
 * - Every write is one Lua script (atomic, one round trip): compare-and-set on the task's version, its
 *   ListTasks indexes, its events and its push notifications together.
 * - The event log of a task is a Redis Stream whose entry ids are the task's sequences (`<seq>-0`):
 *   the server enforces their order, XRANGE reads from any sequence, and the stream is deleted with
 *   the task. A Pub/Sub message on `<prefix>events` wakes the subscribers of other instances up; they
 *   read the stream after the last sequence they delivered (a wake-up lost while disconnected is made
 *   good by the catch-up that follows the reconnection). XREAD BLOCK would need one blocking connection
 *   per waiting stream set and could not change the set without interrupting it.
 * - ListTasks: sorted sets of equal scores ordered by member `<status time, 15 digits>:<id>`, one per
 *   filter combination (all, context, state, context+state), paged by ZRANGE BYLEX REV with the cursor
 *   as an exclusive bound.
 * - Time (leases, outbox, retention) is the Redis server's clock (TIME inside the scripts).
 * - The scripts build key names from the prefix, so the store needs a single Redis (standalone or
 *   behind Sentinel), not Redis Cluster.
 * - Durability is Redis's: run it with the append-only file (`appendonly yes`) to keep tasks across a
 *   restart.
 */
import { createClient } from "@redis/client";
import { StoreError, StoreUnavailableError } from "./errors.js";
import type { A2AStore } from "./contract.js";
import { type Client, Connection, ENGINE, type RedisStoreOptions, clientOptions, connectClient, redisError } from "./redis/connection.js";
import { RedisTaskEventLog, Subscriber } from "./redis/event-log.js";
import { RedisExecutionLeases } from "./redis/leases.js";
import { RedisPushOutbox } from "./redis/outbox.js";
import { RedisPushConfigStore } from "./redis/push-configs.js";
import { SCRIPTS } from "./redis/scripts.js";
import { RedisTaskStore } from "./redis/task-store.js";

export type { RedisStoreOptions } from "./redis/connection.js";

/**
 * The data layout version this store writes, kept at `<prefix>schema`. 2: a running task's patches
 * (`patches:<id>`, patch-policy.ts), which a store of layout 1 would not apply. Each layout reads the
 * data of the layouts before it: a store raises the version it finds, and refuses a newer one.
 */
const SCHEMA_VERSION = 2;

export class RedisStore implements A2AStore {
  readonly engine = ENGINE;
  readonly tasks: RedisTaskStore;
  readonly pushConfigs: RedisPushConfigStore;
  readonly events: RedisTaskEventLog;
  readonly outbox: RedisPushOutbox;
  readonly leases: RedisExecutionLeases;
  private closed = false;

  private readonly connection: Connection;
  private readonly subscriber: Subscriber;

  private constructor(
    connection: Connection,
    subscriber: Subscriber,
  ) {
    this.connection = connection;
    this.subscriber = subscriber;
    this.tasks = new RedisTaskStore(connection);
    this.pushConfigs = new RedisPushConfigStore(connection);
    this.events = new RedisTaskEventLog(connection, subscriber);
    this.outbox = new RedisPushOutbox(connection);
    this.leases = new RedisExecutionLeases(connection);
  }

  /** Connects and checks the data layout version; `StoreUnavailableError` when Redis cannot be reached. */
  static async connect(options: RedisStoreOptions): Promise<RedisStore> {
    const prefix = options.keyPrefix ?? "a2a:";
    const client: Client = createClient(clientOptions(options));
    client.on("error", (error: unknown) => options.onBackgroundError?.(redisError(error, "connection")));
    await connectClient(client, options.connectTimeoutMs ?? 5_000, "connect");
    const connection = new Connection(client, prefix);
    const store = new RedisStore(connection, new Subscriber(client, `${prefix}events`, options));
    try {
      // The layout version: set once, raised when older than this store's, refused when newer.
      await connection.command(["SET", `${prefix}schema`, String(SCHEMA_VERSION), "NX"], "connect");
      const stored = Number(await connection.command<string | null>(["GET", `${prefix}schema`], "connect"));
      if (stored > SCHEMA_VERSION) {
        throw new StoreError(`redis store: the data layout is at version ${stored}, newer than this store knows (${SCHEMA_VERSION}); upgrade the agent`, "failed");
      }
      if (stored < SCHEMA_VERSION) await connection.command(["SET", `${prefix}schema`, String(SCHEMA_VERSION)], "connect");
      // Load the scripts now (sent together): each operation is then one EVALSHA.
      await Promise.all(Object.values(SCRIPTS).map((body) => connection.command(["SCRIPT", "LOAD", body], "connect")));
    } catch (error) {
      await store.close();
      throw error;
    }
    return store;
  }

  /** Commands sent so far (round trips), for benchmarks. */
  get roundTrips(): { readonly count: number } {
    return this.connection.roundTrips;
  }

  async purgeFinished(options: { olderThanMs: number; limit?: number }): Promise<number> {
    return this.connection.script<number>("purge", [Math.max(0, Math.floor(options.olderThanMs)), options.limit ?? 10_000]);
  }

  /** One round trip (`PING`); StoreUnavailableError while Redis cannot be reached. */
  async ping(): Promise<void> {
    if (this.closed) throw new StoreUnavailableError(ENGINE, "ping: the store is closed");
    await this.connection.command(["PING"], "ping");
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.subscriber.close();
    const client = this.connection.client;
    if (client.isOpen) await client.close().catch(() => client.destroy());
  }

  /** Deletes every key of this store's prefix (tests and uninstall). */
  async dropKeys(): Promise<void> {
    let cursor = "0";
    do {
      const [next, keys] = await this.connection.command<[string, string[]]>(["SCAN", cursor, "MATCH", `${globEscape(this.connection.prefix)}*`, "COUNT", "500"], "scan");
      if (keys.length > 0) await this.connection.command(["UNLINK", ...keys], "unlink");
      cursor = next;
    } while (cursor !== "0");
  }
}

function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}
