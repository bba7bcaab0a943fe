/**
 * The agent card endpoint, server side (issue 15 items 6 and 8), on every adapter, 1.0.1 and 0.3.0:
 *
 * - caching (specification-1.0.1.md §8.6.1): `Cache-Control` with `max-age` (default 300 s, the
 *   `cardCache.maxAgeSeconds` option), an `ETag` derived from the card as served, `Last-Modified`, and 304
 *   Not Modified to a matching `If-None-Match` (weak comparison, RFC 9110 §13.1.2) or, without one, to an
 *   `If-Modified-Since` not before it (RFC 9110 §13.1.3); `cardCache: false` sends `no-cache`;
 * - signing (§8.4, AgentCardSignature in 0.3.0 and 1.0.1): the `cardSigning` option signs the card once;
 *   the card served carries the JWS, which verifies against the public key (generated here) with
 *   runtime/card/signature.ts, and a tampered copy does not. The extended card is signed too.
 */
import { generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalCardPayload, compactCardPayload, signAgentCard, verifyAgentCard, A2ACardSignatureError } from "../../../src/runtime/card/signature.js";
import { FRAMEWORKS, modules, rawPost, startServer, type RunningServer } from "../../support/servers.js";

type Json = Record<string, unknown>;

for (const version of ["1.0.1", "0.3.0"]) {
  for (const framework of FRAMEWORKS) {
    describe(`${version} card endpoint on ${framework}`, () => {
      let plain: RunningServer;
      let tuned: RunningServer;
      let signed: RunningServer;
      let keys: Awaited<ReturnType<typeof generateKeyPair>>;
      const lastModified = new Date("2026-01-02T03:04:05Z");
      let path: string;
      beforeAll(async () => {
        path = (await modules(version)).protocol.WELL_KNOWN_AGENT_CARD_PATH;
        keys = await generateKeyPair("ES256", { extractable: true });
        plain = await startServer(version, framework);
        tuned = await startServer(version, framework, { options: { cardCache: { maxAgeSeconds: 60, lastModified } } });
        signed = await startServer(version, framework, {
          extendedCard: { name: "Extended Agent" },
          auth: { verify: () => true },
          options: { cardSigning: (card: Json) => signAgentCard(card, keys.privateKey, { kid: "key-1", alg: "ES256" }) },
        });
      });
      afterAll(async () => {
        await plain.close();
        await tuned.close();
        await signed.close();
      });
      const get = (server: RunningServer, headers: Record<string, string> = {}) => fetch(`${server.baseUrl}${path}`, { headers });

      it("200 with Cache-Control public, max-age=300 (default), a quoted ETag and Last-Modified (§8.6.1)", async () => {
        const r = await get(plain);
        expect(r.status).toBe(200);
        expect(r.headers.get("cache-control")).toBe("public, max-age=300");
        expect(r.headers.get("etag")).toMatch(/^"[0-9a-f]{32}"$/);
        expect(Number.isNaN(Date.parse(r.headers.get("last-modified") ?? ""))).toBe(false);
        expect(((await r.json()) as Json).name).toBe("Test Agent");
      });

      it("If-None-Match with the ETag (also weak, or in a list) → 304 without a body; another tag → 200", async () => {
        const etag = (await get(plain)).headers.get("etag") as string;
        for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
          const r = await get(plain, { "if-none-match": ifNoneMatch });
          expect(r.status, ifNoneMatch).toBe(304);
          expect(r.headers.get("etag")).toBe(etag);
          expect(await r.text()).toBe("");
        }
        expect((await get(plain, { "if-none-match": '"not-the-card"' })).status).toBe(200);
      });

      it("cardCache.maxAgeSeconds and lastModified; If-Modified-Since at or after it → 304, before → 200, ignored beside If-None-Match", async () => {
        const r = await get(tuned);
        expect(r.headers.get("cache-control")).toBe("public, max-age=60");
        expect(r.headers.get("last-modified")).toBe(lastModified.toUTCString());
        expect((await get(tuned, { "if-modified-since": lastModified.toUTCString() })).status).toBe(304);
        expect((await get(tuned, { "if-modified-since": new Date(lastModified.getTime() - 1000).toUTCString() })).status).toBe(200);
        expect((await get(tuned, { "if-modified-since": lastModified.toUTCString(), "if-none-match": '"other"' })).status).toBe(200);
      });

      it("cardSigning: the card served carries a JWS that verifies with the public key; a tampered copy fails", async () => {
        const r = await get(signed);
        const card = (await r.json()) as Json;
        const signatures = card.signatures as Json[];
        // One signature over §8.4.1's form, and one over the SDKs' form when it differs (issue 29 item 4).
        expect(signatures).toHaveLength(compactCardPayload(card) === canonicalCardPayload(card) ? 1 : 2);
        const verified = await verifyAgentCard(card, { keys: { "key-1": keys.publicKey } });
        expect(verified.kid).toBe("key-1");
        await expect(verifyAgentCard({ ...card, name: "Evil Agent" }, { keys: { "key-1": keys.publicKey } })).rejects.toBeInstanceOf(A2ACardSignatureError);
        // The ETag is of the signed card, and it is the same on every request (signed once).
        expect((await get(signed)).headers.get("etag")).toBe(r.headers.get("etag"));
      });

      it("cardSigning signs the extended card too", async () => {
        const m = await modules(version);
        const method = m.protocol.A2A_PROFILE.methods.extendedCard as string;
        const headers: Record<string, string> = { "content-type": "application/json", authorization: "Bearer t", ...(version === "1.0.1" ? { "a2a-version": "1.0" } : {}) };
        const answer = await rawPost(signed.rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: {} }), headers);
        const extended = (answer.json as Json).result as Json;
        expect(extended?.name, answer.text).toBe("Extended Agent");
        await expect(verifyAgentCard(extended, { keys: { "key-1": keys.publicKey } })).resolves.toMatchObject({ kid: "key-1" });
      });
    });
  }
}

describe("cardCache: false, and a cardSigning that fails", () => {
  it("no-cache and no validators", async () => {
    const server = await startServer("1.0.1", "node", { options: { cardCache: false } });
    try {
      const r = await fetch(`${server.baseUrl}/.well-known/agent-card.json`);
      expect(r.status).toBe(200);
      expect(r.headers.get("cache-control")).toBe("no-cache");
      expect(r.headers.get("etag")).toBeNull();
    } finally {
      await server.close();
    }
  });

  it("a signer that throws → 500 with a JSON-RPC error, no stack trace; the rest of the server works", async () => {
    const server = await startServer("1.0.1", "node", { options: { cardSigning: () => Promise.reject(new Error("HSM unreachable at 10.0.0.5")) } });
    try {
      const r = await fetch(`${server.baseUrl}/.well-known/agent-card.json`);
      expect(r.status).toBe(500);
      const text = await r.text();
      expect(text).toContain("not available");
      expect(text).not.toContain("HSM");
      const rpc = await rawPost(server.rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } }), { "content-type": "application/json", "a2a-version": "1.0" });
      expect(((rpc.json as Json).error as Json).code).toBe(-32001);
    } finally {
      await server.close();
    }
  });
});
