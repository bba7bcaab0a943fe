// Binding selection (issue 9, client part): A2AClient.fromAgentUrl reads the card and picks the first
// interface in the card's order of preference that the client has a transport for (1.0
// `supportedInterfaces`, specification-1.0.1.md §5 / §8; 0.3 `preferredTransport` + `additionalInterfaces`,
// specification-0.3.0.md §5.6); an option forces one. Other bindings plug in as ClientTransportFactory.
import { describe, expect, it } from "vitest";
import { A2AInterfaceSelectionError, cardInterfaces, selectInterface } from "../../../src/runtime/client/transport.js";
import * as V1 from "../../../generated/a2a-1.0.1/client.js";
import * as V03 from "../../../generated/a2a-0.3.0/client.js";
import type { CallOptions, ClientOptions } from "../../../src/runtime/client/http.js";
import type { ClientTransport, ClientTransportFactory, ResponseChecks, TransportContext } from "../../../src/runtime/client/transport.js";
import { answer, json, serve } from "../../support/stub-servers.js";

function v1Card(interfaces: { url: string; protocolBinding: string; protocolVersion?: string; tenant?: string }[]): Record<string, unknown> {
  return {
    name: "Agent",
    description: "An agent",
    supportedInterfaces: interfaces.map((i) => ({ protocolVersion: "1.0", ...i })),
    version: "1.0.0",
    capabilities: { streaming: true },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [],
  };
}

/** A stand-in for another helper's REST transport: records what the typed client asks of it. */
function recordingFactory(binding: "HTTP+JSON" | "GRPC") {
  const made: { endpoint: string; options: ClientOptions; checks: ResponseChecks; context: TransportContext }[] = [];
  const calls: { method: string; params: unknown }[] = [];
  const factory: ClientTransportFactory = {
    binding,
    create(endpoint, options, checks, context): ClientTransport {
      made.push({ endpoint, options, checks, context });
      return {
        binding,
        endpoint,
        async call(method: string, params: unknown, _options?: CallOptions) {
          calls.push({ method, params });
          if (method === "GetTask") throw checks.makeError?.(method, { code: -32001, message: "Task not found" });
          return { message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: `via ${binding}` }] } };
        },
        async *stream(method: string, params: unknown) {
          calls.push({ method, params });
          const events = [
            { task: { id: "t", contextId: "c", status: { state: "TASK_STATE_WORKING" } } },
            { statusUpdate: { taskId: "t", contextId: "c", status: { state: "TASK_STATE_COMPLETED" } } },
            { statusUpdate: { taskId: "t", contextId: "c", status: { state: "TASK_STATE_WORKING" } } },
          ];
          for (const event of events) {
            yield event;
            if (checks.isFinal?.(event)) return;
          }
        },
      };
    },
  };
  return { factory, made, calls };
}

