/**
 * A scripted AI SDK model for the bridge tests (MockLanguageModelV4 of `ai/test`): it answers by the last
 * user text of its prompt, so that one model serves every test, and records every call (its prompt and
 * whether its abort signal fired).
 *
 * - "story": three text deltas ("Once ", "upon ", "a time.").
 * - "weather": calls the `getWeather` tool ({ city: "Paris" }); after the tool's result: "It is sunny in Paris."
 * - "book a table": calls `askUser` ({ question: "For which date?" }); any later user text: "Booked for <text>."
 * - "slow": one delta, then nothing until its abort signal fires.
 * - "boom": the call fails with "rate limit exceeded".
 * - "ask the expert <question>": calls the `expert` tool (an a2aTool) with <question>; after its result: "The expert says: <output text>".
 */
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { simulateReadableStream } from "ai";
import { MockLanguageModelV4 } from "ai/test";

const FINISH = (reason: "stop" | "tool-calls"): LanguageModelV4StreamPart => ({
  type: "finish",
  finishReason: { unified: reason, raw: undefined },
  usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
});

const text = (...deltas: string[]): LanguageModelV4StreamPart[] => [
  { type: "text-start", id: "t" },
  ...deltas.map((delta): LanguageModelV4StreamPart => ({ type: "text-delta", id: "t", delta })),
  { type: "text-end", id: "t" },
  FINISH("stop"),
];

const toolCall = (toolName: string, input: unknown): LanguageModelV4StreamPart[] => [
  { type: "tool-call", toolCallId: `call-${toolName}`, toolName, input: JSON.stringify(input) },
  FINISH("tool-calls"),
];

export interface ScriptedCall {
  prompt: LanguageModelV4CallOptions["prompt"];
  aborted: boolean;
}

/** The prompt's messages as `role: text` lines (tool calls and results by name), to assert on. */
export function promptLines(prompt: LanguageModelV4CallOptions["prompt"]): string[] {
  return prompt.map((m) => {
    if (typeof m.content === "string") return `${m.role}: ${m.content}`;
    return `${m.role}: ${m.content
      .map((p) => (p.type === "text" ? p.text : p.type === "tool-call" ? `[call ${p.toolName}]` : p.type === "tool-result" ? `[result ${p.toolName}]` : `[${p.type}]`))
      .join(" ")}`;
  });
}

export function scriptedModel(): { model: MockLanguageModelV4; calls: ScriptedCall[] } {
  const calls: ScriptedCall[] = [];
  const model = new MockLanguageModelV4({
    doStream: async (options) => {
      const call: ScriptedCall = { prompt: options.prompt, aborted: false };
      calls.push(call);
      options.abortSignal?.addEventListener("abort", () => (call.aborted = true), { once: true });
      const last = options.prompt[options.prompt.length - 1];
      const userTexts = options.prompt.filter((m) => m.role === "user").map((m) => (m.content as Array<{ type: string; text?: string }>).map((p) => p.text ?? "").join(""));
      const said = userTexts[userTexts.length - 1] ?? "";
      let chunks: LanguageModelV4StreamPart[];
      if (last?.role === "tool") {
        const result = last.content[0];
        const output = result?.type === "tool-result" ? result.output : undefined;
        const value = output?.type === "json" ? (output.value as { text?: string }) : undefined;
        chunks = said === "weather" ? text("It is sunny ", "in Paris.") : text(`The expert says: ${value?.text ?? "?"}`);
      } else if (said === "story") chunks = text("Once ", "upon ", "a time.");
      else if (said === "weather") chunks = toolCall("getWeather", { city: "Paris" });
      else if (said === "book a table") chunks = toolCall("askUser", { question: "For which date?" });
      else if (said.startsWith("ask the expert ")) chunks = toolCall("expert", { message: said.slice("ask the expert ".length) });
      else if (said === "boom") throw new Error("rate limit exceeded");
      else if (said === "slow") {
        const signal = options.abortSignal;
        return {
          stream: new ReadableStream<LanguageModelV4StreamPart>({
            start(controller) {
              controller.enqueue({ type: "text-start", id: "t" });
              controller.enqueue({ type: "text-delta", id: "t", delta: "Thinking" });
              signal?.addEventListener("abort", () => controller.error(signal.reason), { once: true });
            },
          }),
        };
      } else chunks = text(`Booked for ${said}.`);
      return { stream: simulateReadableStream({ chunks }) };
    },
  });
  return { model, calls };
}
