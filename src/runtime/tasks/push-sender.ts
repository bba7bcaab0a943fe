/**
 * Push-notification runtime of the code a2a-codegen generates: delivers a task's JSON to the webhook
 * URL a client supplied, without letting that URL reach inside the server's network (SSRF).
 *
 * - `checkUrl` validates a webhook URL when the push config is set: scheme, no credentials, and (where
 *   DNS can be asked: Node, Deno, Bun) every address the host resolves to must be public unless allow-listed.
 * - `send` POSTs with retries and backoff, follows no redirects, through a transport chosen at run time
 *   (push-transport-node.ts where `node:http` exists: the socket connects only to an address just
 *   checked; push-transport-fetch.ts elsewhere, e.g. on Cloudflare Workers: docs/edge.md says what it
 *   cannot check). The URL-level refusals (push-addresses.ts) are the same on every runtime.
 *
 * Copied verbatim into every generated folder; it imports no `node:` module.
 */
import { AllowList, checkAddresses, parseWebhook, redact, UnsafeWebhookError, type ParsedWebhook } from "./push-addresses.js";
import type { AttemptOutcome, LookupAnswer, PushRequest, PushTransport } from "./push-transport.js";
import { fetchTransport } from "./push-transport-fetch.js";
import { nodeTransport } from "./push-transport-node.js";

export { blockedAddressReason, UnsafeWebhookError } from "./push-addresses.js";
export type { AttemptOutcome, LookupAnswer, PushRequest, PushTransport } from "./push-transport.js";

/** Where to deliver a push notification: the client's push-notification config. */
export interface PushTarget {
  url: string;
  /** Sent as the `X-A2A-Notification-Token` header when present (the client's token, A2A spec). */
  token?: string;
  /** From the push config's `authentication`: when schemes include "Bearer" (case-insensitive) and credentials are given, send `Authorization: Bearer <credentials>`. */
  authentication?: { schemes: string[]; credentials?: string };
  /** The body's media type; default application/json (1.0 sends application/a2a+json). */
  contentType?: string;
  /** The W3C trace context of the turn that queued the notification, sent as the `traceparent` header (`--telemetry`). */
  traceparent?: string;
}

/** One event of a delivery, for logging. */
export interface PushEvent {
  type: "attempt-failed" | "delivered" | "gave-up" | "refused";
  url: string;
  /** The attempt it concerns (1-based); 0 when nothing was attempted. */
  attempt: number;
  status?: number;
  error?: string;
}

/** How a `PushSender` checks and delivers. */
export interface PushSenderOptions {
  /** Hosts or CIDR blocks allowed even though private/loopback/etc., e.g. ["127.0.0.1", "localhost", "10.0.0.0/8", "::1", "hooks.internal"]. Exact hostname match (case-insensitive) or IP within a CIDR / equal to an IP. */
  allow?: string[];
  /** Attempts after the first failure (network error, timeout, HTTP 5xx or 429); default 3. 4xx other than 429 is final. */
  retries?: number;
  /** First backoff delay in ms, doubled each retry with ±20% jitter; default 500. */
  backoffMs?: number;
  /** Per-attempt timeout in ms; default 10_000. */
  timeoutMs?: number;
  /** DNS resolution, injectable for tests; default the node transport's (node:dns lookup with { all: true }). */
  lookup?: (hostname: string) => Promise<LookupAnswer>;
  /** Only http: and https: are ever allowed; set false to refuse plain http: (default true: allowed). */
  allowHttp?: boolean;
  /**
   * How notifications are sent: "node" (node:http(s), DNS-checked, connects to the checked address; Node,
   * Deno, Bun), "fetch" (web `fetch`, redirects refused; URL-level checks only, see docs/edge.md), or
   * "auto" (default): "node" where `process.getBuiltinModule` gives node:http, "fetch" elsewhere (Workers).
   */
  transport?: "auto" | "node" | "fetch" | PushTransport;
  /** Called for each failed attempt / final outcome, for logging. */
  onEvent?: (event: PushEvent) => void;
}

/** The outcome of `PushSender.send`; delivery failures are reported here, never thrown. */
export type PushResult = { ok: true; status: number; attempts: number } | { ok: false; attempts: number; status?: number; error: string };

const DEFAULT_RETRIES = 3;
const DEFAULT_BACKOFF_MS = 500;
const DEFAULT_TIMEOUT_MS = 10_000;

