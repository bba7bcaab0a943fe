/**
 * The in-memory task store: tasks kept as compact JSON text in this process, compare-and-set on a version.
 */
import type { JsonObject } from "../json.js";
import type { OutboxMessage, TaskCommit, TaskCommitResult, TaskEventInput, TaskPage, TaskQuery, VersionedTask, VersionedTaskStore } from "./contract.js";
import { ExecutionLeaseHeldError, TaskVersionConflictError } from "./errors.js";
import { InMemoryExecutionLeases } from "./memory-leases.js";
import { OldestKeys } from "./oldest-keys.js";
import { afterCursor, compareNewestFirst, decodePageToken, encodePageToken, pageSizeOf } from "./paging.js";
import { compactTaskText, eventText, expandTaskText, flat, storableJson, type TaskFacts, taskFacts } from "./task-json.js";

/** A stored task: its facts (indexed by ListTasks) in the entry itself, one object per task, not two. */
interface MemoryTaskEntry extends TaskFacts {
  /**
   * The task as JSON text, what a durable store keeps: a read parses it, so that no caller holds (and
   * can change) the stored value, and a finished task costs its text, not a graph of objects. A
   * finished task's is kept compact (`compactTaskText`): its id members written once, in the entry.
   */
  text: string;
  /**
   * A running task's interim write (`TaskCommit.interim`, "" as `text`): how a read gets its text, until
   * the next write (`TaskCommit.interimText`, else the object serialized then). Serializing it at every
   * write of a long stream (the whole artifact again for each batch of chunks) cost more than the
   * stream's events themselves.
   */
  interim: (() => string) | undefined;
  version: number;
  owner: string;
  /** Epoch ms of the last write (retention). */
  updatedAt: number;
}

/** How a read gets an interim write's text: the writer's own reader, else the task serialized then. */
function interimReader(write: TaskCommit, taskId: string): () => string {
  const { task, interimText } = write;
  return interimText ?? (() => storableJson(task, `task "${taskId}"`));
}

/** A stored task, parsed: a value of the caller's own. */
function parseTask(entry: MemoryTaskEntry): JsonObject {
  const text = entry.interim !== undefined ? entry.interim() : expandTaskText(entry.text, entry.id, entry.contextId);
  return JSON.parse(text) as JsonObject;
}

export class InMemoryTaskStore implements VersionedTaskStore {
  private readonly tasks = new Map<string, MemoryTaskEntry>();
  /** The task written least recently, dropped first beyond `maxTasks`. */
  private readonly oldest = new OldestKeys(this.tasks);
  /** Called with a task's id when it leaves the store (eviction or retention). */
  onRemove: ((taskId: string) => void) | undefined;
  /** Called after each commit with its events and their JSON texts (the in-memory event log appends them). */
  onCommit: ((taskId: string, events: readonly TaskEventInput[], texts: readonly string[]) => number[]) | undefined;
  /**
   * Whether nobody can read a finished task's events (no stream follows or followed it): a commit that
   * finishes such a task numbers its events without serializing them (`onUnreadEvents`), since the log
   * drops them as the task finishes.
   */
  eventsUnread: ((taskId: string) => boolean) | undefined;
  /** Called instead of `onCommit` for the events of a commit `eventsUnread` said nobody can read: their sequences. */
  onUnreadEvents: ((taskId: string, count: number) => number[]) | undefined;
  /** Called after each write (commit or save, its events appended) with the task's facts. */
  onWrite: ((facts: TaskFacts) => void) | undefined;
  /** The sequence of a task's last logged event now (the in-memory log's), given with each load as `logSeq`. */
  logEnd: ((taskId: string) => number) | undefined;
  /** Called after each commit with its push notifications (the in-memory outbox queues them). */
  onPushes: ((pushes: readonly OutboxMessage[]) => void) | undefined;
  /** The leases a commit's `lease` changes (without them, `lease` is ignored). */
  leases: InMemoryExecutionLeases | undefined;

  private readonly maxTasks: number;

  /** A running task's interim write is kept as the object (`TaskCommit.interim`): the runtime sends it without text. */
  readonly keepsInterimTasks = true;

  constructor(maxTasks = 100_000) {
    this.maxTasks = maxTasks;
  }

  async get(taskId: string): Promise<JsonObject | undefined> {
    const entry = this.tasks.get(taskId);
    return entry && parseTask(entry);
  }

  async load(taskId: string): Promise<VersionedTask | undefined> {
    const entry = this.tasks.get(taskId);
    if (!entry) return undefined;
    const loaded: VersionedTask = { task: parseTask(entry), version: entry.version, ...(entry.owner !== "" ? { owner: entry.owner } : {}) };
    if (this.logEnd) loaded.logSeq = this.logEnd(taskId);
    return loaded;
  }

  async save(task: JsonObject): Promise<void> {
    const facts = taskFacts(task);
    const text = flat(storableJson(task, `task "${facts.id}"`));
    const current = this.tasks.get(facts.id);
    this.write(text, undefined, facts, (current?.version ?? 0) + 1, current?.owner ?? "");
    this.onWrite?.(facts);
  }

