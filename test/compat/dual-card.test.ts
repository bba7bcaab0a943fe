import { A2AClient, ClientFactory as ClientFactory03, ClientFactoryOptions as Options03, DefaultAgentCardResolver as Resolver03, JsonRpcTransportFactory as Transport03 } from "@a2a-js/sdk/client";
import { ClientFactory as ClientFactory1, ClientFactoryOptions as Options1, DefaultAgentCardResolver as Resolver1, JsonRpcTransportFactory as Transport1 } from "a2a-sdk-v1/client";
import { describe, expect, it } from "vitest";
import { sdkSend } from "../interop/sdk-v1-wire.js";
import { dualCard } from "../../src/runtime/compat-card.js";
import { derived, validator } from "./support.js";

/**
 * The agent card served to both kinds of clients (issue 10, docs/compat.md): the 1.0.1 card whose
 * `supportedInterfaces` also lists the JSON-RPC endpoint under protocolVersion "0.3", plus the top-level
 * 0.3 fields (`url`, `preferredTransport`, `protocolVersion`). Both official SDK clients read it and call
 * the agent in their own version: @a2a-js/sdk 0.3.14 (A2AClient and ClientFactory) sends `message/send`
 * to `url`; a2a-sdk 1.3.0 (ClientFactory, with and without its legacyCompat option) picks the "1.0"
 * interface and sends `SendMessage` with `A2A-Version: 1.0` (1.0.1 §3.2.6). Without the 0.3 fields, the
 * 0.3.14 clients cannot connect (the negative control).
 */

const BASE = "http://agent.test";
const ENDPOINT = `${BASE}/a2a/jsonrpc`;
const rule = derived().mapping.card;

/** A 1.0.1 card as a generated agent serves it (cf. 1.0.1 §4.4.1). */
const primaryCard = {
  name: "Echo",
  description: "Echoes what it is told.",
  supportedInterfaces: [{ url: ENDPOINT, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
  version: "1.0.0",
  capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: false },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "echo", name: "Echo", description: "Echoes the input", tags: ["echo"] }],
};

const withSecurity = {
  ...primaryCard,
  securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } } },
  securityRequirements: [{ schemes: { bearer: { list: [] } } }],
};

interface Call {
  url: string;
  method: string;
  version: string | null;
}

/** A fetch that serves `card` at the well-known path and answers any JSON-RPC call, recording it. */
function agentFetch(card: unknown, calls: Call[]): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (url.endsWith("/.well-known/agent-card.json")) return Response.json(card);
    const body = JSON.parse(String(init?.body)) as { id: number | string; method: string };
    const headers = new Headers(init?.headers);
    calls.push({ url, method: body.method, version: headers.get("A2A-Version") });
    const result =
      body.method === "SendMessage"
        ? { message: { messageId: "r1", role: "ROLE_AGENT", parts: [{ text: "ok" }] } }
        : { kind: "message", messageId: "r1", role: "agent", parts: [{ kind: "text", text: "ok" }] };
    return Response.json({ jsonrpc: "2.0", id: body.id, result });
  }) as typeof fetch;
}

const message03 = { kind: "message" as const, messageId: "m1", role: "user" as const, parts: [{ kind: "text" as const, text: "hi" }] };

async function via03Factory(card: unknown): Promise<Call[]> {
  const calls: Call[] = [];
  const fetchImpl = agentFetch(card, calls);
  const factory = new ClientFactory03(Options03.createFrom(Options03.default, { transports: [new Transport03({ fetchImpl })], cardResolver: new Resolver03({ fetchImpl }) }));
  const client = await factory.createFromUrl(BASE);
  await client.sendMessage({ message: message03 });
  return calls;
}

async function via03Legacy(card: unknown): Promise<Call[]> {
  const calls: Call[] = [];
  const client = await A2AClient.fromCardUrl(`${BASE}/.well-known/agent-card.json`, { fetchImpl: agentFetch(card, calls) });
  await client.sendMessage({ message: message03 });
  return calls;
}

