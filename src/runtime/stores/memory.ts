/**
 * The in-memory engine (the default store): push configs, the push outbox, execution leases and
 * `InMemoryStore`, which puts them together with the task store and the event log; and retention.
 */
import type { JsonObject } from "../json.js";
import type { A2AStore, OutboxEntry, OutboxMessage, PushConfigStore, PushOutbox } from "./contract.js";
import { InMemoryTaskEventLog } from "./memory-event-log.js";
import { InMemoryExecutionLeases } from "./memory-leases.js";
import { InMemoryTaskStore } from "./memory-task-store.js";
import { pushConfigId, storableJson } from "./task-json.js";

export class InMemoryPushConfigStore implements PushConfigStore {
  private readonly configs = new Map<string, Map<string, JsonObject>>();
  async set(taskId: string, config: JsonObject): Promise<JsonObject> {
    const id = pushConfigId(taskId, config);
    storableJson(config, `push config "${id}"`);
    const stored = { ...config };
    let forTask = this.configs.get(taskId);
    if (!forTask) this.configs.set(taskId, (forTask = new Map()));
    forTask.set(id, stored);
    return { ...stored };
  }
  async get(taskId: string, configId?: string): Promise<JsonObject | undefined> {
    const forTask = this.configs.get(taskId);
    if (!forTask) return undefined;
    const found = configId === undefined ? [...forTask.values()].at(-1) : forTask.get(configId);
    return found && { ...found };
  }
  async list(taskId: string): Promise<JsonObject[]> {
    return [...(this.configs.get(taskId)?.values() ?? [])].map((c) => ({ ...c }));
  }
  async delete(taskId: string, configId: string): Promise<boolean> {
    const forTask = this.configs.get(taskId);
    const deleted = forTask?.delete(configId) ?? false;
    if (forTask && forTask.size === 0) this.configs.delete(taskId);
    return deleted;
  }
  /** Drops every config of a task (retention). */
  deleteTask(taskId: string): void {
    this.configs.delete(taskId);
  }
}


interface MemoryOutboxEntry extends OutboxMessage {
  id: string;
  attempts: number;
  dueAt: number;
  owner: string | undefined;
}

export class InMemoryPushOutbox implements PushOutbox {
  private readonly entries = new Map<string, MemoryOutboxEntry>();
  private nextId = 1;

  async enqueue(messages: readonly OutboxMessage[]): Promise<string[]> {
    for (const m of messages) storableJson(m, `a push notification of task "${m.taskId}"`);
    return this.enqueueNow(messages);
  }

  enqueueNow(messages: readonly OutboxMessage[]): string[] {
    return messages.map((m) => {
      const id = String(this.nextId++);
      this.entries.set(id, { ...m, id, attempts: 0, dueAt: Date.now(), owner: undefined });
      return id;
    });
  }

  async claim(owner: string, options: { leaseMs: number; limit?: number }): Promise<OutboxEntry[]> {
    const now = Date.now();
    const due = [...this.entries.values()].filter((e) => e.dueAt <= now).slice(0, options.limit ?? 10);
    return due.map((e) => {
      e.owner = owner;
      e.attempts++;
      e.dueAt = now + options.leaseMs;
      return { id: e.id, taskId: e.taskId, target: e.target, payload: e.payload, attempts: e.attempts };
    });
  }

  async ack(id: string, owner: string): Promise<boolean> {
    const entry = this.entries.get(id);
    if (!entry || entry.owner !== owner) return false;
    this.entries.delete(id);
    return true;
  }

  async retry(id: string, owner: string, delayMs: number): Promise<boolean> {
    const entry = this.entries.get(id);
    if (!entry || entry.owner !== owner) return false;
    entry.owner = undefined;
    entry.dueAt = Date.now() + delayMs;
    return true;
  }

  async size(): Promise<number> {
    return this.entries.size;
  }
}


/**
 * Runs `purgeFinished` every `everyMs` (default: a tenth of `olderThanMs`, at least 1 s, at most 1 h)
 * until the returned function is called. Failures (engine down) are passed to `onError` and retried
 * at the next tick.
 */
export function scheduleRetention(
  store: Pick<A2AStore, "purgeFinished">,
  options: { olderThanMs: number; everyMs?: number; limit?: number; onError?: (error: unknown) => void },
): () => void {
  const every = options.everyMs ?? Math.min(Math.max(options.olderThanMs / 10, 1_000), 3_600_000);
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    store
      .purgeFinished({ olderThanMs: options.olderThanMs, ...(options.limit !== undefined ? { limit: options.limit } : {}) })
      .catch((error: unknown) => options.onError?.(error))
      .finally(() => {
        running = false;
      });
  }, every);
  (timer as { unref?: () => void }).unref?.();
  return () => clearInterval(timer);
}

