/**
 * A compat agent for the tests (issue 10): the output of `generate --spec 1.0.1 --compat 0.3.0`, generated
 * once into a temporary project folder, served by one `createA2AServer` call behind any of the four
 * adapters, with the scripted test agent of the server tests. Both versions' generated clients come from
 * the same output (1.0.1's client.ts and compat/a2a-0.3.0/client.ts).
 */
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { generate, writeResult } from "../../../src/generate.js";
import { projectTempDir } from "../project.js";
import { listenOn, withFreePorts } from "../ports.js";
import { convertCard } from "../../../src/card/convert.js";
import { bundledIR } from "../../../src/load/protocol.js";
import { sseData, TEST_AUTH, testCard, testExecutor, type Framework } from "../servers.js";

type Json = Record<string, unknown>;

export interface CompatOutput {
  dir: string;
  core: typeof import("../../../generated/a2a-1.0.1/server/core.js") & { createA2AServer(options: object): import("../../../generated/a2a-1.0.1/server/core.js").A2AServerCore };
  node: typeof import("../../../generated/a2a-1.0.1/server/node.js");
  express: typeof import("../../../generated/a2a-1.0.1/server/express.js");
  fastify: typeof import("../../../generated/a2a-1.0.1/server/fastify.js");
  hono: typeof import("../../../generated/a2a-1.0.1/server/hono.js");
  honoNode: typeof import("../../../generated/a2a-1.0.1/server/hono-node.js");
  /** The 1.0.1 client. */
  client: typeof import("../../../generated/a2a-1.0.1/client.js");
  /** The 0.3.0 client of the compat folder. */
  compatClient: typeof import("../../../generated/a2a-0.3.0/client.js");
  /** The opt-in schema checks of each client (client-validation.ts). */
  validation: typeof import("../../../generated/a2a-1.0.1/client-validation.js");
  compatValidation: typeof import("../../../generated/a2a-0.3.0/client-validation.js");
  /** server/grpc.ts: serves 1.0.1's gRPC service and, on a compat core, 0.3.0's beside it. */
  grpc: { serveGrpc(core: object, options?: { port?: number; health?: boolean; reflection?: boolean }): Promise<{ port: number; close(): Promise<void> }> };
  /** The gRPC client transports: 1.0.1's (grpc-client.ts) and 0.3.0's (compat/a2a-0.3.0/grpc-client.ts). */
  grpcClient: { grpcTransport: unknown };
  compatGrpcClient: { grpcTransport: unknown };
}

let output: Promise<CompatOutput> | undefined;

/** The generated compat output (once per test file). */
export function compatOutput(): Promise<CompatOutput> {
  output ??= (async () => {
    const result = await generate({ spec: "1.0.1", compat: "0.3.0", out: join(projectTempDir("compat-agent-"), "a2a"), frameworks: ["node", "express", "fastify", "hono"], transports: ["jsonrpc", "rest", "grpc"] });
    const dir = writeResult(result).outDir;
    const load = (file: string) => import(join(dir, file));
    return {
      dir,
      core: await load("server/core.ts"),
      node: await load("server/node.ts"),
      express: await load("server/express.ts"),
      fastify: await load("server/fastify.ts"),
      hono: await load("server/hono.ts"),
      honoNode: await load("server/hono-node.ts"),
      client: await load("client.ts"),
      compatClient: await load("compat/a2a-0.3.0/client.ts"),
      validation: await load("client-validation.ts"),
      compatValidation: await load("compat/a2a-0.3.0/client-validation.ts"),
      grpc: await load("server/grpc.ts"),
      grpcClient: await load("grpc-client.ts"),
      compatGrpcClient: await load("compat/a2a-0.3.0/grpc-client.ts"),
    } as CompatOutput;
  })();
  return output;
}

export interface CompatAgent {
  /** The server core (its task event bus, for leak checks). */
  core: { bus: { listenerCount(id?: string): number } };
  baseUrl: string;
  rpcUrl: string;
  /** The HTTP+JSON interface's URL (`${baseUrl}/rest`), when the card lists it. */
  restUrl: string;
  /** The gRPC interface (`127.0.0.1:port`), when the card lists it. */
  grpcTarget: string;
  card: Json;
  close(): Promise<void>;
}

export interface CompatSetup {
  extendedCard?: Json;
  /** Fields laid over the test card (e.g. `capabilities` with extensions). */
  card?: Json;
  auth?: { verify: (credential: { value: string }) => unknown };
  /** ServerOptions.compat of the generated core (false: 1.0.1 only). */
  compat?: false | Json;
  losses?: unknown[];
  /** Bindings the card lists and the agent serves beside JSON-RPC (HTTP+JSON under /rest; gRPC on its own port). */
  bindings?: ReadonlyArray<"HTTP+JSON" | "GRPC">;
  /** More options of serveGrpc (e.g. `health: true`). */
  grpcOptions?: Json;
}

