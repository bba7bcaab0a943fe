/**
 * `a2a-codegen verify <agent-url>`: a conformance check of a live A2A 1.0 agent. It reads the agent card,
 * then, for each binding the card lists (JSON-RPC, HTTP+JSON), calls the agent and validates every answer
 * against the version's schema (the same validators the generated code uses). Safe by default: the only
 * tasks it creates come from its own messages (marked in their metadata and text), and it cancels every task
 * it started that is not finished.
 */
import { createRequire } from "node:module";
import type { Ajv as AjvClass, Options as AjvOptions, ValidateFunction } from "ajv";
import { AJV_OPTIONS, SCHEMA_ID, validatorSchema } from "../ir/validator-schema.js";
import { bundledIR } from "../load/protocol.js";
import type { ProtocolIR } from "../ir/types.js";
import { parseSse } from "../runtime/wire/sse.js";
import { ALL_CHECKS, CHECKS, type CheckDeclaration, type CheckResult, type Level, type Scope } from "./checks.js";

const require = createRequire(import.meta.url);
const loadAjv = () => (require("ajv") as { default: new (options: AjvOptions) => AjvClass }).default;

/** The metadata key that marks verify's own messages (an agent may skip work for them). */
export const VERIFY_MARK = "a2a-codegen-verify";
/** The version verify checks against. */
const VERSION = "1.0.1";

export interface VerifyOptions {
  /** Only checks of these levels (default: both). */
  levels?: readonly Level[];
  /** Only these bindings (default: every one the card lists); the card checks always run. */
  bindings?: readonly Scope[];
  /** The fetch to use (default: the platform's). */
  fetch?: (input: string, init?: RequestInit) => Promise<Response>;
}

export interface VerifyReport {
  readonly agentUrl: string;
  readonly results: readonly CheckResult[];
  /** Whether a MUST check failed. */
  readonly failed: boolean;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

class Failure extends Error {}
class Skip extends Error {}
const fail = (message: string): never => {
  throw new Failure(message);
};

/** The validators of the version's definitions, compiled once. */
class Schemas {
  private readonly ajv: AjvClass;
  private readonly cache = new Map<string, ValidateFunction>();
  constructor(readonly ir: ProtocolIR) {
    this.ajv = new (loadAjv())({ ...AJV_OPTIONS });
    this.ajv.addSchema(validatorSchema(ir));
  }
  /** Fails naming the first issues when `value` is not a valid `definition`. */
  expect(definition: string, value: unknown, what: string): void {
    let validate = this.cache.get(definition);
    if (!validate) {
      validate = this.ajv.getSchema(`${SCHEMA_ID}#/definitions/${definition}`);
      if (!validate) throw new Error(`the schema has no ${definition}`);
      this.cache.set(definition, validate);
    }
    if (!validate(value)) {
      const issues = (validate.errors ?? []).slice(0, 3).map((e) => `${e.instancePath || "/"} ${e.message ?? ""}`.trim());
      fail(`${what} is not a valid ${definition}: ${issues.join("; ")}`);
    }
  }
}

export async function verifyAgent(agentUrl: string, options: VerifyOptions = {}): Promise<VerifyReport> {
  const doFetch = options.fetch ?? ((input: string, init?: RequestInit) => fetch(input, init));
  const schemas = new Schemas(bundledIR(VERSION));
  const results: CheckResult[] = [];
  const wanted = (c: CheckDeclaration) => (options.levels === undefined || options.levels.includes(c.level)) && (c.scope === "card" || options.bindings === undefined || options.bindings.includes(c.scope));
  const run = async (declaration: CheckDeclaration, body: () => Promise<void> | void): Promise<boolean> => {
    if (!wanted(declaration)) return false;
    try {
      await body();
      results.push({ ...declaration, outcome: "pass", detail: "" });
      return true;
    } catch (error) {
      const outcome = error instanceof Skip ? "skip" : "fail";
      results.push({ ...declaration, outcome, detail: error instanceof Error ? error.message : String(error) });
      return false;
    }
  };
  const skipAll = (scope: Scope, reason: string) => {
    for (const c of ALL_CHECKS.filter((x) => x.scope === scope && wanted(x))) results.push({ ...c, outcome: "skip", detail: reason });
  };

  // The card.
  // Below the agent's URL, path included (an agent mounted at /a2a/ has its card at /a2a/.well-known/…).
  const cardUrl = new URL(".well-known/agent-card.json", agentUrl.endsWith("/") ? agentUrl : `${agentUrl}/`).href;
  let card: Json | undefined;
  let cardResponse: Response | undefined;
  const fetched = await run(CHECKS.cardFetch, async () => {
    cardResponse = await doFetch(cardUrl, { headers: { accept: "application/json" } });
    if (cardResponse.status !== 200) fail(`GET ${cardUrl}: HTTP ${cardResponse.status}`);
    const body: unknown = JSON.parse(await cardResponse.text());
    if (!isObject(body)) fail("the card is not a JSON object");
    card = body as Json;
  });
  if (!fetched || card === undefined) {
    for (const c of ALL_CHECKS.filter((x) => x !== CHECKS.cardFetch && wanted(x))) results.push({ ...c, outcome: "skip", detail: "no agent card" });
    return report(agentUrl, results);
  }
  const theCard: Json = card;
  await run(CHECKS.cardSchema, () => schemas.expect("AgentCard", theCard, "the card"));
  const interfaces = (Array.isArray(theCard["supportedInterfaces"]) ? theCard["supportedInterfaces"] : []).filter(isObject);
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
    const value = cardResponse?.headers.get("cache-control") ?? "";
    if (!/max-age=\d+/.test(value)) fail(value === "" ? "no Cache-Control header" : `Cache-Control: ${value} has no max-age`);
  });
  await run(CHECKS.cardEtag, () => {
    if (!cardResponse?.headers.get("etag")) fail("no ETag header");
  });

  const streaming = isObject(theCard["capabilities"]) && theCard["capabilities"]["streaming"] === true;
  const versionOf = (entry: Json) => String(entry["protocolVersion"] ?? "1.0");
  for (const scope of ["JSONRPC", "HTTP+JSON"] as const) {
    if (options.bindings !== undefined && !options.bindings.includes(scope)) continue;
    const entry = interfaces.find((i) => i["protocolBinding"] === scope);
    if (entry === undefined) {
      skipAll(scope, `the card lists no ${scope} interface`);
      continue;
    }
    const endpoint = new URL(String(entry["url"]), agentUrl).href;
    const headers = { "content-type": "application/json", "a2a-version": versionOf(entry) };
    const probe = new BindingProbe(scope, endpoint, headers, doFetch, schemas);
    await probe.runAll(run, streaming);
  }
  return report(agentUrl, results);
}

