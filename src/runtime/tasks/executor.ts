/**
 * The executor contract: what the user's AgentExecutor is given (the RequestContext of a turn and the
 * EventPublisher it reports through) and what it implements, and the runtime's logger.
 */
import type { JsonObject } from "../json.js";
import type { ArtifactStream, ArtifactStreamInit } from "./artifact-stream.js";

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
  /**
   * The earlier tasks of this conversation (1.0.1 §3.4.1: the same contextId), oldest first, from the
   * store: only those of the caller's owner scope, never the current task, at most `limit` (default 20,
   * at most 100) of the newest.
   */
  conversation(options?: { limit?: number }): Promise<TTask[]>;
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
  /** An artifact of unknown length, written chunk by chunk: its `end()` marks the last chunk (`lastChunk`). */
  artifactStream(init?: ArtifactStreamInit): ArtifactStream<TPart>;
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
