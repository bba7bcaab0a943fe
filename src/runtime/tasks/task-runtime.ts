/**
 * The task runtime: sends, streams, resubscriptions and cancellation on an `A2AStore`, one run of the user's
 * AgentExecutor per turn of a task. This file starts turns (a new task, or a follow-up turn queued behind
 * this instance's turns of the task and taking its execution lease) and follows a task's event log for
 * streams; its collaborators do the rest:
 *
 * - executor.ts: the executor contract (RequestContext, EventPublisher, AgentExecutor);
 * - execution.ts: an execution (one turn on this instance), its RequestContext, the `Turn` record;
 * - publisher.ts: the EventPublisher that turns the executor's calls into task updates;
 * - commit-writer.ts: each batch of updates as one compare-and-set commit (events, push notifications, lease);
 * - push-configs.ts: push notification configs and the notifications a commit queues;
 * - ownership.ts: cancel, stop, lost leases and take-over: the task across instances.
 *
 * Several instances on one durable store thus serve the same tasks. Transport-free: the A2A service calls
 * it with params already authenticated and validated, and bindings read its streams as async iterables.
 */
import { InputModeCheck, modeWarnings } from "./input-modes.js";
import { A2AError, isRaisedA2AError } from "../a2a-error.js";
import { EventChannel } from "./event-channel.js";
import { JSON_RPC_ERROR } from "../wire/jsonrpc.js";
import { isObject, type JsonObject } from "../json.js";
import { newId, type MethodRole } from "../profile.js";
import { type ProtocolShapes } from "../protocol-shapes.js";
import { withJsonText } from "../event-ids.js";
import { OutboxWorker } from "./outbox-worker.js";
import type { PushSender } from "./push-sender.js";
import { pushDelivery } from "./push-delivery.js";
import { ArtifactEventTexts } from "./task-texts.js";
import { ExecutionLeaseHeldError, isStoreError, StoreUnavailableError, TaskVersionConflictError } from "../stores/errors.js";
import type { A2AStore, PushConfigStore, VersionedTask, VersionedTaskStore } from "../stores/contract.js";
import { CommitWriter } from "./commit-writer.js";
import { asWritten, contextOf, defaultOwner, DEFAULT_SCOPE, newExecution, turnContext, type Execution, type Turn } from "./execution.js";
import type { AgentExecutor, AgentExecutorOfAnyVersion, RequestContext, RuntimeLogger } from "./executor.js";
import { Ownership } from "./ownership.js";
import { PushConfigs, type PushPayloadHook } from "./push-configs.js";
import { turnPublisher, type PublisherDeps, type TurnPublisher } from "./publisher.js";
import { retryUnavailable, sleep } from "./retry.js";
import { SubscriptionCounter, TaskStreams, TURN_MARK, TURN_TRACE } from "./task-streams.js";
import type { ServerTelemetry, TelemetrySpan } from "../telemetry-hooks.js";
import { backgroundWorkDone, drainExecutions, shuttingDownError, type DrainOutcome } from "./drain.js";
import type { CallRecorder } from "../call.js";

export interface TaskRuntimeOptions {
  shapes: ProtocolShapes;
  executor: AgentExecutorOfAnyVersion;
  /** Where tasks, push configs, event logs, the push outbox and execution leases are kept. */
  store: A2AStore;
  /** Undefined when push notifications are not sent (configs are still kept). */
  pushSender: PushSender | undefined;
  logger: RuntimeLogger;
  /** The card's capabilities decide streaming and push notifications. */
  card: JsonObject;
  /** This instance's name in leases and the outbox; default a random id. */
  instanceId?: string;
  /** Execution lease length in ms (how long a dead instance's tasks wait before another fails them); default 30_000. */
  leaseMs?: number;
  /** How long a message to a task whose turn is running waits for it to end before it is refused, in ms; default 30_000. */
  turnWaitMs?: number;
  /** The task scope of a caller: tasks are visible only to the scope that created them (1.0.1 §13.1). */
  owner?: (principal: unknown) => string;
  /** What a push notification carries for a config; undefined (or no hook) means the version's own payload. */
  pushPayload?: PushPayloadHook;
  /** Telemetry hooks: a span per turn and per push delivery, the trace context kept with turns and push notifications (telemetry-hooks.ts). */
  telemetry?: ServerTelemetry | undefined;
}

