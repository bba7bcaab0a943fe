/**
 * The commit writer: a batch of an execution's updates as one compare-and-set write of the task at its
 * new version, its events, its push notifications and its lease change. A lost race re-reads the task and
 * applies the batch again; nothing is ever written on top of a terminal state (the execution learns its
 * task was finished elsewhere and stops); every write carries one write id (with a store that keeps them),
 * so that a retry after an engine error recognises a write that was made and never applies it twice.
 */
import { isObject, type JsonObject } from "../json.js";
import type { ProtocolShapes } from "../protocol-shapes.js";
import { newId } from "../random-ids.js";
import type { A2AStore, LeaseChange, OutboxMessage, TaskCommit, TaskEventInput, VersionedTask } from "../stores/contract.js";
import { isStoreError, StoreUnavailableError, TaskVersionConflictError } from "../stores/errors.js";
import { storableJson } from "../stores/task-json.js";
import { taskPatch } from "../stores/task-patch.js";
import { DEFAULT_SCOPE, isTerminalTask, partLengths, textAtLengths, type Execution, type TaskUpdate } from "./execution.js";
import type { RuntimeLogger } from "./executor.js";
import type { LeaseWatch } from "./lease-watch.js";
import type { OutboxWorker } from "./outbox-worker.js";
import type { PushConfigs } from "./push-configs.js";
import { MAX_UNAVAILABLE, retryUnavailable, sleep } from "./retry.js";
import { TURN_MARK, TURN_TRACE } from "./task-streams.js";
import { TaskTexts } from "./task-texts.js";

/** Tries of a commit that lost a compare-and-set race before the update gives up. */
const MAX_CONFLICTS = 8;
/**
 * The same for a write that ends a turn (a cancel, the executor's last state): it races a writer that may
 * write every few milliseconds (a cancel against a streaming turn on another instance), and giving up
 * leaves the task to the expiry of its lease, so it tries longer.
 */
const MAX_FINAL_CONFLICTS = 64;

/** A write of a batch of updates, as `commit` sends it, with what the execution keeps once it is made. */
interface PreparedWrite {
  write: TaskCommit;
  task: JsonObject;
  text: string | undefined;
  final: boolean;
  lengths: Map<unknown[], number> | undefined;
  lease: LeaseChange | undefined;
  pushes: OutboxMessage[];
  creating: boolean;
}

export interface CommitWriterOptions {
  readonly shapes: ProtocolShapes;
  readonly store: A2AStore;
  readonly logger: RuntimeLogger;
  /** This instance's name in leases. */
  readonly instanceId: string;
  readonly leaseMs: number;
  /** Holds the leases this instance's executions took (renewed) and drops the released ones. */
  readonly leaseWatch: LeaseWatch;
  /** Woken when a write queued push notifications (none: push notifications are not sent). */
  readonly outbox: OutboxWorker | undefined;
  readonly push: PushConfigs;
  readonly shutdown: AbortSignal;
  /** Whether the version's streams carry Task objects (a new task's first write logs it). */
  readonly streamsTasks: () => boolean;
  /** Ends an execution whose task was finished elsewhere (ownership.ts). */
  readonly stop: (execution: Execution, reason: string) => void;
  /** With telemetry: the active trace context, kept by a turn mark in a new task's first write (task-streams.ts TURN_TRACE). */
  readonly traceparent?: () => string | undefined;
}

