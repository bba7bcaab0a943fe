/**
 * The card's security schemes, enforced: which credentials a request must carry (the card's requirements,
 * in every version's spelling), where each scheme's credential is found (headers, query, cookie), the
 * user's verifier, and the WWW-Authenticate challenge of a refusal. Transport-free: an HTTP request and
 * gRPC metadata are both read as lower-cased headers plus a query.
 */
import { A2AError, AUTH_ERROR_CODE } from "../a2a-error.js";
import type { CoreRequest } from "../call.js";
import { isObject, type JsonObject } from "../json.js";

/** A credential found in a request, for one security scheme of the card. */
export interface Credential {
  /** The card's name for the scheme (key of securitySchemes), or the 0.1.0 scheme name. */
  scheme: string;
  type: "bearer" | "basic" | "apiKey" | "oauth2" | "openIdConnect" | "mutualTLS" | "other";
  /** The token, key or `user:password`; empty for mutualTLS (check the TLS socket yourself). */
  value: string;
}

export type AuthDecision = boolean | { allow: true; principal?: unknown } | { allow: false; status?: 401 | 403; message?: string };

export interface AuthOptions {
  /** Decides whether a credential is good. Called for each scheme of the requirement being tried. */
  verify(credential: Credential, request: CoreRequest): AuthDecision | Promise<AuthDecision>;
  /** The realm in WWW-Authenticate; default "a2a". */
  realm?: string;
}

/** Alternatives, each a list of schemes that must all pass. */
export type SecurityRequirements = Array<Array<{ name: string; scheme: JsonObject }>>;

/** The card's requirements: alternatives, each a list of scheme names that must all pass. */
export function securityRequirements(card: JsonObject): SecurityRequirements {
  if (isObject(card["securitySchemes"]) && Object.keys(card["securitySchemes"]).length > 0) {
    const schemes: Record<string, JsonObject> = {};
    for (const [name, value] of Object.entries(card["securitySchemes"])) if (isObject(value)) schemes[name] = schemeOf(value);
    // 0.x: `security: [{ name: scopes }]`; 1.0: `securityRequirements: [{ schemes: { name: { list } } }]`.
    const listed = Array.isArray(card["security"]) && card["security"].length > 0
      ? card["security"].filter(isObject)
      : Array.isArray(card["securityRequirements"]) && card["securityRequirements"].length > 0
        ? card["securityRequirements"].filter(isObject).map((r) => (isObject(r["schemes"]) ? r["schemes"] : {}))
        : Object.keys(schemes).map((name) => ({ [name]: [] }));
    return listed
      .map((requirement) => Object.keys(requirement).filter((name) => schemes[name]).map((name) => ({ name, scheme: schemes[name] as JsonObject })))
      .filter((alternative) => alternative.length > 0);
  }
  // 0.1.0: `authentication: { schemes: ["Bearer", ...] }`, any one of them.
  if (isObject(card["authentication"]) && Array.isArray(card["authentication"]["schemes"])) {
    return card["authentication"]["schemes"]
      .filter((s): s is string => typeof s === "string")
      .map((s) => [{ name: s, scheme: { type: "http", scheme: s.toLowerCase() } }]);
  }
  return [];
}

/**
 * Checks a request against the requirements: resolves to the principal the verifier returned, or throws an
 * A2AError (-32000) with `http` 401 (and the challenge) or 403.
 */