export class TaskRuntime {
  /** Open stream subscriptions by task (for tests of disconnect handling). */
  readonly bus: SubscriptionCounter;
  /** Following a task's events for streams and resubscriptions (task-streams.ts). */
  private readonly streams: TaskStreams;
  readonly shapes: ProtocolShapes;
  readonly store: A2AStore;
  readonly instanceId: string;
  private readonly executor: AgentExecutor;
  private readonly logger: RuntimeLogger;
  private readonly card: JsonObject;
  private readonly leaseMs: number;
  private readonly turnWaitMs: number;
  private readonly ownerOf: (principal: unknown) => string;
  private readonly executions = new Map<string, Execution>();
  /** Per-task FIFO of turns on this instance: registered before the first await (issue 16 item 2). */
  private readonly turnQueue = new Map<string, Promise<void>>();
  private readonly shutdown = new AbortController();
  /** Aborted when shutting down begins (`drain`). */
  private readonly drainStart = new AbortController();
  private readonly outbox: OutboxWorker | undefined;
  /** Push notification configs, and the notifications a commit queues (push-configs.ts). */
  private readonly push: PushConfigs;
  /** The task across instances: cancel, stop, lost leases, take-over (ownership.ts). */
  private readonly ownership: Ownership;
  /** Each batch of updates as one compare-and-set commit (commit-writer.ts). */
  private readonly writer: CommitWriter;
  /** What every publisher works with (publisher.ts): one object for the runtime, not one per turn. */
  private readonly publisherDeps: PublisherDeps;
  private readonly telemetry: ServerTelemetry | undefined;

  constructor(options: TaskRuntimeOptions) {
    this.shapes = options.shapes;
    this.executor = options.executor as AgentExecutor;
    this.store = options.store;
    this.logger = options.logger;
    this.card = options.card;
    for (const warning of modeWarnings(this.card)) this.logger.warn?.(`a2a: ${warning}`);
    this.instanceId = options.instanceId ?? `instance-${newId()}`;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.turnWaitMs = options.turnWaitMs ?? 30_000;
    this.ownerOf = options.owner ?? defaultOwner;
    const telemetry = (this.telemetry = options.telemetry);
    const stop = (execution: Execution, reason: string) => this.ownership.stop(execution, reason);
    const streamsTasks = () => this.streamsTasks();
    this.ownership = new Ownership({
      shapes: this.shapes,
      store: this.store,
      logger: this.logger,
      executor: this.executor,
      instanceId: this.instanceId,
      leaseMs: this.leaseMs,
      executions: this.executions,
      shutdown: this.shutdown.signal,
      publisher: (execution, userMessage) => this.publisher(execution, userMessage),
      run: (execution, context, parent) => this.run(execution, context, parent),
      end: (execution) => this.endExecution(execution),
      requireVersioned: (taskId, principal) => this.requireVersioned(taskId, principal),
      conversations: this,
      telemetry,
    });
    this.streams = new TaskStreams({
      shapes: this.shapes,
      store: this.store,
      logger: this.logger,
      shutdown: this.shutdown.signal,
      streamsTasks,
      requireTask: (taskId, principal) => this.requireTask(taskId, principal),
      requireVersioned: (taskId, principal) => this.requireVersioned(taskId, principal),
    });
    this.bus = this.streams.bus;
    const sender = options.pushSender;
    if (sender && this.capability("pushNotifications")) {
      this.outbox = new OutboxWorker({
        outbox: this.store.outbox,
        owner: this.instanceId,
        maxAttempts: 3,
        deliver: pushDelivery(sender, telemetry, this.shutdown.signal),
        onError: (error) => this.logger.warn?.(`a2a: push notification: ${error instanceof Error ? error.message : String(error)}`),
      });
      this.outbox.start();
    }
    this.push = new PushConfigs({
      shapes: this.shapes,
      store: this.store,
      logger: this.logger,
      enabled: () => this.capability("pushNotifications"),
      delivers: this.outbox !== undefined,
      pushSender: options.pushSender,
      pushPayload: options.pushPayload,
      shutdown: this.shutdown.signal,
      telemetry,
    });
    this.writer = new CommitWriter({
      shapes: this.shapes,
      store: this.store,
      logger: this.logger,
      instanceId: this.instanceId,
      leaseMs: this.leaseMs,
      leaseWatch: this.ownership.leaseWatch,
      outbox: this.outbox,
      push: this.push,
      shutdown: this.shutdown.signal,
      streamsTasks,
      stop,
      ...(telemetry ? { traceparent: () => telemetry.traceparent() } : {}),
    });
    this.publisherDeps = { shapes: this.shapes, writer: this.writer, logger: this.logger, streamsTasks, stop, end: (execution) => this.endExecution(execution) };
  }


