// Agent card signatures: specification-1.0.1.md §8.4 (JWS per RFC 7515 with a detached payload, the
// RFC 8785 canonical JSON of the card without `signatures`). Keys are generated here, never stored.
import { describe, expect, it } from "vitest";
import { exportJWK, generateKeyPair, type CryptoKey } from "jose";
import {
  A2ACardSignatureError,
  canonicalCardPayload,
  cardSignatureVerifier,
  compactCardPayload,
  signAgentCard,
  verifyAgentCard,
} from "../../../src/runtime/card/signature.js";

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

async function keyPair(alg: string): Promise<{ privateKey: CryptoKey; publicKey: CryptoKey }> {
  return generateKeyPair(alg, { extractable: true });
}

function decodeHeader(protectedHeader: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(protectedHeader, "base64url").toString("utf8")) as Record<string, unknown>;
}

describe("RFC 8785 canonical payload (§8.4.1)", () => {
  it("orders keys, drops whitespace and the signatures, and serializes numbers and strings as RFC 8785 §3.2.2 does", () => {
    expect(canonicalCardPayload({ b: 1, a: { d: [3, "x"], c: null }, signatures: [{ protected: "p", signature: "s" }] })).toBe('{"a":{"c":null,"d":[3,"x"]},"b":1}');
    // RFC 8785 §3.2.2.3 / Appendix B: numbers in their shortest ECMAScript form.
    expect(canonicalCardPayload({ n: [1e30, 4.5, 0.002, 1e-7, -0] })).toBe('{"n":[1e+30,4.5,0.002,1e-7,0]}');
    // RFC 8785 §3.2.2.2: only the required escapes; other characters as they are.
    expect(canonicalCardPayload({ s: "\u20ac$\u000f\nA'B\"\\\\\"/" })).toBe('{"s":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}');
    // RFC 8785 §3.2.3: property names sorted by UTF-16 code units.
    expect(canonicalCardPayload({ "\u20ac": 1, "\r": 2, "\ud83d\ude00": 3, "1": 4, "\u0080": 5, "\u00f6": 6 })).toBe('{"\\r":2,"1":4,"\u0080":5,"ö":6,"€":1,"😀":3}');
  });

  it("the SDK form leaves out empty values, as @a2a-js/sdk's canonicalizeAgentCard does", () => {
    expect(compactCardPayload({ name: "Example Agent", description: "", capabilities: { streaming: false, extensions: [] }, skills: [] })).toBe(
      '{"capabilities":{"streaming":false},"name":"Example Agent"}',
    );
  });
});

