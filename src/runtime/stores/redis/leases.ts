/** The Redis execution leases: which instance runs a task, until when (the server's clock); expired ones claimed for take-over. */
import type { ExecutionLeases, LeaseHolder } from "../contract.js";
import { Connection } from "./connection.js";

export class RedisExecutionLeases implements ExecutionLeases {
  private readonly db: Connection;

  constructor(db: Connection) {
    this.db = db;
  }

  async acquire(taskId: string, owner: string, ttlMs: number): Promise<boolean> {
    return (await this.db.script<number>("acquire", [taskId, owner, Math.max(1, Math.floor(ttlMs))])) === 1;
  }

  async renew(taskId: string, owner: string, ttlMs: number): Promise<boolean> {
    return (await this.db.script<number>("renew", [taskId, owner, Math.max(0, Math.floor(ttlMs))])) === 1;
  }

  async release(taskId: string, owner: string): Promise<void> {
    await this.db.script("release", [taskId, owner]);
  }

  async holder(taskId: string): Promise<LeaseHolder | undefined> {
    const reply = await this.db.script<string[]>("holder", [taskId]);
    return reply.length === 2 ? { owner: String(reply[0]), expiresAt: Number(reply[1]) } : undefined;
  }

  async claimExpired(owner: string, ttlMs: number, limit = 100): Promise<Array<{ taskId: string; previousOwner: string }>> {
    const reply = await this.db.script<string[]>("claimExpired", [owner, Math.max(1, Math.floor(ttlMs)), limit]);
    const taken: Array<{ taskId: string; previousOwner: string }> = [];
    for (let i = 0; i + 1 < reply.length; i += 2) taken.push({ taskId: String(reply[i]), previousOwner: String(reply[i + 1]) });
    return taken;
  }
}
