// The generated 1.0.1 client against a generated 1.0.1 server over each of the three bindings (issue 9):
// JSON-RPC and HTTP+JSON on the node:http adapter, gRPC on grpc-js serving the same core
// (`serveGrpc(core)`). `A2AClient.fromAgentUrl(url, { transports: [restTransport, grpcTransport] })` picks
// the first interface of the card's order the client speaks (specification-1.0.1.md §8.3: "clients
// SHOULD prefer earlier entries"), `binding` forces one, and the typed API — methods, results, typed
// errors, async-iterable streams — is the same on every binding (§5: the bindings are equivalent).
import { mkdirSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate, writeResult } from "../../../src/generate.js";
import { ROOT } from "../../support/project.js";
import { listenOn, withFreePorts } from "../../support/ports.js";

// Inside the repository so that the output resolves @grpc/grpc-js and protobufjs from its node_modules.
const OUT = join(ROOT, "node_modules", ".cache", "a2a-codegen-client-bindings", "a2a-1.0.1");

type Json = Record<string, unknown>;
type Factory = { binding: string };
interface ClientLike {
  transport: { binding: string; endpoint: string };
  sendMessage(params: unknown): Promise<Json>;
  sendStreamingMessage(params: unknown): AsyncGenerator<Json, void, undefined>;
  getTask(params: unknown): Promise<Json>;
  listTasks(params: unknown): Promise<Json>;
  cancelTask(params: unknown): Promise<Json>;
}
interface ClientModule {
  A2AClient: {
    fromAgentUrl(url: string, options?: Json): Promise<ClientLike>;
    sendParams(text: string, options?: Json): unknown;
  };
  A2ATaskNotFoundError: new (...args: never[]) => Error;
  A2AInterfaceSelectionError: new (...args: never[]) => Error;
  restTransport: Factory;
}

let client: ClientModule;
let grpcTransport: Factory;
/** The generated opt-in schema checks (client-validation.ts): every answer is validated. */
let clientValidation: unknown;
let http: Server;
let grpcHandle: { port: number; close(graceMs?: number): Promise<void> } | undefined;
let baseUrl: string;
let closeCore: () => Promise<void>;
let createA2AServer: (o: Json) => { service: { close(): Promise<void> } };
let serveGrpc: (c: unknown, o?: Json) => Promise<typeof grpcHandle>;

const executor = {
  async execute(ctx: { text: string }, events: { reply(m: string): void; working(m?: string): void; completed(m?: string): void; artifact(a: Json): void; textPart(t: string): Json }) {
    if (ctx.text === "hello") return events.reply("hello back");
    events.working("on it");
    events.artifact({ artifactId: "result", name: "result", parts: [events.textPart(`the result of ${ctx.text}`)] });
    events.completed("done");
  },
};

beforeAll(async () => {
  const result = await generate({ spec: "1.0.1", transports: ["jsonrpc", "grpc"], out: OUT, cwd: ROOT });
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  writeResult(result, ROOT);
  client = (await import(join(OUT, "client.ts"))) as ClientModule;
  grpcTransport = ((await import(join(OUT, "grpc-client.ts"))) as { grpcTransport: Factory }).grpcTransport;
  clientValidation = ((await import(join(OUT, "client-validation.ts"))) as { clientValidation: unknown }).clientValidation;
  const core = (await import(join(OUT, "server", "core.ts"))) as { createA2AServer(o: Json): { service: { close(): Promise<void> } } };
  const node = (await import(join(OUT, "server", "node.ts"))) as { createNodeServer(c: unknown): Server };
  const grpcServer = (await import(join(OUT, "server", "grpc.ts"))) as { serveGrpc(c: unknown, o?: Json): Promise<typeof grpcHandle> };

  // Ports first (the card names them), then the core that serves them all.
  createA2AServer = core.createA2AServer;
  serveGrpc = grpcServer.serveGrpc;
  await withFreePorts(2, async ([httpPort, port]) => {
    baseUrl = `http://127.0.0.1:${httpPort}`;
    const card = (order: string[]) => ({
      name: "Three bindings",
      description: "Serves JSON-RPC, HTTP+JSON and gRPC",
      supportedInterfaces: order.map((b) => ({
        url: b === "GRPC" ? `127.0.0.1:${port}` : b === "HTTP+JSON" ? `${baseUrl}/rest` : `${baseUrl}/rpc`,
        protocolBinding: b,
        protocolVersion: "1.0",
      })),
      version: "1.0.0",
      capabilities: { streaming: true },
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: [],
    });
    const server = core.createA2AServer({ card: card(["GRPC", "HTTP+JSON", "JSONRPC"]), executor, transports: ["GRPC"] });
    try {
      grpcHandle = await grpcServer.serveGrpc(server, { port });
      http = node.createNodeServer(server);
      await listenOn(http, httpPort as number);
    } catch (error) {
      await grpcHandle?.close(0);
      grpcHandle = undefined;
      await server.service.close();
      throw error;
    }
    closeCore = () => server.service.close();
  });
}, 120_000);

