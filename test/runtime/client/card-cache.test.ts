// Agent card caching on the client (specification-1.0.1.md §8.6.2, issue 15.6): a card is reused while
// `Cache-Control: max-age` says it is fresh, then revalidated with If-None-Match / If-Modified-Since; a
// 304 keeps it, a 200 replaces it. The clock is injected: no test waits.
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { AgentCardCache, fetchAgentCard } from "../../../src/runtime/client/client.js";
import * as Generated from "../../../generated/a2a-1.0.1/client.js";
import { json, serve } from "../../support/stub-servers.js";

const { A2AClient } = Generated;
const PATH = "/.well-known/agent-card.json";
const LAST_MODIFIED = "Mon, 23 Nov 2026 10:00:00 GMT";

/** A card endpoint as §8.6.1 describes it: ETag, Last-Modified, Cache-Control; 304 to a matching conditional request. */
function cardEndpoint(state: { card: Record<string, unknown>; cacheControl: string; etag?: boolean; lastModified?: boolean }) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const etag = `"${createHash("sha256").update(JSON.stringify(state.card)).digest("base64url")}"`;
    const headers: Record<string, string> = { "cache-control": state.cacheControl };
    if (state.etag !== false) headers["etag"] = etag;
    if (state.lastModified !== false) headers["last-modified"] = LAST_MODIFIED;
    const inm = req.headers["if-none-match"];
    const ims = req.headers["if-modified-since"];
    if ((inm !== undefined && inm === headers["etag"]) || (inm === undefined && ims !== undefined && ims === headers["last-modified"])) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    json(res, 200, state.card, headers);
  };
}

