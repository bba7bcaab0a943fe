/**
 * The calls and checks of one HTTP binding of an agent: JSON-RPC (1.0.1 or 0.3.0, by its dialect) or
 * 1.0.1's HTTP+JSON. Every answer is validated against the version's schema (an HTTP+JSON result wrapped
 * as JSON-RPC's, whose result is the same ProtoJSON). It tracks the tasks it created and cancels those not
 * finished when done.
 */
import { parseSse } from "../runtime/wire/sse.js";
import { CHECKS } from "./checks.js";
import type { Dialect } from "./dialects.js";
import { runOwnerChecks, type OwnerContext, type Seen, type TaskCalls } from "./owner-scope.js";
import { fail, Failure, isObject, jsonBody, skip, VERIFY_MARK, type Json, type Runner, type Schemas } from "./schemas.js";

export type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

export interface HttpProbeOptions {
  readonly scope: "JSONRPC" | "HTTP+JSON";
  readonly dialect: Dialect;
  readonly endpoint: string;
  /** The protocol's headers and credential A's. */
  readonly headers: Readonly<Record<string, string>>;
  /** The protocol's headers and credential B's, when a second credential was given. */
  readonly headersB?: Readonly<Record<string, string>> | undefined;
  readonly fetch: Fetch;
  readonly schemas: Schemas;
  /** How long an answer may take, a stream's end included (its own probe message: an agent that never ends fails). */
  readonly timeoutMs: number;
}

export class HttpProbe {
  private nextId = 1;
  /** Tasks this run created that are not known to be finished: canceled at the end. */
  private readonly started = new Set<string>();

  constructor(private readonly o: HttpProbeOptions) {}

  private get rpc(): boolean {
    return this.o.scope === "JSONRPC";
  }

  /** A request bounded by the timeout (the answer's body included), unless the caller bounds it. */
  private call(url: string, init: RequestInit): Promise<Response> {
    return this.o.fetch(url, { ...init, signal: init.signal ?? AbortSignal.timeout(this.o.timeoutMs) });
  }

  private url(path: string): string {
    return this.o.endpoint.replace(/\/$/, "") + path;
  }

  /** A JSON-RPC call: the parsed response envelope. */
  private async rpcCall(method: string, params: unknown, headers: Readonly<Record<string, string>> = this.o.headers): Promise<{ id: number; body: Json }> {
    const id = this.nextId++;
    const response = await this.call(this.o.endpoint, { method: "POST", headers: { ...headers }, body: JSON.stringify({ jsonrpc: "2.0", id, method, params }) });
    return { id, body: await jsonBody(response) };
  }

  private async rest(verb: string, path: string, body?: unknown, headers: Readonly<Record<string, string>> = this.o.headers): Promise<{ status: number; body: Json }> {
    const init: RequestInit = { method: verb, headers: { ...headers } };
    if (body !== undefined) init.body = typeof body === "string" ? body : JSON.stringify(body);
    const response = await this.call(this.url(path), init);
    return { status: response.status, body: response.status === 204 ? {} : await jsonBody(response) };
  }