  /** Aborted when the server closes. */
  get closing(): AbortSignal {
    return this.shutdown.signal;
  }

  /** Aborted when the server begins to shut down (`drain`): new turns and subscriptions are refused from then on. */
  get draining(): AbortSignal {
    return this.drainStart.signal;
  }

  /** Refuses new turns and subscriptions, waits up to `graceMs` for running turns, hands the rest over (drain.ts). */
  drain(graceMs: number): Promise<DrainOutcome> {
    this.drainStart.abort();
    return drainExecutions(this.executions, graceMs, (execution, waitMs) => this.ownership.handOver(execution, waitMs));
  }

  /** Resolves once no turn runs here and the push notifications queued so far were attempted (drain.ts). */
  idle(): Promise<void> {
    return backgroundWorkDone(this.executions, this.outbox);
  }

  /** The task store (the store's versioned tasks). */
  get tasks(): VersionedTaskStore {
    return this.store.tasks;
  }

  get pushConfigs(): PushConfigStore {
    return this.store.pushConfigs;
  }

  /** Stops executions, lease upkeep and push delivery (waits for deliveries in flight). The store stays open: it is the caller's. */
  async close(): Promise<void> {
    this.shutdown.abort();
    this.ownership.leaseWatch.stop();
    for (const execution of this.executions.values()) execution.abort.abort();
    await this.outbox?.stop();
  }

  code(name: string, fallback: number): number {
    return this.shapes.profile.errorCodes[name] ?? fallback;
  }

  capability(name: "streaming" | "pushNotifications"): boolean {
    const capabilities = this.card["capabilities"];
    return isObject(capabilities) && capabilities[name] === true;
  }

  /** Whether this version's stream results include Task objects (0.2+) or only update events (0.1.0). */
  streamsTasks(): boolean {
    // Asked several times per turn (every reply, commit and followed event): the profile does not change.
    return (this.streamsTaskResults ??= this.shapes.profile.streamResults.includes("Task"));
  }

  private streamsTaskResults: boolean | undefined;

  /** The owner scope of a caller (1.0.1 §13.1): the configured resolver's answer for the principal. */
  scopeOf(principal: unknown): string {
    return this.ownerOf(principal);
  }

  // ------------------------------------------------------------------------------------------------
  // Send, stream, resubscribe, cancel

  async send(method: string, params: JsonObject, principal: unknown, extensions: readonly string[] = [], span?: CallRecorder): Promise<unknown> {
    if (this.drainStart.signal.aborted) throw shuttingDownError();
    const request = this.shapes.sendParams(params);
    const execution = await this.startExecution({ method, request, principal, streaming: false, extensions, beforeRun: undefined, span });
    if (!request.blocking) {
      const current = execution.task ?? (await this.materialize(execution));
      // The answer is written after the turn may have appended more chunks to its parts: a copy of this write.
      return this.shapes.withHistory(asWritten(current, execution.streamedParts, execution.taskId), request.historyLength);
    }
    await execution.settled;
    if (execution.error !== undefined) throw execution.error;
    if (execution.reply && !execution.task) return execution.reply;
    const task = execution.task;
    if (!task) return null;
    const result = this.shapes.withHistory(task, request.historyLength);
    return result === task && execution.taskText !== undefined ? withJsonText(task, execution.taskText) : result;
  }