export class CommitWriter {
  /**
   * The texts of the artifact parts committed so far, so that a long streamed artifact is not serialized
   * again at each write; none for a store that keeps interim writes as objects (`keepsInterimTasks`) or
   * as patches (`storesTaskPatches`): it gets one text a turn, the last write's (and the patching store
   * now and then one more), and one JSON.stringify of the task is faster than building it from part texts
   * nothing else would use.
   */
  readonly taskTexts: TaskTexts | undefined;
  /**
   * Whether the store keeps interim writes (`keepsInterimTasks`): they are then sent without text, and a
   * streamed artifact's chunks are appended to its parts in place (`Execution.streamedParts`).
   */
  readonly keepsInterimTasks: boolean;
  /**
   * Whether the store keeps interim writes as patches (`storesTaskPatches`, and not `keepsInterimTasks`):
   * they are then sent with their patch and without text (the store asks for it when it writes the task).
   */
  private readonly patchesInterimTasks: boolean;
  /** Whether the store keeps each task's last write id (`keepsWriteIds`): each write then carries one. */
  readonly keepsWriteIds: boolean;
  private readonly shapes: ProtocolShapes;
  private readonly store: A2AStore;
  private readonly logger: RuntimeLogger;
  private readonly instanceId: string;
  private readonly leaseMs: number;
  private readonly leaseWatch: LeaseWatch;
  private readonly outbox: OutboxWorker | undefined;
  private readonly push: PushConfigs;
  private readonly shutdown: AbortSignal;
  private readonly streamsTasks: () => boolean;
  private readonly stop: (execution: Execution, reason: string) => void;
  private readonly traceparent: (() => string | undefined) | undefined;

  constructor(options: CommitWriterOptions) {
    this.shapes = options.shapes;
    this.store = options.store;
    this.logger = options.logger;
    this.instanceId = options.instanceId;
    this.leaseMs = options.leaseMs;
    this.leaseWatch = options.leaseWatch;
    this.outbox = options.outbox;
    this.push = options.push;
    this.shutdown = options.shutdown;
    this.streamsTasks = options.streamsTasks;
    this.stop = options.stop;
    this.traceparent = options.traceparent;
    this.keepsInterimTasks = options.store.tasks.keepsInterimTasks === true;
    this.patchesInterimTasks = !this.keepsInterimTasks && options.store.tasks.storesTaskPatches === true;
    this.keepsWriteIds = options.store.tasks.keepsWriteIds === true;
    this.taskTexts = this.keepsInterimTasks || this.patchesInterimTasks ? undefined : new TaskTexts();
  }

  newTask(execution: Execution, message: JsonObject | undefined): JsonObject {
    return this.shapes.task({
      id: execution.taskId,
      contextId: execution.contextId,
      status: this.shapes.status("submitted"),
      history: message ? [message] : [],
    });
  }

