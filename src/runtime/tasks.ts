/**
 * Task runtime pieces of the generated server: where tasks, push configs, task event logs (which carry a
 * task's updates to its streams, on every instance), the push outbox and execution leases are kept.
 *
 * In-memory by default (`InMemoryStore`); PostgreSQL and Redis engines (`runtime/stores/`, emitted by
 * `generate --store postgres,redis`) implement the same interfaces, so that several instances of an
 * agent share tasks, streams, push deliveries and executions.
 *
 * Updates are compare-and-set on a version: `commit` names the version it read and fails with a
 * `TaskVersionConflictError` when another writer got there first; the caller reads again and retries.
 */
import { isTerminalState, taskContextOf, type JsonObject } from "./profile.js";
import { jsonTextOf } from "./event-ids.js";
import { EventTexts } from "./event-texts.js";
import type { TaskPatchOperation } from "./task-patch.js";

// ---------------------------------------------------------------------------------------------------
// Errors

/** A store failed. `code` says how: "conflict", "unavailable", "invalid", "not-found", "failed". */
export class StoreError extends Error {
  readonly code: "conflict" | "unavailable" | "invalid" | "not-found" | "failed";

  constructor(message: string, code: StoreError["code"], options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = "StoreError";
  }
}

/**
 * Whether a value is a store error of that class, by name: a store built against another copy of this
 * runtime (another generated folder) throws its own classes, which `instanceof` would not recognize.
 */
export function isStoreError<T extends StoreError>(error: unknown, type: abstract new (...args: never[]) => T): error is T {
  return error instanceof type || (error instanceof Error && error.name === type.name && typeof (error as { code?: unknown }).code === "string");
}

/** Another writer updated the task after the version this write read: read again and retry. */
export class TaskVersionConflictError extends StoreError {
  readonly taskId: string;
  readonly expectedVersion: number;
  /** The version the store holds now (0: the task does not exist). */
  readonly actualVersion: number;

  constructor(taskId: string, expectedVersion: number, actualVersion: number) {
    super(
      expectedVersion === 0
        ? `task "${taskId}" already exists (version ${actualVersion})`
        : `task "${taskId}" changed: expected version ${expectedVersion}, found ${actualVersion === 0 ? "no task" : `version ${actualVersion}`}`,
      "conflict",
    );
    this.taskId = taskId;
    this.expectedVersion = expectedVersion;
    this.actualVersion = actualVersion;
    this.name = "TaskVersionConflictError";
  }
}

/** Another instance holds the task's execution lease (and it has not expired): the task is running there. */
export class ExecutionLeaseHeldError extends StoreError {
  readonly taskId: string;
  /** The instance that holds the lease. */
  readonly owner: string;

  constructor(taskId: string, owner: string) {
    super(`task "${taskId}" is running on another instance ("${owner}")`, "conflict");
    this.taskId = taskId;
    this.owner = owner;
    this.name = "ExecutionLeaseHeldError";
  }
}

/** The engine cannot be reached (connection lost, timeout, engine restarting). Retry later. */
export class StoreUnavailableError extends StoreError {
  readonly engine: string;

  constructor(engine: string, message: string, options?: { cause?: unknown }) {
    super(`${engine} store unavailable: ${message}`, "unavailable", options);
    this.engine = engine;
    this.name = "StoreUnavailableError";
  }
}

/** A ListTasks page token this store did not write (or a bad query value). */
export class InvalidStoreQueryError extends StoreError {
  /** The query field at fault, e.g. "pageToken". */
  readonly field: string;

  constructor(field: string, message: string) {
    super(`${field}: ${message}`, "invalid");
    this.field = field;
    this.name = "InvalidStoreQueryError";
  }
}

// ---------------------------------------------------------------------------------------------------
// Tasks

/**
 * A task and the version the store holds it at (1 after its creation, +1 at each update).
 *
 * `TTask` (here and in TaskCommit, TaskPage, TaskStore, VersionedTaskStore, A2AStore): the task type a store
 * is written against. The runtime works with JsonObject; a generated server exports these types with its
 * version's Task model, so that a user's store needs no casts (the store keeps the tasks the runtime saved).
 */