function report(agentUrl: string, results: CheckResult[]): VerifyReport {
  return { agentUrl, results, failed: results.some((r) => r.level === "MUST" && r.outcome === "fail") };
}

type Runner = (declaration: CheckDeclaration, body: () => Promise<void> | void) => Promise<boolean>;

/** verify's own message: marked in its metadata and text. */
function probeMessage(): Json {
  return {
    messageId: `${VERIFY_MARK}-${Math.random().toString(36).slice(2)}`,
    role: "ROLE_USER",
    parts: [{ text: "a2a-codegen verify: conformance probe (safe to ignore)" }],
    metadata: { [VERIFY_MARK]: true },
  };
}

const TERMINAL = new Set(["TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"]);

/** The calls and checks of one binding. */
class BindingProbe {
  private nextId = 1;
  /** Tasks this run created that are not known to be finished: canceled at the end. */
  private readonly started = new Set<string>();

  constructor(
    private readonly scope: "JSONRPC" | "HTTP+JSON",
    private readonly endpoint: string,
    private readonly headers: Record<string, string>,
    private readonly doFetch: NonNullable<VerifyOptions["fetch"]>,
    private readonly schemas: Schemas,
  ) {}

  private get rpc(): boolean {
    return this.scope === "JSONRPC";
  }

  private url(path: string): string {
    return this.endpoint.replace(/\/$/, "") + path;
  }

  /** A JSON-RPC call: the parsed response envelope. */
  private async rpcCall(method: string, params: unknown, headers: Record<string, string> = {}): Promise<{ id: number; body: Json; response: Response }> {
    const id = this.nextId++;
    const response = await this.doFetch(this.endpoint, { method: "POST", headers: { ...this.headers, ...headers }, body: JSON.stringify({ jsonrpc: "2.0", id, method, params }) });
    return { id, body: await jsonBody(response), response };
  }

  private async rest(verb: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Json; response: Response }> {
    const init: RequestInit = { method: verb, headers: { ...this.headers, ...headers } };
    if (body !== undefined) init.body = typeof body === "string" ? body : JSON.stringify(body);
    const response = await this.doFetch(this.url(path), init);
    return { status: response.status, body: response.status === 204 ? {} : await jsonBody(response), response };
  }

