/**
 * Ownership of tasks across instances: which instance runs a task is decided by its execution lease
 * (`ExecutionLeases` in stores/contract.ts), taken in the commit that starts a turn and released with its
 * final one. Everything that ends or moves an execution because of another instance is here:
 *
 * - `cancel`: CancelTask, a writer of its own; it stops a turn running here, releases another instance's
 *   lease with its write (`releaseFor`), and answers what the store holds (CANCELED, TaskNotCancelable when
 *   another terminal state came first, the error when it could not be written).
 * - `stop`: an execution whose task was finished elsewhere (a cancel on another instance, a lost lease, a
 *   write that failed) records nothing more; its executor's signal aborts.
 * - `lost`: this instance's lease renewal failed (the task was canceled or taken over elsewhere).
 * - `takeOver`: a task whose instance died (its lease expired, lease-watch.ts noticed) is failed with a
 *   status message, or resumed for a `resumable` executor; `abandonedTurn` keeps a new turn from starting
 *   on top of one that waits for its take-over.
 * - `releaseLease`: a turn that ends without a write to release its lease with.
 * - `handOver`: a turn still running when the server shuts down (drain.ts): stopped, its lease expired at once.
 */
import type { ServerTelemetry } from "../telemetry-hooks.js";
import type { ConversationSource } from "./conversation.js";
import { A2AError } from "../a2a-error.js";
import { isObject, type JsonObject } from "../json.js";
import type { ProtocolShapes } from "../protocol-shapes.js";
import type { A2AStore, VersionedTask } from "../stores/contract.js";
import { TaskVersionConflictError } from "../stores/errors.js";
import { JSON_RPC_ERROR } from "../wire/jsonrpc.js";
import { contextOf, endsWithUserMessage, isTerminalTask, lastUserMessage, newExecution, turnContext, type Execution } from "./execution.js";
import type { AgentExecutor, RequestContext, RuntimeLogger } from "./executor.js";
import { LeaseWatch } from "./lease-watch.js";
import type { TurnPublisher } from "./publisher.js";
import { retryUnavailable } from "./retry.js";
import { lastTurnTrace } from "./task-streams.js";
import { settledWithin } from "./drain.js";

export interface OwnershipOptions {
  readonly shapes: ProtocolShapes;
  readonly store: A2AStore;
  readonly logger: RuntimeLogger;
  readonly executor: AgentExecutor;
  /** This instance's name in leases. */
  readonly instanceId: string;
  readonly leaseMs: number;
  /** The executions running on this instance, by task id (the runtime's). */
  readonly executions: Map<string, Execution>;
  readonly shutdown: AbortSignal;
  /** The publisher of an execution (publisher.ts). */
  readonly publisher: (execution: Execution, userMessage?: JsonObject) => TurnPublisher;
  /** Runs the executor for a turn, in the background (the runtime's). */
  readonly run: (execution: Execution, context: RequestContext, parent?: string) => void;
  /** The execution is over on this instance. */
  readonly end: (execution: Execution) => void;
  /** The task, if it exists and the caller's scope owns it; else TaskNotFound. */
  readonly requireVersioned: (taskId: string | undefined, principal: unknown) => Promise<VersionedTask>;
  /** Where a turn's context reads the earlier tasks of its conversation (the runtime). */
  readonly conversations: ConversationSource;
  /** Telemetry hooks: take-overs are counted (telemetry-hooks.ts). */
  readonly telemetry?: ServerTelemetry | undefined;
}

export class Ownership {
  private readonly conversations: ConversationSource;
  /** Renews the leases of this instance's executions and notices expired ones (lease-watch.ts). */
  readonly leaseWatch: LeaseWatch;
  private readonly shapes: ProtocolShapes;
  private readonly store: A2AStore;
  private readonly logger: RuntimeLogger;
  private readonly executor: AgentExecutor;
  private readonly instanceId: string;
  private readonly executions: Map<string, Execution>;
  private readonly shutdown: AbortSignal;
  private readonly publisher: (execution: Execution, userMessage?: JsonObject) => TurnPublisher;
  private readonly run: (execution: Execution, context: RequestContext, parent?: string) => void;
  private readonly end: (execution: Execution) => void;
  private readonly requireVersioned: (taskId: string | undefined, principal: unknown) => Promise<VersionedTask>;

  private readonly telemetry: ServerTelemetry | undefined;