async function via1Factory(card: unknown, legacyCompat: boolean): Promise<Call[]> {
  const calls: Call[] = [];
  const fetchImpl = agentFetch(card, calls);
  const compat = legacyCompat ? { legacyCompat: { enabled: true } } : {};
  const factory = new ClientFactory1(Options1.createFrom(Options1.default, { transports: [new Transport1({ fetchImpl, ...compat })], cardResolver: new Resolver1({ fetchImpl, ...compat }) }));
  const client = await factory.createFromUrl(BASE);
  await client.sendMessage(sdkSend("hi"));
  return calls;
}

describe("the dual agent card", () => {
  it("the mapping carries the card rule, derived check included (every field 0.3 requires and 1.0 lacks)", () => {
    expect(rule).toBeDefined();
    expect(rule?.fields.map((f) => f.field)).toEqual(expect.arrayContaining(["url", "protocolVersion"]));
  });

  const card = dualCard(rule!, primaryCard);

  it("is the 1.0 card, its JSON-RPC interface listed again under 0.3, and the 0.3 fields taken from it", () => {
    expect(card).toEqual({
      ...primaryCard,
      supportedInterfaces: [
        { url: ENDPOINT, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
        { url: ENDPOINT, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
      ],
      url: ENDPOINT,
      preferredTransport: "JSONRPC",
      protocolVersion: "0.3.0",
      supportsAuthenticatedExtendedCard: false,
    });
    expect(dualCard(rule!, card)).toEqual(card); // idempotent
    expect(primaryCard.supportedInterfaces).toHaveLength(1); // the input is not modified
  });

  it("validates as a 1.0.1 AgentCard and as a 0.3.0 AgentCard (both schemas leave unknown fields open)", () => {
    const v1 = validator("1.0.1", "AgentCard");
    const v03 = validator("0.3.0", "AgentCard");
    expect(v1(card), JSON.stringify(v1.errors)).toBe(true);
    expect(v03(card), JSON.stringify(v03.errors)).toBe(true);
    // With security schemes, their 1.0 shape is not 0.3.0's JSON Schema shape (it is 0.3's proto shape,
    // which @a2a-js/sdk 0.3.14 recognises and converts: see below).
    const secured = dualCard(rule!, withSecurity);
    expect(v1(secured), JSON.stringify(v1.errors)).toBe(true);
    expect(v03(secured)).toBe(false);
  });

  for (const [name, input] of [
    ["without security schemes", primaryCard],
    ["with a bearer security scheme", withSecurity],
  ] as const) {
    describe(name, () => {
      const served = dualCard(rule!, input);

      it("@a2a-js/sdk 0.3.14 ClientFactory calls message/send at `url`", async () => {
        expect(await via03Factory(served)).toEqual([{ url: ENDPOINT, method: "message/send", version: null }]);
      });

      it("@a2a-js/sdk 0.3.14 A2AClient calls message/send at `url`", async () => {
        expect(await via03Legacy(served)).toEqual([{ url: ENDPOINT, method: "message/send", version: null }]);
      });

      it("a2a-sdk 1.3.0 ClientFactory picks the 1.0 interface: SendMessage with A2A-Version 1.0", async () => {
        expect(await via1Factory(served, false)).toEqual([{ url: ENDPOINT, method: "SendMessage", version: "1.0" }]);
      });

      it("a2a-sdk 1.3.0 with legacyCompat on still picks 1.0 (the card is not a legacy card: it has supportedInterfaces)", async () => {
        expect(await via1Factory(served, true)).toEqual([{ url: ENDPOINT, method: "SendMessage", version: "1.0" }]);
      });
    });
  }

  it("negative control: the plain 1.0 card leaves @a2a-js/sdk 0.3.14 clients without an endpoint", async () => {
    await expect(via03Legacy(primaryCard)).rejects.toThrow(/url/);
    await expect(via03Factory(primaryCard)).rejects.toThrow(/No compatible transport/);
    expect(await via1Factory(primaryCard, false)).toEqual([{ url: ENDPOINT, method: "SendMessage", version: "1.0" }]);
  });
});
