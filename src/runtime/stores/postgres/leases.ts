/** The PostgreSQL execution leases: which instance runs a task, until when (the database's clock); expired ones claimed for take-over. */
import type { ExecutionLeases, LeaseHolder } from "../contract.js";
import { PostgresPart } from "./sql.js";

export class PostgresExecutionLeases extends PostgresPart implements ExecutionLeases {
  async acquire(taskId: string, owner: string, ttlMs: number): Promise<boolean> {
    const { rows } = await this.db.query(
      `INSERT INTO ${this.p}leases AS l (task_id, owner, expires_at) VALUES ($1, $2, now() + $3 * interval '1 millisecond')
       ON CONFLICT (task_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
       WHERE l.owner = excluded.owner OR l.expires_at <= now()
       RETURNING owner`,
      [taskId, owner, ttlMs],
    );
    return rows.length > 0;
  }

  async renew(taskId: string, owner: string, ttlMs: number): Promise<boolean> {
    const { rowCount } = await this.db.query(`UPDATE ${this.p}leases SET expires_at = now() + $3 * interval '1 millisecond' WHERE task_id = $1 AND owner = $2`, [
      taskId,
      owner,
      ttlMs,
    ]);
    return (rowCount ?? 0) > 0;
  }

  async release(taskId: string, owner: string): Promise<void> {
    await this.db.query(`DELETE FROM ${this.p}leases WHERE task_id = $1 AND owner = $2`, [taskId, owner]);
  }

  async holder(taskId: string): Promise<LeaseHolder | undefined> {
    const { rows } = await this.db.query<{ owner: string; expires: number }>(
      `SELECT owner, (extract(epoch FROM expires_at) * 1000)::float8 AS expires FROM ${this.p}leases WHERE task_id = $1`,
      [taskId],
    );
    const row = rows[0];
    return row && { owner: row.owner, expiresAt: Math.round(row.expires) };
  }

  async claimExpired(owner: string, ttlMs: number, limit = 100): Promise<Array<{ taskId: string; previousOwner: string }>> {
    const p = this.p;
    const { rows } = await this.db.query<{ task_id: string; previous_owner: string }>(
      `UPDATE ${p}leases l SET owner = $1, expires_at = now() + $2 * interval '1 millisecond'
       FROM (SELECT task_id, owner FROM ${p}leases WHERE expires_at <= now() ORDER BY expires_at LIMIT $3 FOR UPDATE SKIP LOCKED) c
       WHERE l.task_id = c.task_id RETURNING l.task_id, c.owner AS previous_owner`,
      [owner, ttlMs, limit],
    );
    return rows.map((r) => ({ taskId: r.task_id, previousOwner: r.previous_owner }));
  }
}
