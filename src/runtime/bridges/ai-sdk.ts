/**
 * The Vercel AI SDK (`ai` 7) bridge, in both directions (emitted only with `--bridge ai-sdk`; `ai` is then
 * a peer dependency of the project, and no other file of the output imports it):
 *
 * - `aiSdkExecutor({ model, tools })`: an A2A agent from an AI SDK model. Each turn runs `streamText` with
 *   the conversation so far (the context's earlier tasks, the task's own history, the user's message).
 *   The answer's text is streamed as one artifact per turn (its chunks appended, the last one marked);
 *   tool calls, their progress and results are status updates carrying a data part; a tool without
 *   `execute` (see `askUserTool`) is a question for the user: the turn ends `input-required` with the
 *   question, and the user's answer continues the task with the whole conversation. Canceling the task
 *   aborts the model call; a model error fails the task with a message.
 * - `a2aTool(A2AClient, url or client)`: a remote A2A agent as an AI SDK tool, its progress streamed as
 *   the tool's preliminary results, so that an AI SDK agent can delegate to it.
 */
import { jsonSchema, stepCountIs, streamText, tool, type LanguageModel, type ModelMessage, type StopCondition, type Tool, type ToolSet } from "ai";
import { isObject, type JsonObject } from "../json.js";
import type { ArtifactStream } from "../tasks/artifact-stream.js";
import type { AgentExecutor, AgentExecutorOfAnyVersion, EventPublisher, RequestContext } from "../tasks/executor.js";

export interface AiSdkExecutorOptions {
  /** The model: a provider's (`openai("gpt-4o")`, `anthropic(...)`), a gateway id, or a mock of `ai/test`. */
  readonly model: LanguageModel;
  /** The system instructions of every call. */
  readonly instructions?: string;
  /** The tools the model may call. A tool without `execute` asks the user (the turn ends input-required). */
  readonly tools?: ToolSet;
  /** When the tool loop stops (default: after 5 steps). */
  readonly stopWhen?: StopCondition<ToolSet, never> | Array<StopCondition<ToolSet, never>>;
  /** How many earlier tasks of the context the model sees (default 10; 0: none). */
  readonly historyTasks?: number;
  /** The name of each answer's artifact (default "answer"). */
  readonly artifactName?: string;
  /** The failed task's status text for a model error (default: "The model failed: <its message>"). */
  readonly errorMessage?: (error: unknown) => string;
}

/** A tool for the model to ask the user a question: the turn ends `input-required` with `question`. */
export function askUserTool(description = "Ask the user a question when you need more information to go on."): Tool<{ question: string }, never> {
  return tool({
    description,
    inputSchema: jsonSchema<{ question: string }>({
      type: "object",
      properties: { question: { type: "string", description: "The question, as the user will read it." } },
      required: ["question"],
      additionalProperties: false,
    }),
  });
}

