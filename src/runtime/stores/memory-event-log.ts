/**
 * The in-memory task event log: each task's events with their sequence, and live subscriptions to them.
 */
import { EventTexts } from "./event-texts.js";
import type { JsonObject } from "../json.js";
import type { EventSubscription, EventSubscriptionOptions, LoggedEvent, TaskEventInput, TaskEventLog } from "./contract.js";
import { StoreError } from "./errors.js";
import { eventText } from "./task-json.js";

/**
 * A task's log in memory: each event as JSON text (a read parses it; kept as bytes, runtime/stores/event-texts.ts)
 * and the sequences of the final ones; `dropped` events were trimmed from its start, so that sequences go
 * on with no gap. A trimmed log is kept as its length alone (a number costs no allocation).
 */
interface MemoryLog {
  dropped: number;
  texts: EventTexts;
  finals: number[];
}

export class InMemoryTaskEventLog implements TaskEventLog {
  private readonly logs = new Map<string, MemoryLog | number>();
  private readonly listeners = new Map<string, Set<(event: LoggedEvent) => void>>();
  /** The tasks a subscription followed since their log was last trimmed: only their clients can resume. */
  private readonly followed = new Set<string>();

  private readonly hasTask: (taskId: string) => boolean;

  constructor(hasTask: (taskId: string) => boolean = () => true) {
    this.hasTask = hasTask;
  }

  async append(taskId: string, events: readonly TaskEventInput[]): Promise<number[]> {
    if (!this.hasTask(taskId)) throw new StoreError(`task "${taskId}" not found`, "not-found");
    const texts = events.map((e) => eventText(e.event, `an event of task "${taskId}"`));
    return this.appendNow(taskId, events, texts);
  }

  /**
   * Appends without the checks (`commit` did them and gives the events' JSON texts). Live subscribers
   * get the events as given (no parse); the log keeps the texts.
   */
  appendNow(taskId: string, events: readonly TaskEventInput[], texts: readonly string[]): number[] {
    const current = this.logs.get(taskId);
    let log: MemoryLog;
    if (current === undefined || typeof current === "number") this.logs.set(taskId, (log = { dropped: current ?? 0, texts: new EventTexts(), finals: [] }));
    else log = current;
    const added: LoggedEvent[] = [];
    const sequences: number[] = [];
    for (let i = 0; i < events.length; i++) {
      const e = events[i] as TaskEventInput;
      const text = texts[i] ?? eventText(e.event, `an event of task "${taskId}"`);
      const seq = log.dropped + log.texts.push(text);
      if (e.final) log.finals.push(seq);
      added.push({ seq, event: e.event, final: e.final, text });
      sequences.push(seq);
    }
    const listeners = this.listeners.get(taskId);
    if (listeners) {
      // The listeners when the batch was logged, copied once: one that subscribes meanwhile got the
      // batch in its backlog already, one that closes meanwhile gets nothing more.
      const current = [...listeners];
      for (const event of added) for (const listener of current) if (listeners.has(listener)) listener(event);
    }
    return sequences;
  }

  /**
   * Numbers `count` events nobody can read (a finished task no stream follows or followed: `commit` did
   * not serialize them) and keeps only their count, as `trim` would right after: sequences go on with no gap.
   * (Nobody followed the task: `isUnread` said so, so there is no follow mark to clear.)
   */
  appendUnread(taskId: string, count: number): number[] {
    const kept = this.endNow(taskId);
    this.logs.set(taskId, kept + count);
    const sequences: number[] = [];
    for (let seq = kept + 1; seq <= kept + count; seq++) sequences.push(seq);
    return sequences;
  }

  async read(taskId: string, after = 0, limit = Infinity): Promise<LoggedEvent[]> {
    return this.backlog(taskId, after, limit);
  }

  async end(taskId: string): Promise<number> {
    return this.endNow(taskId);
  }

  /**
   * The sequence of the task's last event (0: none), kept texts or only their count: `end`, at once (the
   * in-memory task store reads it with each load).
   */
  endNow(taskId: string): number {
    const log = this.logs.get(taskId);
    return log === undefined ? 0 : typeof log === "number" ? log : log.dropped + log.texts.length;
  }

  /** The logged events after `after` (at most `limit`), parsed: values of the caller's own. */
  private backlog(taskId: string, after: number, limit = Infinity): LoggedEvent[] {
    const log = this.logs.get(taskId);
    if (log === undefined || typeof log === "number") return [];
    const out: LoggedEvent[] = [];
    const end = Math.min(log.dropped + log.texts.length, after + limit);
    for (let seq = Math.max(after, log.dropped) + 1; seq <= end; seq++) {
      out.push({ seq, event: JSON.parse(log.texts.at(seq - log.dropped - 1)) as JsonObject, final: log.finals.includes(seq) });
    }
    return out;
  }

  subscribe(taskId: string, listener: (event: LoggedEvent) => void, options: EventSubscriptionOptions = {}): EventSubscription {
    let closed = false;
    this.followed.add(taskId);
    for (const event of this.backlog(taskId, options.after ?? 0)) listener(event);
    const wrapped = (event: LoggedEvent): void => {
      if (!closed) listener(event);
    };
    let set = this.listeners.get(taskId);
    if (!set) this.listeners.set(taskId, (set = new Set()));
    set.add(wrapped);
    return {
      ready: Promise.resolve(),
      close: () => {
        closed = true;
        const current = this.listeners.get(taskId);
        current?.delete(wrapped);
        if (current?.size === 0) this.listeners.delete(taskId);
        // A task that was never created (its stream failed before the first event) leaves nothing behind.
        if (!this.hasTask(taskId)) this.followed.delete(taskId);
      },
    };
  }

  deleteTask(taskId: string): void {
    this.logs.delete(taskId);
    this.followed.delete(taskId);
  }

  /** Gives back the room a log keeps for events to come (its task finished; the log is kept a while to resume). */
  fit(taskId: string): void {
    const log = this.logs.get(taskId);
    if (log !== undefined && typeof log !== "number") log.texts.fit();
  }

  /** Whether a subscription followed the task's log since it was last trimmed (a client of it may resume). */
  wasFollowed(taskId: string): boolean {
    return this.followed.has(taskId);
  }

  /**
   * Drops the events logged so far (a finished task's, once nobody can need them to resume): reads
   * after that return nothing before the next append, whose sequence follows on with no gap.
   */
  trim(taskId: string): void {
    const log = this.logs.get(taskId);
    if (log !== undefined && typeof log !== "number") this.logs.set(taskId, log.dropped + log.texts.length);
    this.followed.delete(taskId);
  }

  /** Whether no client can read the task's events: no subscription follows it now or followed it since the last trim. */
  isUnread(taskId: string): boolean {
    return !this.followed.has(taskId) && !this.listeners.has(taskId);
  }
}
