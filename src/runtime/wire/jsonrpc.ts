/**
 * JSON-RPC 2.0 runtime of the code a2a-codegen generates: safe JSON parsing, checks of request and
 * response envelopes (not of params or results: the generated validators do those) and constructors
 * of responses. Copied verbatim into every generated folder; it has no dependencies.
 */

/** A request id; a notification has none. */
export type JsonRpcId = string | number | null;

/** The error codes JSON-RPC 2.0 reserves. */
export const JSON_RPC_ERROR = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
} as const;

/** The `error` member of a failed response. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** A request as far as the envelope goes; `params` is unchecked. */
export interface JsonRpcRequestEnvelope {
  jsonrpc: "2.0";
  /** Absent for a notification. */
  id?: JsonRpcId;
  method: string;
  params?: unknown;
}

export interface JsonRpcSuccess {
  jsonrpc: "2.0";
  id: JsonRpcId;
  result: unknown;
}

export interface JsonRpcFailure {
  jsonrpc: "2.0";
  id: JsonRpcId;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure;

/**
 * JSON.parse that drops every "__proto__" key at any depth (so no later spread or assign can pollute a
 * prototype) and returns a result instead of throwing. The error message says where, as line and
 * column, when the engine's message gives a position (V8's does).
 */
export function parseJsonSafe(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    // Only a literal "__proto__" or a \u escape can spell the key; skip the slower reviver otherwise.
    const risky = text.includes("__proto__") || text.includes("\\u");
    return { ok: true, value: risky ? JSON.parse(text, dropProto) : JSON.parse(text) };
  } catch (error) {
    return { ok: false, message: describeJsonError(text, error) };
  }
}

/**
 * Checks one JSON-RPC 2.0 request envelope (not its params): an object; `jsonrpc` exactly "2.0";
 * `method` a non-empty string; `id` absent (a notification), a string, a number or null; `params` absent,
 * an object or an array. A batch (array) is the caller's to split: here it is an invalid request. On
 * failure: the -32600 error for the first problem (in that order), with `data` `{ pointer, expected,
 * got }`, and the id to echo: the request's id when valid, else null.
 */
export function checkRequestEnvelope(
  value: unknown,
): { ok: true; request: JsonRpcRequestEnvelope; notification: boolean } | { ok: false; id: JsonRpcId; error: JsonRpcErrorObject } {
  if (!isPlainObject(value)) return invalid(null, "", "an object", describe(value));
  const jsonrpc = member(value, "jsonrpc");
  const method = member(value, "method");
  const id = member(value, "id");
  const params = member(value, "params");
  const echo = isId(id) ? id : null;
  if (jsonrpc !== "2.0") return invalid(echo, "/jsonrpc", '"2.0"', describe(jsonrpc));
  if (typeof method !== "string" || method === "") return invalid(echo, "/method", "a non-empty string", describe(method));
  if (id !== undefined && !isId(id)) return invalid(null, "/id", "a string, a number or null", describe(id));
  if (params !== undefined && (params === null || typeof params !== "object")) {
    return invalid(echo, "/params", "an object or an array", describe(params));
  }
  const request: JsonRpcRequestEnvelope = { jsonrpc: "2.0", method };
  if (isId(id)) request.id = id;
  if (params !== undefined) request.params = params;
  return { ok: true, request, notification: id === undefined };
}

/**
 * The source text of each numeric `id` member of a JSON text that parsed (a request object → one entry;
 * a batch array → one per element; undefined where the id is absent or not a number). JSON.parse turns
 * a number into a double, which rounds integers beyond 2^53; the response echoes this text instead
 * (JSON-RPC 2.0 §5: the id "MUST be the same as the value of the id member in the Request Object").
 */
export function numericIdSources(text: string): Array<string | undefined> {
  // Read by character code: no string is made for a member name or a character (the text is the whole
  // request, read once per request whose id is a number), only for the numbers found at an id.
  const ids: Array<string | undefined> = [];
  let depth = 0;
  let arrayTop = false;
  let element = 0;
  /** After a member name and its colon: whether the name is `id` (undefined elsewhere). */
  let isIdMember: boolean | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let j = i + 1;
      let escaped = false;
      while (j < text.length && text.charCodeAt(j) !== QUOTE) {
        if (text.charCodeAt(j) === BACKSLASH) {
          escaped = true;
          j += 2;
        } else j++;
      }
      let k = j + 1;
      while (k < text.length && isJsonSpace(text.charCodeAt(k))) k++;
      if (text.charCodeAt(k) === COLON) {
        // A name with an escape (`"\u0069d"`) is decoded; the others are compared as written.
        isIdMember = escaped ? JSON.parse(text.slice(i, j + 1)) === "id" : j === i + 3 && text.charCodeAt(i + 1) === 0x69 && text.charCodeAt(i + 2) === 0x64;
        i = k;
      } else {
        isIdMember = undefined;
        i = j;
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (depth === 0 && c === OPEN_BRACKET) arrayTop = true;
      depth++;
      isIdMember = undefined;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      isIdMember = undefined;
    } else if (c === COMMA) {
      if (arrayTop && depth === 1) element++;
      isIdMember = undefined;
    } else if (isIdMember !== undefined && depth === (arrayTop ? 2 : 1) && (c === MINUS || isDigit(c))) {
      let j = i;
      while (j < text.length && isNumberCharacter(text.charCodeAt(j))) j++;
      // The last duplicate wins, as in JSON.parse; a non-number id is echoed from the parsed value anyway.
      if (isIdMember) ids[element] = text.slice(i, j);
      i = j - 1;
    }
  }
  return ids;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const MINUS = 0x2d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** What a JSON number is written with: digits, `-`, `+`, `.`, `e`, `E`. */
