// Stub HTTP servers for the client tests: each listens on 127.0.0.1 with an ephemeral port (two servers
// are two origins), records what it received and answers with the handler.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";

export interface Received {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown> | undefined;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, received: Received) => void | Promise<void>;

export interface StubServer {
  url: string;
  origin: string;
  received: Received[];
  /** Settles with the response of each request once the server has it (in arrival order). */
  nextResponse(): Promise<ServerResponse>;
  /** Stops listening now (an agent that cannot be reached); otherwise the server closes after the test. */
  close(): Promise<void>;
}

const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

export async function serve(handler: Handler): Promise<StubServer> {
  const received: Received[] = [];
  const waiting: ((res: ServerResponse) => void)[] = [];
  const arrived: ServerResponse[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      let json: Record<string, unknown> | undefined;
      try {
        json = body ? (JSON.parse(body) as Record<string, unknown>) : undefined;
      } catch {
        json = undefined;
      }
      const entry: Received = { method: req.method, url: req.url, headers: req.headers, body, json };
      received.push(entry);
      const waiter = waiting.shift();
      if (waiter) waiter(res);
      else arrived.push(res);
      void Promise.resolve(handler(req, res, entry)).catch((error: unknown) => res.destroy(error instanceof Error ? error : new Error(String(error))));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    origin: url,
    received,
    nextResponse: () => {
      const ready = arrived.shift();
      return ready ? Promise.resolve(ready) : new Promise((resolve) => waiting.push(resolve));
    },
    close: () => {
      servers.splice(servers.indexOf(server), 1);
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function json(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

/** Answers `{jsonrpc, id, result}` echoing the request's id. */
export const answer =
  (result: unknown): Handler =>
  (_req, res, received) =>
    json(res, 200, { jsonrpc: "2.0", id: received.json?.["id"] ?? null, result });

export function redirect(res: ServerResponse, status: number, location: string): void {
  res.writeHead(status, { location, "content-length": "0" });
  res.end();
}

/** The error the promise rejects with (failing when it resolves). */
export async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

/** Every item of the stream, or the error it ends with. */
export async function drain(iterable: AsyncIterable<unknown>): Promise<{ items: unknown[]; error?: unknown }> {
  const items: unknown[] = [];
  try {
    for await (const item of iterable) items.push(item);
  } catch (error) {
    return { items, error };
  }
  return { items };
}
