/**
 * The task runtime: one run of the user's AgentExecutor per turn of a task, the EventPublisher that turns
 * its calls into task updates in the version's shape, sends, streams, resubscriptions and cancellation,
 * all on an `A2AStore`: each update is one compare-and-set commit that also appends the task's events
 * and queues its push notifications; streams follow the task's event log; the instance running a turn
 * holds the task's execution lease. Several instances on one durable store thus serve the same tasks. Transport-free: the A2A service calls it with params
 * already authenticated and validated, and bindings read its streams as async iterables.
 */
import { acceptedInputModes, acceptsMediaType, modeWarnings, partMediaType } from "./input-modes.js";
import { A2AError } from "../a2a-error.js";
import { EventChannel } from "./event-channel.js";
import { JSON_RPC_ERROR } from "../wire/jsonrpc.js";
import { isObject, type JsonObject } from "../json.js";
import { newId, type MethodRole } from "../profile.js";
import { type ProtocolShapes } from "../protocol-shapes.js";
import { withEventId, withJsonText } from "../event-ids.js";
import { LeaseWatch } from "./lease-watch.js";
import { OutboxWorker } from "./outbox-worker.js";
import { PushSender, UnsafeWebhookError, type PushTarget } from "./push.js";
import { ArtifactEventTexts, TaskTexts } from "./task-texts.js";
import { taskPatch } from "../stores/task-patch.js";
import { ExecutionLeaseHeldError, isStoreError, StoreUnavailableError, TaskVersionConflictError } from "../stores/errors.js";
import { pushConfigId, storableJson } from "../stores/task-json.js";
import type { A2AStore, EventSubscription, LeaseChange, OutboxMessage, PushConfigStore, TaskCommit, TaskEventInput, VersionedTask, VersionedTaskStore } from "../stores/contract.js";

// ---------------------------------------------------------------------------------------------------
// The agent's side

/** What the executor knows of the request it serves. */
export interface RequestContext<TMessage = JsonObject, TTask = JsonObject> {
  readonly taskId: string;
  readonly contextId: string;
  /** The user's message. */
  readonly message: TMessage;
  /** The task as it was before this message (a follow-up turn), or undefined for a new task. */
  readonly task: TTask | undefined;
  /** The method that started the execution ("message/send", "message/stream", "tasks/send", ...). */
  readonly method: string;
  readonly streaming: boolean;
  /** Aborted when the task is canceled or the server closes. */
  readonly signal: AbortSignal;
  /** The authenticated principal the verifier returned, if any. */
  readonly principal: unknown;
  /** The text of the user's message (its text parts joined by newlines). */
  readonly text: string;
  /** The extensions the client activated for this request (declared by the card and named in the version's extensions header). */
  readonly extensions: readonly string[];
}

/**
 * How the executor reports progress; every call becomes a task update in the version's shape. `TState` is
 * the states `status()` takes (the generated server passes the version's, in both spellings).
 */
export interface EventPublisher<TMessage = JsonObject, TPart = JsonObject, TArtifact = JsonObject, TState extends string = string> {
  /** Answers with a message and no task (0.2+; in 0.1.0 it completes the task with that message). */
  reply(message: TMessage | string): void;
  /**
   * Sets the task's state; terminal and interrupted states (input-required, auth-required) end the turn.
   * A state the version does not have throws a TypeError naming the version's states.
   */
  status(state: TState, message?: TMessage | string): void;
  working(message?: TMessage | string): void;
  completed(message?: TMessage | string): void;
  failed(message?: TMessage | string): void;
  canceled(message?: TMessage | string): void;
  rejected(message?: TMessage | string): void;
  inputRequired(message: TMessage | string): void;
  /** Adds an artifact, or appends to one (same artifactId, `append: true`). */
  artifact(artifact: Omit<TArtifact, "artifactId"> & { artifactId?: string }, options?: { append?: boolean; lastChunk?: boolean }): void;
  /** A message of the agent's, in this version's shape, from parts or a text. */
  agentMessage(content: string | TPart[]): TMessage;
  textPart(text: string): TPart;
  dataPart(data: Record<string, unknown>): TPart;
}

export interface AgentExecutor<TMessage = JsonObject, TTask = JsonObject, TPart = JsonObject, TArtifact = JsonObject, TState extends string = string> {
  execute(context: RequestContext<TMessage, TTask>, events: EventPublisher<TMessage, TPart, TArtifact, TState>): void | Promise<void>;
  /** Optional: how to cancel; by default the task is marked canceled and the execution's signal aborted. */
  cancel?(context: RequestContext<TMessage, TTask>, events: EventPublisher<TMessage, TPart, TArtifact, TState>): void | Promise<void>;
  /**
   * Whether a turn may run again on another instance when its instance died mid-turn (its execution
   * lease expired): then `execute` is called there with the task as it was stored, the last user message
   * and `method` "resume". Default false: such a task is failed, with a status message saying why.
   */
  readonly resumable?: boolean;
}

/**
 * An executor written against any version's models: `AgentExecutor<Message, Task, Part, Artifact, State>`
 * of the generated server is one (the runtime hands it objects of that version's shapes). The runtime's
 * options take this, so that a typed executor needs no cast.
 */
export type AgentExecutorOfAnyVersion = AgentExecutor<never, never, never, never, never>;

export interface RuntimeLogger {
  error(message: string, detail?: unknown): void;
  warn?(message: string, detail?: unknown): void;
}

/** Executions: one run of the executor for one turn of a task, on this instance. */
interface Execution {
  taskId: string;
  contextId: string;
  /** The task as last committed (undefined until the first commit of a new task). */
  task: JsonObject | undefined;
  /** The JSON text `task` was committed as, when this instance committed it (what the store keeps). */
  taskText: string | undefined;
  /** The texts of the turn's artifact-update events, when a stream follows the turn (made as it starts). */
  artifactTexts: ArtifactEventTexts | undefined;
  /**
   * The parts arrays of the turn's artifacts that this runtime made (a copy at an artifact's first
   * appended chunk) and appends the later chunks to in place, each with its length at the last commit.
   * Only with a store that keeps interim writes (`keepsInterimTasks`), which reads each of them at its
   * own lengths (`TaskCommit.interimText`). Copying the parts at every write made a stream of n chunks,
   * committed one at a time (an agent that awaits each token), cost O(n²): 8,000 chunks took 6× the
   * time per chunk of 500.
   */
  streamedParts: Map<unknown[], number> | undefined;
  /** The store's version of `task` (0: not created yet). */
  version: number;
  /** Whether this instance holds the task's execution lease (taken in a commit, released in the final one). */
  leased: boolean;
  /** Set when the turn started by canceling a task that runs on another instance: its lease is released with the final commit. */
  releaseFor: string | undefined;
  /** The owner scope of a task being created (stored with it, outside the protocol task). */
  owner: string | undefined;
  /**
   * The call's error: an A2AError the executor raised before the turn's first event, or why the
   * execution could not record its updates (the engine failed).
   */
  error: unknown;
  /** Whether the turn has produced an event yet (the task created, a status, an artifact or a reply). */
  published: boolean;
  /** The push config the request carried, stored once the task exists. */
  pendingPushConfig: JsonObject | undefined;
  /** Set when the executor answered with a message and no task. */
  reply: JsonObject | undefined;
  /** The direct reply goes to this instance's stream only (no task, so no log). */
  onReply: ((message: JsonObject) => void) | undefined;
  /**
   * Where this instance's stream of the turn hears of the call's error (`error`): it fails the stream
   * (before its first event: the call's error; after: the stream's end).
   */
  onError: ((error: unknown) => void) | undefined;
  /** Resolves when the turn is over (final state, reply, or the executor returned). */
  settled: Promise<void>;
  settle(): void;
  done: boolean;
  /**
   * Why this execution records nothing more (its task was finished elsewhere, its lease was lost, a write
   * failed): updates still queued are dropped, with a log line, never written on top of another's.
   */
  stopped: string | undefined;
  /** The terminal task another writer committed while this execution ran (a cancel on another instance). */
  finishedElsewhere: JsonObject | undefined;
  abort: ExecutionAbort;
}