/** A 1.0.1 agent serving 0.3.0 too, on 127.0.0.1 behind `framework`. */
export async function startCompatAgent(framework: Framework, setup: CompatSetup = {}): Promise<CompatAgent> {
  // The dual card copies the interface's URL: the ports are chosen first, so the card names them from the start.
  return withFreePorts(2, ([port, grpcPort]) => startCompatAgentOn(framework, setup, port as number, grpcPort as number));
}

/** startCompatAgent on the given ports; closes what it opened when a port is taken meanwhile. */
async function startCompatAgentOn(framework: Framework, setup: CompatSetup, port: number, freeGrpcPort: number): Promise<CompatAgent> {
  const out = await compatOutput();
  const baseUrl = `http://127.0.0.1:${port}`;
  const card = { ...testCard("1.0.1", { ...(setup.auth ? { auth: setup.auth } : {}), ...(setup.extendedCard ? { extendedCard: setup.extendedCard } : {}) }), ...setup.card };
  for (const entry of card.supportedInterfaces as Json[]) entry.url = `${baseUrl}/a2a`;
  const bindings = setup.bindings ?? [];
  const grpcPort = bindings.includes("GRPC") ? freeGrpcPort : 0;
  const restUrl = `${baseUrl}/rest`;
  const grpcTarget = `127.0.0.1:${grpcPort}`;
  if (bindings.includes("HTTP+JSON")) (card.supportedInterfaces as Json[]).push({ url: restUrl, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" });
  if (bindings.includes("GRPC")) (card.supportedInterfaces as Json[]).push({ url: grpcTarget, protocolBinding: "GRPC", protocolVersion: "1.0" });
  // An extended card needs a security scheme (1.0.1 §13.3): the harness's bearer scheme and verifier, and
  // the secured card in 0.3's shape too (as `--card` generates it), so that 0.3 clients see the scheme.
  const auth = setup.auth ?? (setup.extendedCard ? TEST_AUTH : undefined);
  const to03 = (c: Json) => convertCard(c, bundledIR("1.0.1"), bundledIR("0.3.0")).card;
  const compatCard =
    !setup.auth && setup.extendedCard && setup.compat !== false && !(setup.compat && "card" in setup.compat)
      ? { card: to03(card), ...(setup.extendedCard ? { extendedCard: to03({ ...card, ...setup.extendedCard }) } : {}) }
      : {};
  const compat = setup.compat === false ? false : { ...compatCard, ...(setup.compat ?? {}), ...(setup.losses ? { onLoss: (loss: unknown) => setup.losses?.push(loss) } : {}) };
  const core = out.core.createA2AServer({
    card,
    executor: testExecutor(),
    rpcPath: "/a2a",
    ...(setup.extendedCard ? { extendedCard: { ...card, ...setup.extendedCard } } : {}),
    ...(auth ? { auth } : {}),
    compat,
    ...(bindings.includes("GRPC") ? { transports: ["GRPC"] } : {}),
    heartbeatMs: 0,
    pushNotifications: { allow: ["127.0.0.1"], retries: 1, backoffMs: 5, timeoutMs: 2000 },
    logger: { error: () => undefined, warn: () => undefined },
  });
  let close: () => Promise<void> = () => core.close();
  try {
    if (framework === "node") {
      const server = out.node.createNodeServer(core);
      await listenOn(server, port);
      close = () => closeServer(server);
    } else if (framework === "express") {
      const express = (await import("express")).default;
      const app = express();
      app.use(out.express.a2aExpressRouter(core));
      const server = createServer(app);
      await listenOn(server, port);
      close = async () => {
        await closeServer(server);
        await core.close();
      };
    } else if (framework === "fastify") {
      const Fastify = (await import("fastify")).default;
      const app = Fastify({ logger: false, forceCloseConnections: true });
      await app.register(out.fastify.a2aFastifyPlugin(core));
      close = async () => {
        await app.close();
        await core.close();
      };
      await app.listen({ port, host: "127.0.0.1" });
    } else {
      const server = await new Promise<Server>((resolve, reject) => {
        const made = out.honoNode.serveHono(core, { port, hostname: "127.0.0.1" }, () => resolve(made)) as unknown as Server;
        made.once("error", (error) => void closeServer(made).then(() => reject(error)));
      });
      close = () => closeServer(server);
    }
    if (bindings.includes("GRPC")) {
      const grpc = await out.grpc.serveGrpc(core, { ...setup.grpcOptions, port: grpcPort });
      const closeHttp = close;
      close = async () => {
        await grpc.close();
        await closeHttp();
      };
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { core: core as unknown as CompatAgent["core"], baseUrl, rpcUrl: `${baseUrl}/a2a`, restUrl, grpcTarget, card, close };
}


function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections?.();
    server.close(() => resolve());
  });
}

/** A JSON-RPC call over fetch, headers as given (no A2A-Version unless given). */
export async function rpc(url: string, method: string, params: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Json; contentType: string }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const text = await response.text();
  const contentType = response.headers.get("content-type") ?? "";
  if (contentType.includes("text/event-stream")) {
    const events = sseData(text).map((d) => JSON.parse(d) as Json);
    return { status: response.status, body: { events }, contentType };
  }
  return { status: response.status, body: JSON.parse(text) as Json, contentType };
}