function isNumberCharacter(c: number): boolean {
  return isDigit(c) || c === MINUS || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45;
}

/** JSON's whitespace between tokens (RFC 8259 §2): space, tab, line feed, carriage return. */
function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/**
 * The JSON text of a response; a numeric id is written as `idSource` (its text in the request) when given,
 * so that an integer beyond 2^53 comes back exactly as sent.
 */
export function stringifyResponse(response: JsonRpcResponse, idSource?: string): string {
  if (idSource === undefined || typeof response.id !== "number") return JSON.stringify(response);
  const { jsonrpc: _jsonrpc, id: _id, ...rest } = response;
  return `{"jsonrpc":"2.0","id":${idSource},${JSON.stringify(rest).slice(1)}`;
}

/** The text of `stringifyResponse(success(id, result), idSource)` from the result's JSON text. */
export function stringifySuccessText(id: JsonRpcId, resultText: string, idSource?: string): string {
  return `${successTextHead(id, idSource)}${resultText}}`;
}

/**
 * What a success response's text has before its result's, `{"jsonrpc":"2.0","id":<id>,"result":` (the
 * response is that, the result's text and `}`): the same for every event of a stream, so made once.
 */
export function successTextHead(id: JsonRpcId, idSource?: string): string {
  const idText = idSource !== undefined && typeof id === "number" ? idSource : JSON.stringify(id);
  return `{"jsonrpc":"2.0","id":${idText},"result":`;
}

/** A successful response. */
export function success(id: JsonRpcId, result: unknown): JsonRpcSuccess {
  return { jsonrpc: "2.0", id, result };
}

/** A failed response. */
export function failure(id: JsonRpcId, error: JsonRpcErrorObject): JsonRpcFailure {
  return { jsonrpc: "2.0", id, error };
}

/** An error object; `data` is left out when undefined. */
export function jsonRpcError(code: number, message: string, data?: unknown): JsonRpcErrorObject {
  return data === undefined ? { code, message } : { code, message, data };
}

/**
 * Whether a value is a JSON-RPC 2.0 response envelope (for clients): `jsonrpc` "2.0", a valid `id`,
 * exactly one of `result` and `error`, and an error with an integer `code` and a string `message`.
 */
export function isJsonRpcResponse(value: unknown): value is JsonRpcResponse {
  if (!isPlainObject(value) || member(value, "jsonrpc") !== "2.0" || !isId(member(value, "id"))) return false;
  const result = member(value, "result");
  const error = member(value, "error");
  if ((result === undefined) === (error === undefined)) return false;
  if (error === undefined) return true;
  return isPlainObject(error) && Number.isInteger(member(error, "code")) && typeof member(error, "message") === "string";
}

function dropProto(key: string, value: unknown): unknown {
  return key === "__proto__" ? undefined : value;
}

function describeJsonError(text: string, error: unknown): string {
  const raw = error instanceof Error ? error.message : String(error);
  const match = / in JSON at position (\d+)(?: \(line \d+ column \d+\))?/.exec(raw);
  const position = match ? Number(match[1]) : /Unexpected end of JSON input/.test(raw) ? text.length : undefined;
  if (position === undefined) return `Invalid JSON: ${raw}`;
  const before = text.slice(0, position);
  const line = before.split("\n").length;
  const column = position - before.lastIndexOf("\n");
  return `Invalid JSON at line ${line}, column ${column}: ${match ? raw.replace(match[0], "") : raw}`;
}

function invalid(id: JsonRpcId, pointer: string, expected: string, got: string): { ok: false; id: JsonRpcId; error: JsonRpcErrorObject } {
  const message = `Invalid Request: ${pointer || "/"}: expected ${expected}, got ${got}`;
  return { ok: false, id, error: jsonRpcError(JSON_RPC_ERROR.invalidRequest, message, { pointer, expected, got }) };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An own member, so nothing inherited (polluted or not) counts; undefined when absent. */
function member(object: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
}

function isId(value: unknown): value is JsonRpcId {
  return value === null || typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

/** The value as the `got` of an error: the JSON text of a scalar (shortened), else its kind. */
function describe(value: unknown): string {
  if (value === undefined) return "missing";
  if (Array.isArray(value)) return "an array";
  if (value !== null && typeof value === "object") return "an object";
  const text = typeof value === "string" ? JSON.stringify(value) : String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
