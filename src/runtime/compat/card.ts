import type { DualCardRule, JsonValue } from "./converter.js";

/**
 * The agent card that serves both versions' clients (docs/compat.md): the primary version's card, with
 * the interface of each binding compat clients are served on (`served`; by default the rule's binding)
 * listed a second time under the compat version (`{ url, protocolBinding: "JSONRPC", protocolVersion:
 * "0.3" }`), and the top-level fields compat clients read (0.3: `url`, `preferredTransport`,
 * `protocolVersion`, ...), each taken from the primary card as the rule says, the "main" interface being
 * the rule's binding's (else the first served one). With the rule's `interfaces`, the compat version's
 * list of interfaces (0.3 `additionalInterfaces`) names every served binding, the main one included
 * (specification-0.3.0.md §5.6: it "SHOULD include all supported transports, including the main URL's").
 * A field the card already has is left as it is; the input is not modified.
 *
 * Returns the card unchanged when it has no interface of a served binding (nothing to point compat
 * clients at).
 */
export function dualCard(
  rule: DualCardRule,
  card: { readonly [key: string]: unknown },
  /** The same card in the compat version's shape (e.g. from a2a-codegen's card converter): its security schemes and requirements are merged in. */
  compatCard?: { readonly [key: string]: unknown },
  /** The bindings compat clients are served on ("JSONRPC", "HTTP+JSON", "GRPC"); default: the rule's binding. */
  served: readonly string[] = [rule.binding],
): { [key: string]: unknown } {
  const interfaces = Array.isArray(card["supportedInterfaces"]) ? (card["supportedInterfaces"] as unknown[]) : [];
  const bindingOf = (i: { readonly [key: string]: unknown }) => String(i["protocolBinding"] ?? "").toUpperCase();
  const wanted = new Set(served.map((b) => b.toUpperCase()));
  // The first interface of each served binding (not itself a compat entry), in the card's order.
  const primaries: Array<{ [key: string]: unknown }> = [];
  for (const i of interfaces) {
    if (isMap(i) && wanted.has(bindingOf(i)) && i["protocolVersion"] !== rule.interfaceVersion && !primaries.some((p) => bindingOf(p) === bindingOf(i))) primaries.push(i as { [key: string]: unknown });
  }
  const main = primaries.find((i) => bindingOf(i) === rule.binding.toUpperCase()) ?? primaries[0];
  if (!main) return { ...card };
  const out: { [key: string]: unknown } = { ...card };
  const listed = (i: { readonly [key: string]: unknown }) =>
    interfaces.some((x) => isMap(x) && x["protocolVersion"] === rule.interfaceVersion && x["url"] === i["url"] && bindingOf(x) === bindingOf(i));
  const withCompat: unknown[] = [];
  for (const i of interfaces) {
    withCompat.push(i);
    if (primaries.includes(i as { [key: string]: unknown }) && !listed(i as { [key: string]: unknown })) withCompat.push({ ...(i as object), protocolVersion: rule.interfaceVersion });
  }
  if (withCompat.length !== interfaces.length) out["supportedInterfaces"] = withCompat;
  for (const f of rule.fields) {
    if (f.field in out) continue;
    const value = f.value !== undefined ? f.value : f.from !== undefined ? read(card, main, compatCard, f.from) : undefined;
    if (value !== undefined) out[f.field] = value;
  }
  const list = rule.interfaces;
  if (list && !(list.field in out)) {
    const ordered = [main, ...primaries.filter((i) => i !== main)];
    out[list.field] = ordered.map((i) => ({ url: i["url"], [list.binding]: bindingOf(i) }));
  }
  // Both shapes of each entry: the compat form's fields, then the primary's.
  mergeMaps(rule, card, compatCard, out, (entry, other) => (isMap(entry) && isMap(other) ? { ...other, ...entry } : entry));
  return out;
}

/**
 * Writes into `out` each map the rule merges (`securitySchemes`), entry by entry: `combine` of the card's
 * entry and the compat card's entry of the same name. Nothing without a compat card.
 */
function mergeMaps(
  rule: DualCardRule,
  card: { readonly [key: string]: unknown },
  compatCard: { readonly [key: string]: unknown } | undefined,
  out: { [key: string]: unknown },
  combine: (entry: unknown, other: unknown) => unknown,
): void {
  for (const field of compatCard ? rule.merge : []) {
    const mine = card[field];
    const theirs = compatCard?.[field];
    if (!isMap(mine) || !isMap(theirs)) continue;
    out[field] = Object.fromEntries(Object.entries(mine).map(([name, entry]) => [name, combine(entry, theirs[name])]));
  }
}

/**
 * A dual card for a binding whose wire is the compat version's proto (0.3's HTTP+JSON and gRPC): the
 * entries of each merged map (`securitySchemes`) in the compat form only. The primary's fields merged
 * into them for JSON clients (`httpAuthSecurityScheme` beside 0.3's `type`/`scheme`) would be unknown
 * fields of the compat proto's message there.
 */
export function compatWireCard(rule: DualCardRule, card: { readonly [key: string]: unknown }, compatCard: { readonly [key: string]: unknown } | undefined): { [key: string]: unknown } {
  const out: { [key: string]: unknown } = { ...card };
  mergeMaps(rule, card, compatCard, out, (entry, other) => other ?? entry);
  return out;
}

/**
 * The interfaces the compat form of a dual card lists (0.3: `url` with `preferredTransport`, then
 * `additionalInterfaces`) whose binding is not among `served`: each would send a compat client to an
 * endpoint that does not speak its version. Empty when all are served.
 */
export function unservedCompatInterfaces(rule: DualCardRule, card: { readonly [key: string]: unknown }, served: readonly string[]): Array<{ binding: string; url: string | undefined }> {
  const wanted = new Set(served.map((b) => b.toUpperCase()));
  const found: Array<{ binding: string; url: string | undefined }> = [];
  const urlOf = (value: unknown) => (typeof value === "string" ? value : undefined);
  const mainBinding = rule.fields.find((f) => f.from === "interface.protocolBinding")?.field;
  const mainUrl = rule.fields.find((f) => f.from === "interface.url")?.field;
  if (mainUrl !== undefined && card[mainUrl] !== undefined) {
    found.push({ binding: String((mainBinding !== undefined ? card[mainBinding] : undefined) ?? rule.binding).toUpperCase(), url: urlOf(card[mainUrl]) });
  }
  const list = rule.interfaces;
  const entries = list && Array.isArray(card[list.field]) ? (card[list.field] as unknown[]) : [];
  for (const entry of entries) if (isMap(entry)) found.push({ binding: String(entry[list?.binding ?? ""] ?? "").toUpperCase(), url: urlOf(entry["url"]) });
  return found.filter((i) => !wanted.has(i.binding));
}

function isMap(value: unknown): value is { readonly [key: string]: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function read(
  card: { readonly [key: string]: unknown },
  primaryInterface: { readonly [key: string]: unknown },
  compatCard: { readonly [key: string]: unknown } | undefined,
  path: string,
): JsonValue | undefined {
  const [head, ...rest] = path.split(".");
  // `interface.x` and `compat.x` read the primary interface and the compat card; any other path the card.
  let node: unknown = head === "interface" ? primaryInterface : head === "compat" ? compatCard : card[head as string];
  for (const key of rest) node = typeof node === "object" && node !== null ? (node as { [key: string]: unknown })[key] : undefined;
  return node as JsonValue | undefined;
}