  /**
   * Starts the execution a streaming send asks for and answers its events (each wrapped as the role's
   * result and tagged with its log sequence), ending on the final one. The subscription to the task's
   * log starts at the turn's first event, so that no event is missed whichever instance commits it.
   */
  async stream(role: MethodRole, method: string, params: JsonObject, principal: unknown, extensions: readonly string[] = [], span?: CallRecorder): Promise<AsyncIterable<unknown>> {
    if (this.drainStart.signal.aborted) throw shuttingDownError();
    const request = this.shapes.sendParams(params);
    let channel: EventChannel<unknown> | undefined;
    const beforeRun = (execution: Execution, after: number) => {
      const events = (channel = this.streams.follow(role, execution.taskId, after, { skipTurnMarks: true }));
      execution.onReply = (message) => {
        events.push(this.shapes.wrap(role, message));
        events.end();
      };
      execution.onError = (error) => events.fail(error);
    };
    await this.startExecution({ method, request, principal, streaming: true, extensions, beforeRun, span });
    return channel ?? new EventChannel<unknown>();
  }

  /**
   * Joins a task's events (task-streams.ts): its current state first, then its updates, until a terminal
   * state; with `lastEventId`, the events after that one.
   */
  resubscribe(role: MethodRole, params: JsonObject, principal: unknown, lastEventId?: number): Promise<AsyncIterable<unknown>> {
    if (this.drainStart.signal.aborted) return Promise.reject(shuttingDownError());
    const taskId = this.shapes.paramsTaskId("resubscribe", params);
    if (taskId !== undefined) void this.ownership.claimIfExpired(taskId).catch((error: unknown) => this.logger.warn?.("a2a: claiming an expired lease failed (the next scan retries)", error));
    return this.streams.resubscribe(role, params, principal, lastEventId);
  }


  /** The task, if it exists and the caller's scope owns it; else TaskNotFound (the same answer either way, 1.0.1 §13.1). */
  async requireTask(taskId: string | undefined, principal: unknown): Promise<JsonObject> {
    return (await this.requireVersioned(taskId, principal)).task;
  }

  private async requireVersioned(taskId: string | undefined, principal: unknown): Promise<VersionedTask> {
    const loaded = taskId === undefined ? undefined : await this.store.tasks.load(taskId);
    if (!loaded || !this.owns(loaded, principal)) throw new A2AError(this.code("TaskNotFound", JSON_RPC_ERROR.invalidParams), "Task not found", { taskId: taskId ?? null });
    return loaded;
  }

  /** Whether the caller's scope owns a task. */
  owns(loaded: VersionedTask, principal: unknown): boolean {
    return (loaded.owner ?? DEFAULT_SCOPE) === this.ownerOf(principal);
  }

  /** CancelTask: see ownership.ts (a cancel is a writer of its own; its answer is what the store holds). */
  cancel(params: JsonObject, principal: unknown): Promise<JsonObject> {
    return this.ownership.cancel(params, principal);
  }

  // ------------------------------------------------------------------------------------------------
  // Push notification configs (push-configs.ts)

  pushEnabled(): void {
    this.push.pushEnabled();
  }

  checkWebhook(config: JsonObject): Promise<void> {
    return this.push.checkWebhook(config);
  }

  /** Whether the version's push configs carry an id (0.2.1+; one config per task before). */
  get pushConfigsHaveIds(): boolean {
    return this.push.pushConfigsHaveIds;
  }

  /** The config with its id: the one given, else the task id (as the 0.3 SDKs do, so a get naming only the task finds it). */
  withConfigId(config: JsonObject, taskId: string): JsonObject {
    return this.push.withConfigId(config, taskId);
  }

