/**
 * The Redis task event log: a Redis Stream per task whose entry ids are the task's sequences; a Pub/Sub
 * message on `<prefix>events` wakes the subscribers of other instances, who read the stream after the last
 * sequence they delivered.
 */
import { StoreError, StoreUnavailableError } from "../errors.js";
import { storableJson } from "../task-json.js";
import type { EventSubscription, EventSubscriptionOptions, LoggedEvent, TaskEventInput, TaskEventLog } from "../contract.js";
import type { JsonObject } from "../../json.js";
import { LogFollower } from "../follower.js";
import { type Client, Connection, ENGINE, type RedisStoreOptions, connectClient, fromStoredText, redisError } from "./connection.js";

export class RedisTaskEventLog implements TaskEventLog {
  private readonly follower: LogFollower;

  private readonly db: Connection;

  constructor(
    db: Connection,
    subscriber: Subscriber,
  ) {
    this.db = db;
    this.follower = new LogFollower(
      (taskId, after, limit) => this.read(taskId, after, limit),
      () => subscriber.listening(),
    );
    subscriber.onMessage = (taskId) => this.follower.wake(taskId);
    subscriber.onReconnect = () => this.follower.wake(undefined);
    subscriber.wanted = () => this.follower.size > 0;
  }

  async append(taskId: string, events: readonly TaskEventInput[]): Promise<number[]> {
    if (events.length === 0) return [];
    const args: Array<string | number> = [taskId, events.length];
    for (const e of events) args.push(e.final ? "1" : "0", storableJson(e.event, `an event of task "${taskId}"`));
    const last = await this.db.script<number>("append", args);
    if (last < 0) throw new StoreError(`task "${taskId}" not found`, "not-found");
    return events.map((_, i) => last - events.length + 1 + i);
  }

  async read(taskId: string, after = 0, limit = 10_000): Promise<LoggedEvent[]> {
    const entries = await this.db.command<Array<[string, string[]]>>(
      ["XRANGE", `${this.db.prefix}events:${taskId}`, `${after + 1}-0`, "+", "COUNT", String(limit)],
      "read events",
    );
    return entries.map(([id, fields]) => {
      const value = (name: string) => fields[fields.indexOf(name) + 1] ?? "";
      return { seq: Number(id.slice(0, id.indexOf("-"))), final: value("f") === "1", event: JSON.parse(value("e")) as JsonObject };
    });
  }

  subscribe(taskId: string, listener: (event: LoggedEvent) => void, options?: EventSubscriptionOptions): EventSubscription {
    return this.follower.subscribe(taskId, listener, options);
  }
}

/** The Pub/Sub connection: opened on the first subscription; node-redis reconnects and resubscribes it. */
export class Subscriber {
  onMessage: (taskId: string) => void = () => undefined;
  onReconnect: () => void = () => undefined;
  /** Whether anyone still follows a log. */
  wanted: () => boolean = () => true;
  private client: Client | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryDelay = 100;
  private opening: Promise<void> | undefined;
  private subscribed = false;
  private closed = false;

  private readonly main: Client;
  private readonly channel: string;
  private readonly options: RedisStoreOptions;

  constructor(
    main: Client,
    channel: string,
    options: RedisStoreOptions,
  ) {
    this.main = main;
    this.channel = channel;
    this.options = options;
  }

  /** Resolves once the channel is subscribed; rejects with StoreUnavailableError while Redis is unreachable. */
  listening(): Promise<void> {
    if (this.closed) return Promise.reject(new StoreError("redis store: closed", "failed"));
    if (this.client && this.subscribed) {
      return this.client.isReady ? Promise.resolve() : Promise.reject(new StoreUnavailableError(ENGINE, "subscribe: reconnecting"));
    }
    this.opening ??= this.open().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  private async open(): Promise<void> {
    const client = this.client ?? (this.main.duplicate() as Client);
    if (!this.client) {
      this.client = client;
      client.on("error", (error: unknown) => this.options.onBackgroundError?.(redisError(error, "subscriber")));
      // After a reconnection node-redis subscribes again; catch up now and twice more, so that an event
      // published before the subscription was back in place is read too.
      client.on("ready", () => {
        for (const delay of [0, 250, 1_000]) setTimeout(() => this.onReconnect(), delay).unref();
      });
      try {
        await connectClient(client, this.options.connectTimeoutMs ?? 5_000, "subscribe");
      } catch (error) {
        this.client = undefined;
        this.scheduleRetry();
        throw error;
      }
    }
    try {
      await client.subscribe(this.channel, (message: string) => this.onMessage(fromStoredText(message)));
      this.subscribed = true;
      this.retryDelay = 100;
    } catch (error) {
      this.scheduleRetry();
      throw redisError(error, "subscribe");
    }
  }

  /** The first connection failed: try again (backing off to 2 s) while anyone follows a log, then catch up. */
  private scheduleRetry(): void {
    if (this.closed || this.retryTimer || !this.wanted()) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.listening().then(
        () => this.onReconnect(),
        () => undefined,
      );
    }, this.retryDelay);
    this.retryTimer.unref();
    this.retryDelay = Math.min(this.retryDelay * 2, 2_000);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.opening?.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    if (client?.isOpen) await client.close().catch(() => client.destroy());
  }
}
