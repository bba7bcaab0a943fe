/**
 * Evidence for 0.3.0's form of an error before the first event of a streaming call (issue 15 item 4;
 * docs/interop.md "Stream errors before the first event"): @a2a-js/sdk 0.3.14's JSON-RPC client
 * (JsonRpcTransport, which its Client and A2AClient use) against a stub answering the same -32001 both ways.
 *
 * - a plain JSON-RPC error response (200 application/json): the SDK throws "Invalid response Content-Type
 *   for SSE stream", and the code is lost;
 * - one SSE event holding the JSON-RPC error (what specification-0.3.0.md §7 describes: "for streaming
 *   methods, an SSE stream where each event's data is a JSONRPCResponse"): the SDK throws an error whose
 *   `cause` carries the code (its TaskNotFound error).
 *
 * So our 0.3.0 server keeps the SSE form; 1.0.1 answers plain JSON (what the 1.x SDKs' own servers send and
 * their clients read; test/product/interop/sdk-v1.test.ts [V1]).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JsonRpcTransport } from "@a2a-js/sdk/client";
import { A2AClient, A2ATaskNotFoundError } from "../../../generated/a2a-0.3.0/client.js";
import { drain, userMessage } from "../../support/wire/jsonrpc.js";

type Form = "json" | "sse";

/** Answers every POST with a -32001 for its id, as plain JSON or as one SSE event, by the path. */
async function startStub(): Promise<{ url(form: Form): string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const { id } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: unknown };
      const body = JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32001, message: "Task not found", data: { taskId: "no-such-task" } } });
      if (req.url === "/json") res.writeHead(200, { "content-type": "application/json" }).end(body);
      else res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" }).end(`data: ${body}\n\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: (form) => `http://127.0.0.1:${port}/${form}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("@a2a-js/sdk 0.3.14's client and a stream that fails before its first event", () => {
  let stub: Awaited<ReturnType<typeof startStub>>;
  beforeAll(async () => {
    stub = await startStub();
  });
  afterAll(async () => stub.close());

  const failureOf = async (form: Form): Promise<Error & { cause?: unknown }> => {
    const transport = new JsonRpcTransport({ endpoint: stub.url(form) });
    try {
      await drain(transport.resubscribeTask({ id: "no-such-task" }));
    } catch (error) {
      return error as Error & { cause?: unknown };
    }
    throw new Error("the SDK read a failing stream without an error");
  };

  it("as plain JSON (200 application/json): the SDK throws a content-type error and the code -32001 is lost", async () => {
    const error = await failureOf("json");
    expect(error.message).toMatch(/Invalid response Content-Type for SSE stream/);
    expect(JSON.stringify({ message: error.message, cause: String(error.cause ?? "") })).not.toContain("32001");
  });

  it("as one SSE error event: the SDK's error carries the code in its cause", async () => {
    const error = await failureOf("sse");
    expect(error.message).toContain("Code: -32001");
    expect((error.cause as { constructor: { name: string } } | undefined)?.constructor.name).toMatch(/TaskNotFound/);
  });

  it("our generated 0.3.0 client reads both forms as A2ATaskNotFoundError", async () => {
    for (const form of ["json", "sse"] as const) {
      const client = new A2AClient(stub.url(form));
      await expect(drain(client.sendStreamingMessage({ message: userMessage("hi") }))).rejects.toBeInstanceOf(A2ATaskNotFoundError);
    }
  });
});
