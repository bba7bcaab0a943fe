import type { DualCardRule, JsonValue } from "./compat.js";

/**
 * The agent card that serves both versions' clients (docs/compat.md): the primary version's card, with
 * its interface of the rule's binding listed a second time under the compat version
 * (`{ url, protocolBinding: "JSONRPC", protocolVersion: "0.3" }`) and the top-level fields compat clients
 * read (0.3: `url`, `preferredTransport`, `protocolVersion`, ...), each taken from the primary card as the
 * rule says. A field the card already has is left as it is; the input is not modified.
 *
 * Returns the card unchanged when it has no interface of the rule's binding (nothing to point compat
 * clients at).
 */
export function dualCard(
  rule: DualCardRule,
  card: { readonly [key: string]: unknown },
  /** The same card in the compat version's shape (e.g. from a2a-codegen's card converter): its security schemes and requirements are merged in. */
  compatCard?: { readonly [key: string]: unknown },
): { [key: string]: unknown } {
  const interfaces = Array.isArray(card["supportedInterfaces"]) ? (card["supportedInterfaces"] as unknown[]) : [];
  const sameBinding = (i: unknown): i is { [key: string]: unknown } =>
    typeof i === "object" && i !== null && String((i as { protocolBinding?: unknown }).protocolBinding ?? "").toUpperCase() === rule.binding.toUpperCase();
  const candidates = interfaces.filter(sameBinding);
  const primary = candidates.find((i) => i["protocolVersion"] !== rule.interfaceVersion);
  if (!primary) return { ...card };
  const out: { [key: string]: unknown } = { ...card };
  if (!candidates.some((i) => i["protocolVersion"] === rule.interfaceVersion && i["url"] === primary["url"])) {
    const index = interfaces.indexOf(primary);
    const compat = { ...primary, protocolVersion: rule.interfaceVersion };
    out["supportedInterfaces"] = [...interfaces.slice(0, index + 1), compat, ...interfaces.slice(index + 1)];
  }
  for (const f of rule.fields) {
    if (f.field in out) continue;
    const value = f.value !== undefined ? f.value : f.from !== undefined ? read(card, primary, compatCard, f.from) : undefined;
    if (value !== undefined) out[f.field] = value;
  }
  for (const field of compatCard ? rule.merge : []) {
    const mine = card[field];
    const theirs = compatCard?.[field];
    if (!isMap(mine) || !isMap(theirs)) continue;
    const merged: { [key: string]: unknown } = {};
    for (const [name, entry] of Object.entries(mine)) {
      const other = theirs[name];
      merged[name] = isMap(entry) && isMap(other) ? { ...other, ...entry } : entry;
    }
    out[field] = merged;
  }
  return out;
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
