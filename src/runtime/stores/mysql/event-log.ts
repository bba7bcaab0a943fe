/**
 * The MySQL task event log: events appended with a per-task sequence. MySQL has no notifications, so live
 * subscriptions poll: a commit of this store wakes its own subscribers at once; commits of other instances
 * are seen by reading the log end (`last_seq`) of the followed tasks every `pollMs` while anyone
 * subscribes. Events are always read from the log after the last sequence delivered (follower.ts), so a
 * poll that fails (the engine restarting) loses nothing: the first one that succeeds after it catches
 * every subscriber up.
 */
import { StoreError } from "../errors.js";
import { eventText } from "../task-json.js";
import type { EventSubscription, EventSubscriptionOptions, LoggedEvent, TaskEventInput, TaskEventLog } from "../contract.js";
import type { JsonObject } from "../../json.js";
import { LogFollower } from "../follower.js";
import { key, rowsOf, type Sql, unkey } from "./sql.js";

/** Followed tasks looked at per poll statement. */
const POLL_BATCH = 500;

export class MysqlTaskEventLog implements TaskEventLog {
  private readonly follower: LogFollower;
  private readonly sql: Sql;
  private readonly p: string;
  private readonly pollMs: number;
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  /** The last log end seen of each followed task. */
  private readonly seen = new Map<string, number>();
  /** The last poll failed: the next one that succeeds wakes every subscriber. */
  private failed = false;

  constructor(sql: Sql, p: string, pollMs: number) {
    this.sql = sql;
    this.p = p;
    this.pollMs = pollMs;
    this.follower = new LogFollower(
      (taskId, after, limit) => this.read(taskId, after, limit),
      async () => this.startPolling(),
    );
  }

  /** This store wrote events of a task: its subscribers catch up now. */
  wake(taskId: string): void {
    this.follower.wake(taskId);
  }

  async append(taskId: string, events: readonly TaskEventInput[]): Promise<number[]> {
    if (events.length === 0) return [];
    const texts = events.map((e, i) => ({ final: e.final, text: eventText(e.event, `event ${i} of task "${taskId}"`) }));
    const p = this.p;
    const id = key(taskId);
    const rows = texts.map((_, i) => (i === 0 ? "SELECT 1 AS k, ? AS final, ? AS event" : `SELECT ${i + 1}, ?, ?`)).join(" UNION ALL ");
    const results = await this.sql.transaction(
      "append",
      [
        `UPDATE ${p}tasks SET last_seq = last_seq + ? WHERE id = ?`,
        "SET @a2a_ok = ROW_COUNT()",
        `INSERT INTO ${p}events (task_id, seq, final, event) SELECT t.id, t.last_seq - ? + x.k, x.final, x.event FROM ${p}tasks t JOIN (${rows}) x WHERE t.id = ? AND @a2a_ok = 1`,
        `SELECT last_seq FROM ${p}tasks WHERE id = ? AND @a2a_ok = 1`,
      ],
      [events.length, id, events.length, ...texts.flatMap((e) => [e.final, e.text]), id, id],
    );
    const row = rowsOf<{ last_seq: number }>(results.at(-1))[0];
    if (!row) throw new StoreError(`task "${taskId}" not found`, "not-found");
    const last = Number(row.last_seq);
    this.wake(taskId);
    return events.map((_, i) => last - events.length + 1 + i);
  }

  async read(taskId: string, after = 0, limit = 10_000): Promise<LoggedEvent[]> {
    const rows = await this.sql.rows<{ seq: number; final: number; event: string }>(
      "read events",
      `SELECT seq, final, event FROM ${this.p}events WHERE task_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
      [key(taskId), after, limit],
    );
    return rows.map((r) => ({ seq: Number(r.seq), final: Number(r.final) === 1, event: JSON.parse(r.event) as JsonObject }));
  }

  async end(taskId: string): Promise<number> {
    const [row] = await this.sql.rows<{ last_seq: number }>("read log end", `SELECT last_seq FROM ${this.p}tasks WHERE id = ?`, [key(taskId)]);
    return Number(row?.last_seq ?? 0);
  }

  subscribe(taskId: string, listener: (event: LoggedEvent) => void, options?: EventSubscriptionOptions): EventSubscription {
    return this.follower.subscribe(taskId, listener, options);
  }

  /** Starts polling for other instances' commits (while anyone subscribes). */
  private startPolling(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.poll(), this.pollMs);
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    const followed = this.follower.followed();
    if (followed.length === 0) {
      this.stop();
      this.seen.clear();
      return;
    }
    this.polling = true;
    try {
      const changed: string[] = [];
      for (let from = 0; from < followed.length; from += POLL_BATCH) {
        const batch = followed.slice(from, from + POLL_BATCH);
        const rows = await this.sql.rows<{ id: Buffer; last_seq: number }>(
          "poll events",
          `SELECT id, last_seq FROM ${this.p}tasks WHERE id IN (${batch.map(() => "?").join(", ")})`,
          batch.map(key),
        );
        for (const row of rows) {
          const id = unkey(row.id);
          const end = Number(row.last_seq);
          if (this.seen.get(id) !== end) {
            this.seen.set(id, end);
            changed.push(id);
          }
        }
      }
      const now = new Set(followed);
      for (const id of this.seen.keys()) if (!now.has(id)) this.seen.delete(id);
      if (this.failed) {
        this.failed = false;
        this.follower.wake(undefined);
      } else for (const id of changed) this.follower.wake(id);
    } catch {
      this.failed = true; // the engine is away: the next poll tries again
    } finally {
      this.polling = false;
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
