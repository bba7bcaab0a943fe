// Issue 29 item 8: the client's `verifyCard` checks every card it is given (specification-1.0.1.md §8.4.3:
// clients verify a card's signatures before trusting it), the extended card (§3.1.11 GetExtendedAgentCard)
// as well as the public one; and a card whose text names a member twice is refused: JSON.parse keeps the
// last, another reader the first, so a signature would vouch for a card read differently elsewhere (I-JSON,
// RFC 7493 §2.3, which RFC 8785 canonicalization (§8.4.1) requires).
import { describe, expect, it } from "vitest";
import { generateKeyPair } from "jose";
import { A2ACardSignatureError, cardSignatureVerifier, signAgentCard } from "../../../src/runtime/card/signature.js";
import { duplicateMember } from "../../../src/runtime/client/card.js";
import { json, serve } from "../../support/stub-servers.js";

const card = (url: string, name = "Signed Agent") => ({
  name,
  description: "An agent whose card is signed",
  supportedInterfaces: [{ url, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
  version: "1.0.0",
  capabilities: { streaming: true, extendedAgentCard: true },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "echo", name: "Echo", description: "Echoes", tags: ["echo"] }],
});

describe("verifyCard on the extended card", () => {
  it("GetExtendedAgentCard: a signed extended card is accepted, a tampered or unsigned one refused", async () => {
    const { A2AClient } = await import("../../../generated/a2a-1.0.1/client.js");
    const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
    let extended: unknown;
    const server = await serve((req, res, received) => {
      if (req.method === "GET") json(res, 200, publicCard);
      else json(res, 200, { jsonrpc: "2.0", id: received.json?.["id"] ?? null, result: extended });
    });
    const publicCard = await signAgentCard(card(`${server.url}/a2a`), privateKey, { kid: "k1", alg: "ES256" });
    const signedExtended = await signAgentCard(card(`${server.url}/a2a`, "Extended Agent"), privateKey, { kid: "k1", alg: "ES256" });
    const client = await A2AClient.fromAgentUrl(server.url, { verifyCard: cardSignatureVerifier({ keys: { k1: publicKey } }) });
    extended = signedExtended;
    await expect(client.getExtendedAgentCard({} as never)).resolves.toMatchObject({ name: "Extended Agent" });
    extended = { ...signedExtended, skills: [{ id: "admin", name: "Admin", description: "Does anything", tags: ["admin"] }] };
    await expect(client.getExtendedAgentCard({} as never)).rejects.toBeInstanceOf(A2ACardSignatureError);
    const { signatures: _gone, ...unsigned } = signedExtended;
    extended = unsigned;
    await expect(client.getExtendedAgentCard({} as never)).rejects.toThrow(/not signed/);
    // Without verifyCard, the card is taken as it comes.
    const trusting = await A2AClient.fromAgentUrl(server.url);
    await expect(trusting.getExtendedAgentCard({} as never)).resolves.toMatchObject({ name: "Extended Agent" });
  });
});

describe("a card with a member named twice", () => {
  it("duplicateMember finds a repeated name (also an escaped spelling of it) and where it is", () => {
    expect(duplicateMember('{"name":"a","x":{"y":[{"b":1}]}}')).toBeUndefined();
    expect(duplicateMember('{"name":"Evil","name":"Good"}')).toEqual({ pointer: "", name: "name" });
    expect(duplicateMember('{"skills":[{"id":"a"},{"id":"b","n\\u0061me":"x","name":"y"}]}')).toEqual({ pointer: "/skills/1", name: "name" });
    expect(duplicateMember('{"a/b":{"k":1,"k":2}}')).toEqual({ pointer: "/a~1b", name: "k" });
    // A string value that looks like a member is not one.
    expect(duplicateMember('{"a":"\\"a\\":1","b":"{\\"a\\":1,\\"a\\":2}"}')).toBeUndefined();
  });

  it("fromAgentUrl refuses a signed card whose text names `name` twice, naming the member", async () => {
    const { A2AClient } = await import("../../../generated/a2a-1.0.1/client.js");
    const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
    let text = "";
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(text);
    });
    const signed = await signAgentCard(card(`${server.url}/a2a`), privateKey, { kid: "k1", alg: "ES256" });
    const verifyCard = cardSignatureVerifier({ keys: { k1: publicKey } });
    text = JSON.stringify(signed);
    await expect(A2AClient.fromAgentUrl(server.url, { verifyCard })).resolves.toBeDefined();
    // The signed name stays last (what JSON.parse keeps); a first-wins reader sees "Evil Agent".
    text = `{"name":"Evil Agent",${JSON.stringify(signed).slice(1)}`;
    await expect(A2AClient.fromAgentUrl(server.url, { verifyCard, cardCache: false })).rejects.toThrow(/the member "name" appears twice in the object at \//);
  });
});

describe("an extended card with a member named twice (over JSON-RPC and HTTP+JSON)", () => {
  // The transports read the extended card from the response text, as fetchAgentCard reads the public card:
  // the same I-JSON check (RFC 7493 §2.3) before the card is verified (§8.4.3) or used.
  const extendedText = (url: string) => {
    const text = JSON.stringify({ ...card(url, "Extended Agent"), capabilities: { streaming: true } });
    return { good: text, twice: `{"name":"Evil Agent",${text.slice(1)}`, nested: text.replace('"tags":["echo"]', '"tags":["echo"],"tags":["admin"]') };
  };

  for (const binding of ["JSONRPC", "HTTP+JSON"] as const) {
    it(`${binding}: GetExtendedAgentCard refuses the card, naming the member and where it is; a card without one is read`, async () => {
      const { A2AClient, restTransport } = await import("../../../generated/a2a-1.0.1/client.js");
      let text = "";
      const server = await serve((req, res, received) => {
        if (req.method === "GET" && req.url === "/.well-known/agent-card.json") return json(res, 200, publicCard);
        res.writeHead(200, { "content-type": "application/json" });
        // JSON-RPC: the card in `result` of the envelope, as text; HTTP+JSON (GET /rest/extendedAgentCard, §11.3): the card itself.
        res.end(binding === "JSONRPC" ? `{"jsonrpc":"2.0","id":${JSON.stringify(received.json?.["id"] ?? null)},"result":${text}}` : text);
      });
      const publicCard = {
        ...card(`${server.url}/a2a`),
        supportedInterfaces: [binding === "JSONRPC" ? { url: `${server.url}/a2a`, protocolBinding: "JSONRPC", protocolVersion: "1.0" } : { url: `${server.url}/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" }],
      };
      const client = await A2AClient.fromAgentUrl(server.url, binding === "JSONRPC" ? {} : { transports: [restTransport], binding });
      expect(client.transport.binding).toBe(binding);
      const texts = extendedText(`${server.url}/a2a`);
      text = texts.good;
      await expect(client.getExtendedAgentCard({} as never)).resolves.toMatchObject({ name: "Extended Agent" });
      const where = binding === "JSONRPC" ? "/result" : "/";
      text = texts.twice;
      await expect(client.getExtendedAgentCard({} as never)).rejects.toThrow(`GetExtendedAgentCard: the member "name" appears twice in the object at ${where} (a card must be I-JSON, RFC 7493 §2.3)`);
      text = texts.nested;
      await expect(client.getExtendedAgentCard({} as never)).rejects.toThrow(`the member "tags" appears twice in the object at ${binding === "JSONRPC" ? "/result" : ""}/skills/0`);
      if (binding === "HTTP+JSON") expect(server.received.at(-1)?.url).toBe("/rest/extendedAgentCard");
    });
  }
});
