/**
 * The official SDK 1.x's server (@a2a-js/sdk 1.3.0, installed as `a2a-sdk-v1`: DefaultRequestHandler +
 * InMemoryTaskStore behind its Express `jsonRpcHandler` and `agentCardHandler`) with an echo agent written
 * against the SDK's own executor API, on 127.0.0.1 port 0. It speaks A2A 1.0.
 *
 * The agent answers by the text of the message:
 *   "hello"  → a direct Message "echo: hello" (no task)
 *   "task"   → a Task: submitted → working "on it" → artifact "echo" ("echo: task") → completed "done"
 *   "stream" → a Task whose artifact "story" comes in three chunks ("once ", "upon ", "a time"), then completed
 *   "ask"    → a Task left in input-required (a live task that push configs can be attached to)
 *   "slow"   → a Task in working that waits to be canceled (or 3 s), then completed "finally"
 *   other    → a Task completed with "echo: <text>"
 * A follow-up message to an input-required task completes it with "got: <text>".
 */
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { AgentCard, Message, Part, TaskState, type Task, type TaskArtifactUpdateEvent, type TaskStatusUpdateEvent } from "a2a-sdk-v1";
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from "a2a-sdk-v1/server";
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from "a2a-sdk-v1/server/express";

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const now = () => new Date().toISOString();

/** The text of an SDK (ts-proto) message or artifact: its parts' `content` oneof, `$case: "text"`. */
export function sdkText(value: { parts?: Part[] } | undefined): string {
  return (value?.parts ?? []).map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");
}

function agentMessage(text: string, taskId?: string, contextId?: string): Message {
  return Message.fromJSON({ messageId: randomUUID(), role: "ROLE_AGENT", parts: [{ text }], taskId, contextId });
}

/** An echo agent, written with the SDK 1.x AgentExecutor / ExecutionEventBus / AgentEvent API. */
export class EchoExecutor implements AgentExecutor {
  private readonly canceled = new Set<string>();
  /** The context of each task (the SDK's cancelTask only passes the task id). */
  private readonly contexts = new Map<string, string>();

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId, userMessage } = ctx;
    this.contexts.set(taskId, contextId);
    const text = sdkText(userMessage).trim();
    if (text === "hello" && !ctx.task) {
      bus.publish(AgentEvent.message(agentMessage(`echo: ${text}`, undefined, contextId)));
      bus.finished();
      return;
    }
    const status = (state: TaskState, message?: string): void =>
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: { state, timestamp: now(), message: message ? agentMessage(message, taskId, contextId) : undefined },
          metadata: undefined,
        } satisfies TaskStatusUpdateEvent),
      );
    const artifact = (artifactId: string, chunk: string, append: boolean, lastChunk: boolean): void =>
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: { artifactId, name: artifactId, description: "", parts: [Part.fromJSON({ text: chunk })], metadata: undefined, extensions: [] },
          append,
          lastChunk,
          metadata: undefined,
        } satisfies TaskArtifactUpdateEvent),
      );

    if (!ctx.task) {
      bus.publish(
        AgentEvent.task({
          id: taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: now(), message: undefined },
          artifacts: [],
          history: [userMessage],
          metadata: undefined,
        } satisfies Task),
      );
    } else if (ctx.task.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      status(TaskState.TASK_STATE_COMPLETED, `got: ${text}`);
      bus.finished();
      return;
    }

    switch (text) {
      case "task":
        status(TaskState.TASK_STATE_WORKING, "on it");
        artifact("echo", `echo: ${text}`, false, true);
        status(TaskState.TASK_STATE_COMPLETED, "done");
        break;
      case "stream":
        status(TaskState.TASK_STATE_WORKING);
        artifact("story", "once ", false, false);
        await sleep(5);
        artifact("story", "upon ", true, false);
        await sleep(5);
        artifact("story", "a time", true, true);
        status(TaskState.TASK_STATE_COMPLETED, "the end");
        break;
      case "ask":
        status(TaskState.TASK_STATE_INPUT_REQUIRED, "what is your name?");
        break;
      case "slow": {
        status(TaskState.TASK_STATE_WORKING, "working slowly");
        const until = Date.now() + 3000;
        while (!this.canceled.has(taskId) && Date.now() < until) await sleep(5);
        if (this.canceled.delete(taskId)) return; // cancelTask published the end
        status(TaskState.TASK_STATE_COMPLETED, "finally");
        break;
      }
      default:
        status(TaskState.TASK_STATE_COMPLETED, `echo: ${text}`);
    }
    bus.finished();
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    this.canceled.add(taskId);
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: this.contexts.get(taskId) ?? "",
        status: { state: TaskState.TASK_STATE_CANCELED, timestamp: now(), message: undefined },
        metadata: undefined,
      }),
    );
    bus.finished();
  }
}

export interface SdkV1Server {
  baseUrl: string;
  rpcUrl: string;
  /** The HTTP+JSON interface (`restHandler`), listed second on the card. */
  restUrl: string;
  card: AgentCard;
  store: InMemoryTaskStore;
  close(): Promise<void>;
}

/**
 * Starts the SDK 1.x server: JSON-RPC at POST /a2a, HTTP+JSON under /rest (its `restHandler`), the card
 * (listing both interfaces) at /.well-known/agent-card.json. `card`
 * is merged (in ProtoJSON) into the card before the SDK parses it with `AgentCard.fromJSON`.
 */
export async function startSdkV1Server(options: { card?: Record<string, unknown> } = {}): Promise<SdkV1Server> {
  const express = (await import("express")).default;
  const app = express();
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as AddressInfo).port;
  const baseUrl = `http://127.0.0.1:${port}`;
  const rpcUrl = `${baseUrl}/a2a`;
  const restUrl = `${baseUrl}/rest`;
  const card = AgentCard.fromJSON({
    name: "SDK Echo Agent",
    description: "The official SDK 1.x's server, echoing",
    version: "1.0.0",
    supportedInterfaces: [
      { url: rpcUrl, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: restUrl, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
    ],
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "echo", name: "Echo", description: "Echoes", tags: ["test"] }],
    ...options.card,
  });
  const store = new InMemoryTaskStore();
  const executor = new EchoExecutor();
  const handler = new DefaultRequestHandler(card, store, executor);
  app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: handler }));
  app.use("/a2a", jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.use("/rest", restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return {
    baseUrl,
    rpcUrl,
    restUrl,
    card,
    store,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
