/**
 * Following a task's events: the event log read and subscribed to from a position, each event wrapped as
 * the role's result and tagged with its log sequence, for a turn's stream (until its final event) and for
 * a resubscription (its current state first, then until a terminal state); ended at shutdown.
 */
import { A2AError } from "../a2a-error.js";
import { withEventId, withJsonText } from "../event-ids.js";
import { isObject, type JsonObject } from "../json.js";
import type { MethodRole } from "../profile.js";
import type { ProtocolShapes } from "../protocol-shapes.js";
import type { A2AStore, EventSubscription, TaskEventLog, VersionedTask } from "../stores/contract.js";
import { JSON_RPC_ERROR } from "../wire/jsonrpc.js";
import { EventChannel } from "./event-channel.js";
import { contextOf } from "./execution.js";
import type { RuntimeLogger } from "./executor.js";

/** The log event that marks where a follow-up turn starts (never streamed: it only positions readers). */
export const TURN_MARK = "a2aTurn";
/**
 * Where a turn mark keeps the W3C trace context of the call that started the turn (only with telemetry
 * hooks): a turn resumed on another instance after a take-over continues that trace (`lastTurnTrace`).
 */
export const TURN_TRACE = "a2aTrace";

/** The trace context the task's last turn mark keeps, read from its event log (undefined: none kept). */
export async function lastTurnTrace(events: TaskEventLog, taskId: string): Promise<string | undefined> {
  let found: string | undefined;
  for (let after = 0; ; ) {
    const batch = await events.read(taskId, after, 1000);
    for (const logged of batch) {
      const trace = isObject(logged.event) && logged.event[TURN_MARK] !== undefined ? logged.event[TURN_TRACE] : undefined;
      if (typeof trace === "string") found = trace;
    }
    if (batch.length < 1000) return found;
    after = batch[batch.length - 1]?.seq ?? after;
  }
}

export interface TaskStreamsOptions {
  readonly shapes: ProtocolShapes;
  readonly store: A2AStore;
  readonly logger: RuntimeLogger;
  /** Aborted when the server closes: every open channel ends. */
  readonly shutdown: AbortSignal;
  /** Whether the version's stream results include Task objects (0.2+) or only update events (0.1.0). */
  readonly streamsTasks: () => boolean;
  /** The task, if it exists and the caller's scope owns it; else TaskNotFound. */
  readonly requireTask: (taskId: string | undefined, principal: unknown) => Promise<JsonObject>;
  readonly requireVersioned: (taskId: string | undefined, principal: unknown) => Promise<VersionedTask>;
}

export class TaskStreams {
  /** Open stream subscriptions by task (for tests of disconnect handling). */
  readonly bus = new SubscriptionCounter();
  private readonly shapes: ProtocolShapes;
  private readonly store: A2AStore;
  private readonly logger: RuntimeLogger;
  private readonly shutdown: AbortSignal;
  private readonly streamsTasks: () => boolean;
  private readonly requireTask: (taskId: string | undefined, principal: unknown) => Promise<JsonObject>;
  private readonly requireVersioned: (taskId: string | undefined, principal: unknown) => Promise<VersionedTask>;
  /**
   * What ends each open follow() channel at shutdown: one abort listener for them all (a listener per
   * channel would make Node warn of a leak at the 11th subscription of a task).
   */
  private readonly followers = new Set<() => void>();

  constructor(options: TaskStreamsOptions) {
    this.shapes = options.shapes;
    this.store = options.store;
    this.logger = options.logger;
    this.shutdown = options.shutdown;
    this.streamsTasks = options.streamsTasks;
    this.requireTask = options.requireTask;
    this.requireVersioned = options.requireVersioned;
    this.shutdown.addEventListener("abort", () => {
      for (const end of [...this.followers]) end();
    }, { once: true });
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
      throw new A2AError((this.shapes.profile.errorCodes["UnsupportedOperation"] ?? JSON_RPC_ERROR.invalidParams), `Task ${id} is ${String(task["status"]["state"])}: there is nothing to subscribe to`, { taskId: id });
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
  async logEnd(taskId: string): Promise<number> {
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
  follow(role: MethodRole, taskId: string, after: number, options: { skipTurnMarks: boolean; untilTerminal?: boolean; first?: unknown }): EventChannel<unknown> {
    let subscription: EventSubscription | undefined;
    const onShutdown = () => channel.end();
    const channel = new EventChannel<unknown>(() => {
      subscription?.close();
      this.bus.remove(taskId);
      this.followers.delete(onShutdown);
    });
    if (!this.shutdown.aborted) this.followers.add(onShutdown);
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