describe("signAgentCard / verifyAgentCard (§8.4.2, §8.4.3)", () => {
  it.each(["RS256", "ES256", "EdDSA"])("%s: signs with a protected header {alg, typ, kid}, and the signature verifies", async (alg) => {
    const { privateKey, publicKey } = await keyPair(alg);
    const signed = await signAgentCard(card, privateKey, { kid: "key-1", alg, jku: "https://agent.example/jwks.json" });
    expect(signed.signatures).toHaveLength(1);
    const [signature] = signed.signatures;
    expect(decodeHeader(signature?.protected ?? "")).toEqual({ alg, typ: "JOSE", kid: "key-1", jku: "https://agent.example/jwks.json" });
    expect(signature?.signature).toMatch(/^[A-Za-z0-9_-]+$/);
    const { signatures: _signatures, ...unsigned } = signed;
    expect(unsigned).toEqual(card); // the card itself is unchanged
    await expect(verifyAgentCard(signed, { keys: { "key-1": publicKey } })).resolves.toEqual({ kid: "key-1", alg, index: 0 });
    const jwk = { ...(await exportJWK(publicKey)), kid: "key-1", alg };
    await expect(verifyAgentCard(signed, { jwks: { keys: [jwk] } })).resolves.toMatchObject({ kid: "key-1" });
    // The order of the card's properties does not matter: the payload is canonical.
    const reordered = Object.fromEntries(Object.entries(signed).reverse());
    await expect(verifyAgentCard(reordered, { keys: { "key-1": publicKey } })).resolves.toMatchObject({ kid: "key-1" });
  });

  it("refuses a tampered card: a changed field, a removed signature, the wrong key, the wrong kid", async () => {
    const { privateKey, publicKey } = await keyPair("ES256");
    const other = await keyPair("ES256");
    const signed = await signAgentCard(card, privateKey, { kid: "key-1", alg: "ES256" });
    const verify = cardSignatureVerifier({ keys: { "key-1": publicKey } });
    await expect(verify(signed)).resolves.toMatchObject({ kid: "key-1" });

    const changed = { ...signed, supportedInterfaces: [{ url: "https://evil.example/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }] };
    const changedError = await verify(changed).catch((e: unknown) => e);
    expect(changedError).toBeInstanceOf(A2ACardSignatureError);
    expect((changedError as A2ACardSignatureError).reasons[0]).toMatch(/signatures\[0\] \(kid "key-1", ES256\): signature verification failed/);

    const { signatures: _removed, ...unsigned } = signed;
    await expect(verify(unsigned)).rejects.toThrow(/not signed/);
    await expect(verify({ ...signed, signatures: [] })).rejects.toThrow(/not signed/);

    await expect(verifyAgentCard(signed, { keys: { "key-1": other.publicKey } })).rejects.toThrow(/signature verification failed/);
    await expect(verifyAgentCard(signed, { keys: { "key-2": publicKey } })).rejects.toThrow(/no key with kid "key-1"/);
    const wrongKidJwk = { ...(await exportJWK(publicKey)), kid: "key-2" };
    await expect(verifyAgentCard(signed, { jwks: { keys: [wrongKidJwk] } })).rejects.toBeInstanceOf(A2ACardSignatureError);

    // A signature swapped in from another card does not vouch for this one.
    const otherCard = await signAgentCard({ ...card, name: "Other" }, privateKey, { kid: "key-1", alg: "ES256" });
    await expect(verify({ ...card, signatures: otherCard.signatures })).rejects.toThrow(/signature verification failed/);
    // An algorithm outside the accepted list is refused even with the right key.
    await expect(verifyAgentCard(signed, { keys: { "key-1": publicKey }, algorithms: ["RS256"] })).rejects.toThrow(/alg/);
  });

  it("accepts a card when one of several signatures verifies (key rotation), and keeps existing signatures when signing", async () => {
    const oldKey = await keyPair("RS256");
    const newKey = await keyPair("EdDSA");
    const once = await signAgentCard(card, oldKey.privateKey, { kid: "old", alg: "RS256" });
    const twice = await signAgentCard(once, newKey.privateKey, { kid: "new", alg: "EdDSA" });
    expect(twice.signatures.map((s) => decodeHeader(s.protected)["kid"])).toEqual(["old", "new"]);
    await expect(verifyAgentCard(twice, { keys: { new: newKey.publicKey } })).resolves.toEqual({ kid: "new", alg: "EdDSA", index: 1 });
    await expect(verifyAgentCard(twice, { keys: { old: oldKey.publicKey } })).resolves.toEqual({ kid: "old", alg: "RS256", index: 0 });
  });

  it("refuses a signature whose protected header lacks kid, and malformed entries, naming each", async () => {
    const { publicKey } = await keyPair("ES256");
    const noKid = Buffer.from(JSON.stringify({ alg: "ES256", typ: "JOSE" })).toString("base64url");
    const error = (await verifyAgentCard({ ...card, signatures: [{ protected: noKid, signature: "AA" }, { protected: 1 }] }, { keys: { k: publicKey } }).catch(
      (e: unknown) => e,
    )) as A2ACardSignatureError;
    expect(error).toBeInstanceOf(A2ACardSignatureError);
    expect(error.reasons).toEqual([
      "signatures[0]: the protected header has no kid or alg (both required by §8.4.2)",
      "signatures[1]: not an AgentCardSignature (protected and signature strings)",
    ]);
  });

  it("verifies a card signed over the SDK's compact payload (@a2a-js/sdk 1.x interop)", async () => {
    const { privateKey, publicKey } = await keyPair("ES256");
    const withEmpty = { ...card, documentationUrl: "", securitySchemes: {} };
    const { FlattenedSign } = await import("jose");
    const jws = await new FlattenedSign(new TextEncoder().encode(compactCardPayload(withEmpty)))
      .setProtectedHeader({ alg: "ES256", typ: "JOSE", kid: "sdk" })
      .sign(privateKey);
    const signed = { ...withEmpty, signatures: [{ protected: jws.protected ?? "", signature: jws.signature }] };
    await expect(verifyAgentCard(signed, { keys: { sdk: publicKey } })).resolves.toMatchObject({ kid: "sdk" });
  });
});

describe("the client refuses a card whose signature does not verify (A2AClient verifyCard option)", () => {
  it("fromAgentUrl accepts the signed card with keys from a JWKS URL, and refuses a tampered one", async () => {
    const { serve, json } = await import("../../support/stub-servers.js");
    const { A2AClient } = await import("../../../generated/a2a-1.0.1/client.js");
    const { privateKey, publicKey } = await keyPair("ES256");
    const jwk = { ...(await exportJWK(publicKey)), kid: "card-key", alg: "ES256", use: "sig" };
    let served: Record<string, unknown> = {};
    let jwksFetches = 0;
    const server = await serve((req, res) => {
      if (req.url === "/jwks.json") {
        jwksFetches++;
        json(res, 200, { keys: [jwk] });
      } else json(res, 200, served);
    });
    const signed = await signAgentCard({ ...card, supportedInterfaces: [{ url: `${server.url}/a2a`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }] }, privateKey, {
      kid: "card-key",
      alg: "ES256",
    });
    const verifyCard = cardSignatureVerifier({ jwks: `${server.url}/jwks.json` });
    served = signed;
    const client = await A2AClient.fromAgentUrl(server.url, { verifyCard });
    expect(client.card?.name).toBe("Signed Agent");
    served = { ...signed, supportedInterfaces: [{ url: "http://127.0.0.1:1/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }] };
    await expect(A2AClient.fromAgentUrl(server.url, { verifyCard })).rejects.toBeInstanceOf(A2ACardSignatureError);
    const { signatures: _gone, ...unsigned } = signed;
    served = unsigned;
    await expect(A2AClient.fromAgentUrl(server.url, { verifyCard })).rejects.toThrow(/not signed/);
    expect(jwksFetches).toBe(1); // the verifier keeps the key set
  });
});
