/**
 * The LangGraph.js bridge (runtime/bridges/langgraph.ts, emitted with `--bridge langgraph`) in a generated
 * 1.0.1 output: a StateGraph of a scripted chat model (scripted-chat-model.ts) and a ToolNode, compiled
 * with a checkpointer, called by the generated client over JSON-RPC, HTTP+JSON and gRPC. What a client sees
 * (1.0.1 §3.1.2 SendStreamingMessage, §4.2.2 TaskArtifactUpdateEvent, §3.4.1 contextId, §3.1.5 CancelTask):
 * - the models' streamed text as one artifact, its chunks in order, appended after the first, the last marked;
 * - a tool call and its result as working status updates carrying a data part;
 * - an interrupt (the askUser tool) ends the turn input-required with its question; the answer resumes the
 *   graph, whose model then sees the whole exchange; the ended task's thread leaves the checkpointer;
 * - a tool's error is a toolError data part (a ToolNode reports it to the model, which goes on);
 * - canceling the task aborts the model call; an error fails the task with the error's message.
 * The same agent serves 0.3 clients too (`--compat 0.3.0`): they see the same turns in 0.3.0's shapes. The
 * other direction, `a2aTool`, is a remote A2A agent as a LangChain tool the graph delegates to.
 */
import { mkdirSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { join } from "node:path";
import type { BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { MemorySaver, MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import { createReactAgent, ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate, writeResult } from "../../../src/generate.js";
import { ROOT } from "../../support/project.js";
import { listenOn, withFreePorts } from "../../support/ports.js";
import { messageLines, ScriptedChatModel } from "./scripted-chat-model.js";

const OUT = join(ROOT, "node_modules", ".cache", "a2a-codegen-langgraph-bridge", "a2a-1.0.1");

type Json = Record<string, unknown>;
type Factory = { binding: string };
interface ClientLike {
  sendMessage(params: unknown): Promise<Json>;
  sendStreamingMessage(params: unknown): AsyncGenerator<Json, void, undefined>;
  getTask(params: unknown): Promise<Json>;
  cancelTask(params: unknown): Promise<Json>;
}
interface ClientModule {
  A2AClient: {
    fromAgentUrl(url: string, options?: Json): Promise<ClientLike>;
    sendParams(text: string, options?: Json): unknown;
  };
  restTransport: Factory;
}
interface BridgeModule {
  langGraphExecutor(options: Json): unknown;
  askUserTool(description?: string): StructuredToolInterface;
  a2aTool(A2AClient: unknown, agent: unknown, options?: Json): StructuredToolInterface;
}
interface Events {
  working(m?: string): void;
  artifactStream(init?: Json): { write(chunk: string): void; end(): void };
  completed(m?: string): void;
}
interface Core {
  service: { close(): Promise<void> };
}

/** A tool-calling agent graph: the model node, then the tools it called, until it answers. */
function agentGraph(model: ScriptedChatModel, tools: StructuredToolInterface[], checkpointer?: MemorySaver) {
  const bound = model.bindTools();
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state: { messages: BaseMessage[] }, config: RunnableConfig) => ({ messages: [await bound.invoke(state.messages, config)] }))
    .addNode("tools", new ToolNode(tools))
    .addEdge("__start__", "agent")
    .addConditionalEdges("agent", toolsCondition)
    .addEdge("tools", "agent")
    .compile(checkpointer ? { checkpointer } : {});
}

const model = new ScriptedChatModel();
const saver = new MemorySaver();
const threadOf = (taskId: string) => saver.getTuple({ configurable: { thread_id: taskId } });
let client: ClientModule;
let client03: ClientModule;
let bridge: BridgeModule;
let grpcTransport: Factory;
/** The generated opt-in schema checks (client-validation.ts): every answer is validated. */
let clientValidation: unknown;
const servers: Server[] = [];
const cores: Core[] = [];
let grpcHandle: { close(graceMs?: number): Promise<void> } | undefined;
let baseUrl: string;
let expertUrl: string;
let chainUrl: string;
let reactUrl: string;

const card = (urls: Array<[string, string]>, name: string) => ({
  name,
  description: `${name} for the LangGraph bridge tests`,
  supportedInterfaces: urls.map(([url, protocolBinding]) => ({ url, protocolBinding, protocolVersion: "1.0" })),
  version: "1.0.0",
  capabilities: { streaming: true },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [],
});

beforeAll(async () => {
  const result = await generate({ spec: "1.0.1", compat: "0.3.0", transports: ["jsonrpc", "rest", "grpc"], bridges: ["langgraph"], out: OUT, cwd: ROOT });
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  writeResult(result, ROOT);
  client = (await import(join(OUT, "client.ts"))) as ClientModule;
  client03 = (await import(join(OUT, "compat", "a2a-0.3.0", "client.ts"))) as ClientModule;
  grpcTransport = ((await import(join(OUT, "grpc-client.ts"))) as { grpcTransport: Factory }).grpcTransport;
  clientValidation = ((await import(join(OUT, "client-validation.ts"))) as { clientValidation: unknown }).clientValidation;
  const core = (await import(join(OUT, "server", "core.ts"))) as { createA2AServer(o: Json): Core };
  const node = (await import(join(OUT, "server", "node.ts"))) as { createNodeServer(c: unknown): Server };
  const grpcServer = (await import(join(OUT, "server", "grpc.ts"))) as { serveGrpc(c: unknown, o?: Json): Promise<typeof grpcHandle> };
  bridge = (await import(join(OUT, "runtime", "bridges", "langgraph.ts"))) as BridgeModule;
  const getWeather = tool(async (input: unknown) => ({ city: (input as { city: string }).city, forecast: "sunny" }), {
    name: "getWeather",
    description: "The weather of a city",
    schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  });
  const cook = tool(
    async (): Promise<string> => {
      throw new Error("the oven is broken");
    },
    { name: "cook", description: "Cooks", schema: { type: "object", properties: {} } },
  );
  const executor = bridge.langGraphExecutor({ graph: agentGraph(model, [getWeather, cook, bridge.askUserTool()], saver) });
  // The remote agent of the a2aTool tests: its answer in chunks of one artifact.
  const expert = {
    async execute(ctx: { text: string }, events: Events) {
      events.working();
      const answer = events.artifactStream({ name: "answer" });
      for (const chunk of ["The answer ", "to ", `"${ctx.text}" `, "is 42."]) answer.write(chunk);
      answer.end();
      events.completed();
    },
  };
  await withFreePorts(5, async ([httpPort, port, expertPort, chainPort, reactPort]) => {
    baseUrl = `http://127.0.0.1:${httpPort}`;
    expertUrl = `http://127.0.0.1:${expertPort}`;
    chainUrl = `http://127.0.0.1:${chainPort}`;
    reactUrl = `http://127.0.0.1:${reactPort}`;
    const server = core.createA2AServer({
      card: card([[`${baseUrl}/rpc`, "JSONRPC"], [`${baseUrl}/rest`, "HTTP+JSON"], [`127.0.0.1:${port}`, "GRPC"]], "LangGraph agent"),
      executor,
      transports: ["GRPC"],
      compat: {},
      logger: { error: () => undefined, warn: () => undefined },
    });
    const remote = core.createA2AServer({ card: card([[`${expertUrl}/rpc`, "JSONRPC"]], "Expert"), executor: expert });
    // The chain: a graph (no checkpointer) whose model delegates to the expert.
    const chain = core.createA2AServer({
      card: card([[`${chainUrl}/rpc`, "JSONRPC"]], "Delegating agent"),
      executor: bridge.langGraphExecutor({ graph: agentGraph(new ScriptedChatModel(), [bridge.a2aTool(client.A2AClient, expertUrl, { name: "expert" }), bridge.askUserTool()]) }),
      logger: { error: () => undefined, warn: () => undefined },
    });
    // The prebuilt agent graph of @langchain/langgraph (createReactAgent), as it comes.
    const react = core.createA2AServer({
      card: card([[`${reactUrl}/rpc`, "JSONRPC"]], "Prebuilt agent"),
      executor: bridge.langGraphExecutor({ graph: createReactAgent({ llm: new ScriptedChatModel(), tools: [getWeather, bridge.askUserTool()], checkpointSaver: new MemorySaver() }) }),
      logger: { error: () => undefined, warn: () => undefined },
    });
    cores.push(server, remote, chain, react);
    grpcHandle = await grpcServer.serveGrpc(server, { port });
    for (const [core, p] of [[server, httpPort], [remote, expertPort], [chain, chainPort], [react, reactPort]] as const) {
      const http = node.createNodeServer(core);
      servers.push(http);
      await listenOn(http, p as number);
    }
  });
}, 120_000);

afterAll(async () => {
  for (const http of servers) {
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  }
  await grpcHandle?.close(0);
  for (const core of cores) await core.service.close();
  rmSync(join(OUT, ".."), { recursive: true, force: true });
});

const unwrapped = (event: Json): { kind: string; value: Json } => {
  const [kind, value] = Object.entries(event)[0] as [string, Json];
  return { kind, value };
};
const texts = (holder: Json | undefined) => ((holder?.["parts"] as Json[] | undefined) ?? []).map((p) => p["text"]).filter((t) => typeof t === "string");
const dataParts = (status: Json) => (((status["message"] as Json | undefined)?.["parts"] as Json[] | undefined) ?? []).map((p) => p["data"]).filter((d) => d !== undefined) as Json[];

async function collect(stream: AsyncIterable<Json>): Promise<Array<{ kind: string; value: Json }>> {
  const out: Array<{ kind: string; value: Json }> = [];
  for await (const event of stream) out.push(unwrapped(event));
  return out;
}

for (const binding of ["JSONRPC", "HTTP+JSON", "GRPC"] as const) {
  describe(`the LangGraph bridge over ${binding}`, () => {
    const connect = () => client.A2AClient.fromAgentUrl(baseUrl, { transports: [client.restTransport, grpcTransport], binding, validation: clientValidation });

    it("streams the model's text as one artifact: chunks in order, appended, the last one marked (§4.2.2)", async () => {
      const a2a = await connect();
      const events = await collect(a2a.sendStreamingMessage(client.A2AClient.sendParams("story")));
      const chunks = events.filter((e) => e.kind === "artifactUpdate").map((e) => e.value);
      expect(chunks.map((c) => texts(c["artifact"] as Json).join(""))).toEqual(["Once ", "upon ", "a time."]);
      expect(chunks.map((c) => c["append"] === true)).toEqual([false, true, true]);
      expect(chunks.map((c) => c["lastChunk"] === true)).toEqual([false, false, true]);
      expect(new Set(chunks.map((c) => (c["artifact"] as Json)["artifactId"])).size).toBe(1);
      const last = events[events.length - 1] as { kind: string; value: Json };
      expect((last.value["status"] as Json)["state"]).toBe("TASK_STATE_COMPLETED");
    });

    it("shows a tool call and its result as status updates with a data part, then the answer", async () => {
      const a2a = await connect();
      const events = await collect(a2a.sendStreamingMessage(client.A2AClient.sendParams("weather")));
      const data = events.filter((e) => e.kind === "statusUpdate").flatMap((e) => dataParts(e.value["status"] as Json));
      expect(data).toEqual([
        { toolCall: { toolCallId: "call-getWeather", toolName: "getWeather", input: { city: "Paris" } } },
        { toolResult: { toolCallId: "call-getWeather", toolName: "getWeather", output: { city: "Paris", forecast: "sunny" } } },
      ]);
      const answer = events.filter((e) => e.kind === "artifactUpdate").map((e) => texts(e.value["artifact"] as Json).join("")).join("");
      expect(answer).toBe("It is sunny in Paris.");
    });

    it("an interrupt ends the turn input-required with its question; the answer resumes the graph, which sees the whole exchange", async () => {
      const a2a = await connect();
      const first = await collect(a2a.sendStreamingMessage(client.A2AClient.sendParams("book a table")));
      const asked = first[first.length - 1] as { kind: string; value: Json };
      const status = asked.value["status"] as Json;
      expect(status["state"]).toBe("TASK_STATE_INPUT_REQUIRED");
      expect(texts(status["message"] as Json)).toEqual(["For which date?"]);
      expect(dataParts(status)).toEqual([{ interrupt: { id: expect.any(String), value: { question: "For which date?" } } }]);
      const taskId = asked.value["taskId"] as string;
      const contextId = asked.value["contextId"] as string;
      expect(await threadOf(taskId)).toBeDefined();
      const before = model.calls.length;
      const second = await collect(a2a.sendStreamingMessage(client.A2AClient.sendParams("tomorrow", { taskId, contextId })));
      const data = second.filter((e) => e.kind === "statusUpdate").flatMap((e) => dataParts(e.value["status"] as Json));
      expect(data).toEqual([{ toolResult: { toolCallId: "call-askUser", toolName: "askUser", output: "tomorrow" } }]);
      const answer = second.filter((e) => e.kind === "artifactUpdate").map((e) => texts(e.value["artifact"] as Json).join("")).join("");
      expect(answer).toBe("Booked for tomorrow.");
      const call = model.calls[before];
      expect(call && messageLines(call.messages)).toEqual(["human: book a table", "ai: [call askUser]", "tool: tomorrow"]);
      const done = await a2a.getTask({ id: taskId });
      expect((done["status"] as Json)["state"]).toBe("TASK_STATE_COMPLETED");
      // The task ended: its thread is deleted from the checkpointer.
      expect(await threadOf(taskId)).toBeUndefined();
    });

    it("a later task of the same context sees the earlier ones (§3.4.1)", async () => {
      const a2a = await connect();
      const first = await a2a.sendMessage(client.A2AClient.sendParams("story"));
      const contextId = (first["task"] as Json)["contextId"] as string;
      const before = model.calls.length;
      await a2a.sendMessage(client.A2AClient.sendParams("weather", { contextId }));
      const call = model.calls[before];
      expect(call && messageLines(call.messages)).toEqual(["human: story", "ai: Once upon a time.", "human: weather"]);
    });

    it("canceling the task aborts the model call (§3.1.5)", async () => {
      const a2a = await connect();
      const before = model.calls.length;
      const stream = a2a.sendStreamingMessage(client.A2AClient.sendParams("slow"));
      let taskId: string | undefined;
      let state: unknown;
      for await (const event of stream) {
        const { kind, value } = unwrapped(event);
        if (kind === "artifactUpdate" || kind === "task" || kind === "statusUpdate") taskId ??= (value["taskId"] ?? value["id"]) as string;
        if (kind === "statusUpdate") state = (value["status"] as Json)["state"];
        // The first chunk is held back until the next (or the end): the model call is running once the task works.
        if (state === "TASK_STATE_WORKING" && taskId !== undefined && model.calls.length > before) {
          const canceled = await a2a.cancelTask({ id: taskId });
          expect((canceled["status"] as Json)["state"]).toBe("TASK_STATE_CANCELED");
          state = undefined;
        }
      }
      expect(model.calls[before]?.aborted).toBe(true);
      const task = await a2a.getTask({ id: taskId });
      expect((task["status"] as Json)["state"]).toBe("TASK_STATE_CANCELED");
    });

    it("an error of the model fails the task with the error's message", async () => {
      const a2a = await connect();
      const events = await collect(a2a.sendStreamingMessage(client.A2AClient.sendParams("boom")));
      const last = events[events.length - 1] as { kind: string; value: Json };
      const status = last.value["status"] as Json;
      expect(status["state"]).toBe("TASK_STATE_FAILED");
      expect(texts(status["message"] as Json).join("")).toBe("The agent failed: rate limit exceeded");
    });
  });
}

describe("the LangGraph bridge: tool errors, and an interrupt without a checkpointer", () => {
  it("a tool's error is a status update with a toolError data part, and the model goes on", async () => {
    const a2a = await client.A2AClient.fromAgentUrl(baseUrl);
    const events = await collect(a2a.sendStreamingMessage(client.A2AClient.sendParams("cook")));
    const data = events.filter((e) => e.kind === "statusUpdate").flatMap((e) => dataParts(e.value["status"] as Json));
    expect(data[0]).toEqual({ toolCall: { toolCallId: "call-cook", toolName: "cook", input: {} } });
    expect(data[1]).toMatchObject({ toolError: { toolCallId: "call-cook", toolName: "cook", error: expect.stringContaining("the oven is broken") } });
    const answer = events.filter((e) => e.kind === "artifactUpdate").map((e) => texts(e.value["artifact"] as Json).join("")).join("");
    expect(answer).toBe("I could not cook.");
    expect(((events[events.length - 1] as { value: Json }).value["status"] as Json)["state"]).toBe("TASK_STATE_COMPLETED");
  });

  it("an interrupt in a graph without a checkpointer cannot ask: LangGraph throws, and the ToolNode reports it as the tool's error", async () => {
    const a2a = await client.A2AClient.fromAgentUrl(chainUrl);
    const events = await collect(a2a.sendStreamingMessage(client.A2AClient.sendParams("book a table")));
    const data = events.filter((e) => e.kind === "statusUpdate").flatMap((e) => dataParts(e.value["status"] as Json));
    expect(data[1]).toMatchObject({ toolError: { toolName: "askUser", error: expect.stringContaining("No checkpointer set") } });
    const states = events.filter((e) => e.kind === "statusUpdate").map((e) => (e.value["status"] as Json)["state"]);
    expect(states).not.toContain("TASK_STATE_INPUT_REQUIRED");
  });
});

describe("the LangGraph bridge runs the prebuilt createReactAgent graph", () => {
  it("its tool call, result and streamed answer; its interrupt asks, and the answer resumes it", async () => {
    const a2a = await client.A2AClient.fromAgentUrl(reactUrl);
    const events = await collect(a2a.sendStreamingMessage(client.A2AClient.sendParams("weather")));
    const data = events.filter((e) => e.kind === "statusUpdate").flatMap((e) => dataParts(e.value["status"] as Json));
    expect(data.map((d) => Object.keys(d)[0])).toEqual(["toolCall", "toolResult"]);
    const chunks = events.filter((e) => e.kind === "artifactUpdate").map((e) => texts(e.value["artifact"] as Json).join(""));
    expect(chunks).toEqual(["It is sunny ", "in Paris."]);
    const first = await collect(a2a.sendStreamingMessage(client.A2AClient.sendParams("book a table")));
    const asked = (first[first.length - 1] as { value: Json }).value;
    expect((asked["status"] as Json)["state"]).toBe("TASK_STATE_INPUT_REQUIRED");
    const second = await a2a.sendMessage(client.A2AClient.sendParams("monday", { taskId: asked["taskId"], contextId: asked["contextId"] }));
    const task = second["task"] as Json;
    expect((task["status"] as Json)["state"]).toBe("TASK_STATE_COMPLETED");
    expect(((task["artifacts"] as Json[]) ?? []).map((a) => texts(a).join("")).join("")).toBe("Booked for monday.");
  });
});

describe("the LangGraph bridge is emitted only when chosen", () => {
  const importers = (files: Record<string, string>, pkg: RegExp) => Object.keys(files).filter((path) => path.endsWith(".ts") && pkg.test(files[path] ?? "")).sort();

  it("only runtime/bridges/langgraph.ts imports @langchain/*, and only with --bridge langgraph", async () => {
    const chosen = await generate({ spec: "1.0.1", bridges: ["langgraph"], out: OUT, cwd: ROOT });
    expect(importers(chosen.files, /from "@langchain\//)).toEqual(["runtime/bridges/langgraph.ts"]);
    expect(Object.keys(chosen.files).filter((p) => p.startsWith("runtime/bridges/")).sort()).toEqual(["runtime/bridges/conversation.ts", "runtime/bridges/langgraph.ts", "runtime/bridges/remote-agent.ts"]);
    const plain = await generate({ spec: "1.0.1", out: OUT, cwd: ROOT });
    expect(importers(plain.files, /from "@langchain\//)).toEqual([]);
    expect(Object.keys(plain.files).filter((p) => p.startsWith("runtime/bridges/"))).toEqual([]);
  });
});

describe("the LangGraph bridge for a 0.3 client of the compat agent (0.3.0 message/stream)", () => {
  const connect = () => client03.A2AClient.fromAgentUrl(baseUrl);
  const collect03 = async (stream: AsyncIterable<Json>) => {
    const out: Json[] = [];
    for await (const event of stream) out.push(event);
    return out;
  };

  it("streams the answer as artifact-update events, appended, the last one marked", async () => {
    const a2a = await connect();
    const events = await collect03(a2a.sendStreamingMessage(client03.A2AClient.sendParams("story")));
    const chunks = events.filter((e) => e["kind"] === "artifact-update");
    expect(chunks.map((c) => texts(c["artifact"] as Json).join(""))).toEqual(["Once ", "upon ", "a time."]);
    expect(chunks.map((c) => c["append"] === true)).toEqual([false, true, true]);
    expect(chunks.map((c) => c["lastChunk"] === true)).toEqual([false, false, true]);
    expect(events[events.length - 1]).toMatchObject({ kind: "status-update", final: true, status: { state: "completed" } });
  });

  it("input-required, then the answer resumes the graph; a tool call is a data part", async () => {
    const a2a = await connect();
    const first = await collect03(a2a.sendStreamingMessage(client03.A2AClient.sendParams("book a table")));
    const calls = first.filter((e) => e["kind"] === "status-update").flatMap((e) => (((e["status"] as Json)["message"] as Json | undefined)?.["parts"] as Json[] | undefined) ?? []);
    expect(calls).toContainEqual({ kind: "data", data: { toolCall: { toolCallId: "call-askUser", toolName: "askUser", input: { question: "For which date?" } } } });
    const asked = first[first.length - 1] as Json;
    expect(asked).toMatchObject({ kind: "status-update", final: true, status: { state: "input-required" } });
    const second = await collect03(a2a.sendStreamingMessage(client03.A2AClient.sendParams("friday", { taskId: asked["taskId"], contextId: asked["contextId"] })));
    expect(second[second.length - 1]).toMatchObject({ status: { state: "completed" } });
    const answer = second.filter((e) => e["kind"] === "artifact-update").map((e) => texts(e["artifact"] as Json).join("")).join("");
    expect(answer).toBe("Booked for friday.");
  });

  it("an error of the model fails the task with its message", async () => {
    const a2a = await connect();
    const events = await collect03(a2a.sendStreamingMessage(client03.A2AClient.sendParams("boom")));
    const last = events[events.length - 1] as Json;
    expect(last).toMatchObject({ kind: "status-update", status: { state: "failed" } });
    expect(texts((last["status"] as Json)["message"] as Json).join("")).toContain("rate limit exceeded");
  });
});

describe("a2aTool: a remote A2A agent as a LangChain tool", () => {
  it("the tool streams the remote agent's answer as its events and returns the final state and text", async () => {
    const expertTool = bridge.a2aTool(client.A2AClient, expertUrl, { name: "expert" });
    const progress: string[] = [];
    // The tool's events reach the callbacks of its call (the graph's "tools" stream mode reads them so).
    const output = await expertTool.invoke({ message: "what is six times seven" }, { callbacks: [{ handleToolEvent: (chunk: unknown) => void progress.push((chunk as Json)["text"] as string) }] });
    // The text grows chunk by chunk as the remote agent streams it.
    expect(progress).toContain('The answer to "what is six times seven" ');
    expect(progress.filter((p, i) => i > 0 && p.length < (progress[i - 1] ?? "").length)).toEqual([]);
    expect(JSON.parse(String(output))).toMatchObject({ state: "completed", text: 'The answer to "what is six times seven" is 42.' });
  });

  it("two agents chained: a LangGraph agent served over A2A delegates to the remote agent and answers with its answer", async () => {
    const a2a = await client.A2AClient.fromAgentUrl(chainUrl);
    const data: Json[] = [];
    let answer = "";
    let state: unknown;
    for await (const event of a2a.sendStreamingMessage(client.A2AClient.sendParams("ask the expert why"))) {
      const status = (event["statusUpdate"] as Json | undefined)?.["status"] as Json | undefined;
      if (status) {
        state = status["state"];
        data.push(...dataParts(status));
      }
      const artifact = (event["artifactUpdate"] as Json | undefined)?.["artifact"] as Json | undefined;
      if (artifact) answer += texts(artifact).join("");
    }
    expect(data[0]).toEqual({ toolCall: { toolCallId: "call-expert", toolName: "expert", input: { message: "why" } } });
    const progress = data.filter((d) => d["toolProgress"] !== undefined).map((d) => ((d["toolProgress"] as Json)["output"] as Json)["text"]);
    expect(progress).toContain('The answer to "why" ');
    expect(data[data.length - 1]).toMatchObject({ toolResult: { toolName: "expert", output: { state: "completed", text: 'The answer to "why" is 42.' } } });
    expect(answer).toBe('The expert says: The answer to "why" is 42.');
    expect(state).toBe("TASK_STATE_COMPLETED");
  });
});
