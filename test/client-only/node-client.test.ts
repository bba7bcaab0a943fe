// The client-only output's client on Node (issue 35 item 3) against a generated 1.0.1 agent: send, stream,
// get and a typed error over JSON-RPC and HTTP+JSON (specification-1.0.1.md §9 and §11), with and without
// the opt-in schema checks (`validation: clientValidation`), and `validateResponses` without them refused.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientOnlyOutput } from "./output.js";
import { startAgent, type RunningAgent } from "./agent.js";

type Json = Record<string, unknown>;
interface ClientLike {
  transport: { binding: string };
  sendMessage(params: unknown): Promise<Json>;
  sendStreamingMessage(params: unknown): AsyncGenerator<Json, void, undefined>;
  getTask(params: unknown): Promise<Json>;
}
interface ClientModule {
  A2AClient: {
    new (url: string, options?: Json): ClientLike;
    fromAgentUrl(url: string, options?: Json): Promise<ClientLike>;
    sendParams(text: string, options?: Json): unknown;
    userMessage(content: unknown, options?: Json): Json;
    unwrap(result: unknown): Json;
  };
  A2ATaskNotFoundError: new (...args: never[]) => Error;
  restTransport: { binding: string };
}

let agent: RunningAgent;
let client: ClientModule;
let clientValidation: { check(definition: string, value: unknown): unknown };

beforeAll(async () => {
  const output = await clientOnlyOutput("1.0.1");
  client = (await import(join(output.dir, "client.ts"))) as ClientModule;
  clientValidation = ((await import(join(output.dir, "client-validation.ts"))) as { clientValidation: typeof clientValidation }).clientValidation;
  agent = await startAgent();
}, 60_000);
afterAll(() => agent?.close());

describe.each(["JSONRPC", "HTTP+JSON"])("the client-only client on Node over %s", (binding) => {
  for (const validated of [false, true]) {
    it(`sends, streams, gets and maps errors${validated ? " with validation" : ""}`, async () => {
      const options: Json = { transports: [client.restTransport], binding, ...(validated ? { validation: clientValidation } : {}) };
      const a2a = await client.A2AClient.fromAgentUrl(agent.baseUrl, options);
      expect(a2a.transport.binding).toBe(binding);
      // A direct reply (§3.1.1: the result is a Message).
      const reply = client.A2AClient.unwrap(await a2a.sendMessage(client.A2AClient.sendParams("hello")));
      expect(reply["role"]).toBe("ROLE_AGENT");
      expect(JSON.stringify(reply["parts"])).toContain("hello back");
      // A stream ends with the completed status (§3.1.2).
      const events: Json[] = [];
      for await (const event of a2a.sendStreamingMessage(client.A2AClient.sendParams("a story"))) events.push(client.A2AClient.unwrap(event));
      const last = events.at(-1) as Json;
      expect((last["status"] as Json)["state"]).toBe("TASK_STATE_COMPLETED");
      expect(JSON.stringify(events)).toContain("the result of a story");
      // The task, read back (§3.1.3).
      const taskId = String(last["taskId"]);
      const task = client.A2AClient.unwrap(await a2a.getTask({ id: taskId }));
      expect(task["id"]).toBe(taskId);
      // A typed error (§3.3.2 TaskNotFoundError).
      await expect(a2a.getTask({ id: "no-such-task" })).rejects.toBeInstanceOf(client.A2ATaskNotFoundError);
    });
  }
});

describe("on Node", () => {
  it("requests go through node:http (client/node-fetch.ts, loaded at run time), not the platform's fetch", async () => {
    const platformFetch = globalThis.fetch;
    let fetched = 0;
    globalThis.fetch = (async (...args: Parameters<typeof fetch>) => {
      fetched++;
      return platformFetch(...args);
    }) as typeof fetch;
    try {
      const a2a = await client.A2AClient.fromAgentUrl(agent.baseUrl);
      await a2a.sendMessage(client.A2AClient.sendParams("hello"));
      for await (const _ of a2a.sendStreamingMessage(client.A2AClient.sendParams("more"))) void _;
    } finally {
      globalThis.fetch = platformFetch;
    }
    expect(fetched).toBe(0);
  });
});

describe("the opt-in schema checks", () => {
  it("validateResponses without `validation` is refused, naming what to pass", () => {
    expect(() => new client.A2AClient(`${agent.baseUrl}/rpc`, { validateResponses: true })).toThrow(/validateResponses needs the generated validators: pass `validation: clientValidation`/);
  });

  it("with `validation`, a message that breaks the schema is refused; without, it is built as given", () => {
    const bad = [{ text: "a", url: "https://x" }];
    expect(() => client.A2AClient.userMessage(bad, { validation: clientValidation })).toThrow(TypeError);
    expect(client.A2AClient.userMessage(bad)["parts"]).toEqual(bad);
  });

  it("with `validation`, an invalid card is refused; without it the client still connects", async () => {
    const card = { name: "no interfaces field", supportedInterfaces: [{ url: `${agent.baseUrl}/rpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }] };
    const fetch = async (input: string, init: RequestInit) => (input.endsWith("/.well-known/agent-card.json") ? Response.json(card) : globalThis.fetch(input, init));
    await expect(client.A2AClient.fromAgentUrl(agent.baseUrl, { fetch, validation: clientValidation })).rejects.toThrow(/agent card of .* is invalid/);
    const loose = await client.A2AClient.fromAgentUrl(agent.baseUrl, { fetch });
    expect(client.A2AClient.unwrap(await loose.sendMessage(client.A2AClient.sendParams("hello")))["role"]).toBe("ROLE_AGENT");
  });
});
