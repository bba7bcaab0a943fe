/**
 * The official SDK's server (@a2a-js/sdk 0.3.14: DefaultRequestHandler + InMemoryTaskStore behind
 * A2AExpressApp for JSON-RPC, and its `restHandler` for HTTP+JSON under `/rest`) with an echo agent written
 * against the SDK's own executor API, on 127.0.0.1 port 0. The card names both interfaces.
 *
 * The agent answers by the text of the message:
 *   "hello"  → a direct Message "echo: hello" (no task)
 *   "task"   → a Task: submitted → working → artifact "echo" ("echo: task") → completed "done"
 *   "stream" → a Task whose artifact "story" comes in three chunks ("once ", "upon ", "a time"), then completed
 *   "ask"    → a Task left in input-required (a live task that push configs can be attached to)
 *   "slow"   → a Task in working that waits to be canceled (or 3 s), then completed "finally"
 *   other    → a Task completed with "echo: <text>"
 */
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { AgentCard, Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from "@a2a-js/sdk";
import {
  DefaultRequestHandler,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from "@a2a-js/sdk/server";
import { A2AExpressApp, restHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import { textOf } from "../wire/jsonrpc.js";

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const now = () => new Date().toISOString();

function agentMessage(text: string, taskId?: string, contextId?: string): Message {
  return {
    kind: "message",
    messageId: randomUUID(),
    role: "agent",
    parts: [{ kind: "text", text }],
    ...(taskId ? { taskId } : {}),
    ...(contextId ? { contextId } : {}),
  };
}

/** An echo agent, written with the SDK's AgentExecutor / ExecutionEventBus API. */
export class EchoExecutor implements AgentExecutor {
  private readonly canceled = new Set<string>();

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId, userMessage } = ctx;
    const text = textOf(userMessage).trim();
    if (text === "hello") {
      bus.publish(agentMessage(`echo: ${text}`, undefined, contextId));
      bus.finished();
      return;
    }
    const status = (state: TaskStatusUpdateEvent["status"]["state"], final: boolean, message?: string): void =>
      bus.publish({
        kind: "status-update",
        taskId,
        contextId,
        status: { state, timestamp: now(), ...(message ? { message: agentMessage(message, taskId, contextId) } : {}) },
        final,
      } satisfies TaskStatusUpdateEvent);
    const artifact = (artifactId: string, chunk: string, append: boolean, lastChunk: boolean): void =>
      bus.publish({
        kind: "artifact-update",
        taskId,
        contextId,
        artifact: { artifactId, name: artifactId, parts: [{ kind: "text", text: chunk }] },
        append,
        lastChunk,
      } satisfies TaskArtifactUpdateEvent);

    if (!ctx.task) {
      bus.publish({
        kind: "task",
        id: taskId,
        contextId,
        status: { state: "submitted", timestamp: now() },
        history: [userMessage],
      } satisfies Task);
    } else if (ctx.task.status.state === "input-required") {
      status("completed", true, `got: ${text}`);
      bus.finished();
      return;
    }

    switch (text) {
      case "task":
        status("working", false, "on it");
        artifact("echo", `echo: ${text}`, false, true);
        status("completed", true, "done");
        break;
      case "stream":
        status("working", false);
        artifact("story", "once ", false, false);
        await sleep(5);
        artifact("story", "upon ", true, false);
        await sleep(5);
        artifact("story", "a time", true, true);
        status("completed", true, "the end");
        break;
      case "ask":
        status("input-required", true, "what is your name?");
        break;
      case "slow": {
        status("working", false, "working slowly");
        const until = Date.now() + 3000;
        while (!this.canceled.has(taskId) && Date.now() < until) await sleep(5);
        if (this.canceled.delete(taskId)) return; // cancelTask published the end
        status("completed", true, "finally");
        break;
      }
      default:
        status("completed", true, `echo: ${text}`);
    }
    bus.finished();
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    this.canceled.add(taskId);
    bus.publish({
      kind: "status-update",
      taskId,
      contextId: (await this.contextOf?.(taskId)) ?? "",
      status: { state: "canceled", timestamp: now() },
      final: true,
    } satisfies TaskStatusUpdateEvent);
    bus.finished();
  }

  /** Set by startSdkServer: the context id of a stored task (the SDK's cancelTask only passes the task id). */
  contextOf?: (taskId: string) => Promise<string | undefined>;
}

export interface SdkServer {
  baseUrl: string;
  rpcUrl: string;
  /** The HTTP+JSON interface (`restHandler`). */
  restUrl: string;
  card: AgentCard;
  store: InMemoryTaskStore;
  /** The SDK's request handler, for what a test sets up behind the client's back. */
  handler: DefaultRequestHandler;
  close(): Promise<void>;
}

/** Starts the SDK's server; `card` overrides fields of the agent card (e.g. security schemes). */
export async function startSdkServer(options: { card?: Partial<AgentCard> } = {}): Promise<SdkServer> {
  const express = (await import("express")).default;
  const card: AgentCard = {
    name: "SDK Echo Agent",
    description: "The official SDK's server, echoing",
    protocolVersion: "0.3.0",
    version: "1.0.0",
    url: "http://127.0.0.1:1/", // replaced once the port is known
    preferredTransport: "JSONRPC",
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "echo", name: "Echo", description: "Echoes", tags: ["test"] }],
    ...options.card,
  };
  const store = new InMemoryTaskStore();
  const executor = new EchoExecutor();
  executor.contextOf = async (taskId) => (await store.load(taskId))?.contextId;
  const handler = new DefaultRequestHandler(card, store, executor);
  // JSON-RPC at POST / and the card at /.well-known/agent-card.json (the SDK's setupRoutes with base "").
  const app = new A2AExpressApp(handler).setupRoutes(express(), "");
  app.use("/rest", restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as AddressInfo).port;
  const baseUrl = `http://127.0.0.1:${port}`;
  card.url = `${baseUrl}/`;
  const restUrl = `${baseUrl}/rest`;
  card.additionalInterfaces ??= [
    { url: card.url, transport: "JSONRPC" },
    { url: restUrl, transport: "HTTP+JSON" },
  ];
  return {
    baseUrl,
    rpcUrl: card.url,
    restUrl,
    card,
    store,
    handler,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