afterAll(async () => {
  http?.closeAllConnections();
  await new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve()));
  await grpcHandle?.close(0);
  await closeCore?.();
  rmSync(join(OUT, ".."), { recursive: true, force: true });
});

describe("the generated client over each binding of a generated server", () => {
  it("picks the card's first interface it has a transport for; `binding` forces one", async () => {
    const all = [client.restTransport, grpcTransport];
    expect((await client.A2AClient.fromAgentUrl(baseUrl, { transports: all })).transport.binding).toBe("GRPC");
    expect((await client.A2AClient.fromAgentUrl(baseUrl, { transports: [client.restTransport] })).transport.binding).toBe("HTTP+JSON");
    expect((await client.A2AClient.fromAgentUrl(baseUrl)).transport.binding).toBe("JSONRPC");
    const forced = await client.A2AClient.fromAgentUrl(baseUrl, { transports: all, binding: "HTTP+JSON" });
    expect(forced.transport.binding).toBe("HTTP+JSON");
    expect(forced.transport.endpoint).toBe(`${baseUrl}/rest`);
    await expect(client.A2AClient.fromAgentUrl(baseUrl, { binding: "GRPC" })).rejects.toBeInstanceOf(client.A2AInterfaceSelectionError);
  });

  for (const binding of ["JSONRPC", "HTTP+JSON", "GRPC"] as const) {
    describe(binding, () => {
      const connect = () => client.A2AClient.fromAgentUrl(baseUrl, { transports: [client.restTransport, grpcTransport], binding, validation: clientValidation });

      it("SendMessage: a direct reply, then a task (§3.1.1), read back with GetTask and ListTasks", async () => {
        const a2a = await connect();
        expect(a2a.transport.binding).toBe(binding);
        const reply = await a2a.sendMessage(client.A2AClient.sendParams("hello"));
        expect(reply.message).toMatchObject({ role: "ROLE_AGENT", parts: [{ text: "hello back" }] });
        const sent = await a2a.sendMessage(client.A2AClient.sendParams(`task over ${binding}`));
        const task = sent.task as { id: string; status: { state: string }; artifacts: { parts: { text: string }[] }[] };
        expect(task.status.state).toBe("TASK_STATE_COMPLETED");
        expect(task.artifacts[0]?.parts[0]?.text).toBe(`the result of task over ${binding}`);
        const got = await a2a.getTask({ id: task.id, historyLength: 1 });
        expect(got.id).toBe(task.id);
        expect((got.history as unknown[] | undefined)?.length ?? 0).toBeLessThanOrEqual(1);
        const listed = await a2a.listTasks({});
        expect((listed.tasks as { id: string }[]).map((t) => t.id)).toContain(task.id);
      });

      it("SendStreamingMessage: an async iterable of events ending with the final status", async () => {
        const a2a = await connect();
        const events: Json[] = [];
        for await (const event of a2a.sendStreamingMessage(client.A2AClient.sendParams("stream"))) events.push(event);
        expect(events.length).toBeGreaterThanOrEqual(3);
        expect(events.some((e) => e.artifactUpdate !== undefined)).toBe(true);
        expect(events.at(-1)).toMatchObject({ statusUpdate: { status: { state: "TASK_STATE_COMPLETED" } } });
      });

      it("errors are the same typed errors: GetTask of an unknown id is an A2ATaskNotFoundError (§3.3.2)", async () => {
        const a2a = await connect();
        const error = await a2a.getTask({ id: "no-such-task" }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(client.A2ATaskNotFoundError);
        expect((error as { code: number }).code).toBe(-32001);
      });
    });
  }
});

describe("startup checks of the card's interfaces against what is served (issue 9)", () => {
  const card = (interfaces: Json[]) => ({ name: "A", description: "A", supportedInterfaces: interfaces, version: "1", capabilities: {}, defaultInputModes: ["text/plain"], defaultOutputModes: ["text/plain"], skills: [] });

  it("a card listing GRPC without the core serving it is an error naming GRPC and how to serve it", () => {
    expect(() => createA2AServer({ card: card([{ url: "127.0.0.1:1", protocolBinding: "GRPC", protocolVersion: "1.0" }]), executor })).toThrow(/GRPC interface \(127\.0\.0\.1:1\).*server\/grpc\.ts/);
  });

  it("serveGrpc(core) refuses a core whose card lists no GRPC interface (no client would find it)", async () => {
    const core = createA2AServer({ card: card([{ url: `${baseUrl}/rpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }]), executor });
    try {
      await expect(serveGrpc(core)).rejects.toThrow(/lists no GRPC interface.*supportedInterfaces/);
    } finally {
      await core.service.close();
    }
  });
});

describe("credentials over each binding (the card's security schemes, §7)", () => {
  it("a bearer token reaches the agent over JSON-RPC, HTTP+JSON and gRPC; a wrong one is the same typed error on each", async () => {
    const node = (await import(join(OUT, "server", "node.ts"))) as { createNodeServer(c: unknown): Server };
    const { base, port, core, grpcServer, server } = await withFreePorts(2, async ([httpPort, port]) => {
      const base = `http://127.0.0.1:${httpPort}`;
      const card = {
        name: "Secured",
        description: "Needs a bearer token",
        supportedInterfaces: [
          { url: `${base}/rpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
          { url: `${base}/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
          { url: `127.0.0.1:${port}`, protocolBinding: "GRPC", protocolVersion: "1.0" },
        ],
        version: "1.0.0",
        capabilities: { streaming: true },
        securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } } },
        securityRequirements: [{ schemes: { bearer: { list: [] } } }],
        defaultInputModes: ["text/plain"],
        defaultOutputModes: ["text/plain"],
        skills: [],
      };
      const core = createA2AServer({ card, executor, transports: ["GRPC"], auth: { verify: (c: { value: string }) => c.value === "secret" } });
      let grpcServer: { close(graceMs?: number): Promise<void> } | undefined;
      try {
        grpcServer = await serveGrpc(core, { port });
        const server = node.createNodeServer(core);
        await listenOn(server, httpPort as number);
        return { base, port, core, grpcServer, server };
      } catch (error) {
        await grpcServer?.close(0);
        await core.service.close();
        throw error;
      }
    });
    try {
      for (const binding of ["JSONRPC", "HTTP+JSON", "GRPC"] as const) {
        // The gRPC port is another origin: credentials go there only when it is trusted.
        const options = { transports: [client.restTransport, grpcTransport], binding, trustedOrigins: [`127.0.0.1:${port}`] };
        const good = await client.A2AClient.fromAgentUrl(base, { ...options, auth: { type: "bearer", token: "secret" } });
        expect(good.transport.binding).toBe(binding);
        expect((await good.sendMessage(client.A2AClient.sendParams("hello"))).message).toBeDefined();
        const bad = await client.A2AClient.fromAgentUrl(base, { ...options, auth: { type: "bearer", token: "wrong" } });
        const refused = await bad.sendMessage(client.A2AClient.sendParams("hello")).then(() => undefined, (e: unknown) => e as { name: string; code?: number; status?: number });
        // The same typed error on every binding: the A2A auth error (-32000), not a transport failure.
        expect(refused?.name, binding).toBe("A2AError");
        expect(refused?.code, binding).toBe(-32000);
      }
      // Without trustedOrigins, the client refuses to send the token to the gRPC port.
      await expect(client.A2AClient.fromAgentUrl(base, { transports: [grpcTransport], binding: "GRPC", auth: { type: "bearer", token: "secret" } })).rejects.toThrow(/credentials are not sent there/);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await grpcServer.close(0);
      await core.service.close();
    }
  });
});
