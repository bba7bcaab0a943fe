/** The MySQL execution leases: which instance runs a task, until when (the database's clock); expired ones claimed for take-over. */
import type { ExecutionLeases, LeaseHolder } from "../contract.js";
import { claimToken, key, MysqlPart, NOW_MS, rowsOf, unkey } from "./sql.js";

export class MysqlExecutionLeases extends MysqlPart implements ExecutionLeases {
  async acquire(taskId: string, owner: string, ttlMs: number): Promise<boolean> {
    const p = this.p;
    // ON DUPLICATE KEY UPDATE assigns left to right: `owner` changes when the lease is this owner's or has
    // expired, and `expires_at` then follows the owner now recorded.
    const results = await this.sql.query(
      "acquire lease",
      `INSERT INTO ${p}leases (task_id, owner, expires_at) VALUES (?, ?, ${NOW_MS} + ?)
       ON DUPLICATE KEY UPDATE owner = IF(owner = VALUES(owner) OR expires_at <= ${NOW_MS}, VALUES(owner), owner),
         expires_at = IF(owner = VALUES(owner), VALUES(expires_at), expires_at),
         previous_owner = IF(owner = VALUES(owner), NULL, previous_owner), claim = IF(owner = VALUES(owner), NULL, claim);
       SELECT owner FROM ${p}leases WHERE task_id = ?`,
      [key(taskId), key(owner), ttlMs, key(taskId)],
    );
    const row = rowsOf<{ owner: Buffer }>(results[1])[0];
    return row !== undefined && unkey(row.owner) === owner;
  }

  async renew(taskId: string, owner: string, ttlMs: number): Promise<boolean> {
    return (await this.sql.changed("renew lease", `UPDATE ${this.p}leases SET expires_at = ${NOW_MS} + ? WHERE task_id = ? AND owner = ?`, [ttlMs, key(taskId), key(owner)])) > 0;
  }

  async release(taskId: string, owner: string): Promise<void> {
    await this.sql.query("release lease", `DELETE FROM ${this.p}leases WHERE task_id = ? AND owner = ?`, [key(taskId), key(owner)]);
  }

  async holder(taskId: string): Promise<LeaseHolder | undefined> {
    const [row] = await this.sql.rows<{ owner: Buffer; expires_at: number }>("read lease", `SELECT owner, expires_at FROM ${this.p}leases WHERE task_id = ?`, [key(taskId)]);
    return row && { owner: unkey(row.owner), expiresAt: Number(row.expires_at) };
  }

  async claimExpired(owner: string, ttlMs: number, limit = 100): Promise<Array<{ taskId: string; previousOwner: string }>> {
    const p = this.p;
    const token = claimToken();
    // The update locks the rows it takes; a concurrent claim waits for them, then finds them unexpired
    // and passes on: each expired lease goes to one caller. The rows it took are read back by its token.
    const results = await this.sql.query(
      "claim expired leases",
      `UPDATE ${p}leases SET previous_owner = owner, owner = ?, claim = ?, expires_at = ${NOW_MS} + ? WHERE expires_at <= ${NOW_MS} ORDER BY expires_at LIMIT ?;
       SELECT task_id, previous_owner FROM ${p}leases WHERE claim = ?`,
      [key(owner), token, ttlMs, limit, token],
    );
    return rowsOf<{ task_id: Buffer; previous_owner: Buffer }>(results[1]).map((r) => ({ taskId: unkey(r.task_id), previousOwner: unkey(r.previous_owner) }));
  }
}