  /**
   * Commits a batch of updates as one compare-and-set write: the task at its new version, the events
   * in order, the push notifications of the new state, and the lease (taken when a turn goes on,
   * released with its final update). A lost race re-reads the task and applies the batch again; a task
   * that became terminal meanwhile (canceled on another instance) ends the execution, and nothing is ever
   * written on top of a terminal state. The write is applied once: a retry after an engine error whose
   * write was in fact made is recognised by its write id, and the side writes that follow a write (the
   * push config of a new task) are retried on their own, never by running the batch again.
   */
  async commit(execution: Execution, batch: readonly TaskUpdate[], userMessage?: JsonObject): Promise<void> {
    if (execution.stopped !== undefined || isTerminalTask(execution.task, this.shapes)) {
      // Finished (here or elsewhere): a batch queued behind the write that finished it is not recorded.
      if (batch.length > 0) this.logger.warn?.(`a2a: task ${execution.taskId}: ${batch.length} update(s) of the agent dropped: ${execution.stopped ?? "the task is finished"}`);
      return;
    }
    let conflicts = 0;
    let unavailable = 0;
    // One id for this write, whichever attempt makes it: a store that keeps it tells whether a write whose
    // answer was lost was made (then it must not be applied again on the task read back).
    const writeId = this.keepsWriteIds ? newId() : undefined;
    const maxConflicts = batch.some((u) => u.final) ? MAX_FINAL_CONFLICTS : MAX_CONFLICTS;
    let attempt: PreparedWrite | undefined;
    let configs: readonly JsonObject[] | undefined;
    let version: number;
    for (;;) {
      if (attempt !== undefined && isTerminalTask(execution.task, this.shapes)) {
        // Finished while this write waited to try again (adopted from the store, or by another write of this
        // execution): nothing is written on top of it.
        this.logger.warn?.(`a2a: task ${execution.taskId}: ${batch.length} update(s) of the agent dropped: the task is finished`);
        this.stop(execution, "the task is finished");
        return;
      }
      try {
        if (execution.version > 0 && execution.pendingPushConfig) await this.push.save(execution);
        // The push configs first (read once: a retry after a lost race goes straight back to the store):
        // from the updates to the store's write nothing waits, so that nobody sees the turn's own parts
        // arrays (appended to in place) holding chunks of a write not made yet.
        configs ??= batch.length > 0 && this.outbox ? await this.push.of(execution) : [];
        attempt = this.prepareWrite(execution, batch, configs, userMessage, writeId);
        version = (await this.store.tasks.commit(attempt.write)).version;
        break;
      } catch (error) {
        const conflict = isStoreError(error, TaskVersionConflictError) && ++conflicts <= maxConflicts;
        const fresh = conflict ? await retryUnavailable(() => this.store.tasks.load(execution.taskId), this.shutdown) : undefined;
        if (attempt !== undefined && writeId !== undefined && fresh?.lastWriteId === writeId) {
          // This very write was made (its answer was lost): nothing to apply again.
          version = fresh.version;
          break;
        }
        // This try may have appended to the turn's own parts arrays: back to the lengths last committed.
        // Only a batch that appends did, and an array is only ever cut, never lengthened (with holes).
        if (execution.streamedParts && batch.some((u) => u.artifact)) {
          for (const [parts, length] of execution.streamedParts) if (parts.length > length) parts.length = length;
        }
        if (conflict) {
          if (!fresh) {
            this.stop(execution, "the task was removed from the store");
            return;
          }
          if (isTerminalTask(fresh.task, this.shapes)) {
            // Finished by another writer (a cancel on another instance): it stays as that writer left it.
            this.finishedElsewhere(execution, fresh);
            return;
          }
          if (execution.leased && (await retryUnavailable(() => this.store.leases.holder(execution.taskId), this.shutdown))?.owner !== this.instanceId) {
            // While this instance holds the lease, only a terminal write (a cancel, a take-over) can come
            // between: without it, the turn is over here. Its final write was made with the answer lost, and
            // the task has moved on (the write id is no longer the last), or its lease was taken over.
            this.logger.warn?.(`a2a: task ${execution.taskId}: this instance no longer holds its execution lease; ${batch.length} update(s) of the agent not written again`);
            execution.task = fresh.task; // what a blocking send answers: the task as the store holds it
            execution.taskText = undefined;
            this.stop(execution, "this instance no longer holds the task's execution lease");
            return;
          }
          execution.task = fresh.task;
          execution.taskText = undefined;
          execution.version = fresh.version;
          continue;
        }
        if (isStoreError(error, StoreUnavailableError) && ++unavailable <= MAX_UNAVAILABLE && !this.shutdown.aborted) {
          await sleep(100 * 2 ** (unavailable - 1));
          continue;
        }
        throw error;
      }
    }
    // Made: what follows it (the execution's state, the new task's push config) never runs the batch again.
    const saving = this.committed(execution, attempt, version);
    if (saving) await saving;
  }

  /** The execution learns that another writer finished its task: it stops, its queued updates are dropped. */
  private finishedElsewhere(execution: Execution, fresh: VersionedTask): void {
    execution.task = fresh.task;
    execution.taskText = undefined;
    execution.version = fresh.version;
    execution.finishedElsewhere = fresh.task;
    const state = isObject(fresh.task["status"]) ? String(fresh.task["status"]["state"]) : "finished";
    this.logger.warn?.(`a2a: task ${execution.taskId} is ${state} (written by another instance or request): this turn stops, its updates not yet recorded are dropped`);
    this.stop(execution, `the task is ${state}`);
  }

