/**
 * Client runtime of the code a2a-codegen generates: the JSON-RPC 2.0 binding (HTTP POST, with Server-Sent
 * Events for the streaming methods) and, re-exported from its sibling files, the errors, the HTTP layer,
 * the agent card fetch and the transport seam other bindings plug into. The generated typed client wraps a
 * {@link ClientTransport}. Copied verbatim into every generated folder; it depends only on its sibling
 * runtime files and on web platform globals (fetch, AbortController, TextDecoder), so it runs in Node,
 * browsers and edge runtimes alike.
 */

import { A2AResponseValidationError, A2ATransportError, receivedA2AError, type A2AErrorObject } from "./errors.js";
import { bodyChunks, DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_RESPONSE_BYTES, isEventStream, readText, send, startAttempt, statusText, streamFailure, timeoutOf, type Attempt, type CallOptions, type ClientOptions, type RequestScope } from "./http.js";
import type { HttpAnswer } from "./fetch.js";
import { requestScope, type ClientTransport, type ClientTransportFactory, type ResponseChecks, type TransportContext } from "./transport.js";
import { isJsonRpcResponse, parseJsonSafe, type JsonRpcResponse } from "../wire/jsonrpc.js";
import { parseSse } from "../wire/sse.js";
import { refuseDuplicateMembers } from "./card.js";

export * from "./errors.js";
export * from "./http.js";
export * from "./transport.js";
export * from "./card.js";

/**
 * JSON-RPC 2.0 over HTTP: one POST per call, answered with one JSON response ({@link call}) or with an
 * SSE stream of responses ({@link stream}).
 */
export class JsonRpcTransport implements ClientTransport {
  readonly binding = "JSONRPC";
  /** The URL requests are POSTed to (without an API key in the query: that is added per request). */
  readonly endpoint: string;
  private readonly options: ClientOptions;
  private readonly checks: ResponseChecks;
  private readonly scope: RequestScope;
  /** The interface's tenant (1.0), set in every request's params (§8.3.2). */
  private readonly tenant: string | undefined;
  private lastId = 0;

  /**
   * `context.trustedOrigins` are the origins that may receive credentials; by default the endpoint's
   * origin and the option's `trustedOrigins` (the user named the endpoint).
   */
  constructor(endpoint: string, options: ClientOptions = {}, checks: ResponseChecks = {}, context?: Partial<TransportContext>) {
    this.endpoint = endpoint;
    this.options = options;
    this.checks = checks;
    this.scope = requestScope(endpoint, options, context);
    this.tenant = context?.tenant;
  }

  /** Ids are increasing integers starting at 1 (per transport). */
  nextId(): number {
    return ++this.lastId;
  }

  /**
   * POSTs `{jsonrpc: "2.0", id, method, params}` (params left out when undefined) and resolves to the
   * response's `result`. Throws `makeError(...)` (by default an {@link A2AError} with `method` set) for an error
   * response, whatever the HTTP status; an {@link A2ATransportError} for a network failure, a non-2xx
   * status without a JSON-RPC error body, a body that is not a JSON-RPC response, or a response to
   * another id; an {@link A2AResponseValidationError} when validation is on and fails. Aborting the
   * signal rejects with its reason; the timeout rejects with an A2ATransportError "timed out after N ms".
   */
  async call(method: string, params: unknown, options: CallOptions = {}): Promise<unknown> {
    const id = this.nextId();
    const attempt = startAttempt(method, options.signal, timeoutOf(options, this.options));
    try {
      const response = await this.post(method, id, params, "application/json", options, attempt);
      const text = await readText(response, method, attempt, this.options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES);
      const status = response.status;
      const parsed = parseJsonSafe(text);
      if (!parsed.ok) {
        throw new A2ATransportError(
          response.ok ? `${method}: the response is not JSON (${parsed.message})` : `${method}: HTTP ${status}${statusText(response)}`,
          { status, body: text },
        );
      }
      if (!isJsonRpcResponse(parsed.value)) {
        throw new A2ATransportError(
          response.ok ? `${method}: the response is not a JSON-RPC 2.0 response` : `${method}: HTTP ${status}${statusText(response)}`,
          { status, body: text },
        );
      }
      if (!response.ok && !("error" in parsed.value)) {
        throw new A2ATransportError(`${method}: HTTP ${status}${statusText(response)}`, { status, body: text });
      }
      // The card in `result` is read from this text: a member named twice anywhere in it is refused.
      if (method === this.checks.cardMethod && "result" in parsed.value) refuseDuplicateMembers(text, method, status);
      return this.interpret(method, id, parsed.value, status, text);
    } finally {
      attempt.dispose();
    }
  }