  constructor(options: OwnershipOptions) {
    this.telemetry = options.telemetry;
    this.conversations = options.conversations;
    this.shapes = options.shapes;
    this.store = options.store;
    this.logger = options.logger;
    this.executor = options.executor;
    this.instanceId = options.instanceId;
    this.executions = options.executions;
    this.shutdown = options.shutdown;
    this.publisher = options.publisher;
    this.run = options.run;
    this.end = options.end;
    this.requireVersioned = options.requireVersioned;
    this.leaseWatch = new LeaseWatch({
      leases: this.store.leases,
      owner: this.instanceId,
      ttlMs: options.leaseMs,
      onExpired: (taskId, previousOwner) => this.takeOver(taskId, previousOwner),
      onLost: (taskId) => this.lost(taskId),
      onError: (error) => this.logger.warn?.("a2a: execution lease upkeep failed (retried)", error),
    });
    this.leaseWatch.start();
  }

  private code(name: string, fallback: number): number {
    return this.shapes.profile.errorCodes[name] ?? fallback;
  }

  async cancel(params: JsonObject, principal: unknown): Promise<JsonObject> {
    const loaded = await this.requireVersioned(this.shapes.paramsTaskId("cancel", params), principal);
    const task = loaded.task;
    const status = isObject(task["status"]) ? task["status"] : {};
    if (this.shapes.isTerminal(status["state"])) {
      throw new A2AError(this.code("TaskNotCancelable", JSON_RPC_ERROR.invalidParams), "Task cannot be canceled", {
        taskId: task["id"],
        state: status["state"],
      });
    }
    const taskId = task["id"] as string;
    // The cancel is a writer of its own, never one more publisher of the running turn's execution (two
    // writers sharing one execution's task, version and streamed parts raced each other). A turn running
    // here is stopped: aborted, nothing more of it recorded (its executor, returning on the abort, would
    // complete the task), its lease no longer renewed (the cancel's write releases it; if the cancel
    // cannot be written, the lease expires and take-over fails the task). A turn on another instance
    // learns of the cancel at its next write, or when it loses the lease.
    const running = this.executions.get(taskId);
    if (running && !running.done) this.stop(running, "the task is being canceled");
    const execution = newExecution(taskId, contextOf(task, this.shapes), task, loaded.version);
    const holder = await this.store.leases.holder(taskId);
    if (holder) execution.releaseFor = holder.owner;
    const publisher = this.publisher(execution);
    const context = turnContext(this.conversations, execution, "cancel", lastUserMessage(task), task, false, principal);
    execution.abort.abort();
    if (this.executor.cancel) await this.executor.cancel(context, publisher);
    if (!execution.done) publisher.canceled();
    await publisher.drain();
    // The answer is what the store holds (1.0.1 §3.1.5): CANCELED only once it holds CANCELED; another
    // terminal state reached first is TaskNotCancelable; a cancel that could not be recorded (the engine
    // unavailable, the task changing at every try) is that error, which the bindings answer as retryable.
    const failure = publisher.failure();
    if (failure !== undefined) throw failure;
    let outcome = execution.finishedElsewhere ?? execution.task ?? task;
    if (!isTerminalTask(outcome, this.shapes)) {
      const fresh = await retryUnavailable(() => this.store.tasks.load(taskId), this.shutdown);
      if (!fresh) throw new A2AError(this.code("TaskNotFound", JSON_RPC_ERROR.invalidParams), "Task not found", { taskId });
      if (!isTerminalTask(fresh.task, this.shapes)) throw new TaskVersionConflictError(taskId, execution.version, fresh.version);
      outcome = fresh.task;
    }
    const state = isObject(outcome["status"]) ? outcome["status"]["state"] : undefined;
    if (state !== this.shapes.stateValue("canceled")) {
      throw new A2AError(this.code("TaskNotCancelable", JSON_RPC_ERROR.invalidParams), "Task cannot be canceled", { taskId, state });
    }
    return outcome;
  }

  /** Ends an execution whose task was finished elsewhere (a cancel on another instance, a lost lease, a failed write). */
  stop(execution: Execution, reason: string): void {
    execution.done = true;
    execution.stopped ??= reason;
    execution.abort.abort();
    if (execution.leased) {
      execution.leased = false;
      this.leaseWatch.drop(execution.taskId);
    }
  }

  /** This instance lost a task's lease (it renewed too late, or the task was canceled on another instance). */
  private lost(taskId: string): void {
    const execution = this.executions.get(taskId);
    if (!execution || execution.done) return;
    execution.leased = false;
    this.stop(execution, "this instance lost the task's execution lease");
    this.end(execution);
  }

