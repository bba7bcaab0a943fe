/**
 * The task runtime: one run of the user's AgentExecutor per turn of a task, the EventPublisher that turns
 * its calls into task updates in the version's shape (stored, published on the bus, pushed to webhooks),
 * sends, streams, resubscriptions and cancellation. Transport-free: the A2A service calls it with params
 * already authenticated and validated, and bindings read its streams as async iterables.
 */
import { acceptedInputModes, acceptsMediaType, partMediaType } from "./input-modes.js";
import { A2AError } from "./a2a-error.js";
import { EventChannel } from "./event-channel.js";
import { JSON_RPC_ERROR } from "./jsonrpc.js";
import { isObject, newId, type JsonObject, type MethodRole, type ProtocolShapes } from "./profile.js";
import { PushSender, UnsafeWebhookError } from "./push.js";
import { TaskEventBus, type PushConfigStore, type TaskStore } from "./tasks.js";

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

/** How the executor reports progress; every call becomes a task update in the version's shape. */
export interface EventPublisher<TMessage = JsonObject, TPart = JsonObject, TArtifact = JsonObject> {
  /** Answers with a message and no task (0.2+; in 0.1.0 it completes the task with that message). */
  reply(message: TMessage | string): void;
  /** Sets the task's state; terminal and interrupted states (input-required, auth-required) end the turn. */
  status(state: string, message?: TMessage | string): void;
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

export interface AgentExecutor<TMessage = JsonObject, TTask = JsonObject, TPart = JsonObject, TArtifact = JsonObject> {
  execute(context: RequestContext<TMessage, TTask>, events: EventPublisher<TMessage, TPart, TArtifact>): void | Promise<void>;
  /** Optional: how to cancel; by default the task is marked canceled and the execution's signal aborted. */
  cancel?(context: RequestContext<TMessage, TTask>, events: EventPublisher<TMessage, TPart, TArtifact>): void | Promise<void>;
}

export interface RuntimeLogger {
  error(message: string, detail?: unknown): void;
  warn?(message: string, detail?: unknown): void;
}

/** Executions: one run of the executor for one task. */
interface Execution {
  taskId: string;
  contextId: string;
  /** The task, once the executor published something (or the request needed one at once). */
  task: JsonObject | undefined;
  /** Set when the executor answered with a message and no task. */
  reply: JsonObject | undefined;
  /** Resolves when the turn is over (final state, reply, or the executor returned). */
  settled: Promise<void>;
  settle(): void;
  done: boolean;
  abort: AbortController;
  artifactCount: number;
  /** Whether the turn has produced an event yet (the task created, a status, an artifact or a reply). */
  published: boolean;
  /** An A2A error the executor raised before the first event: the error of the call that started the turn. */
  error?: A2AError;
  /** Where a stream hears of that error (it fails the stream before its first event). */
  onEarlyError?: (error: A2AError) => void;
}

export interface TaskRuntimeOptions {
  shapes: ProtocolShapes;
  executor: AgentExecutor<never, never, never, never> | AgentExecutor;
  tasks: TaskStore;
  pushConfigs: PushConfigStore;
  /** Undefined when push notifications are not sent (configs are still kept). */
  pushSender: PushSender | undefined;
  logger: RuntimeLogger;
  /** The card's capabilities decide streaming and push notifications. */
  card: JsonObject;
}

export class TaskRuntime {
  readonly bus = new TaskEventBus();
  readonly shapes: ProtocolShapes;
  readonly tasks: TaskStore;
  readonly pushConfigs: PushConfigStore;
  private readonly executor: AgentExecutor;
  private readonly pushSender: PushSender | undefined;
  private readonly logger: RuntimeLogger;
  private readonly card: JsonObject;
  private readonly executions = new Map<string, Execution>();
  private readonly pendingPushes = new Set<Promise<unknown>>();
  private readonly shutdown = new AbortController();

  constructor(options: TaskRuntimeOptions) {
    this.shapes = options.shapes;
    this.executor = options.executor as AgentExecutor;
    this.tasks = options.tasks;
    this.pushConfigs = options.pushConfigs;
    this.pushSender = options.pushSender;
    this.logger = options.logger;
    this.card = options.card;
  }

  /** Aborted when the server closes. */
  get closing(): AbortSignal {
    return this.shutdown.signal;
  }

  /** Stops executions, waits for pending push notifications. */
  async close(): Promise<void> {
    this.shutdown.abort();
    for (const execution of this.executions.values()) execution.abort.abort();
    await Promise.allSettled([...this.pendingPushes]);
  }

  code(name: string, fallback: number): number {
    return this.shapes.profile.errorCodes[name] ?? fallback;
  }

