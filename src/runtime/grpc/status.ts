/**
 * A2A errors as gRPC statuses and back (specification-1.0.1.md §5.4 "Error Code Mappings", §10.6, §3.3.2).
 *
 * An A2A error is known by its name in the version's error table (profile.errorCodes: "TaskNotFound" →
 * -32001). The binding facts below give each name its gRPC status; the ErrorInfo `reason` is the name in
 * UPPER_SNAKE_CASE ("TASK_NOT_FOUND") in the domain "a2a-protocol.org", which is how a client tells the
 * A2A errors that share a status (FAILED_PRECONDITION) apart.
 */
import { isErrorDetail, typeUrl, type ErrorDetail } from "./google-rpc.js";
import { fieldPath } from "../a2a-error.js";

/** The gRPC status codes (grpc/doc/statuscodes.md), by name. */
export const GRPC_STATUS = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

export type GrpcStatusName = keyof typeof GRPC_STATUS;

/**
 * The gRPC status of each error, by its name in the version's error table. The A2A errors are §5.4's
 * table (0.3.0's AuthenticatedExtendedCardNotConfigured is 1.0's ExtendedAgentCardNotConfigured); the
 * JSON-RPC 2.0 errors follow §3.3.2's categories (validation → INVALID_ARGUMENT, system → INTERNAL) and
 * gRPC's own meaning of an unknown method (UNIMPLEMENTED).
 */
export const ERROR_STATUS: { readonly [errorName: string]: GrpcStatusName } = {
  TaskNotFound: "NOT_FOUND",
  TaskNotCancelable: "FAILED_PRECONDITION",
  PushNotificationNotSupported: "FAILED_PRECONDITION",
  UnsupportedOperation: "FAILED_PRECONDITION",
  ContentTypeNotSupported: "INVALID_ARGUMENT",
  InvalidAgentResponse: "INTERNAL",
  ExtendedAgentCardNotConfigured: "FAILED_PRECONDITION",
  AuthenticatedExtendedCardNotConfigured: "FAILED_PRECONDITION",
  ExtensionSupportRequired: "FAILED_PRECONDITION",
  VersionNotSupported: "FAILED_PRECONDITION",
  JSONParse: "INVALID_ARGUMENT",
  InvalidRequest: "INVALID_ARGUMENT",
  InvalidParams: "INVALID_ARGUMENT",
  MethodNotFound: "UNIMPLEMENTED",
  Internal: "INTERNAL",
};

/** The ErrorInfo domain of A2A errors (§10.6). */
export const A2A_ERROR_DOMAIN = "a2a-protocol.org";

/** The JSON-RPC code the runtime uses for authentication and authorization failures (a2a-error.ts AUTH_ERROR_CODE). */
export const AUTH_ERROR_CODE = -32000;

/** What the service throws: the version's JSON-RPC code, message and data; auth failures carry `http` and `challenge`. */
export interface A2AErrorLike {
  code: number;
  message: string;
  data?: unknown;
  http?: number;
  challenge?: string;
}

export function isA2AErrorLike(value: unknown): value is A2AErrorLike {
  return value instanceof Error && typeof (value as { code?: unknown }).code === "number";
}

/** "TaskNotFound" → "TASK_NOT_FOUND". */
export function errorReason(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase();
}

/** The status a service error is answered with: code, message and google.rpc details. */
export function statusOfError(error: A2AErrorLike, errorCodes: { readonly [name: string]: number }): { code: number; message: string; details: ErrorDetail[] } {
  const name = Object.keys(errorCodes).find((n) => errorCodes[n] === error.code);
  let status: GrpcStatusName;
  if (error.http === 401) status = "UNAUTHENTICATED";
  else if (error.http === 403) status = "PERMISSION_DENIED";
  // A temporary failure (the store is unavailable): UNAVAILABLE, which clients retry (1.0.1 §3.3.2).
  else if (error.http === 503) status = "UNAVAILABLE";
  else status = (name && ERROR_STATUS[name]) || (error.code === AUTH_ERROR_CODE ? "UNAUTHENTICATED" : "UNKNOWN");
  return { code: GRPC_STATUS[status], message: error.message, details: detailsOf(error, name) };
}

/**
 * The details of an error: its data as it is when already a list of google.rpc details (the 1.0 service's
 * form), else (0.x) validation issues as a BadRequest and other data as ErrorInfo metadata; an A2A error
 * (-32001 …) always carries its ErrorInfo (§10.6 MUST).
 */
function detailsOf(error: A2AErrorLike, name: string | undefined): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const data = error.data;
  let metadata: Record<string, string> | undefined;
  if (Array.isArray(data) && data.every(isErrorDetail)) {
    details.push(...data);
  } else if (isObject(data) && Array.isArray(data["issues"])) {
    details.push({
      "@type": typeUrl("BadRequest"),
      fieldViolations: data["issues"].filter(isObject).map((issue) => ({
        field: typeof issue["pointer"] === "string" ? fieldPath(issue["pointer"]) : "",
        description: typeof issue["message"] === "string" ? issue["message"] : String(issue["message"]),
      })),
    });
  } else if (data !== undefined) {
    metadata = {};
    if (isObject(data)) for (const [key, value] of Object.entries(data)) metadata[key] = typeof value === "string" ? value : JSON.stringify(value);
    else metadata["detail"] = JSON.stringify(data);
  }
  const a2a = error.code <= -32001 && error.code >= -32099 && name !== undefined;
  const hasInfo = details.some((d) => d["@type"] === typeUrl("ErrorInfo"));
  if ((a2a || metadata) && !hasInfo && name !== undefined) {
    details.unshift({ "@type": typeUrl("ErrorInfo"), reason: errorReason(name), domain: A2A_ERROR_DOMAIN, metadata: metadata ?? {} });
  }
  return details;
}

/**
 * The JSON-RPC code a client reports for a status: the A2A error its ErrorInfo names, else the error
 * table's name for the status when only one name has it (NOT_FOUND → TaskNotFound), else the JSON-RPC 2.0
 * error of its category; undefined for a status that is not an answer of the agent (UNAVAILABLE, ...).
 */
export function codeOfStatus(code: number, details: readonly ErrorDetail[], errorCodes: { readonly [name: string]: number }): number | undefined {
  for (const detail of details) {
    if (detail["@type"] !== typeUrl("ErrorInfo") || detail["domain"] !== A2A_ERROR_DOMAIN || typeof detail["reason"] !== "string") continue;
    const name = Object.keys(errorCodes).find((n) => errorReason(n) === detail["reason"]);
    if (name !== undefined) return errorCodes[name];
  }
  if (code === GRPC_STATUS.UNAUTHENTICATED || code === GRPC_STATUS.PERMISSION_DENIED) return AUTH_ERROR_CODE;
  const statusName = (Object.keys(GRPC_STATUS) as GrpcStatusName[]).find((n) => GRPC_STATUS[n] === code);
  const names = Object.keys(errorCodes).filter((n) => statusName !== undefined && ERROR_STATUS[n] === statusName);
  if (names.length === 1) return errorCodes[names[0] as string];
  if (statusName === "INVALID_ARGUMENT") return errorCodes["InvalidParams"] ?? -32602;
  if (statusName === "INTERNAL" || statusName === "UNKNOWN") return errorCodes["Internal"] ?? -32603;
  if (statusName === "UNIMPLEMENTED") return errorCodes["MethodNotFound"] ?? -32601;
  return undefined;
}

/** "/message/parts/0/text" → "message.parts[0].text": the BadRequest field form, one rule for every binding. */
export { fieldPath };

function isObject(value: unknown): value is { [key: string]: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
