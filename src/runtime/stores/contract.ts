/**
 * The store contract: the interfaces of where tasks, push configs, task event logs (which carry a
 * task's updates to its streams, on every instance), the push outbox and execution leases are kept.
 *
 * In-memory by default (`InMemoryStore`, memory.ts); PostgreSQL and Redis engines (in this folder, emitted by
 * `generate --store postgres,redis`) implement the same interfaces, so that several instances of an
 * agent share tasks, streams, push deliveries and executions.
 *
 * Updates are compare-and-set on a version: `commit` names the version it read and fails with a
 * `TaskVersionConflictError` when another writer got there first; the caller reads again and retries.
 */
import type { JsonObject } from "../json.js";
import type { TaskPatchOperation } from "./task-patch.js";
import type { StoreError } from "./errors.js";

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
  /**
   * Checks that the engine answers (one round trip: `SELECT 1`, `PING`); rejects with StoreUnavailableError
   * when it does not. The readiness endpoint and the gRPC health service ask it (service/health.ts); a store
   * without it is asked for an unknown task instead.
   */
  ping?(): Promise<void>;
  /** Closes the engine's connections (idempotent). */
  close(): Promise<void>;
}

/**
 * A store of any version, as the server options take it: the runtime's JsonObject stores (InMemoryStore,
 * the PostgreSQL and Redis ones) and a user's store written against a version's Task and push config
 * models alike.
 */
export type A2AStoreOfAnyVersion = A2AStore<object, object>;