/** Delivers push notifications to client-supplied webhooks, refusing URLs that point inside. */
export class PushSender {
  private readonly allow: AllowList;
  private readonly retries: number;
  private readonly backoffMs: number;
  private readonly timeoutMs: number;
  private readonly allowHttp: boolean;
  private readonly lookupOption: PushSenderOptions["lookup"];
  private readonly transportOption: NonNullable<PushSenderOptions["transport"]>;
  private chosen: Promise<PushTransport> | undefined;
  private readonly onEvent: PushSenderOptions["onEvent"];

  /** Throws a TypeError for an allow-list entry that looks like a CIDR block but is not a valid one. */
  constructor(options: PushSenderOptions = {}) {
    this.allow = new AllowList(options.allow ?? []);
    this.retries = nonNegative(options.retries, DEFAULT_RETRIES, true);
    this.backoffMs = nonNegative(options.backoffMs, DEFAULT_BACKOFF_MS, false);
    this.timeoutMs = nonNegative(options.timeoutMs, DEFAULT_TIMEOUT_MS, false);
    this.allowHttp = options.allowHttp ?? true;
    this.lookupOption = options.lookup;
    this.transportOption = options.transport ?? "auto";
    this.onEvent = options.onEvent;
  }

  /** The transport in use, chosen on first use ("auto": node:http where the runtime has it, fetch elsewhere). */
  transport(): Promise<PushTransport> {
    this.chosen ??= chooseTransport(this.transportOption);
    return this.chosen;
  }

  /**
   * Validates a webhook URL at config time: parses it (only http/https, no credentials in the URL), refuses
   * IP literals that are not public in any spelling the URL parser accepts (http://2130706433/,
   * http://0x7f.1/, http://[::ffff:127.0.0.1]/), and resolves a host name where DNS can be asked, refusing
   * when ANY address is blocked and neither the host nor the address is allow-listed. Throws
   * UnsafeWebhookError naming the URL and reason; a host that does not resolve is refused too. Makes no connection.
   */
  async checkUrl(url: string): Promise<void> {
    const webhook = parseWebhook(url, this.allow, this.allowHttp);
    if (webhook.literal !== undefined || webhook.hostAllowed) return;
    const lookup = await this.lookup();
    if (lookup === undefined) return; // fetch: DNS answers cannot be checked here (docs/edge.md)
    let addresses: LookupAnswer;
    try {
      addresses = await lookup(webhook.hostname);
    } catch (error) {
      const code = (error as { code?: unknown } | undefined)?.code;
      throw new UnsafeWebhookError(
        webhook.display,
        "unresolvable host",
        `webhook URL ${webhook.display}: host ${webhook.hostname} could not be resolved (${typeof code === "string" ? code : errorMessage(error)})`,
        `webhook URL ${webhook.display} is not allowed: its host could not be resolved`,
      );
    }
    checkAddresses(webhook, addresses, this.allow);
  }