  /** Refuses a part of a media type the agent does not accept (input-modes.ts); the card is read on first use. */
  private inputModes: InputModeCheck | undefined;

  // ------------------------------------------------------------------------------------------------
  // Executions

  /**
   * Starts (or continues) the task a send/stream request names and runs the executor in the
   * background. The turn's `beforeRun` sees the execution and the log sequence its events follow (streams subscribe there).
   *
   * One execution per task: a message to a task whose turn is running waits for that turn to end and is
   * then applied, in order (1.0.1 §3.3.3: agents MAY accept more messages for a non-terminal task). On this
   * instance the turns of a task queue in a FIFO registered before the first await; across instances the
   * execution lease, taken in the same compare-and-set commit that appends the message, decides.
   *
   * Not an async function: a new task's start is `startNewTask`'s promise itself (an async layer that only
   * passed it on cost every request a suspended frame and two promises, and resolving it with that
   * promise two more turns of the microtask queue).
   */
  startExecution(turn: Turn): Promise<Execution> {
    const request = turn.request;
    try {
      if (request.undeclaredId !== undefined) {
        // 1.0.1 §3.4.2: task ids are server-generated; 0.2+ send params have no `id` (0.1.0's tasks/send had one).
        throw invalidField("/params/id", "no id: a new task's id is generated by the server; continue a task with message.taskId", request.undeclaredId);
      }
      (this.inputModes ??= new InputModeCheck(this.card, this.shapes.profile)).check(request.message);
    } catch (error) {
      return Promise.reject(error);
    }
    if (request.taskId === undefined) return this.startNewTask(turn);
    return this.continueTask(turn);
  }

  /** A turn of the task a send names: queued behind this instance's turns of it, then started (`startTurn`). */
  private async continueTask(turn: Turn): Promise<Execution> {
    const taskKey = turn.request.taskId as string;
    // The turn's place in this instance's queue for the task, taken synchronously (before the first await).
    const prior = this.turnQueue.get(taskKey) ?? Promise.resolve();
    let release: () => void = () => undefined;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = prior.then(() => mine);
    this.turnQueue.set(taskKey, tail);
    const leave = () => {
      release();
      if (this.turnQueue.get(taskKey) === tail) this.turnQueue.delete(taskKey);
    };
    try {
      const deadline = Date.now() + this.turnWaitMs;
      if (!(await within(prior, this.turnWaitMs))) throw stillWorking(taskKey);
      const execution = await this.startTurn(turn, deadline);
      if (!execution) return this.startNewTask(turn, leave);
      void execution.settled.then(leave);
      return execution;
    } catch (error) {
      leave();
      throw error;
    }
  }

