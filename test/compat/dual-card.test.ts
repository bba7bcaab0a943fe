import { A2AClient, ClientFactory as ClientFactory03, ClientFactoryOptions as Options03, DefaultAgentCardResolver as Resolver03, JsonRpcTransportFactory as Transport03 } from "@a2a-js/sdk/client";
import { ClientFactory as ClientFactory1, ClientFactoryOptions as Options1, DefaultAgentCardResolver as Resolver1, JsonRpcTransportFactory as Transport1 } from "a2a-sdk-v1/client";
import { describe, expect, it } from "vitest";
import { A2AClient as Generated03 } from "../../generated/a2a-0.3.0/client.js";
import { A2AClient as Generated1 } from "../../generated/a2a-1.0.1/client.js";
import { clientValidation as validation03 } from "../../generated/a2a-0.3.0/client-validation.js";
import { clientValidation as validation1 } from "../../generated/a2a-1.0.1/client-validation.js";
import { sdkSend } from "../support/wire/jsonrpc-1.0.js";
import { dualCard, unservedCompatInterfaces } from "../../src/runtime/compat/card.js";
import { derived, validator } from "../support/compat/mapping.js";

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

/** The same card's security in 0.3's shape, as a2a-codegen's card converter (src/card/convert.ts) writes it. */
const compatForm = {
  securitySchemes: { bearer: { type: "http", scheme: "Bearer" } },
  security: [{ bearer: [] }],
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

async function viaGenerated03(card: unknown): Promise<Call[]> {
  const calls: Call[] = [];
  const client = await Generated03.fromAgentUrl(BASE, { fetch: agentFetch(card, calls), validation: validation03 });
  await client.sendMessage({ message: Generated03.userMessage("hi") });
  return calls;
}

async function viaGenerated1(card: unknown): Promise<Call[]> {
  const calls: Call[] = [];
  const client = await Generated1.fromAgentUrl(BASE, { fetch: agentFetch(card, calls), validation: validation1 });
  await client.sendMessage({ message: Generated1.userMessage("hi") });
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
      // specification-0.3.0.md §5.6: additionalInterfaces "SHOULD include all supported transports, including the main URL's".
      additionalInterfaces: [{ url: ENDPOINT, transport: "JSONRPC" }],
      protocolVersion: "0.3.0",
      supportsAuthenticatedExtendedCard: false,
    });
    expect(dualCard(rule!, card)).toEqual(card); // idempotent
    expect(primaryCard.supportedInterfaces).toHaveLength(1); // the input is not modified
  });

  describe("an agent serving 0.3 on JSON-RPC, HTTP+JSON and gRPC (specification-0.3.0.md §5.6: every transport declared)", () => {
    const REST = `${BASE}/rest`;
    const GRPC = "agent.test:50051";
    const three = {
      ...primaryCard,
      supportedInterfaces: [
        { url: REST, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
        { url: ENDPOINT, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
        { url: GRPC, protocolBinding: "GRPC", protocolVersion: "1.0" },
      ],
    };

    it("each served binding is listed again under 0.3, the main 0.3 interface is the rule's (JSON-RPC), additionalInterfaces names all three", () => {
      const served = dualCard(rule!, three, undefined, ["JSONRPC", "HTTP+JSON", "GRPC"]);
      expect((served.supportedInterfaces as Array<Record<string, unknown>>).map((i) => `${String(i.protocolBinding)} ${String(i.protocolVersion)}`)).toEqual([
        "HTTP+JSON 1.0",
        "HTTP+JSON 0.3",
        "JSONRPC 1.0",
        "JSONRPC 0.3",
        "GRPC 1.0",
        "GRPC 0.3",
      ]);
      expect(served.url).toBe(ENDPOINT);
      expect(served.preferredTransport).toBe("JSONRPC");
      expect(served.additionalInterfaces).toEqual([
        { url: ENDPOINT, transport: "JSONRPC" },
        { url: REST, transport: "HTTP+JSON" },
        { url: GRPC, transport: "GRPC" },
      ]);
      expect(validator("0.3.0", "AgentCard")(served)).toBe(true);
      expect(validator("1.0.1", "AgentCard")(served)).toBe(true);
      expect(unservedCompatInterfaces(rule!, served, ["JSONRPC", "HTTP+JSON", "GRPC"])).toEqual([]);
    });

    it("a binding not served to 0.3 clients is not in the 0.3 form; one listed anyway is named by the startup check", () => {
      const served = dualCard(rule!, three, undefined, ["JSONRPC", "HTTP+JSON"]);
      expect(served.additionalInterfaces).toEqual([
        { url: ENDPOINT, transport: "JSONRPC" },
        { url: REST, transport: "HTTP+JSON" },
      ]);
      expect((served.supportedInterfaces as Array<Record<string, unknown>>).filter((i) => i.protocolVersion === "0.3").map((i) => i.protocolBinding)).toEqual(["HTTP+JSON", "JSONRPC"]);
      expect(unservedCompatInterfaces(rule!, served, ["JSONRPC"])).toEqual([{ binding: "HTTP+JSON", url: REST }]);
    });

    it("without JSON-RPC, the first served binding is the main 0.3 interface", () => {
      const served = dualCard(rule!, three, undefined, ["HTTP+JSON", "GRPC"]);
      expect([served.url, served.preferredTransport]).toEqual([REST, "HTTP+JSON"]);
    });
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

  it("with the 0.3 form of the card, each security scheme carries both shapes and 0.3's `security` is added: valid in both schemas", () => {
    const merged = dualCard(rule!, withSecurity, compatForm);
    expect(merged.securitySchemes).toEqual({ bearer: { type: "http", scheme: "Bearer", httpAuthSecurityScheme: { scheme: "Bearer" } } });
    expect(merged.security).toEqual([{ bearer: [] }]);
    expect(merged.securityRequirements).toEqual(withSecurity.securityRequirements);
    const v1 = validator("1.0.1", "AgentCard");
    const v03 = validator("0.3.0", "AgentCard");
    expect(v1(merged), JSON.stringify(v1.errors)).toBe(true);
    expect(v03(merged), JSON.stringify(v03.errors)).toBe(true);
  });

  it("a strict 0.3 client (the generated one with `validation` checks the card) refuses 1.0-shaped security schemes: why they are merged", async () => {
    await expect(viaGenerated03(dualCard(rule!, withSecurity))).rejects.toThrow(/agent card of http:\/\/agent.test is invalid/);
  });

  for (const [name, input, compatCard] of [
    ["without security schemes", primaryCard, undefined],
    ["with a bearer security scheme in 1.0's shape", withSecurity, undefined],
    ["with a bearer security scheme in both shapes", withSecurity, compatForm],
  ] as const) {
    describe(name, () => {
      const served = dualCard(rule!, input, compatCard);

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

      it("the generated 1.0.1 client (which validates the card) sends SendMessage with A2A-Version 1.0", async () => {
        expect(await viaGenerated1(served)).toEqual([{ url: ENDPOINT, method: "SendMessage", version: "1.0" }]);
      });

      if (name !== "with a bearer security scheme in 1.0's shape") {
        it("the generated 0.3.0 client (which validates the card) sends message/send", async () => {
          expect(await viaGenerated03(served)).toEqual([{ url: ENDPOINT, method: "message/send", version: null }]);
        });
      }
    });
  }

  it("negative control: the plain 1.0 card leaves @a2a-js/sdk 0.3.14 clients without an endpoint", async () => {
    await expect(via03Legacy(primaryCard)).rejects.toThrow(/url/);
    await expect(via03Factory(primaryCard)).rejects.toThrow(/No compatible transport/);
    expect(await via1Factory(primaryCard, false)).toEqual([{ url: ENDPOINT, method: "SendMessage", version: "1.0" }]);
  });
});
