/**
 * The URL-level half of the push sender's SSRF guard, on web standards alone (no `node:` module): what a
 * webhook URL may be (http: or https:, no credentials, not a cloud metadata host name) and which IP
 * addresses are not public (loopback, private, link-local, … in every spelling: the WHATWG URL parser
 * turns decimal, octal and hex IPv4 hosts like http://2130706433/ or http://0x7f.1/ into a dotted quad, and
 * IPv4-mapped, -compatible, NAT64, 6to4 and Teredo IPv6 addresses are judged by the IPv4 address they carry).
 * The DNS half (every address a host name resolves to) is the transport's: push-transport-node.ts.
 */

/** Told with a refusal in the server's log: how to let a private address through on purpose. */
export const ALLOW_HINT = "allow-list it with pushNotifications.allow";

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
export interface Ip {
  family: 4 | 6;
  value: bigint;
}

/** A CIDR block: the addresses whose first `bits` bits equal those of `base`. */
export interface Cidr extends Ip {
  bits: number;
}

/** Host names that reach cloud metadata services; refused by name before any lookup. */
export const METADATA_HOSTNAMES = new Set([
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

export const V4_MAPPED = mustParseCidr("::ffff:0:0/96");
const V4_COMPATIBLE = mustParseCidr("::/96");
const V4_TRANSLATED = mustParseCidr("::ffff:0:0:0/96");
const NAT64 = mustParseCidr("64:ff9b::/96");
const TEREDO = mustParseCidr("2001::/32");
const SIX_TO_FOUR = mustParseCidr("2002::/16");
const GLOBAL_UNICAST = mustParseCidr("2000::/3");
export const LOW_32_BITS = 0xffff_ffffn;

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
export function parseIp(text: string): Ip | undefined {
  let s = text.trim();
  if (s.startsWith("[") && s.endsWith("]")) s = s.slice(1, -1);
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  if (isDottedQuad(s)) return { family: 4, value: parseV4(s) };
  const v6 = canonicalV6(s);
  return v6 === undefined ? undefined : { family: 6, value: parseV6(v6) };
}

/** Four decimal numbers 0–255 without leading zeros: the one IPv4 form an address is written in here. */
function isDottedQuad(s: string): boolean {
  const parts = s.split(".");
  return parts.length === 4 && parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255);
}

/**
 * An IPv6 address in the WHATWG URL parser's serialization (eight hex groups, `::` for the longest run of
 * zeros, an embedded dotted quad turned into hex), or undefined when the text is not an IPv6 address.
 */
function canonicalV6(s: string): string | undefined {
  if (!s.includes(":") || !/^[0-9a-fA-F:.]+$/.test(s)) return undefined;
  try {
    return new URL(`http://[${s}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
}

/** A dotted quad already validated by `isDottedQuad`. */
function parseV4(s: string): bigint {
  return s.split(".").reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

/** An IPv6 address as `canonicalV6` writes it: expands `::` (a trailing dotted quad is read too). */
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

export function parseCidr(text: string): Cidr | undefined {
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

export function contains(cidr: Cidr, ip: Ip): boolean {
  if (cidr.family !== ip.family) return false;
  const shift = BigInt((cidr.family === 4 ? 32 : 128) - cidr.bits);
  return cidr.value >> shift === ip.value >> shift;
}

/** Lower case, brackets and one trailing dot removed: the form host names are compared in. */
export function normalizeHostname(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1);
  return h.endsWith(".") ? h.slice(0, -1) : h;
}

// ---------------------------------------------------------------------------------------------------
// Webhook URLs

/** A webhook URL that passed the checks that need no DNS. */
export interface ParsedWebhook {
  url: URL;
  /** The URL for messages: as given, password masked. */
  display: string;
  /** The host as a connection takes it (no brackets). */
  hostname: string;
  /** Set when the host is an IP literal (already checked). */
  literal?: string;
  /** The host name is allow-listed: every address it resolves to is accepted. */
  hostAllowed: boolean;
}

/** The hosts and address blocks `pushNotifications.allow` lets through although they are not public. */
export class AllowList {
  private readonly hosts = new Set<string>();
  private readonly nets: Cidr[] = [];

  /** Throws a TypeError for an entry that looks like a CIDR block but is not a valid one. */
  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      const cidr = parseCidr(entry.trim());
      if (cidr !== undefined) this.nets.push(cidr);
      else if (entry.includes("/")) throw new TypeError(`pushNotifications.allow: "${entry}" is not a valid IP address or CIDR block`);
      else if (normalizeHostname(entry) !== "") this.hosts.add(normalizeHostname(entry));
    }
  }

  hasHost(hostname: string): boolean {
    return this.hosts.has(normalizeHostname(hostname));
  }

  hasAddress(address: string): boolean {
    const ip = parseIp(address);
    if (ip === undefined) return false;
    // An IPv4-mapped IPv6 address is the IPv4 address it carries.
    const v4 = ip.family === 6 && contains(V4_MAPPED, ip) ? { family: 4 as const, value: ip.value & LOW_32_BITS } : undefined;
    return this.nets.some((cidr) => contains(cidr, ip) || (v4 !== undefined && contains(cidr, v4)));
  }
}

/** The checks that need no DNS: URL syntax, scheme, credentials, metadata names, IP literals. Throws UnsafeWebhookError. */
export function parseWebhook(text: string, allow: AllowList, allowHttp: boolean): ParsedWebhook {
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
  if (url.protocol === "http:" && !allowHttp) {
    throw new UnsafeWebhookError(display, "plain http", `webhook URL ${display} uses plain http:, which is not allowed here; use https:`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new UnsafeWebhookError(display, "credentials in URL", `webhook URL ${display} contains credentials (user:password@), which is not allowed; use the push config's authentication instead`);
  }
  const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  if (hostname === "") throw new UnsafeWebhookError(display, "no host", `webhook URL ${display} has no host`);
  const hostAllowed = allow.hasHost(hostname);
  const webhook: ParsedWebhook = { url, display, hostname, hostAllowed };
  if (parseIp(hostname) !== undefined) {
    if (!hostAllowed) checkAddresses(webhook, [{ address: hostname }], allow);
    webhook.literal = hostname;
  } else if (!hostAllowed && METADATA_HOSTNAMES.has(normalizeHostname(hostname))) {
    throw new UnsafeWebhookError(display, "cloud metadata", `webhook URL ${display} names the cloud metadata host ${hostname}, which is not allowed; ${ALLOW_HINT}`);
  }
  return webhook;
}

/** Throws UnsafeWebhookError unless every address is public or allow-listed (or the host name itself is allow-listed). */
export function checkAddresses(webhook: ParsedWebhook, addresses: ReadonlyArray<{ address: string }>, allow: AllowList): void {
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
    if (reason !== undefined && !allow.hasAddress(address)) {
      throw new UnsafeWebhookError(
        webhook.display,
        reason,
        `webhook URL ${webhook.display} resolves to ${address} (${reason}), which is not allowed; ${ALLOW_HINT}`,
        `webhook URL ${webhook.display} is not allowed: its host resolves to a non-public address (${reason})`,
      );
    }
  }
}

/** The URL with any password masked, for messages and logs. */
export function redact(text: string): string {
  try {
    const url = new URL(text);
    if (url.password === "") return text;
    url.password = "***";
    return url.href;
  } catch {
    return text;
  }
}