  async commit(write: TaskCommit): Promise<TaskCommitResult> {
    const facts = taskFacts(write.task);
    const entry = this.tasks.get(facts.id);
    const current = entry?.version ?? 0;
    if (current !== write.expectedVersion) throw new TaskVersionConflictError(facts.id, write.expectedVersion, current);
    const lease = write.lease;
    if (lease && "acquire" in lease) {
      const holder = this.leases?.liveHolder(facts.id);
      if (holder !== undefined && holder !== lease.acquire) throw new ExecutionLeaseHeldError(facts.id, holder);
    }
    // An interim write of a running task is kept as the object, unserialized (its changes are in its events).
    const interim = write.interim === true && write.text === undefined && !facts.terminal;
    const text = interim ? "" : flat(write.text ?? storableJson(write.task, `task "${facts.id}"`));
    // The events of a commit that finishes a task nobody follows are dropped as it finishes: not serialized
    // (what they carry, the messages and artifacts, is in the task's text, serialized above).
    const unread = facts.terminal && write.events !== undefined && write.events.length > 0 && this.eventsUnread?.(facts.id) === true;
    const eventTexts = unread ? [] : (write.events ?? []).map((e) => eventText(e.event, `an event of task "${facts.id}"`));
    for (const p of write.pushes ?? []) storableJson(p, `a push notification of task "${facts.id}"`);
    this.write(text, interim ? interimReader(write, facts.id) : undefined, facts, current + 1, entry ? entry.owner : (write.owner ?? ""));
    if (lease && "acquire" in lease) this.leases?.set(facts.id, lease.acquire, lease.ttlMs);
    else if (lease) this.leases?.releaseNow(facts.id, lease.release);
    const sequences =
      write.events && write.events.length > 0
        ? ((unread ? this.onUnreadEvents?.(facts.id, write.events.length) : this.onCommit?.(facts.id, write.events, eventTexts)) ?? [])
        : [];
    if (write.pushes && write.pushes.length > 0) this.onPushes?.(write.pushes);
    this.onWrite?.(facts);
    return { version: current + 1, sequences };
  }

  private write(text: string, interim: (() => string) | undefined, facts: TaskFacts, version: number, owner: string): void {
    this.tasks.delete(facts.id);
    this.tasks.set(facts.id, {
      id: facts.id,
      contextId: facts.contextId,
      state: facts.state,
      terminal: facts.terminal,
      statusTime: facts.statusTime,
      // Finished tasks are what piles up: they are kept compact (a running task is written again soon).
      text: facts.terminal ? compactTaskText(text, facts.id, facts.contextId) : text,
      interim,
      version,
      owner,
      updatedAt: Date.now(),
    });
    // Oldest first out, so that a long-running server keeps bounded memory.
    while (this.tasks.size > this.maxTasks) {
      const oldest = this.oldest.next();
      if (oldest === undefined) break;
      this.remove(oldest);
    }
  }

  private remove(taskId: string): void {
    if (this.tasks.delete(taskId)) this.onRemove?.(taskId);
  }

  async list(filter: { contextId?: string } = {}): Promise<JsonObject[]> {
    const all = [...this.tasks.values()].reverse();
    return (filter.contextId === undefined ? all : all.filter((e) => e.contextId === filter.contextId)).map(parseTask);
  }

  async query(query: TaskQuery): Promise<TaskPage> {
    const pageSize = pageSizeOf(query);
    const cursor = query.pageToken ? decodePageToken(query.pageToken) : undefined;
    const matching = [...this.tasks.values()]
      .filter(
        (facts) =>
          (query.owner === undefined || facts.owner === query.owner) &&
          (query.contextId === undefined || facts.contextId === query.contextId) &&
          (query.status === undefined || facts.state === query.status) &&
          (query.statusTimestampAfter === undefined || facts.statusTime >= query.statusTimestampAfter),
      )
      .sort((a, b) => compareNewestFirst(a, b));
    const rest = cursor ? matching.filter((e) => afterCursor(e, cursor)) : matching;
    const page = rest.slice(0, pageSize);
    const last = page.at(-1);
    return {
      tasks: page.map(parseTask),
      nextPageToken: rest.length > pageSize && last ? encodePageToken(last.statusTime, last.id) : "",
      totalSize: matching.length,
    };
  }

  /** Removes finished tasks last written more than `olderThanMs` ago; returns how many. */
  purgeFinished(olderThanMs: number, limit = Infinity): number {
    const cutoff = Date.now() - olderThanMs;
    let removed = 0;
    for (const [id, entry] of [...this.tasks]) {
      if (removed >= limit) break;
      if (entry.terminal && entry.updatedAt < cutoff) {
        this.remove(id);
        removed++;
      }
    }
    return removed;
  }

  has(taskId: string): boolean {
    return this.tasks.has(taskId);
  }

  /** Whether the task is finished (terminal state) and was last written at or before `time` (epoch ms). */
  finishedSince(taskId: string, time: number): boolean {
    const entry = this.tasks.get(taskId);
    return entry !== undefined && entry.terminal && entry.updatedAt <= time;
  }

  get size(): number {
    return this.tasks.size;
  }
}
