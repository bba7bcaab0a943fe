/**
 * A scripted LangChain chat model for the LangGraph bridge tests (a `BaseChatModel` of @langchain/core:
 * the fakes of `@langchain/core/utils/testing` answer from a fixed list whatever they are asked, and these
 * tests need one model that answers by what it is asked). It answers by the last message of its input,
 * streaming its answer chunk by chunk as a provider does, and records every call (its messages and whether
 * its abort signal fired).
 *
 * - "story": three text chunks ("Once ", "upon ", "a time.").
 * - "weather": calls `getWeather` ({ city: "Paris" }); after the tool's result: "It is sunny in Paris."
 * - "book a table": calls `askUser` ({ question: "For which date?" }); after its result (the user's answer): "Booked for <answer>."
 * - "slow": one chunk, then nothing until its abort signal fires.
 * - "boom": the call fails with "rate limit exceeded".
 * - "cook": calls `cook` (which throws); after its error: "I could not cook."
 * - "ask the expert <question>": calls the `expert` tool with <question>; after its result: "The expert says: <its text>".
 * - anything else: "You said: <text>."
 */
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";

export interface ScriptedChatCall {
  messages: BaseMessage[];
  aborted: boolean;
}

/** The messages as `type: text` lines (tool calls by name), to assert on. */
export function messageLines(messages: readonly BaseMessage[]): string[] {
  return messages.map((m) => {
    const calls = AIMessage.isInstance(m) ? (m.tool_calls ?? []).map((c) => `[call ${c.name}]`) : [];
    return `${m.type}: ${[m.text, ...calls].filter((t) => t !== "").join(" ")}`;
  });
}

const textChunks = (...texts: string[]): AIMessageChunk[] => texts.map((content) => new AIMessageChunk({ content }));
const toolCall = (name: string, args: Record<string, unknown>): AIMessageChunk[] => [
  new AIMessageChunk({ content: "", tool_call_chunks: [{ type: "tool_call_chunk", id: `call-${name}`, name, args: JSON.stringify(args), index: 0 }] }),
];

export class ScriptedChatModel extends BaseChatModel {
  readonly calls: ScriptedChatCall[] = [];

  constructor() {
    super({});
  }

  _llmType(): string {
    return "scripted";
  }

  /** The tools are the graph's (its ToolNode runs them): the script names them itself. */
  override bindTools(): this {
    return this;
  }

  async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"], runManager?: CallbackManagerForLLMRun): Promise<ChatResult> {
    let message: AIMessageChunk | undefined;
    for await (const chunk of this._streamResponseChunks(messages, options, runManager)) message = message ? message.concat(chunk.message as AIMessageChunk) : (chunk.message as AIMessageChunk);
    return { generations: [{ text: message?.text ?? "", message: message ?? new AIMessageChunk("") }] };
  }

  override async *_streamResponseChunks(messages: BaseMessage[], options: this["ParsedCallOptions"], runManager?: CallbackManagerForLLMRun): AsyncGenerator<ChatGenerationChunk> {
    const call: ScriptedChatCall = { messages: [...messages], aborted: false };
    this.calls.push(call);
    const signal = options.signal;
    signal?.addEventListener("abort", () => (call.aborted = true), { once: true });
    const last = messages[messages.length - 1];
    const said = [...messages].reverse().find((m) => m.type === "human")?.text ?? "";
    let chunks: AIMessageChunk[];
    if (last?.type === "tool") {
      const result = last.text;
      chunks =
        said === "weather" ? textChunks("It is sunny ", "in Paris.")
        : said === "book a table" ? textChunks(`Booked for ${result}.`)
        : said === "cook" ? textChunks("I could not cook.")
        : textChunks(`The expert says: ${(JSON.parse(result) as { text?: string }).text ?? "?"}`);
    } else if (said === "story") chunks = textChunks("Once ", "upon ", "a time.");
    else if (said === "weather") chunks = toolCall("getWeather", { city: "Paris" });
    else if (said === "book a table") chunks = toolCall("askUser", { question: "For which date?" });
    else if (said === "cook") chunks = toolCall("cook", {});
    else if (said.startsWith("ask the expert ")) chunks = toolCall("expert", { message: said.slice("ask the expert ".length) });
    else if (said === "boom") throw new Error("rate limit exceeded");
    else if (said === "slow") {
      yield* this.emit(textChunks("Thinking"), runManager);
      await new Promise<void>((_, reject) => {
        if (signal?.aborted) reject(signal.reason);
        signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
      return;
    } else chunks = textChunks(`You said: ${said}.`);
    yield* this.emit(chunks, runManager);
  }

  private async *emit(chunks: AIMessageChunk[], runManager?: CallbackManagerForLLMRun): AsyncGenerator<ChatGenerationChunk> {
    for (const message of chunks) {
      const chunk = new ChatGenerationChunk({ message, text: message.text });
      yield chunk;
      await runManager?.handleLLMNewToken(chunk.text, undefined, undefined, undefined, undefined, { chunk });
    }
  }
}
