/** The PostgreSQL push outbox: push notifications to deliver, claimed by one instance at a time, retried later. */
import { storableJson } from "../task-json.js";
import type { OutboxEntry, OutboxMessage, PushOutbox } from "../contract.js";
import type { JsonObject } from "../../json.js";
import { PostgresPart } from "./sql.js";

export class PostgresPushOutbox extends PostgresPart implements PushOutbox {
  async enqueue(messages: readonly OutboxMessage[]): Promise<string[]> {
    if (messages.length === 0) return [];
    const { rows } = await this.db.query<{ id: string }>(
      `INSERT INTO ${this.p}outbox (task_id, target, payload)
       SELECT x.value->>'taskId', x.value->'target', x.value->'payload'
       FROM json_array_elements($1::json) WITH ORDINALITY AS x(value, ord) ORDER BY x.ord RETURNING id`,
      [storableJson(messages, "push notifications")],
    );
    return rows.map((r) => r.id).sort((a, b) => Number(a) - Number(b));
  }

  async claim(owner: string, options: { leaseMs: number; limit?: number }): Promise<OutboxEntry[]> {
    const p = this.p;
    const { rows } = await this.db.query<{ id: string; task_id: string; target: JsonObject; payload: JsonObject; attempts: number }>(
      `UPDATE ${p}outbox o SET owner = $1, attempts = o.attempts + 1, due_at = now() + $2 * interval '1 millisecond'
       FROM (SELECT id FROM ${p}outbox WHERE due_at <= now() ORDER BY due_at, id LIMIT $3 FOR UPDATE SKIP LOCKED) c
       WHERE o.id = c.id RETURNING o.id, o.task_id, o.target, o.payload, o.attempts`,
      [owner, options.leaseMs, options.limit ?? 10],
    );
    return rows
      .map((r) => ({ id: r.id, taskId: r.task_id, target: r.target, payload: r.payload, attempts: r.attempts }))
      .sort((a, b) => Number(a.id) - Number(b.id));
  }

  async ack(id: string, owner: string): Promise<boolean> {
    if (!/^\d+$/.test(id)) return false;
    const { rowCount } = await this.db.query(`DELETE FROM ${this.p}outbox WHERE id = $1 AND owner = $2`, [id, owner]);
    return (rowCount ?? 0) > 0;
  }

  async retry(id: string, owner: string, delayMs: number): Promise<boolean> {
    if (!/^\d+$/.test(id)) return false;
    const { rowCount } = await this.db.query(
      `UPDATE ${this.p}outbox SET owner = NULL, due_at = now() + $3 * interval '1 millisecond' WHERE id = $1 AND owner = $2`,
      [id, owner, delayMs],
    );
    return (rowCount ?? 0) > 0;
  }

  async size(): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.p}outbox`);
    return rows[0]?.n ?? 0;
  }
}