/** An A2A agent executor that answers with an AI SDK model (see the module comment). */
export function aiSdkExecutor(options: AiSdkExecutorOptions): AgentExecutorOfAnyVersion {
  const tools = options.tools ?? {};
  const executor: AgentExecutor = {
    async execute(ctx, events) {
      const messages = await conversationMessages(ctx, options.historyTasks ?? 10);
      events.working();
      let answer: ArtifactStream<JsonObject> | undefined;
      let question: { text: string; call: JsonObject } | undefined;
      try {
        const result = streamText({
          model: options.model,
          ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
          messages,
          tools,
          stopWhen: options.stopWhen ?? stepCountIs(5),
          abortSignal: ctx.signal,
          // Errors come as the stream's error parts, handled below (not logged by the SDK).
          onError: () => undefined,
        });
        for await (const part of result.fullStream) {
          switch (part.type) {
            case "text-delta":
              if (part.text === "") break;
              answer ??= events.artifactStream({ name: options.artifactName ?? "answer" });
              answer.write(part.text);
              break;
            case "tool-call": {
              const call = { toolCallId: part.toolCallId, toolName: part.toolName, input: part.input };
              progress(events, { toolCall: call });
              // A tool of ours without `execute` (not one the provider runs itself) is a question for the user.
              if (part.providerExecuted !== true && part.invalid !== true && tools[part.toolName] !== undefined && tools[part.toolName]?.execute === undefined) {
                question = { text: questionText(part.toolName, part.input), call };
              }
              break;
            }
            case "tool-result":
              progress(events, {
                [part.preliminary === true ? "toolProgress" : "toolResult"]: { toolCallId: part.toolCallId, toolName: part.toolName, output: part.output },
              });
              break;
            case "tool-error":
              progress(events, { toolError: { toolCallId: part.toolCallId, toolName: part.toolName, error: messageOf(part.error) } });
              break;
            case "error":
              throw part.error;
            case "abort":
              // The task was canceled (its signal aborted the call): the runtime has recorded that already.
              return;
            default:
              break;
          }
        }
      } catch (error) {
        if (ctx.signal.aborted) return;
        answer?.end();
        events.failed(options.errorMessage ? options.errorMessage(error) : `The model failed: ${messageOf(error)}`);
        return;
      }
      answer?.end();
      if (question) {
        events.inputRequired(events.agentMessage([events.textPart(question.text), events.dataPart({ toolCall: question.call })]));
        return;
      }
      events.completed();
    },
  };
  return executor;
}

/** A status update (working) whose message is one data part. */
function progress(events: EventPublisher, data: Record<string, unknown>): void {
  events.working(events.agentMessage([events.dataPart(data)]));
}

