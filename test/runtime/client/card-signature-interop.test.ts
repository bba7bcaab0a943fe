// Card signatures against the official SDK (@a2a-js/sdk 1.3.0, installed as a2a-sdk-v1): a card we sign
// verifies with its verifier, and a card it signs verifies with ours (docs/interop.md, "The client: card
// signatures"). Keys are generated here.
import { describe, expect, it } from "vitest";
import { generateKeyPair } from "jose";
import { canonicalizeAgentCard, generateAgentCardSignature, verifyAgentCardSignature, type AgentCard } from "a2a-sdk-v1";
import { canonicalCardPayload, signAgentCard, verifyAgentCard } from "../../../src/runtime/card/signature.js";

const card = {
  name: "Signed Agent",
  description: "An agent whose card is signed",
  supportedInterfaces: [{ url: "https://agent.example/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
  version: "1.0.0",
  capabilities: { streaming: true, pushNotifications: false },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "echo", name: "Echo", description: "Echoes", tags: ["echo"] }],
};

describe("card signatures with @a2a-js/sdk 1.3.0", () => {
  it("the SDK's canonical payload of a card without empty values is ours", () => {
    expect(canonicalizeAgentCard(card as unknown as AgentCard)).toBe(canonicalCardPayload(card));
  });

  it.each(["ES256", "RS256", "EdDSA"])("%s: a card we sign verifies with the SDK, and one the SDK signs verifies with ours", async (alg) => {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    const ours = await signAgentCard(card, privateKey, { kid: "k1", alg });
    await expect(verifyAgentCardSignature(async () => publicKey)(ours as unknown as AgentCard)).resolves.toBeUndefined();
    const theirs = await generateAgentCardSignature(privateKey, { alg, kid: "k1", typ: "JOSE" })(card as unknown as AgentCard);
    await expect(verifyAgentCard(theirs, { keys: { k1: publicKey } })).resolves.toMatchObject({ kid: "k1", alg });
    // A card with an empty required field: the SDK signs its compact form, which we accept too.
    const sparse = await generateAgentCardSignature(privateKey, { alg, kid: "k1", typ: "JOSE" })({ ...card, skills: [] } as unknown as AgentCard);
    await expect(verifyAgentCard(sparse, { keys: { k1: publicKey } })).resolves.toMatchObject({ kid: "k1" });
  });
});