export interface VersionedTask<TTask = JsonObject> {
  task: TTask;
  version: number;
  /** The owner scope the task was created in (absent: the shared scope of unauthenticated callers). */
  owner?: string;
  /**
   * The sequence of the task's last logged event as of this read (0: none), read with the task in one
   * step: the task holds the changes of every event up to it and of none after. A subscription that starts
   * after it repeats no event the task holds and misses none (the built-in stores give it; without it the
   * runtime reads the log's end apart, and a subscriber may get an event the task holds already).
   */
  logSeq?: number;
  /** The `writeId` of the write that made this version (from a store that keeps them, `keepsWriteIds`). */
  lastWriteId?: string;
}

/** One event of a task's log, as `commit` or `TaskEventLog.append` receive it. */
export interface TaskEventInput {
  event: JsonObject;
  /** The last event of the turn (the stream ends after it). */
  final: boolean;
}

/** A push notification to deliver: the config it goes to and the body to POST. */
export interface OutboxMessage {
  taskId: string;
  /** The push-notification config (url, token, authentication). */
  target: JsonObject;
  payload: JsonObject;
}

/** One atomic write: the task at a new version, with the events and push notifications it causes. */
export interface TaskCommit<TTask = JsonObject> {
  task: TTask;
  /**
   * The task's JSON text, exactly `JSON.stringify(task)`, when the writer has it at hand (the runtime
   * builds it for a long streamed artifact from the texts of the parts it wrote before): a store that
   * keeps text keeps this one instead of serializing the task again; a store may ignore it.
   */
  text?: string;
  /**
   * A write of a running task that the writer follows with another soon (the runtime: a batch of chunks
   * of a streamed artifact, before the turn's final write), sent without `text` to a store that says it
   * keeps such writes as objects (`VersionedTaskStore.keepsInterimTasks`): it may keep the write until
   * the next one, unserialized, and read it with `interimText`; every change the write carries is in its
   * events, which are serialized as always.
   */
  interim?: boolean;
  /**
   * With `interim`: the task's JSON text as of this write, made when called. The runtime goes on
   * appending chunks to the parts arrays of the artifact it streams after such a write (copying them at
   * every write made a stream of n chunks cost n²), so a store reads an interim write with this, not by
   * serializing `task` later. Absent: `task` is never changed after the write.
   */
  interimText?: () => string;
  /**
   * With `interim`, to a store that says `storesTaskPatches`: what this write changed of the task the
   * store holds at `expectedVersion` (JSON Patch, `add` and `replace`; see task-patch.ts). The store may
   * keep this instead of the task's text (when it writes the whole task again, it serializes `task`,
   * which such a write never changes afterwards), and must apply the patches it keeps at every read.
   */
  patch?: readonly TaskPatchOperation[];
  /** The version this write read (0: the task must not exist yet). */
  expectedVersion: number;
  /**
   * An id of this write, to a store that keeps the last one with the task (`keepsWriteIds`): a writer that
   * cannot tell whether a write it sent was made (the connection broke after the engine committed it)
   * meets a version conflict when it tries again, reads the task, and sees there whether it was its own.
   */
  writeId?: string;
  /**
   * The owner scope of a task being created (the principal that created it, 1.0.1 §13.1), kept beside
   * the task (never inside it); ignored on later writes, which keep the creation's owner.
   */
  owner?: string;
  /** Appended to the task's event log in the same write, in order. */
  events?: readonly TaskEventInput[];
  /** Queued in the push outbox in the same write. */
  pushes?: readonly OutboxMessage[];
  /**
   * The execution lease, in the same write: `acquire` takes or renews it for an instance (the commit
   * fails with `ExecutionLeaseHeldError` while another instance holds it), `release` gives it up.
   * A turn that starts and ends in one request is thus two writes: create+acquire, final+release.
   */
  lease?: LeaseChange;
}

export type LeaseChange = { acquire: string; ttlMs: number } | { release: string };

export interface TaskCommitResult {
  /** The task's new version. */
  version: number;
  /** The log sequence of each committed event, in order. */
  sequences: number[];
}

/** ListTasks filters and cursor paging (1.0.1 §3.1.4): newest status timestamp first, then id. */
export interface TaskQuery {
  /** Only the tasks of this owner scope ("" or absent owner: the shared scope); absent: every task. */
  owner?: string;
  contextId?: string;
  /** The task's `status.state`, as the protocol version spells it. */
  status?: string;
  /** Epoch ms: only tasks whose status timestamp is at or after it. */
  statusTimestampAfter?: number;
  /** Default 50; at most 1000. */
  pageSize?: number;
  /** A `nextPageToken` of an earlier page of the same query. */
  pageToken?: string;
}

