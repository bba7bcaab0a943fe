/** The push outbox and execution leases of the SQLite-family stores (sqlite.ts, durable-object.ts): every change one write transaction. */
import type { ExecutionLeases, LeaseHolder, OutboxEntry, OutboxMessage, PushOutbox } from "./contract.js";
import type { JsonObject } from "../json.js";
import { storableJson } from "./task-json.js";
import { key, unkey, type Sql } from "./sql-database.js";

export class SqlitePushOutbox implements PushOutbox {
  private readonly sql: Sql;

  constructor(sql: Sql) {
    this.sql = sql;
  }

  async enqueue(messages: readonly OutboxMessage[]): Promise<string[]> {
    if (messages.length === 0) return [];
    const rows = messages.map((m) => [key(m.taskId), storableJson(m.target, "a push target"), storableJson(m.payload, "a push payload")] as const);
    return this.sql.write("enqueue", () => {
      const now = Date.now();
      return rows.map((r) => String(this.sql.get<{ id: number }>("INSERT INTO outbox (task_id, target, payload, due_at) VALUES (?, ?, ?, ?) RETURNING id", ...r, now)?.id));
    });
  }

  async claim(owner: string, options: { leaseMs: number; limit?: number }): Promise<OutboxEntry[]> {
    const rows = this.sql.write("claim", () => {
      const now = Date.now();
      const due = this.sql.all<{ id: number }>("SELECT id FROM outbox WHERE due_at <= ? ORDER BY due_at, id LIMIT ?", now, options.limit ?? 10);
      return due.map(
        ({ id }) =>
          this.sql.get<{ id: number; task_id: string; target: string; payload: string; attempts: number }>(
            "UPDATE outbox SET owner = ?, attempts = attempts + 1, due_at = ? WHERE id = ? RETURNING id, task_id, target, payload, attempts",
            key(owner), now + options.leaseMs, id,
          )!,
      );
    });
    return rows
      .map((r) => ({ id: String(r.id), taskId: unkey(r.task_id), target: JSON.parse(r.target) as JsonObject, payload: JSON.parse(r.payload) as JsonObject, attempts: r.attempts }))
      .sort((a, b) => Number(a.id) - Number(b.id));
  }

  async ack(id: string, owner: string): Promise<boolean> {
    if (!/^\d+$/.test(id)) return false;
    return this.sql.write("ack", () => this.sql.run("DELETE FROM outbox WHERE id = ? AND owner = ?", Number(id), key(owner)) > 0);
  }

  async retry(id: string, owner: string, delayMs: number): Promise<boolean> {
    if (!/^\d+$/.test(id)) return false;
    return this.sql.write("retry", () => this.sql.run("UPDATE outbox SET owner = NULL, due_at = ? WHERE id = ? AND owner = ?", Date.now() + delayMs, Number(id), key(owner)) > 0);
  }

  async size(): Promise<number> {
    return this.sql.read("outbox size", () => this.sql.get<{ n: number }>("SELECT count(*) AS n FROM outbox")?.n ?? 0);
  }
}

// ---------------------------------------------------------------------------------------------------

export class SqliteExecutionLeases implements ExecutionLeases {
  private readonly sql: Sql;

  constructor(sql: Sql) {
    this.sql = sql;
  }

  async acquire(taskId: string, owner: string, ttlMs: number): Promise<boolean> {
    return this.sql.write("acquire lease", () => {
      const now = Date.now();
      return (
        this.sql.run(
          `INSERT INTO leases (task_id, owner, expires_at) VALUES (?, ?, ?)
           ON CONFLICT (task_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at WHERE owner = excluded.owner OR expires_at <= ?`,
          key(taskId), key(owner), now + ttlMs, now,
        ) > 0
      );
    });
  }

  async renew(taskId: string, owner: string, ttlMs: number): Promise<boolean> {
    return this.sql.write("renew lease", () => this.sql.run("UPDATE leases SET expires_at = ? WHERE task_id = ? AND owner = ?", Date.now() + ttlMs, key(taskId), key(owner)) > 0);
  }

  async release(taskId: string, owner: string): Promise<void> {
    this.sql.write("release lease", () => this.sql.run("DELETE FROM leases WHERE task_id = ? AND owner = ?", key(taskId), key(owner)));
  }

  async holder(taskId: string): Promise<LeaseHolder | undefined> {
    const row = this.sql.read("lease holder", () => this.sql.get<{ owner: string; expires_at: number }>("SELECT owner, expires_at FROM leases WHERE task_id = ?", key(taskId)));
    return row && { owner: unkey(row.owner), expiresAt: row.expires_at };
  }

  async claimExpired(owner: string, ttlMs: number, limit = 100): Promise<Array<{ taskId: string; previousOwner: string }>> {
    return this.sql.write("claim expired leases", () => {
      const now = Date.now();
      const expired = this.sql.all<{ task_id: string; owner: string }>("SELECT task_id, owner FROM leases WHERE expires_at <= ? ORDER BY expires_at LIMIT ?", now, limit);
      for (const row of expired) this.sql.run("UPDATE leases SET owner = ?, expires_at = ? WHERE task_id = ?", key(owner), now + ttlMs, row.task_id);
      return expired.map((r) => ({ taskId: unkey(r.task_id), previousOwner: unkey(r.owner) }));
    });
  }
}
