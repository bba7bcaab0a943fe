/// <reference types="node" />
/**
 * Push-notification runtime of the code a2a-codegen generates: delivers a task's JSON to the webhook
 * URL a client supplied, without letting that URL reach inside the server's network (SSRF).
 *
 * - `checkUrl` validates a webhook URL when the push config is set: scheme, no credentials, and every
 *   address the host resolves to must be public unless allow-listed.
 * - `send` POSTs with retries and backoff, follows no redirects, and resolves the host again through a
 *   guarded DNS lookup handed to `http(s).request`, so the socket only ever connects to an address that
 *   was just checked (a DNS rebinding between check and connect is refused).
 *
 * Copied verbatim into every generated folder; it depends only on Node's built-in modules.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import { request as httpRequest, type ClientRequest, type IncomingMessage, type OutgoingHttpHeaders, type RequestOptions } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIPv4, isIPv6 } from "node:net";

/** Where to deliver a push notification: the client's push-notification config. */
export interface PushTarget {
  url: string;
  /** Sent as the `X-A2A-Notification-Token` header when present (the client's token, A2A spec). */
  token?: string;
  /** From the push config's `authentication`: when schemes include "Bearer" (case-insensitive) and credentials are given, send `Authorization: Bearer <credentials>`. */
  authentication?: { schemes: string[]; credentials?: string };
  /** The body's media type; default application/json (1.0 sends application/a2a+json). */
  contentType?: string;
  /** The W3C trace context of the turn that queued the notification, sent as the `traceparent` header (`--telemetry`). */
  traceparent?: string;
}

/** One event of a delivery, for logging. */
export interface PushEvent {
  type: "attempt-failed" | "delivered" | "gave-up" | "refused";
  url: string;
  /** The attempt it concerns (1-based); 0 when nothing was attempted. */
  attempt: number;
  status?: number;
  error?: string;
}

/** How a `PushSender` checks and delivers. */
export interface PushSenderOptions {
  /** Hosts or CIDR blocks allowed even though private/loopback/etc., e.g. ["127.0.0.1", "localhost", "10.0.0.0/8", "::1", "hooks.internal"]. Exact hostname match (case-insensitive) or IP within a CIDR / equal to an IP. */
  allow?: string[];
  /** Attempts after the first failure (network error, timeout, HTTP 5xx or 429); default 3. 4xx other than 429 is final. */
  retries?: number;
  /** First backoff delay in ms, doubled each retry with ±20% jitter; default 500. */
  backoffMs?: number;
  /** Per-attempt timeout in ms; default 10_000. */
  timeoutMs?: number;
  /** DNS resolution, injectable for tests; default node:dns lookup with { all: true }. */
  lookup?: (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;
  /** Only http: and https: are ever allowed; set false to refuse plain http: (default true: allowed). */
  allowHttp?: boolean;
  /** Called for each failed attempt / final outcome, for logging. */
  onEvent?: (event: PushEvent) => void;
}

/** The outcome of `PushSender.send`; delivery failures are reported here, never thrown. */
export type PushResult = { ok: true; status: number; attempts: number } | { ok: false; attempts: number; status?: number; error: string };

/** A webhook URL that must not be called: bad scheme, credentials in it, or a non-public address. */
export class UnsafeWebhookError extends Error {
  /** Short reason, e.g. "loopback", "private", "scheme ftp:", "credentials in URL". */
  readonly reason: string;
  /** The URL as given, with any password in it masked. */
  readonly url: string;

  /**
   * What may be told to the remote caller that sent the URL: why in general terms, never an address the
   * host resolved to nor this server's configuration (those are in `message`, for the server's logger).
   */
  readonly publicMessage: string;