export interface TaskPage<TTask = JsonObject> {
  tasks: TTask[];
  /** "" on the last page. */
  nextPageToken: string;
  /** Tasks matching the filters, on every page. */
  totalSize: number;
}

/**
 * Where tasks are kept. The runtime treats tasks as immutable values: it never changes an object it
 * saved or got, it saves a new one. A store may keep and return the objects themselves, or serialize
 * them (the durable ones, and the in-memory one, which keeps JSON text, so that no caller can change what
 * it holds, but for a running task's interim writes, `TaskCommit.interim`).
 *
 * `get`, `save` and `list` are the original contract (last writer wins); the versioned methods are
 * optional here so that stores written for it keep working, and required by `VersionedTaskStore`.
 */
export interface TaskStore<TTask = JsonObject> {
  get(taskId: string): Promise<TTask | undefined>;
  /** Writes the task whatever its current version (last writer wins). Prefer `commit`. */
  save(task: TTask): Promise<void>;
  /** The tasks, newest first (for ListTasks); stores that cannot list may leave it out. */
  list?(filter?: { contextId?: string }): Promise<TTask[]>;
  load?(taskId: string): Promise<VersionedTask<TTask> | undefined>;
  commit?(write: TaskCommit<TTask>): Promise<TaskCommitResult>;
  query?(query: TaskQuery): Promise<TaskPage<TTask>>;
}

/** A task store with versions: compare-and-set updates, and ListTasks queries done by the store. */
export interface VersionedTaskStore<TTask = JsonObject> extends TaskStore<TTask> {
  list(filter?: { contextId?: string }): Promise<TTask[]>;
  /** The task and its version, to pass to `commit` as `expectedVersion`. */
  load(taskId: string): Promise<VersionedTask<TTask> | undefined>;
  /** Writes the task if the store still holds `expectedVersion`, else throws `TaskVersionConflictError`. */
  commit(write: TaskCommit<TTask>): Promise<TaskCommitResult>;
  query(query: TaskQuery): Promise<TaskPage<TTask>>;
  /**
   * Whether the store keeps an interim write (`TaskCommit.interim`) as the object itself: the runtime then
   * leaves the text of such writes out (else it builds it for every write, which a store that keeps text
   * uses instead of serializing the task again).
   */
  readonly keepsInterimTasks?: boolean;
  /**
   * Whether the store may keep an interim write as its patch (`TaskCommit.patch`) rather than the whole
   * task (the durable stores: a long streamed artifact is otherwise written whole at every batch of
   * chunks). Such a store applies the patches it keeps to the task at every read (load, get, list, query).
   */
  readonly storesTaskPatches?: boolean;
  /**
   * Whether the store keeps each task's last `TaskCommit.writeId` and gives it with `load`
   * (`VersionedTask.lastWriteId`): the runtime then sends one with each write, so that a write whose
   * answer was lost is not applied a second time.
   */
  readonly keepsWriteIds?: boolean;
}

/** Terminal task states in every protocol version's spelling. */
/** What stores index of a task: its id, context, state and status time. */
export interface TaskFacts {
  id: string;
  contextId: string;
  state: string;
  terminal: boolean;
  /** The status timestamp in epoch ms (`now` when the status has none or it does not parse). */
  statusTime: number;
}

export function taskFacts(task: JsonObject, now: number = Date.now()): TaskFacts {
  const id = task["id"];
  if (typeof id !== "string" || id === "") throw new StoreError("task.id: expected a non-empty string", "invalid");
  const status = typeof task["status"] === "object" && task["status"] !== null ? (task["status"] as JsonObject) : {};
  const state = typeof status["state"] === "string" ? status["state"] : "";
  const parsed = typeof status["timestamp"] === "string" ? Date.parse(status["timestamp"]) : NaN;
  const contextId = taskContextOf(task) ?? "";
  return { id, contextId, state, terminal: isTerminalState(state), statusTime: Number.isFinite(parsed) ? parsed : now };
}

/** Serializes a value a store is about to keep; a value JSON cannot write is refused, never stored. */
export function storableJson(value: unknown, what: string, replacer?: (key: string, value: unknown) => unknown): string {
  const text = jsonText(value, what, replacer);
  if (text === undefined) throw new StoreError(`${what} cannot be stored: not a JSON value`, "invalid");
  return text;
}