  /** A follow-up turn of an existing task (undefined: the version lets the client name a new task's id and it does not exist). */
  private async startTurn(turn: Turn, deadline: number): Promise<Execution | undefined> {
    const { request, principal } = turn;
    const taskId = request.taskId as string;
    let pause = 10;
    for (;;) {
      const loaded = await this.store.tasks.load(taskId);
      if (!loaded || !this.owns(loaded, principal)) {
        if (!loaded && request.clientChosenTaskId) return undefined;
        throw new A2AError(this.code("TaskNotFound", JSON_RPC_ERROR.invalidParams), "Task not found", { taskId });
      }
      const existing = loaded.task;
      const state = isObject(existing["status"]) ? existing["status"]["state"] : undefined;
      if (this.shapes.isTerminal(state)) {
        // A task in a terminal state cannot be restarted (1.0 §3.1.1: UnsupportedOperationError).
        throw new A2AError(this.code("UnsupportedOperation", JSON_RPC_ERROR.invalidParams), `Task ${String(existing["id"])} is ${String(state)} and cannot take more messages`, {
          taskId: existing["id"],
          state,
        });
      }
      const contextId = contextOf(existing, this.shapes);
      turn.span?.tell({ taskId, contextId });
      if (request.contextId !== undefined && request.contextPointer.startsWith("/params/message/") && request.contextId !== contextId) {
        // 1.0.1 §3.4.3: "Agents MUST reject messages containing mismatching contextId and taskId".
        throw invalidField(request.contextPointer, `the contextId of task ${String(existing["id"])} ("${contextId}") or none`, request.contextId);
      }
      if (request.pushConfig) {
        this.pushEnabled();
        await this.checkWebhook(request.pushConfig);
      }
      const message = this.shapes.stamp(request.message, taskId, contextId);
      const history = Array.isArray(existing["history"]) ? existing["history"] : [];
      const task: JsonObject = { ...existing, history: [...history, message] };
      let sequences: number[];
      let version: number;
      const writeId = this.writer.keepsWriteIds ? newId() : undefined;
      try {
        if (await this.ownership.abandonedTurn(taskId, existing)) throw new ExecutionLeaseHeldError(taskId, "(expired)");
        ({ version, sequences } = await this.store.tasks.commit({
          task,
          expectedVersion: loaded.version,
          events: [{ event: this.turnMark(history.length + 1), final: false }],
          lease: { acquire: this.instanceId, ttlMs: this.leaseMs },
          ...(writeId !== undefined ? { writeId } : {}),
        }));
      } catch (error) {
        const made = isStoreError(error, StoreUnavailableError) && writeId !== undefined ? await retryUnavailable(() => this.store.tasks.load(taskId), this.shutdown.signal) : undefined;
        if (made !== undefined && made.lastWriteId === writeId) {
          // The turn's write was made (its answer was lost): the turn starts, its message appended once.
          version = made.version;
          sequences = [made.logSeq ?? (await this.streams.logEnd(taskId))];
        } else {
          const unavailable = isStoreError(error, StoreUnavailableError);
          if (!unavailable && !isStoreError(error, TaskVersionConflictError) && !isStoreError(error, ExecutionLeaseHeldError)) throw error;
          // Another instance runs a turn of the task (or just changed it, or a dead instance's turn waits for
          // its take-over, or the engine is restarting): wait for it, then read again.
          if (Date.now() + pause > deadline) throw unavailable ? error : stillWorking(taskId);
          await sleep(pause);
          pause = Math.min(pause * 2, 250);
          continue;
        }
      }
      const execution = newExecution(taskId, contextId, task, version);
      execution.leased = true;
      this.ownership.leaseWatch.hold(taskId);
      this.executions.set(taskId, execution);
      if (request.pushConfig) {
        // Retried on its own; if it still fails, the execution keeps it (notified, saved at its next write).
        execution.pendingPushConfig = this.withConfigId(request.pushConfig, taskId);
        await this.push.save(execution);
      }
      turn.beforeRun?.(execution, sequences[sequences.length - 1] ?? 0);
      // A non-blocking send answers with the task at once: what the executor raises later fails the task.
      if (!request.blocking) execution.published = true;
      this.run(execution, turnContext(this, execution, turn.method, message, existing, turn.streaming, principal, turn.extensions));
      return execution;
    }
  }

  /** The first turn of a new task (created by its first commit; a non-blocking send creates it at once). */
  private async startNewTask(turn: Turn, leave?: () => void): Promise<Execution> {
    const { request, principal } = turn;
    const taskId = request.taskId ?? newId();
    const contextId = request.contextId ?? newId();
    turn.span?.tell({ taskId, contextId });
    const message = this.shapes.stamp(request.message, taskId, contextId);
    if (request.pushConfig) {
      this.pushEnabled();
      await this.checkWebhook(request.pushConfig);
    }
    const execution = newExecution(taskId, contextId, undefined);
    execution.owner = this.ownerOf(principal);
    if (request.pushConfig) execution.pendingPushConfig = this.withConfigId(request.pushConfig, taskId);
    this.executions.set(taskId, execution);
    if (leave) void execution.settled.then(leave);
    turn.beforeRun?.(execution, 0);
    if (!request.blocking) await this.materialize(execution, message);
    this.run(execution, turnContext(this, execution, turn.method, message, undefined, turn.streaming, principal, turn.extensions));
    return execution;
  }