  capability(name: "streaming" | "pushNotifications"): boolean {
    const capabilities = this.card.capabilities;
    return isObject(capabilities) && capabilities[name] === true;
  }

  /** Whether this version's stream results include Task objects (0.2+) or only update events (0.1.0). */
  streamsTasks(): boolean {
    return this.shapes.profile.streamResults.includes("Task");
  }

  // ------------------------------------------------------------------------------------------------
  // Send, stream, resubscribe, cancel

  async send(method: string, params: JsonObject, principal: unknown, extensions: readonly string[] = []): Promise<unknown> {
    const request = this.shapes.sendParams(params);
    const execution = await this.startExecution(method, request, principal, false, undefined, extensions);
    if (!request.blocking) {
      const task = execution.task ?? (await this.materialize(execution));
      return this.shapes.withHistory(task, request.historyLength);
    }
    await execution.settled;
    if (execution.error) throw execution.error;
    if (execution.reply && !execution.task) return execution.reply;
    const task = (await this.tasks.get(execution.taskId)) ?? execution.task;
    return task ? this.shapes.withHistory(task, request.historyLength) : null;
  }

  /**
   * Starts the execution a streaming send asks for and answers its events (each wrapped as the role's
   * result), ending on the final one. Subscribed before the executor starts, so that no event is missed.
   */
  async stream(role: MethodRole, method: string, params: JsonObject, principal: unknown, extensions: readonly string[] = []): Promise<AsyncIterable<unknown>> {
    const request = this.shapes.sendParams(params);
    let channel: EventChannel<unknown> | undefined;
    let unsubscribe: () => void = () => undefined;
    await this.startExecution(method, request, principal, true, (taskId) => {
      channel = this.channel(() => unsubscribe());
      const events = channel;
      unsubscribe = this.bus.subscribe(taskId, (event, final) => {
        events.push(this.shapes.wrap(role, event));
        if (final) events.end();
      });
      return (error) => events.fail(error);
    }, extensions);
    return channel ?? new EventChannel<unknown>();
  }

  /**
   * Joins a task's events: its current state first (0.2+: the Task), then its updates, open until the task
   * reaches a terminal state (1.0.1 §3.1.6 "The stream MUST terminate when the task reaches a terminal
   * state"): an interrupted task (input-required, auth-required) is followed through the turns that answer
   * it, and the last event carries the terminal state.
   */
  async resubscribe(role: MethodRole, params: JsonObject): Promise<AsyncIterable<unknown>> {
    const task = await this.requireTask(this.shapes.paramsTaskId(params));
    const taskId = task.id as string;
    if (isObject(task.status) && this.shapes.isTerminal(task.status.state)) {
      // Nothing more will happen to a finished task (1.0 §3.1.6).
      throw new A2AError(this.code("UnsupportedOperation", JSON_RPC_ERROR.invalidParams), `Task ${taskId} is ${String(task.status.state)}: there is nothing to subscribe to`, { taskId });
    }
    const execution = this.executions.get(taskId);
    let unsubscribe: () => void = () => undefined;
    const channel = this.channel(() => unsubscribe());
    if (this.streamsTasks()) channel.push(this.shapes.wrap(role, task));
    else if (!execution || execution.done) {
      // 0.1.0 streams only updates: the current status as one.
      channel.push(this.shapes.wrap(role, this.shapes.statusEvent({ taskId, contextId: contextOf(task, this.shapes), status: task.status as JsonObject, final: false })));
    }
    unsubscribe = this.bus.subscribe(taskId, (event) => {
      const terminal = isObject(event) && isObject(event.status) && this.shapes.isTerminal(event.status.state);
      // An interrupted state ends a turn, not this stream: its event is not the final one here (0.x `final`).
      const forwarded = !terminal && isObject(event) && event.final === true ? { ...event, final: false } : event;
      channel.push(this.shapes.wrap(role, forwarded));
      if (terminal) channel.end();
    });
    return channel;
  }

  /** A channel that ends when the server closes, releasing `release` once. */
  private channel(release: () => void): EventChannel<unknown> {
    const onShutdown = () => channel.end();
    const channel = new EventChannel<unknown>(() => {
      release();
      this.shutdown.signal.removeEventListener("abort", onShutdown);
    });
    this.shutdown.signal.addEventListener("abort", onShutdown, { once: true });
    return channel;
  }

  async requireTask(taskId: string | undefined): Promise<JsonObject> {
    const task = taskId === undefined ? undefined : await this.tasks.get(taskId);
    if (!task) throw new A2AError(this.code("TaskNotFound", JSON_RPC_ERROR.invalidParams), "Task not found", { taskId: taskId ?? null });
    return task;
  }