  /**
   * POSTs `body` as JSON with the token / auth headers, following NO redirects (a 3xx is a failure: a
   * redirect could point inside). On the node transport the connection goes to an address just checked
   * (a DNS rebinding between check and connect cannot slip through). Retries with backoff as configured;
   * never throws for delivery failures (returns PushResult); a refused target returns { ok: false, error }
   * without any connection. An aborted `signal` stops at once with error "aborted".
   */
  async send(target: PushTarget, body: unknown, signal?: AbortSignal): Promise<PushResult> {
    let webhook: ParsedWebhook;
    try {
      webhook = parseWebhook(target.url, this.allow, this.allowHttp);
    } catch (error) {
      const message = errorMessage(error);
      this.emit({ type: "refused", url: redact(target.url), attempt: 0, error: message });
      return { ok: false, attempts: 0, error: message };
    }
    let payload: Uint8Array;
    try {
      payload = new TextEncoder().encode(JSON.stringify(body) ?? "null");
    } catch (error) {
      return this.giveUp(webhook, 0, `the body is not JSON-serializable: ${errorMessage(error)}`);
    }
    const headers: Record<string, string> = { "content-type": target.contentType ?? "application/json", "content-length": String(payload.byteLength) };
    if (target.token !== undefined) headers["x-a2a-notification-token"] = target.token;
    if (target.traceparent !== undefined) headers["traceparent"] = target.traceparent;
    const auth = target.authentication;
    if (auth?.credentials !== undefined && auth.schemes.some((s) => s.toLowerCase() === "bearer")) {
      headers["authorization"] = `Bearer ${auth.credentials}`;
    }
    const transport = await this.transport();
    const lookup = this.lookupOption ?? transport.lookup;
    const resolve = async (hostname: string): Promise<LookupAnswer> => {
      if (lookup === undefined) throw new Error(`no DNS lookup on the ${transport.name} transport`);
      const answers = await lookup(hostname);
      checkAddresses({ ...webhook, hostname }, answers, this.allow);
      return answers;
    };

    const maxAttempts = 1 + this.retries;
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) return this.giveUp(webhook, attempt - 1, "aborted");
      const outcome = await this.attempt(transport, { webhook, headers, body: payload, resolve }, signal);
      if (outcome.kind === "refused") {
        this.emit({ type: "refused", url: webhook.display, attempt, error: outcome.error });
        return { ok: false, attempts: attempt, error: outcome.error };
      }
      if (outcome.kind === "response" && outcome.status >= 200 && outcome.status < 300) {
        this.emit({ type: "delivered", url: webhook.display, attempt, status: outcome.status });
        return { ok: true, status: outcome.status, attempts: attempt };
      }
      const status = outcome.kind === "response" ? outcome.status : undefined;
      const error = outcome.kind === "response" ? describeStatus(outcome.status) : outcome.error;
      const retryable = outcome.kind === "response" ? outcome.status >= 500 || outcome.status === 429 : outcome.retryable;
      this.emit({ type: "attempt-failed", url: webhook.display, attempt, error, ...(status === undefined ? {} : { status }) });
      if (!retryable || attempt >= maxAttempts) return this.giveUp(webhook, attempt, error, status);
      const delay = this.backoffMs * 2 ** (attempt - 1) * (0.8 + 0.4 * Math.random());
      if (!(await sleep(delay, signal))) return this.giveUp(webhook, attempt, "aborted", status);
    }
  }

  private async lookup(): Promise<PushSenderOptions["lookup"]> {
    return this.lookupOption ?? (await this.transport()).lookup;
  }

  /** One POST under the per-attempt timeout; the transport drops the request when its signal aborts. */
  private async attempt(transport: PushTransport, request: Omit<PushRequest, "signal">, signal: AbortSignal | undefined): Promise<AttemptOutcome> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.timeoutMs);
    const onAbort = (): void => controller.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const outcome = await transport.post({ ...request, signal: controller.signal });
      if (outcome.kind === "response" || !controller.signal.aborted) return outcome;
      return timedOut ? { kind: "failed", error: `timed out after ${this.timeoutMs} ms`, retryable: true } : { kind: "failed", error: "aborted", retryable: false };
    } catch (error) {
      if (error instanceof UnsafeWebhookError) return { kind: "refused", error: error.message };
      return { kind: "failed", error: errorMessage(error), retryable: true };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  private giveUp(webhook: ParsedWebhook, attempts: number, error: string, status?: number): PushResult {
    this.emit({ type: "gave-up", url: webhook.display, attempt: attempts, error, ...(status === undefined ? {} : { status }) });
    return status === undefined ? { ok: false, attempts, error } : { ok: false, attempts, status, error };
  }

  private emit(event: PushEvent): void {
    try {
      this.onEvent?.(event);
    } catch {
      // A failing logger must not break delivery.
    }
  }
}

/** The transport an option names; "auto": node:http(s) where the runtime gives it (not on Workers), fetch elsewhere. */
async function chooseTransport(option: NonNullable<PushSenderOptions["transport"]>): Promise<PushTransport> {
  if (typeof option === "object") return option;
  if (option === "fetch") return fetchTransport();
  const node = nodeTransport();
  if (node !== undefined) return node;
  if (option === "node") throw new Error("pushNotifications.transport \"node\": this runtime has no node:http module");
  return fetchTransport();
}

function describeStatus(status: number): string {
  if (status >= 300 && status < 400) return `HTTP ${status} (redirects are not followed)`;
  return `HTTP ${status}`;
}

/** Resolves true after `ms`, or false as soon as `signal` aborts; leaves no timer or listener behind. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function nonNegative(value: number | undefined, fallback: number, integer: boolean): number {
  if (value === undefined || !Number.isFinite(value) || value < 0) return fallback;
  return integer ? Math.floor(value) : value;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
