/**
 * examples/two-agents: generated from its own config (1.0.1 with the AI SDK bridge), type-checked under
 * strict, then run with a scripted model that decides to ask the dictionary agent: the assistant's
 * stream shows the delegation (a tool call, the dictionary's streamed progress, its result) and answers
 * with what the dictionary agent streamed.
 */
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { simulateReadableStream, type LanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config.js";
import { generate, writeResult } from "../../../src/generate.js";
import { ROOT } from "../../support/project.js";

const EXAMPLE = join(ROOT, "examples", "two-agents");

type StreamPart = Awaited<ReturnType<MockLanguageModelV4["doStream"]>>["stream"] extends ReadableStream<infer P> ? P : never;
const finish = (unified: "stop" | "tool-calls"): StreamPart => ({
  type: "finish",
  finishReason: { unified, raw: undefined },
  usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
});

/** First step: ask the dictionary; after its result: say what it said. */
const model = new MockLanguageModelV4({
  doStream: async ({ prompt }) => {
    const last = prompt[prompt.length - 1];
    if (last?.role === "tool") {
      const result = last.content[0];
      const said = result?.type === "tool-result" && result.output.type === "json" ? (result.output.value as { text: string }).text : "?";
      return { stream: simulateReadableStream<StreamPart>({ chunks: [{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: `The dictionary says: ${said}` }, { type: "text-end", id: "t" }, finish("stop")] }) };
    }
    return { stream: simulateReadableStream<StreamPart>({ chunks: [{ type: "tool-call", toolCallId: "c1", toolName: "dictionary", input: JSON.stringify({ message: "serendipity" }) }, finish("tool-calls")] }) };
  },
});

interface Example {
  startAgents(model: LanguageModel): Promise<{ assistantUrl: string; close(): Promise<void> }>;
  ask(url: string, question: string, print?: (line: string) => void): Promise<string>;
}

beforeAll(async () => {
  const config = await loadConfig(EXAMPLE);
  const target = config?.targets[0];
  if (!target) throw new Error("examples/two-agents has no a2a-codegen.config.json target");
  writeResult(await generate({ ...target, cwd: EXAMPLE }), EXAMPLE);
}, 120_000);

afterAll(() => rmSync(join(EXAMPLE, "generated"), { recursive: true, force: true }));

describe("examples/two-agents", () => {
  it("type-checks under strict against its generated output", () => {
    const tsc = spawnSync(join(ROOT, "node_modules", ".bin", "tsc"), ["-p", join(EXAMPLE, "tsconfig.json")], { encoding: "utf8" });
    expect(`${tsc.stdout}${tsc.stderr}`).toBe("");
    expect(tsc.status).toBe(0);
  });

  it("the assistant delegates to the dictionary agent over A2A and answers with its streamed answer", async () => {
    const example = (await import(join(EXAMPLE, "agents.ts"))) as Example;
    const agents = await example.startAgents(model);
    try {
      const lines: string[] = [];
      const answer = await example.ask(agents.assistantUrl, "What does serendipity mean?", (line) => lines.push(line));
      expect(answer).toBe("The dictionary says: serendipity: finding something good without looking for it.");
      expect(lines[0]).toContain('[toolCall] {"toolCall":{"toolCallId":"c1","toolName":"dictionary","input":{"message":"serendipity"}}}');
      expect(lines.some((l) => l.startsWith("  [toolProgress]"))).toBe(true);
      expect(lines.some((l) => l.startsWith("  [toolResult]") && l.includes('"state":"completed"'))).toBe(true);
    } finally {
      await agents.close();
    }
  });
});
