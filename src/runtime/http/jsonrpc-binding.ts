/**
 * The JSON-RPC 2.0 binding over HTTP: POST to one path, the envelope checked (ids echoed as sent,
 * notifications unanswered, batches answered), the request validated against the version's request
 * definition, and the A2A service's results, streams (Server-Sent Events, one JSON-RPC response per
 * event) and errors framed as JSON-RPC responses.
 */
import { A2AError, errorDetails, publicIssues } from "../a2a-error.js";
import { jsonTextOf } from "../event-ids.js";
import { bodyText, httpCallContext, isJsonMediaType, JSON_HEADERS, jsonResponse, mediaType, sseOf, sseOnce } from "./http.js";
import type { CoreRequest, CoreResponse, SseResponse, CallContext, CallRecorder } from "../call.js";
import { checkRequestEnvelope, failure, jsonRpcError, JSON_RPC_ERROR, numericIdSources, parseJsonSafe, stringifyResponse, stringifySuccessText, success, successTextHead, type JsonRpcId, type JsonRpcResponse } from "../wire/jsonrpc.js";
import { isObject } from "../json.js";
import { afterFirstEvent } from "../wire/sse.js";
import type { A2AService } from "../service/service.js";

export interface JsonRpcBindingOptions {
  /** Largest request body in bytes (the adapters stop reading there). */
  maxBodyBytes: number;
  /** Time the body may take to arrive, in ms (the adapters stop reading then); for the error message. */
  bodyTimeoutMs?: number;
  /** Largest batch; default 50. */
  maxBatchSize?: number;
  /** Interval of SSE heartbeat comments in ms; 0 = none. */
  heartbeatMs: number;
  /** A server of two versions (runtime/compat/service.ts): the service that answers each request, or the error that refuses it. */
  route?: (ctx: CallContext, method: string) => A2AService | A2AError;
}

export class JsonRpcBinding {
  private readonly service: A2AService;
  private readonly options: JsonRpcBindingOptions;

  constructor(service: A2AService, options: JsonRpcBindingOptions) {
    this.service = service;
    this.options = options;
  }

  /** Answers one HTTP request to the JSON-RPC path; `span`: the call's, when the server is observed. */
  async handle(request: CoreRequest, span?: CallRecorder): Promise<CoreResponse> {
    if (request.method !== "POST") return httpError(405, "A2A JSON-RPC requests are POSTed", { allow: "POST" });
    let principal: unknown;
    try {
      if (this.service.requiresAuth) principal = await this.service.authenticate(httpCallContext(request, "JSONRPC"));
    } catch (error) {
      if (error instanceof A2AError && error.http) {
        return json(error.http, failure(null, jsonRpcError(error.code, error.message)), error.challenge !== undefined ? { "www-authenticate": error.challenge } : {});
      }
      throw error;
    }
    const admitted: CallContext = httpCallContext(request, "JSONRPC", { principal }, span);

    if (request.body === "too-large") {
      return json(413, failure(null, jsonRpcError(JSON_RPC_ERROR.invalidRequest, `Request body exceeds ${this.options.maxBodyBytes} bytes`)), { connection: "close" });
    }
    if (request.body === "timed-out") {
      return json(408, failure(null, jsonRpcError(JSON_RPC_ERROR.invalidRequest, `Request body not received within ${this.options.bodyTimeoutMs ?? 0} ms`)), { connection: "close" });
    }
    const type = mediaType(request);
    if (!isJsonMediaType(type)) {
      return json(415, failure(null, jsonRpcError(JSON_RPC_ERROR.invalidRequest, `Content-Type must be application/json, got ${type ? `"${type}"` : "none"}`)));
    }
    const text = bodyText(request);
    const parsed = parseJsonSafe(text);
    if (!parsed.ok) return json(200, failure(null, jsonRpcError(JSON_RPC_ERROR.parseError, "Parse error", this.details(JSON_RPC_ERROR.parseError, { message: parsed.message }))));

    // Numeric ids are echoed from their source text: a double would round an integer beyond 2^53.
    // Scanned only when an id is a number: a string id (the common case) is echoed from the parsed value.
    const idSources = hasNumericId(parsed.value) ? numericIdSources(text) : [];
    if (Array.isArray(parsed.value)) return this.batch(parsed.value, admitted, idSources);
    const single = await this.dispatch(parsed.value, admitted, false, idSources[0]);
    if (single === undefined) return { kind: "empty", status: 204, headers: {} };
    if ("kind" in single) return single;
    return { kind: "json", status: 200, headers: { ...JSON_HEADERS }, body: responseText(single, idSources[0]) };
  }