  /** A result checked against the method's response schema (HTTP+JSON results wrapped as JSON-RPC's). */
  private expectResult(method: string, responseType: string, body: Json, id: number): unknown {
    if (this.rpc) {
      if (isObject(body["error"])) fail(`${method} answered error ${JSON.stringify(body["error"])}`);
      if (body["id"] !== id) fail(`${method} answered id ${JSON.stringify(body["id"])}, not the request's ${id}`);
      this.schemas.expect(responseType, body, `the ${method} response`);
      return body["result"];
    }
    this.schemas.expect(responseType, { jsonrpc: "2.0", id: 1, result: body }, `the ${method} result`);
    return body;
  }

  private expectRpcError(body: Json, code: number, what: string): void {
    const error = body["error"];
    if (!isObject(error)) fail(`${what} answered ${JSON.stringify(body).slice(0, 200)}, not an error`);
    if ((error as Json)["code"] !== code) fail(`${what} answered code ${JSON.stringify((error as Json)["code"])}, not ${code}`);
    if (typeof (error as Json)["message"] !== "string") fail(`${what}: the error has no message`);
  }

  private expectStatusBody(status: number, body: Json, expected: number, what: string): void {
    if (status !== expected) fail(`${what} answered HTTP ${status}, not ${expected}`);
    const error = body["error"];
    if (!isObject(error) || typeof error["message"] !== "string" || typeof error["status"] !== "string") fail(`${what}: the body is not a google.rpc.Status error ({ error: { code, status, message } })`);
  }

  async runAll(run: Runner, streaming: boolean): Promise<void> {
    const c = this.rpc
      ? { send: CHECKS.rpcSend, get: CHECKS.rpcGet, cancel: CHECKS.rpcCancel, stream: CHECKS.rpcStream, notFound: CHECKS.rpcTaskNotFound, version: CHECKS.rpcVersion }
      : { send: CHECKS.restSend, get: CHECKS.restGet, cancel: CHECKS.restCancel, stream: CHECKS.restStream, notFound: CHECKS.restTaskNotFound, version: CHECKS.restVersion };
    let task: Json | undefined;
    const skipNoTask = () => {
      throw new Skip("SendMessage answered no task to work with");
    };
    await run(c.send, async () => {
      const params = { message: probeMessage(), configuration: { returnImmediately: true } };
      const answer = this.rpc ? await this.rpcCall("SendMessage", params) : await this.rest("POST", "/message:send", params);
      if (!this.rpc && (answer as { status: number }).status !== 200) fail(`HTTP ${(answer as { status: number }).status}: ${JSON.stringify(answer.body).slice(0, 200)}`);
      const result = this.expectResult("SendMessage", "SendMessageRpcResponse", answer.body, this.rpc ? (answer as { id: number }).id : 1);
      if (isObject(result) && isObject(result["task"])) {
        task = result["task"];
        this.track(task);
      }
    });
    await run(c.get, async () => {
      if (task === undefined) skipNoTask();
      const id = String(task?.["id"]);
      const answer = this.rpc ? await this.rpcCall("GetTask", { id }) : await this.rest("GET", `/tasks/${encodeURIComponent(id)}`);
      const result = this.expectResult("GetTask", "GetTaskRpcResponse", answer.body, this.rpc ? (answer as { id: number }).id : 1);
      if (!isObject(result) || result["id"] !== id) fail(`GetTask answered another task (${JSON.stringify(isObject(result) ? result["id"] : result)})`);
      this.track(result as Json);
    });
    await run(c.cancel, async () => {
      if (task === undefined) skipNoTask();
      const id = String(task?.["id"]);
      const answer = this.rpc ? await this.rpcCall("CancelTask", { id }) : await this.rest("POST", `/tasks/${encodeURIComponent(id)}:cancel`, {});
      const notCancelable = this.rpc ? isObject(answer.body["error"]) && answer.body["error"]["code"] === -32002 : (answer as { status: number }).status === 400;
      if (notCancelable) {
        this.started.delete(id);
        return;
      }
      const result = this.expectResult("CancelTask", "CancelTaskRpcResponse", answer.body, this.rpc ? (answer as { id: number }).id : 1);
      this.started.delete(id);
      if (isObject(result) && isObject(result["status"]) && result["status"]["state"] !== "TASK_STATE_CANCELED") fail(`CancelTask answered state ${JSON.stringify(result["status"]["state"])}`);
    });
    await run(c.stream, async () => {
      if (!streaming) throw new Skip("the card does not declare capabilities.streaming");
      await this.checkStream();
    });
    await run(c.notFound, async () => {
      const id = `${VERIFY_MARK}-no-such-task`;
      if (this.rpc) this.expectRpcError((await this.rpcCall("GetTask", { id })).body, -32001, "GetTask of an unknown id");
      else {
        const answer = await this.rest("GET", `/tasks/${id}`);
        this.expectStatusBody(answer.status, answer.body, 404, "GET /tasks/{unknown}");
      }
    });
    if (this.rpc) {
      await run(CHECKS.rpcParseError, async () => {
        const response = await this.doFetch(this.endpoint, { method: "POST", headers: this.headers, body: "{not json" });
        this.expectRpcError(await jsonBody(response), -32700, "an unparsable body");
      });
      await run(CHECKS.rpcInvalidRequest, async () => {
        const response = await this.doFetch(this.endpoint, { method: "POST", headers: this.headers, body: JSON.stringify({ jsonrpc: "2.0", id: 7 }) });
        this.expectRpcError(await jsonBody(response), -32600, "an envelope without a method");
      });
      await run(CHECKS.rpcMethodNotFound, async () => this.expectRpcError((await this.rpcCall(`${VERIFY_MARK}/no-such-method`, {})).body, -32601, "an unknown method"));
      await run(CHECKS.rpcInvalidParams, async () => this.expectRpcError((await this.rpcCall("SendMessage", {})).body, -32602, "SendMessage without a message"));
    } else {
      await run(CHECKS.restBadBody, async () => {
        const answer = await this.rest("POST", "/message:send", "{not json");
        this.expectStatusBody(answer.status, answer.body, 400, "an unparsable body");
      });
    }
    await run(c.version, async () => {
      const headers = { "a2a-version": "99.0" };
      if (this.rpc) this.expectRpcError((await this.rpcCall("GetTask", { id: `${VERIFY_MARK}-no-such-task` }, headers)).body, -32009, "A2A-Version: 99.0");
      else {
        const answer = await this.rest("GET", `/tasks/${VERIFY_MARK}-no-such-task`, undefined, headers);
        if (answer.status < 400 || !isObject(answer.body["error"])) fail(`A2A-Version: 99.0 answered HTTP ${answer.status}`);
        if (answer.status === 404) fail("A2A-Version: 99.0 answered 404 (the task lookup ran: the version was not checked first)");
      }
    });
    await this.cleanUp();
  }