/** Where a TurnContext keeps its execution's abort (a symbol: no member of the protocol's or a user's). */
const TURN_ABORT = Symbol("a2a.turnAbort");

/** The `signal` getter of every TurnContext: one function, so that every context shares one hidden class. */
function turnSignal(this: { readonly [TURN_ABORT]: ExecutionAbort }): AbortSignal {
  return this[TURN_ABORT].signal;
}

/**
 * The RequestContext an executor gets: its `signal` made when first read. Not an object literal with a
 * `get signal()`: V8 gives each such literal a hidden class of its own (its getter is a closure of its own),
 * allocated in the old generation, which kept the turn's objects alive through every young-generation
 * collection until a full one (measured: 3.5 MB of each 16 MB young generation survived, and a message/send
 * took 2.5× as long). Here every context gets the same getter function, as an own enumerable property, so
 * that a copy (`{ ...ctx, text }`, an executor wrapping another) still carries its signal.
 */
class TurnContext implements RequestContext {
  readonly taskId: string;
  readonly contextId: string;
  readonly message: JsonObject;
  readonly task: JsonObject | undefined;
  readonly method: string;
  readonly streaming: boolean;
  declare readonly signal: AbortSignal;
  readonly principal: unknown;
  readonly text: string;
  readonly extensions: readonly string[];
  readonly [TURN_ABORT]: ExecutionAbort;

  constructor(abort: ExecutionAbort, fields: Omit<RequestContext, "signal">) {
    this.taskId = fields.taskId;
    this.contextId = fields.contextId;
    this.message = fields.message;
    this.task = fields.task;
    this.method = fields.method;
    this.streaming = fields.streaming;
    Object.defineProperty(this, "signal", { get: turnSignal, enumerable: true, configurable: true });
    this.principal = fields.principal;
    this.text = fields.text;
    this.extensions = fields.extensions;
    this[TURN_ABORT] = abort;
  }
}

/** An execution's abort: the AbortController is made when its signal is first read (most turns end without anything asking). */
class ExecutionAbort {
  private controller: AbortController | undefined;
  private aborted = false;

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort();
    }
    return this.controller.signal;
  }

  abort(): void {
    this.aborted = true;
    this.controller?.abort();
  }
}

/** A write of a batch of updates, as `commitUpdates` sends it, with what the execution keeps once it is made. */
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

/** One change of a task by the executor: the task after it, and the events it logs. */
interface TaskUpdate {
  /**
   * The task with the update applied: a new value, unless `task` itself is one the batch made. `batch`
   * holds the objects and arrays the updates of the same commit made (the task among them): nothing
   * outside the batch holds them yet, so a later update of the batch may change them in place (an
   * artifact's chunks are appended to one parts array and one task copy, not to a copy per chunk).
   */
  apply(task: JsonObject, batch: Set<object>): { task: JsonObject; events: TaskEventInput[] };
  /** The last update of the turn (terminal or interrupted state). */
  final: boolean;
  /** An artifact update: it may append to the turn's own parts arrays in place (`Execution.streamedParts`). */
  artifact?: true;
}

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
}

/** Tries of a commit that lost a compare-and-set race before the update gives up. */
const MAX_CONFLICTS = 8;
/**
 * The same for a write that ends a turn (a cancel, the executor's last state): it races a writer that may
 * write every few milliseconds (a cancel against a streaming turn on another instance), and giving up
 * leaves the task to the expiry of its lease, so it tries longer.
 */
const MAX_FINAL_CONFLICTS = 64;
/** Tries of a commit while the engine is unreachable, with a doubling pause from 100 ms. */
const MAX_UNAVAILABLE = 5;
/** The log event that marks where a follow-up turn starts (never streamed: it only positions readers). */
const TURN_MARK = "a2aTurn";

/** The body (and content type) of a push notification of `task` to `config`, or undefined for the version's own. */
export type PushPayloadHook = (config: JsonObject, task: JsonObject) => { readonly body: unknown; readonly contentType?: string } | undefined;

export class TaskRuntime {
  /** Open stream subscriptions by task (for tests of disconnect handling). */
  readonly bus = new SubscriptionCounter();
  readonly shapes: ProtocolShapes;
  readonly store: A2AStore;
  readonly instanceId: string;
  private readonly executor: AgentExecutor;
  private readonly pushSender: PushSender | undefined;
  private readonly logger: RuntimeLogger;
  private readonly card: JsonObject;
  private readonly leaseMs: number;
  private readonly turnWaitMs: number;
  private readonly ownerOf: (principal: unknown) => string;
  private readonly pushPayload: PushPayloadHook | undefined;
  private readonly executions = new Map<string, Execution>();
  /**
   * The texts of the artifact parts committed so far, so that a long streamed artifact is not serialized
   * again at each write; none for a store that keeps interim writes as objects (`keepsInterimTasks`) or
   * as patches (`storesTaskPatches`): it gets one text a turn, the last write's (and the patching store
   * now and then one more), and one JSON.stringify of the task is faster than building it from part texts
   * nothing else would use.
   */
  private readonly taskTexts: TaskTexts | undefined;
  /**
   * Whether the store keeps interim writes (`keepsInterimTasks`): they are then sent without text, and a
   * streamed artifact's chunks are appended to its parts in place (`Execution.streamedParts`).
   */
  private readonly keepsInterimTasks: boolean;
  /**
   * Whether the store keeps interim writes as patches (`storesTaskPatches`, and not `keepsInterimTasks`):
   * they are then sent with their patch and without text (the store asks for it when it writes the task).
   */
  private readonly patchesInterimTasks: boolean;
  /** Whether the store keeps each task's last write id (`keepsWriteIds`): each write then carries one. */
  private readonly keepsWriteIds: boolean;
  /** Per-task FIFO of turns on this instance: registered before the first await (issue 16 item 2). */
  private readonly turnQueue = new Map<string, Promise<void>>();
  private readonly shutdown = new AbortController();
  /**
   * What ends each open follow() channel at shutdown: one abort listener for them all (a listener per
   * channel would make Node warn of a leak at the 11th subscription of a task).
   */
  private readonly followers = new Set<() => void>();
  private readonly leaseWatch: LeaseWatch;
  private readonly outbox: OutboxWorker | undefined;

