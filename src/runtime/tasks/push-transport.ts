/**
 * What the push sender (push-sender.ts) asks of a transport, the one thing that differs between runtimes:
 * one POST of a notification, and a DNS lookup where the runtime can do one. The transports:
 * push-transport-node.ts (node:http(s), DNS-checked) and push-transport-fetch.ts (web fetch).
 */
import type { ParsedWebhook } from "./push-addresses.js";

/** A host name's addresses, as a DNS lookup answers them. */
export type LookupAnswer = Array<{ address: string; family: 4 | 6 }>;

/** One POST of a notification, as the sender hands it to a transport. */
export interface PushRequest {
  webhook: ParsedWebhook;
  headers: Record<string, string>;
  body: Uint8Array;
  /** Aborted when the attempt times out or the delivery is stopped: the transport then drops the request. */
  signal: AbortSignal;
  /** Resolves a host name for the connection, throwing UnsafeWebhookError when an answer is not public (and not allow-listed). */
  resolve(hostname: string): Promise<LookupAnswer>;
}

/** What became of one POST. */
export type AttemptOutcome = { kind: "response"; status: number } | { kind: "refused"; error: string } | { kind: "failed"; error: string; retryable: boolean };

/** How notifications travel: node:http(s) with a checked DNS lookup, or `fetch`. */
export interface PushTransport {
  readonly name: string;
  /** The transport's DNS lookup (checkUrl asks it); undefined where DNS cannot be asked (fetch). */
  readonly lookup: ((hostname: string) => Promise<LookupAnswer>) | undefined;
  post(request: PushRequest): Promise<AttemptOutcome>;
}
