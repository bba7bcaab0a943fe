/**
 * The seam between the typed client and a protocol binding: {@link ClientTransport} is what every binding
 * (JSON-RPC, HTTP+JSON, gRPC) implements, {@link ClientTransportFactory} makes one for an interface of the
 * agent card, and {@link selectInterface} picks the card's interface the client can speak (1.0
 * `supportedInterfaces` in the card's order; 0.3 `url` + `preferredTransport`, then
 * `additionalInterfaces`; an option forces one binding).
 */

import { A2AResponseValidationError, type A2AErrorObject } from "./errors.js";
import { originOf, scopeFor, type CallOptions, type ClientOptions, type RequestScope } from "./http.js";
import type { ValidationIssue } from "../validation.js";

/** The binding names of agent cards (1.0 `protocolBinding`, 0.3 `transport` / `preferredTransport`). */
export type ProtocolBinding = "JSONRPC" | "HTTP+JSON" | "GRPC";

/**
 * One binding's way to call an agent. Methods are named as the version's method table names them
 * (`"message/send"`, `"SendMessage"`); params and results have the JSON shapes of that table (for 1.0,
 * ProtoJSON), whatever the wire format; errors are thrown as `checks.makeError(...)` (A2A errors, typed
 * by the generated client), {@link A2ATransportError} and its subclasses (network, HTTP, redirects,
 * limits) or {@link A2AResponseValidationError}.
 */
export interface ClientTransport {
  /** The binding this transport speaks. */
  readonly binding: ProtocolBinding;
  /** The URL (or gRPC target) calls go to. */
  readonly endpoint: string;
  /** A unary call: resolves to the method's result. */
  call(method: string, params: unknown, options?: CallOptions): Promise<unknown>;
  /**
   * A streaming call: the method's results in order; ends after a result for which `checks.isFinal` is
   * true, or when the agent ends the stream. Leaving the loop early cancels the call.
   */
  stream(method: string, params: unknown, options?: CallOptions): AsyncGenerator<unknown, void, undefined>;
}

/** The hooks the generated client gives a transport: validation, typed errors, end of a stream. */
export interface ResponseChecks {
  /**
   * Validates one whole JSON-RPC response of a method (`{ jsonrpc: "2.0", id, result }`; a binding
   * without an envelope wraps its result so, with id 1); returns the issues or null.
   */
  validate?(method: string, response: unknown): ValidationIssue[] | null;
  /**
   * Called on every response before validation, whether or not validation is on: fills in what the
   * sender was allowed to leave out (1.0's ProtoJSON drops fields at their default, REQUIRED ones
   * included). Same argument as `validate`; changes it in place.
   */
  normalize?(method: string, response: unknown): void;
  /** The error to throw for an A2A error (default: an A2AError with `method` set, receivedA2AError). A binding maps its errors to the A2A code first. */
  makeError?(method: string, error: A2AErrorObject): Error;
  /** Whether a streamed result is the last one (e.g. a status update with final: true, a direct Message, a task in a terminal state). */
  isFinal?(result: unknown): boolean;
  /**
   * The method that returns an agent card (the extended card: 1.0 `GetExtendedAgentCard`): its response text
   * is refused when an object in it names a member twice, as `fetchAgentCard` refuses such a public card
   * (`refuseDuplicateMembers` of card.ts): the card would be verified as one card and read as another (§8.4.3).
   */
  cardMethod?: string;
}

/**
 * The generated validators, for the client's `validation` option (client-validation.ts of a generated
 * output): the issues of a value of a definition (a response, the agent card), or null when it is valid or
 * no definition has that name. Opt-in: a client without it never imports the validators.
 */
export interface ClientValidation {
  check(definition: string, value: unknown): ValidationIssue[] | null;
}

/** What a factory knows about the interface it connects to, beyond the URL. */
export interface TransportContext {
  /** Origins that may receive credentials (the one the user configured, plus `trustedOrigins`). */
  trustedOrigins: readonly string[];
  /** Headers the protocol asks for on every request (1.0: `A2A-Version`); not credentials. */
  protocolHeaders: Readonly<Record<string, string>>;
  /** The interface's `tenant` (1.0), when it has one. */
  tenant?: string;
  /** The interface's `protocolVersion` (1.0), when it has one. */
  protocolVersion?: string;
}

/** Makes a transport of one binding; pass factories of other bindings in the client's `transports` option. */
export interface ClientTransportFactory {
  readonly binding: ProtocolBinding;
  create(endpoint: string, options: ClientOptions, checks: ResponseChecks, context: TransportContext): ClientTransport;
}

/**
 * The request scope of a transport (for `send()` of client/http.ts): `context.trustedOrigins` when a
 * factory was given a context, else the endpoint's origin and the option's `trustedOrigins` (the user
 * named the endpoint); the context's protocol headers.
 */
