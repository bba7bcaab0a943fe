/**
 * The LangGraph.js bridge (`@langchain/langgraph` 1 and `@langchain/core` 1), in both directions (emitted
 * only with `--bridge langgraph`; both packages are then peer dependencies of the project, and no other file
 * of the output imports them):
 *
 * - `langGraphExecutor({ graph })`: an A2A agent from a compiled graph whose state has `messages` (a
 *   `StateGraph(MessagesAnnotation)` with a model node and a `ToolNode`, or any graph of that shape). Each
 *   turn streams the graph (`streamMode: ["messages", "updates", "tools"]`) with the conversation so far as
 *   its messages. The models' text is streamed as one artifact per turn (its chunks appended, the last one
 *   marked); the tool calls the model makes, the tools' progress and their results are status updates
 *   carrying a data part; an `interrupt()` in the graph (see `askUserTool`) ends the turn `input-required`
 *   with its question, and the user's answer resumes the graph where it stopped (`Command({ resume })`).
 *   Canceling the task aborts the run; an error the graph throws fails the task with a message.
 * - `a2aTool(A2AClient, url or client)`: a remote A2A agent as a LangChain tool, its progress streamed as
 *   the tool's events, so that a LangGraph agent can delegate to it.
 */
import { isAIMessage, isBaseMessage, isToolMessage, type BaseMessage, AIMessage, HumanMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { tool, type DynamicStructuredTool } from "@langchain/core/tools";
import { Command, interrupt, type StateSnapshot } from "@langchain/langgraph";
import { isObject, type JsonObject } from "../json.js";
import type { ArtifactStream } from "../tasks/artifact-stream.js";
import type { AgentExecutor, AgentExecutorOfAnyVersion, EventPublisher, RequestContext } from "../tasks/executor.js";
import { conversationTurns, messageOf, progress } from "./conversation.js";
import { remoteAgentAnswers, remoteAgentDescription, type A2AClientClass, type A2AToolOptions, type A2AToolOutput, type StreamingA2AClient } from "./remote-agent.js";

export type { A2AClientClass, A2AToolOptions, A2AToolOutput, StreamingA2AClient } from "./remote-agent.js";

/**
 * A compiled graph whose state has `messages` (`StateGraph(...).compile()`, `createReactAgent(...)`), as
 * the bridge runs it: its input is `{ messages }`, or a `Command` that resumes an interrupt. (`input` is
 * `unknown` here so that every graph's own input type fits: each graph types it by its state and nodes.)
 */
export interface MessagesGraph {
  stream(input: unknown, options: RunnableConfig & { streamMode: Array<"messages" | "updates" | "tools"> }): Promise<AsyncIterable<unknown>>;
  getState(config: RunnableConfig): Promise<StateSnapshot>;
  /** Its checkpointer (`compile({ checkpointer })`): what keeps a thread between turns; interrupts need one. */
  readonly checkpointer?: unknown;
}

export interface LangGraphExecutorOptions {
  /** The compiled graph (see `MessagesGraph`). Compile it with a checkpointer for interrupts (input-required). */
  readonly graph: MessagesGraph;
  /**
   * The thread of a turn in the graph's checkpointer (default: the task's id: a task is one thread, which
   * is deleted from the checkpointer when the task ends, as a task that ended never resumes).
   */
  readonly threadId?: (ctx: RequestContext) => string;
  /** Keep the threads of the tasks that ended in the checkpointer (default false; always kept with your own `threadId`). */
  readonly keepThreads?: boolean;
  /** What resumes an interrupt: the user's answer (default: its text). */
  readonly resumeValue?: (ctx: RequestContext) => unknown;
  /** The graph's nodes whose models' text is the answer (default: every node's). */
  readonly answerNodes?: readonly string[];
  /** How many earlier tasks of the context the graph sees (default 10; 0: none). */
  readonly historyTasks?: number;
  /** More of the run's config (`recursionLimit`, `configurable` values, callbacks); the bridge sets the thread, the signal and the stream modes. */
  readonly config?: RunnableConfig;
  /** The name of each answer's artifact (default "answer"). */
  readonly artifactName?: string;
  /** The failed task's status text for an error of the graph (default: "The agent failed: <its message>"). */
  readonly errorMessage?: (error: unknown) => string;
}

/**
 * A tool for the model to ask the user a question: it interrupts the graph with `{ question }` (the turn
 * ends `input-required` with the question) and returns the user's answer when the next turn resumes it.
 * The graph needs a checkpointer.
 */
export function askUserTool(description = "Ask the user a question when you need more information to go on."): DynamicStructuredTool {
  // The input is checked against the schema before the call: `question` is a string.
  return tool(async (input: unknown): Promise<string> => String(interrupt<{ question: string }, unknown>({ question: String(isObject(input) ? input["question"] : input) })), {
    name: "askUser",
    description,
    schema: {
      type: "object",
      properties: { question: { type: "string", description: "The question, as the user will read it." } },
      required: ["question"],
      additionalProperties: false,
    },
  });
}

/** An A2A agent executor that runs a LangGraph graph (see the module comment). */
export function langGraphExecutor(options: LangGraphExecutorOptions): AgentExecutorOfAnyVersion {
  const { graph } = options;
  const executor: AgentExecutor = {
    async execute(ctx, events) {
      const threadId = options.threadId?.(ctx) ?? ctx.taskId;
      const config: RunnableConfig = { ...options.config, configurable: { ...options.config?.configurable, thread_id: threadId } };
      // A task's own thread is of no use once the task ended (completed, failed, canceled): not kept.
      const forget = options.threadId === undefined && options.keepThreads !== true ? () => forgetThread(graph, threadId) : async () => undefined;
      let answer: ArtifactStream<JsonObject> | undefined;
      let question: { text: string; interrupt: JsonObject } | undefined;
      try {
        const input = await turnInput(graph, config, ctx, options);
        events.working();
        const stream = await graph.stream(input, { ...config, signal: ctx.signal, streamMode: ["messages", "updates", "tools"] });
        for await (const item of stream) {
          if (!Array.isArray(item)) continue;
          const [mode, data] = item as [unknown, unknown];
          if (mode === "messages" && Array.isArray(data)) {
            const [message, metadata] = data as [unknown, unknown];
            const node = isObject(metadata) ? metadata["langgraph_node"] : undefined;
            if (!isBaseMessage(message) || !isAIMessage(message)) continue;
            if (options.answerNodes && !(typeof node === "string" && options.answerNodes.includes(node))) continue;
            const text = message.text;
            if (text === "") continue;
            answer ??= events.artifactStream({ name: options.artifactName ?? "answer" });
            answer.write(text);
          } else if (mode === "updates" && isObject(data)) {
            for (const [node, update] of Object.entries(data)) {
              // The first interrupt asks (a graph interrupts once at a time: one answer resumes it).
              if (node === "__interrupt__") question ??= interruptQuestion(update);
              else showToolMessages(events, update);
            }
          } else if (mode === "tools" && isObject(data) && data["event"] === "on_tool_event") {
            progress(events, { toolProgress: { toolCallId: data["toolCallId"], toolName: data["name"], output: jsonSafe(data["data"]) } });
          }
        }
      } catch (error) {
        await forget();
        // The task was canceled (its signal aborted the run): the runtime has recorded that already.
        if (ctx.signal.aborted) return;
        answer?.end();
        events.failed(options.errorMessage ? options.errorMessage(error) : `The agent failed: ${messageOf(error)}`);
        return;
      }
      if (ctx.signal.aborted) {
        await forget();
        return;
      }
      answer?.end();
      if (question) {
        events.inputRequired(events.agentMessage([events.textPart(question.text), events.dataPart({ interrupt: question.interrupt })]));
        return;
      }
      await forget();
      events.completed();
    },
  };
  return executor;
}

/**
 * The graph's input for this turn: a `Command` resuming the thread's pending interrupt (the user answers
 * the question); else, when the thread has messages already (its checkpointer remembers the task), the
 * user's message alone; else the whole conversation.
 */
async function turnInput(graph: MessagesGraph, config: RunnableConfig, ctx: RequestContext, options: LangGraphExecutorOptions): Promise<{ messages: BaseMessage[] } | Command> {
  if (typeof graph.checkpointer === "object" && graph.checkpointer !== null) {
    const state = await graph.getState(config);
    if (state.tasks.some((task) => task.interrupts.length > 0)) return new Command({ resume: options.resumeValue ? options.resumeValue(ctx) : ctx.text });
    const values: unknown = state.values;
    if (isObject(values) && Array.isArray(values["messages"]) && values["messages"].length > 0) return { messages: [new HumanMessage(ctx.text)] };
  }
  const turns = await conversationTurns(ctx, options.historyTasks ?? 10);
  return { messages: turns.map((turn) => (turn.role === "user" ? new HumanMessage(turn.text) : new AIMessage(turn.text))) };
}

/** A checkpointer that deletes threads (every `BaseCheckpointSaver` does). */
interface ThreadSaver {
  deleteThread(threadId: string): Promise<void>;
}

function isThreadSaver(value: unknown): value is ThreadSaver {
  return isObject(value) && typeof value["deleteThread"] === "function";
}

/** Deletes a thread from the graph's checkpointer, if it has one; a failure to is not the task's. */
async function forgetThread(graph: MessagesGraph, threadId: string): Promise<void> {
  if (isThreadSaver(graph.checkpointer)) await graph.checkpointer.deleteThread(threadId).catch(() => undefined);
}

/** A node's update: the tool calls of its model's messages, the results of its tool messages, as status updates. */
function showToolMessages(events: EventPublisher, update: unknown): void {
  if (!isObject(update)) return;
  const messages = Array.isArray(update["messages"]) ? update["messages"] : [update["messages"]];
  for (const message of messages) {
    if (!isBaseMessage(message)) continue;
    if (isAIMessage(message)) {
      for (const call of message.tool_calls ?? []) progress(events, { toolCall: { toolCallId: call.id, toolName: call.name, input: jsonSafe(call.args) } });
    } else if (isToolMessage(message)) {
      const key = message.status === "error" ? "toolError" : "toolResult";
      progress(events, { [key]: { toolCallId: message.tool_call_id, toolName: message.name, [key === "toolError" ? "error" : "output"]: toolOutput(message.content) } });
    }
  }
}

/** A tool message's content as the data part shows it: a JSON text as its value (tools return JSON texts of objects), else as is. */
function toolOutput(content: unknown): unknown {
  if (typeof content !== "string") return jsonSafe(content);
  try {
    return JSON.parse(content) as unknown;
  } catch {
    return content;
  }
}

/** The question of an interrupt (`interrupt(value)`): its value as a text, and the interrupt as JSON. */
function interruptQuestion(update: unknown): { text: string; interrupt: JsonObject } | undefined {
  const first: unknown = Array.isArray(update) ? update[0] : undefined;
  if (!isObject(first)) return undefined;
  const value = first["value"];
  const text =
    typeof value === "string" ? value
    : isObject(value) && typeof value["question"] === "string" ? value["question"]
    : isObject(value) && typeof value["description"] === "string" ? value["description"]
    : `The agent needs your input: ${JSON.stringify(value)}`;
  return { text, interrupt: { ...(typeof first["id"] === "string" ? { id: first["id"] } : {}), value: jsonSafe(value) } };
}

/** A value as plain JSON (LangChain objects serialize themselves), for a data part. */
function jsonSafe(value: unknown): unknown {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value)) as unknown;
  } catch {
    return String(value);
  }
}

