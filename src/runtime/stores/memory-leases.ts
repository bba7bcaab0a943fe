/**
 * In-memory execution leases: which instance runs a task, for how long (one process, so always this one).
 */
import type { ExecutionLeases, LeaseHolder } from "./contract.js";

export class InMemoryExecutionLeases implements ExecutionLeases {
  private readonly leases = new Map<string, LeaseHolder>();

  /** The owner of the task's unexpired lease, if any. */
  liveHolder(taskId: string): string | undefined {
    const current = this.leases.get(taskId);
    return current && current.expiresAt > Date.now() ? current.owner : undefined;
  }

  set(taskId: string, owner: string, ttlMs: number): void {
    this.leases.set(taskId, { owner, expiresAt: Date.now() + ttlMs });
  }

  releaseNow(taskId: string, owner: string): void {
    if (this.leases.get(taskId)?.owner === owner) this.leases.delete(taskId);
  }

  async acquire(taskId: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    const current = this.leases.get(taskId);
    if (current && current.owner !== owner && current.expiresAt > now) return false;
    this.leases.set(taskId, { owner, expiresAt: now + ttlMs });
    return true;
  }

  async renew(taskId: string, owner: string, ttlMs: number): Promise<boolean> {
    const current = this.leases.get(taskId);
    if (!current || current.owner !== owner) return false;
    current.expiresAt = Date.now() + ttlMs;
    return true;
  }

  async release(taskId: string, owner: string): Promise<void> {
    if (this.leases.get(taskId)?.owner === owner) this.leases.delete(taskId);
  }

  async holder(taskId: string): Promise<LeaseHolder | undefined> {
    const current = this.leases.get(taskId);
    return current && { ...current };
  }

  async claimExpired(owner: string, ttlMs: number, limit = 100): Promise<Array<{ taskId: string; previousOwner: string }>> {
    const now = Date.now();
    const taken: Array<{ taskId: string; previousOwner: string }> = [];
    for (const [taskId, lease] of this.leases) {
      if (taken.length >= limit) break;
      if (lease.expiresAt > now) continue;
      taken.push({ taskId, previousOwner: lease.owner });
      this.leases.set(taskId, { owner, expiresAt: now + ttlMs });
    }
    return taken;
  }

  deleteTask(taskId: string): void {
    this.leases.delete(taskId);
  }
}
