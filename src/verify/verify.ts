/**
 * `a2a-codegen verify <agent-url>`: a conformance check of a live A2A agent. It reads the agent card, picks
 * the checks of the version the card declares (1.0: `supportedInterfaces`; 0.3: top-level
 * `protocolVersion`), then, for each binding the card lists that verify has checks for, calls the agent and
 * validates every answer against the version's schema (the same validators the generated code uses).
 * Safe by default: the only tasks it creates come from its own messages (marked in their metadata and
 * text), and it cancels every task it started that is not finished.
 */
import { bundledIR } from "../load/protocol.js";
import { checksOf, CHECKS, CHECKS_030, type CheckDeclaration, type CheckedVersion, type CheckResult, type Level, type Scope } from "./checks.js";
import { credentialsFor, credentialValues, declaresSecurity, type Credential } from "./credentials.js";
import { DIALECT_0_3, DIALECT_1_0 } from "./dialects.js";
import { HttpProbe, type Fetch } from "./http-probe.js";
import { isObject, Schemas, Skip, fail, type Json, type Runner } from "./schemas.js";

export { VERIFY_MARK } from "./schemas.js";

export interface VerifyOptions {
  /** Only checks of these levels (default: both). */
  levels?: readonly Level[];
  /** Only these bindings (default: every one the card lists); the card checks always run. */
  bindings?: readonly Scope[];
  /** The fetch to use (default: the platform's). */
  fetch?: Fetch;
  /**
   * Credentials (`--auth`): the first is sent with every call; a second one enables the owner-scoping
   * checks. `Name: value` is that header; a bare value goes where the card's security scheme says.
   */
  auth?: readonly string[];
  /** How long an answer may take, a stream's end included (ms; default 10 000). */
  timeoutMs?: number;
}

/** How long an answer may take by default (a stream's end included). */
export const DEFAULT_TIMEOUT_MS = 10_000;

export interface VerifyReport {
  readonly agentUrl: string;
  /** The version whose checks ran (1.0.1 when the card could not be read). */
  readonly version: CheckedVersion;
  readonly results: readonly CheckResult[];
  /** What the card lists that verify did not check, and why. */
  readonly notes: readonly string[];
  /** Whether a MUST check failed. */
  readonly failed: boolean;
}

/** A 1.0 card lists `supportedInterfaces`; 0.x cards have a top-level `protocolVersion`. */
function versionOfCard(card: Json): { checked: CheckedVersion } | { unsupported: string } {
  if (Array.isArray(card["supportedInterfaces"])) return { checked: "1.0.1" };
  const declared = typeof card["protocolVersion"] === "string" ? card["protocolVersion"] : "";
  if (/^0\.3(\.|$)/.test(declared)) return { checked: "0.3.0" };
  return { unsupported: declared === "" ? "the card has neither supportedInterfaces (1.0) nor a protocolVersion (0.x)" : `protocolVersion ${JSON.stringify(declared)}: verify has checks for A2A 1.0 and 0.3 agents` };
}

export async function verifyAgent(agentUrl: string, options: VerifyOptions = {}): Promise<VerifyReport> {
  const credentialsGiven = credentialValues(options.auth ?? []);
  const doFetch: Fetch = options.fetch ?? ((input, init) => fetch(input, init));
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const results: CheckResult[] = [];
  const notes: string[] = [];
  const wanted = (c: CheckDeclaration) => (options.levels === undefined || options.levels.includes(c.level)) && (c.scope === "card" || options.bindings === undefined || options.bindings.includes(c.scope));
  const run: Runner = async (declaration, body) => {
    if (!wanted(declaration)) return false;
    try {
      await body();
      results.push({ ...declaration, outcome: "pass", detail: "" });
      return true;
    } catch (error) {
      // A Failure is what the check saw; any other error (the agent unreachable, an answer that is not JSON) fails it too.
      const detail = error instanceof Error ? (error.name === "TimeoutError" ? `no answer within ${timeoutMs / 1000} s` : error.message) : String(error);
      results.push({ ...declaration, outcome: error instanceof Skip ? "skip" : "fail", detail });
      return false;
    }
  };
  const skipAll = (version: CheckedVersion, scope: Scope | undefined, reason: string) => {
    for (const c of checksOf(version).filter((x) => (scope === undefined ? x.id !== "card.fetch" : x.scope === scope) && wanted(x))) results.push({ ...c, outcome: "skip", detail: reason });
  };
  const finish = (version: CheckedVersion): VerifyReport => ({ agentUrl, version, results, notes, failed: results.some((r) => r.level === "MUST" && r.outcome === "fail") });

  // The card, below the agent's URL, path included (an agent mounted at /a2a/ has its card at /a2a/.well-known/…).
  const cardUrl = new URL(".well-known/agent-card.json", agentUrl.endsWith("/") ? agentUrl : `${agentUrl}/`).href;
  let card: Json | undefined;
  let cardResponse: Response | undefined;
  let fetchProblem = "";
  try {
    cardResponse = await doFetch(cardUrl, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(timeoutMs) });
    if (cardResponse.status !== 200) fail(`GET ${cardUrl}: HTTP ${cardResponse.status}`);
    const text = await cardResponse.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      fail(`GET ${cardUrl}: the body is not JSON: ${JSON.stringify(text.slice(0, 120))}`);
    }
    if (!isObject(body)) fail("the card is not a JSON object");
    card = body as Json;
  } catch (error) {
    fetchProblem = error instanceof Error ? (error.name === "TimeoutError" ? `GET ${cardUrl}: no answer within ${timeoutMs / 1000} s` : error.message) : String(error);
    // fetch's "fetch failed" says why only in its cause (connect ECONNREFUSED, a TLS failure, ...).
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined;
    if (cause) fetchProblem += ` (${cause})`;
  }
  const version = card === undefined ? undefined : versionOfCard(card);
  const checked: CheckedVersion = version !== undefined && "checked" in version ? version.checked : "1.0.1";
  const cardFetch = checked === "1.0.1" ? CHECKS.cardFetch : CHECKS_030.cardFetch;
  await run(cardFetch, () => {
    if (card === undefined) fail(fetchProblem);
  });
  if (card === undefined || version === undefined) {
    skipAll(checked, undefined, "no agent card");
    return finish(checked);
  }
  if ("unsupported" in version) {
    skipAll(checked, undefined, version.unsupported);
    notes.push(version.unsupported);
    return finish(checked);
  }
  const schemas = new Schemas(bundledIR(checked));
  const credentials = credentialsFor(card, credentialsGiven);
  const context = { card, cardResponse: cardResponse as Response, schemas, credentials, run, skipAll, notes, doFetch, agentUrl, bindings: options.bindings, timeoutMs };
  if (checked === "1.0.1") await verify10(context);
  else await verify03(context);
  return finish(checked);
}

