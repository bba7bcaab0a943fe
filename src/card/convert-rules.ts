import { isObject, type Json, type JsonObject } from "../schema/json.js";

/**
 * What the IR diff cannot derive when an agent card moves between the 0.x and 1.x shapes: fields that
 * were merged into another field, moved to another object, or renamed (the diff reports a removed and
 * an added field; which one became which is a fact of the specification, §4.4 of
 * schema/specification-1.0.1.md against §5.5 of schema/specification-0.3.0.md). Everything else in
 * convertCard is derived from the two IRs.
 */
export interface CardRule {
  /** The source definition the rule applies to. */
  type: string;
  /** The source fields it consumes (the generic conversion leaves them alone). */
  fields: string[];
  /** Run after every other field of the object is converted (the rule writes into one of them). */
  last?: boolean;
  applies: (from: string, to: string) => boolean;
  /** The target fields it produces; it may also complete `out`, the object converted so far. */
  convert: (value: JsonObject, context: RuleContext, out: JsonObject) => JsonObject;
}

/** A rule that produces no field. */
const NOTHING: JsonObject = {};

export interface RuleContext {
  from: string;
  to: string;
  /** The fields the target object declares. */
  targetFields: readonly string[];
  note: (field: string, text: string) => void;
}

const major = (version: string) => Number(version.split(".")[0]);
const majorMinor = (version: string) => version.split(".").slice(0, 2).join(".");
const upgrade = (from: string, to: string) => major(from) === 0 && major(to) >= 1;
const downgrade = (from: string, to: string) => major(from) >= 1 && major(to) === 0;

/** 0.x `security: [{ scheme: scopes }]` ↔ 1.x `securityRequirements: [{ schemes: { scheme: { list: scopes } } }]`. */
const securityUp = (security: unknown): Json =>
  Array.isArray(security)
    ? security.map((requirement) =>
        isObject(requirement) ? { schemes: Object.fromEntries(Object.entries(requirement).map(([scheme, scopes]) => [scheme, { list: Array.isArray(scopes) ? scopes : [] }])) } : (requirement as Json),
      )
    : (security as Json);
const securityDown = (requirements: unknown): Json =>
  Array.isArray(requirements)
    ? requirements.map((requirement) =>
        isObject(requirement) && isObject(requirement.schemes)
          ? Object.fromEntries(Object.entries(requirement.schemes).map(([scheme, list]) => [scheme, isObject(list) && Array.isArray(list.list) ? list.list : []]))
          : (requirement as Json),
      )
    : (requirements as Json);

export const CARD_RULES: readonly CardRule[] = [
  {
    // 0.x: one `url` with its `preferredTransport`, more in `additionalInterfaces`, the card's `protocolVersion`.
    // 1.x: `supportedInterfaces`, each with its URL, binding and the protocol version it exposes (the target's).
    type: "AgentCard",
    fields: ["url", "preferredTransport", "additionalInterfaces", "protocolVersion"],
    applies: upgrade,
    convert: (card, context) => {
      const version = majorMinor(context.to);
      const interfaces: JsonObject[] = [];
      const add = (url: unknown, binding: unknown) => {
        if (typeof url !== "string") return;
        const protocolBinding = typeof binding === "string" ? binding : "JSONRPC";
        if (!interfaces.some((i) => i.url === url && i.protocolBinding === protocolBinding)) interfaces.push({ url, protocolBinding, protocolVersion: version });
      };
      add(card.url, card.preferredTransport);
      for (const extra of Array.isArray(card.additionalInterfaces) ? card.additionalInterfaces : []) if (isObject(extra)) add(extra.url, extra.transport);
      if (card.protocolVersion !== undefined) context.note("protocolVersion", `now supportedInterfaces[].protocolVersion "${version}", the version the regenerated agent speaks`);
      return interfaces.length > 0 ? { supportedInterfaces: interfaces } : NOTHING;
    },
  },
  {
    type: "AgentCard",
    fields: ["supportsAuthenticatedExtendedCard"],
    last: true,
    applies: upgrade,
    convert: (card, _context, out) => {
      if (typeof card.supportsAuthenticatedExtendedCard === "boolean") {
        out.capabilities = { ...(isObject(out.capabilities) ? out.capabilities : {}), extendedAgentCard: card.supportsAuthenticatedExtendedCard };
      }
      return {};
    },
  },
  {
    // Between 0.x versions: the card states the version it speaks (0.2.5 on), which is now the target's.
    type: "AgentCard",
    fields: ["protocolVersion"],
    applies: (from, to) => major(from) === 0 && major(to) === 0 && from !== to,
    convert: (card, context) => {
      if (!context.targetFields.includes("protocolVersion")) return NOTHING;
      if (card.protocolVersion !== undefined && card.protocolVersion !== context.to) context.note("protocolVersion", `${JSON.stringify(card.protocolVersion)} is now "${context.to}"`);
      return { protocolVersion: context.to };
    },
  },
  { type: "AgentCard", fields: ["security"], applies: upgrade, convert: (card) => ({ securityRequirements: securityUp(card.security) }) },
  { type: "AgentSkill", fields: ["security"], applies: upgrade, convert: (skill) => ({ securityRequirements: securityUp(skill.security) }) },
  { type: "APIKeySecurityScheme", fields: ["in"], applies: upgrade, convert: (scheme) => (scheme.in === undefined ? NOTHING : { location: scheme.in }) },

  {
    // The reverse: the interface of the target's version (else the first) is `url`; all of them are `additionalInterfaces`.
    type: "AgentCard",
    fields: ["supportedInterfaces"],
    applies: downgrade,
    convert: (card, context) => {
      const interfaces = (Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces : []).filter(isObject);
      const primary = interfaces.find((i) => i.protocolVersion === majorMinor(context.to)) ?? interfaces[0];
      const out: JsonObject = {};
      const has = (field: string) => context.targetFields.includes(field);
      if (has("protocolVersion")) out.protocolVersion = context.to;
      if (primary) {
        out.url = primary.url as Json;
        if (has("preferredTransport") && typeof primary.protocolBinding === "string") out.preferredTransport = primary.protocolBinding;
      }
      if (has("additionalInterfaces") && interfaces.length > 1) out.additionalInterfaces = interfaces.map((i) => ({ url: i.url as Json, transport: i.protocolBinding as Json }));
      else if (interfaces.length > 1) context.note("supportedInterfaces", `A2A ${context.to} has one url; kept ${String(primary?.url)}`);
      return out;
    },
  },
  {
    type: "AgentCard",
    fields: [],
    last: true,
    applies: downgrade,
    convert: (card, context) => {
      const extended = isObject(card.capabilities) ? card.capabilities.extendedAgentCard : undefined;
      return typeof extended === "boolean" && context.targetFields.includes("supportsAuthenticatedExtendedCard") ? { supportsAuthenticatedExtendedCard: extended } : NOTHING;
    },
  },
  // Moved to the card by the rule above.
  { type: "AgentCapabilities", fields: ["extendedAgentCard"], applies: downgrade, convert: () => ({}) },
  { type: "AgentCard", fields: ["securityRequirements"], applies: downgrade, convert: (card) => ({ security: securityDown(card.securityRequirements) }) },
  { type: "AgentSkill", fields: ["securityRequirements"], applies: downgrade, convert: (skill) => ({ security: securityDown(skill.securityRequirements) }) },
  { type: "APIKeySecurityScheme", fields: ["location"], applies: downgrade, convert: (scheme) => (scheme.location === undefined ? NOTHING : { in: scheme.location }) },
];
