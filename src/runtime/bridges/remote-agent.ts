/**
 * A remote A2A agent's streamed answer, read through the generated client, as every bridge's `a2aTool`
 * gives it to its model: the remote task's state and its answer's text so far, after each streamed event.
 * Each bridge wraps `remoteAgentAnswers` in its framework's tool (ai-sdk.ts, langgraph.ts).
 */
import { isObject, type JsonObject } from "../json.js";
import { textOf } from "./conversation.js";

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

/** The default description of an `a2aTool`. */
export function remoteAgentDescription(agent: unknown, options: A2AToolOptions): string {
  return options.description ?? (typeof agent === "string" ? `Send a message to the A2A agent at ${agent}.` : "Send a message to a remote A2A agent.");
}

/**
 * One remote agent's conversation: `send(message)` streams the agent's answer (`message/stream` or
 * `SendStreamingMessage`), yielding the output after each event. `agent` is its base URL (its card is read
 * on the first send) or a client made already; with `sameContext` (the default) every send after the first
 * continues the first one's contextId.
 */
export function remoteAgentAnswers<TParams, TClient extends StreamingA2AClient<TParams>>(
  A2AClient: A2AClientClass<TParams, TClient>,
  agent: string | TClient,
  options: A2AToolOptions = {},
): (message: string, signal?: AbortSignal) => AsyncGenerator<A2AToolOutput, void, undefined> {
  let client: Promise<TClient> | undefined;
  let contextId: string | undefined;
  return async function* send(message, signal) {
    client ??= typeof agent === "string" ? A2AClient.fromAgentUrl(agent) : Promise.resolve(agent);
    const params = A2AClient.sendParams(message, options.sameContext !== false && contextId !== undefined ? { contextId } : {});
    const out: A2AToolOutput = { state: "submitted", text: "" };
    for await (const event of (await client).sendStreamingMessage(params, signal ? { signal } : {})) {
      const item = A2AClient.unwrap(event);
      if (!isObject(item)) continue;
      readEvent(A2AClient, item, out);
      if (out.contextId !== undefined) contextId = out.contextId;
      yield { ...out };
    }
  };
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
