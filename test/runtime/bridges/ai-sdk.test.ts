/**
 * The Vercel AI SDK bridge (runtime/bridges/ai-sdk.ts, emitted with `--bridge ai-sdk`) in a generated 1.0.1
 * output, with a scripted mock model (scripted-model.ts), called by the generated client over JSON-RPC,
 * HTTP+JSON and gRPC. What a client sees (1.0.1 §3.1.2 SendStreamingMessage, §4.2.2 TaskArtifactUpdateEvent,
 * §3.4.1 contextId, §3.1.5 CancelTask):
 * - the answer's text as one artifact, its chunks in order, appended after the first, the last marked;
 * - a tool call and its result as working status updates carrying a data part;
 * - a tool that asks the user ends the turn input-required; the answer continues the task and the model
 *   then sees the whole conversation;
 * - canceling the task aborts the model call; a model error fails the task with the error's message.
 * The same agent serves 0.3 clients too (`--compat 0.3.0`): they see the same turns in 0.3.0's shapes.
 */
import { mkdirSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate, writeResult } from "../../../src/generate.js";
import { ROOT } from "../../support/project.js";
import { listenOn, withFreePorts } from "../../support/ports.js";
import { promptLines, scriptedModel } from "./scripted-model.js";

const OUT = join(ROOT, "node_modules", ".cache", "a2a-codegen-ai-sdk-bridge", "a2a-1.0.1");

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
  aiSdkExecutor(options: Json): unknown;
  askUserTool(description?: string): unknown;
}

const scripted = scriptedModel();
let client: ClientModule;
let client03: ClientModule;
let grpcTransport: Factory;
/** The generated opt-in schema checks (client-validation.ts): every answer is validated. */
let clientValidation: unknown;
let http: Server | undefined;
let grpcHandle: { close(graceMs?: number): Promise<void> } | undefined;
let baseUrl: string;
let closeCore: (() => Promise<void>) | undefined;