  async cancel(params: JsonObject, principal: unknown): Promise<JsonObject> {
    const task = await this.requireTask(this.shapes.paramsTaskId(params));
    const status = isObject(task.status) ? task.status : {};
    if (this.shapes.isTerminal(status.state)) {
      throw new A2AError(this.code("TaskNotCancelable", JSON_RPC_ERROR.invalidParams), "Task cannot be canceled", {
        taskId: task.id,
        state: status.state,
      });
    }
    const taskId = task.id as string;
    let execution = this.executions.get(taskId);
    if (!execution) execution = this.newExecution(taskId, contextOf(task, this.shapes), task);
    const publisher = this.publisher(execution);
    const context = this.context(execution, "cancel", lastUserMessage(task), task, false, principal);
    execution.abort.abort();
    if (this.executor.cancel) await this.executor.cancel(context, publisher);
    if (!execution.done) publisher.canceled();
    await publisher.drain();
    return (await this.tasks.get(taskId)) ?? task;
  }

  // ------------------------------------------------------------------------------------------------
  // Push notification configs

  pushEnabled(): void {
    if (!this.capability("pushNotifications")) {
      throw new A2AError(this.code("PushNotificationNotSupported", JSON_RPC_ERROR.invalidRequest), "Push Notification is not supported");
    }
  }

  async checkWebhook(config: JsonObject): Promise<void> {
    if (typeof config.url !== "string") throw new A2AError(JSON_RPC_ERROR.invalidParams, "Invalid params", { reason: "the push notification config needs a url" });
    try {
      await (this.pushSender ?? new PushSender()).checkUrl(config.url);
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
  private checkInputModes(message: JsonObject): void {
    // Only where the version has the error (0.2+; 0.1.0's table has none, so there the executor decides).
    const code = this.shapes.profile.errorCodes.ContentTypeNotSupported;
    const accepted = acceptedInputModes(this.card);
    if (code === undefined || accepted === undefined || !Array.isArray(message.parts)) return;
    for (const [index, part] of message.parts.entries()) {
      if (!isObject(part)) continue;
      const type = partMediaType(part, this.shapes.profile.discriminatorField);
      if (type === undefined || acceptsMediaType(accepted, type)) continue;
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
    return typeof config.id === "string" && config.id !== "" ? config : { ...config, id: taskId };
  }

  // ------------------------------------------------------------------------------------------------
  // Executions

  newExecution(taskId: string, contextId: string, task: JsonObject | undefined): Execution {
    let settle: () => void = () => undefined;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    const execution: Execution = {
      taskId,
      contextId,
      task,
      reply: undefined,
      settled,
      settle: () => {
        execution.done = true;
        settle();
      },
      done: false,
      abort: new AbortController(),
      artifactCount: Array.isArray(task?.artifacts) ? task.artifacts.length : 0,
      published: false,
    };
    return execution;
  }

  /**
   * Starts (or continues) the task a send/stream request names and runs the executor in the
   * background. `beforeRun` sees the task id first (streams subscribe there).
   */
  async startExecution(
    method: string,
    request: ReturnType<ProtocolShapes["sendParams"]>,
    principal: unknown,
    streaming: boolean,
    beforeRun?: (taskId: string) => ((error: A2AError) => void) | void,
    extensions: readonly string[] = [],
  ): Promise<Execution> {
    if (request.undeclaredId !== undefined) {
      // 1.0.1 §3.4.2: task ids are server-generated; 0.2+ send params have no `id` (0.1.0's tasks/send had one).
      throw invalidField("/params/id", "no id: a new task's id is generated by the server; continue a task with message.taskId", request.undeclaredId);
    }
    this.checkInputModes(request.message);
    let existing: JsonObject | undefined;
    if (request.taskId !== undefined) {
      existing = await this.tasks.get(request.taskId);
      if (!existing && !request.clientChosenTaskId) {
        throw new A2AError(this.code("TaskNotFound", JSON_RPC_ERROR.invalidParams), "Task not found", { taskId: request.taskId });
      }
    }
    if (existing) {
      const state = isObject(existing.status) ? existing.status.state : undefined;
      if (this.shapes.isTerminal(state)) {
        // A task in a terminal state cannot be restarted (1.0 §3.1.1: UnsupportedOperationError).
        throw new A2AError(this.code("UnsupportedOperation", JSON_RPC_ERROR.invalidParams), `Task ${String(existing.id)} is ${String(state)} and cannot take more messages`, {
          taskId: existing.id,
          state,
        });
      }
      const taskContext = contextOf(existing, this.shapes);
      if (request.contextId !== undefined && request.contextPointer === "/params/message/contextId" && request.contextId !== taskContext) {
        // 1.0.1 §3.4.3: "Agents MUST reject messages containing mismatching contextId and taskId".
        throw invalidField(request.contextPointer, `the contextId of task ${String(existing.id)} ("${taskContext}") or none`, request.contextId);
      }
      if (this.executions.get(existing.id as string)?.done === false) {
        throw new A2AError(JSON_RPC_ERROR.invalidParams, `Task ${String(existing.id)} is still working on the previous message`, {
          taskId: existing.id,
        });
      }
    }
    const taskId = existing ? (existing.id as string) : (request.taskId ?? newId());
    const contextId = existing ? contextOf(existing, this.shapes) : (request.contextId ?? newId());
    const message = this.shapes.stamp(request.message, taskId, contextId);

    if (request.pushConfig) {
      this.pushEnabled();
      await this.checkWebhook(request.pushConfig);
    }

    const execution = this.newExecution(taskId, contextId, undefined);
    if (existing) {
      const history = Array.isArray(existing.history) ? existing.history : [];
      execution.task = { ...existing, history: [...history, message] };
      execution.artifactCount = Array.isArray(existing.artifacts) ? existing.artifacts.length : 0;
      await this.tasks.save(execution.task);
    }
    this.executions.set(taskId, execution);
    if (request.pushConfig) await this.pushConfigs.set(taskId, this.withConfigId(request.pushConfig, taskId));
    const onEarlyError = beforeRun?.(taskId);
    if (onEarlyError) execution.onEarlyError = onEarlyError;
    if (!request.blocking && !execution.task) await this.materialize(execution, message);

    const context = this.context(execution, method, message, existing, streaming, principal, extensions);
    const publisher = this.publisher(execution, message);
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
            // An A2A error raised before the first event is the call's error; nothing of the turn was sent.
            execution.done = true;
            execution.error = error;
            execution.onEarlyError?.(error);
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
        if (this.executions.get(taskId) === execution) this.executions.delete(taskId);
        execution.settle();
      }
    })();
    return execution;
  }

