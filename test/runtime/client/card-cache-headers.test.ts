// The server-side counterpart of the client's card cache (specification-1.0.1.md §8.6.1): caching
// headers and 304 answers, exercised end to end with the client's AgentCardCache.
import { describe, expect, it } from "vitest";
import { cardCacheHeaders, cardNotModified, DEFAULT_CARD_MAX_AGE_SECONDS } from "../../../src/runtime/card/cache-headers.js";
import { AgentCardCache, fetchAgentCard } from "../../../src/runtime/client/client.js";
import { serve } from "../../support/stub-servers.js";

describe("cardCacheHeaders / cardNotModified", () => {
  it("Cache-Control with max-age (default 300 s), a strong ETag of the content, Last-Modified", async () => {
    const modified = new Date("2026-11-23T10:00:00Z");
    const headers = await cardCacheHeaders('{"name":"A"}', { lastModified: modified });
    expect(headers["cache-control"]).toBe(`public, max-age=${DEFAULT_CARD_MAX_AGE_SECONDS}`);
    expect(headers.etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(headers["last-modified"]).toBe("Mon, 23 Nov 2026 10:00:00 GMT");
    expect((await cardCacheHeaders('{"name":"B"}', { lastModified: modified })).etag).not.toBe(headers.etag);
    expect((await cardCacheHeaders('{"name":"A"}', { maxAgeSeconds: 60 }))["cache-control"]).toBe("public, max-age=60");
    await expect(cardCacheHeaders("{}", { maxAgeSeconds: -1 })).rejects.toThrow("card maxAgeSeconds: expected a non-negative integer, got -1");
  });

  it("304 for a matching If-None-Match (weak or in a list, or *), else by If-Modified-Since (RFC 9110 §13.1.2, §13.1.3)", async () => {
    const headers = await cardCacheHeaders("{}", { lastModified: new Date("2026-11-23T10:00:00Z") });
    expect(cardNotModified({ ifNoneMatch: headers.etag }, headers)).toBe(true);
    expect(cardNotModified({ ifNoneMatch: `"other", W/${headers.etag}` }, headers)).toBe(true);
    expect(cardNotModified({ ifNoneMatch: "*" }, headers)).toBe(true);
    expect(cardNotModified({ ifNoneMatch: '"other"', ifModifiedSince: headers["last-modified"] }, headers)).toBe(false); // If-None-Match wins
    expect(cardNotModified({ ifModifiedSince: "Mon, 23 Nov 2026 10:00:00 GMT" }, headers)).toBe(true);
    expect(cardNotModified({ ifModifiedSince: "Mon, 23 Nov 2026 09:59:59 GMT" }, headers)).toBe(false);
    expect(cardNotModified({ ifModifiedSince: "yesterday" }, headers)).toBe(false);
    expect(cardNotModified({}, headers)).toBe(false);
  });

  it("with the client's cache: the second read after max-age is a 304", async () => {
    const body = JSON.stringify({ name: "A" });
    const headers = await cardCacheHeaders(body, { maxAgeSeconds: 0 });
    const server = await serve((req, res) => {
      if (cardNotModified({ ifNoneMatch: req.headers["if-none-match"], ifModifiedSince: req.headers["if-modified-since"] }, headers)) {
        res.writeHead(304, { ...headers });
        res.end();
      } else {
        res.writeHead(200, { ...headers, "content-type": "application/json" });
        res.end(body);
      }
    });
    const cache = new AgentCardCache();
    await fetchAgentCard(server.url, "/.well-known/agent-card.json", { cache });
    await expect(fetchAgentCard(server.url, "/.well-known/agent-card.json", { cache })).resolves.toEqual({ name: "A" });
    expect(server.received[1]?.headers["if-none-match"]).toBe(headers.etag);
  });
});
