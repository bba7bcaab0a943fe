/**
 * The task event log of the SQLite-family stores (sqlite.ts, durable-object.ts) and its live subscriptions:
 * a commit wakes the subscribers of every store on the same database in this isolate (`peers`); commits of
 * other connections (other processes on one file) are seen by polling the driver's data version every
 * `pollMs` while anyone subscribes, where the driver has one. Events are always read from the log after the
 * last sequence delivered (follower.ts).
 */
import { StoreError } from "./errors.js";
import { eventText } from "./task-json.js";
import type { EventSubscription, EventSubscriptionOptions, LoggedEvent, TaskEventInput, TaskEventLog } from "./contract.js";
import type { JsonObject } from "../json.js";
import { LogFollower } from "./follower.js";
import { key, type Sql } from "./sql-database.js";

export class SqliteTaskEventLog implements TaskEventLog {
  private readonly follower: LogFollower;
  private timer: ReturnType<typeof setInterval> | undefined;
  private seenVersion = -1;

  private readonly sql: Sql;
  private readonly pollMs: number;
  private readonly peers: Set<SqliteTaskEventLog>;

  /**
   * @param peers the logs of every store on the same database in this isolate (this one joins them): a
   *   commit through any of them wakes the subscribers of all
   */
  constructor(sql: Sql, pollMs: number, peers: Set<SqliteTaskEventLog> = new Set()) {
    this.sql = sql;
    this.pollMs = pollMs;
    this.peers = peers;
    peers.add(this);
    this.follower = new LogFollower(
      (taskId, after, limit) => this.read(taskId, after, limit),
      async () => this.poll(),
    );
  }

  /** A store on this database wrote events of a task: the subscribers of every peer catch up now. */
  wake(taskId: string): void {
    for (const log of this.peers) log.follower.wake(taskId);
  }

  async append(taskId: string, events: readonly TaskEventInput[]): Promise<number[]> {
    if (events.length === 0) return [];
    const texts = events.map((e, i) => ({ final: e.final, text: eventText(e.event, `event ${i} of task "${taskId}"`) }));
    const id = key(taskId);
    const sequences = this.sql.write("append", () => {
      const row = this.sql.get<{ last_seq: number }>("UPDATE tasks SET last_seq = last_seq + ? WHERE id = ? RETURNING last_seq", events.length, id);
      if (!row) throw new StoreError(`task "${taskId}" not found`, "not-found");
      const first = row.last_seq - events.length + 1;
      insertEvents(this.sql, id, first, texts);
      return texts.map((_, i) => first + i);
    });
    this.wake(taskId);
    return sequences;
  }

  async read(taskId: string, after = 0, limit = 10_000): Promise<LoggedEvent[]> {
    const rows = this.sql.read("read events", () =>
      this.sql.all<{ seq: number; final: number; event: string }>("SELECT seq, final, event FROM events WHERE task_id = ? AND seq > ? ORDER BY seq LIMIT ?", key(taskId), after, limit),
    );
    return rows.map((r) => ({ seq: r.seq, final: r.final === 1, event: JSON.parse(r.event) as JsonObject }));
  }

  async end(taskId: string): Promise<number> {
    return this.sql.read("read log end", () => this.sql.get<{ last_seq: number }>("SELECT last_seq FROM tasks WHERE id = ?", key(taskId))?.last_seq ?? 0);
  }

  subscribe(taskId: string, listener: (event: LoggedEvent) => void, options?: EventSubscriptionOptions): EventSubscription {
    return this.follower.subscribe(taskId, listener, options);
  }

  /** Starts polling for other connections' commits (while anyone subscribes), where the driver can tell them. */
  private poll(): void {
    if (this.timer) return;
    const first = this.sql.dataVersion();
    if (first === undefined) return; // the only connection: its own commits wake it
    this.seenVersion = first;
    this.timer = setInterval(() => {
      if (this.follower.size === 0) {
        clearInterval(this.timer);
        this.timer = undefined;
        return;
      }
      let version: number | undefined;
      try {
        version = this.sql.dataVersion();
      } catch {
        return; // closed, or the file is busy: the next tick tries again
      }
      if (version !== undefined && version !== this.seenVersion) {
        this.seenVersion = version;
        this.follower.wake(undefined);
      }
    }, this.pollMs);
    (this.timer as { unref?: () => void }).unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.peers.delete(this);
  }
}

/** Events per INSERT statement (one statement for a commit's events, up to this many, within the driver's bound values). */
const EVENTS_PER_STATEMENT = 64;

/** Logs events from sequence `first` on, as few multi-row INSERTs (each row text cached by its row count). */
export function insertEvents(sql: Sql, taskId: string, first: number, events: ReadonlyArray<{ final: boolean; text: string }>): void {
  const perStatement = Math.min(EVENTS_PER_STATEMENT, Math.floor(sql.maxParameters / 4));
  for (let from = 0; from < events.length; from += perStatement) {
    const batch = events.slice(from, from + perStatement);
    const values: unknown[] = [];
    batch.forEach((e, i) => values.push(taskId, first + from + i, e.final ? 1 : 0, e.text));
    sql.run(`INSERT INTO events (task_id, seq, final, event) VALUES ${Array.from(batch, () => "(?, ?, ?, ?)").join(", ")}`, ...values);
  }
}
