/**
 * Test harness for the generated servers: start the server of a version on an ephemeral 127.0.0.1
 * port with any of the four adapters and a scripted test agent, and check every response body and SSE
 * event with an Ajv compiled from the bundled schema at test time.
 */
import { existsSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { GENERATED, independentValidator } from "./project.js";
import { protoJsonProblem, restErrorProblem030 } from "./wire/rest-0.3.0.js";

export const FRAMEWORKS = ["node", "express", "fastify", "hono"] as const;
export type Framework = (typeof FRAMEWORKS)[number];

type Json = Record<string, unknown>;

/** The generated modules of a version, loaded as a user would import them. */
export interface VersionModules {
  version: string;
  protocol: {
    A2A_PROFILE: { methods: Record<string, string | undefined>; discriminatorField?: string };
    A2A_METHODS: Record<string, { responseType: string | null; streaming: boolean; requestType: string }>;
    WELL_KNOWN_AGENT_CARD_PATH: string;
  };
  client: typeof import("../../generated/a2a-0.3.0/client.js");
  core: typeof import("../../generated/a2a-0.3.0/server/core.js");
  node: typeof import("../../generated/a2a-0.3.0/server/node.js");
  express: typeof import("../../generated/a2a-0.3.0/server/express.js");
  fastify: typeof import("../../generated/a2a-0.3.0/server/fastify.js");
  hono: typeof import("../../generated/a2a-0.3.0/server/hono.js");
  honoNode: typeof import("../../generated/a2a-0.3.0/server/hono-node.js");
  /** The HTTP+JSON client transport and route table (every version has the runtime files). */
  /** The HTTP+JSON client transport, in the outputs of versions with that binding (0.3.0, 1.0.1) only. */
  clientRest: typeof import("../../generated/a2a-1.0.1/runtime/client/rest.js") | undefined;
  httpRoutes: typeof import("../../generated/a2a-1.0.1/runtime/wire/http-routes.js");
  clientProtocol: typeof import("../../generated/a2a-1.0.1/runtime/client/protocol.js");
  profile: typeof import("../../generated/a2a-1.0.1/runtime/profile.js");
  protocolShapes: typeof import("../../generated/a2a-1.0.1/runtime/protocol-shapes.js");
}

const loaded = new Map<string, VersionModules>();
export async function modules(version: string): Promise<VersionModules> {
  let m = loaded.get(version);
  if (!m) {
    const dir = join(GENERATED, `a2a-${version}`);
    const load = (file: string) => import(join(dir, file));
    m = {
      version,
      protocol: await load("protocol.ts"),
      client: await load("client.ts"),
      core: await load("server/core.ts"),
      node: await load("server/node.ts"),
      express: await load("server/express.ts"),
      fastify: await load("server/fastify.ts"),
      hono: await load("server/hono.ts"),
      honoNode: await load("server/hono-node.ts"),
      clientRest: existsSync(join(dir, "runtime/client/rest.ts")) ? await load("runtime/client/rest.ts") : undefined,
      httpRoutes: await load("runtime/wire/http-routes.ts"),
      clientProtocol: await load("runtime/client/protocol.ts"),
      profile: await load("runtime/profile.ts"),
      protocolShapes: await load("runtime/protocol-shapes.ts"),
    } as VersionModules;
    loaded.set(version, m);
  }
  return m;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A server core's service, called in-process (no HTTP), as the streaming and store tests drive it. */
export interface InProcessService {
  call(method: string, params: unknown, ctx: object): Promise<unknown>;
  stream(method: string, params: unknown, ctx: object): Promise<AsyncIterable<unknown>>;
  close(): Promise<void>;
}

/** The part of an executor's event publisher that the streaming tests' agents use. */
export interface ChunkPublisher {
  working(m?: string): void;
  completed(m?: string): void;
  artifact(a: Json, o?: { append?: boolean; lastChunk?: boolean }): void;
  textPart(t: string): Json;
}

/** The call context of an in-process 1.0.1 call (JSON-RPC binding, no credentials). */
export const inProcessContext = () => ({ headers: { "a2a-version": "1.0" }, signal: new AbortController().signal, binding: "JSONRPC" });

/**
 * What a 1.0.1 stream's reader builds of it: the task id, the part texts of the first artifact (from the
 * task, then each artifact update, appended or replacing), and the last status update's state.
 */
export async function streamedArtifact(events: AsyncIterable<unknown>): Promise<{ taskId: string | undefined; texts: string[]; state: unknown }> {
  let taskId: string | undefined;
  let texts: string[] = [];
  let state: unknown;
  const textsOf = (artifact: unknown) => (((artifact as Json | undefined)?.["parts"] as Array<{ text: string }> | undefined) ?? []).map((p) => p.text);
  for await (const event of events) {
    const { task, artifactUpdate, statusUpdate } = event as { task?: Json; artifactUpdate?: Json; statusUpdate?: Json };
    if (task) {
      taskId ??= task["id"] as string;
      texts = textsOf((task["artifacts"] as unknown[] | undefined)?.[0]);
    }
    if (artifactUpdate) texts = artifactUpdate["append"] ? [...texts, ...textsOf(artifactUpdate["artifact"])] : textsOf(artifactUpdate["artifact"]);
    if (statusUpdate) state = (statusUpdate["status"] as Json)["state"];
  }
  return { taskId, texts, state };
}
/**
 * Waits until a status timestamp taken now would differ from one taken before the call: tasks are
 * listed newest first by their millisecond timestamps and equal ones by id (1.0.1 §3.1.4), so a test
 * that expects creation order must not create two tasks within one millisecond.
 */
export const distinctTimestamp = () => sleep(2);

/**
 * The test agent. It answers by the text of the message:
 * "hello" → a direct reply; "task" → working, an artifact, completed; "ask" → input-required, then on
 * the follow-up completed; "stream" → three chunks of one artifact; "slow" → working, then waits to be
 * canceled (or 3 s); "fail" → throws an error with internals in it.
 */
export function testExecutor() {
  return {
    async execute(ctx: { text: string; task: unknown; signal: AbortSignal }, events: {
      reply(m: string): void;
      working(m?: string): void;
      completed(m?: string): void;
      inputRequired(m: string): void;
      artifact(a: Json, o?: { append?: boolean; lastChunk?: boolean }): void;
      textPart(t: string): Json;
    }) {
      const text = ctx.text.trim();
      if (ctx.task && text !== "ask") {
        events.completed(`got: ${text}`);
        return;
      }
      switch (text) {
        case "hello":
          events.reply("hello back");
          return;
        case "task":
          events.working("on it");
          events.artifact({ artifactId: "result", name: "result", parts: [events.textPart("the result")] });
          events.completed("done");
          return;
        case "ask":
          events.inputRequired("what is your name?");
          return;
        case "stream":
          events.working();
          events.artifact({ artifactId: "story", name: "story", parts: [events.textPart("once ")] }, { append: false });
          await sleep(5);
          events.artifact({ artifactId: "story", name: "story", parts: [events.textPart("upon ")] }, { append: true });
          await sleep(5);
          events.artifact({ artifactId: "story", name: "story", parts: [events.textPart("a time")] }, { append: true, lastChunk: true });
          events.completed("the end");
          return;
        case "slow": {
          events.working("working slowly");
          const until = Date.now() + 3000;
          while (!ctx.signal.aborted && Date.now() < until) await sleep(5);
          if (!ctx.signal.aborted) events.completed("finally");
          return;
        }
        case "fail":
          throw new Error("secret internals: db password is hunter2");
        default:
          events.completed(`echo: ${text}`);
      }
    },
  };
}

export interface RunningServer {
  baseUrl: string;
  rpcUrl: string;
  /** The HTTP+JSON interface's URL (its routes hang under it), when the card lists one. */
  restUrl: string;
  core: { close(): Promise<void>; bus: { listenerCount(id?: string): number } };
  close(): Promise<void>;
}

export interface ServerSetup {
  card?: Json;
  extendedCard?: Json;
  auth?: { verify: (credential: { value: string }) => unknown };
  maxBodyBytes?: number;
  bodyTimeoutMs?: number;
  heartbeatMs?: number;
  allow?: string[];
  streaming?: boolean;
  pushNotifications?: boolean;
  /** 1.0 and 0.3: the card lists an HTTP+JSON interface beside JSON-RPC (both at /a2a: JSON-RPC at the path, REST routes under it). */
  rest?: boolean;
  /** Another executor than testExecutor() (it gets the generated core module, for its error classes). */
  executor?: (core: VersionModules["core"]) => unknown;
  /** More server options (ServerOptions), passed as they are. */
  options?: Record<string, unknown>;
  /** Custom JSON-RPC methods (ServerOptions.methods). */
  methods?: Record<string, (params: unknown, context: { principal: unknown; request: { signal?: AbortSignal } }) => unknown>;
}

/**
 * The bearer token of test servers that declare an extended card without auth of their own: such a card
 * needs a security scheme (specification-1.0.1.md §13.3; the server refuses to start otherwise), so
 * `testCard` gives it the bearer scheme and `startServer` this verifier. Clients send `TEST_TOKEN`.
 */
export const TEST_TOKEN = "test-token";
export const TEST_AUTH = { verify: (credential: { value: string }) => credential.value === TEST_TOKEN };

/** A card of the version's shape (0.1.0 uses `authentication`, later versions `securitySchemes`). */
export function testCard(version: string, setup: ServerSetup = {}): Json {
  const card: Json = {
    name: "Test Agent",
    description: "An agent for a2a-codegen's tests",
    url: "http://127.0.0.1:1/a2a",
    version: "1.0.0",
    capabilities: { streaming: setup.streaming ?? true, pushNotifications: setup.pushNotifications ?? true },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "echo", name: "Echo", description: "Echoes", tags: ["test"] }],
  };
  const v1 = version.startsWith("1.");
  if (v1) {
    // 1.0: the endpoints are listed in supportedInterfaces; no `url`, no `protocolVersion` at the top.
    delete card.url;
    card.supportedInterfaces = [{ url: "http://127.0.0.1:1/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }];
    if (setup.rest) (card.supportedInterfaces as Json[]).push({ url: "http://127.0.0.1:1/a2a", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" });
  } else if (version !== "0.1.0") card.protocolVersion = version;
  // 0.3: the HTTP+JSON interface as an additional interface (its routes under the JSON-RPC path).
  if (setup.rest && !v1) card.additionalInterfaces = [{ url: "http://127.0.0.1:1/a2a", transport: "JSONRPC" }, { url: "http://127.0.0.1:1/a2a", transport: "HTTP+JSON" }];
  if (setup.auth || setup.extendedCard) {
    if (version === "0.1.0") card.authentication = { schemes: ["Bearer"] };
    else if (v1) {
      card.securitySchemes = { bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } } };
      card.securityRequirements = [{ schemes: { bearer: { list: [] } } }];
    } else {
      card.securitySchemes = { bearer: { type: "http", scheme: "bearer" } };
      card.security = [{ bearer: [] }];
    }
  }
  if (setup.extendedCard) {
    if (v1) (card.capabilities as Json).extendedAgentCard = true;
    else card.supportsAuthenticatedExtendedCard = true;
  }
  return { ...card, ...(setup.card ?? {}) };
}

export async function startServer(version: string, framework: Framework, setup: ServerSetup = {}): Promise<RunningServer> {
  const m = await modules(version);
  const card = testCard(version, setup);
  const core = m.core.createA2AServer({
    card: card as never,
    executor: (setup.executor ? setup.executor(m.core) : testExecutor()) as never,
    rpcPath: "/a2a",
    ...(setup.extendedCard ? { extendedCard: { ...card, ...setup.extendedCard } as never } : {}),
    ...(setup.auth ? { auth: setup.auth as never } : setup.extendedCard ? { auth: TEST_AUTH as never } : {}),
    ...(setup.methods ? { methods: setup.methods as never } : {}),
    ...(setup.maxBodyBytes ? { maxBodyBytes: setup.maxBodyBytes } : {}),
    ...(setup.bodyTimeoutMs !== undefined ? { bodyTimeoutMs: setup.bodyTimeoutMs } : {}),
    heartbeatMs: setup.heartbeatMs ?? 0,
    pushNotifications: { allow: setup.allow ?? ["127.0.0.1"], retries: 1, backoffMs: 5, timeoutMs: 2000 },
    logger: { error: () => undefined, warn: () => undefined },
    ...(setup.options ?? {}),
  });
  let port: number;
  let close: () => Promise<void>;
  if (framework === "node") {
    const server = m.node.createNodeServer(core);
    port = await listen(server);
    close = () => closeServer(server);
  } else if (framework === "express") {
    const express = (await import("express")).default;
    const app = express();
    app.use(m.express.a2aExpressRouter(core));
    app.use((_req, res) => void res.status(404).json({ error: "not a2a" }));
    const server = createServer(app);
    port = await listen(server);
    close = () => closeServer(server);
  } else if (framework === "fastify") {
    const Fastify = (await import("fastify")).default;
    const app = Fastify({ logger: false, forceCloseConnections: true });
    await app.register(m.fastify.a2aFastifyPlugin(core));
    await app.listen({ port: 0, host: "127.0.0.1" });
    port = (app.server.address() as AddressInfo).port;
    close = async () => {
      await app.close();
      await core.close();
    };
  } else {
    let server: Server | undefined;
    port = await new Promise<number>((resolve) => {
      server = m.honoNode.serveHono(core, { port: 0, hostname: "127.0.0.1" }, (info) => resolve(info.port)) as unknown as Server;
    });
    close = () => closeServer(server as Server);
  }
  const baseUrl = `http://127.0.0.1:${port}`;
  if (Array.isArray(card.supportedInterfaces)) for (const entry of card.supportedInterfaces as Json[]) entry.url = `${baseUrl}/a2a`;
  else card.url = `${baseUrl}/a2a`;
  if (Array.isArray(card.additionalInterfaces)) for (const entry of card.additionalInterfaces as Json[]) entry.url = `${baseUrl}/a2a`;
  return { baseUrl, rpcUrl: `${baseUrl}/a2a`, restUrl: `${baseUrl}/a2a`, core: core as unknown as RunningServer["core"], close };
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections?.();
    server.close(() => resolve());
  });
}