export function requestScope(endpoint: string, options: ClientOptions, context?: Partial<TransportContext>): RequestScope {
  const base = scopeFor(endpoint, options, context?.protocolHeaders);
  const trusted = context?.trustedOrigins;
  return trusted ? { ...base, trustedOrigins: new Set(trusted.map(originOf)) } : base;
}

/** One interface an agent card offers. */
export interface CardInterface {
  binding: string;
  url: string;
  tenant?: string;
  protocolVersion?: string;
}

/** Thrown when the card offers no interface the client can use (or not the forced one). */
export class A2AInterfaceSelectionError extends Error {
  override readonly name: string = "A2AInterfaceSelectionError";
  /** What the card offers, in its order. */
  readonly offered: readonly CardInterface[];

  constructor(message: string, offered: readonly CardInterface[]) {
    super(message);
    this.offered = offered;
  }
}

/**
 * The interfaces a card offers, in its order of preference: 1.0 `supportedInterfaces` (entries whose
 * `protocolVersion` is not `protocolVersion`'s major.minor are left out when one is given); 0.3 the main
 * `url` with `preferredTransport` (default JSONRPC), then `additionalInterfaces`; 0.1–0.2 `url` as JSON-RPC.
 * Binding names are upper-cased; duplicates are dropped.
 */
export function cardInterfaces(agentCard: object, protocolVersion?: string): CardInterface[] {
  const card = agentCard as Readonly<Record<string, unknown>>;
  const found: CardInterface[] = [];
  const add = (entry: CardInterface): void => {
    if (!found.some((f) => f.binding === entry.binding && f.url === entry.url && f.tenant === entry.tenant)) found.push(entry);
  };
  const wanted = protocolVersion?.split(".").slice(0, 2).join(".");
  const supported = card["supportedInterfaces"];
  if (Array.isArray(supported)) {
    for (const entry of supported) {
      if (!isRecord(entry) || typeof entry["url"] !== "string" || typeof entry["protocolBinding"] !== "string") continue;
      const version = typeof entry["protocolVersion"] === "string" ? entry["protocolVersion"] : undefined;
      if (wanted !== undefined && version !== undefined && version.split(".").slice(0, 2).join(".") !== wanted) continue;
      const item: CardInterface = { binding: entry["protocolBinding"].toUpperCase(), url: entry["url"] };
      if (typeof entry["tenant"] === "string" && entry["tenant"] !== "") item.tenant = entry["tenant"];
      if (version !== undefined) item.protocolVersion = version;
      add(item);
    }
    return found;
  }
  if (typeof card["url"] === "string") {
    const preferred = typeof card["preferredTransport"] === "string" ? card["preferredTransport"].toUpperCase() : "JSONRPC";
    add({ binding: preferred, url: card["url"] });
  }
  const additional = card["additionalInterfaces"];
  if (Array.isArray(additional)) {
    for (const entry of additional) {
      if (isRecord(entry) && typeof entry["url"] === "string" && typeof entry["transport"] === "string") {
        add({ binding: entry["transport"].toUpperCase(), url: entry["url"] });
      }
    }
  }
  return found;
}

/**
 * The first interface of the card whose binding the client has a transport for (`available`, in no
 * particular order: the card's order decides), or the first of the forced `binding`. Throws an
 * {@link A2AInterfaceSelectionError} naming what the card offers when nothing fits.
 */
export function selectInterface(
  card: object,
  available: readonly string[],
  options: { binding?: ProtocolBinding | undefined; protocolVersion?: string | undefined } = {},
): CardInterface {
  const offered = cardInterfaces(card, options.protocolVersion);
  const listing = offered.length === 0 ? "no interface" : offered.map((i) => `${i.binding} at ${i.url}`).join(", ");
  if (options.binding !== undefined) {
    const forced = offered.find((i) => i.binding === options.binding);
    if (!forced) throw new A2AInterfaceSelectionError(`the agent card offers no ${options.binding} interface (it offers ${listing})`, offered);
    if (!available.includes(forced.binding)) {
      throw new A2AInterfaceSelectionError(`the client has no ${options.binding} transport: pass its factory in the transports option`, offered);
    }
    return forced;
  }
  const chosen = offered.find((i) => available.includes(i.binding));
  if (!chosen) {
    throw new A2AInterfaceSelectionError(
      `the agent card offers ${listing}; this client speaks ${available.join(", ")} (pass other bindings' factories in the transports option)`,
      offered,
    );
  }
  return chosen;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A result of a binding without a JSON-RPC envelope, put through the checks as the JSON-RPC response it
 * would be (`{ jsonrpc, id, result }`): defaults filled in, then validated when `validateResponses` is on.
 */
export function checkedResult(checks: ResponseChecks, options: Pick<ClientOptions, "validateResponses">, method: string, result: unknown): unknown {
  const response = { jsonrpc: "2.0", id: 0, result };
  checks.normalize?.(method, response);
  if (options.validateResponses && checks.validate) {
    const issues = checks.validate(method, response);
    if (issues && issues.length > 0) throw new A2AResponseValidationError(method, issues);
  }
  return result;
}
