/**
 * The agent card fetch, with the HTTP caching of specification-1.0.1.md §8.6.2: a card is kept as long as
 * `Cache-Control: max-age` (less `Age`) or `Expires` says, then revalidated with `If-None-Match` /
 * `If-Modified-Since` (a 304 keeps it). `no-store` keeps nothing; `no-cache` revalidates every time.
 */

import { A2ATransportError } from "./errors.js";
import { DEFAULT_MAX_CARD_BYTES, DEFAULT_TIMEOUT_MS, readText, scopeFor, send, startAttempt, statusText, type CallOptions, type ClientOptions } from "./http.js";
import type { HttpAnswer } from "./fetch.js";
import { parseJsonSafe } from "../wire/jsonrpc.js";

/** A cached card: its text (parsed anew for every caller, so no caller sees another's mutations) and validators. */
interface CachedCard {
  text: string;
  etag: string | undefined;
  lastModified: string | undefined;
  /** Until when (ms since the epoch) the card is used without asking the agent. */
  freshUntil: number;
}

/**
 * Agent cards by URL, with their validators and freshness. One per client by default; share one between
 * clients of the same agent (and the same credentials) to share the card.
 */
export class AgentCardCache {
  private readonly entries = new Map<string, CachedCard>();
  private readonly maxEntries: number;
  /** The clock (ms since the epoch); a test can move it. */
  readonly now: () => number;

  constructor(options: { maxEntries?: number; now?: () => number } = {}) {
    this.maxEntries = options.maxEntries ?? 64;
    this.now = options.now ?? (() => Date.now());
  }

  /** @internal */
  get(url: string): CachedCard | undefined {
    const entry = this.entries.get(url);
    if (entry) {
      // Most recently used last.
      this.entries.delete(url);
      this.entries.set(url, entry);
    }
    return entry;
  }