interface Context {
  readonly card: Json;
  readonly cardResponse: Response;
  readonly schemas: Schemas;
  readonly credentials: readonly Credential[];
  readonly run: Runner;
  readonly skipAll: (version: CheckedVersion, scope: Scope | undefined, reason: string) => void;
  readonly notes: string[];
  readonly doFetch: Fetch;
  readonly agentUrl: string;
  readonly bindings: readonly Scope[] | undefined;
  readonly timeoutMs: number;
}

const streamingOf = (card: Json) => isObject(card["capabilities"]) && card["capabilities"]["streaming"] === true;
/** The protocol's headers with a credential's. */
const withCredential = (headers: Record<string, string>, credential: Credential | undefined) => ({ ...headers, ...(credential?.headers ?? {}) });
const bindingWanted = (c: Context, scope: Scope) => c.bindings === undefined || c.bindings.includes(scope);

async function verify10(c: Context): Promise<void> {
  const { card, run } = c;
  await run(CHECKS.cardSchema, () => c.schemas.expect("AgentCard", card, "the card"));
  const interfaces = (Array.isArray(card["supportedInterfaces"]) ? card["supportedInterfaces"] : []).filter(isObject);
  await run(CHECKS.cardBindings, () => {
    if (interfaces.length === 0) fail("the card lists no supportedInterfaces");
    for (const entry of interfaces) {
      const binding = String(entry["protocolBinding"] ?? "");
      if (!/^[A-Z][A-Z0-9+_-]*$/.test(binding)) fail(`interface ${JSON.stringify(entry["url"])}: protocolBinding ${JSON.stringify(binding)} is not a binding name`);
      if (binding !== "GRPC" && !/^https?:\/\//.test(String(entry["url"]))) fail(`interface ${binding}: url ${JSON.stringify(entry["url"])} is not an absolute http(s) URL`);
    }
  });
  await run(CHECKS.cardVersion, () => {
    for (const entry of interfaces) {
      const version = String(entry["protocolVersion"] ?? "");
      if (!/^\d+\.\d+$/.test(version)) fail(`interface ${String(entry["protocolBinding"])}: protocolVersion ${JSON.stringify(version)} is not Major.Minor`);
    }
  });
  await run(CHECKS.cardCacheControl, () => {
    const value = c.cardResponse.headers.get("cache-control") ?? "";
    if (!/max-age=\d+/.test(value)) fail(value === "" ? "no Cache-Control header" : `Cache-Control: ${value} has no max-age`);
  });
  await run(CHECKS.cardEtag, () => {
    if (!c.cardResponse.headers.get("etag")) fail("no ETag header");
  });

  const streaming = streamingOf(card);
  const owner = { secured: declaresSecurity(card) };
  // The 1.0 interfaces (a card may list a 0.3 interface beside them: not checked here).
  const entryOf = (scope: Scope) => interfaces.find((i) => i["protocolBinding"] === scope && /^1\./.test(String(i["protocolVersion"] ?? "1.0")));
  for (const entry of interfaces.filter((i) => !/^1\./.test(String(i["protocolVersion"] ?? "1.0")))) {
    c.notes.push(`the card also lists a ${String(entry["protocolVersion"])} ${String(entry["protocolBinding"])} interface (${String(entry["url"])}): not checked (verify checks a 1.0 card's 1.0 interfaces)`);
  }
  for (const scope of ["JSONRPC", "HTTP+JSON"] as const) {
    if (!bindingWanted(c, scope)) continue;
    const entry = entryOf(scope);
    if (entry === undefined) {
      c.skipAll("1.0.1", scope, `the card lists no 1.0 ${scope} interface`);
      continue;
    }
    const protocol = { "content-type": "application/json", "a2a-version": String(entry["protocolVersion"] ?? "1.0") };
    const probe = new HttpProbe({
      scope,
      dialect: DIALECT_1_0,
      endpoint: new URL(String(entry["url"]), c.agentUrl).href,
      headers: withCredential(protocol, c.credentials[0]),
      headersB: c.credentials[1] ? withCredential(protocol, c.credentials[1]) : undefined,
      fetch: c.doFetch,
      schemas: c.schemas,
      timeoutMs: c.timeoutMs,
    });
    await probe.runAll(run, streaming, owner);
  }
  if (!bindingWanted(c, "GRPC")) return;
  const grpcEntry = entryOf("GRPC");
  if (grpcEntry === undefined) return c.skipAll("1.0.1", "GRPC", "the card lists no 1.0 GRPC interface");
  let probeModule: typeof import("./grpc-probe.js");
  try {
    probeModule = await import("./grpc-probe.js");
  } catch (error) {
    return c.skipAll("1.0.1", "GRPC", `cannot load @grpc/grpc-js (install it to check the gRPC interface): ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
  }
  const protocol = { "a2a-version": String(grpcEntry["protocolVersion"] ?? "1.0") };
  const probe = new probeModule.GrpcProbe({
    target: String(grpcEntry["url"]),
    tenant: typeof grpcEntry["tenant"] === "string" && grpcEntry["tenant"] !== "" ? grpcEntry["tenant"] : undefined,
    spec: probeModule.grpcSpecOf(c.schemas.ir),
    headers: withCredential(protocol, c.credentials[0]),
    headersB: c.credentials[1] ? withCredential(protocol, c.credentials[1]) : undefined,
    schemas: c.schemas,
    timeoutMs: c.timeoutMs,
  });
  try {
    await probe.runAll(run, streaming, owner);
  } finally {
    probe.close();
  }
}

const KNOWN_TRANSPORTS = new Set(["JSONRPC", "GRPC", "HTTP+JSON"]);

async function verify03(c: Context): Promise<void> {
  const { card, run } = c;
  await run(CHECKS_030.cardSchema, () => c.schemas.expect("AgentCard", card, "the card"));
  const additional = (Array.isArray(card["additionalInterfaces"]) ? card["additionalInterfaces"] : []).filter(isObject);
  const preferred = typeof card["preferredTransport"] === "string" ? card["preferredTransport"] : undefined;
  const declared = [{ transport: preferred ?? "JSONRPC", url: card["url"] }, ...additional.map((i) => ({ transport: i["transport"], url: i["url"] }))];
  await run(CHECKS_030.cardBindings, () => {
    for (const { transport, url } of declared) {
      if (typeof transport !== "string" || !/^[A-Z][A-Z0-9+_-]*$/.test(transport)) fail(`interface ${JSON.stringify(url)}: transport ${JSON.stringify(transport)} is not a transport name`);
      if (transport !== "GRPC" && !/^https?:\/\//.test(String(url))) fail(`interface ${String(transport)}: url ${JSON.stringify(url)} is not an absolute http(s) URL`);
    }
  });
  await run(CHECKS_030.cardPreferredTransport, () => {
    if (preferred === undefined) fail("the card has no preferredTransport (§5.6.1 calls it REQUIRED)");
  });
  for (const transport of new Set(declared.map((d) => String(d.transport)))) {
    if (transport !== "JSONRPC" && KNOWN_TRANSPORTS.has(transport)) c.notes.push(`the card lists a 0.3 ${transport} interface: verify checks 0.3 agents over JSON-RPC only`);
  }
  if (!bindingWanted(c, "JSONRPC")) return;
  const rpc = declared.find((d) => d.transport === "JSONRPC" && typeof d.url === "string");
  if (rpc === undefined) return c.skipAll("0.3.0", "JSONRPC", "the card lists no JSON-RPC interface");
  const protocol = { "content-type": "application/json" };
  const probe = new HttpProbe({
    scope: "JSONRPC",
    dialect: DIALECT_0_3,
    endpoint: new URL(String(rpc.url), c.agentUrl).href,
    headers: withCredential(protocol, c.credentials[0]),
    headersB: c.credentials[1] ? withCredential(protocol, c.credentials[1]) : undefined,
    fetch: c.doFetch,
    schemas: c.schemas,
    timeoutMs: c.timeoutMs,
  });
  await probe.runAll(run, streamingOf(card), { secured: declaresSecurity(card) });
}