  private track(task: Json): void {
    const id = String(task["id"]);
    const state = isObject(task["status"]) ? task["status"]["state"] : undefined;
    if (typeof state === "string" && TERMINAL.has(state)) this.started.delete(id);
    else this.started.add(id);
  }

  private async checkStream(): Promise<void> {
    const params = { message: probeMessage() };
    const id = this.nextId++;
    const response = this.rpc
      ? await this.doFetch(this.endpoint, { method: "POST", headers: { ...this.headers, accept: "text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id, method: "SendStreamingMessage", params }) })
      : await this.doFetch(this.url("/message:stream"), { method: "POST", headers: { ...this.headers, accept: "text/event-stream" }, body: JSON.stringify(params) });
    const type = response.headers.get("content-type") ?? "";
    if (!type.startsWith("text/event-stream")) fail(`the stream answered HTTP ${response.status} with content-type ${JSON.stringify(type)}: ${(await response.text()).slice(0, 200)}`);
    if (response.body === null) fail("the stream has no body");
    let count = 0;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error("no end of stream within 10 s")), 10_000);
    try {
      for await (const event of parseSse(response.body as ReadableStream<Uint8Array>, { signal: controller.signal })) {
        count++;
        let data: unknown;
        try {
          data = JSON.parse(event.data);
        } catch {
          fail(`event ${count} is not JSON: ${event.data.slice(0, 120)}`);
        }
        if (!isObject(data)) fail(`event ${count} is not a JSON object`);
        const result = this.expectResult("SendStreamingMessage", "SendStreamingMessageRpcResponse", data as Json, id);
        const task = isObject(result) ? (isObject(result["task"]) ? result["task"] : undefined) : undefined;
        if (task) this.track(task);
        const status = isObject(result) && isObject(result["statusUpdate"]) ? result["statusUpdate"] : undefined;
        if (status && isObject(status["status"])) this.track({ id: status["taskId"], status: status["status"] });
      }
    } finally {
      clearTimeout(timer);
    }
    if (count === 0) fail("the stream ended without an event");
  }

  /** Cancels what this run started and did not see finish (safe by default). */
  private async cleanUp(): Promise<void> {
    for (const id of this.started) {
      try {
        if (this.rpc) await this.rpcCall("CancelTask", { id });
        else await this.rest("POST", `/tasks/${encodeURIComponent(id)}:cancel`, {});
      } catch {
        // A task that cannot be canceled now is left; the report's checks already say what happened.
      }
    }
    this.started.clear();
  }
}

async function jsonBody(response: Response): Promise<Json> {
  const text = await response.text();
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : { value };
  } catch {
    return fail(`HTTP ${response.status}: the body is not JSON: ${text.slice(0, 120)}`);
  }
}