function v1Card(name: string, url = "/a2a"): Record<string, unknown> {
  return {
    name,
    description: "An agent",
    supportedInterfaces: [{ url, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    version: "1.0.0",
    capabilities: {},
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [],
  };
}

describe("fetchAgentCard with a cache", () => {
  it("reuses a card while max-age says it is fresh, without a request", async () => {
    const state = { card: { name: "A" }, cacheControl: "public, max-age=3600" };
    const server = await serve(cardEndpoint(state));
    const cache = new AgentCardCache();
    await expect(fetchAgentCard(server.url, PATH, { cache })).resolves.toEqual({ name: "A" });
    const second = await fetchAgentCard(server.url, PATH, { cache });
    expect(second).toEqual({ name: "A" });
    expect(server.received).toHaveLength(1);
    second["name"] = "mutated"; // callers get their own copy
    await expect(fetchAgentCard(server.url, PATH, { cache })).resolves.toEqual({ name: "A" });
  });

  it("revalidates a stale card with If-None-Match and If-Modified-Since; a 304 keeps it, a 200 replaces it", async () => {
    let now = 1_000_000;
    const cache = new AgentCardCache({ now: () => now });
    const state = { card: { name: "A" }, cacheControl: "max-age=60" };
    const server = await serve(cardEndpoint(state));
    await fetchAgentCard(server.url, PATH, { cache });
    expect(server.received).toHaveLength(1);
    now += 59_000;
    await fetchAgentCard(server.url, PATH, { cache });
    expect(server.received).toHaveLength(1); // still fresh
    now += 2_000;
    await expect(fetchAgentCard(server.url, PATH, { cache })).resolves.toEqual({ name: "A" });
    expect(server.received).toHaveLength(2);
    expect(server.received[1]?.headers["if-none-match"]).toMatch(/^".+"$/);
    expect(server.received[1]?.headers["if-modified-since"]).toBe(LAST_MODIFIED);
    // The 304 refreshed the freshness: no request for another minute.
    now += 30_000;
    await fetchAgentCard(server.url, PATH, { cache });
    expect(server.received).toHaveLength(2);
    // The card changes: the next revalidation gets a 200 and the new card.
    state.card = { name: "B" };
    now += 61_000;
    await expect(fetchAgentCard(server.url, PATH, { cache })).resolves.toEqual({ name: "B" });
    expect(server.received).toHaveLength(3);
  });

  it("revalidates every time for no-cache and max-age=0; Age counts against max-age", async () => {
    const state = { card: { name: "A" }, cacheControl: "no-cache" };
    const server = await serve(cardEndpoint(state));
    const cache = new AgentCardCache();
    for (let i = 0; i < 3; i++) await fetchAgentCard(server.url, PATH, { cache });
    expect(server.received.map((r) => r.headers["if-none-match"] !== undefined)).toEqual([false, true, true]);
    const aged = await serve((_req, res) => json(res, 200, { name: "aged" }, { "cache-control": "max-age=100", age: "100" }));
    await fetchAgentCard(aged.url, PATH, { cache });
    await fetchAgentCard(aged.url, PATH, { cache });
    expect(aged.received).toHaveLength(2);
  });

  it("keeps nothing for no-store, and sends no conditional request without a cache", async () => {
    const state = { card: { name: "A" }, cacheControl: "no-store" };
    const server = await serve(cardEndpoint(state));
    const cache = new AgentCardCache();
    await fetchAgentCard(server.url, PATH, { cache });
    await fetchAgentCard(server.url, PATH, { cache });
    const open = await serve(cardEndpoint({ card: { name: "B" }, cacheControl: "max-age=3600" }));
    await fetchAgentCard(open.url, PATH);
    await fetchAgentCard(open.url, PATH, { cache: false });
    expect([...server.received, ...open.received].map((r) => r.headers["if-none-match"])).toEqual([undefined, undefined, undefined, undefined]);
  });

  it("revalidates with If-Modified-Since alone when the agent sends no ETag", async () => {
    const server = await serve(cardEndpoint({ card: { name: "A" }, cacheControl: "max-age=0", etag: false }));
    const cache = new AgentCardCache();
    await fetchAgentCard(server.url, PATH, { cache });
    await expect(fetchAgentCard(server.url, PATH, { cache })).resolves.toEqual({ name: "A" });
    expect(server.received[1]?.headers).toMatchObject({ "if-modified-since": LAST_MODIFIED });
    expect(server.received[1]?.headers["if-none-match"]).toBeUndefined();
  });
});

describe("A2AClient keeps its card and revalidates it (getCard)", () => {
  it("getCard() answers from the cache while fresh and revalidates when stale", async () => {
    let now = 0;
    const state = { card: v1Card("A"), cacheControl: "max-age=300" };
    const server = await serve(cardEndpoint(state));
    const client = await A2AClient.fromAgentUrl(server.url, { cardCache: AgentCardCacheOf(Generated, () => now) });
    expect(client.card?.name).toBe("A");
    await client.getCard();
    expect(server.received).toHaveLength(1);
    now += 301_000;
    state.card = v1Card("B");
    expect((await client.getCard())?.name).toBe("B");
    expect(client.card?.name).toBe("B");
    expect(server.received[1]?.headers["if-none-match"]).toBeDefined();
    now += 301_000;
    await client.getCard();
    expect(server.received).toHaveLength(3);
    expect(client.card?.name).toBe("B");
  });

  it("runs verifyCard on every card it reads, and refuses the card when it throws", async () => {
    const server = await serve(cardEndpoint({ card: v1Card("A"), cacheControl: "no-cache" }));
    const seen: string[] = [];
    const client = await A2AClient.fromAgentUrl(server.url, { verifyCard: (card) => void seen.push(card.name) });
    await client.getCard();
    expect(seen).toEqual(["A", "A"]);
    await expect(A2AClient.fromAgentUrl(server.url, { verifyCard: () => Promise.reject(new Error("not signed")) })).rejects.toThrow("not signed");
  });
});

/** The generated client's own AgentCardCache class (its runtime is a copy), with a clock. */
function AgentCardCacheOf(generated: typeof Generated, now: () => number): Generated.AgentCardCache {
  return new generated.AgentCardCache({ now });
}