  constructor(options: TaskRuntimeOptions) {
    this.shapes = options.shapes;
    this.executor = options.executor as AgentExecutor;
    this.store = options.store;
    this.keepsInterimTasks = options.store.tasks.keepsInterimTasks === true;
    this.patchesInterimTasks = !this.keepsInterimTasks && options.store.tasks.storesTaskPatches === true;
    this.keepsWriteIds = options.store.tasks.keepsWriteIds === true;
    this.taskTexts = this.keepsInterimTasks || this.patchesInterimTasks ? undefined : new TaskTexts();
    this.pushSender = options.pushSender;
    this.logger = options.logger;
    this.card = options.card;
    for (const warning of modeWarnings(this.card)) this.logger.warn?.(`a2a: ${warning}`);
    this.instanceId = options.instanceId ?? `instance-${newId()}`;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.turnWaitMs = options.turnWaitMs ?? 30_000;
    this.ownerOf = options.owner ?? defaultOwner;
    this.leaseWatch = new LeaseWatch({
      leases: this.store.leases,
      owner: this.instanceId,
      ttlMs: this.leaseMs,
      onExpired: (taskId, previousOwner) => this.takeOver(taskId, previousOwner),
      onLost: (taskId) => this.lost(taskId),
      onError: (error) => this.logger.warn?.("a2a: execution lease upkeep failed (retried)", error),
    });
    this.leaseWatch.start();
    this.shutdown.signal.addEventListener("abort", () => {
      for (const end of [...this.followers]) end();
    }, { once: true });
    const sender = this.pushSender;
    if (sender && this.capability("pushNotifications")) {
      this.outbox = new OutboxWorker({
        outbox: this.store.outbox,
        owner: this.instanceId,
        maxAttempts: 3,
        deliver: async (entry) => {
          const result = await sender.send(entry.target as unknown as PushTarget, entry.payload, this.shutdown.signal);
          if (result.ok) return { delivered: true };
          // A refused target (SSRF guard) or a 4xx will not improve; the sender has already retried the rest.
          const permanent = result.attempts === 0 || (result.status !== undefined && result.status < 500 && result.status !== 429);
          return { delivered: false, permanent, reason: result.error };
        },
        onError: (error) => this.logger.warn?.(`a2a: push notification: ${error instanceof Error ? error.message : String(error)}`),
      });
      this.outbox.start();
    }
    this.pushPayload = options.pushPayload;
  }

