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
import type { AgentExecutor, AgentExecutorOfAnyVersion, RequestContext } from "../tasks/executor.js";
import { conversationTurns, messageOf, progress } from "./conversation.js";
import { remoteAgentAnswers, remoteAgentDescription, type A2AClientClass, type A2AToolOptions, type A2AToolOutput, type StreamingA2AClient } from "./remote-agent.js";

export type { A2AClientClass, A2AToolOptions, A2AToolOutput, StreamingA2AClient } from "./remote-agent.js";

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

function questionText(toolName: string, input: unknown): string {
  if (isObject(input) && typeof input["question"] === "string") return input["question"];
  return `The agent needs your input (${toolName}): ${JSON.stringify(input)}`;
}

/** The conversation (conversation.ts) as the model's messages. */
async function conversationMessages(ctx: RequestContext, historyTasks: number): Promise<ModelMessage[]> {
  return (await conversationTurns(ctx, historyTasks)).map((turn): ModelMessage => (turn.role === "user" ? { role: "user", content: turn.text } : { role: "assistant", content: turn.text }));
}

// ---------------------------------------------------------------------------------------------------
// A remote A2A agent as an AI SDK tool

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
  const send = remoteAgentAnswers(A2AClient, agent, options);
  return tool({
    description: remoteAgentDescription(agent, options),
    inputSchema: jsonSchema<{ message: string }>({
      type: "object",
      properties: { message: { type: "string", description: "The message for the agent." } },
      required: ["message"],
      additionalProperties: false,
    }),
    async *execute({ message }, { abortSignal }) {
      yield* send(message, abortSignal);
    },
  });
}