/**
 * `JSON.stringify(value)` (with `replacer`, when given), undefined for a value JSON leaves out (undefined,
 * a function: a member that JSON.stringify skips); a value it cannot write (a cycle, a BigInt) is a
 * StoreError naming `what`.
 */
export function jsonText(value: unknown, what: string, replacer?: (key: string, value: unknown) => unknown): string | undefined {
  try {
    return replacer === undefined ? JSON.stringify(value) : JSON.stringify(value, replacer);
  } catch (error) {
    throw new StoreError(`${what} cannot be stored: ${error instanceof Error ? error.message : String(error)}`, "invalid", { cause: error });
  }
}

/**
 * An event's JSON text, for the log (which copies it into its bytes) and the live subscribers: the one it
 * is tagged with (the runtime's artifact events), else serialized. Not flattened here: nothing keeps the
 * string, and the log's encoding flattens it once anyway.
 */
function eventText(event: JsonObject, what: string): string {
  return jsonTextOf(event) ?? storableJson(event, what);
}

/** ListTasks page size: 50 by default, between 1 and 1000. */
export function pageSizeOf(query: TaskQuery): number {
  const size = query.pageSize ?? 50;
  if (!Number.isInteger(size) || size < 1) throw new InvalidStoreQueryError("pageSize", `expected a positive integer, got ${String(size)}`);
  return Math.min(size, 1000);
}

/** The opaque cursor of a page: the sort key (status time, id) of its last task. */
export function encodePageToken(statusTime: number, id: string): string {
  const bytes = new TextEncoder().encode(JSON.stringify([statusTime, id]));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function decodePageToken(token: string): { statusTime: number; id: string } {
  let parsed: unknown;
  try {
    const binary = atob(token.replace(/-/g, "+").replace(/_/g, "/"));
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))));
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || !Number.isSafeInteger(parsed[0]) || typeof parsed[1] !== "string") {
    throw new InvalidStoreQueryError("pageToken", "not a page token of this server");
  }
  return { statusTime: parsed[0] as number, id: parsed[1] as string };
}

