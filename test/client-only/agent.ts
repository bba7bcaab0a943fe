/**
 * A generated 1.0.1 agent (the committed generated/a2a-1.0.1 server on node:http) for the client-only
 * tests: its card offers JSON-RPC and HTTP+JSON; a "hello" gets a direct reply, anything else a task that
 * works, streams an artifact and completes. `page` serves extra paths (the browser test's page) from the
 * same origin.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createA2AServer } from "../../generated/a2a-1.0.1/server/core.js";
import { createNodeHandler } from "../../generated/a2a-1.0.1/server/node.js";
import { listenOn, withFreePorts } from "../support/ports.js";

export interface RunningAgent {
  readonly baseUrl: string;
  close(): Promise<void>;
}

type Events = { reply(m: string): void; working(m?: string): void; completed(m?: string): void; artifact(a: object): void; textPart(t: string): object };

export async function startAgent(page?: (req: IncomingMessage, res: ServerResponse) => boolean): Promise<RunningAgent> {
  return withFreePorts(1, async ([port]) => {
    const baseUrl = `http://127.0.0.1:${port}`;
    const core = createA2AServer({
      card: {
        name: "Client-only test agent",
        description: "Answers the client-only tests",
        supportedInterfaces: [
          { url: `${baseUrl}/rpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
          { url: `${baseUrl}/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
        ],
        version: "1.0.0",
        capabilities: { streaming: true },
        defaultInputModes: ["text/plain"],
        defaultOutputModes: ["text/plain"],
        skills: [],
      },
      executor: {
        async execute(ctx: { text: string }, events: Events) {
          if (ctx.text === "hello") return events.reply("hello back");
          events.working("on it");
          events.artifact({ artifactId: "result", name: "result", parts: [events.textPart(`the result of ${ctx.text}`)] });
          events.completed("done");
        },
      },
    } as Parameters<typeof createA2AServer>[0]);
    const handler = createNodeHandler(core);
    const server: Server = createServer((req, res) => {
      if (page?.(req, res) !== true) handler(req, res);
    });
    try {
      await listenOn(server, port as number);
    } catch (error) {
      await core.service.close();
      throw error;
    }
    return {
      baseUrl,
      async close() {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await core.service.close();
      },
    };
  });
}
