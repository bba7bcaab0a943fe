/**
 * An execution: one run of the executor for one turn of a task, on this instance. What it holds (the task
 * as last committed, its version, its lease, why it stopped), the RequestContext its executor gets, the
 * updates it queues, and the task helpers the runtime's parts share.
 */
import { conversationOf, TURN_CONVERSATION, type ConversationSource } from "./conversation.js";
import { isObject, type JsonObject } from "../json.js";
import type { ProtocolShapes, SendRequestParts } from "../protocol-shapes.js";
import { storableJson } from "../stores/task-json.js";
import type { TaskEventInput } from "../stores/contract.js";
import type { RequestContext } from "./executor.js";
import type { ArtifactEventTexts } from "./task-texts.js";
import type { CallRecorder } from "../call.js";

/** Executions: one run of the executor for one turn of a task, on this instance. */
export interface Execution {
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
  declare readonly conversation: RequestContext["conversation"];
  readonly [TURN_ABORT]: ExecutionAbort;
  declare readonly [TURN_CONVERSATION]: ConversationSource;

  constructor(abort: ExecutionAbort, conversation: ConversationSource, fields: Omit<RequestContext, "signal" | "conversation">) {
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
    Object.defineProperty(this, "conversation", { get: conversationOf, enumerable: true, configurable: true });
    this[TURN_ABORT] = abort;
    Object.defineProperty(this, TURN_CONVERSATION, { value: conversation });
  }
}

/** An execution's abort: the AbortController is made when its signal is first read (most turns end without anything asking). */
export class ExecutionAbort {
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

/** One change of a task by the executor: the task after it, and the events it logs. */
export interface TaskUpdate {
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

/** A new execution of a turn of a task (version 0: the task is not created yet). */
export function newExecution(taskId: string, contextId: string, task: JsonObject | undefined, version = 0): Execution {
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

/** The RequestContext of a turn: the message's text parts joined, the signal of the execution's abort. */
export function turnContext(
  conversations: ConversationSource,
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
  return new TurnContext(execution.abort, conversations, {
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

/** The current lengths of those of `streamed` that are the parts of an artifact of `task`. */
export function partLengths(task: JsonObject, streamed: ReadonlyMap<unknown[], number>): Map<unknown[], number> {
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
export function asWritten(task: JsonObject, lengths: ReadonlyMap<unknown[], number> | undefined, taskId: string): JsonObject {
  return lengths !== undefined && lengths.size > 0 ? (JSON.parse(textAtLengths(task, lengths, `task "${taskId}"`)) as JsonObject) : task;
}

/** The JSON text of `task` with each array of `lengths` cut to its length there: what a write held. */
export function textAtLengths(task: JsonObject, lengths: ReadonlyMap<unknown[], number>, what: string): string {
  return storableJson(task, what, (_key, value) => {
    const length = Array.isArray(value) ? lengths.get(value) : undefined;
    return length !== undefined && length < (value as unknown[]).length ? (value as unknown[]).slice(0, length) : value;
  });
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

export function contextOf(task: JsonObject, shapes: ProtocolShapes): string {
  const field = shapes.contextField;
  const value = field ? task[field] : undefined;
  return typeof value === "string" ? value : (task["id"] as string);
}

export function lastUserMessage(task: JsonObject): JsonObject {
  const history = Array.isArray(task["history"]) ? (task["history"] as unknown[]) : [];
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i];
    // "user" (0.x) or "ROLE_USER" (1.0).
    if (isObject(m) && (m["role"] === "user" || m["role"] === "ROLE_USER")) return m;
  }
  return { role: "user", parts: [] };
}

/** Whether the task's history ends with a user's message (a turn was started and has not answered it yet). */
export function endsWithUserMessage(task: JsonObject): boolean {
  const history = Array.isArray(task["history"]) ? (task["history"] as unknown[]) : [];
  const last = history[history.length - 1];
  return isObject(last) && (last["role"] === "user" || last["role"] === "ROLE_USER");
}

export function withoutTaskId(message: JsonObject): JsonObject {
  const { taskId: _taskId, ...rest } = message;
  return rest;
}

/** Whether a task is in a terminal state (nothing may be written on top of it). */
export function isTerminalTask(task: JsonObject | undefined, shapes: ProtocolShapes): boolean {
  return task !== undefined && isObject(task["status"]) && shapes.isTerminal(task["status"]["state"]);
}

export function stripChunkFlags(artifact: JsonObject): JsonObject {
  const { append: _a, lastChunk: _l, ...rest } = artifact;
  return rest;
}

/**
 * A turn as a send asks for it: what starting it (a new task or a follow-up turn, queued or not) needs,
 * given once instead of as six or seven arguments in different orders.
 */
export interface Turn {
  readonly method: string;
  readonly request: SendRequestParts;
  readonly principal: unknown;
  readonly streaming: boolean;
  readonly extensions: readonly string[];
  /** Sees the execution and the log sequence its events follow, before the executor runs (streams subscribe there). */
  readonly beforeRun: ((execution: Execution, after: number) => void) | undefined;
  /** The span of the call that asked, when the server is observed: told the task. */
  readonly span: CallRecorder | undefined;
}