  constructor(url: string, reason: string, message: string, publicMessage?: string) {
    super(message);
    this.name = "UnsafeWebhookError";
    this.url = url;
    this.reason = reason;
    this.publicMessage = publicMessage ?? message.replace(`; ${ALLOW_HINT}`, "");
  }
}

// ---------------------------------------------------------------------------------------------------
// Addresses

/** An IP address as a number: 32 bits for IPv4, 128 bits for IPv6. */
interface Ip {
  family: 4 | 6;
  value: bigint;
}

/** A CIDR block: the addresses whose first `bits` bits equal those of `base`. */
interface Cidr extends Ip {
  bits: number;
}

/** Host names that reach cloud metadata services; refused by name before any lookup. */
const METADATA_HOSTNAMES = new Set([
  "metadata",
  "metadata.google.internal",
  "metadata.goog",
  "instance-data",
  "instance-data.ec2.internal",
]);

const V4_BLOCKED = blockTable([
  ["255.255.255.255/32", "broadcast"],
  ["169.254.169.254/32", "link-local (cloud metadata)"],
  ["100.100.100.200/32", "CGNAT (cloud metadata)"],
  ["0.0.0.0/32", "unspecified"],
  ["0.0.0.0/8", "this network"],
  ["10.0.0.0/8", "private"],
  ["100.64.0.0/10", "CGNAT"],
  ["127.0.0.0/8", "loopback"],
  ["169.254.0.0/16", "link-local"],
  ["172.16.0.0/12", "private"],
  ["192.0.0.0/24", "IETF protocol assignments"],
  ["192.0.2.0/24", "documentation"],
  ["192.88.99.0/24", "reserved (6to4 relay)"],
  ["192.168.0.0/16", "private"],
  ["198.18.0.0/15", "benchmarking"],
  ["198.51.100.0/24", "documentation"],
  ["203.0.113.0/24", "documentation"],
  ["224.0.0.0/4", "multicast"],
  ["240.0.0.0/4", "reserved"],
]);

/** IPv6 blocks refused outright (those embedding an IPv4 address are judged by that address instead). */
const V6_BLOCKED = blockTable([
  ["64:ff9b:1::/48", "private (local-use NAT64)"],
  ["100::/64", "discard-only"],
  ["2001:2::/48", "benchmarking"],
  ["2001:db8::/32", "documentation"],
  ["3fff::/20", "documentation"],
  ["fd00:ec2::254/128", "private (cloud metadata)"],
  ["fc00::/7", "private (unique local)"],
  ["fe80::/10", "link-local"],
  ["fec0::/10", "site-local (deprecated)"],
  ["ff00::/8", "multicast"],
]);

function blockTable(rows: ReadonlyArray<readonly [cidr: string, reason: string]>): ReadonlyArray<readonly [Cidr, string]> {
  return rows.map(([cidr, reason]) => [mustParseCidr(cidr), reason] as const);
}

const V4_MAPPED = mustParseCidr("::ffff:0:0/96");
const V4_COMPATIBLE = mustParseCidr("::/96");
const V4_TRANSLATED = mustParseCidr("::ffff:0:0:0/96");
const NAT64 = mustParseCidr("64:ff9b::/96");
const TEREDO = mustParseCidr("2001::/32");
const SIX_TO_FOUR = mustParseCidr("2002::/16");
const GLOBAL_UNICAST = mustParseCidr("2000::/3");
const LOW_32_BITS = 0xffff_ffffn;

/**
 * Why an IP address is not a safe webhook target, or undefined when it is public.
 * Covers IPv4: 0.0.0.0/8, 10/8, 100.64/10 (CGNAT), 127/8, 169.254/16 (link-local incl. cloud metadata
 * 169.254.169.254), 172.16/12, 192.0.0/24, 192.0.2/24, 192.168/16, 198.18/15, 198.51.100/24,
 * 203.0.113/24, 224/4 multicast, 240/4 reserved, 255.255.255.255; IPv6: ::, ::1, fc00::/7 (unique
 * local), fe80::/10 (link-local), ff00::/8 multicast, 64:ff9b::/96 NAT64 of a blocked v4, IPv4-mapped
 * ::ffff:a.b.c.d and IPv4-compatible forms (judge the embedded v4), 2001:db8::/32 documentation, and
 * anything outside 2000::/3; also the metadata host names (metadata.google.internal, ...).
 * Returns a short reason like "loopback", "private", "link-local (cloud metadata)"; text that is not an
 * IP address (nor a metadata name) gets "not an IP address".
 */
export function blockedAddressReason(ip: string): string | undefined {
  const parsed = parseIp(ip);
  if (parsed === undefined) {
    return METADATA_HOSTNAMES.has(normalizeHostname(ip)) ? "cloud metadata" : "not an IP address";
  }
  return parsed.family === 4 ? blockedV4(parsed.value) : blockedV6(parsed.value);
}

function blockedV4(value: bigint): string | undefined {
  for (const [cidr, reason] of V4_BLOCKED) if (contains(cidr, { family: 4, value })) return reason;
  return undefined;
}

function blockedV6(value: bigint): string | undefined {
  const ip: Ip = { family: 6, value };
  if (value === 0n) return "unspecified";
  if (value === 1n) return "loopback";
  // Forms that carry an IPv4 address: the IPv4 address decides.
  if (contains(V4_MAPPED, ip) || contains(V4_COMPATIBLE, ip) || contains(V4_TRANSLATED, ip) || contains(NAT64, ip)) {
    return blockedV4(value & LOW_32_BITS);
  }
  if (contains(SIX_TO_FOUR, ip)) return blockedV4((value >> 80n) & LOW_32_BITS);
  if (contains(TEREDO, ip)) return blockedV4(~value & LOW_32_BITS); // the client address, bit-inverted
  for (const [cidr, reason] of V6_BLOCKED) if (contains(cidr, ip)) return reason;
  if (!contains(GLOBAL_UNICAST, ip)) return "reserved";
  return undefined;
}

/** Parses an IPv4 or IPv6 address (brackets and an IPv6 zone like `%eth0` are tolerated). */
function parseIp(text: string): Ip | undefined {
  let s = text.trim();
  if (s.startsWith("[") && s.endsWith("]")) s = s.slice(1, -1);
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  if (isIPv4(s)) return { family: 4, value: parseV4(s) };
  if (isIPv6(s)) return { family: 6, value: parseV6(s) };
  return undefined;
}

/** A dotted quad already validated by `isIPv4`. */
function parseV4(s: string): bigint {
  return s.split(".").reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

/** An IPv6 address already validated by `isIPv6`: expands `::` and a trailing dotted quad. */
function parseV6(s: string): bigint {
  const groups = (part: string): number[] =>
    part === ""
      ? []
      : part.split(":").flatMap((group) => {
          if (!group.includes(".")) return [parseInt(group, 16)];
          const v4 = Number(parseV4(group));
          return [Math.floor(v4 / 0x10000), v4 % 0x10000];
        });
  const gap = s.indexOf("::");
  let all: number[];
  if (gap < 0) {
    all = groups(s);
  } else {
    const head = groups(s.slice(0, gap));
    const tail = groups(s.slice(gap + 2));
    all = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  }
  return all.reduce((acc, group) => (acc << 16n) | BigInt(group), 0n);
}

function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf("/");
  const ip = parseIp(slash < 0 ? text : text.slice(0, slash));
  if (ip === undefined) return undefined;
  const width = ip.family === 4 ? 32 : 128;
  if (slash < 0) return { ...ip, bits: width };
  const bitsText = text.slice(slash + 1).trim();
  if (!/^\d{1,3}$/.test(bitsText)) return undefined;
  const bits = Number(bitsText);
  return bits <= width ? { ...ip, bits } : undefined;
}

function mustParseCidr(text: string): Cidr {
  const cidr = parseCidr(text);
  if (cidr === undefined) throw new Error(`invalid CIDR ${text}`);
  return cidr;
}

function contains(cidr: Cidr, ip: Ip): boolean {
  if (cidr.family !== ip.family) return false;
  const shift = BigInt((cidr.family === 4 ? 32 : 128) - cidr.bits);
  return cidr.value >> shift === ip.value >> shift;
}

/** Lower case, brackets and one trailing dot removed: the form host names are compared in. */
function normalizeHostname(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1);
  return h.endsWith(".") ? h.slice(0, -1) : h;
}