export async function authenticate(requirements: SecurityRequirements, options: AuthOptions | undefined, request: CoreRequest): Promise<unknown> {
  if (requirements.length === 0 || !options) return undefined;
  const realm = options.realm ?? "a2a";
  let forbidden: string | undefined;
  for (const alternative of requirements) {
    let principal: unknown;
    let passed = true;
    for (const { name, scheme } of alternative) {
      const credential = credentialFor(name, scheme, request);
      if (!credential) {
        passed = false;
        break;
      }
      const decision = await options.verify(credential, request);
      if (decision === true || (isObject(decision) && decision.allow === true)) {
        if (isObject(decision) && "principal" in decision) principal = decision.principal;
        continue;
      }
      passed = false;
      if (isObject(decision) && decision.allow === false && decision.status === 403) forbidden = decision.message ?? "Forbidden";
      break;
    }
    if (passed) return principal;
  }
  if (forbidden !== undefined) throw new A2AError(AUTH_ERROR_CODE, forbidden, undefined, { http: 403 });
  const challenges = requirements.flat().map(({ scheme }) => challengeFor(scheme, realm));
  throw new A2AError(AUTH_ERROR_CODE, "Unauthorized: missing or invalid credentials", undefined, { http: 401, challenge: [...new Set(challenges)].join(", ") });
}

function credentialFor(name: string, scheme: JsonObject, request: CoreRequest): Credential | undefined {
  const type = String(scheme["type"] ?? "");
  const authorization = request.headers["authorization"] ?? "";
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
  switch (type) {
    case "http": {
      const httpScheme = String(scheme["scheme"] ?? "bearer").toLowerCase();
      if (httpScheme === "basic") {
        const basic = /^Basic\s+(\S+)\s*$/i.exec(authorization)?.[1];
        if (!basic) return undefined;
        let decoded: string;
        try {
          decoded = new TextDecoder().decode(Uint8Array.from(atob(basic), (c) => c.charCodeAt(0)));
        } catch {
          return undefined;
        }
        return { scheme: name, type: "basic", value: decoded };
      }
      return bearer ? { scheme: name, type: httpScheme === "bearer" ? "bearer" : "other", value: bearer } : undefined;
    }
    case "apiKey": {
      const keyName = String(scheme["name"] ?? "");
      const where = String(scheme["in"] ?? "header");
      const value =
        where === "query"
          ? (request.query.get(keyName) ?? undefined)
          : where === "cookie"
            ? cookie(request.headers["cookie"], keyName)
            : request.headers[keyName.toLowerCase()];
      return value ? { scheme: name, type: "apiKey", value } : undefined;
    }
    case "oauth2":
    case "openIdConnect":
      return bearer ? { scheme: name, type, value: bearer } : undefined;
    case "mutualTLS":
      return { scheme: name, type: "mutualTLS", value: "" };
    default:
      return bearer ? { scheme: name, type: "other", value: bearer } : undefined;
  }
}

/** A security scheme as `{ type, ... }`: 1.0 wraps each in a oneof (`{ httpAuthSecurityScheme: { scheme } }`). */
function schemeOf(value: JsonObject): JsonObject {
  if (typeof value["type"] === "string") return value;
  const wrapped: Record<string, string> = {
    apiKeySecurityScheme: "apiKey",
    httpAuthSecurityScheme: "http",
    oauth2SecurityScheme: "oauth2",
    openIdConnectSecurityScheme: "openIdConnect",
    mtlsSecurityScheme: "mutualTLS",
  };
  for (const [key, type] of Object.entries(wrapped)) {
    const inner = value[key];
    if (isObject(inner)) return { ...inner, type, ...(type === "apiKey" && typeof inner["location"] === "string" ? { in: inner["location"] } : {}) };
  }
  return value;
}

function cookie(headerValue: string | undefined, name: string): string | undefined {
  for (const pair of (headerValue ?? "").split(";")) {
    const [key, ...rest] = pair.trim().split("=");
    if (key === name) return rest.join("=");
  }
  return undefined;
}

function challengeFor(scheme: JsonObject, realm: string): string {
  const type = String(scheme["type"] ?? "");
  if (type === "http" && String(scheme["scheme"] ?? "").toLowerCase() === "basic") return `Basic realm="${realm}"`;
  if (type === "apiKey") return `ApiKey realm="${realm}", name="${String(scheme["name"] ?? "")}", in="${String(scheme["in"] ?? "header")}"`;
  return `Bearer realm="${realm}"`;
}