  /** Aborted when the server closes. */
  get closing(): AbortSignal {
    return this.shutdown.signal;
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
    this.leaseWatch.stop();
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

  async send(method: string, params: JsonObject, principal: unknown, extensions: readonly string[] = []): Promise<unknown> {
    const request = this.shapes.sendParams(params);
    const execution = await this.startExecution(method, request, principal, false, undefined, extensions);
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
  async stream(role: MethodRole, method: string, params: JsonObject, principal: unknown, extensions: readonly string[] = []): Promise<AsyncIterable<unknown>> {
    const request = this.shapes.sendParams(params);
    let channel: EventChannel<unknown> | undefined;
    await this.startExecution(method, request, principal, true, (execution, after) => {
      const events = (channel = this.follow(role, execution.taskId, after, { skipTurnMarks: true }));
      execution.onReply = (message) => {
        events.push(this.shapes.wrap(role, message));
        events.end();
      };
      execution.onError = (error) => events.fail(error);
    }, extensions);
    return channel ?? new EventChannel<unknown>();
  }

  /**
   * Joins a task's events: its current state first (0.2+: the Task), then its updates, open until the task
   * reaches a terminal state (1.0.1 §3.1.6 "The stream MUST terminate when the task reaches a terminal
   * state"): an interrupted task (input-required, auth-required) is followed through the turns that answer
   * it, and the last event carries the terminal state. With `lastEventId` (a reconnect's Last-Event-ID),
   * the events after that one instead, with no snapshot.
   */
  async resubscribe(role: MethodRole, params: JsonObject, principal: unknown, lastEventId?: number): Promise<AsyncIterable<unknown>> {
    const taskId = this.shapes.paramsTaskId("resubscribe", params);
    if (lastEventId !== undefined) {
      const task = await this.requireTask(taskId, principal);
      const events = await this.store.events.read(task["id"] as string, lastEventId, 1);
      if (events.length === 0 && isObject(task["status"]) && this.shapes.isTerminal(task["status"]["state"])) {
        const channel = new EventChannel<unknown>();
        channel.end();
        return channel;
      }
      return this.follow(role, task["id"] as string, lastEventId, { skipTurnMarks: true, untilTerminal: true });
    }
    // The task and the log position it holds, read together (`logSeq`): the subscription starts right after
    // the task's last event, none twice, none missed. A store without it: the log's end, then the task again,
    // so that an event committed in between is in both (never in neither).
    let loaded = await this.requireVersioned(taskId, principal);
    let position = loaded.logSeq;
    if (position === undefined) {
      position = await this.logEnd(loaded.task["id"] as string);
      loaded = await this.requireVersioned(taskId, principal);
    }
    const task = loaded.task;
    const id = task["id"] as string;
    if (isObject(task["status"]) && this.shapes.isTerminal(task["status"]["state"])) {
      // Nothing more will happen to a finished task (1.0 §3.1.6).
      throw new A2AError(this.code("UnsupportedOperation", JSON_RPC_ERROR.invalidParams), `Task ${id} is ${String(task["status"]["state"])}: there is nothing to subscribe to`, { taskId: id });
    }
    const state = isObject(task["status"]) ? task["status"]["state"] : undefined;
    // The current state first: the Task (0.2+); 0.1.0 streams only updates, so an interrupted task's status as one
    // (not final: the stream goes on through the turns that answer it).
    const first = this.streamsTasks()
      ? task
      : this.shapes.isInterrupted(state)
        ? this.shapes.statusEvent({ taskId: id, contextId: contextOf(task, this.shapes), status: task["status"] as JsonObject, final: false })
        : undefined;
    return this.follow(role, id, position, { skipTurnMarks: true, untilTerminal: true, ...(first !== undefined ? { first: withEventId(this.shapes.wrap(role, first), position) } : {}) });
  }

  /** The sequence of the last event of a task's log (0: none). */
  private async logEnd(taskId: string): Promise<number> {
    if (this.store.events.end) return this.store.events.end(taskId);
    let after = 0;
    for (;;) {
      const batch = await this.store.events.read(taskId, after, 1000);
      if (batch.length === 0) return after;
      after = batch[batch.length - 1]?.seq ?? after;
      if (batch.length < 1000) return after;
    }
  }

  /**
   * A channel of a task's log events after `after`, wrapped as the role's results, ending after a final
   * event (a turn's stream) or, with `untilTerminal` (a subscription), after a terminal state only (an
   * interrupted state ends a turn, not the subscription: its 0.x event is forwarded with `final: false`),
   * or at shutdown.
   */
  private follow(role: MethodRole, taskId: string, after: number, options: { skipTurnMarks: boolean; untilTerminal?: boolean; first?: unknown }): EventChannel<unknown> {
    let subscription: EventSubscription | undefined;
    const onShutdown = () => channel.end();
    const channel = new EventChannel<unknown>(() => {
      subscription?.close();
      this.bus.remove(taskId);
      this.followers.delete(onShutdown);
    });
    if (!this.shutdown.signal.aborted) this.followers.add(onShutdown);
    this.bus.add(taskId);
    if (options.first !== undefined) channel.push(options.first);
    subscription = this.store.events.subscribe(
      taskId,
      (logged) => {
        if (isObject(logged.event) && logged.event[TURN_MARK] !== undefined) {
          if (!options.skipTurnMarks) channel.push(withEventId(this.shapes.wrap(role, logged.event), logged.seq));
          return;
        }
        if (!this.streamsTasks() && this.shapes.classify(logged.event) === "task") return;
        if (options.untilTerminal) {
          const event = logged.event;
          const terminal = isObject(event) && isObject(event["status"]) && this.shapes.isTerminal(event["status"]["state"]);
          const forwarded = !terminal && isObject(event) && event["final"] === true ? { ...event, final: false } : event;
          channel.push(withEventId(this.shapes.wrap(role, forwarded), logged.seq));
          if (terminal) channel.end();
          return;
        }
        // The logged event's own text (the in-memory log's live delivery) goes with it, and with its wrapper (1.0).
        channel.push(withEventId(this.shapes.wrap(role, withJsonText(logged.event, logged.text)), logged.seq));
        if (logged.final) channel.end();
      },
      { after, onError: (error) => this.logger.warn?.(`a2a: following the events of task ${taskId} failed (retrying): ${error.message}`) },
    );
    subscription.ready.catch(() => undefined);
    if (channel.isEnded) subscription.close();
    return channel;
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
    const execution = this.newExecution(taskId, contextOf(task, this.shapes), task, loaded.version);
    const holder = await this.store.leases.holder(taskId);
    if (holder) execution.releaseFor = holder.owner;
    const publisher = this.publisher(execution);
    const context = this.context(execution, "cancel", lastUserMessage(task), task, false, principal);
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
      const fresh = await this.retryUnavailable(() => this.store.tasks.load(taskId));
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

  // ------------------------------------------------------------------------------------------------
  // Push notification configs

  pushEnabled(): void {
    if (!this.capability("pushNotifications")) {
      throw new A2AError(this.code("PushNotificationNotSupported", JSON_RPC_ERROR.invalidRequest), "Push Notification is not supported");
    }
  }

  async checkWebhook(config: JsonObject): Promise<void> {
    if (typeof config["url"] !== "string") throw new A2AError(JSON_RPC_ERROR.invalidParams, "Invalid params", { reason: "the push notification config needs a url" });
    try {
      await (this.pushSender ?? new PushSender()).checkUrl(config["url"]);
    } catch (error) {
      if (error instanceof UnsafeWebhookError) {
        // The caller learns why in general terms; the resolved address and the allow-list hint go to the log.
        this.logger.warn?.(`a2a: refused a push notification webhook: ${error.message}`);
        throw new A2AError(JSON_RPC_ERROR.invalidParams, "Invalid params: webhook URL refused", { url: error.url, reason: error.publicMessage });
      }
      throw error;
    }
  }

  /**
   * Refuses a message with a part whose media type the agent does not accept (its card's defaultInputModes
   * or a skill's inputModes) with ContentTypeNotSupportedError; a card naming no input modes accepts any.
   */
  private inputModes: { accepted: string[] | undefined; verdicts: Map<string, boolean> } | undefined;

  private checkInputModes(message: JsonObject): void {
    // Only where the version has the error (0.2+; 0.1.0's table has none, so there the executor decides).
    const code = this.shapes.profile.errorCodes["ContentTypeNotSupported"];
    // The card's input modes are read once, like the rest of the card (its interfaces, its served copy).
    this.inputModes ??= { accepted: acceptedInputModes(this.card), verdicts: new Map() };
    const { accepted, verdicts } = this.inputModes;
    if (code === undefined || accepted === undefined || !Array.isArray(message["parts"])) return;
    for (const [index, part] of message["parts"].entries()) {
      if (!isObject(part)) continue;
      const type = partMediaType(part, this.shapes.profile.discriminatorField);
      if (type === undefined) continue;
      let ok = verdicts.get(type);
      if (ok === undefined) {
        ok = acceptsMediaType(accepted, type);
        // A few media types come again and again (text/plain); the cache stays small whatever clients send.
        if (verdicts.size < 64) verdicts.set(type, ok);
      }
      if (ok) continue;
      throw new A2AError(code, `Part ${index} is ${type}, which this agent does not accept (it accepts ${accepted.join(", ")})`, {
        pointer: `/params/message/parts/${index}`,
        mediaType: type,
        accepted,
      });
    }
  }

  /** Whether the version's push configs carry an id (0.2.1+; one config per task before). */
  get pushConfigsHaveIds(): boolean {
    return this.shapes.has("PushNotificationConfig", "id") || (this.shapes.flatPushConfigs && this.shapes.has("TaskPushNotificationConfig", "id"));
  }

  /** The config with its id: the one given, else the task id (as the 0.3 SDKs do, so a get naming only the task finds it). */
  withConfigId(config: JsonObject, taskId: string): JsonObject {
    if (!this.pushConfigsHaveIds) {
      const { id: _ignored, ...rest } = config;
      return rest;
    }
    return typeof config["id"] === "string" && config["id"] !== "" ? config : { ...config, id: taskId };
  }

  // ------------------------------------------------------------------------------------------------
  // Executions

  newExecution(taskId: string, contextId: string, task: JsonObject | undefined, version = 0): Execution {
    let settle: () => void = () => undefined;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    const execution: Execution = {
      taskId,
      contextId,
      task,
      taskText: undefined,
      artifactTexts: undefined,
      streamedParts: undefined,
      version,
      leased: false,
      releaseFor: undefined,
      owner: undefined,
      error: undefined,
      published: false,
      pendingPushConfig: undefined,
      reply: undefined,
      onReply: undefined,
      onError: undefined,
      settled,
      settle: () => {
        execution.done = true;
        settle();
      },
      done: false,
      stopped: undefined,
      finishedElsewhere: undefined,
      abort: new ExecutionAbort(),
    };
    return execution;
  }

  /**
   * Starts (or continues) the task a send/stream request names and runs the executor in the
   * background. `beforeRun` sees the execution and the log sequence its events follow (streams subscribe there).
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
  startExecution(
    method: string,
    request: ReturnType<ProtocolShapes["sendParams"]>,
    principal: unknown,
    streaming: boolean,
    beforeRun?: (execution: Execution, after: number) => void,
    extensions: readonly string[] = [],
  ): Promise<Execution> {
    try {
      if (request.undeclaredId !== undefined) {
        // 1.0.1 §3.4.2: task ids are server-generated; 0.2+ send params have no `id` (0.1.0's tasks/send had one).
        throw invalidField("/params/id", "no id: a new task's id is generated by the server; continue a task with message.taskId", request.undeclaredId);
      }
      this.checkInputModes(request.message);
    } catch (error) {
      return Promise.reject(error);
    }
    if (request.taskId === undefined) return this.startNewTask(method, request, principal, streaming, extensions, beforeRun);
    return this.continueTask(method, request, principal, streaming, extensions, beforeRun);
  }

  /** A turn of the task a send names: queued behind this instance's turns of it, then started (`startTurn`). */
  private async continueTask(
    method: string,
    request: ReturnType<ProtocolShapes["sendParams"]>,
    principal: unknown,
    streaming: boolean,
    extensions: readonly string[],
    beforeRun?: (execution: Execution, after: number) => void,
  ): Promise<Execution> {
    const taskKey = request.taskId as string;
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
      const execution = await this.startTurn(method, request, principal, streaming, extensions, deadline, beforeRun);
      if (!execution) return this.startNewTask(method, request, principal, streaming, extensions, beforeRun, leave);
      void execution.settled.then(leave);
      return execution;
    } catch (error) {
      leave();
      throw error;
    }
  }

  /** A follow-up turn of an existing task (undefined: the version lets the client name a new task's id and it does not exist). */
  private async startTurn(
    method: string,
    request: ReturnType<ProtocolShapes["sendParams"]>,
    principal: unknown,
    streaming: boolean,
    extensions: readonly string[],
    deadline: number,
    beforeRun?: (execution: Execution, after: number) => void,
  ): Promise<Execution | undefined> {
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
      const writeId = this.keepsWriteIds ? newId() : undefined;
      try {
        if (await this.abandonedTurn(taskId, existing)) throw new ExecutionLeaseHeldError(taskId, "(expired)");
        ({ version, sequences } = await this.store.tasks.commit({
          task,
          expectedVersion: loaded.version,
          events: [{ event: { [TURN_MARK]: history.length + 1 }, final: false }],
          lease: { acquire: this.instanceId, ttlMs: this.leaseMs },
          ...(writeId !== undefined ? { writeId } : {}),
        }));
      } catch (error) {
        const made = isStoreError(error, StoreUnavailableError) && writeId !== undefined ? await this.retryUnavailable(() => this.store.tasks.load(taskId)) : undefined;
        if (made !== undefined && made.lastWriteId === writeId) {
          // The turn's write was made (its answer was lost): the turn starts, its message appended once.
          version = made.version;
          sequences = [made.logSeq ?? (await this.logEnd(taskId))];
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
      const execution = this.newExecution(taskId, contextId, task, version);
      execution.leased = true;
      this.leaseWatch.hold(taskId);
      this.executions.set(taskId, execution);
      if (request.pushConfig) {
        // Retried on its own; if it still fails, the execution keeps it (notified, saved at its next write).
        execution.pendingPushConfig = this.withConfigId(request.pushConfig, taskId);
        await this.savePushConfig(execution);
      }
      beforeRun?.(execution, sequences[sequences.length - 1] ?? 0);
      // A non-blocking send answers with the task at once: what the executor raises later fails the task.
      if (!request.blocking) execution.published = true;
      this.run(execution, method, message, existing, streaming, principal, extensions);
      return execution;
    }
  }

  /**
   * Whether a task's last turn was abandoned (its instance died: its lease expired) and waits for the
   * take-over that fails or resumes it: a new turn must not start on top of it. Asked only of a task
   * whose state says a turn may be under way (working, submitted, or waiting with the user's message
   * unanswered); a waiting task's lease is released with the turn that made it wait.
   */
  private async abandonedTurn(taskId: string, task: JsonObject): Promise<boolean> {
    const state = isObject(task["status"]) ? task["status"]["state"] : undefined;
    if (this.shapes.isInterrupted(state) && !endsWithUserMessage(task)) return false;
    const holder = await this.store.leases.holder(taskId);
    return holder !== undefined && holder.expiresAt <= Date.now();
  }

  private async startNewTask(
    method: string,
    request: ReturnType<ProtocolShapes["sendParams"]>,
    principal: unknown,
    streaming: boolean,
    extensions: readonly string[],
    beforeRun?: (execution: Execution, after: number) => void,
    leave?: () => void,
  ): Promise<Execution> {
    const taskId = request.taskId ?? newId();
    const contextId = request.contextId ?? newId();
    const message = this.shapes.stamp(request.message, taskId, contextId);
    if (request.pushConfig) {
      this.pushEnabled();
      await this.checkWebhook(request.pushConfig);
    }
    const execution = this.newExecution(taskId, contextId, undefined);
    execution.owner = this.ownerOf(principal);
    if (request.pushConfig) execution.pendingPushConfig = this.withConfigId(request.pushConfig, taskId);
    this.executions.set(taskId, execution);
    if (leave) void execution.settled.then(leave);
    beforeRun?.(execution, 0);
    if (!request.blocking) await this.materialize(execution, message);
    this.run(execution, method, message, undefined, streaming, principal, extensions);
    return execution;
  }

  /** Runs the executor for a turn, in the background. */
  private run(
    execution: Execution,
    method: string,
    message: JsonObject,
    existing: JsonObject | undefined,
    streaming: boolean,
    principal: unknown,
    extensions: readonly string[] = [],
  ): void {
    const context = this.context(execution, method, message, existing, streaming, principal, extensions);
    // A stream follows the turn: its artifact events' texts are built as they come (else the store serializes
    // the events it keeps, and none when nobody follows the task).
    if (streaming) execution.artifactTexts = new ArtifactEventTexts();
    const publisher = this.publisher(execution, message);
    const taskId = execution.taskId;
    void (async () => {
      try {
        await (this.executor as AgentExecutor).execute(context, publisher);
        if (!execution.done) {
          // The executor returned without ending the turn: the task is complete.
          if (execution.task || !execution.reply) publisher.completed();
        }
      } catch (error) {
        if (!execution.done) {
          if (error instanceof A2AError && !execution.published) {
            // An A2A error raised before the first event is the call's error; nothing of the turn was recorded.
            execution.done = true;
            execution.error = error;
            execution.onError?.(error);
            await this.releaseLease(execution);
          } else if (error instanceof A2AError) {
            // Raised once the turn has begun: the task fails with the error's message.
            publisher.failed(error.message);
          } else {
            this.logger.error(`a2a: the agent executor failed on task ${taskId}`, error);
            publisher.failed("The agent failed to process the message.");
          }
        }
      } finally {
        await publisher.drain();
        this.endExecution(execution);
      }
    })();
  }

  /**
   * Gives back the lease a turn took without an update to release it with (its executor raised the call's
   * error before the first event): the task stays as it was, waiting for the client, not for a takeover.
   */
  private async releaseLease(execution: Execution): Promise<void> {
    if (!execution.leased) return;
    execution.leased = false;
    this.leaseWatch.drop(execution.taskId);
    try {
      await this.retryUnavailable(() => this.store.leases.release(execution.taskId, this.instanceId));
    } catch (error) {
      // It expires by itself; an instance then takes the task over (its history ends with the refused message: failed).
      this.logger.warn?.(`a2a: releasing the execution lease of task ${execution.taskId} failed`, error);
    }
  }

  private endExecution(execution: Execution): void {
    if (this.executions.get(execution.taskId) === execution) this.executions.delete(execution.taskId);
    execution.settle();
  }

  context(
    execution: Execution,
    method: string,
    message: JsonObject,
    task: JsonObject | undefined,
    streaming: boolean,
    principal: unknown,
    extensions: readonly string[] = [],
  ): RequestContext {
    // The text parts joined by newlines, in one pass (no filtered and mapped copies of the parts).
    let text = "";
    let first = true;
    for (const part of Array.isArray(message["parts"]) ? (message["parts"] as unknown[]) : []) {
      if (!isObject(part) || typeof part["text"] !== "string") continue;
      text = first ? part["text"] : `${text}\n${part["text"]}`;
      first = false;
    }
    return new TurnContext(execution.abort, {
      taskId: execution.taskId,
      contextId: execution.contextId,
      message,
      task,
      method,
      streaming,
      principal,
      text,
      extensions,
    });
  }

  /** Creates the task of an execution (state submitted) the first time it is needed. */
  async materialize(execution: Execution, message?: JsonObject): Promise<JsonObject> {
    execution.published = true;
    if (execution.task) return execution.task;
    await this.commitUpdates(execution, [], message);
    return execution.task ?? this.newTask(execution, message);
  }

  private newTask(execution: Execution, message: JsonObject | undefined): JsonObject {
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
  private async commitUpdates(execution: Execution, batch: readonly TaskUpdate[], userMessage?: JsonObject): Promise<void> {
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
        if (execution.version > 0 && execution.pendingPushConfig) await this.savePushConfig(execution);
        // The push configs first (read once: a retry after a lost race goes straight back to the store):
        // from the updates to the store's write nothing waits, so that nobody sees the turn's own parts
        // arrays (appended to in place) holding chunks of a write not made yet.
        configs ??= batch.length > 0 && this.outbox ? await this.pushConfigsOf(execution) : [];
        attempt = this.prepareWrite(execution, batch, configs, userMessage, writeId);
        version = (await this.store.tasks.commit(attempt.write)).version;
        break;
      } catch (error) {
        const conflict = isStoreError(error, TaskVersionConflictError) && ++conflicts <= maxConflicts;
        const fresh = conflict ? await this.retryUnavailable(() => this.store.tasks.load(execution.taskId)) : undefined;
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
          if (execution.leased && (await this.retryUnavailable(() => this.store.leases.holder(execution.taskId)))?.owner !== this.instanceId) {
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
        if (isStoreError(error, StoreUnavailableError) && ++unavailable <= MAX_UNAVAILABLE && !this.shutdown.signal.aborted) {
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

  /** A store call retried while the engine is unavailable (the pauses of a commit's retries); other errors at once. */
  private async retryUnavailable<T>(call: () => Promise<T>): Promise<T> {
    for (let tries = 1; ; tries++) {
      try {
        return await call();
      } catch (error) {
        if (!isStoreError(error, StoreUnavailableError) || tries > MAX_UNAVAILABLE || this.shutdown.signal.aborted) throw error;
        await sleep(100 * 2 ** (tries - 1));
      }
    }
  }

  /**
   * Saves the push config a request carried, once its task exists: retried while the engine is
   * unavailable; when it still fails, the execution keeps it (its notifications still go to it) and
   * tries again before its next write.
   */
  private async savePushConfig(execution: Execution): Promise<void> {
    const config = execution.pendingPushConfig;
    if (!config) return;
    try {
      await this.retryUnavailable(() => this.store.pushConfigs.set(execution.taskId, config));
      if (execution.pendingPushConfig === config) execution.pendingPushConfig = undefined;
    } catch (error) {
      this.logger.error(`a2a: saving the push notification config of task ${execution.taskId} failed (tried again at its next update)`, error);
    }
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
    const pushes = configs.length > 0 ? this.pushesOf(execution, task, configs, lengths) : [];
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
    if (creating && execution.pendingPushConfig) return this.savePushConfig(execution);
    return undefined;
  }

  /** Ends an execution whose task was finished elsewhere (a cancel on another instance, a lost lease, a failed write). */
  private stop(execution: Execution, reason: string): void {
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
    this.endExecution(execution);
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
    const execution = this.newExecution(taskId, contextOf(loaded.task, this.shapes), loaded.task, loaded.version);
    execution.leased = true;
    if (this.executor.resumable === true) {
      // Run the interrupted turn again here, under the lease this instance just took.
      this.leaseWatch.hold(taskId);
      this.executions.set(taskId, execution);
      this.run(execution, "resume", lastUserMessage(loaded.task), loaded.task, false, undefined);
      this.logger.warn?.(`a2a: task ${taskId} resumed: its instance ${previousOwner} stopped (lease expired)`);
      return;
    }
    const publisher = this.publisher(execution);
    publisher.failed(`The instance running this task (${previousOwner}) stopped before the task finished (its execution lease expired); the task was marked failed by ${this.instanceId}.`);
    await publisher.drain();
    if (execution.error !== undefined) throw execution.error;
    this.logger.warn?.(`a2a: task ${taskId} failed: its instance ${previousOwner} stopped (lease expired)`);
  }

  /** The push configs of an execution's task (none without an outbox: push notifications are not sent). */
  private async pushConfigsOf(execution: Execution): Promise<readonly JsonObject[]> {
    if (!this.outbox) return [];
    const pending = execution.pendingPushConfig;
    if (execution.version === 0) return pending ? [pending] : [];
    const saved = await this.store.pushConfigs.list(execution.taskId);
    // A config whose save failed (kept by the execution until it is saved) is notified all the same.
    return pending && !saved.some((c) => pushConfigId(execution.taskId, c) === pushConfigId(execution.taskId, pending)) ? [...saved, pending] : saved;
  }

  /** The push notifications of a task's new state: one per config. */
  private pushesOf(execution: Execution, written: JsonObject, configs: readonly JsonObject[], lengths: ReadonlyMap<unknown[], number> | undefined): OutboxMessage[] {
    // The outbox keeps the payload until it is delivered: a task whose parts the turn goes on appending to
    // is sent as a copy of what this write holds.
    const task = asWritten(written, lengths, execution.taskId);
    // 1.0 posts a StreamResponse (`{ task }`) as application/a2a+json; 0.x the bare task; a config the
    // compat hook claims (registered by a client of the other version) gets that version's payload.
    const ownBody = this.shapes.wrap("stream", task);
    const out: OutboxMessage[] = [];
    for (const config of configs) {
      if (typeof config["url"] !== "string") continue;
      const custom = this.pushPayload?.(config, task);
      const body = custom ? custom.body : ownBody;
      const contentType = custom ? custom.contentType : ownBody !== task ? "application/a2a+json" : undefined;
      const target: JsonObject = {
        url: config["url"],
        ...(typeof config["token"] === "string" ? { token: config["token"] } : {}),
        ...(isObject(config["authentication"])
          ? {
              authentication: {
                schemes: Array.isArray(config["authentication"]["schemes"])
                  ? config["authentication"]["schemes"].filter((s): s is string => typeof s === "string")
                  : typeof config["authentication"]["scheme"] === "string"
                    ? [config["authentication"]["scheme"]]
                    : [],
                ...(typeof config["authentication"]["credentials"] === "string" ? { credentials: config["authentication"]["credentials"] } : {}),
              },
            }
          : {}),
        ...(contentType !== undefined ? { contentType } : {}),
      };
      out.push({ taskId: execution.taskId, target, payload: body as JsonObject });
    }
    return out;
  }

  /**
   * The publisher of an execution, `drain()`, which resolves when its updates are all recorded (or given
   * up), and `failure()`: why one of them could not be recorded (the engine failed), if one could not.
   */
  publisher(execution: Execution, userMessage?: JsonObject): EventPublisher & { drain(): Promise<void>; failure(): unknown } {
    const shapes = this.shapes;
    const asMessage = (content: JsonObject | string): JsonObject =>
      typeof content === "string"
        ? shapes.message({ role: "agent", parts: [shapes.textPart(content)], taskId: execution.taskId, contextId: execution.contextId })
        : shapes.stamp(content, execution.taskId, execution.contextId);
    // Updates are applied in order; those queued while a commit is in flight go together in the next one.
    let pending: TaskUpdate[] = [];
    let chain: Promise<void> = Promise.resolve();
    let flushing = false;
    let failure: unknown;
    const flush = async () => {
      flushing = false;
      if (pending.length === 0) return;
      const batch = pending;
      pending = [];
      await this.commitUpdates(execution, batch, userMessage);
    };
    const enqueue = (update: TaskUpdate) => {
      pending.push(update);
      if (flushing) return;
      flushing = true;
      chain = chain.then(flush).catch((error: unknown) => {
        this.logger.error("a2a: failed to record a task update", error);
        // The task stays at its last committed state; its lease expires and it is failed then.
        execution.error = error;
        failure = error;
        execution.onError?.(error);
        this.stop(execution, "an earlier update could not be recorded");
      });
    };
    const finish = () => {
      void chain.then(() => this.endExecution(execution));
    };
    const status = (state: string, content?: JsonObject | string) => {
      shapes.stateValue(state); // a state the version lacks throws here, at the executor's call
      if (execution.done) return;
      execution.published = true;
      const final = shapes.isTerminal(state) || shapes.isInterrupted(state);
      if (final) execution.done = true;
      const message = content === undefined ? undefined : asMessage(content);
      enqueue({
        final,
        apply: (task) => {
          const history = Array.isArray(task["history"]) ? task["history"] : [];
          const updated: JsonObject = { ...task, status: shapes.status(state, message) };
          if (message && shapes.has("Task", "history")) updated["history"] = [...history, message];
          const event = shapes.statusEvent({ taskId: execution.taskId, contextId: execution.contextId, status: updated["status"] as JsonObject, final });
          return { task: updated, events: [{ event, final }] };
        },
      });
      if (final) finish();
    };
    const publisher: EventPublisher & { drain(): Promise<void>; failure(): unknown } = {
      failure: () => failure,
      drain: async () => {
        // Work queued while draining is drained too.
        let seen: Promise<void> | undefined;
        while (seen !== chain) {
          seen = chain;
          await chain;
        }
      },
      reply: (content) => {
        if (execution.done) return;
        if (execution.task || pending.length > 0 || !this.streamsTasks()) {
          // A task exists already (or the version has no direct replies): the reply completes it.
          status("completed", asMessage(content));
          return;
        }
        execution.done = true;
        execution.published = true;
        // No task will exist: the reply names only its context (a taskId would point at nothing). Built
        // without one rather than deleted after: a deleted property leaves the object slow to serialize.
        const message =
          typeof content === "string"
            ? shapes.message({ role: "agent", parts: [shapes.textPart(content)], contextId: execution.contextId })
            : shapes.stamp(withoutTaskId(content), undefined, execution.contextId);
        execution.reply = message;
        execution.onReply?.(message);
        finish();
      },
      status,
      working: (m) => status("working", m),
      completed: (m) => status("completed", m),
      failed: (m) => status("failed", m),
      canceled: (m) => status("canceled", m),
      rejected: (m) => status(shapes.hasState("rejected") ? "rejected" : "failed", m),
      inputRequired: (m) => status("input-required", m),
      artifact: (artifact, options = {}) => {
        if (execution.done) return;
        execution.published = true;
        enqueue({
          final: false,
          artifact: true,
          apply: (task, made) => {
            const current = task["artifacts"];
            let artifacts: JsonObject[];
            if (Array.isArray(current) && made.has(current)) artifacts = current as JsonObject[];
            else made.add((artifacts = Array.isArray(current) ? [...(current as JsonObject[])] : []));
            const event = shapes.artifactEvent({
              taskId: execution.taskId,
              contextId: execution.contextId,
              artifact: artifact as JsonObject,
              append: options.append,
              lastChunk: options.lastChunk,
              index: artifacts.length,
            });
            // Its JSON text, for its log and its subscribers: the ids before the artifact are serialized once a turn.
            if (execution.artifactTexts) withJsonText(event, execution.artifactTexts.of(event, options.append, options.lastChunk));
            const added = event["artifact"] as JsonObject;
            const key = typeof added["artifactId"] === "string" ? "artifactId" : "name";
            const at = options.append ? artifacts.findIndex((a) => a[key] !== undefined && a[key] === added[key]) : -1;
            if (at >= 0) {
              const before = artifacts[at] as JsonObject;
              const more = Array.isArray(added["parts"]) ? added["parts"] : [];
              if (made.has(before)) {
                // Made by an earlier chunk of this batch, with its own parts array: appended in place.
                for (const part of more) (before["parts"] as unknown[]).push(part);
              } else {
                const from: unknown[] = Array.isArray(before["parts"]) ? before["parts"] : [];
                if (execution.streamedParts?.has(from)) {
                  // This turn's own parts array, committed before: appended in place (each interim write
                  // is read at its own length), not copied at every write.
                  for (const part of more) from.push(part);
                } else {
                  const parts = [...from, ...more];
                  this.taskTexts?.copied(parts, from);
                  // Its length at a commit is recorded then (commitUpdates); 0 until one succeeds.
                  if (this.keepsInterimTasks) (execution.streamedParts ??= new Map()).set(parts, 0);
                  const copy: JsonObject = { ...before, parts };
                  made.add(copy);
                  artifacts[at] = copy;
                }
              }
            } else {
              artifacts.push(stripChunkFlags(added));
            }
            // The task copied once a batch: the chunks after the first update the copy this batch made.
            if (made.has(task)) {
              task["artifacts"] = artifacts;
              return { task, events: [{ event, final: false }] };
            }
            const updated: JsonObject = { ...task, artifacts };
            made.add(updated);
            return { task: updated, events: [{ event, final: false }] };
          },
        });
      },
      agentMessage: (content) =>
        shapes.message({
          role: "agent",
          parts: typeof content === "string" ? [shapes.textPart(content)] : (content as JsonObject[]),
          taskId: execution.taskId,
          contextId: execution.contextId,
        }),
      textPart: (text) => shapes.textPart(text),
      dataPart: (data) => shapes.dataPart(data),
    };
    return publisher;
  }
}

/** The current lengths of those of `streamed` that are the parts of an artifact of `task`. */
function partLengths(task: JsonObject, streamed: ReadonlyMap<unknown[], number>): Map<unknown[], number> {
  const lengths = new Map<unknown[], number>();
  const artifacts = task["artifacts"];
  if (!Array.isArray(artifacts)) return lengths;
  for (const artifact of artifacts) {
    const parts = isObject(artifact) ? artifact["parts"] : undefined;
    if (Array.isArray(parts) && streamed.has(parts)) lengths.set(parts, parts.length);
  }
  return lengths;
}

/**
 * `task` as a write held it, for a holder that keeps it past the next write (an answer written later, a
 * queued push): a copy when the turn appends to its parts in place (`lengths`), else the task itself.
 */
function asWritten(task: JsonObject, lengths: ReadonlyMap<unknown[], number> | undefined, taskId: string): JsonObject {
  return lengths !== undefined && lengths.size > 0 ? (JSON.parse(textAtLengths(task, lengths, `task "${taskId}"`)) as JsonObject) : task;
}

/** The JSON text of `task` with each array of `lengths` cut to its length there: what a write held. */
function textAtLengths(task: JsonObject, lengths: ReadonlyMap<unknown[], number>, what: string): string {
  return storableJson(task, what, (_key, value) => {
    const length = Array.isArray(value) ? lengths.get(value) : undefined;
    return length !== undefined && length < (value as unknown[]).length ? (value as unknown[]).slice(0, length) : value;
  });
}

/** Counts the open stream subscriptions of each task (what `TaskEventBus.listenerCount` counted). */
export class SubscriptionCounter {
  private readonly counts = new Map<string, number>();

  add(taskId: string): void {
    this.counts.set(taskId, (this.counts.get(taskId) ?? 0) + 1);
  }

  remove(taskId: string): void {
    const n = (this.counts.get(taskId) ?? 0) - 1;
    if (n > 0) this.counts.set(taskId, n);
    else this.counts.delete(taskId);
  }

  /** How many streams follow a task (all tasks when no id). */
  listenerCount(taskId?: string): number {
    if (taskId !== undefined) return this.counts.get(taskId) ?? 0;
    let n = 0;
    for (const count of this.counts.values()) n += count;
    return n;
  }
}

/** The scope of callers without a principal (unauthenticated agents): one shared scope. */
export const DEFAULT_SCOPE = "";

/**
 * The default owner resolver: a string principal is its own scope; an object principal's `sub`, `id`,
 * `name` or `principal` (the first that is a string); anything else (no authentication) the shared scope.
 */
export function defaultOwner(principal: unknown): string {
  if (typeof principal === "string") return principal;
  if (isObject(principal)) {
    for (const key of ["sub", "id", "name", "principal"]) {
      const value = principal[key];
      if (typeof value === "string" && value !== "") return value;
    }
  }
  return DEFAULT_SCOPE;
}

function stillWorking(taskId: string): A2AError {
  return new A2AError(JSON_RPC_ERROR.invalidParams, `Task ${taskId} is still working on the previous message`, { taskId });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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

function contextOf(task: JsonObject, shapes: ProtocolShapes): string {
  const field = shapes.contextField;
  const value = field ? task[field] : undefined;
  return typeof value === "string" ? value : (task["id"] as string);
}

function lastUserMessage(task: JsonObject): JsonObject {
  const history = Array.isArray(task["history"]) ? (task["history"] as unknown[]) : [];
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i];
    // "user" (0.x) or "ROLE_USER" (1.0).
    if (isObject(m) && (m["role"] === "user" || m["role"] === "ROLE_USER")) return m;
  }
  return { role: "user", parts: [] };
}

/** Whether the task's history ends with a user's message (a turn was started and has not answered it yet). */
function endsWithUserMessage(task: JsonObject): boolean {
  const history = Array.isArray(task["history"]) ? (task["history"] as unknown[]) : [];
  const last = history[history.length - 1];
  return isObject(last) && (last["role"] === "user" || last["role"] === "ROLE_USER");
}

function withoutTaskId(message: JsonObject): JsonObject {
  const { taskId: _taskId, ...rest } = message;
  return rest;
}

/** Whether a task is in a terminal state (nothing may be written on top of it). */
function isTerminalTask(task: JsonObject | undefined, shapes: ProtocolShapes): boolean {
  return task !== undefined && isObject(task["status"]) && shapes.isTerminal(task["status"]["state"]);
}

function stripChunkFlags(artifact: JsonObject): JsonObject {
  const { append: _a, lastChunk: _l, ...rest } = artifact;
  return rest;
}
