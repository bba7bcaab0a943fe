/**
 * One class per error on both sides (issue 28 item 5) means an agent that calls other agents meets the
 * same `A2ATaskNotFoundError` it may throw itself. What its executor throws of its own is the call's answer
 * (1.0.1 §3.3.2, the error table); an error another agent answered it with (`method` set by the client) and
 * that it lets through is not this agent's answer (it would claim "task not found" for a task the caller
 * never named): it is an ordinary failure of the executor, so the task fails and the error is logged.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../support/servers.js";

const running: RunningServer[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.close();
});

type CoreModule = typeof import("../../../generated/a2a-1.0.1/server/core.js");
type ClientModule = typeof import("../../../generated/a2a-1.0.1/client.js");

interface Answer {
  error?: { code: number; message: string };
  result?: {
    task?: {
      status: { state: string; message?: { parts: Array<{ text?: string }> } };
    };
  };
}

async function send(server: RunningServer): Promise<Answer> {
  const body = {
    jsonrpc: "2.0",
    id: 1,
    method: "SendMessage",
    params: {
      message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] },
    },
  };
  const response = await fetch(server.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0" },
    body: JSON.stringify(body),
  });
  return (await response.json()) as Answer;
}

describe("errors an executor throws: its own are the answer, another agent's are not relayed", () => {
  it("its own A2ATaskNotFoundError answers -32001; the same class received from another agent fails the task", async () => {
    const client =
      (await import("../../../generated/a2a-1.0.1/client.js")) as ClientModule;
    const logged: unknown[] = [];
    const start = (error: (core: CoreModule) => Error) =>
      startServer("1.0.1", "node", {
        executor: (core) => ({
          execute: async () => {
            throw error(core as unknown as CoreModule);
          },
        }),
        options: {
          logger: {
            error: (...args: unknown[]) => void logged.push(args),
            warn: () => undefined,
          },
        },
      }).then((server) => (running.push(server), server));

    const own = await start(
      (core) => new core.A2ATaskNotFoundError("No such task here"),
    );
    expect((await send(own)).error).toMatchObject({
      code: -32001,
      message: "No such task here",
    });

    const received = client.receivedError("GetTask", {
      code: -32001,
      message: "Task not found",
    });
    expect(received).toBeInstanceOf(client.A2ATaskNotFoundError);
    const relaying = await start(() => received);
    const answer = await send(relaying);
    expect(answer.error).toBeUndefined();
    expect(answer.result?.task?.status.state).toBe("TASK_STATE_FAILED");
    expect(JSON.stringify(answer.result?.task?.status.message)).not.toMatch(
      /not found/i,
    );
    expect(logged.length).toBeGreaterThan(0);
  });
});