  /** The write of a batch of updates on the task as the execution last committed it. */
  private prepareWrite(execution: Execution, batch: readonly TaskUpdate[], configs: readonly JsonObject[], userMessage: JsonObject | undefined, writeId: string | undefined): PreparedWrite {
    const creating = execution.version === 0;
    let task = execution.task ?? this.newTask(execution, userMessage);
    const events: TaskEventInput[] = creating && this.streamsTasks() ? [{ event: task, final: false }] : [];
    const trace = creating ? this.traceparent?.() : undefined;
    if (trace !== undefined) events.unshift({ event: { [TURN_MARK]: 1, [TURN_TRACE]: trace }, final: false });
    const made = new Set<object>();
    for (const update of batch) {
      const next = update.apply(task, made);
      task = next.task;
      events.push(...next.events);
    }
    const final = batch.some((u) => u.final);
    // The lengths this write holds of the turn's own parts arrays (those of its artifacts now).
    const lengths = execution.streamedParts ? partLengths(task, execution.streamedParts) : undefined;
    const lease: LeaseChange | undefined =
      execution.releaseFor !== undefined && final
        ? { release: execution.releaseFor }
        : !execution.leased && !final
          ? { acquire: this.instanceId, ttlMs: this.leaseMs }
          : execution.leased && final
            ? { release: this.instanceId }
            : undefined;
    const pushes = configs.length > 0 ? this.push.pushesOf(execution, task, configs, lengths) : [];
    // Serialized here, not in the store: the same text is the reply of a message/send that waits for the task.
    // A write before the turn's last, to a store that keeps those as objects, is not serialized at all:
    // nobody reads that text (a stream's writes, a batch of chunks each, would each serialize the task).
    // To a store that keeps patches, a write before the turn's last goes as what it changed (made from
    // the references the updates replaced: the task written before is never changed).
    const patch = !final && this.patchesInterimTasks && !creating && execution.task ? taskPatch(execution.task, task) : undefined;
    const interim = !final && (this.keepsInterimTasks || patch !== undefined);
    const text = interim ? undefined : (this.taskTexts?.of(task) ?? storableJson(task, `task "${execution.taskId}"`));
    const write: TaskCommit = { task, expectedVersion: execution.version, events, pushes, ...(lease ? { lease } : {}) };
    if (text !== undefined) write.text = text;
    else {
      write.interim = true;
      // A patched write's task is never appended to (only a store keeping objects has streamed parts):
      // the store serializes it itself when it writes it whole.
      if (patch !== undefined) write.patch = patch;
      else if (lengths !== undefined && lengths.size > 0) {
        const taskId = execution.taskId;
        write.interimText = () => textAtLengths(task, lengths, `task "${taskId}"`);
      }
    }
    if (writeId !== undefined) write.writeId = writeId;
    if (creating && execution.owner !== undefined && execution.owner !== DEFAULT_SCOPE) write.owner = execution.owner;
    return { write, task, text, final, lengths, lease, pushes, creating };
  }

  /**
   * After a write was made (at `version`): the execution holds its task, its lease and its text. Not async
   * (a suspended frame and two promises for each write): a promise only when a push config is to be saved.
   */
  private committed(execution: Execution, made: PreparedWrite, version: number): Promise<void> | undefined {
    const { task, text, final, lengths, lease, pushes, creating } = made;
    execution.version = version;
    execution.task = task;
    execution.taskText = text;
    // After the turn's final write nothing is appended any more.
    execution.streamedParts = final ? undefined : lengths;
    if (lease && "acquire" in lease) {
      execution.leased = true;
      this.leaseWatch.hold(execution.taskId);
    } else if (lease && "release" in lease && execution.leased) {
      execution.leased = false;
      this.leaseWatch.drop(execution.taskId);
    }
    if (pushes.length > 0) this.outbox?.kick();
    if (creating && execution.pendingPushConfig) return this.push.save(execution);
    return undefined;
  }
}
