/** The MySQL push outbox: push notifications to deliver, claimed by one instance at a time, retried later. */
import { storableJson } from "../task-json.js";
import type { OutboxEntry, OutboxMessage, PushOutbox } from "../contract.js";
import type { JsonObject } from "../../json.js";
import { claimToken, key, MysqlPart, NOW_MS, rowsOf, unkey, type WriteResult } from "./sql.js";

export class MysqlPushOutbox extends MysqlPart implements PushOutbox {
  async enqueue(messages: readonly OutboxMessage[]): Promise<string[]> {
    if (messages.length === 0) return [];
    const values = messages.flatMap((m) => [key(m.taskId), storableJson(m.target, "push notifications"), storableJson(m.payload, "push notifications")]);
    const [result] = await this.sql.query(
      "enqueue",
      `INSERT INTO ${this.p}outbox (task_id, target, payload, due_at) VALUES ${messages.map(() => `(?, ?, ?, ${NOW_MS})`).join(", ")}`,
      values,
    );
    // A multi-row INSERT of known size takes consecutive ids from the first one it reports.
    const first = (result as WriteResult).insertId;
    return messages.map((_, i) => String(first + i));
  }

  async claim(owner: string, options: { leaseMs: number; limit?: number }): Promise<OutboxEntry[]> {
    const p = this.p;
    const token = claimToken();
    // The update locks the rows it takes; a concurrent claim waits for them, then finds them not due and
    // passes on: each entry goes to one caller. The rows it took are read back by its token.
    const results = await this.sql.query(
      "claim outbox",
      `UPDATE ${p}outbox SET owner = ?, claim = ?, attempts = attempts + 1, due_at = ${NOW_MS} + ? WHERE due_at <= ${NOW_MS} ORDER BY due_at, id LIMIT ?;
       SELECT id, task_id, target, payload, attempts FROM ${p}outbox WHERE claim = ? ORDER BY id`,
      [key(owner), token, options.leaseMs, options.limit ?? 10, token],
    );
    return rowsOf<{ id: number; task_id: Buffer; target: string; payload: string; attempts: number }>(results[1]).map((r) => ({
      id: String(r.id),
      taskId: unkey(r.task_id),
      target: JSON.parse(r.target) as JsonObject,
      payload: JSON.parse(r.payload) as JsonObject,
      attempts: Number(r.attempts),
    }));
  }

  async ack(id: string, owner: string): Promise<boolean> {
    if (!/^\d+$/.test(id)) return false;
    return (await this.sql.changed("ack outbox", `DELETE FROM ${this.p}outbox WHERE id = ? AND owner = ?`, [id, key(owner)])) > 0;
  }

  async retry(id: string, owner: string, delayMs: number): Promise<boolean> {
    if (!/^\d+$/.test(id)) return false;
    return (
      (await this.sql.changed("retry outbox", `UPDATE ${this.p}outbox SET owner = NULL, claim = NULL, due_at = ${NOW_MS} + ? WHERE id = ? AND owner = ?`, [delayMs, id, key(owner)])) > 0
    );
  }

  async size(): Promise<number> {
    const [row] = await this.sql.rows<{ n: number }>("outbox size", `SELECT count(*) AS n FROM ${this.p}outbox`);
    return Number(row?.n ?? 0);
  }
}