  /** @internal */
  set(url: string, entry: CachedCard): void {
    this.entries.delete(url);
    this.entries.set(url, entry);
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  /** Forgets one card, or all of them. */
  clear(url?: string): void {
    if (url === undefined) this.entries.clear();
    else this.entries.delete(url);
  }
}

/** Options of {@link fetchAgentCard}. */
export interface CardFetchOptions extends ClientOptions, Omit<CallOptions, "headers"> {
  /** Where cards are kept between fetches; false fetches every time without conditional headers. */
  cache?: AgentCardCache | false;
}

/**
 * Fetches an agent card: GET `new URL(wellKnownPath, baseUrl)` (an absolute path replaces the base's
 * path) with `accept: application/json` and the same auth and headers as calls (to the base URL's origin
 * and `trustedOrigins` only). A fresh cached card is returned without a request; a stale one is
 * revalidated. Throws an {@link A2ATransportError} on a network failure, a non-2xx status, a body that is
 * not JSON or not an object; an A2AResponseTooLargeError past `maxCardBytes`; an A2ARedirectError for a
 * cross-origin redirect; honors the signal and the timeout (which bounds the whole fetch). `Card`: the type
 * the caller reads it as (a generated client: the version's AgentCard); the JSON object is not checked
 * against it here (the generated client does, with its `validation` option).
 */
export async function fetchAgentCard<Card extends object = Record<string, unknown>>(baseUrl: string, wellKnownPath: string, options: CardFetchOptions = {}): Promise<Card> {
  const url = new URL(wellKnownPath, baseUrl).href;
  const what = `agent card ${url}`;
  const cache = options.cache === false ? undefined : options.cache;
  const cached = cache?.get(url);
  if (cache && cached && cache.now() < cached.freshUntil) return parseCard(cached.text, what, 200) as Card;
  const headers: Record<string, string> = { accept: "application/json" };
  if (cached?.etag !== undefined) headers["if-none-match"] = cached.etag;
  if (cached?.lastModified !== undefined) headers["if-modified-since"] = cached.lastModified;
  const attempt = startAttempt(what, options.signal, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  try {
    const response = await send({ url, method: "GET", headers }, scopeFor(baseUrl, options), options, {}, what, attempt);
    const status = response.status;
    if (status === 304 && cache && cached) {
      await response.body?.cancel().catch(() => {});
      cache.set(url, { ...cached, ...validators(response, cached), freshUntil: freshUntil(response, cache.now()) });
      return parseCard(cached.text, what, status) as Card;
    }
    const text = await readText(response, what, attempt, options.maxCardBytes ?? DEFAULT_MAX_CARD_BYTES);
    if (!response.ok) throw new A2ATransportError(`${what}: HTTP ${status}${statusText(response)}`, { status, body: text });
    const card = parseCard(text, what, status);
    if (cache) {
      const control = cacheControl(response);
      const entry: CachedCard = { text, ...validators(response, undefined), freshUntil: freshUntil(response, cache.now()) };
      if (control.has("no-store")) cache.clear(url);
      else if (entry.etag !== undefined || entry.lastModified !== undefined || entry.freshUntil > cache.now()) cache.set(url, entry);
      else cache.clear(url);
    }
    return card as Card;
  } finally {
    attempt.dispose();
  }
}

function parseCard(text: string, what: string, status: number): Record<string, unknown> {
  const parsed = parseJsonSafe(text);
  if (!parsed.ok) throw new A2ATransportError(`${what}: the response is not JSON (${parsed.message})`, { status, body: text });
  const card = parsed.value;
  if (typeof card !== "object" || card === null || Array.isArray(card)) {
    throw new A2ATransportError(`${what}: the response is not a JSON object`, { status, body: text });
  }
  refuseDuplicateMembers(text, what, status);
  return card as Record<string, unknown>;
}

/**
 * Throws an A2ATransportError when an object of a card's JSON text (parsed already) names a member twice:
 * the public card (fetchAgentCard) and the extended card a transport receives (ResponseChecks.cardMethod).
 * JSON.parse keeps the last of two same-named members, another reader the first: such a card would be
 * verified (its signature, §8.4.3) as one card and read as another. I-JSON (RFC 7493 §2.3), which RFC 8785
 * canonicalization requires, has no duplicate names.
 */
export function refuseDuplicateMembers(text: string, what: string, status: number): void {
  const duplicate = duplicateMember(text);
  if (duplicate !== undefined) {
    throw new A2ATransportError(`${what}: the member "${duplicate.name}" appears twice in the object at ${duplicate.pointer || "/"} (a card must be I-JSON, RFC 7493 §2.3)`, { status, body: text });
  }
}

/**
 * The first member name an object of a JSON text has twice (compared after unescaping, so `"n\u0061me"`
 * is `"name"`), with the pointer of that object; undefined when every object's names are distinct. The
 * text is valid JSON (parsed already).
 */
export function duplicateMember(text: string): { pointer: string; name: string } | undefined {
  interface Frame {
    names: Set<string> | undefined; // an object's names; undefined for an array
    pointer: string;
    key: string; // the object's current member name
    index: number; // the array's current index
  }
  const stack: Frame[] = [];
  let expectName = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      const top = stack[stack.length - 1];
      if (expectName && top?.names !== undefined) {
        const name = JSON.parse(text.slice(i, end + 1)) as string;
        if (top.names.has(name)) return { pointer: top.pointer, name };
        top.names.add(name);
        top.key = name;
        expectName = false;
      }
      i = end;
    } else if (c === "{" || c === "[") {
      const parent = stack[stack.length - 1];
      const token = parent === undefined ? undefined : parent.names !== undefined ? parent.key.replace(/~/g, "~0").replace(/\//g, "~1") : String(parent.index);
      stack.push({ names: c === "{" ? new Set() : undefined, pointer: token === undefined ? "" : `${parent?.pointer}/${token}`, key: "", index: 0 });
      expectName = c === "{";
    } else if (c === "}" || c === "]") {
      stack.pop();
    } else if (c === ",") {
      const top = stack[stack.length - 1];
      if (top?.names !== undefined) expectName = true;
      else if (top !== undefined) top.index++;
    }
  }
  return undefined;
}

/** The response's validators; a 304 that repeats none keeps the cached ones. */
function validators(response: HttpAnswer, cached: CachedCard | undefined): Pick<CachedCard, "etag" | "lastModified"> {
  return {
    etag: response.headers.get("etag") ?? cached?.etag,
    lastModified: response.headers.get("last-modified") ?? cached?.lastModified,
  };
}

/** The Cache-Control directives, lower-cased, with their values. */
function cacheControl(response: HttpAnswer): Map<string, string> {
  const directives = new Map<string, string>();
  for (const part of (response.headers.get("cache-control") ?? "").split(",")) {
    const [name, value] = part.split("=", 2);
    const key = name?.trim().toLowerCase();
    if (key) directives.set(key, (value ?? "").trim().replace(/^"|"$/g, ""));
  }
  return directives;
}

/** Until when the response may be used without revalidation: max-age less Age, else Expires less Date; never past now for no-cache. */
function freshUntil(response: HttpAnswer, now: number): number {
  const control = cacheControl(response);
  if (control.has("no-cache") || control.has("no-store")) return now;
  const maxAge = control.get("max-age");
  if (maxAge !== undefined && /^\d+$/.test(maxAge)) {
    const age = Number(response.headers.get("age") ?? "0");
    const seconds = Math.max(0, Number(maxAge) - (Number.isFinite(age) ? age : 0));
    return now + seconds * 1000;
  }
  const expires = Date.parse(response.headers.get("expires") ?? "");
  if (Number.isFinite(expires)) {
    const date = Date.parse(response.headers.get("date") ?? "");
    return now + Math.max(0, expires - (Number.isFinite(date) ? date : now));
  }
  return now;
}