  /** A result checked against the method's response schema; returns the result. */
  private expectResult(call: keyof Dialect["methods"], body: Json, id: number): unknown {
    const method = this.o.dialect.methods[call];
    const definition = this.o.dialect.responses[call];
    if (this.rpc) {
      if (isObject(body["error"])) fail(`${method} answered error ${JSON.stringify(body["error"])}`);
      if (body["id"] !== id) fail(`${method} answered id ${JSON.stringify(body["id"])}, not the request's ${id}`);
      this.o.schemas.expect(definition, body, `the ${method} response`);
      return body["result"];
    }
    this.o.schemas.expect(definition, { jsonrpc: "2.0", id: 1, result: body }, `the ${method} result`);
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

  private async send(params: Json, headers = this.o.headers): Promise<{ body: Json; id: number; status: number }> {
    if (this.rpc) return { ...(await this.rpcCall(this.o.dialect.methods.send, params, headers)), status: 200 };
    return { ...(await this.rest("POST", "/message:send", params, headers)), id: 1 };
  }

  private async get(id: string, headers = this.o.headers): Promise<{ body: Json; id: number; status: number }> {
    if (this.rpc) return { ...(await this.rpcCall(this.o.dialect.methods.get, { id }, headers)), status: 200 };
    return { ...(await this.rest("GET", `/tasks/${encodeURIComponent(id)}`, undefined, headers)), id: 1 };
  }

  private async cancel(id: string, headers = this.o.headers): Promise<{ body: Json; id: number; status: number }> {
    if (this.rpc) return { ...(await this.rpcCall(this.o.dialect.methods.cancel, { id }, headers)), status: 200 };
    return { ...(await this.rest("POST", `/tasks/${encodeURIComponent(id)}:cancel`, {}, headers)), id: 1 };
  }

  async runAll(run: Runner, streaming: boolean, owner: Omit<OwnerContext, "twoCredentials" | "streaming">): Promise<void> {
    const d = this.o.dialect;
    const c = this.rpc
      ? d.rpcChecks
      : {
          send: CHECKS.restSend,
          get: CHECKS.restGet,
          cancel: CHECKS.restCancel,
          stream: CHECKS.restStream,
          notFound: CHECKS.restTaskNotFound,
          cancelNotFound: CHECKS.restCancelNotFound,
          subscribeNotFound: CHECKS.restSubscribeNotFound,
          version: CHECKS.restVersion,
          owner: CHECKS.restOwner,
        };
    let task: Json | undefined;
    const noTask = () => skip(`${d.methods.send} answered no task to work with`);
    /** An id no agent has. */
    const unknown = `${VERIFY_MARK}-no-such-task`;
    await run(c.send, async () => {
      const answer = await this.send({ message: d.message(), configuration: d.nonBlocking });
      if (answer.status !== 200) fail(`HTTP ${answer.status}: ${JSON.stringify(answer.body).slice(0, 200)}`);
      task = d.taskOf(this.expectResult("send", answer.body, answer.id));
      if (task) this.track(task);
    });
    await run(c.get, async () => {
      if (task === undefined) noTask();
      const id = String(task?.["id"]);
      const answer = await this.get(id);
      const result = this.expectResult("get", answer.body, answer.id);
      if (!isObject(result) || result["id"] !== id) fail(`${d.methods.get} answered another task (${JSON.stringify(isObject(result) ? result["id"] : result)})`);
      this.track(result as Json);
    });
    await run(c.cancel, async () => {
      if (task === undefined) noTask();
      const id = String(task?.["id"]);
      const answer = await this.cancel(id);
      const notCancelable = this.rpc ? isObject(answer.body["error"]) && answer.body["error"]["code"] === -32002 : answer.status === 400;
      this.started.delete(id);
      if (notCancelable) return;
      const result = this.expectResult("cancel", answer.body, answer.id);
      const state = isObject(result) ? d.stateOf(result) : undefined;
      if (state !== undefined && state !== d.canceled) fail(`${d.methods.cancel} answered state ${JSON.stringify(state)}`);
    });
    await run(c.stream, async () => {
      if (!streaming) skip("the card does not declare capabilities.streaming");
      await this.checkStream();
    });
    await run(c.notFound, async () => {
      const answer = await this.get(unknown);
      if (this.rpc) this.expectRpcError(answer.body, -32001, `${d.methods.get} of an unknown id`);
      else this.expectStatusBody(answer.status, answer.body, 404, "GET /tasks/{unknown}");
    });
    const expectNotFound = (seen: Seen, what: string) => {
      if (!seen.notFound) fail(`${what} answered ${seen.seen}, not ${this.rpc ? "TaskNotFoundError (-32001)" : "404"}`);
    };
    await run(c.cancelNotFound, async () => expectNotFound(this.seen(await this.cancel(unknown)), `${this.rpc ? d.methods.cancel : "POST /tasks/{unknown}:cancel"} of an unknown id`));
    await run(c.subscribeNotFound, async () => {
      if (!streaming) skip("the card does not declare capabilities.streaming");
      expectNotFound(await this.subscribeAs(unknown, this.o.headers), `${this.rpc ? d.methods.subscribe : "POST /tasks/{unknown}:subscribe"} of an unknown id`);
    });
    if (this.rpc) {
      const r = d.rpcChecks;
      await run(r.parseError, async () => {
        const response = await this.call(this.o.endpoint, { method: "POST", headers: { ...this.o.headers }, body: "{not json" });
        this.expectRpcError(await jsonBody(response), -32700, "an unparsable body");
      });
      await run(r.invalidRequest, async () => {
        const response = await this.call(this.o.endpoint, { method: "POST", headers: { ...this.o.headers }, body: JSON.stringify({ jsonrpc: "2.0", id: 7 }) });
        this.expectRpcError(await jsonBody(response), -32600, "an envelope without a method");
      });
      await run(r.methodNotFound, async () => this.expectRpcError((await this.rpcCall(`${VERIFY_MARK}/no-such-method`, {})).body, -32601, "an unknown method"));
      await run(r.invalidParams, async () => {
        const { body } = await this.rpcCall(d.methods.send, {});
        // An agent that ran it anyway: whatever task it made is canceled at the end too.
        const made = d.taskOf(body["result"]);
        if (made) this.track(made);
        this.expectRpcError(body, -32602, `${d.methods.send} without a message`);
      });
    } else {
      await run(CHECKS.restBadBody, async () => {
        const answer = await this.rest("POST", "/message:send", "{not json");
        this.expectStatusBody(answer.status, answer.body, 400, "an unparsable body");
      });
    }
    if (c.version !== undefined) {
      await run(c.version, async () => {
        const headers = { ...this.o.headers, "a2a-version": "99.0" };
        if (this.rpc) this.expectRpcError((await this.rpcCall(d.methods.get, { id: unknown }, headers)).body, -32009, "A2A-Version: 99.0");
        else {
          const answer = await this.rest("GET", `/tasks/${unknown}`, undefined, headers);
          if (answer.status < 400 || !isObject(answer.body["error"])) fail(`A2A-Version: 99.0 answered HTTP ${answer.status}`);
          if (answer.status === 404) fail("A2A-Version: 99.0 answered 404 (the task lookup ran: the version was not checked first)");
        }
      });
    }
    await runOwnerChecks(run, c.owner, this.taskCalls(), { ...owner, twoCredentials: this.o.headersB !== undefined, streaming });
    await this.cleanUp();
  }

  /** Whether an answer is the binding's TaskNotFound (JSON-RPC -32001, HTTP 404), or what it was. */
  private seen(answer: { status: number; body: Json }): Seen {
    const error = answer.body["error"];
    if (this.rpc) {
      if (isObject(error) && error["code"] === -32001) return { notFound: true };
      return { notFound: false, seen: isObject(error) ? `error ${JSON.stringify(error["code"])} (${String(error["message"])})` : "a result" };
    }
    if (answer.status === 404) return { notFound: true };
    return { notFound: false, seen: `HTTP ${answer.status}${answer.status < 300 ? " and a result" : isObject(error) ? ` (${String(error["message"])})` : ""}` };
  }

  /** The calls of the owner checks: A creates, B gets, cancels, subscribes. */
  private taskCalls(): TaskCalls {
    const d = this.o.dialect;
    const b = this.o.headersB ?? this.o.headers;
    return {
      createTask: async () => {
        const answer = await this.send({ message: d.message(), configuration: d.nonBlocking });
        const result = this.expectResult("send", answer.body, answer.id);
        const task = d.taskOf(result);
        if (task === undefined || typeof task["id"] !== "string") return fail(`${d.methods.send} answered no task`);
        return task["id"];
      },
      getAs: async (id) => this.seen(await this.get(id, b)),
      cancelAs: async (id) => this.seen(await this.cancel(id, b)),
      subscribeAs: async (id) => this.subscribeAs(id, b),
      isCanceled: async (id) => {
        const answer = await this.get(id);
        const result = this.rpc ? answer.body["result"] : answer.body;
        return isObject(result) && d.stateOf(result) === d.canceled;
      },
      cancelQuietly: async (id) => void (await this.cancel(id)),
    };
  }

  /** Subscribes with `headers`: an error answer (JSON, or the first SSE event) tells whether it was not found. */
  private async subscribeAs(id: string, headers: Readonly<Record<string, string>>): Promise<Seen> {
    const d = this.o.dialect;
    const reqId = this.nextId++;
    const controller = new AbortController();
    const signal = controller.signal;
    const timer = setTimeout(() => controller.abort(new Error(`no answer within ${this.o.timeoutMs / 1000} s`)), this.o.timeoutMs);
    const init = { method: "POST", headers: { ...headers, accept: "text/event-stream" }, signal };
    try {
      const response = this.rpc
        ? await this.call(this.o.endpoint, { ...init, body: JSON.stringify({ jsonrpc: "2.0", id: reqId, method: d.methods.subscribe, params: { id } }) })
        : await this.call(this.url(`/tasks/${encodeURIComponent(id)}:subscribe`), { ...init, body: "{}" });
      if (!(response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
        const body = await jsonBody(response);
        if (!this.rpc) return response.status === 404 ? { notFound: true } : { notFound: false, seen: `HTTP ${response.status}` };
        return isObject(body["error"]) && body["error"]["code"] === -32001 ? { notFound: true } : { notFound: false, seen: JSON.stringify(body).slice(0, 160) };
      }
      if (!this.rpc) return { notFound: false, seen: `HTTP ${response.status} and an event stream` };
      // A JSON-RPC error may also come as the stream's first event.
      for await (const event of parseSse(response.body as ReadableStream<Uint8Array>, { signal })) {
        const data: unknown = isJson(event.data) ? JSON.parse(event.data) : undefined;
        const error = isObject(data) ? data["error"] : undefined;
        if (isObject(error) && error["code"] === -32001) return { notFound: true };
        return { notFound: false, seen: `an event stream (${event.data.slice(0, 120)})` };
      }
      return { notFound: false, seen: "an empty event stream" };
    } catch (error) {
      throw signal.aborted ? signal.reason : error;
    } finally {
      clearTimeout(timer);
      controller.abort();
    }
  }

  private track(task: Json): void {
    const id = String(task["id"]);
    const state = this.o.dialect.stateOf(task);
    if (state !== undefined && this.o.dialect.terminal.has(state)) this.started.delete(id);
    else this.started.add(id);
  }

  private async checkStream(): Promise<void> {
    const d = this.o.dialect;
    const params = { message: d.message() };
    const id = this.nextId++;
    const headers = { ...this.o.headers, accept: "text/event-stream" };
    // One limit for the answer and the whole stream: verify's message asks for nothing long.
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error(`no end of stream within ${this.o.timeoutMs / 1000} s`)), this.o.timeoutMs);
    const signal = controller.signal;
    const raw = new RawText();
    let count = 0;
    try {
      const response = this.rpc
        ? await this.call(this.o.endpoint, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id, method: d.methods.stream, params }), signal })
        : await this.call(this.url("/message:stream"), { method: "POST", headers, body: JSON.stringify(params), signal });
      const type = response.headers.get("content-type") ?? "";
      if (!type.startsWith("text/event-stream")) fail(`the stream answered HTTP ${response.status} with content-type ${JSON.stringify(type)}: ${(await response.text()).slice(0, 200)}`);
      if (response.body === null) fail("the stream has no body");
      for await (const event of parseSse(raw.reading(response.body as ReadableStream<Uint8Array>), { signal })) {
        count++;
        let data: unknown;
        try {
          data = JSON.parse(event.data);
        } catch {
          const lines = event.data.split("\n");
          if (lines.length > 1 && lines.every(isJson)) fail(`event ${count} holds ${lines.length} JSON lines: events not separated by a blank line (SSE framing)`);
          fail(`event ${count} is not JSON: ${event.data.slice(0, 120)}`);
        }
        if (!isObject(data)) fail(`event ${count} is not a JSON object`);
        const task = d.taskOf(this.expectResult("stream", data as Json, id));
        if (task) this.track(task);
      }
    } catch (error) {
      // Out of time: say so, rather than how the read or the parser gave up.
      throw signal.aborted && !(error instanceof Failure) ? signal.reason : error;
    } finally {
      clearTimeout(timer);
    }
    if (count === 0) fail(raw.text.trim() === "" ? "the stream ended without an event" : `the stream ended without a complete event (a "data:" field ended by a blank line): ${JSON.stringify(raw.text.slice(0, 120))}`);
    if (raw.unterminated()) fail(`the stream's last event is not ended by a blank line, so SSE parsers drop it (SSE framing): ${JSON.stringify(raw.tail().slice(0, 120))}`);
  }

  /** Cancels what this run started and did not see finish (safe by default). */
  private async cleanUp(): Promise<void> {
    for (const id of this.started) {
      try {
        await this.cancel(id);
      } catch {
        // A task that cannot be canceled now is left; the report's checks already say what happened.
      }
    }
    this.started.clear();
  }
}

const isJson = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/** The text of a stream as it is read (its start, and what follows its last blank line), to explain framing faults. */
class RawText {
  text = "";
  private after = "";
  private readonly decoder = new TextDecoder();
  /** The body, passed through unchanged (a cancel reaches the body, so an abort stops the transfer). */
  reading(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
    return body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform: (value, controller) => {
          this.record(this.decoder.decode(value, { stream: true }));
          controller.enqueue(value);
        },
      }),
    );
  }
  private record(chunk: string): void {
    if (this.text.length < 2048) this.text += chunk.slice(0, 2048 - this.text.length);
    // What follows the last blank line (kept short: only a trailing event's start matters).
    const joined = (this.after + chunk).replace(/\r\n?/g, "\n");
    const end = joined.lastIndexOf("\n\n");
    this.after = (end < 0 ? joined : joined.slice(end + 2)).slice(-4096);
  }
  /** An event (a data field) after the last blank line: never dispatched. */
  unterminated(): boolean {
    return /^data:/m.test(this.after);
  }
  tail(): string {
    return this.after;
  }
}