  /**
   * A task whose instance died (its lease expired) and that this instance now leases: unless it is
   * finished or waiting for the client, it is failed with a status message saying so, and its
   * subscribers get that terminal event; the lease is released in the same commit.
   */
  private async takeOver(taskId: string, previousOwner: string): Promise<void> {
    const running = this.executions.get(taskId);
    if (previousOwner === this.instanceId && running && !running.done) {
      // This instance's own lease lapsed (a stalled event loop) while its execution goes on: keep it.
      running.leased = true;
      this.leaseWatch.hold(taskId);
      return;
    }
    const loaded = await this.store.tasks.load(taskId);
    const state = loaded && isObject(loaded.task["status"]) ? loaded.task["status"]["state"] : undefined;
    // A task waiting for the client is left waiting; one waiting with the user's message unanswered had a
    // follow-up turn start (its commit took this lease) and die before its first event: that turn is taken over.
    if (!loaded || this.shapes.isTerminal(state) || (this.shapes.isInterrupted(state) && !endsWithUserMessage(loaded.task))) {
      await this.store.leases.release(taskId, this.instanceId);
      return;
    }
    const execution = newExecution(taskId, contextOf(loaded.task, this.shapes), loaded.task, loaded.version);
    execution.leased = true;
    if (this.executor.resumable === true) {
      // Run the interrupted turn again here, under the lease this instance just took.
      this.leaseWatch.hold(taskId);
      this.executions.set(taskId, execution);
      // Observed: the resumed turn continues the trace of the call that started it (kept in its turn mark).
      const parent = this.telemetry ? await lastTurnTrace(this.store.events, taskId).catch(() => undefined) : undefined;
      this.run(execution, turnContext(this.conversations, execution, "resume", lastUserMessage(loaded.task), loaded.task, false, undefined), parent);
      this.logger.warn?.(`a2a: task ${taskId} resumed: its instance ${previousOwner} stopped (lease expired)`);
      this.telemetry?.takeOver(taskId, "resumed");
      return;
    }
    const publisher = this.publisher(execution);
    publisher.failed(`The instance running this task (${previousOwner}) stopped before the task finished (its execution lease expired); the task was marked failed by ${this.instanceId}.`);
    await publisher.drain();
    if (execution.error !== undefined) throw execution.error;
    this.logger.warn?.(`a2a: task ${taskId} failed: its instance ${previousOwner} stopped (lease expired)`);
    this.telemetry?.takeOver(taskId, "failed");
  }

  /**
   * Gives back the lease a turn took without an update to release it with (its executor raised the call's
   * error before the first event): the task stays as it was, waiting for the client, not for a takeover.
   */
  async releaseLease(execution: Execution): Promise<void> {
    if (!execution.leased) return;
    execution.leased = false;
    this.leaseWatch.drop(execution.taskId);
    try {
      await retryUnavailable(() => this.store.leases.release(execution.taskId, this.instanceId), this.shutdown);
    } catch (error) {
      // It expires by itself; an instance then takes the task over (its history ends with the refused message: failed).
      this.logger.warn?.(`a2a: releasing the execution lease of task ${execution.taskId} failed`, error);
    }
  }

  /**
   * Hands a running turn over to another instance (the server is shutting down and the grace period is
   * over): the turn is stopped here (its executor's signal aborts, nothing more of it is written), then its
   * lease is expired at once (renewed for 0 ms) rather than released, so that another instance's scan for
   * expired leases (lease-watch.ts) takes the task over: a `resumable` executor's turn is run again there.
   * True when the lease was this instance's and is now expired.
   */
  async handOver(execution: Execution, waitMs: number): Promise<boolean> {
    if (execution.done) return false;
    const leased = execution.leased;
    this.stop(execution, "this instance is shutting down: the task is handed over to another instance");
    await settledWithin(execution.settled, waitMs);
    if (!leased) return false;
    try {
      return await this.store.leases.renew(execution.taskId, this.instanceId, 0);
    } catch (error) {
      // The lease then expires by itself, and an instance takes the task over a lease later.
      this.logger.warn?.(`a2a: handing task ${execution.taskId} over failed (it is taken over once its lease expires)`, error);
      return false;
    }
  }

  /**
   * A client following a task (a resubscription, e.g. the reconnect of a stream an instance ended as it shut
   * down): when the task's lease has expired (handed over, or its instance died), the expired leases are
   * claimed now rather than at the next scan, so that the turn resumes (or fails) without waiting.
   */
  async claimIfExpired(taskId: string): Promise<void> {
    const holder = await this.store.leases.holder(taskId);
    if (holder !== undefined && holder.expiresAt <= Date.now()) await this.leaseWatch.scan();
  }

  /**
   * Whether a task's last turn was abandoned (its instance died: its lease expired) and waits for the
   * take-over that fails or resumes it: a new turn must not start on top of it. Asked only of a task
   * whose state says a turn may be under way (working, submitted, or waiting with the user's message
   * unanswered); a waiting task's lease is released with the turn that made it wait.
   */
  async abandonedTurn(taskId: string, task: JsonObject): Promise<boolean> {
    const state = isObject(task["status"]) ? task["status"]["state"] : undefined;
    if (this.shapes.isInterrupted(state) && !endsWithUserMessage(task)) return false;
    const holder = await this.store.leases.holder(taskId);
    return holder !== undefined && holder.expiresAt <= Date.now();
  }
}
