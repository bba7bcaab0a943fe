// The README's agent and client, type-checked against the generated 0.3.0 code.
import { createA2AServer, type AgentExecutor } from "../../generated/a2a-0.3.0/server/core.js";
import { createNodeServer } from "../../generated/a2a-0.3.0/server/node.js";
import { a2aExpressRouter } from "../../generated/a2a-0.3.0/server/express.js";
import { a2aFastifyPlugin } from "../../generated/a2a-0.3.0/server/fastify.js";
import { serveHono } from "../../generated/a2a-0.3.0/server/hono-node.js";
import { A2AClient, A2ATaskNotFoundError, type AgentCard, type Task, type Message } from "../../generated/a2a-0.3.0/index.js";

declare const card: AgentCard;
declare const token: string;

const executor: AgentExecutor = {
  async execute(ctx, events) {
    if (ctx.text === "hi") return events.reply("hello!");
    events.working("thinking");
    events.artifact({ artifactId: "a1", parts: [events.textPart("42")] });
    // @ts-expect-error an artifact needs parts
    events.artifact({ artifactId: "a2" });
    events.completed("done");
  },
};
const server = createA2AServer({ card, executor });
createNodeServer(server).listen(3000);
void a2aExpressRouter(server);
void a2aFastifyPlugin(server);
void serveHono(server, { port: 3001 });

async function call(): Promise<void> {
  const client = await A2AClient.fromAgentUrl("https://agent.example.com", { auth: { type: "bearer", token } });
  const reply: Task | Message = await client.sendMessage({ message: A2AClient.userMessage("hello") });
  for await (const event of client.sendStreamingMessage({ message: A2AClient.userMessage("tell me a story") })) {
    if (event.kind === "status-update") {
      const final: boolean = event.final;
      void final;
    }
  }
  // @ts-expect-error tasks/get needs an id
  await client.getTask({});
  try {
    await client.getTask({ id: "t" });
  } catch (error) {
    if (error instanceof A2ATaskNotFoundError) {
      const code: number = error.code;
      void code;
    }
  }
  void reply;
}
void call;
export {};