describe("cardInterfaces / selectInterface", () => {
  it("1.0: supportedInterfaces in the card's order, leaving out other protocol versions", () => {
    const card = v1Card([
      { url: "grpc://a:50051", protocolBinding: "GRPC" },
      { url: "https://a/v03", protocolBinding: "JSONRPC", protocolVersion: "0.3" },
      { url: "https://a/rest", protocolBinding: "http+json", tenant: "t1" },
      { url: "https://a/rpc", protocolBinding: "JSONRPC" },
    ]);
    expect(cardInterfaces(card, "1.0.1").map((i) => [i.binding, i.url, i.tenant])).toEqual([
      ["GRPC", "grpc://a:50051", undefined],
      ["HTTP+JSON", "https://a/rest", "t1"],
      ["JSONRPC", "https://a/rpc", undefined],
    ]);
    expect(selectInterface(card, ["JSONRPC"], { protocolVersion: "1.0.1" }).url).toBe("https://a/rpc");
    expect(selectInterface(card, ["JSONRPC", "HTTP+JSON"], { protocolVersion: "1.0.1" }).url).toBe("https://a/rest");
    expect(selectInterface(card, ["JSONRPC", "HTTP+JSON", "GRPC"], { protocolVersion: "1.0.1" }).binding).toBe("GRPC");
    expect(selectInterface(card, ["JSONRPC", "HTTP+JSON", "GRPC"], { protocolVersion: "1.0.1", binding: "JSONRPC" }).url).toBe("https://a/rpc");
  });

  it("0.3: the main url with preferredTransport first (JSONRPC when absent), then additionalInterfaces", () => {
    const card = { url: "grpc://a:50051", preferredTransport: "GRPC", additionalInterfaces: [{ url: "grpc://a:50051", transport: "GRPC" }, { url: "https://a/rpc", transport: "JSONRPC" }] };
    expect(cardInterfaces(card).map((i) => `${i.binding} ${i.url}`)).toEqual(["GRPC grpc://a:50051", "JSONRPC https://a/rpc"]);
    expect(selectInterface(card, ["JSONRPC"]).url).toBe("https://a/rpc");
    expect(cardInterfaces({ url: "https://a/" })).toEqual([{ binding: "JSONRPC", url: "https://a/" }]);
  });

  it("names what the card offers when nothing fits, or when the forced binding is missing", () => {
    const grpcOnly = v1Card([{ url: "grpc://a:50051", protocolBinding: "GRPC" }]);
    expect(() => selectInterface(grpcOnly, ["JSONRPC"])).toThrow(A2AInterfaceSelectionError);
    expect(() => selectInterface(grpcOnly, ["JSONRPC"])).toThrow("the agent card offers GRPC at grpc://a:50051; this client speaks JSONRPC (pass other bindings' factories in the transports option)");
    expect(() => selectInterface(grpcOnly, ["JSONRPC", "GRPC"], { binding: "HTTP+JSON" })).toThrow("the agent card offers no HTTP+JSON interface (it offers GRPC at grpc://a:50051)");
    expect(() => selectInterface(grpcOnly, ["JSONRPC"], { binding: "GRPC" })).toThrow("the client has no GRPC transport: pass its factory in the transports option");
  });
});

