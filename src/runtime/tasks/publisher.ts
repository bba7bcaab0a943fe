/**
 * The publisher of an execution: the EventPublisher its executor reports through. Each call becomes a task
 * update in the version's shape (a status, an artifact chunk, a reply); updates are applied in order, and
 * those queued while a commit is in flight go together in the next one (commit-writer.ts).
 */
import { artifactStream } from "./artifact-stream.js";
import type { JsonObject } from "../json.js";
import type { ProtocolShapes } from "../protocol-shapes.js";
import type { CommitWriter } from "./commit-writer.js";
import { stripChunkFlags, withoutTaskId, type Execution, type TaskUpdate } from "./execution.js";
import type { EventPublisher, RuntimeLogger } from "./executor.js";
import { withJsonText } from "../event-ids.js";

/** An execution's publisher, with `drain()` and `failure()` for the runtime. */
export type TurnPublisher = EventPublisher & { drain(): Promise<void>; failure(): unknown };

/** What a publisher works with: one object per runtime, shared by its publishers. */
export interface PublisherDeps {
  readonly shapes: ProtocolShapes;
  readonly writer: CommitWriter;
  readonly logger: RuntimeLogger;
  /** Whether the version's streams carry Task objects (else a reply with no task is a direct message). */
  readonly streamsTasks: () => boolean;
  /** Ends an execution whose update could not be recorded (ownership.ts). */
  readonly stop: (execution: Execution, reason: string) => void;
  /** The execution is over on this instance (its turn ended). */
  readonly end: (execution: Execution) => void;
}

/**
 * The publisher of an execution, `drain()`, which resolves when its updates are all recorded (or given
 * up), and `failure()`: why one of them could not be recorded (the engine failed), if one could not.
 */
export function turnPublisher(execution: Execution, deps: PublisherDeps, userMessage?: JsonObject): TurnPublisher {
  const { shapes, writer } = deps;
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
    await writer.commit(execution, batch, userMessage);
  };
  const enqueue = (update: TaskUpdate) => {
    pending.push(update);
    if (flushing) return;
    flushing = true;
    chain = chain.then(flush).catch((error: unknown) => {
      deps.logger.error("a2a: failed to record a task update", error);
      // The task stays at its last committed state; its lease expires and it is failed then.
      execution.error = error;
      failure = error;
      execution.onError?.(error);
      deps.stop(execution, "an earlier update could not be recorded");
    });
  };
  const finish = () => {
    void chain.then(() => deps.end(execution));
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
  const publisher: TurnPublisher = {
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
      if (execution.task || pending.length > 0 || !deps.streamsTasks()) {
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
                writer.taskTexts?.copied(parts, from);
                // Its length at a commit is recorded then (commitUpdates); 0 until one succeeds.
                if (writer.keepsInterimTasks) (execution.streamedParts ??= new Map()).set(parts, 0);
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
    artifactStream: (init) => artifactStream<JsonObject>(publisher, init),
  };
  return publisher;
}