// ---------------------------------------------------------------------------------------------------
// Independent checking of everything the server sends

export interface Captured {
  method: string;
  status: number;
  bodies: unknown[];
  /** "HTTP+JSON" for bodies of the REST binding (results bare, errors google.rpc.Status); JSON-RPC otherwise. */
  binding?: string;
  /** 0.3.0's HTTP+JSON: the rpc, and the bodies as they were on the wire (the proto's shapes; `bodies` are translated). */
  rpc?: string;
  wire?: unknown[];
}

/**
 * The data of each event of an SSE body, whatever other fields its block has (`id:` first, with the
 * store's event ids): the `data:` lines of each block joined by newlines; blocks with none left out.
 */
export function sseData(text: string): string[] {
  return text
    .split(/\r?\n\r?\n/)
    .map((block) => block.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, "")).join("\n"))
    .filter((data) => data !== "");
}

/** The bodies of a response: its JSON, or the data of each SSE event. */
async function bodiesOf(response: Response, text: string): Promise<unknown[]> {
  const type = response.headers.get("content-type") ?? "";
  if (type.includes("text/event-stream")) return sseData(text).map((data) => JSON.parse(data) as unknown);
  return text ? [JSON.parse(text) as unknown] : [];
}

/**
 * The REST counterpart of capturingFetch: the method is read back from the verb and path through the
 * version's route table (relative to the interface URL `base`).
 */
