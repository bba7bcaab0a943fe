/**
 * Live subscriptions to task event logs kept by an engine, shared by the PostgreSQL, Redis, SQLite and MySQL stores.
 *
 * The engine only wakes the follower up ("task X has new events": a NOTIFY, a Pub/Sub message); the
 * events themselves are always read from the durable log, after the last sequence each subscriber
 * received. So a subscriber gets every event in order, once: a wake-up that is lost (a connection
 * dropped) is made good by the catch-up read that follows the reconnection, and a wake-up for events
 * already read delivers nothing twice.
 */
import { StoreError, StoreUnavailableError } from "./errors.js";
import type { EventSubscription, EventSubscriptionOptions, LoggedEvent } from "./contract.js";

interface Subscriber {
  listener: (event: LoggedEvent) => void;
  onError: ((error: StoreError) => void) | undefined;
  /** The last sequence delivered to it. */
  last: number;
  closed: boolean;
}

interface Follow {
  subscribers: Set<Subscriber>;
  /** The catch-up read queued behind the running one (one at most: later wake-ups join it). */
  queued: Promise<void> | undefined;
  /** The end of the chain of reads, so that reads of one task never overlap. */
  tail: Promise<void>;
}

export type LogReader = (taskId: string, after: number, limit: number) => Promise<LoggedEvent[]>;

const BATCH = 500;

export class LogFollower {
  private readonly follows = new Map<string, Follow>();

  private readonly read: LogReader;
  private readonly listening: () => Promise<void>;

  /**
   * @param read reads a task's log after a sequence
   * @param listening resolves once the engine's wake-ups are being received (rejects when it cannot listen)
   */
  constructor(
    read: LogReader,
    listening: () => Promise<void>,
  ) {
    this.read = read;
    this.listening = listening;
  }

  subscribe(taskId: string, listener: (event: LoggedEvent) => void, options: EventSubscriptionOptions = {}): EventSubscription {
    const subscriber: Subscriber = { listener, onError: options.onError, last: options.after ?? 0, closed: false };
    let follow = this.follows.get(taskId);
    if (!follow) this.follows.set(taskId, (follow = { subscribers: new Set(), queued: undefined, tail: Promise.resolve() }));
    follow.subscribers.add(subscriber);
    // Listen first, then read: an event committed in between is both in the read and woken up for,
    // and the sequence check delivers it once.
    const ready = this.listening().then(() => this.catchUp(taskId));
    ready.catch(() => undefined); // the caller may not await `ready`; errors also reach onError
    return {
      ready,
      close: () => {
        subscriber.closed = true;
        const current = this.follows.get(taskId);
        current?.subscribers.delete(subscriber);
        if (current && current.subscribers.size === 0) this.follows.delete(taskId);
      },
    };
  }

  /** The engine says a task has new events (`undefined`: any task may have). */
  wake(taskId: string | undefined): void {
    const ids = taskId === undefined ? [...this.follows.keys()] : this.follows.has(taskId) ? [taskId] : [];
    for (const id of ids) this.catchUp(id).catch(() => undefined);
  }

  /** The tasks followed now (an engine that polls for changes looks at these). */
  followed(): string[] {
    return [...this.follows.keys()];
  }

  /** How many subscriptions are open (all tasks). */
  get size(): number {
    let n = 0;
    for (const follow of this.follows.values()) n += follow.subscribers.size;
    return n;
  }

  private catchUp(taskId: string): Promise<void> {
    const follow = this.follows.get(taskId);
    if (!follow) return Promise.resolve();
    if (follow.queued) return follow.queued;
    const run = follow.tail.then(() => {
      follow.queued = undefined;
      return this.drain(taskId, follow);
    });
    follow.queued = run;
    follow.tail = run.catch(() => undefined);
    return run;
  }

  private async drain(taskId: string, follow: Follow): Promise<void> {
    const open = () => [...follow.subscribers].filter((s) => !s.closed);
    if (open().length === 0) return;
    let after = Math.min(...open().map((s) => s.last));
    for (;;) {
      let events: LoggedEvent[];
      try {
        events = await this.read(taskId, after, BATCH);
      } catch (cause) {
        const error = cause instanceof StoreError ? cause : new StoreUnavailableError("store", String(cause), { cause });
        for (const s of open()) s.onError?.(error);
        throw error;
      }
      // The subscribers of this batch, listed once (not per event); one closed meanwhile gets nothing more.
      const subscribers = open();
      for (const event of events) {
        for (const s of subscribers) {
          if (s.closed || event.seq <= s.last) continue;
          s.last = event.seq;
          try {
            s.listener(event);
          } catch {
            // A listener's failure is its own; the others still get the event.
          }
        }
        after = event.seq;
      }
      if (events.length < BATCH) return;
    }
  }
}
