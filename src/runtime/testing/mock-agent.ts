/**
 * The scriptable mock agent of the test kit, for testing code that CALLS an agent: per method, a canned
 * result, a stream (a list of events, each after an optional delay) or an A2A error, and every call recorded
 * to assert on. It answers web Requests the way an agent's JSON-RPC and HTTP+JSON bindings do (envelopes,
 * error bodies and statuses, Server-Sent Events), so the generated client, `fetch` and MSW can all talk to
 * it; it serves the agent card it was given at the version's well-known path. Web platform globals only:
 * it runs in Node and in browsers alike.
 */
import { isObject, type JsonObject } from "../json.js";
import type { ProtocolProfile } from "../profile.js";
import { RouteTable, type HttpRoute } from "../wire/http-routes.js";
import { formatSseEvent } from "../wire/sse.js";
import type { FetchLike } from "../client/fetch.js";

/** The origin test agents answer on by default (the mock, the in-memory transport, the MSW handlers); any URL works. */
export const TEST_AGENT_ORIGIN = "http://agent.test";

/** An A2A error as the mock answers it: the version's code, a message and optional data. */
export interface MockError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** One event of a scripted stream: a result (or an error that ends the stream), after `delayMs`. */
export type MockStreamEvent = { readonly result: unknown; readonly delayMs?: number } | { readonly error: MockError; readonly delayMs?: number };

/** What the mock answers to one call. */
export type MockReply = { readonly result: unknown } | { readonly error: MockError } | { readonly stream: readonly MockStreamEvent[] };

/** A recorded call: the method, its params as sent, the binding and the request headers (names lower-cased). */
export interface RecordedCall {
  readonly method: string;
  readonly params: unknown;
  readonly binding: "JSONRPC" | "HTTP+JSON";
  readonly headers: Readonly<Record<string, string>>;
}

/** A reply, or a function of the call that makes one. */
export type MockScript = MockReply | ((call: RecordedCall) => MockReply | Promise<MockReply>);

/** What the mock needs to know of the version (the generated `testing/index.ts` passes its tables). */
export interface MockWire {
  readonly profile: ProtocolProfile;
  /** The version's methods, by name: which ones stream. */
  readonly methods: { readonly [method: string]: { readonly streaming: boolean } };
  /** The HTTP+JSON routes, for versions whose HTTP+JSON binding carries the JSON-RPC shapes (1.0). */
  readonly httpRoutes?: readonly HttpRoute[];
  /** The HTTP status of each A2A error code on HTTP+JSON. */
  readonly errorStatus?: { readonly [code: number]: { readonly http: number; readonly grpc: string } };
  /** Where the card is served (`/.well-known/agent-card.json`). */
  readonly cardPath: string;
}

export interface MockAgentOptions {
  /** The agent card served at the well-known path. */
  readonly card: object;
  readonly wire: MockWire;
  /** The path of the JSON-RPC endpoint (default `/`); any other POST that is not an HTTP+JSON route is refused. */
  readonly jsonRpcPath?: string;
  /** The path prefix of the HTTP+JSON routes (default: none, the routes from the origin's root). */
  readonly restPrefix?: string;
}

/** The JSON-RPC code of an unscripted method: the mock says which method had no script. */
const METHOD_NOT_FOUND = -32601;

export class MockAgent {
  /** Every call received, in order. */
  readonly calls: RecordedCall[] = [];
  /** A `fetch` answered by the mock: pass it as the client's `fetch` option. */
  readonly fetch: FetchLike = async (input, init) => this.handle(new Request(input, init));
  private readonly scripts = new Map<string, MockScript>();
  private readonly queued = new Map<string, MockScript[]>();
  private readonly routes: RouteTable | undefined;

  private readonly options: MockAgentOptions;

  constructor(options: MockAgentOptions) {
    this.options = options;
    this.routes = options.wire.httpRoutes !== undefined ? new RouteTable(options.wire.httpRoutes) : undefined;
  }

  /** Answers every call of `method` with `script` (until replaced); a `once` script is used first. */
  on(method: string, script: MockScript): this {
    this.scripts.set(method, script);
    return this;
  }

  /** Answers the next call of `method` with `script`, then falls back to later `once` scripts or `on`. */
  once(method: string, script: MockScript): this {
    const list = this.queued.get(method) ?? [];
    list.push(script);
    this.queued.set(method, list);
    return this;
  }

  /** The calls of one method, in order. */
  callsOf(method: string): RecordedCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  /** Forgets the recorded calls and every script. */
  reset(): void {
    this.calls.length = 0;
    this.scripts.clear();
    this.queued.clear();
  }