beforeAll(async () => {
  const result = await generate({ spec: "1.0.1", compat: "0.3.0", transports: ["jsonrpc", "rest", "grpc"], bridges: ["ai-sdk"], out: OUT, cwd: ROOT });
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  writeResult(result, ROOT);
  client = (await import(join(OUT, "client.ts"))) as ClientModule;
  client03 = (await import(join(OUT, "compat", "a2a-0.3.0", "client.ts"))) as ClientModule;
  grpcTransport = ((await import(join(OUT, "grpc-client.ts"))) as { grpcTransport: Factory }).grpcTransport;
  clientValidation = ((await import(join(OUT, "client-validation.ts"))) as { clientValidation: unknown }).clientValidation;
  const core = (await import(join(OUT, "server", "core.ts"))) as { createA2AServer(o: Json): { service: { close(): Promise<void> } } };
  const node = (await import(join(OUT, "server", "node.ts"))) as { createNodeServer(c: unknown): Server };
  const grpcServer = (await import(join(OUT, "server", "grpc.ts"))) as { serveGrpc(c: unknown, o?: Json): Promise<typeof grpcHandle> };
  const bridge = (await import(join(OUT, "runtime", "bridges", "ai-sdk.ts"))) as BridgeModule;
  const { tool, jsonSchema } = await import("ai");
  const executor = bridge.aiSdkExecutor({
    model: scripted.model,
    instructions: "You are a test agent.",
    tools: {
      getWeather: tool({
        description: "The weather of a city",
        inputSchema: jsonSchema<{ city: string }>({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }),
        execute: async ({ city }) => ({ city, forecast: "sunny" }),
      }),
      askUser: bridge.askUserTool(),
    },
  });
  await withFreePorts(2, async ([httpPort, port]) => {
    baseUrl = `http://127.0.0.1:${httpPort}`;
    const server = core.createA2AServer({
      card: {
        name: "AI SDK agent",
        description: "A mock model behind the AI SDK bridge",
        supportedInterfaces: [
          { url: `${baseUrl}/rpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
          { url: `${baseUrl}/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
          { url: `127.0.0.1:${port}`, protocolBinding: "GRPC", protocolVersion: "1.0" },
        ],
        version: "1.0.0",
        capabilities: { streaming: true },
        defaultInputModes: ["text/plain"],
        defaultOutputModes: ["text/plain"],
        skills: [],
      },
      executor,
      transports: ["GRPC"],
      compat: {},
      logger: { error: () => undefined, warn: () => undefined },
    });
    closeCore = () => server.service.close();
    grpcHandle = await grpcServer.serveGrpc(server, { port });
    http = node.createNodeServer(server);
    await listenOn(http, httpPort as number);
  });
}, 120_000);

afterAll(async () => {
  http?.closeAllConnections();
  await new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve()));
  await grpcHandle?.close(0);
  await closeCore?.();
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
  describe(`the AI SDK bridge over ${binding}`, () => {
    const connect = () => client.A2AClient.fromAgentUrl(baseUrl, { transports: [client.restTransport, grpcTransport], binding, validation: clientValidation });

    it("streams the answer as one artifact: chunks in order, appended, the last one marked (§4.2.2)", async () => {
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

    it("a tool that asks the user ends the turn input-required; the follow-up sees the whole conversation", async () => {
      const a2a = await connect();
      const first = await collect(a2a.sendStreamingMessage(client.A2AClient.sendParams("book a table")));
      const asked = first[first.length - 1] as { kind: string; value: Json };
      const status = asked.value["status"] as Json;
      expect(status["state"]).toBe("TASK_STATE_INPUT_REQUIRED");
      expect(texts(status["message"] as Json)).toEqual(["For which date?"]);
      const taskId = asked.value["taskId"] as string;
      const contextId = asked.value["contextId"] as string;
      const before = scripted.calls.length;
      const second = await collect(a2a.sendStreamingMessage(client.A2AClient.sendParams("tomorrow", { taskId, contextId })));
      const answer = second.filter((e) => e.kind === "artifactUpdate").map((e) => texts(e.value["artifact"] as Json).join("")).join("");
      expect(answer).toBe("Booked for tomorrow.");
      const call = scripted.calls[before];
      expect(call && promptLines(call.prompt)).toEqual(["system: You are a test agent.", "user: book a table", "assistant: For which date?", "user: tomorrow"]);
      const done = await a2a.getTask({ id: taskId });
      expect((done["status"] as Json)["state"]).toBe("TASK_STATE_COMPLETED");
    });

    it("a later task of the same context sees the earlier ones (§3.4.1)", async () => {
      const a2a = await connect();
      const first = await a2a.sendMessage(client.A2AClient.sendParams("story"));
      const contextId = (first["task"] as Json)["contextId"] as string;
      const before = scripted.calls.length;
      await a2a.sendMessage(client.A2AClient.sendParams("weather", { contextId }));
      const call = scripted.calls[before];
      expect(call && promptLines(call.prompt)).toEqual(["system: You are a test agent.", "user: story", "assistant: Once upon a time.", "user: weather"]);
    });

    it("canceling the task aborts the model call (§3.1.5)", async () => {
      const a2a = await connect();
      const before = scripted.calls.length;
      const stream = a2a.sendStreamingMessage(client.A2AClient.sendParams("slow"));
      let taskId: string | undefined;
      let state: unknown;
      for await (const event of stream) {
        const { kind, value } = unwrapped(event);
        if (kind === "artifactUpdate" || kind === "task" || kind === "statusUpdate") taskId ??= (value["taskId"] ?? value["id"]) as string;
        if (kind === "statusUpdate") state = (value["status"] as Json)["state"];
        // The first chunk is held back until the next (or the end): the model call is running once the task works.
        if (state === "TASK_STATE_WORKING" && taskId !== undefined && scripted.calls.length > before) {
          const canceled = await a2a.cancelTask({ id: taskId });
          expect((canceled["status"] as Json)["state"]).toBe("TASK_STATE_CANCELED");
          state = undefined;
        }
      }
      expect(scripted.calls[before]?.aborted).toBe(true);
    });

    it("a model error fails the task with the error's message", async () => {
      const a2a = await connect();
      const events = await collect(a2a.sendStreamingMessage(client.A2AClient.sendParams("boom")));
      const last = events[events.length - 1] as { kind: string; value: Json };
      const status = last.value["status"] as Json;
      expect(status["state"]).toBe("TASK_STATE_FAILED");
      expect(texts(status["message"] as Json).join("")).toContain("rate limit exceeded");
    });
  });
}

describe("the AI SDK bridge for a 0.3 client of the compat agent (0.3.0 message/stream)", () => {
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

  it("input-required, then the follow-up continues with the whole conversation; a tool call is a data part", async () => {
    const a2a = await connect();
    const first = await collect03(a2a.sendStreamingMessage(client03.A2AClient.sendParams("book a table")));
    const asked = first[first.length - 1] as Json;
    expect(asked).toMatchObject({ kind: "status-update", final: true, status: { state: "input-required" } });
    const toolCall = ((asked["status"] as Json)["message"] as Json)["parts"] as Json[];
    expect(toolCall).toContainEqual({ kind: "data", data: { toolCall: { toolCallId: "call-askUser", toolName: "askUser", input: { question: "For which date?" } } } });
    const before = scripted.calls.length;
    const second = await collect03(a2a.sendStreamingMessage(client03.A2AClient.sendParams("friday", { taskId: asked["taskId"], contextId: asked["contextId"] })));
    expect(second[second.length - 1]).toMatchObject({ status: { state: "completed" } });
    const call = scripted.calls[before];
    expect(call && promptLines(call.prompt)).toEqual(["system: You are a test agent.", "user: book a table", "assistant: For which date?", "user: friday"]);
  });

  it("a model error fails the task with its message", async () => {
    const a2a = await connect();
    const events = await collect03(a2a.sendStreamingMessage(client03.A2AClient.sendParams("boom")));
    const last = events[events.length - 1] as Json;
    expect(last).toMatchObject({ kind: "status-update", status: { state: "failed" } });
    expect(texts((last["status"] as Json)["message"] as Json).join("")).toContain("rate limit exceeded");
  });
});