describe("A2AClient.fromAgentUrl picks the binding", () => {
  it("1.0: JSON-RPC when it is the only binding the client speaks, even listed last", async () => {
    const agent = await serve((req, res, received) =>
      req.method === "GET"
        ? json(res, 200, v1Card([{ url: "grpc://127.0.0.1:1", protocolBinding: "GRPC" }, { url: "/rest", protocolBinding: "HTTP+JSON" }, { url: "/rpc", protocolBinding: "JSONRPC" }]))
        : answer({ message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "via JSONRPC" }] } })(req, res, received),
    );
    const client = await V1.A2AClient.fromAgentUrl(agent.url);
    expect(client.transport.binding).toBe("JSONRPC");
    expect(client.endpoint).toBe(`${agent.url}/rpc`);
    expect(await client.sendMessage(V1.A2AClient.sendParams("hi"))).toMatchObject({ message: { parts: [{ text: "via JSONRPC" }] } });
    expect(agent.received[1]).toMatchObject({ method: "POST", url: "/rpc" });
  });

  it("1.0: a transport passed in `transports` is used when the card prefers it, with the typed API unchanged", async () => {
    const agent = await serve((_req, res) => json(res, 200, v1Card([{ url: "/rest", protocolBinding: "HTTP+JSON", tenant: "acme" }, { url: "/rpc", protocolBinding: "JSONRPC" }])));
    const rest = recordingFactory("HTTP+JSON");
    const client = await V1.A2AClient.fromAgentUrl(agent.url, { transports: [rest.factory], auth: { type: "bearer", token: "t" } });
    expect(client.transport.binding).toBe("HTTP+JSON");
    expect(rest.made[0]).toMatchObject({ endpoint: `${agent.url}/rest`, context: { tenant: "acme", protocolVersion: "1.0", trustedOrigins: [agent.origin], protocolHeaders: { "A2A-Version": "1.0" } } });
    expect(await client.sendMessage(V1.A2AClient.sendParams("hi"))).toMatchObject({ message: { parts: [{ text: "via HTTP+JSON" }] } });
    // Typed errors come from the client's error table, whatever the binding.
    await expect(client.getTask({ id: "nope" })).rejects.toBeInstanceOf(V1.A2ATaskNotFoundError);
    // The stream ends on the final event (the runtime's isFinalEvent, handed to every transport).
    const events: unknown[] = [];
    for await (const event of client.sendStreamingMessage(V1.A2AClient.sendParams("stream"))) events.push(V1.A2AClient.unwrap(event));
    expect(events).toHaveLength(2);
    expect(rest.calls.map((c) => c.method)).toEqual(["SendMessage", "GetTask", "SendStreamingMessage"]);
    // Only JSON-RPC was ever spoken to the agent: the card fetch.
    expect(agent.received.map((r) => r.method)).toEqual(["GET"]);
  });

  it("1.0: the interface's tenant is set in every request's params (§8.3.2), and left out without one", async () => {
    const agent = await serve((req, res, received) =>
      req.method === "GET"
        ? json(res, 200, v1Card([{ url: "/rpc", protocolBinding: "JSONRPC", tenant: "acme" }]))
        : answer({ task: { id: "t", contextId: "c", status: { state: "TASK_STATE_COMPLETED" } } })(req, res, received),
    );
    const client = await V1.A2AClient.fromAgentUrl(agent.url);
    await client.getTask({ id: "t" });
    await client.getTask({ id: "t", tenant: "explicit" });
    expect(agent.received.slice(1).map((r) => r.json?.["params"])).toEqual([
      { id: "t", tenant: "acme" },
      { id: "t", tenant: "acme" },
    ]);
    const plain = await V1.A2AClient.fromCard(v1Card([{ url: `${agent.url}/rpc`, protocolBinding: "JSONRPC" }]) as never);
    await plain.getTask({ id: "t" });
    expect(agent.received[3]?.json?.["params"]).toEqual({ id: "t" });
  });

  it("binding: forces one; forcing a binding the card lacks is an A2AInterfaceSelectionError", async () => {
    const agent = await serve((_req, res) => json(res, 200, v1Card([{ url: "/rest", protocolBinding: "HTTP+JSON" }, { url: "/rpc", protocolBinding: "JSONRPC" }])));
    const rest = recordingFactory("HTTP+JSON");
    const forced = await V1.A2AClient.fromAgentUrl(agent.url, { transports: [rest.factory], binding: "JSONRPC" });
    expect(forced.transport.binding).toBe("JSONRPC");
    expect(rest.made).toEqual([]);
    const error = await V1.A2AClient.fromAgentUrl(agent.url, { binding: "GRPC" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(V1.A2AInterfaceSelectionError);
    expect((error as Error).message).toBe(`the agent card offers no GRPC interface (it offers HTTP+JSON at /rest, JSONRPC at /rpc)`);
  });

  it("0.3: preferredTransport GRPC with a JSONRPC additional interface connects over JSON-RPC", async () => {
    const card = {
      name: "Agent",
      description: "An agent",
      url: "grpc://127.0.0.1:1",
      preferredTransport: "GRPC",
      additionalInterfaces: [{ url: "grpc://127.0.0.1:1", transport: "GRPC" }, { url: "/rpc", transport: "JSONRPC" }],
      version: "1.0.0",
      protocolVersion: "0.3.0",
      capabilities: {},
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: [],
    };
    const agent = await serve((req, res, received) =>
      req.method === "GET" ? json(res, 200, card) : answer({ kind: "message", messageId: "m", role: "agent", parts: [{ kind: "text", text: "hi" }] })(req, res, received),
    );
    const client = await V03.A2AClient.fromAgentUrl(agent.url);
    expect(client.endpoint).toBe(`${agent.url}/rpc`);
    await expect(client.sendMessage(V03.A2AClient.sendParams("hi"))).resolves.toMatchObject({ kind: "message" });
    const grpc = recordingFactory("GRPC");
    const viaGrpc = await V03.A2AClient.fromAgentUrl(agent.url, { transports: [grpc.factory] });
    expect(viaGrpc.transport.binding).toBe("GRPC");
    expect(grpc.made[0]?.endpoint).toBe("grpc://127.0.0.1:1");
    expect(grpc.made[0]?.context.protocolHeaders).toEqual({}); // 0.3 has no version header
  });
});
