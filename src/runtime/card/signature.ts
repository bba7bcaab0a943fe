/**
 * Agent card signatures (specification-1.0.1.md §8.4, AgentCardSignature in 0.3.0 and 1.0.1): a JWS
 * (RFC 7515) with a detached payload, the RFC 8785 (JCS) canonical JSON of the card without `signatures`
 * and without the fields left at their default value (§8.4.1 rule 1).
 * Signing is for the server (sign the card once at startup, serve the signed card); verification is for
 * the client (`A2AClient.fromAgentUrl(url, { verifyCard: cardSignatureVerifier({ jwks }) })`).
 *
 * Optional: this file imports `jose` and `canonicalize` (add them to your dependencies when you use it);
 * nothing else in the generated code imports it, so the default client and server need neither.
 */

import canonicalize from "canonicalize";
import {
  base64url,
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeProtectedHeader,
  FlattenedSign,
  flattenedVerify,
  type CryptoKey,
  type FlattenedVerifyGetKey,
  type JSONWebKeySet,
  type JWK,
  type JWSHeaderParameters,
  type KeyObject,
} from "jose";

/** One entry of a card's `signatures` (AgentCardSignature). */
export interface AgentCardSignature {
  /** The base64url JWS Protected Header (`alg`, `typ`, `kid`, optionally `jku`). */
  protected: string;
  /** The base64url signature. */
  signature: string;
  /** The JWS Unprotected Header, when there is one. */
  header?: Record<string, unknown>;
}

/** A key: a CryptoKey or KeyObject (e.g. from jose's generateKeyPair or importPKCS8), or a JWK. */
export type CardKey = CryptoKey | KeyObject | JWK;

/** The signature algorithms verification accepts unless told otherwise (asymmetric only: a card is public). */
export const DEFAULT_CARD_ALGORITHMS: readonly string[] = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA", "Ed25519"];

/** The card's signatures do not verify (or it has none); `reasons` says why for each signature. */
export class A2ACardSignatureError extends Error {
  override readonly name: string = "A2ACardSignatureError";
  /** Why each signature failed, in the card's order. */
  readonly reasons: readonly string[];

  constructor(message: string, reasons: readonly string[] = []) {
    super(reasons.length > 0 ? `${message}: ${reasons.join("; ")}` : message);
    this.reasons = reasons;
  }
}

/**
 * The payload that is signed (§8.4.1): the RFC 8785 canonical JSON of the card without its `signatures`
 * and without the fields that hold their proto3 default value (rule 1): an empty string, 0, false, an
 * empty list or map, unless the field is REQUIRED or has explicit presence (`optional`, a oneof member, a
 * message). The card's fields are a2a-1.0.1.proto's (see CARD_FIELDS); a field it does not declare (another
 * version's, an extension's) is kept as it is.
 */
export function canonicalCardPayload(card: object): string {
  const { signatures: _signatures, ...rest } = card as Record<string, unknown>;
  const text = canonicalize(withoutDefaults(rest, "AgentCard"));
  if (text === undefined) throw new TypeError("the agent card cannot be canonicalized");
  return text;
}

/**
 * The card's payload as it is (before default values were left out, as releases before 0.1.0's hardening
 * signed it): verification accepts it too, so cards signed then still verify.
 */
function servedCardPayload(card: object): string {
  const { signatures: _signatures, ...rest } = card as Record<string, unknown>;
  const text = canonicalize(rest);
  if (text === undefined) throw new TypeError("the agent card cannot be canonicalized");
  return text;
}

/**
 * The fields of the card's messages in a2a-1.0.1.proto, by JSON name: "!" first when the field is kept
 * even with its default value (REQUIRED, `optional`, a oneof member); then "map " for a map; then the
 * message type of its values ("struct": a google.protobuf.Struct, kept as it is); "" for a scalar or a
 * list of scalars. A message field (a type named, no "map") has presence: kept when present.
 */
