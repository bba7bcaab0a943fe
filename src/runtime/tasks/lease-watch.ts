/**
 * Execution leases over time: renews the leases this instance holds (and says when one is lost, so
 * that the execution stops), and takes over the leases of instances that died (`onExpired`: fail the
 * task, or re-run it, in a commit that releases the lease).
 */
import type { ExecutionLeases } from "../stores/contract.js";

export interface LeaseWatchOptions {
  leases: ExecutionLeases;
  /** This instance's id. */
  owner: string;
  /** Lease length in ms: the time after which a dead instance's tasks are taken over. */
  ttlMs: number;
  /** Renewal period; default a third of the lease. */
  renewEveryMs?: number;
  /** Period of the scan for expired leases; default half the lease. */
  scanEveryMs?: number;
  /** A dead instance's task, now leased to this one. */
  onExpired(taskId: string, previousOwner: string): Promise<void>;
  /** A lease this instance held was taken over (it renewed too late): stop that execution. */
  onLost?(taskId: string): void;
  onError?(error: unknown): void;
}

export class LeaseWatch {
  private readonly held = new Set<string>();
  private timers: Array<ReturnType<typeof setInterval>> = [];
  private renewing = false;
  private scanning = false;

  private readonly options: LeaseWatchOptions;

  constructor(options: LeaseWatchOptions) {
    this.options = options;
  }

  /** Keeps renewing a lease this instance took (in the task's commit, or with `acquire`). */
  hold(taskId: string): void {
    this.held.add(taskId);
  }

  /** Stops renewing it (the execution ended; its final commit released it). */
  drop(taskId: string): void {
    this.held.delete(taskId);
  }

  start(): void {
    if (this.timers.length > 0) return;
    const { ttlMs } = this.options;
    const renew = setInterval(() => void this.renewAll(), this.options.renewEveryMs ?? Math.max(Math.floor(ttlMs / 3), 1));
    const scan = setInterval(() => void this.scan(), this.options.scanEveryMs ?? Math.max(Math.floor(ttlMs / 2), 1));
    for (const timer of [renew, scan]) (timer as { unref?: () => void }).unref?.();
    this.timers = [renew, scan];
  }

  stop(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
  }

  async renewAll(): Promise<void> {
    if (this.renewing) return;
    this.renewing = true;
    try {
      await Promise.all(
        [...this.held].map(async (taskId) => {
          try {
            if (!(await this.options.leases.renew(taskId, this.options.owner, this.options.ttlMs))) {
              this.held.delete(taskId);
              this.options.onLost?.(taskId);
            }
          } catch (error) {
            this.options.onError?.(error);
          }
        }),
      );
    } finally {
      this.renewing = false;
    }
  }

  async scan(): Promise<void> {
    if (this.scanning) return;
    this.scanning = true;
    try {
      const taken = await this.options.leases.claimExpired(this.options.owner, this.options.ttlMs);
      for (const { taskId, previousOwner } of taken) {
        try {
          await this.options.onExpired(taskId, previousOwner);
        } catch (error) {
          // The lease taken here expires in turn, and an instance tries again.
          this.options.onError?.(error);
        }
      }
    } catch (error) {
      this.options.onError?.(error);
    } finally {
      this.scanning = false;
    }
  }
}
