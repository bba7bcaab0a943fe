/**
 * The errors the client runtime throws. Every transport (JSON-RPC, HTTP+JSON, gRPC) throws these same
 * classes, so a caller catches one set whatever binding the client picked.
 */

import type { ValidationIssue } from "../validation.js";

/**
 * An A2A error answered by the agent is an {@link A2AError} (the generated client's subclass for its code,
 * errors.ts of the output) with `method` set: the same classes the server raises.
 */
export { A2AError, receivedA2AError, type A2AErrorObject } from "../a2a-error.js";

/** The longest body excerpt an {@link A2ATransportError} keeps. */
export const MAX_BODY_EXCERPT = 500;

/**
 * The agent could not be reached or answered something that is not A2A: HTTP status and a bounded
 * excerpt of the body (≤ 500 chars) when there was one; `cause` keeps the network error.
 */
export class A2ATransportError extends Error {
  override readonly name: string = "A2ATransportError";
  /** The HTTP status, when a response arrived. */
  readonly status: number | undefined;
  /** The start of the response body (at most {@link MAX_BODY_EXCERPT} characters), when there was one. */
  readonly body: string | undefined;

  constructor(message: string, options: { status?: number | undefined; body?: string | undefined; cause?: unknown } = {}) {
    super(message, "cause" in options ? { cause: options.cause } : undefined);
    this.status = options.status;
    this.body = options.body === undefined ? undefined : excerpt(options.body);
  }
}

/**
 * The agent answered with a redirect the client does not follow: to another origin (refused unless
 * `redirects: "follow"`), or one too many (`maxRedirects`). Nothing was sent to `location`.
 */
export class A2ARedirectError extends A2ATransportError {
  override readonly name: string = "A2ARedirectError";
  /** The URL that answered with the redirect. */
  readonly from: string;
  /** Where the redirect pointed (absolute); undefined when the platform hides it (a browser's opaque redirect). */
  readonly location: string | undefined;

  constructor(message: string, options: { status: number; from: string; location: string | undefined }) {
    super(message, { status: options.status });
    this.from = options.from;
    this.location = options.location;
  }
}

/**
 * The client would send credentials (auth or headers) to an origin the user did not configure, e.g. an
 * agent card whose endpoint is on another origin than the card. Add the origin to `trustedOrigins` to
 * allow it.
 */
export class A2AUntrustedOriginError extends A2ATransportError {
  override readonly name: string = "A2AUntrustedOriginError";
  /** The origin credentials would have gone to. */
  readonly origin: string;

  constructor(message: string, origin: string) {
    super(message);
    this.origin = origin;
  }
}

/** A response body (a unary answer or an agent card) is larger than the limit; the rest was not read. */
export class A2AResponseTooLargeError extends A2ATransportError {
  override readonly name: string = "A2AResponseTooLargeError";
  /** The limit in bytes. */
  readonly limit: number;

  constructor(what: string, limit: number, status: number) {
    super(`${what}: the response is larger than ${limit} bytes`, { status });
    this.limit = limit;
  }
}

/** validateResponses is on and a response broke the schema. */
export class A2AResponseValidationError extends Error {
  override readonly name: string = "A2AResponseValidationError";
  /** The method called. */
  readonly method: string;
  /** What is wrong with the response, with JSON pointers into the whole response object. */
  readonly issues: ValidationIssue[];

  constructor(method: string, issues: ValidationIssue[]) {
    const shown = issues.slice(0, 5).map((issue) => issue.message);
    if (issues.length > shown.length) shown.push(`... and ${issues.length - shown.length} more`);
    super(`Invalid response to ${method}:\n${shown.join("\n")}`);
    this.method = method;
    this.issues = issues;
  }
}

/** The text cut to at most MAX_BODY_EXCERPT characters (ending in "…" when cut, never mid surrogate pair). */
function excerpt(text: string): string {
  if (text.length <= MAX_BODY_EXCERPT) return text;
  let end = MAX_BODY_EXCERPT - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}