  private async batch(items: unknown[], ctx: CallContext, idSources: Array<string | undefined>): Promise<CoreResponse> {
    if (items.length === 0) return json(200, failure(null, jsonRpcError(JSON_RPC_ERROR.invalidRequest, "Empty batch")));
    const max = this.options.maxBatchSize ?? 50;
    if (items.length > max) return json(200, failure(null, jsonRpcError(JSON_RPC_ERROR.invalidRequest, `Batch larger than ${max} requests`)));
    const answers: string[] = [];
    for (const [index, item] of items.entries()) {
      const answer = await this.dispatch(item, ctx, true, idSources[index]);
      if (answer !== undefined && !("kind" in answer)) answers.push(responseText(answer, idSources[index]));
    }
    if (answers.length === 0) return { kind: "empty", status: 204, headers: {} };
    return { kind: "json", status: 200, headers: { ...JSON_HEADERS }, body: `[${answers.join(",")}]` };
  }

  /** One JSON-RPC request → its response, an SSE stream, or nothing (a notification). */
  private async dispatch(value: unknown, ctx: CallContext, inBatch: boolean, idSource: string | undefined): Promise<JsonRpcResponse | SseResponse | undefined> {
    let service = this.service;
    // Where the version's schema leaves `jsonrpc` optional (0.1.0), a request without it is accepted.
    const tolerant = !service.profile.jsonrpcRequired && isObject(value) && !("jsonrpc" in value) ? { ...value, jsonrpc: "2.0" } : value;
    const envelope = checkRequestEnvelope(tolerant);
    if (!envelope.ok) {
      const error = asIssues(envelope.error);
      return failure(envelope.id, jsonRpcError(error.code, error.message, this.details(error.code, error.data)));
    }
    const { request: rpc, notification } = envelope;
    const id: JsonRpcId = rpc.id ?? null;
    const routed = this.options.route?.(ctx, rpc.method) ?? this.service;
    if (routed instanceof A2AError) return notification ? undefined : failure(id, errorObject(routed));
    service = routed;
    const method = service.methods.get(rpc.method);
    if (!method) {
      return notification ? undefined : failure(id, jsonRpcError(JSON_RPC_ERROR.methodNotFound, `Method not found: ${rpc.method}`, errorDetails(service.profile, JSON_RPC_ERROR.methodNotFound, { method: rpc.method })));
    }
    const streaming = method.streaming;
    try {
      service.negotiate(ctx);
    } catch (error) {
      if (notification) return undefined;
      return failure(id, errorObject(error as A2AError));
    }
    if (streaming && (notification || inBatch)) {
      return notification ? undefined : failure(id, jsonRpcError(JSON_RPC_ERROR.invalidRequest, "A streaming method cannot be called in a batch"));
    }
    // An error before the first event of a streaming call: a plain JSON-RPC error response where the version
    // says so (1.0), else a stream of one error event (0.x frames every answer of a streaming method as SSE).
    const eventErrors = streaming && service.profile.streamErrorsAsResponse !== true;
    const answer = (response: JsonRpcResponse) => (eventErrors ? sseOnce(stringifyResponse(response, idSource)) : response);
    const descriptor = service.binding.methods[rpc.method];
    // The params as the version reads them (1.0 ProtoJSON: proto field names accepted, unknown fields left out).
    const params = service.input(rpc.method, rpc.params);
    const request = params === rpc.params || !isObject(value) ? value : { ...value, params };
    if (descriptor) {
      // The whole request against the version's request definition: problems outside params are the envelope's.
      const validate = service.binding.validators[descriptor.requestType];
      if (validate && !validate(request) && (validate.errors ?? []).some((i) => i.pointer !== "/id")) {
        // The id was checked above as JSON-RPC 2.0 §4 defines it (null and fractions are legal, SHOULD NOT only).
        const issues = (validate.errors ?? []).filter((i) => i.pointer !== "/id");
        const envelopeIssues = issues.filter((i) => !(i.pointer === "/params" || i.pointer.startsWith("/params/")));
        const code = envelopeIssues.length > 0 ? JSON_RPC_ERROR.invalidRequest : JSON_RPC_ERROR.invalidParams;
        if (notification) return undefined;
        return answer(failure(id, jsonRpcError(code, code === JSON_RPC_ERROR.invalidParams ? "Invalid params" : "Invalid request", errorDetails(service.profile, code, { issues: publicIssues(issues) }))));
      }
    }
    const principal = ctx.authenticated?.principal;
    try {
      if (streaming) {
        const opened = await service.openStream(rpc.method, params, ctx, principal);
        // Committed to SSE only once the first event is in: an error before it is the call's error.
        const events = eventErrors ? opened : await afterFirstEvent(opened);
        const head = successTextHead(id, idSource);
        return sseOf(
          events,
          (event) => {
            const text = jsonTextOf(event); // the logged event's own text: not serialized again
            return text !== undefined ? `${head}${text}}` : stringifyResponse(success(id, event), idSource);
          },
          (error) => stringifyResponse(failure(id, errorObject(error instanceof A2AError ? service.publicError(error) : new A2AError(JSON_RPC_ERROR.internalError, "Internal error"))), idSource),
          this.options.heartbeatMs,
        );
      }
      const result = await service.invoke(rpc.method, params, ctx, principal);
      return notification ? undefined : success(id, result === undefined ? null : result);
    } catch (error) {
      if (notification) return undefined;
      if (error instanceof A2AError) return answer(failure(id, errorObject(service.publicError(error))));
      throw error;
    }
  }

