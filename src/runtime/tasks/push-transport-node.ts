/**
 * The push sender's transport on runtimes with Node's built-in modules (Node, Deno, Bun): node:http(s)
 * with a guarded DNS lookup, so that the socket only ever connects to an address that was just checked
 * (a DNS rebinding between the check and the connect is refused), no agent, no redirects followed.
 *
 * The modules are taken at run time (`process.getBuiltinModule`), never by a
 * static `node:` import: the web entry (Cloudflare Workers) reaches this file and uses the fetch
 * transport instead (push-transport-fetch.ts).
 */
import { UnsafeWebhookError } from "./push-addresses.js";
import type { AttemptOutcome, LookupAnswer, PushRequest, PushTransport } from "./push-transport.js";

/** A response body is drained up to this many bytes, then the connection is dropped. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/** The parts of node:http's ClientRequest and IncomingMessage used here. */
interface NodeEmitter {
  on(event: string, listener: (...args: never[]) => void): unknown;
}
interface NodeClientRequest extends NodeEmitter {
  destroy(): void;
  end(body: Uint8Array): void;
}
interface NodeIncomingMessage extends NodeEmitter {
  statusCode?: number;
}
type LookupCallback = (error: Error | null, address: string | Array<{ address: string; family: number }>, family?: number) => void;
interface NodeRequestOptions {
  protocol: string;
  hostname: string;
  port: number | undefined;
  path: string;
  method: "POST";
  headers: Record<string, string>;
  agent: false;
  lookup: (hostname: string, options: { family?: number | string; all?: boolean }, callback: LookupCallback) => void;
}
interface NodeHttp {
  request(options: NodeRequestOptions, onResponse?: (response: NodeIncomingMessage) => void): NodeClientRequest;
}
interface NodeDns {
  lookup(hostname: string, options: { all: true; verbatim: true }, callback: (error: Error | null, addresses: Array<{ address: string; family: number }>) => void): void;
}

interface NodeModules {
  http: NodeHttp;
  https: NodeHttp;
  dns: NodeDns;
}

/** node:http, node:https and node:dns where the runtime has them (not on Cloudflare Workers): undefined elsewhere. */
function loadNodeModules(): NodeModules | undefined {
  const g = globalThis as { navigator?: { userAgent?: string }; process?: { versions?: { node?: string }; getBuiltinModule?: (id: string) => unknown } };
  // workerd's nodejs_compat has a node:http on top of fetch, and no DNS: the fetch transport is the honest one there.
  if (g.navigator?.userAgent === "Cloudflare-Workers" || g.process?.versions?.node === undefined) return undefined;
  // Node 20.16+, Deno 2, Bun 1.1+ (a dynamic import instead would be refused by Workers' module bundling).
  const builtin = g.process.getBuiltinModule;
  if (typeof builtin !== "function") return undefined;
  const load = (name: string): unknown => builtin.call(g.process, `node:${name}`);
  const [http, https, dns] = [load("http"), load("https"), load("dns")];
  if (!hasFunction(http, "request") || !hasFunction(https, "request") || !hasFunction(dns, "lookup")) return undefined;
  return { http: http as NodeHttp, https: https as NodeHttp, dns: dns as NodeDns };
}

function hasFunction(module: unknown, name: string): boolean {
  return typeof module === "object" && module !== null && typeof (module as Record<string, unknown>)[name] === "function";
}

/** The node transport, or undefined on a runtime without node:http (the sender then uses fetch). */
export function nodeTransport(): PushTransport | undefined {
  const modules = loadNodeModules();
  if (modules === undefined) return undefined;
  const lookup = (hostname: string): Promise<LookupAnswer> =>
    new Promise((resolve, reject) =>
      modules.dns.lookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
        error ? reject(error) : resolve(addresses.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }))),
      ),
    );
  return { name: "node", lookup, post: (request) => post(modules, request) };
}

/** A DNS lookup for `http.request` that refuses (with an UnsafeWebhookError) any blocked answer. */
function guardedLookup(request: PushRequest): NodeRequestOptions["lookup"] {
  return (hostname, options, callback) => {
    request
      .resolve(hostname)
      .then((answers) => {
        const wanted = options.family === 4 || options.family === 6 ? answers.filter((a) => a.family === options.family) : answers;
        const first = wanted[0];
        if (first === undefined) {
          callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }), "");
        } else if (options.all === true) {
          callback(null, wanted.map((a) => ({ address: a.address, family: a.family })));
        } else {
          callback(null, first.address, first.family);
        }
      })
      .catch((error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), ""));
  };
}

/** One POST; settles when the response has been read, the attempt failed or its signal aborted. */
function post(modules: NodeModules, request: PushRequest): Promise<AttemptOutcome> {
  const { webhook, signal } = request;
  return new Promise<AttemptOutcome>((resolve) => {
    let sent: NodeClientRequest | undefined;
    let status: number | undefined;
    let settled = false;
    const finish = (outcome: AttemptOutcome): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      sent?.destroy();
      resolve(status !== undefined && outcome.kind !== "response" ? { kind: "response", status } : outcome);
    };
    const onAbort = (): void => finish({ kind: "failed", error: "aborted", retryable: false });
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });

    const http = webhook.url.protocol === "https:" ? modules.https : modules.http;
    try {
      sent = http.request({
        protocol: webhook.url.protocol,
        hostname: webhook.hostname,
        port: webhook.url.port === "" ? undefined : Number(webhook.url.port),
        path: `${webhook.url.pathname}${webhook.url.search}`,
        method: "POST",
        headers: request.headers,
        agent: false,
        lookup: guardedLookup(request),
      });
    } catch (error) {
      finish({ kind: "failed", error: error instanceof Error ? error.message : String(error), retryable: false }); // e.g. a header with a newline
      return;
    }
    sent.on("error", (error: Error) => {
      if (error instanceof UnsafeWebhookError) finish({ kind: "refused", error: error.message });
      else finish({ kind: "failed", error: error.message, retryable: true });
    });
    sent.on("response", (response: NodeIncomingMessage) => {
      status = response.statusCode ?? 0;
      let bytes = 0;
      const done = (): void => finish({ kind: "response", status: status ?? 0 });
      response.on("data", (chunk: Uint8Array) => {
        bytes += chunk.byteLength;
        if (bytes > MAX_RESPONSE_BYTES) done();
      });
      response.on("error", done);
      response.on("end", done);
      response.on("close", done);
    });
    sent.end(request.body);
  });
}