  /** The log event that marks where a turn starts; with telemetry, it keeps the call's trace context (TURN_TRACE). */
  private turnMark(turn: number): JsonObject {
    const trace = this.telemetry?.traceparent();
    return trace === undefined ? { [TURN_MARK]: turn } : { [TURN_MARK]: turn, [TURN_TRACE]: trace };
  }

  /** Runs the executor for a turn, in the background; `parent`: the trace context of a turn resumed by take-over. */
  private run(execution: Execution, context: RequestContext, parent?: string): void {
    // A stream follows the turn: its artifact events' texts are built as they come (else the store serializes
    // the events it keeps, and none when nobody follows the task).
    if (context.streaming) execution.artifactTexts = new ArtifactEventTexts();
    const publisher = this.publisher(execution, context.message);
    const taskId = execution.taskId;
    // Observed: the turn runs in its span, the executor's own spans (an LLM framework's) nest under it.
    const turn = async (span?: TelemetrySpan) => {
      try {
        await (this.executor as AgentExecutor).execute(context, publisher);
        if (!execution.done) {
          // The executor returned without ending the turn: the task is complete.
          if (execution.task || !execution.reply) publisher.completed();
        }
      } catch (error) {
        if (!execution.done) {
          // An error another agent answered the executor with (its `method` set) is an ordinary failure here.
          if (isRaisedA2AError(error) && !execution.published) {
            // An A2A error raised before the first event is the call's error; nothing of the turn was recorded.
            execution.done = true;
            execution.error = error;
            execution.onError?.(error);
            await this.ownership.releaseLease(execution);
          } else if (isRaisedA2AError(error)) {
            // Raised once the turn has begun: the task fails with the error's message.
            publisher.failed(error.message);
          } else {
            this.logger.error(`a2a: the agent executor failed on task ${taskId}`, error);
            publisher.failed("The agent failed to process the message.");
          }
        }
        span?.fail(error instanceof A2AError ? error.code : error instanceof Error ? error.name : "error", error instanceof Error ? error.message : undefined);
      } finally {
        await publisher.drain();
        this.endExecution(execution);
      }
    };
    const telemetry = this.telemetry;
    void (telemetry ? telemetry.turn({ taskId, contextId: context.contextId, method: context.method, streaming: context.streaming, parent }, turn) : turn());
  }


  private endExecution(execution: Execution): void {
    if (this.executions.get(execution.taskId) === execution) this.executions.delete(execution.taskId);
    execution.settle();
  }

  /** Creates the task of an execution (state submitted) the first time it is needed. */
  async materialize(execution: Execution, message?: JsonObject): Promise<JsonObject> {
    execution.published = true;
    if (execution.task) return execution.task;
    await this.writer.commit(execution, [], message);
    return execution.task ?? this.writer.newTask(execution, message);
  }

  /** The publisher of an execution (publisher.ts). */
  publisher(execution: Execution, userMessage?: JsonObject): TurnPublisher {
    return turnPublisher(execution, this.publisherDeps, userMessage);
  }
}

function stillWorking(taskId: string): A2AError {
  return new A2AError(JSON_RPC_ERROR.invalidParams, `Task ${taskId} is still working on the previous message`, { taskId });
}

/** Whether a promise settles within `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

// ---------------------------------------------------------------------------------------------------
// Helpers

/** An InvalidParams error with one issue naming the field, in the shape the validators' issues have. */
function invalidField(pointer: string, expected: string, value: unknown): A2AError {
  const got = value === undefined ? "missing" : JSON.stringify(value).slice(0, 60);
  const message = `${pointer}: expected ${expected}, got ${got}`;
  return new A2AError(JSON_RPC_ERROR.invalidParams, `Invalid params: ${message}`, { issues: [{ pointer, expected, got, keyword: "a2a", message }] });
}
