/**
 * The driver of the HTTP+JSON fuzz suites (test/runtime/http/rest-fuzz.test.ts, and a compat agent's in test/compat):
 * sends the seeded requests with a few in flight and collects what is wrong with each answer — a 5xx, an
 * error body that is not the binding's, a 2xx that is not JSON or an event stream of JSON events, a failed
 * request — and how many answers each status had.
 */
import { sseData } from "../servers.js";

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

export interface FuzzOutcome {
  problems: string[];
  statuses: Map<number, number>;
}

export async function sendFuzzRequests(
  baseUrl: string,
  requests: readonly FuzzRequest[],
  options: {
    concurrency: number;
    framework: string;
    /** What is wrong with an error answer (4xx) of this status and JSON body, or undefined when it is the binding's. */
    errorProblem: (status: number, body: unknown) => string | undefined;
    /** How a request is named in a problem. */
    label?: (request: FuzzRequest, index: number) => string;
  },
): Promise<FuzzOutcome> {
  const problems: string[] = [];
  const statuses = new Map<number, number>();
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const i = next++;
      const request = requests[i] as FuzzRequest;
      const what = options.label?.(request, i) ?? `#${i} ${request.method} ${request.path.slice(0, 120)}`;
      try {
        const response = await fetch(baseUrl + request.path, {
          method: request.method,
          headers: request.headers,
          ...(request.body !== undefined ? { body: request.body } : {}),
          signal: AbortSignal.timeout(10_000),
        });
        const text = await response.text();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        const type = response.headers.get("content-type") ?? "";
        if (response.status >= 500) problems.push(`${what}: ${response.status} ${text.slice(0, 200)}`);
        else if (response.status >= 400) {
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          // Fastify's router refuses a path with broken percent-encoding before any plugin runs
          // (FST_ERR_BAD_URL, changed only by the app's own `frameworkErrors` option).
          const fastifyBadUrl = options.framework === "fastify" && response.status === 400 && (body as { code?: string } | undefined)?.code === "FST_ERR_BAD_URL";
          const problem = fastifyBadUrl ? undefined : options.errorProblem(response.status, body);
          if (problem) problems.push(`${what}: ${response.status} ${problem}: ${text.slice(0, 200)}`);
        } else if (type.startsWith("text/event-stream")) {
          for (const data of sseData(text)) JSON.parse(data);
        } else JSON.parse(text);
      } catch (error) {
        problems.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return { problems, statuses };
}