const CARD_FIELDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  AgentCard: {
    name: "!",
    description: "!",
    supportedInterfaces: "!AgentInterface",
    provider: "AgentProvider",
    version: "!",
    documentationUrl: "!",
    capabilities: "!AgentCapabilities",
    securitySchemes: "map SecurityScheme",
    securityRequirements: "SecurityRequirement",
    defaultInputModes: "!",
    defaultOutputModes: "!",
    skills: "!AgentSkill",
    iconUrl: "!",
  },
  AgentInterface: { url: "!", protocolBinding: "!", tenant: "", protocolVersion: "!" },
  AgentProvider: { url: "!", organization: "!" },
  AgentCapabilities: { streaming: "!", pushNotifications: "!", extensions: "AgentExtension", extendedAgentCard: "!" },
  AgentExtension: { uri: "", description: "", required: "", params: "struct" },
  AgentSkill: { id: "!", name: "!", description: "!", tags: "!", examples: "", inputModes: "", outputModes: "", securityRequirements: "SecurityRequirement" },
  SecurityRequirement: { schemes: "map StringList" },
  StringList: { list: "" },
  SecurityScheme: {
    apiKeySecurityScheme: "!APIKeySecurityScheme",
    httpAuthSecurityScheme: "!HTTPAuthSecurityScheme",
    oauth2SecurityScheme: "!OAuth2SecurityScheme",
    openIdConnectSecurityScheme: "!OpenIdConnectSecurityScheme",
    mtlsSecurityScheme: "!MutualTlsSecurityScheme",
  },
  APIKeySecurityScheme: { description: "", location: "!", name: "!" },
  HTTPAuthSecurityScheme: { description: "", scheme: "!", bearerFormat: "" },
  OAuth2SecurityScheme: { description: "", flows: "!OAuthFlows", oauth2MetadataUrl: "" },
  OpenIdConnectSecurityScheme: { description: "", openIdConnectUrl: "!" },
  MutualTlsSecurityScheme: { description: "" },
  OAuthFlows: {
    authorizationCode: "!AuthorizationCodeOAuthFlow",
    clientCredentials: "!ClientCredentialsOAuthFlow",
    implicit: "!ImplicitOAuthFlow",
    password: "!PasswordOAuthFlow",
    deviceCode: "!DeviceCodeOAuthFlow",
  },
  AuthorizationCodeOAuthFlow: { authorizationUrl: "!", tokenUrl: "!", refreshUrl: "", scopes: "!map", pkceRequired: "" },
  ClientCredentialsOAuthFlow: { tokenUrl: "!", refreshUrl: "", scopes: "!map" },
  ImplicitOAuthFlow: { authorizationUrl: "", refreshUrl: "", scopes: "map" },
  PasswordOAuthFlow: { tokenUrl: "", refreshUrl: "", scopes: "map" },
  DeviceCodeOAuthFlow: { deviceAuthorizationUrl: "!", tokenUrl: "!", refreshUrl: "", scopes: "!map" },
};

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** A value of a card message without its fields' default values (§8.4.1 rule 1); see {@link CARD_FIELDS}. */
function withoutDefaults(value: unknown, type: string): unknown {
  const fields = CARD_FIELDS[type];
  if (fields === undefined || !isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const spec = fields[key];
    if (spec === undefined) {
      if (v !== undefined) out[key] = v; // not the proto's: kept as it is
      continue;
    }
    const keep = spec.startsWith("!");
    const rest = keep ? spec.slice(1) : spec;
    const map = rest === "map" || rest.startsWith("map ");
    const child = map ? rest.slice(4) : rest;
    if (v === undefined || (v === null && !keep)) continue;
    if (child === "struct") out[key] = v;
    else if (Array.isArray(v)) {
      if (v.length > 0 || keep) out[key] = child === "" ? v : v.map((item) => withoutDefaults(item, child));
    } else if (map && isPlainObject(v)) {
      if (Object.keys(v).length > 0 || keep) out[key] = child === "" ? v : Object.fromEntries(Object.entries(v).map(([k, item]) => [k, withoutDefaults(item, child)]));
    } else if (child !== "" && isPlainObject(v)) out[key] = withoutDefaults(v, child);
    else if (keep || (v !== "" && v !== 0 && v !== false)) out[key] = v;
  }
  return out;
}

/**
 * The payload as the official SDKs (@a2a-js/sdk 1.x, a2a-python) compute it: like
 * {@link canonicalCardPayload} after removing every empty string, null, empty array and empty object,
 * required ones included (a departure from §8.4.1, which keeps required fields). Verification accepts
 * either form, so their cards verify here.
 */