// ---------------------------------------------------------------------------------------------------
// The sender

const DEFAULT_RETRIES = 3;
const DEFAULT_BACKOFF_MS = 500;
const DEFAULT_TIMEOUT_MS = 10_000;
/** A response body is drained up to this many bytes, then the connection is dropped. */
const MAX_RESPONSE_BYTES = 64 * 1024;
const ALLOW_HINT = "allow-list it with pushNotifications.allow";

/** A webhook URL that passed the checks that need no DNS. */
interface ParsedWebhook {
  url: URL;
  /** The URL for messages: as given, password masked. */
  display: string;
  /** The host as `http.request` takes it (no brackets). */
  hostname: string;
  /** Set when the host is an IP literal (already checked). */
  literal?: string;
  /** The host name is allow-listed: every address it resolves to is accepted. */
  hostAllowed: boolean;
}

type AttemptOutcome =
  | { kind: "response"; status: number }
  | { kind: "refused"; error: string }
  | { kind: "failed"; error: string; retryable: boolean };

type Settings = Required<Omit<PushSenderOptions, "allow" | "onEvent">>;

/** Delivers push notifications to client-supplied webhooks, refusing URLs that point inside. */
export class PushSender {
  private readonly allowedHosts = new Set<string>();
  private readonly allowedNets: Cidr[] = [];
  private readonly settings: Settings;
  private readonly onEvent: PushSenderOptions["onEvent"];