function questionText(toolName: string, input: unknown): string {
  if (isObject(input) && typeof input["question"] === "string") return input["question"];
  return `The agent needs your input (${toolName}): ${JSON.stringify(input)}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The conversation as the model's messages: each earlier task of the context (oldest first), the task's own
 * history (a follow-up turn: after input-required), then the user's message. A task's messages are its
 * history's texts (user → user, agent → assistant); its artifacts' texts, the agent's answers, come after
 * its last user message.
 */
async function conversationMessages(ctx: RequestContext, historyTasks: number): Promise<ModelMessage[]> {
  const messages: ModelMessage[] = [];
  const tasks = historyTasks > 0 ? await ctx.conversation({ limit: historyTasks }) : [];
  for (const task of ctx.task ? [...tasks, ctx.task] : tasks) messages.push(...taskMessages(task));
  messages.push({ role: "user", content: ctx.text });
  return messages;
}

function taskMessages(task: JsonObject): ModelMessage[] {
  const history = Array.isArray(task["history"]) ? task["history"].filter(isObject) : [];
  const answers = (Array.isArray(task["artifacts"]) ? task["artifacts"].filter(isObject) : []).map(textOf).filter((t) => t !== "");
  let lastUser = -1;
  history.forEach((m, i) => {
    if (!isAgent(m)) lastUser = i;
  });
  const out: ModelMessage[] = [];
  const pushAnswers = () => {
    for (const text of answers) out.push({ role: "assistant", content: text });
  };
  history.forEach((message, i) => {
    const text = textOf(message);
    if (text !== "") out.push(isAgent(message) ? { role: "assistant", content: text } : { role: "user", content: text });
    if (i === lastUser) pushAnswers();
  });
  if (lastUser < 0) pushAnswers();
  return out;
}

/** The texts of a message's or artifact's text parts, joined (1.0's `{ text }`, 0.x's `{ kind: "text", text }`). */
function textOf(holder: JsonObject): string {
  const parts = Array.isArray(holder["parts"]) ? holder["parts"] : [];
  return parts
    .filter(isObject)
    .map((p) => (typeof p["text"] === "string" ? p["text"] : ""))
    .join("");
}

/** Whether a message is the agent's ("agent" in 0.x, "ROLE_AGENT" in 1.0). */
function isAgent(message: JsonObject): boolean {
  return typeof message["role"] === "string" && /agent$/i.test(message["role"]);
}

// ---------------------------------------------------------------------------------------------------
// A remote A2A agent as an AI SDK tool

/** The generated client (`A2AClient` of the output's client.ts), as `a2aTool` uses it. */
export interface StreamingA2AClient<TParams> {
  sendStreamingMessage(params: TParams, options?: { signal?: AbortSignal }): AsyncIterable<unknown>;
}

/** The generated client class (`A2AClient`): its statics that build params and read results in the version's shape. */
export interface A2AClientClass<TParams, TClient extends StreamingA2AClient<TParams>> {
  fromAgentUrl(url: string): Promise<TClient>;
  sendParams(content: string, options?: { contextId?: string }): TParams;
  unwrap(result: unknown): unknown;
  canonical(value: unknown): string;
}

export interface A2AToolOptions {
  /** What the model reads to decide to call the agent: say what it is good at (default: "Send a message to the A2A agent at <url>."). */
  readonly description?: string;
  /** Keep one conversation (contextId) with the agent across calls of this tool (default true). */
  readonly sameContext?: boolean;
}

/** What the tool gives the model: the remote task's state and its answer's text so far (each progress step, then the last). */
export interface A2AToolOutput {
  state: string;
  text: string;
  taskId?: string;
  contextId?: string;
}

/**
 * A remote A2A agent as an AI SDK tool: the model sends it a message, the tool streams the agent's answer
 * (`message/stream`), yielding its progress (preliminary results: the state and the text so far) and
 * ending with its final state and text. `agent` is its base URL (its card is read on the first call) or a
 * client made already.
 */
export function a2aTool<TParams, TClient extends StreamingA2AClient<TParams>>(
  A2AClient: A2AClientClass<TParams, TClient>,
  agent: string | TClient,
  options: A2AToolOptions = {},
): Tool<{ message: string }, A2AToolOutput> {
  let client: Promise<TClient> | undefined;
  let contextId: string | undefined;
  return tool({
    description: options.description ?? (typeof agent === "string" ? `Send a message to the A2A agent at ${agent}.` : "Send a message to a remote A2A agent."),
    inputSchema: jsonSchema<{ message: string }>({
      type: "object",
      properties: { message: { type: "string", description: "The message for the agent." } },
      required: ["message"],
      additionalProperties: false,
    }),
    async *execute({ message }, { abortSignal }) {
      client ??= typeof agent === "string" ? A2AClient.fromAgentUrl(agent) : Promise.resolve(agent);
      const params = A2AClient.sendParams(message, options.sameContext !== false && contextId !== undefined ? { contextId } : {});
      const out: A2AToolOutput = { state: "submitted", text: "" };
      for await (const event of (await client).sendStreamingMessage(params, abortSignal ? { signal: abortSignal } : {})) {
        const item = A2AClient.unwrap(event);
        if (!isObject(item)) continue;
        readEvent(A2AClient, item, out);
        if (out.contextId !== undefined) contextId = out.contextId;
        yield { ...out };
      }
      return;
    },
  });
}

/** Folds one streamed result (a task, a message, a status or artifact update) into the output. */
function readEvent(A2AClient: { canonical(value: unknown): string }, item: JsonObject, out: A2AToolOutput): void {
  if (typeof item["contextId"] === "string") out.contextId = item["contextId"];
  const status = isObject(item["status"]) ? item["status"] : undefined;
  if (status && typeof status["state"] === "string") out.state = A2AClient.canonical(status["state"]);
  if (isObject(item["artifact"])) {
    // An artifact update: appended to the text, or the text anew.
    out.text = item["append"] === true ? out.text + textOf(item["artifact"]) : textOf(item["artifact"]);
  } else if (Array.isArray(item["artifacts"])) {
    const texts = item["artifacts"].filter(isObject).map(textOf).join("\n");
    if (texts !== "") out.text = texts;
  } else if (Array.isArray(item["parts"]) && item["status"] === undefined) {
    // A direct reply (a message, no task).
    out.text = textOf(item);
    out.state = "completed";
  }
  if (typeof item["id"] === "string" && status) out.taskId = item["id"];
  else if (typeof item["taskId"] === "string") out.taskId = item["taskId"];
  // A status message without any artifact text (input-required's question, a failure's reason) is the text.
  if (status && isObject(status["message"]) && out.text === "") out.text = textOf(status["message"]);
}
