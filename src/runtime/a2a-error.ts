/**
 * The one A2A error type, whatever the side and the binding. On the server, an A2A error carries the
 * version's JSON-RPC code, a message and data; the bindings translate it to their own form (a JSON-RPC
 * error object, an HTTP status with a google.rpc.Status body, a gRPC status). Auth failures also carry the
 * HTTP status and the WWW-Authenticate challenge; a temporary failure (the store is unavailable) HTTP 503
 * and the seconds to wait before retrying (Retry-After). On the client, the error an agent answered with,
 * whatever the binding it came over: the same class (the version's subclass for its code, errors.ts), with
 * `method` set to the method called.
 */
import { isObject } from "./json.js";
import type { ProtocolProfile } from "./profile.js";
import type { ValidationIssue } from "./validation.js";

/** The `error` member of a JSON-RPC error response (and what any binding's error maps to). */
export interface A2AErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** What an A2A error may carry besides its code, message and data. */
export interface A2AErrorOptions {
  http?: 401 | 403 | 503;
  challenge?: string;
  retryAfter?: number;
  /** Set by the client: the method whose call the agent answered with this error. */
  method?: string;
}

export class A2AError extends Error {
  /**
   * The HTTP status of an auth failure (401 or 403) or of a temporary failure (503; gRPC UNAVAILABLE);
   * other errors take theirs from the binding's table.
   */
  readonly http: 401 | 403 | 503 | undefined;
  /** The WWW-Authenticate challenge of a 401. */
  readonly challenge: string | undefined;
  /** Of a 503: the seconds to wait before retrying (HTTP Retry-After). */
  readonly retryAfter: number | undefined;
  /**
   * The method called (e.g. "SendMessage"), when this error is an agent's answer received by the client;
   * undefined for an error raised on this side (what an executor throws).
   */
  readonly method: string | undefined;

  /** The version's JSON-RPC error code. */
  readonly code: number;
  /** The error's `data` (google.rpc-style details in 1.0); undefined when it had none. */
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown, options: A2AErrorOptions = {}) {
    super(message);
    this.name = "A2AError";
    this.code = code;
    this.data = data;
    this.http = options.http;
    this.challenge = options.challenge;
    this.retryAfter = options.retryAfter;
    this.method = options.method;
  }
}

/**
 * Whether `error` is an A2A error raised on this side (an executor's, the runtime's own), which a server
 * answers its caller with. An error some other agent answered (an executor calling agents through the
 * client: `method` is set) is not relayed as this server's answer: it is an ordinary failure.
 */
export function isRaisedA2AError(error: unknown): error is A2AError {
  return error instanceof A2AError && error.method === undefined;
}

/** The error an agent answered `method` with, for a code the version has no class for. */
export function receivedA2AError(method: string, error: A2AErrorObject): A2AError {
  return new A2AError(error.code, error.message, error.data, { method });
}

/** Auth failures answer with this JSON-RPC code (-32000: the implementation-defined server error range; A2A uses -32001…). */
export const AUTH_ERROR_CODE = -32000;

/** A JSON pointer as a google.rpc field path: "/params/message/parts/0/text" → "params.message.parts[0].text". */
export function fieldPath(pointer: string): string {
  return pointer
    .split("/")
    .slice(1)
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce((path, token) => (/^\d+$/.test(token) ? `${path}[${token}]` : path ? `${path}.${token}` : token), "");
}

/** The first 20 issues, copied (a response never shares objects with the validator). */
export function publicIssues(issues: readonly ValidationIssue[]): ValidationIssue[] {
  return issues.slice(0, 20).map((i) => ({ ...i }));
}

/** The name of an error code in the version's table ("TaskNotFound"), if it has one. */
export function errorName(profile: ProtocolProfile, code: number): string | undefined {
  return Object.entries(profile.errorCodes).find(([, c]) => c === code)?.[0];
}

/**
 * Error `data` in the version's form: as it is (0.x), or (1.0, §9.5 / §11.6) a list of google.rpc details:
 * the validation issues as a BadRequest with field violations, anything else as an ErrorInfo.
 */
export function errorDetails(profile: ProtocolProfile, code: number, data: unknown): unknown {
  if (data === undefined || !profile.errorDetails) return data;
  if (isObject(data) && Array.isArray(data["issues"])) {
    return [
      {
        "@type": "type.googleapis.com/google.rpc.BadRequest",
        fieldViolations: (data["issues"] as ValidationIssue[]).map((i) => ({ field: fieldPath(i.pointer), description: i.message })),
      },
    ];
  }
  const name = errorName(profile, code) ?? "Error";
  const metadata: Record<string, string> = {};
  if (isObject(data)) for (const [key, value] of Object.entries(data)) metadata[key] = typeof value === "string" ? value : JSON.stringify(value);
  else metadata["detail"] = JSON.stringify(data);
  return [
    {
      "@type": "type.googleapis.com/google.rpc.ErrorInfo",
      reason: name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase(),
      domain: "a2a-protocol.org",
      metadata,
    },
  ];
}