/** The embedded default: every part in this process's memory (one instance; lost on restart). */
export class InMemoryStore implements A2AStore {
  readonly engine = "memory";
  readonly tasks: InMemoryTaskStore;
  readonly pushConfigs = new InMemoryPushConfigStore();
  readonly events: InMemoryTaskEventLog;
  readonly outbox = new InMemoryPushOutbox();
  readonly leases = new InMemoryExecutionLeases();

  /** Finished tasks whose event logs are still kept, in the order they finished, with when to trim them. */
  private readonly finished: Array<{ taskId: string; at: number }> = [];
  private finishedHead = 0;
  private trimTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly finishedEventsMs: number;

  /**
   * `maxTasks` (default 100,000): the oldest tasks beyond it are dropped. `finishedEventsMs` (default
   * 10 s): how long the event log of a finished task a stream followed is kept after its last write,
   * for a client that resumes with Last-Event-ID; then its events are dropped (the task stays: reads,
   * GetTask, ListTasks) and a resumption ends at once, as after the last event. A finished task no stream
   * followed loses its events when it finishes (no client holds an event id). Running tasks keep their
   * whole log.
   */
  constructor(options: { maxTasks?: number; finishedEventsMs?: number } = {}) {
    const tasks = new InMemoryTaskStore(options.maxTasks);
    const events = new InMemoryTaskEventLog((taskId) => tasks.has(taskId));
    this.finishedEventsMs = options.finishedEventsMs ?? 10_000;
    tasks.onCommit = (taskId, committed, texts) => events.appendNow(taskId, committed, texts);
    tasks.eventsUnread = (taskId) => events.isUnread(taskId);
    tasks.onUnreadEvents = (taskId, count) => events.appendUnread(taskId, count);
    tasks.onWrite = (facts) => {
      if (!facts.terminal) return;
      // No stream ever followed it: no client has an event id to resume from.
      if (events.isUnread(facts.id)) return events.trim(facts.id);
      events.fit(facts.id);
      this.finished.push({ taskId: facts.id, at: Date.now() + this.finishedEventsMs });
      this.scheduleTrim();
    };
    tasks.logEnd = (taskId) => events.endNow(taskId);
    tasks.onPushes = (pushes) => void this.outbox.enqueueNow(pushes);
    tasks.leases = this.leases;
    tasks.onRemove = (taskId) => {
      events.deleteTask(taskId);
      this.pushConfigs.deleteTask(taskId);
      this.leases.deleteTask(taskId);
    };
    this.tasks = tasks;
    this.events = events;
  }

  async purgeFinished(options: { olderThanMs: number; limit?: number }): Promise<number> {
    return this.tasks.purgeFinished(options.olderThanMs, options.limit);
  }

  /** Trims the event logs of the tasks that finished `finishedEventsMs` ago (and were not written since). */
  private trimFinished(): void {
    const now = Date.now();
    const queue = this.finished;
    while (this.finishedHead < queue.length) {
      const next = queue[this.finishedHead] as { taskId: string; at: number };
      if (next.at > now) break;
      this.finishedHead++;
      if (this.tasks.finishedSince(next.taskId, now - this.finishedEventsMs)) this.events.trim(next.taskId);
    }
    if (this.finishedHead > 1024 && this.finishedHead * 2 > queue.length) {
      queue.splice(0, this.finishedHead);
      this.finishedHead = 0;
    }
  }

  /** One timer at a time, for the oldest finished task; it does not keep the process alive. */
  private scheduleTrim(): void {
    if (this.trimTimer !== undefined) return;
    const next = this.finished[this.finishedHead];
    if (!next) return;
    this.trimTimer = setTimeout(() => {
      this.trimTimer = undefined;
      this.trimFinished();
      this.scheduleTrim();
      // Batches of at most a second's worth (or of the window, when shorter): not a timer per task.
    }, Math.max(next.at - Date.now(), Math.min(1_000, this.finishedEventsMs)));
    (this.trimTimer as { unref?: () => void }).unref?.();
  }

  /** Always answers: the store is this process's memory. */
  async ping(): Promise<void> {}

  async close(): Promise<void> {
    if (this.trimTimer !== undefined) clearTimeout(this.trimTimer);
    this.trimTimer = undefined;
  }
}