  private details(code: number, data: unknown): unknown {
    return errorDetails(this.service.profile, code, data);
  }
}

/** The JSON-RPC error object of an A2A error (its data is already in the version's form). */
function errorObject(error: A2AError) {
  return jsonRpcError(error.code, error.message, error.data);
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): CoreResponse {
  return jsonResponse(status, body, headers);
}

/** An HTTP-level refusal (wrong method, unknown path) as a JSON-RPC error. */
export function httpError(status: number, message: string, headers: Record<string, string> = {}): CoreResponse {
  return json(status, failure(null, jsonRpcError(JSON_RPC_ERROR.invalidRequest, message)), headers);
}

/** Whether a request, or a request of a batch, has a number as its id. */
function hasNumericId(value: unknown): boolean {
  if (Array.isArray(value)) return value.some((item) => isObject(item) && typeof item["id"] === "number");
  return isObject(value) && typeof value["id"] === "number";
}

/** An envelope error's `{ pointer, expected, got }` data as the same `{ issues: [...] }` shape params errors have. */
function asIssues(error: { code: number; message: string; data?: unknown }): { code: number; message: string; data?: unknown } {
  const data = error.data;
  if (!isObject(data) || typeof data["pointer"] !== "string") return error;
  const { pointer, expected, got } = data as { pointer: string; expected?: unknown; got?: unknown };
  const issue = {
    pointer,
    expected: String(expected ?? ""),
    got: String(got ?? ""),
    keyword: "envelope",
    message: `${pointer || "/"}: expected ${String(expected ?? "")}, got ${String(got ?? "")}`,
  };
  return { code: error.code, message: "Invalid request", data: { issues: [issue] } };
}

/** A response's JSON text; a result tagged with its JSON text (a committed task) is not serialized again. */
function responseText(response: JsonRpcResponse, idSource: string | undefined): string {
  const text = "result" in response ? jsonTextOf(response.result) : undefined;
  return text !== undefined ? stringifySuccessText(response.id, text, idSource) : stringifyResponse(response, idSource);
}
