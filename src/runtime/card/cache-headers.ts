/**
 * The server side of agent card caching (specification-1.0.1.md §8.6.1): the `Cache-Control`, `ETag`
 * (a hash of the card as served) and `Last-Modified` of the card endpoint, and whether a conditional
 * request (`If-None-Match`, else `If-Modified-Since`, RFC 9110 §13.1) can be answered 304. The card is
 * static: compute the validators once at startup. Web platform only (crypto.subtle), so every adapter can
 * use it.
 */

/** The caching headers of the card endpoint. */
export interface CardCacheHeaders {
  "cache-control": string;
  etag: string;
  "last-modified": string;
}

/** The default `max-age` of the card: five minutes. */
export const DEFAULT_CARD_MAX_AGE_SECONDS = 300;

/**
 * The headers for a card served as `body` (the exact bytes sent): `Cache-Control: public, max-age=N`,
 * a strong ETag of the SHA-256 of the body, and `Last-Modified` (default: now, to the second).
 */
export async function cardCacheHeaders(body: string, options: { maxAgeSeconds?: number; lastModified?: Date } = {}): Promise<CardCacheHeaders> {
  const maxAge = options.maxAgeSeconds ?? DEFAULT_CARD_MAX_AGE_SECONDS;
  if (!Number.isInteger(maxAge) || maxAge < 0) throw new RangeError(`card maxAgeSeconds: expected a non-negative integer, got ${String(maxAge)}`);
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(body)));
  let hex = "";
  for (const byte of digest.subarray(0, 16)) hex += byte.toString(16).padStart(2, "0");
  return {
    "cache-control": `public, max-age=${maxAge}`,
    etag: `"${hex}"`,
    "last-modified": (options.lastModified ?? new Date()).toUTCString(),
  };
}

/**
 * Whether a GET of the card can be answered 304 Not Modified: `If-None-Match` lists its ETag (or `*`;
 * weak comparison), or, only when there is no If-None-Match, `If-Modified-Since` is not before
 * `Last-Modified`.
 */
export function cardNotModified(request: { ifNoneMatch?: string | null | undefined; ifModifiedSince?: string | null | undefined }, headers: CardCacheHeaders): boolean {
  const ifNoneMatch = request.ifNoneMatch;
  if (ifNoneMatch !== undefined && ifNoneMatch !== null) {
    const tags = ifNoneMatch.split(",").map((tag) => tag.trim().replace(/^W\//, ""));
    return tags.includes("*") || tags.includes(headers.etag);
  }
  const since = Date.parse(request.ifModifiedSince ?? "");
  const modified = Date.parse(headers["last-modified"]);
  return Number.isFinite(since) && Number.isFinite(modified) && modified <= since;
}