  /**
   * The same POST with `accept: text/event-stream`; yields the `result` of each event in order. Ends
   * after a result for which `isFinal()` is true (cancelling the body) or when the server closes the
   * stream. Throws `makeError(...)` for an event that is a JSON-RPC error response; for an `event: error`
   * frame, the JSON-RPC error its data holds (else an {@link A2ATransportError}); for a response that
   * is not an event stream, its JSON-RPC error (else an A2ATransportError); an A2ATransportError for an
   * event that is not a JSON-RPC response to this request or larger than `maxEventBytes`. Events with
   * another `event:` type than "message" or "error" are skipped. Leaving the loop early or aborting the
   * signal cancels the HTTP body, so no connection is left open.
   */
  async *stream(method: string, params: unknown, options: CallOptions = {}): AsyncGenerator<unknown, void, undefined> {
    const id = this.nextId();
    const attempt = startAttempt(method, options.signal, timeoutOf(options, this.options));
    let response: HttpAnswer | undefined;
    try {
      response = await this.post(method, id, params, "text/event-stream", options, attempt);
      const status = response.status;
      if (!response.ok || !isEventStream(response)) {
        const text = await readText(response, method, attempt, this.options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES);
        const parsed = parseJsonSafe(text);
        if (parsed.ok && isJsonRpcResponse(parsed.value) && "error" in parsed.value) {
          this.interpret(method, id, parsed.value, status, text); // throws the error (or a mismatch)
        }
        const what = response.ok
          ? `${method}: expected an event stream, got ${response.headers.get("content-type") ?? "no content-type"}`
          : `${method}: HTTP ${status}${statusText(response)}`;
        throw new A2ATransportError(what, { status, body: text });
      }
      attempt.stopTimer(); // the headers are in: from here on only the signal bounds the stream
      if (response.body === null) return;
      const events = parseSse(bodyChunks(response.body, method, status), {
        maxEventBytes: this.options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES,
        signal: attempt.signal,
      });
      for await (const event of events) {
        if (event.event === "error") throw this.errorEvent(method, id, event.data, status);
        if (event.event !== undefined && event.event !== "message") continue;
        const parsed = parseJsonSafe(event.data);
        if (!parsed.ok) {
          throw new A2ATransportError(`${method}: a stream event is not JSON (${parsed.message})`, { status, body: event.data });
        }
        if (!isJsonRpcResponse(parsed.value)) {
          throw new A2ATransportError(`${method}: a stream event is not a JSON-RPC 2.0 response`, { status, body: event.data });
        }
        const result = this.interpret(method, id, parsed.value, status, event.data);
        yield result;
        if (this.checks.isFinal?.(result)) return;
      }
    } catch (error) {
      throw streamFailure(error, method, attempt, response?.status);
    } finally {
      attempt.dispose();
      // Releases the connection whatever happened (parseSse has cancelled the body already if it ran).
      if (response?.body && !response.bodyUsed) await response.body.cancel().catch(() => {});
      attempt.abortQuietly();
    }
  }

  private async post(method: string, id: number, params: unknown, accept: string, options: CallOptions, attempt: Attempt): Promise<HttpAnswer> {
    const request: Record<string, unknown> = { jsonrpc: "2.0", id, method };
    const withTenant = this.tenant === undefined ? params : withTenantOf(params, this.tenant);
    if (withTenant !== undefined) request["params"] = withTenant;
    const body = JSON.stringify(request);
    return send({ url: this.endpoint, method: "POST", body, headers: { "content-type": "application/json", accept } }, this.scope, this.options, options, method, attempt);
  }

  /** Envelope already checked: the id, validation, then the result or the thrown error. */
  private interpret(method: string, id: number, response: JsonRpcResponse, status: number, text: string): unknown {
    const isError = "error" in response;
    // An error the server could not tie to a request (e.g. a parse error) carries id null.
    if (response.id !== id && !(isError && response.id === null)) {
      throw new A2ATransportError(`${method}: the response is for id ${JSON.stringify(response.id)}, not ${id}`, { status, body: text });
    }
    this.checks.normalize?.(method, response);
    if (this.options.validateResponses && this.checks.validate) {
      const issues = this.checks.validate(method, response);
      if (issues && issues.length > 0) throw new A2AResponseValidationError(method, issues);
    }
    if ("error" in response) throw this.makeError(method, response.error);
    return response.result;
  }

  private makeError(method: string, error: A2AErrorObject): Error {
    const clean: A2AErrorObject = { code: error.code, message: error.message };
    if (error.data !== undefined) clean.data = error.data;
    return this.checks.makeError ? this.checks.makeError(method, clean) : receivedA2AError(method, clean);
  }

  /** The error an `event: error` frame stands for. */
  private errorEvent(method: string, id: number, data: string, status: number): Error {
    const parsed = parseJsonSafe(data);
    if (parsed.ok) {
      const value = parsed.value;
      if (isJsonRpcResponse(value) && "error" in value) {
        try {
          this.interpret(method, id, value, status, data);
        } catch (error) {
          return error instanceof Error ? error : new A2ATransportError(String(error));
        }
      }
      if (isErrorObject(value)) return this.makeError(method, value);
    }
    return new A2ATransportError(`${method}: the server sent an error event`, { status, body: data });
  }
}

/** The JSON-RPC binding's factory (the one every client has). */
export const jsonRpcTransport: ClientTransportFactory = {
  binding: "JSONRPC",
  create: (endpoint, options, checks, context) => new JsonRpcTransport(endpoint, options, checks, context),
};

/**
 * The params with the interface's `tenant` (specification-1.0.1.md §8.3.2: clients set it in every
 * request message to exactly the interface's value); params without an object shape are left as they are.
 */
function withTenantOf(params: unknown, tenant: string): unknown {
  if (params === undefined) return { tenant };
  if (typeof params !== "object" || params === null || Array.isArray(params)) return params;
  return { ...params, tenant };
}

function isErrorObject(value: unknown): value is A2AErrorObject {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const { code, message } = value as Record<string, unknown>;
  return Number.isInteger(code) && typeof message === "string";
}
