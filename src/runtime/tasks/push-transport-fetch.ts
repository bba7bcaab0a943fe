/**
 * The push sender's transport on runtimes without raw sockets (Cloudflare Workers, any fetch-only
 * runtime): the web `fetch` with `redirect: "manual"`, so a 3xx is answered as it is and never followed.
 *
 * What it cannot check: the DNS answers. `fetch` resolves the host itself, so a public-looking host name
 * whose DNS record points at a private address is not refused here; only the URL-level refusals apply
 * (push-addresses.ts: scheme, credentials, metadata host names, non-public IP literals in every spelling).
 * On Workers the platform covers the rest: a Worker's fetch goes out through Cloudflare's network, which
 * does not route to the Worker's own private networks nor to loopback/link-local addresses (docs/edge.md).
 */
import type { AttemptOutcome, PushRequest, PushTransport } from "./push-transport.js";

/** A response body is read up to this many bytes, then dropped. */
const MAX_RESPONSE_BYTES = 64 * 1024;

export function fetchTransport(): PushTransport {
  return { name: "fetch", lookup: undefined, post };
}

async function post(request: PushRequest): Promise<AttemptOutcome> {
  const { webhook, signal } = request;
  let response: Response;
  try {
    // content-length is the runtime's to set from the body.
    const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => name !== "content-length"));
    response = await fetch(webhook.url.href, { method: "POST", headers, body: request.body as Uint8Array<ArrayBuffer>, redirect: "manual", signal });
  } catch (error) {
    if (signal.aborted) return { kind: "failed", error: "aborted", retryable: false };
    // A TypeError from fetch is a network failure (refused, reset, TLS): worth another attempt.
    return { kind: "failed", error: error instanceof Error ? error.message : String(error), retryable: error instanceof TypeError };
  }
  await drain(response);
  // redirect "manual": a 3xx comes back as it is (status 0 and type "opaqueredirect" in browsers).
  const status = response.type === "opaqueredirect" ? 302 : response.status;
  return { kind: "response", status };
}

/** Reads a little of the body so the connection can be reused, then cancels the rest. */
async function drain(response: Response): Promise<void> {
  const reader = response.body?.getReader();
  if (reader === undefined) return;
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      bytes += value.byteLength;
      if (bytes > MAX_RESPONSE_BYTES) break;
    }
    await reader.cancel();
  } catch {
    // The status is what counts.
  }
}