// ---------------------------------------------------------------------------------------------------
// A remote A2A agent as a LangChain tool

/**
 * A remote A2A agent as a LangChain tool: the model sends it a message, the tool streams the agent's answer
 * (`message/stream`), its progress (the state and the text so far) arriving as the tool's events (the
 * bridge shows them as `{ toolProgress }` status updates), and returns the final state and text as JSON.
 * `agent` is its base URL (its card is read on the first call) or a client made already.
 */
export function a2aTool<TParams, TClient extends StreamingA2AClient<TParams>>(
  A2AClient: A2AClientClass<TParams, TClient>,
  agent: string | TClient,
  options: A2AToolOptions & { readonly name?: string } = {},
): DynamicStructuredTool {
  const send = remoteAgentAnswers(A2AClient, agent, options);
  return tool(
    async function* (input: unknown, config?: RunnableConfig): AsyncGenerator<A2AToolOutput, string, undefined> {
      // The input is checked against the schema before the call: `message` is a string.
      const message = String(isObject(input) ? input["message"] : input);
      let last: A2AToolOutput = { state: "submitted", text: "" };
      for await (const output of send(message, config?.signal)) {
        last = output;
        yield output;
      }
      return JSON.stringify(last);
    },
    {
      name: options.name ?? "a2aAgent",
      description: remoteAgentDescription(agent, options),
      schema: {
        type: "object",
        properties: { message: { type: "string", description: "The message for the agent." } },
        required: ["message"],
        additionalProperties: false,
      },
    },
  );
}