/** Newest first: status time descending, then id descending (a total order, so cursors are stable). */
function compareNewestFirst(a: TaskFacts, b: TaskFacts): number {
  if (a.statusTime !== b.statusTime) return b.statusTime - a.statusTime;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** Whether a task sorts after the cursor (strictly older in the newest-first order). */
function afterCursor(facts: TaskFacts, cursor: { statusTime: number; id: string }): boolean {
  return facts.statusTime < cursor.statusTime || (facts.statusTime === cursor.statusTime && facts.id < cursor.id);
}

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

/**
 * JSON text to keep: JSON.stringify returns a rope of the pieces it wrote (V8), which costs about a
 * fifth more than the text itself as long as it is kept; reading a character flattens it in place
 * (one copy), and the collector then drops the pieces.
 */
export function flat(text: string): string {
  text.charCodeAt(0);
  return text;
}

/*
 * The memory store keeps a task's text with its own ids written once: every message of a task's history
 * and status carries the task's `taskId` and `contextId` (the runtime stamps them), four or five times
 * 40-50 characters, a third of a typical finished task's text. Each `"taskId":<its id>` and
 * `"contextId":<its context>` member stands as one control character instead. The round trip is exact:
 * JSON text cannot hold a raw control character (strings escape them), and a match starts and ends with
 * unescaped quotes, which only a member's key and string value can be.
 */
const TASK_ID_MEMBER = "\u0001";
const CONTEXT_ID_MEMBER = "\u0002";

/**
 * The text kept for a task: its id members replaced (the JSON spelling of both ids, as JSON.stringify
 * writes them), left to right, as `replaceAll` of each member would. Both members are searched in the
 * task's text and the earlier match is replaced first, so the output is built once: replacing one member
 * and then searching the result for the other flattened that result (1.2 KB copied and dropped for a
 * finished task).
 */
export function compactTaskText(text: string, taskId: string, contextId: string): string {
  const taskNeedle = `Id":${JSON.stringify(taskId)}`;
  const contextNeedle = contextId === "" ? undefined : `Id":${JSON.stringify(contextId)}`;
  let task = idMemberAt(text, TASK_ID_HEAD, taskNeedle, 0);
  let context = contextNeedle === undefined ? -1 : idMemberAt(text, CONTEXT_ID_HEAD, contextNeedle, 0);
  let out = "";
  let from = 0;
  while (task >= 0 || context >= 0) {
    if (context < 0 || (task >= 0 && task < context)) {
      out += text.slice(from, task) + TASK_ID_MEMBER;
      from = task + TASK_ID_HEAD.length + taskNeedle.length;
      task = idMemberAt(text, TASK_ID_HEAD, taskNeedle, from);
    } else {
      out += text.slice(from, context) + CONTEXT_ID_MEMBER;
      from = context + CONTEXT_ID_HEAD.length + (contextNeedle as string).length;
      context = idMemberAt(text, CONTEXT_ID_HEAD, contextNeedle as string, from);
    }
  }
  // The result is a rope of slices of the input, which would keep the whole input alive.
  return from === 0 ? text : flat(out + text.slice(from));
}

/** What the two id members' keys begin with (their needles, `Id":<id as JSON>`, follow). */
const TASK_ID_HEAD = '"task';
const CONTEXT_ID_HEAD = '"context';

/**
 * The start of the first `<head><needle>` member (`"taskId":"…"`) at or after `from`, -1 for none.
 * Searched from the member's `Id":` on, its name checked before it: V8 scans for a needle's first
 * character, then compares; a quote is every few characters of JSON text, an `I` a few times in a task
 * (the `…Id` keys). Two members never overlap (each is a key and its value), so a search from the end of
 * one member of either kind misses no member of the other.
 */
function idMemberAt(text: string, head: string, needle: string, from: number): number {
  let at = text.indexOf(needle, from + head.length);
  while (at >= 0 && !text.startsWith(head, at - head.length)) at = text.indexOf(needle, at + 1);
  return at < 0 ? -1 : at - head.length;
}

/** The task's JSON text again, from what `compactTaskText` kept. */
export function expandTaskText(kept: string, taskId: string, contextId: string): string {
  let out = kept;
  // Replaced by a function: a replacement string would read `$&`, `$$`… in an id as patterns.
  if (out.includes(TASK_ID_MEMBER)) {
    const member = `"taskId":${JSON.stringify(taskId)}`;
    out = out.replaceAll(TASK_ID_MEMBER, () => member);
  }
  if (out.includes(CONTEXT_ID_MEMBER)) {
    const member = `"contextId":${JSON.stringify(contextId)}`;
    out = out.replaceAll(CONTEXT_ID_MEMBER, () => member);
  }
  return out;
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
      const oldest = this.tasks.keys().next().value;
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

// ---------------------------------------------------------------------------------------------------
// Push-notification configs

/**
 * Push-notification configs per task, each with an id. `TConfig` is the config the version's send and
 * set requests carry (the generated server core's `PushConfigStore` uses its models: PushNotificationConfig
 * in 0.x, 1.0's TaskPushNotificationConfig); the runtime's own stores keep JSON objects.
 */
export interface PushConfigStore<TConfig = JsonObject> {
  set(taskId: string, config: TConfig): Promise<TConfig>;
  /** The config with that id, or the one set last when no id is given. */
  get(taskId: string, configId?: string): Promise<TConfig | undefined>;
  /** In the order they were first set. */
  list(taskId: string): Promise<TConfig[]>;
  delete(taskId: string, configId: string): Promise<boolean>;
}

/** The id a config is kept under: its own `id`, else the task's id. */
export function pushConfigId(taskId: string, config: JsonObject): string {
  return typeof config["id"] === "string" && config["id"] !== "" ? config["id"] : taskId;
}

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

// ---------------------------------------------------------------------------------------------------
// Task event logs

/** An event of a task's log with its sequence: 1, 2, 3... per task, with no gap. */
export interface LoggedEvent {
  seq: number;
  event: JsonObject;
  final: boolean;
  /** The event's JSON text, where the log has it at hand (the in-memory log's live delivery): written as is. */
  text?: string;
}

export interface EventSubscriptionOptions {
  /** Deliver the events after this sequence (0: from the first); they come first, then the live ones. */
  after?: number;
  /** The engine failed while following the log; the subscription keeps trying and catches up. */
  onError?: (error: StoreError) => void;
}

export interface EventSubscription {
  /**
   * Resolves once the backlog was read and live events are followed. Rejects with a
   * StoreUnavailableError while the engine is down; the subscription stays open and catches up when
   * the engine is back (close it if the caller gives up).
   */
  readonly ready: Promise<void>;
  close(): void;
}

/**
 * The per-task event log, and its live subscription across instances: a subscriber on any instance
 * receives every event of the task in sequence order, once, whichever instance appended it.
 */
export interface TaskEventLog {
  /** Appends events to an existing task's log; returns their sequences. */
  append(taskId: string, events: readonly TaskEventInput[]): Promise<number[]>;
  /** The events after `after`, in order (at most `limit`). */
  read(taskId: string, after?: number, limit?: number): Promise<LoggedEvent[]>;
  /**
   * The sequence of the task's last logged event (0: none yet), where the log knows it without reading
   * the events (optional: without it the runtime reads the log to its end).
   */
  end?(taskId: string): Promise<number>;
  subscribe(taskId: string, listener: (event: LoggedEvent) => void, options?: EventSubscriptionOptions): EventSubscription;
}

/**
 * A task's log in memory: each event as JSON text (a read parses it; kept as bytes, runtime/event-texts.ts)
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

// ---------------------------------------------------------------------------------------------------
// Push outbox: durable, delivered at least once by any live instance

/** A queued push notification, claimed by one instance for a lease. */
export interface OutboxEntry extends OutboxMessage {
  id: string;
  /** Claims so far, this one included. */
  attempts: number;
}

/**
 * Push notifications waiting for delivery. An instance `claim`s entries for a lease; it `ack`s them
 * once delivered or `retry`s them later. An entry whose lease expires (its instance died) is claimed
 * again by another instance: delivery is at least once.
 */
export interface PushOutbox {
  enqueue(messages: readonly OutboxMessage[]): Promise<string[]>;
  /** Up to `limit` entries that are due, leased to `owner` for `leaseMs`, oldest first. */
  claim(owner: string, options: { leaseMs: number; limit?: number }): Promise<OutboxEntry[]>;
  /** Delivered: removes the entry; false when `owner` no longer holds its lease. */
  ack(id: string, owner: string): Promise<boolean>;
  /** Not delivered: the entry is due again after `delayMs`; false when `owner` no longer holds its lease. */
  retry(id: string, owner: string, delayMs: number): Promise<boolean>;
  /** Entries waiting (due or leased). */
  size(): Promise<number>;
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

// ---------------------------------------------------------------------------------------------------
// Execution leases: which instance runs a task, for how long

export interface LeaseHolder {
  owner: string;
  /** Epoch ms (the engine's clock). */
  expiresAt: number;
}

/**
 * One execution per task across instances: the instance running a task holds its lease and renews
 * it; when an instance dies its leases expire, and another instance `claimExpired`s them to fail (or
 * re-run) the task and tell its subscribers.
 */
export interface ExecutionLeases {
  /** Takes the lease if it is free, expired or already `owner`'s; true when `owner` holds it now. */
  acquire(taskId: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Extends `owner`'s lease; false when it lost it (expired and taken over). */
  renew(taskId: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease up (no-op when `owner` does not hold it). */
  release(taskId: string, owner: string): Promise<void>;
  holder(taskId: string): Promise<LeaseHolder | undefined>;
  /** Atomically takes over up to `limit` expired leases for `owner`: each is returned to one caller only. */
  claimExpired(owner: string, ttlMs: number, limit?: number): Promise<Array<{ taskId: string; previousOwner: string }>>;
}

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

// ---------------------------------------------------------------------------------------------------
// The store: everything an agent keeps, on one engine

export interface A2AStore<TTask = JsonObject, TConfig = JsonObject> {
  /** "memory", "postgres", "redis". */
  readonly engine: string;
  readonly tasks: VersionedTaskStore<TTask>;
  readonly pushConfigs: PushConfigStore<TConfig>;
  readonly events: TaskEventLog;
  readonly outbox: PushOutbox;
  readonly leases: ExecutionLeases;
  /** Deletes finished tasks (terminal state) last written more than `olderThanMs` ago, with their events, configs and lease. */
  purgeFinished(options: { olderThanMs: number; limit?: number }): Promise<number>;
  /** Closes the engine's connections (idempotent). */
  close(): Promise<void>;
}

/**
 * A store of any version, as the server options take it: the runtime's JsonObject stores (InMemoryStore,
 * the PostgreSQL and Redis ones) and a user's store written against a version's Task and push config
 * models alike.
 */
export type A2AStoreOfAnyVersion = A2AStore<object, object>;

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

  async close(): Promise<void> {
    if (this.trimTimer !== undefined) clearTimeout(this.trimTimer);
    this.trimTimer = undefined;
  }
}
