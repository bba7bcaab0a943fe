/**
 * The PostgreSQL task event log: events appended with a per-task sequence; live subscriptions by
 * LISTEN/NOTIFY on one connection per store (the notification says which task changed, events are read
 * from the log after the last sequence delivered), reconnected by itself.
 */
import pg from "pg";
import { StoreError } from "../errors.js";
import { storableJson } from "../task-json.js";
import type { EventSubscription, EventSubscriptionOptions, LoggedEvent, TaskEventInput, TaskEventLog } from "../contract.js";
import type { JsonObject } from "../../json.js";
import { LogFollower } from "../follower.js";
import { type Queryable, fromStoredText, postgresError } from "./sql.js";
import { notifyPayload } from "./task-store.js";

export class PostgresTaskEventLog implements TaskEventLog {
  private readonly follower: LogFollower;

  private readonly db: Queryable;
  private readonly p: string;
  private readonly listener: NotificationListener;

  constructor(
    db: Queryable,
    p: string,
    listener: NotificationListener,
  ) {
    this.db = db;
    this.p = p;
    this.listener = listener;
    this.follower = new LogFollower(
      (taskId, after, limit) => this.read(taskId, after, limit),
      () => listener.listening(),
    );
    listener.onNotification = (payload) => this.follower.wake(payload.startsWith("t:") ? fromStoredText(payload.slice(2)) : undefined);
    listener.onReconnect = () => this.follower.wake(undefined);
    listener.wanted = () => this.follower.size > 0;
  }

  async append(taskId: string, events: readonly TaskEventInput[]): Promise<number[]> {
    if (events.length === 0) return [];
    const json = storableJson(events, `the events of task "${taskId}"`);
    const p = this.p;
    const { rows } = await this.db.query<{ last_seq: string }>(
      `WITH t AS (UPDATE ${p}tasks SET last_seq = last_seq + $2 WHERE id = $1 RETURNING last_seq),
       e AS (
         INSERT INTO ${p}events (task_id, seq, final, event)
         SELECT $1, t.last_seq - $2 + x.ord, (x.value->>'final')::boolean, x.value->'event'
         FROM t, json_array_elements($3::json) WITH ORDINALITY AS x(value, ord)
       )
       SELECT t.last_seq, (SELECT pg_notify($4, $5)) AS n FROM t`,
      [taskId, events.length, json, this.listener.channel, notifyPayload(taskId)],
    );
    const row = rows[0];
    if (!row) throw new StoreError(`task "${taskId}" not found`, "not-found");
    const last = Number(row.last_seq);
    return events.map((_, i) => last - events.length + 1 + i);
  }

  async read(taskId: string, after = 0, limit = 10_000): Promise<LoggedEvent[]> {
    const { rows } = await this.db.query<{ seq: string; final: boolean; event: JsonObject }>(
      `SELECT seq, final, event FROM ${this.p}events WHERE task_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
      [taskId, after, limit],
    );
    return rows.map((r) => ({ seq: Number(r.seq), final: r.final, event: r.event }));
  }

  subscribe(taskId: string, listener: (event: LoggedEvent) => void, options?: EventSubscriptionOptions): EventSubscription {
    return this.follower.subscribe(taskId, listener, options);
  }
}

/**
 * The LISTEN connection: opened on the first subscription, reopened after a loss (with backoff while
 * anyone listens), and each reopening tells the log to catch up.
 */
export class NotificationListener {
  onNotification: (payload: string) => void = () => undefined;
  onReconnect: () => void = () => undefined;
  /** Whether anyone still follows a log (no reconnection attempts otherwise: the next subscription opens it). */
  wanted: () => boolean = () => true;
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryDelay = 100;
  private closed = false;

  private readonly config: pg.PoolConfig;
  readonly channel: string;
  private readonly onBackgroundError: ((error: StoreError) => void) | undefined;

  constructor(
    config: pg.PoolConfig,
    channel: string,
    onBackgroundError: ((error: StoreError) => void) | undefined,
  ) {
    this.config = config;
    this.channel = channel;
    this.onBackgroundError = onBackgroundError;
  }

  /** Resolves once LISTEN is active; rejects with StoreUnavailableError when the engine is down (and keeps retrying). */
  listening(): Promise<void> {
    if (this.closed) return Promise.reject(new StoreError("postgres store: closed", "failed"));
    if (this.client) return Promise.resolve();
    if (!this.connecting) {
      this.connecting = this.open().finally(() => {
        this.connecting = undefined;
      });
    }
    return this.connecting;
  }

  private async open(): Promise<void> {
    const client = new pg.Client({ ...this.config, query_timeout: this.config.query_timeout });
    client.on("error", (error) => this.lost(client, error));
    client.on("end", () => this.lost(client, new Error("connection ended")));
    client.on("notification", (message) => {
      if (message.channel === this.channel) this.onNotification(message.payload ?? "*");
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
    } catch (error) {
      client.removeAllListeners("end");
      client.end().catch(() => undefined);
      this.scheduleRetry();
      throw postgresError(error, "listen");
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.retryDelay = 100;
    // Subscriptions made while the engine was down, or open across the loss: catch up now.
    this.onReconnect();
  }

  private lost(client: pg.Client, error: unknown): void {
    if (this.client !== client) return;
    this.client = undefined;
    client.end().catch(() => undefined);
    if (this.closed) return;
    this.onBackgroundError?.(postgresError(error, "listen"));
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.closed || this.retryTimer || !this.wanted()) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.listening().catch(() => undefined);
    }, this.retryDelay);
    this.retryTimer.unref();
    this.retryDelay = Math.min(this.retryDelay * 2, 2_000);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    await this.connecting?.catch(() => undefined);
    await client?.end().catch(() => undefined);
  }
}
