import type { BufferedEvents } from "../wire/sse.js";

/**
 * A push-to-pull queue: the task runtime pushes events as they happen, a binding pulls them with
 * `for await`. Breaking out of the loop (or `return()`) ends the channel at once, even while a `next()` is
 * pending, and releases what fed it (the bus subscription) exactly once.
 */
export class EventChannel<T> implements AsyncIterableIterator<T>, BufferedEvents<T> {
  private buffer: T[] = [];
  private waiting: ((result: IteratorResult<T, undefined>) => void) | undefined;
  private rejectWaiting: ((error: unknown) => void) | undefined;
  private ended = false;
  private released = false;
  /** Set by `fail`: thrown by `next()` once the events queued before it are read. */
  private failure: { error: unknown } | undefined;

  private readonly release: () => void;

  constructor(release: () => void = () => undefined) {
    this.release = release;
  }

  /** Queues an event (ignored once the channel has ended). */
  push(value: T): void {
    if (this.ended) return;
    const waiting = this.waiting;
    if (waiting) {
      this.waiting = undefined;
      waiting({ value, done: false });
    } else this.buffer.push(value);
  }

  /** Ends the channel after the events already queued. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.free();
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.({ value: undefined, done: true });
  }

  /** Ends the channel with an error: after the events already queued, `next()` rejects with it once. */
  fail(error: unknown): void {
    if (this.ended) return;
    this.failure = { error };
    const waiting = this.waiting;
    this.waiting = undefined;
    this.end();
    if (waiting) {
      this.failure = undefined;
      this.rejectWaiting?.(error);
    }
    this.rejectWaiting = undefined;
  }

  get isEnded(): boolean {
    return this.ended;
  }

  next(): Promise<IteratorResult<T, undefined>> {
    if (this.buffer.length > 0) return Promise.resolve({ value: this.buffer.shift() as T, done: false });
    if (this.failure) {
      const { error } = this.failure;
      this.failure = undefined;
      return Promise.reject(error);
    }
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.rejectWaiting = reject;
    });
  }

  takeBuffered(): readonly T[] {
    if (this.buffer.length === 0) return NONE;
    const taken = this.buffer;
    this.buffer = [];
    return taken;
  }

  return(): Promise<IteratorResult<T, undefined>> {
    this.buffer.length = 0;
    this.failure = undefined;
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }

  private free(): void {
    if (this.released) return;
    this.released = true;
    this.release();
  }
}

/** The empty answer of `takeBuffered`, shared (frozen: no caller can add to it). */
const NONE: readonly never[] = Object.freeze([]);