export function compactCardPayload(card: object): string {
  const { signatures: _signatures, ...rest } = card as Record<string, unknown>;
  const text = canonicalize(withoutEmpty(rest) ?? {});
  if (text === undefined) throw new TypeError("the agent card cannot be canonicalized");
  return text;
}

function withoutEmpty(value: unknown): unknown {
  if (value === "" || value === null || value === undefined) return undefined;
  if (Array.isArray(value)) {
    const items = value.map(withoutEmpty).filter((v) => v !== undefined);
    return items.length > 0 ? items : undefined;
  }
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .map(([key, v]) => [key, withoutEmpty(v)] as const)
      .filter(([, v]) => v !== undefined);
    return entries.length > 0 ? Object.fromEntries(entries) : undefined;
  }
  return value;
}

/** Options of {@link signAgentCard}. */
export interface CardSigningOptions {
  /** The key id clients look the public key up by (required by §8.4.2). */
  kid: string;
  /** The JWS algorithm, e.g. "ES256", "RS256", "EdDSA". */
  alg: string;
  /** A URL of the JWKS holding the public key (protected header `jku`). */
  jku?: string;
  /** The protected header `typ`; default "JOSE" (§8.4.2). */
  typ?: string;
  /** A JWS Unprotected Header. */
  header?: Record<string, unknown>;
  /**
   * Also sign the SDKs' compact form ({@link compactCardPayload}) when it differs from §8.4.1's (a card
   * with an empty REQUIRED field or an empty map value, e.g. a bearer requirement with no scopes), so that
   * @a2a-js/sdk and a2a-python verify the card too; default true.
   */
  compactSignature?: boolean;
}

/**
 * The card with one more signature (existing ones are kept, for key rotation): a JWS over
 * {@link canonicalCardPayload} with the protected header `{ alg, typ, kid, jku? }`, followed, when the
 * SDKs' compact form of the card differs, by a second one (same key and header) over that form (see
 * `compactSignature`). Call it once at startup and serve the result.
 */
export async function signAgentCard<C extends object>(card: C, key: CardKey, options: CardSigningOptions): Promise<C & { signatures: AgentCardSignature[] }> {
  if (!options.kid) throw new TypeError("signAgentCard: options.kid is required (the key id clients look the key up by)");
  if (!options.alg) throw new TypeError("signAgentCard: options.alg is required (e.g. ES256)");
  const protectedHeader: JWSHeaderParameters = { alg: options.alg, typ: options.typ ?? "JOSE", kid: options.kid };
  if (options.jku !== undefined) protectedHeader.jku = options.jku;
  const sign = async (payload: string): Promise<AgentCardSignature> => {
    const signer = new FlattenedSign(new TextEncoder().encode(payload)).setProtectedHeader(protectedHeader);
    if (options.header !== undefined) signer.setUnprotectedHeader(options.header);
    const jws = await signer.sign(key);
    if (jws.protected === undefined) throw new Error("signAgentCard: the JWS has no protected header");
    const signature: AgentCardSignature = { protected: jws.protected, signature: jws.signature };
    if (jws.header !== undefined) signature.header = jws.header;
    return signature;
  };
  const canonical = canonicalCardPayload(card);
  const compact = compactCardPayload(card);
  const added = [await sign(canonical)];
  if (options.compactSignature !== false && compact !== canonical) added.push(await sign(compact));
  const existing = (card as { signatures?: unknown }).signatures;
  return { ...card, signatures: [...(Array.isArray(existing) ? (existing as AgentCardSignature[]) : []), ...added] };
}

/** Where verification finds public keys. Give `keys`, `jwks`, or both (keys are looked up first). */
export interface CardVerificationOptions {
  /** Public keys by key id (`kid`). */
  keys?: Readonly<Record<string, CardKey>>;
  /**
   * A JSON Web Key Set, or the URL of one (fetched with jose's remote JWKS cache). The card's own `jku`
   * is never followed: the card cannot name the keys that vouch for it.
   */
  jwks?: JSONWebKeySet | URL | string;
  /** The algorithms accepted; default {@link DEFAULT_CARD_ALGORITHMS}. */
  algorithms?: readonly string[];
}