export function capturingRestFetch(log: Array<Promise<Captured>>, m: VersionModules, base: string) {
  const table = new m.httpRoutes.RouteTable((m.protocol as unknown as { A2A_HTTP_ROUTES: never[] }).A2A_HTTP_ROUTES);
  const prefix = new URL(base).pathname.replace(/\/+$/, "");
  return async (input: string, init: RequestInit): Promise<Response> => {
    const response = await fetch(input, init);
    const path = new URL(input).pathname.slice(prefix.length);
    const hit = table.matching(path).find((x) => x.compiled.route.verb === (init.method ?? "GET"));
    const method = hit?.compiled.route.method ?? "";
    if (!response.body || !method) return response;
    const [mine, theirs] = response.body.tee();
    // 0.3.0 carries the proto's shapes: the results are checked as translated (and, raw, against the proto).
    const shapes = (m.protocol as unknown as { A2A_WIRE_SHAPES?: { resultFromWire(rpc: string, wire: unknown): unknown } }).A2A_WIRE_SHAPES;
    const rpc = shapes ? (hit?.compiled.route as { rpc?: string } | undefined)?.rpc : undefined;
    log.push(
      new Response(mine).text().then(async (text) => {
        const bodies = await bodiesOf(response, text);
        if (!shapes || rpc === undefined) return { method, status: response.status, bodies, binding: "HTTP+JSON" };
        const translated = response.status >= 400 ? bodies : bodies.map((b) => (b && typeof b === "object" && "code" in b && "message" in b ? b : shapes.resultFromWire(rpc, b)));
        return { method, status: response.status, bodies: translated, wire: bodies, rpc, binding: "HTTP+JSON" };
      }),
    );
    return new Response(theirs, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** What is wrong with a REST error body (§11.6: google.rpc.Status with code, status, message, details with @type), or undefined. */
export function restErrorProblem(body: unknown, status: number): string | undefined {
  const error = (body as { error?: Json } | undefined)?.error;
  if (!error || typeof error !== "object") return "no error object";
  if (error.code !== status) return `error.code ${String(error.code)} is not the HTTP status ${status}`;
  if (typeof error.status !== "string" || !/^[A-Z_]+$/.test(error.status)) return "error.status is not a google.rpc code name";
  if (typeof error.message !== "string" || error.message === "") return "no error.message";
  if (!Array.isArray(error.details) || !error.details.every((d) => d && typeof d === "object" && typeof (d as Json)["@type"] === "string")) return "details is not a list of objects with @type";
  return undefined;
}

/**
 * A fetch that records every JSON-RPC response body and SSE event (the client still gets the
 * response), so that each can be checked against the schema independently.
 */
export function capturingFetch(log: Array<Promise<Captured>>) {
  return async (input: string, init: RequestInit): Promise<Response> => {
    const response = await fetch(input, init);
    let method = "";
    try {
      method = (JSON.parse(String(init.body ?? "{}")) as { method?: string }).method ?? "";
    } catch {
      method = "";
    }
    if (!response.body || !method) return response;
    const [mine, theirs] = response.body.tee();
    const type = response.headers.get("content-type") ?? "";
    log.push(
      new Response(mine).text().then((text) => {
        if (type.includes("text/event-stream")) {
          const bodies = text
            .split(/\r?\n\r?\n/)
            .map((block) => block.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, "")).join("\n"))
            .filter((data) => data !== "")
            .map((data) => JSON.parse(data) as unknown);
          return { method, status: response.status, bodies };
        }
        return { method, status: response.status, bodies: text ? [JSON.parse(text) as unknown] : [] };
      }),
    );
    return new Response(theirs, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** Checks each captured body against the method's response definition, with an Ajv built from the bundled schema. */
export async function checkCaptured(version: string, log: Array<Promise<Captured>>): Promise<{ checked: number; problems: string[] }> {
  const m = await modules(version);
  const problems: string[] = [];
  let checked = 0;
  for (const captured of await Promise.all(log)) {
    const responseType = m.protocol.A2A_METHODS[captured.method]?.responseType;
    if (!responseType) continue;
    const validate = independentValidator(version, responseType);
    if (captured.rpc !== undefined && captured.wire) {
      // 0.3.0 over HTTP+JSON: errors are the A2A error object; results the proto's JSON, checked against the proto too.
      for (const [i, wire] of captured.wire.entries()) {
        const isError = captured.status >= 400 || (wire && typeof wire === "object" && "code" in wire && "message" in wire);
        const problem = isError ? restErrorProblem030(wire) : protoJsonProblem(captured.rpc, wire);
        if (problem) problems.push(`${captured.method} (wire): ${problem} in ${JSON.stringify(wire).slice(0, 300)}`);
        checked++;
        if (isError) continue;
        const wrapped = { jsonrpc: "2.0", id: 1, result: captured.bodies[i] };
        if (!validate(wrapped)) problems.push(`${captured.method}: ${JSON.stringify(validate.errors?.slice(0, 3))} in ${JSON.stringify(captured.bodies[i]).slice(0, 300)}`);
      }
      continue;
    }
    for (const body of captured.bodies) {
      checked++;
      if (captured.binding === "HTTP+JSON") {
        // REST: a result is checked as the JSON-RPC response it would be; an error body by the §11.6 shape.
        const errorBody = captured.status >= 400 || (body && typeof body === "object" && Object.keys(body).length === 1 && "error" in body);
        if (errorBody) {
          const problem = restErrorProblem(body, captured.status >= 400 ? captured.status : ((body as { error: Json }).error.code as number));
          if (problem) problems.push(`${captured.method}: ${problem} in ${JSON.stringify(body).slice(0, 300)}`);
          continue;
        }
        const wrapped = { jsonrpc: "2.0", id: 1, result: body };
        if (!validate(wrapped)) problems.push(`${captured.method}: ${JSON.stringify(validate.errors?.slice(0, 3))} in ${JSON.stringify(body).slice(0, 300)}`);
        continue;
      }
      if (!validate(body)) problems.push(`${captured.method}: ${JSON.stringify(validate.errors?.slice(0, 3))} in ${JSON.stringify(body).slice(0, 300)}`);
    }
  }
  log.length = 0;
  return { checked, problems };
}

// ---------------------------------------------------------------------------------------------------
// A webhook receiver on 127.0.0.1

export interface WebhookReceiver {
  url: string;
  received: Array<{ headers: IncomingMessage["headers"]; body: Json }>;
  close(): Promise<void>;
  waitFor(predicate: (body: Json) => boolean, timeoutMs?: number): Promise<{ headers: IncomingMessage["headers"]; body: Json }>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: WebhookReceiver["received"] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Json });
      res.writeHead(200).end();
    });
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () => closeServer(server),
    async waitFor(predicate, timeoutMs = 3000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const hit = received.find((r) => predicate(r.body));
        if (hit) return hit;
        if (Date.now() > until) throw new Error(`no webhook call matched; got ${JSON.stringify(received.map((r) => r.body)).slice(0, 500)}`);
        await sleep(10);
      }
    },
  };
}

/** POSTs raw bytes to a server, for the tests of malformed input. */
export async function rawPost(url: string, body: string | Uint8Array, headers: Record<string, string> = { "content-type": "application/json" }) {
  const response = await fetch(url, { method: "POST", body, headers });
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json: json as Json | Json[] | undefined };
}

/** Whether `actual` has everything `expected` has (arrays element by element): the JSON-RPC answer checks. */
export function subset(actual: unknown, expected: unknown): boolean {
  if (Array.isArray(expected)) return Array.isArray(actual) && expected.length === actual.length && expected.every((e, i) => subset(actual[i], e));
  if (expected && typeof expected === "object") {
    if (!actual || typeof actual !== "object") return false;
    return Object.entries(expected).every(([k, v]) => subset((actual as Record<string, unknown>)[k], v));
  }
  return Object.is(actual, expected);
}
