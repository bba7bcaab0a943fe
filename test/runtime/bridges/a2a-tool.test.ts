/**
 * The other direction of the AI SDK bridge: `a2aTool(A2AClient, url)`, a remote A2A agent as an AI SDK
 * tool. The remote agent (a generated 1.0.1 server) streams its answer in chunks (1.0.1 §3.1.2
 * SendStreamingMessage); an AI SDK call whose mock model decides to call the tool gets that answer, the
 * tool's progress arriving as preliminary results. Then the chain: an A2A agent made with `aiSdkExecutor`
 * whose model delegates to the remote agent, called by an A2A client, shows the delegation as status
 * updates and answers with the remote agent's answer.
 */
import { mkdirSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { join } from "node:path";
import { stepCountIs, streamText, type Tool } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate, writeResult } from "../../../src/generate.js";
import { ROOT } from "../../support/project.js";
import { listenOn, withFreePorts } from "../../support/ports.js";
import { scriptedModel } from "./scripted-model.js";

const OUT = join(ROOT, "node_modules", ".cache", "a2a-codegen-a2a-tool", "a2a-1.0.1");

type Json = Record<string, unknown>;
interface ClientClass {
  fromAgentUrl(url: string, options?: Json): Promise<{ sendStreamingMessage(params: unknown): AsyncGenerator<Json, void, undefined> }>;
  sendParams(text: string, options?: Json): unknown;
}
interface BridgeModule {
  aiSdkExecutor(options: Json): unknown;
  a2aTool(A2AClient: unknown, agent: unknown, options?: Json): Tool;
}
interface Events {
  working(m?: string): void;
  artifactStream(init?: Json): { write(chunk: string): void; end(): void };
  completed(m?: string): void;
}

let A2AClient: ClientClass;
let bridge: BridgeModule;
const servers: Server[] = [];
const cores: Array<{ service: { close(): Promise<void> } }> = [];
let remoteUrl: string;
let chainUrl: string;

const card = (url: string, name: string) => ({
  name,
  description: `${name} for the a2aTool tests`,
  supportedInterfaces: [{ url, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
  version: "1.0.0",
  capabilities: { streaming: true },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [],
});

beforeAll(async () => {
  const result = await generate({ spec: "1.0.1", bridges: ["ai-sdk"], out: OUT, cwd: ROOT });
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  writeResult(result, ROOT);
  A2AClient = ((await import(join(OUT, "client.ts"))) as { A2AClient: ClientClass }).A2AClient;
  const core = (await import(join(OUT, "server", "core.ts"))) as { createA2AServer(o: Json): { service: { close(): Promise<void> } } };
  const node = (await import(join(OUT, "server", "node.ts"))) as { createNodeServer(c: unknown): Server };
  bridge = (await import(join(OUT, "runtime", "bridges", "ai-sdk.ts"))) as BridgeModule;
  // The remote agent: its answer in three chunks of one artifact.
  const expert = {
    async execute(ctx: { text: string }, events: Events) {
      events.working();
      const answer = events.artifactStream({ name: "answer" });
      for (const chunk of ["The answer ", "to ", `"${ctx.text}" `, "is 42."]) answer.write(chunk);
      answer.end();
      events.completed();
    },
  };
  await withFreePorts(2, async ([remotePort, chainPort]) => {
    remoteUrl = `http://127.0.0.1:${remotePort}`;
    chainUrl = `http://127.0.0.1:${chainPort}`;
    const remote = core.createA2AServer({ card: card(`${remoteUrl}/rpc`, "Expert"), executor: expert });
    // The chain: an AI SDK agent whose model delegates to the expert.
    const chain = core.createA2AServer({
      card: card(`${chainUrl}/rpc`, "Delegating agent"),
      executor: bridge.aiSdkExecutor({ model: scriptedModel().model, tools: { expert: bridge.a2aTool(A2AClient, remoteUrl) } }),
      logger: { error: () => undefined, warn: () => undefined },
    });
    cores.push(remote, chain);
    for (const [server, port] of [[remote, remotePort], [chain, chainPort]] as const) {
      const http = node.createNodeServer(server);
      servers.push(http);
      await listenOn(http, port as number);
    }
  });
}, 120_000);

afterAll(async () => {
  for (const http of servers) {
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  }
  for (const core of cores) await core.service.close();
  rmSync(join(OUT, ".."), { recursive: true, force: true });
});

describe("a2aTool: a remote A2A agent as an AI SDK tool", () => {
  it("an AI SDK call whose model calls the tool gets the remote agent's streamed answer, its progress as preliminary results", async () => {
    const { model } = scriptedModel();
    const result = streamText({
      model,
      prompt: "ask the expert what is six times seven",
      tools: { expert: bridge.a2aTool(A2AClient, remoteUrl) },
      stopWhen: stepCountIs(3),
    });
    const progress: string[] = [];
    let final: Json | undefined;
    let text = "";
    for await (const part of result.fullStream) {
      if (part.type === "tool-result" && part.preliminary === true) progress.push((part.output as Json)["text"] as string);
      else if (part.type === "tool-result") final = part.output as Json;
      else if (part.type === "text-delta") text += part.text;
    }
    // The text grows chunk by chunk as the remote agent streams it.
    expect(progress).toContain('The answer to "what is six times seven" ');
    expect(progress.filter((p, i) => i > 0 && p.length < (progress[i - 1] ?? "").length)).toEqual([]);
    expect(final).toMatchObject({ state: "completed", text: 'The answer to "what is six times seven" is 42.' });
    expect(text).toBe('The expert says: The answer to "what is six times seven" is 42.');
  });

  it("two agents chained: an AI SDK agent served over A2A delegates to the remote agent and answers with its answer", async () => {
    const client = await A2AClient.fromAgentUrl(chainUrl);
    const data: Json[] = [];
    let answer = "";
    let state: unknown;
    for await (const event of client.sendStreamingMessage(A2AClient.sendParams("ask the expert why"))) {
      const status = (event["statusUpdate"] as Json | undefined)?.["status"] as Json | undefined;
      if (status) {
        state = status["state"];
        for (const part of ((status["message"] as Json | undefined)?.["parts"] as Json[] | undefined) ?? []) if (part["data"]) data.push(part["data"] as Json);
      }
      const artifact = (event["artifactUpdate"] as Json | undefined)?.["artifact"] as Json | undefined;
      if (artifact) answer += ((artifact["parts"] as Json[])[0] as Json)["text"] as string;
    }
    expect(data[0]).toEqual({ toolCall: { toolCallId: "call-expert", toolName: "expert", input: { message: "why" } } });
    expect(data.some((d) => d["toolProgress"] !== undefined)).toBe(true);
    expect(data[data.length - 1]).toMatchObject({ toolResult: { toolName: "expert", output: { state: "completed", text: 'The answer to "why" is 42.' } } });
    expect(answer).toBe('The expert says: The answer to "why" is 42.');
    expect(state).toBe("TASK_STATE_COMPLETED");
  });
});