/** Which signature verified. */
export interface VerifiedCardSignature {
  kid: string;
  alg: string;
  /** Its index in the card's `signatures`. */
  index: number;
}

/**
 * Verifies the card's signatures (§8.4.3): resolves when at least one verifies against a key of
 * `options` (by its `kid`), rejects with an {@link A2ACardSignatureError} naming why each failed, or that
 * there are none.
 */
export async function verifyAgentCard(card: object, options: CardVerificationOptions): Promise<VerifiedCardSignature> {
  return verifyWith(card, keyResolver(options), options.algorithms);
}

async function verifyWith(card: object, getKey: FlattenedVerifyGetKey, accepted: readonly string[] | undefined): Promise<VerifiedCardSignature> {
  const signatures = (card as { signatures?: unknown }).signatures;
  if (!Array.isArray(signatures) || signatures.length === 0) throw new A2ACardSignatureError("the agent card is not signed (no signatures)");
  const algorithms = [...(accepted ?? DEFAULT_CARD_ALGORITHMS)];
  // §8.4.1's form first; then the card as served (signatures made before defaults were left out) and the SDKs' compact form.
  const payloads = [...new Set([canonicalCardPayload(card), servedCardPayload(card), compactCardPayload(card)])].map((p) => base64url.encode(new TextEncoder().encode(p)));
  const reasons: string[] = [];
  for (const [index, entry] of signatures.entries()) {
    const where = `signatures[${index}]`;
    if (!isSignature(entry)) {
      reasons.push(`${where}: not an AgentCardSignature (protected and signature strings)`);
      continue;
    }
    let header: JWSHeaderParameters;
    try {
      header = decodeProtectedHeader(entry);
    } catch (error) {
      reasons.push(`${where}: the protected header is not base64url JSON (${messageOf(error)})`);
      continue;
    }
    if (typeof header.kid !== "string" || typeof header.alg !== "string") {
      reasons.push(`${where}: the protected header has no kid or alg (both required by §8.4.2)`);
      continue;
    }
    let failure = "";
    for (const payload of payloads) {
      try {
        const jws = entry.header === undefined ? { payload, protected: entry.protected, signature: entry.signature } : { payload, protected: entry.protected, signature: entry.signature, header: entry.header };
        await flattenedVerify(jws, getKey, { algorithms });
        return { kid: header.kid, alg: header.alg, index };
      } catch (error) {
        failure = messageOf(error);
      }
    }
    reasons.push(`${where} (kid ${JSON.stringify(header.kid)}, ${header.alg}): ${failure}`);
  }
  throw new A2ACardSignatureError("no signature of the agent card verifies", reasons);
}

/** The client option `verifyCard`: refuses a card whose signatures do not verify against these keys. */
export function cardSignatureVerifier(options: CardVerificationOptions): (card: object) => Promise<VerifiedCardSignature> {
  if (options.keys === undefined && options.jwks === undefined) throw new TypeError("cardSignatureVerifier: give keys, jwks or both");
  // One resolver for every card, so a remote JWKS is fetched once and cached by jose, not per card.
  const getKey = keyResolver(options);
  return (card) => verifyWith(card, getKey, options.algorithms);
}

function keyResolver(options: CardVerificationOptions): FlattenedVerifyGetKey {
  const jwks = options.jwks;
  const set = jwks === undefined ? undefined : jwks instanceof URL || typeof jwks === "string" ? createRemoteJWKSet(new URL(jwks)) : createLocalJWKSet(jwks);
  return async (header, token) => {
    const kid = header.kid;
    const key = kid === undefined ? undefined : options.keys?.[kid];
    if (key !== undefined) return key;
    if (set) return set(header, token);
    throw new Error(`no key with kid ${JSON.stringify(kid)}`);
  };
}

function isSignature(value: unknown): value is AgentCardSignature {
  if (typeof value !== "object" || value === null) return false;
  const entry = value as Record<string, unknown>;
  const header = entry["header"];
  return typeof entry["protected"] === "string" && typeof entry["signature"] === "string" && (header === undefined || (typeof header === "object" && header !== null && !Array.isArray(header)));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
