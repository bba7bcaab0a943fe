/**
 * Test bridge: today's generated server core (JSON-RPC over plain-data HTTP, `core.handle(request)`) seen
 * as the transport-free service of the contract (`call` / `stream` throwing A2A errors). It lets the gRPC
 * binding run against the real task runtime, auth and version negotiation before the service split lands;
 * once `src/runtime/service.ts` exists the binding takes that service directly.
 */
import type { A2AServiceLike, GrpcCallContext } from "../../src/runtime/grpc/server.js";

type Json = Record<string, unknown>;

interface CoreLike {
  handle(request: {
    method: string;
    path: string;
    query: URLSearchParams;
    headers: Record<string, string | undefined>;
    body: string;
  }): Promise<
    | { kind: "json"; status: number; headers: Record<string, string>; body: string }
    | { kind: "empty"; status: number; headers: Record<string, string> }
    | { kind: "sse"; status: 200; headers: Record<string, string>; open(sink: { write(chunk: string): void; end(): void }): () => void }
  >;
}

export class BridgedA2AError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
    readonly http?: number,
    readonly challenge?: string,
  ) {
    super(message);
  }
}

export function jsonRpcService(core: CoreLike, rpcPath: string): A2AServiceLike {
  let id = 0;
  const post = (method: string, params: unknown, ctx: GrpcCallContext, accept: string) =>
    core.handle({
      method: "POST",
      path: rpcPath,
      query: new URLSearchParams(),
      headers: { ...ctx.headers, "content-type": "application/json", accept },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params: params ?? {} }),
    });
  const answer = (status: number, headers: Record<string, string>, text: string): unknown => {
    const response = JSON.parse(text) as { result?: unknown; error?: { code: number; message: string; data?: unknown } };
    if (response.error) {
      const http = status === 401 || status === 403 ? status : undefined;
      throw new BridgedA2AError(response.error.code, response.error.message, response.error.data, http, headers["www-authenticate"]);
    }
    return response.result;
  };
  return {
    async call(method, params, ctx) {
      const response = await post(method, params, ctx, "application/json");
      if (response.kind !== "json") throw new Error(`unexpected ${response.kind} answer to ${method}`);
      return answer(response.status, response.headers, response.body);
    },
    async stream(method, params, ctx) {
      const response = await post(method, params, ctx, "text/event-stream");
      if (response.kind === "json") answer(response.status, response.headers, response.body); // throws the error
      if (response.kind !== "sse") throw new Error(`unexpected ${response.kind} answer to ${method}`);
      const queue: Array<{ data?: string; end?: true }> = [];
      let wake: (() => void) | undefined;
      let buffer = "";
      const push = (item: { data?: string; end?: true }) => {
        queue.push(item);
        wake?.();
      };
      const stop = response.open({
        write(chunk) {
          buffer += chunk;
          let at: number;
          while ((at = buffer.indexOf("\n\n")) >= 0) {
            const frame = buffer.slice(0, at);
            buffer = buffer.slice(at + 2);
            const data = frame
              .split("\n")
              .filter((l) => l.startsWith("data:"))
              .map((l) => l.slice(5).trimStart())
              .join("\n");
            if (data) push({ data });
          }
        },
        end() {
          push({ end: true });
        },
      });
      ctx.signal.addEventListener("abort", () => {
        stop();
        push({ end: true });
      });
      // The first frame decides: an error before any event rejects the call (the contract's rule).
      const next = async (): Promise<{ data?: string; end?: true }> => {
        while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        return queue.shift() as { data?: string; end?: true };
      };
      const first = await next();
      if (first.data !== undefined) {
        const parsed = JSON.parse(first.data) as Json;
        if (parsed.error) answer(200, {}, first.data);
      }
      return (async function* () {
        try {
          let item = first;
          while (item.end !== true) {
            if (item.data !== undefined) yield answer(200, {}, item.data);
            item = await next();
          }
        } finally {
          stop();
        }
      })();
    },
  };
}
