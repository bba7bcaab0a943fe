/**
 * Delivers the push outbox: claims due entries for a lease, hands each to `deliver`, and acknowledges
 * it, schedules a retry with backoff, or drops it after `maxAttempts`. Any number of instances run one
 * each; an entry whose instance died is claimed again when its lease ends (at least once).
 */
import type { OutboxEntry, PushOutbox } from "../stores/contract.js";

/** What became of one delivery attempt. */
export type DeliveryOutcome = { delivered: true } | { delivered: false; retryAfterMs?: number; permanent?: boolean; reason?: string };

export interface OutboxWorkerOptions {
  outbox: PushOutbox;
  /** This instance's id (the lease owner). */
  owner: string;
  /** Sends one notification (the push sender, with its SSRF guard); a throw counts as a failed attempt. */
  deliver(entry: OutboxEntry): Promise<DeliveryOutcome>;
  /** How long a claimed entry is this instance's, in ms; default 30_000 (longer than one delivery with its timeout). */
  leaseMs?: number;
  /** Entries claimed at once; default 10. */
  batch?: number;
  /** Wait between polls when the outbox is empty, in ms; default 1_000 (`kick()` polls at once). */
  pollMs?: number;
  /** Attempts before an entry is dropped; default 8. */
  maxAttempts?: number;
  /** Delay before the next attempt; default 1 s doubling to 5 min. */
  backoffMs?: (attempts: number) => number;
  /** Store failures, failed and dropped deliveries. */
  onError?: (error: unknown, entry?: OutboxEntry) => void;
}

export class OutboxWorker {
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** A claim is in progress; `again`: a kick came meanwhile (claim once more before waiting). */
  private busy = false;
  private again = false;
  private idleWaiters: Array<() => void> = [];

  private readonly options: OutboxWorkerOptions;

  constructor(options: OutboxWorkerOptions) {
    this.options = options;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Stops claiming; resolves once the deliveries in flight are settled. */
  async stop(): Promise<void> {
    this.running = false;
    this.kick();
    await this.loop;
  }

  /**
   * Resolves once no claim is in progress nor asked for: the notifications queued so far have been
   * attempted (a retry scheduled for later is not waited for). What a Workers fetch handler hands to
   * `ctx.waitUntil`, so that the isolate delivers them after the response.
   */
  idle(): Promise<void> {
    if (!this.running || (!this.busy && this.wake !== undefined)) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Polls now (after a commit that queued notifications). */
  kick(): void {
    if (this.busy) this.again = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /** One claim and its deliveries; returns how many entries were claimed. */
  async runOnce(): Promise<number> {
    const { outbox, owner } = this.options;
    const batch = this.options.batch ?? 10;
    const entries = await outbox.claim(owner, { leaseMs: this.options.leaseMs ?? 30_000, limit: batch });
    await Promise.all(entries.map((entry) => this.handle(entry)));
    return entries.length;
  }

  private async handle(entry: OutboxEntry): Promise<void> {
    const { outbox, owner } = this.options;
    let outcome: DeliveryOutcome;
    try {
      outcome = await this.options.deliver(entry);
    } catch (error) {
      outcome = { delivered: false, reason: error instanceof Error ? error.message : String(error) };
    }
    try {
      if (outcome.delivered) {
        await outbox.ack(entry.id, owner);
        return;
      }
      const maxAttempts = this.options.maxAttempts ?? 8;
      if (outcome.permanent || entry.attempts >= maxAttempts) {
        await outbox.ack(entry.id, owner);
        this.options.onError?.(new Error(`push notification dropped after ${entry.attempts} attempt(s): ${outcome.reason ?? "not delivered"}`), entry);
        return;
      }
      const backoff = this.options.backoffMs ?? ((attempts: number) => Math.min(1_000 * 2 ** (attempts - 1), 300_000));
      await outbox.retry(entry.id, owner, outcome.retryAfterMs ?? backoff(entry.attempts));
      this.options.onError?.(new Error(`push notification not delivered (attempt ${entry.attempts}): ${outcome.reason ?? "failed"}`), entry);
    } catch (error) {
      // The store is down: the lease expires and the entry is claimed again.
      this.options.onError?.(error, entry);
    }
  }

  private async run(): Promise<void> {
    const batch = this.options.batch ?? 10;
    while (this.running) {
      this.busy = true;
      this.again = false;
      let claimed = 0;
      try {
        claimed = await this.runOnce();
      } catch (error) {
        this.options.onError?.(error);
      }
      if (!this.running) break;
      if (claimed >= batch || this.again) continue;
      this.busy = false;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        this.timer = setTimeout(() => this.kick(), this.options.pollMs ?? 1_000);
        (this.timer as { unref?: () => void }).unref?.();
        for (const waiter of this.idleWaiters.splice(0)) waiter();
      });
    }
    this.busy = false;
    for (const waiter of this.idleWaiters.splice(0)) waiter();
  }
}