  /** Throws a TypeError for an allow-list entry that looks like a CIDR block but is not a valid one. */
  constructor(options: PushSenderOptions = {}) {
    for (const entry of options.allow ?? []) {
      const cidr = parseCidr(entry.trim());
      if (cidr !== undefined) this.allowedNets.push(cidr);
      else if (entry.includes("/")) throw new TypeError(`pushNotifications.allow: "${entry}" is not a valid IP address or CIDR block`);
      else if (normalizeHostname(entry) !== "") this.allowedHosts.add(normalizeHostname(entry));
    }
    this.settings = {
      retries: nonNegative(options.retries, DEFAULT_RETRIES, true),
      backoffMs: nonNegative(options.backoffMs, DEFAULT_BACKOFF_MS, false),
      timeoutMs: nonNegative(options.timeoutMs, DEFAULT_TIMEOUT_MS, false),
      lookup: options.lookup ?? defaultLookup,
      allowHttp: options.allowHttp ?? true,
    };
    this.onEvent = options.onEvent;
  }

  /** Validates a webhook URL at config time: parses it (only http/https, no credentials in URL allowed -> refuse), resolves the host (IP literals too, incl. bracketed IPv6, decimal/octal/hex IPv4 forms like http://2130706433/ or http://0x7f.1/ which WHATWG URL normalizes — rely on `new URL` normalization), refuses when ANY resolved address is blocked and the host/IP is not allow-listed. Throws UnsafeWebhookError with a clear message naming the URL and reason ("webhook URL http://127.0.0.1:9/x resolves to 127.0.0.1 (loopback), which is not allowed; allow-list it with pushNotifications.allow"). A host that does not resolve is refused too. Makes no connection. */
  async checkUrl(url: string): Promise<void> {
    const webhook = this.parse(url);
    if (webhook.literal !== undefined || webhook.hostAllowed) return;
    let addresses: Array<{ address: string }>;
    try {
      addresses = await this.settings.lookup(webhook.hostname);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException | undefined)?.code ?? errorMessage(error);
      throw new UnsafeWebhookError(
        webhook.display,
        "unresolvable host",
        `webhook URL ${webhook.display}: host ${webhook.hostname} could not be resolved (${code})`,
        `webhook URL ${webhook.display} is not allowed: its host could not be resolved`,
      );
    }
    this.checkAddresses(webhook, addresses);
  }

  /** POSTs `body` as JSON (content-type application/json) with the token / auth headers, following NO redirects (a 3xx is a failure, not followed — redirects could point inside). The connection must go to an address that was checked: do the DNS lookup through a guarded `lookup` passed to http(s).request (so a DNS rebinding between check and connect cannot slip through), refusing blocked addresses unless allow-listed. Retries with backoff as configured; never throws for delivery failures (returns PushResult); a refused target returns { ok: false, error } without any connection. An aborted `signal` stops at once with error "aborted". */
  async send(target: PushTarget, body: unknown, signal?: AbortSignal): Promise<PushResult> {
    let webhook: ParsedWebhook;
    try {
      webhook = this.parse(target.url);
    } catch (error) {
      const message = errorMessage(error);
      this.emit({ type: "refused", url: redact(target.url), attempt: 0, error: message });
      return { ok: false, attempts: 0, error: message };
    }
    let payload: Buffer;
    try {
      payload = Buffer.from(JSON.stringify(body) ?? "null", "utf8");
    } catch (error) {
      return this.giveUp(webhook, 0, `the body is not JSON-serializable: ${errorMessage(error)}`);
    }
    const headers: OutgoingHttpHeaders = { "content-type": target.contentType ?? "application/json", "content-length": payload.length };
    if (target.token !== undefined) headers["x-a2a-notification-token"] = target.token;
    if (target.traceparent !== undefined) headers["traceparent"] = target.traceparent;
    const auth = target.authentication;
    if (auth?.credentials !== undefined && auth.schemes.some((s) => s.toLowerCase() === "bearer")) {
      headers["authorization"] = `Bearer ${auth.credentials}`;
    }

    const maxAttempts = 1 + this.settings.retries;
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) return this.giveUp(webhook, attempt - 1, "aborted");
      const outcome = await this.attempt(webhook, headers, payload, signal);
      if (outcome.kind === "refused") {
        this.emit({ type: "refused", url: webhook.display, attempt, error: outcome.error });
        return { ok: false, attempts: attempt, error: outcome.error };
      }
      if (outcome.kind === "response" && outcome.status >= 200 && outcome.status < 300) {
        this.emit({ type: "delivered", url: webhook.display, attempt, status: outcome.status });
        return { ok: true, status: outcome.status, attempts: attempt };
      }
      const status = outcome.kind === "response" ? outcome.status : undefined;
      const error = outcome.kind === "response" ? describeStatus(outcome.status) : outcome.error;
      const retryable = outcome.kind === "response" ? outcome.status >= 500 || outcome.status === 429 : outcome.retryable;
      this.emit({ type: "attempt-failed", url: webhook.display, attempt, error, ...(status === undefined ? {} : { status }) });
      if (!retryable || attempt >= maxAttempts) return this.giveUp(webhook, attempt, error, status);
      const delay = this.settings.backoffMs * 2 ** (attempt - 1) * (0.8 + 0.4 * Math.random());
      if (!(await sleep(delay, signal))) return this.giveUp(webhook, attempt, "aborted", status);
    }
  }

  /** The checks that need no DNS: URL syntax, scheme, credentials, metadata names, IP literals. */
  private parse(text: string): ParsedWebhook {
    const display = redact(text);
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new UnsafeWebhookError(display, "invalid URL", `webhook URL ${display} is not a valid URL`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new UnsafeWebhookError(display, `scheme ${url.protocol}`, `webhook URL ${display} uses ${url.protocol}, which is not allowed; only http: and https: are`);
    }
    if (url.protocol === "http:" && !this.settings.allowHttp) {
      throw new UnsafeWebhookError(display, "plain http", `webhook URL ${display} uses plain http:, which is not allowed here; use https:`);
    }
    if (url.username !== "" || url.password !== "") {
      throw new UnsafeWebhookError(display, "credentials in URL", `webhook URL ${display} contains credentials (user:password@), which is not allowed; use the push config's authentication instead`);
    }
    const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
    if (hostname === "") throw new UnsafeWebhookError(display, "no host", `webhook URL ${display} has no host`);
    const hostAllowed = this.allowedHosts.has(normalizeHostname(hostname));
    const webhook: ParsedWebhook = { url, display, hostname, hostAllowed };
    if (parseIp(hostname) !== undefined) {
      if (!hostAllowed) this.checkAddresses(webhook, [{ address: hostname }]);
      webhook.literal = hostname;
    } else if (!hostAllowed && METADATA_HOSTNAMES.has(normalizeHostname(hostname))) {
      throw new UnsafeWebhookError(display, "cloud metadata", `webhook URL ${display} names the cloud metadata host ${hostname}, which is not allowed; ${ALLOW_HINT}`);
    }
    return webhook;
  }

  /** Throws unless every address is public or allow-listed (or the host name itself is allow-listed). */
  private checkAddresses(webhook: ParsedWebhook, addresses: ReadonlyArray<{ address: string }>): void {
    if (webhook.hostAllowed) return;
    if (addresses.length === 0) {
      throw new UnsafeWebhookError(
        webhook.display,
        "unresolvable host",
        `webhook URL ${webhook.display}: host ${webhook.hostname} resolves to no address`,
        `webhook URL ${webhook.display} is not allowed: its host could not be resolved`,
      );
    }
    for (const { address } of addresses) {
      const reason = blockedAddressReason(address);
      if (reason !== undefined && !this.isAllowedAddress(address)) {
        throw new UnsafeWebhookError(
          webhook.display,
          reason,
          `webhook URL ${webhook.display} resolves to ${address} (${reason}), which is not allowed; ${ALLOW_HINT}`,
          `webhook URL ${webhook.display} is not allowed: its host resolves to a non-public address (${reason})`,
        );
      }
    }
  }

  private isAllowedAddress(address: string): boolean {
    const ip = parseIp(address);
    if (ip === undefined) return false;
    // An IPv4-mapped IPv6 address is the IPv4 address it carries.
    const v4 = ip.family === 6 && contains(V4_MAPPED, ip) ? { family: 4 as const, value: ip.value & LOW_32_BITS } : undefined;
    return this.allowedNets.some((cidr) => contains(cidr, ip) || (v4 !== undefined && contains(cidr, v4)));
  }

  /** A DNS lookup for `http.request` that refuses (with an UnsafeWebhookError) any blocked answer. */
  private guardedLookup(webhook: ParsedWebhook): NonNullable<RequestOptions["lookup"]> {
    return (hostname: string, options: LookupOptions, callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void) => {
      this.settings
        .lookup(hostname)
        .then((answers) => {
          this.checkAddresses({ ...webhook, hostname }, answers);
          const wanted = options.family === 4 || options.family === 6 ? answers.filter((a) => a.family === options.family) : answers;
          const first = wanted[0];
          if (first === undefined) {
            const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
            error.code = "ENOTFOUND";
            callback(error, "");
          } else if (options.all === true) {
            callback(null, wanted.map((a) => ({ address: a.address, family: a.family })));
          } else {
            callback(null, first.address, first.family);
          }
        })
        .catch((error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), ""));
    };
  }

  /** One POST; settles when the response has been read, the attempt failed, timed out or was aborted. */
  private attempt(webhook: ParsedWebhook, headers: OutgoingHttpHeaders, payload: Buffer, signal: AbortSignal | undefined): Promise<AttemptOutcome> {
    return new Promise<AttemptOutcome>((resolve) => {
      let request: ClientRequest | undefined;
      let status: number | undefined;
      let settled = false;
      const finish = (outcome: AttemptOutcome): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        request?.destroy();
        resolve(status !== undefined && outcome.kind !== "response" ? { kind: "response", status } : outcome);
      };
      const onAbort = (): void => finish({ kind: "failed", error: "aborted", retryable: false });
      const timer = setTimeout(() => finish({ kind: "failed", error: `timed out after ${this.settings.timeoutMs} ms`, retryable: true }), this.settings.timeoutMs);
      signal?.addEventListener("abort", onAbort, { once: true });

      const send = webhook.url.protocol === "https:" ? httpsRequest : httpRequest;
      try {
        request = send({
          protocol: webhook.url.protocol,
          hostname: webhook.hostname,
          port: webhook.url.port === "" ? undefined : Number(webhook.url.port),
          path: `${webhook.url.pathname}${webhook.url.search}`,
          method: "POST",
          headers,
          agent: false,
          lookup: this.guardedLookup(webhook),
        });
      } catch (error) {
        finish({ kind: "failed", error: errorMessage(error), retryable: false }); // e.g. a header with a newline
        return;
      }
      request.on("error", (error: Error) => {
        if (error instanceof UnsafeWebhookError) finish({ kind: "refused", error: error.message });
        else finish({ kind: "failed", error: errorMessage(error), retryable: true });
      });
      request.on("response", (response: IncomingMessage) => {
        status = response.statusCode ?? 0;
        let bytes = 0;
        response.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes > MAX_RESPONSE_BYTES) finish({ kind: "response", status: status ?? 0 });
        });
        response.on("error", () => finish({ kind: "response", status: status ?? 0 }));
        response.on("end", () => finish({ kind: "response", status: status ?? 0 }));
        response.on("close", () => finish({ kind: "response", status: status ?? 0 }));
      });
      request.end(payload);
    });
  }

  private giveUp(webhook: ParsedWebhook, attempts: number, error: string, status?: number): PushResult {
    this.emit({ type: "gave-up", url: webhook.display, attempt: attempts, error, ...(status === undefined ? {} : { status }) });
    return status === undefined ? { ok: false, attempts, error } : { ok: false, attempts, status, error };
  }

  private emit(event: PushEvent): void {
    try {
      this.onEvent?.(event);
    } catch {
      // A failing logger must not break delivery.
    }
  }
}

async function defaultLookup(hostname: string): Promise<Array<{ address: string; family: 4 | 6 }>> {
  const answers = await new Promise<LookupAddress[]>((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
}

function describeStatus(status: number): string {
  if (status >= 300 && status < 400) return `HTTP ${status} (redirects are not followed)`;
  return `HTTP ${status}`;
}

/** Resolves true after `ms`, or false as soon as `signal` aborts; leaves no timer or listener behind. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The URL with any password masked, for messages and logs. */
function redact(text: string): string {
  try {
    const url = new URL(text);
    if (url.password === "") return text;
    url.password = "***";
    return url.href;
  } catch {
    return text;
  }
}

function nonNegative(value: number | undefined, fallback: number, integer: boolean): number {
  if (value === undefined || !Number.isFinite(value) || value < 0) return fallback;
  return integer ? Math.floor(value) : value;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