  /** Answers one web Request: the card, a JSON-RPC call or an HTTP+JSON call. */
  async handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (request.method === "GET" && url.pathname === this.options.wire.cardPath) return json(200, this.options.card);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => (headers[name.toLowerCase()] = value));
    if (request.method === "POST" && url.pathname === (this.options.jsonRpcPath ?? "/")) return this.jsonRpc(await request.text(), headers);
    const rest = await this.restCall(request, url, headers);
    if (rest !== undefined) return rest;
    return json(404, { error: { code: 404, status: "NOT_FOUND", message: `MockAgent: no route for ${request.method} ${url.pathname}`, details: [] } });
  }

  private async reply(call: RecordedCall): Promise<MockReply> {
    this.calls.push(call);
    const queue = this.queued.get(call.method);
    const script = queue !== undefined && queue.length > 0 ? queue.shift() : this.scripts.get(call.method);
    if (script === undefined) return { error: { code: METHOD_NOT_FOUND, message: `MockAgent: no script for ${call.method}` } };
    return typeof script === "function" ? script(call) : script;
  }

  private async jsonRpc(text: string, headers: Record<string, string>): Promise<Response> {
    let envelope: unknown;
    try {
      envelope = JSON.parse(text);
    } catch {
      return json(200, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Invalid JSON payload" } });
    }
    if (!isObject(envelope) || envelope["jsonrpc"] !== "2.0" || typeof envelope["method"] !== "string") {
      return json(200, { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Request payload validation error" } });
    }
    const id = envelope["id"] ?? null;
    const method = envelope["method"];
    const reply = await this.reply({ method, params: envelope["params"], binding: "JSONRPC", headers });
    const streaming = this.options.wire.methods[method]?.streaming === true;
    const envelopeOf = (r: { result: unknown } | { error: MockError }) => ("error" in r ? { jsonrpc: "2.0", id, error: r.error } : { jsonrpc: "2.0", id, result: r.result });
    if ("stream" in reply) return sse(reply.stream, envelopeOf);
    // A streaming method answers a result as a one-event stream; an error as a JSON-RPC error (as agents do).
    if (streaming && "result" in reply) return sse([reply], envelopeOf);
    return json(200, envelopeOf(reply));
  }

  private async restCall(request: Request, url: URL, headers: Record<string, string>): Promise<Response | undefined> {
    if (this.routes === undefined) return undefined;
    const prefix = this.options.restPrefix ?? "";
    if (!url.pathname.startsWith(prefix)) return undefined;
    const hit = this.routes.matching(url.pathname.slice(prefix.length)).find((h) => h.compiled.route.verb === request.method);
    if (hit === undefined) return undefined;
    const matched = RouteTable.values(hit.compiled, hit.match);
    const route = hit.compiled.route;
    const params: JsonObject = {};
    const text = route.body !== undefined ? await request.text() : "";
    if (text !== "") {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return json(400, { error: { code: 400, status: "INVALID_ARGUMENT", message: "Invalid JSON body", details: [] } });
      }
      if (route.body === "*" && isObject(body)) Object.assign(params, body);
      else if (route.body !== undefined) params[route.body] = body as JsonObject;
    }
    for (const field of Object.keys(route.query ?? {})) {
      const value = url.searchParams.get(field);
      if (value !== null) params[field] = route.query?.[field] === "integer" ? Number(value) : value;
    }
    if ("values" in matched) Object.assign(params, matched.values);
    const reply = await this.reply({ method: route.method, params, binding: "HTTP+JSON", headers });
    if ("stream" in reply) return sse(reply.stream, (r) => ("error" in r ? this.restError(r.error).body : r.result));
    if ("error" in reply) {
      const { status, body } = this.restError(reply.error);
      return json(status, body);
    }
    if (this.options.wire.methods[route.method]?.streaming === true) return sse([reply], (r) => ("error" in r ? this.restError(r.error).body : r.result));
    return json(200, reply.result);
  }

  /** An A2A error as HTTP+JSON answers it: google.rpc.Status with an ErrorInfo naming the error (1.0.1 §11.6). */
  private restError(error: MockError): { status: number; body: JsonObject } {
    const status = this.options.wire.errorStatus?.[error.code] ?? { http: 500, grpc: "INTERNAL" };
    const name = Object.entries(this.options.wire.profile.errorCodes).find(([, code]) => code === error.code)?.[0];
    const details: unknown[] = [];
    if (name !== undefined) details.push({ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase(), domain: "a2a-protocol.org" });
    if (error.data !== undefined) details.push({ "@type": "type.googleapis.com/google.protobuf.Struct", value: error.data });
    return { status: status.http, body: { error: { code: status.http, status: status.grpc, message: error.message, details } as JsonObject } };
  }
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

/** A stream of scripted events as Server-Sent Events, each after its delay; an error event ends it. */
function sse(events: readonly MockStreamEvent[], frame: (event: { result: unknown } | { error: MockError }) => unknown): Response {
  const encoder = new TextEncoder();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let canceled = false;
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      for (const event of events) {
        if (event.delayMs !== undefined && event.delayMs > 0) await new Promise<void>((resolve) => (timer = setTimeout(resolve, event.delayMs)));
        if (canceled) return;
        controller.enqueue(encoder.encode(formatSseEvent({ data: JSON.stringify(frame(event)) })));
        if ("error" in event) break;
      }
      controller.close();
    },
    cancel() {
      canceled = true;
      if (timer !== undefined) clearTimeout(timer);
    },
  });
  return new Response(body, { status: 200, headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
}
