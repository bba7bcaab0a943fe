// The kit's in-memory transport (issue 32): the generated client talks to a createA2AServer core in the same
// process, no sockets, over each binding the card lists: send, stream, get, cancel and errors reach the real
// service and task runtime (the bindings' own envelopes, statuses and SSE framing).
import { beforeAll, describe, expect, it } from "vitest";
import { generateKit, type Kit } from "./generated-kit.js";

let kit: Kit;
let core: unknown;
beforeAll(async () => {
  kit = await generateKit();
  const executor = {
    async execute(ctx: any, events: any) {
      const text = String(ctx.text).trim();
      if (text === "name") return events.inputRequired("What is your name?");
      if (text.startsWith("stream")) {
        events.working("streaming");
        for (const [i, word] of text.split(/\s+/).slice(1).entries()) events.artifact({ artifactId: "echo", parts: [events.textPart(word)] }, { append: i > 0 });
        return events.completed("done");
      }
      return events.reply(`You said: ${text}`);
    },
  };
  core = kit.core["createA2AServer"]({ card: kit.testing["MOCK_AGENT_CARD"], executor });
}, 120_000);

describe.each(["JSONRPC", "HTTP+JSON"] as const)("inMemoryClient over %s", (binding) => {
  const client = () => kit.testing["inMemoryClient"](core, { binding });
  const A2AClient = () => kit.client["A2AClient"];

  it("sends a message and gets the agent's reply (1.0.1 §3.1.1)", async () => {
    const reply = A2AClient().unwrap(await (await client()).sendMessage(A2AClient().sendParams("hello")));
    expect(JSON.stringify(reply)).toContain("You said: hello");
  });

  it("streams the task's events to its terminal state (1.0.1 §3.1.2)", async () => {
    const c = await client();
    const events: any[] = [];
    for await (const event of c.sendStreamingMessage(A2AClient().sendParams("stream a b"))) events.push(event);
    const last = A2AClient().unwrap(events.at(-1));
    expect(last.status.state).toBe("TASK_STATE_COMPLETED");
    expect(events.filter((e) => e.artifactUpdate !== undefined)).toHaveLength(2);
  });

  it("gets and cancels a task that waits for input (1.0.1 §3.1.3, §3.1.5)", async () => {
    const c = await client();
    const task = A2AClient().unwrap(await c.sendMessage(A2AClient().sendParams("name")));
    expect(task.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    expect((await c.getTask({ id: task.id })).id).toBe(task.id);
    expect((await c.cancelTask({ id: task.id })).status.state).toBe("TASK_STATE_CANCELED");
  });

  it("throws TaskNotFound for an unknown task (1.0.1 §3.3.2)", async () => {
    const error = await (await client()).getTask({ id: "no-such-task" }).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(kit.client["A2ATaskNotFoundError"]);
  });
});
