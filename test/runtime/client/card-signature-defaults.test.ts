// Issue 29 item 4: the signed payload leaves out default values (specification-1.0.1.md §8.4.1 rule 1:
// fields with default values MUST be omitted unless REQUIRED or `optional`; §8.4.2 step 1, §8.4.3 step 3),
// so a card with defaults (the bearer requirement `{"list":[]}`) verifies with @a2a-js/sdk 1.3.0
// (installed as a2a-sdk-v1) and a card the SDK signs verifies with our client. Keys are generated here.
import { describe, expect, it } from "vitest";
import { exportJWK, generateKeyPair } from "jose";
import { generateAgentCardSignature, verifyAgentCardSignature, type AgentCard } from "a2a-sdk-v1";
import { canonicalCardPayload, cardSignatureVerifier, signAgentCard, verifyAgentCard } from "../../../src/runtime/card/signature.js";
import { json, serve } from "../../support/stub-servers.js";

const card = (url = "https://agent.example/a2a") => ({
  name: "Signed Agent",
  description: "An agent whose card is signed",
  supportedInterfaces: [{ url, protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant: "" }],
  version: "1.0.0",
  capabilities: { streaming: true, pushNotifications: false, extensions: [] },
  securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: "Bearer", description: "", bearerFormat: "" } } },
  securityRequirements: [{ schemes: { bearer: { list: [] } } }],
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "echo", name: "Echo", description: "Echoes", tags: ["echo"], examples: [], inputModes: [] }],
});

describe("§8.4.1 canonical form", () => {
  it("the spec's example: REQUIRED and `optional` fields kept with default values, an empty repeated field left out", () => {
    const fragment = { name: "Example Agent", description: "", capabilities: { streaming: false, pushNotifications: false, extensions: [] }, skills: [] };
    expect(canonicalCardPayload(fragment)).toBe('{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}');
  });

  it("default values of plain fields are left out at every depth: empty lists, empty strings, false, empty maps", () => {
    const payload = JSON.parse(canonicalCardPayload({ ...card(), securitySchemes: { ...card().securitySchemes }, skills: [{ ...card().skills[0], securityRequirements: [] }] })) as Record<string, unknown>;
    expect(payload.supportedInterfaces).toEqual([{ url: "https://agent.example/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }]);
    expect(payload.capabilities).toEqual({ streaming: true, pushNotifications: false });
    expect(payload.securitySchemes).toEqual({ bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } } });
    expect(payload.securityRequirements).toEqual([{ schemes: { bearer: {} } }]);
    expect(payload.skills).toEqual([{ id: "echo", name: "Echo", description: "Echoes", tags: ["echo"] }]);
    // An empty map field (not REQUIRED) is left out; an optional field set to "" is kept.
    expect(JSON.parse(canonicalCardPayload({ name: "a", securitySchemes: {}, documentationUrl: "" }))).toEqual({ name: "a", documentationUrl: "" });
  });

  it("the payload does not change when a reader adds the defaults ProtoJSON omits", () => {
    const sparse = { name: "a", description: "d", version: "1", capabilities: {}, defaultInputModes: ["text/plain"], defaultOutputModes: ["text/plain"], skills: [], supportedInterfaces: [{ url: "u", protocolBinding: "JSONRPC", protocolVersion: "1.0" }] };
    const filled = { ...sparse, securitySchemes: {}, securityRequirements: [], capabilities: { extensions: [] }, supportedInterfaces: [{ ...sparse.supportedInterfaces[0], tenant: "" }] };
    expect(canonicalCardPayload(filled)).toBe(canonicalCardPayload(sparse));
  });
});

describe("card signatures with @a2a-js/sdk 1.3.0, on a card with default values", () => {
  it.each(["ES256", "EdDSA"])("%s: our signed card verifies with the SDK's verifier, and the SDK's signed card with ours", async (alg) => {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    const ours = await signAgentCard(card(), privateKey, { kid: "k1", alg });
    await expect(verifyAgentCardSignature(async () => publicKey)(ours as unknown as AgentCard)).resolves.toBeUndefined();
    await expect(verifyAgentCard(ours, { keys: { k1: publicKey } })).resolves.toMatchObject({ kid: "k1", index: 0 });
    const theirs = await generateAgentCardSignature(privateKey, { alg, kid: "k1", typ: "JOSE" })(card() as unknown as AgentCard);
    await expect(verifyAgentCard(theirs, { keys: { k1: publicKey } })).resolves.toMatchObject({ kid: "k1" });
  });

  it("the first signature is over §8.4.1's form; the SDKs' compact form gets its own only when it differs, or never when told", async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
    const ours = await signAgentCard(card(), privateKey, { kid: "k1", alg: "ES256" });
    expect(ours.signatures).toHaveLength(2);
    const { flattenedVerify, base64url } = await import("jose");
    const payload = base64url.encode(new TextEncoder().encode(canonicalCardPayload(card())));
    await expect(flattenedVerify({ payload, ...ours.signatures[0] }, publicKey)).resolves.toBeDefined();
    const strict = await signAgentCard(card(), privateKey, { kid: "k1", alg: "ES256", compactSignature: false });
    expect(strict.signatures).toHaveLength(1);
    const plain = { ...card(), securityRequirements: [{ schemes: { bearer: { list: ["read"] } } }] };
    expect((await signAgentCard(plain, privateKey, { kid: "k1", alg: "ES256" })).signatures).toHaveLength(1);
  });

  it("our client (fromAgentUrl with verifyCard) accepts a card the SDK signed, served with its default values", async () => {
    const { A2AClient } = await import("../../../generated/a2a-1.0.1/client.js");
    const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
    const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256", use: "sig" };
    let served: unknown = {};
    const server = await serve((req, res) => (req.url === "/jwks.json" ? json(res, 200, { keys: [jwk] }) : json(res, 200, served)));
    served = await generateAgentCardSignature(privateKey, { alg: "ES256", kid: "k1", typ: "JOSE" })(card(`${server.url}/a2a`) as unknown as AgentCard);
    const verifyCard = cardSignatureVerifier({ jwks: `${server.url}/jwks.json` });
    const client = await A2AClient.fromAgentUrl(server.url, { verifyCard, auth: { type: "bearer", token: "t" } });
    expect(client.card?.name).toBe("Signed Agent");
    served = await signAgentCard(card(`${server.url}/a2a`), privateKey, { kid: "k1", alg: "ES256", compactSignature: false });
    await expect(A2AClient.fromAgentUrl(server.url, { verifyCard, auth: { type: "bearer", token: "t" } })).resolves.toBeDefined();
  });
});