  context(execution: Execution, method: string, message: JsonObject, task: JsonObject | undefined, streaming: boolean, principal: unknown, extensions: readonly string[] = []): RequestContext {
    const parts = Array.isArray(message.parts) ? message.parts : [];
    const text = parts
      .filter((p): p is JsonObject => isObject(p) && typeof p.text === "string")
      .map((p) => p.text as string)
      .join("\n");
    return {
      taskId: execution.taskId,
      contextId: execution.contextId,
      message,
      task,
      method,
      streaming,
      // close() aborts every execution: no need to tie each signal to the server's.
      signal: execution.abort.signal,
      principal,
      text,
      extensions,
    };
  }

  /** Creates the task of an execution (state submitted) the first time it is needed. */
  async materialize(execution: Execution, message?: JsonObject): Promise<JsonObject> {
    if (execution.task) return execution.task;
    const task = this.shapes.task({
      id: execution.taskId,
      contextId: execution.contextId,
      status: this.shapes.status("submitted"),
      history: message ? [message] : [],
    });
    execution.task = task;
    execution.published = true;
    await this.tasks.save(task);
    if (this.streamsTasks()) this.bus.publish(execution.taskId, task, false);
    return task;
  }

  /** The publisher of an execution, and `drain()`, which resolves when its updates are all recorded. */
  publisher(execution: Execution, userMessage?: JsonObject): EventPublisher & { drain(): Promise<void> } {
    const shapes = this.shapes;
    const asMessage = (content: JsonObject | string): JsonObject =>
      typeof content === "string"
        ? shapes.message({ role: "agent", parts: [shapes.textPart(content)], taskId: execution.taskId, contextId: execution.contextId })
        : shapes.stamp(content, execution.taskId, execution.contextId);
    // Updates are applied in order, one after the other, even when the executor does not await.
    let chain: Promise<void> = Promise.resolve();
    const enqueue = (work: () => Promise<void>) => {
      chain = chain.then(work).catch((error: unknown) => this.logger.error("a2a: failed to record a task update", error));
    };
    const ensureTask = async (): Promise<JsonObject> => {
      if (execution.task) return execution.task;
      return this.materialize(execution, userMessage);
    };
    const finish = () => {
      void chain.then(() => {
        if (this.executions.get(execution.taskId) === execution) this.executions.delete(execution.taskId);
        execution.settle();
      });
    };
    const status = (state: string, content?: JsonObject | string) => {
      if (execution.done) return;
      execution.published = true;
      const final = shapes.isTerminal(state) || shapes.isInterrupted(state);
      if (final) execution.done = true;
      const message = content === undefined ? undefined : asMessage(content);
      enqueue(async () => {
        const task = await ensureTask();
        const history = Array.isArray(task.history) ? task.history : [];
        const updated: JsonObject = { ...task, status: shapes.status(state, message) };
        if (message && shapes.has("Task", "history")) updated.history = [...history, message];
        execution.task = updated;
        await this.tasks.save(updated);
        this.bus.publish(execution.taskId, shapes.statusEvent({ taskId: execution.taskId, contextId: execution.contextId, status: updated.status as JsonObject, final }), final);
        this.notify(updated);
      });
      if (final) finish();
    };
    const publisher: EventPublisher & { drain(): Promise<void> } = {
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
        const message = asMessage(content);
        if (execution.task || !this.streamsTasks()) {
          // A task exists already (or the version has no direct replies): the reply completes it.
          status("completed", message);
          return;
        }
        execution.done = true;
        execution.published = true;
        // No task will exist: the reply names only its context (a taskId would point at nothing).
        delete message.taskId;
        execution.reply = message;
        enqueue(async () => {
          this.bus.publish(execution.taskId, message, true);
        });
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
        enqueue(async () => {
          const task = await ensureTask();
          const event = shapes.artifactEvent({
            taskId: execution.taskId,
            contextId: execution.contextId,
            artifact: artifact as JsonObject,
            ...(options.append !== undefined ? { append: options.append } : {}),
            ...(options.lastChunk !== undefined ? { lastChunk: options.lastChunk } : {}),
            index: execution.artifactCount,
          });
          const added = event.artifact as JsonObject;
          const artifacts = Array.isArray(task.artifacts) ? [...(task.artifacts as JsonObject[])] : [];
          const key = typeof added.artifactId === "string" ? "artifactId" : "name";
          const at = options.append ? artifacts.findIndex((a) => a[key] !== undefined && a[key] === added[key]) : -1;
          if (at >= 0) {
            const before = artifacts[at] as JsonObject;
            const parts = [...(Array.isArray(before.parts) ? before.parts : []), ...(Array.isArray(added.parts) ? added.parts : [])];
            artifacts[at] = { ...before, parts };
          } else {
            artifacts.push(stripChunkFlags(added));
            execution.artifactCount++;
          }
          const updated = { ...task, artifacts };
          execution.task = updated;
          await this.tasks.save(updated);
          this.bus.publish(execution.taskId, event, false);
          this.notify(updated);
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

  /** Sends the task to every push config of it (in the background; failures are logged, never thrown). */
  private notify(task: JsonObject): void {
    if (!this.pushSender || !this.capability("pushNotifications")) return;
    const sender = this.pushSender;
    const taskId = task.id as string;
    const work = (async () => {
      for (const config of await this.pushConfigs.list(taskId)) {
        if (typeof config.url !== "string") continue;
        const target = {
          url: config.url,
          ...(typeof config.token === "string" ? { token: config.token } : {}),
          ...(isObject(config.authentication)
            ? {
                authentication: {
                  schemes: Array.isArray(config.authentication.schemes)
                    ? config.authentication.schemes.filter((s): s is string => typeof s === "string")
                    : typeof config.authentication.scheme === "string"
                      ? [config.authentication.scheme]
                      : [],
                  ...(typeof config.authentication.credentials === "string" ? { credentials: config.authentication.credentials } : {}),
                },
              }
            : {}),
        };
        // 1.0 posts a StreamResponse (`{ task }`) as application/a2a+json; 0.x the bare task.
        const body = this.shapes.wrap("stream", task);
        const wrapped = body !== task;
        const result = await sender.send(wrapped ? { ...target, contentType: "application/a2a+json" } : target, body, this.shutdown.signal);
        if (!result.ok) this.logger.warn?.(`a2a: push notification to ${config.url} failed: ${result.error}`);
      }
    })().catch((error: unknown) => this.logger.error("a2a: push notification failed", error));
    this.pendingPushes.add(work);
    void work.finally(() => this.pendingPushes.delete(work));
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
  return typeof value === "string" ? value : (task.id as string);
}

function lastUserMessage(task: JsonObject): JsonObject {
  const history = Array.isArray(task.history) ? (task.history as unknown[]) : [];
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i];
    if (isObject(m) && m.role === "user") return m;
  }
  return { role: "user", parts: [] };
}

function stripChunkFlags(artifact: JsonObject): JsonObject {
  const { append: _a, lastChunk: _l, ...rest } = artifact;
  return rest;
}
