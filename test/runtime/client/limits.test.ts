// Limits (issue 16.6, client side): unary answers and agent cards are read with a running byte count and
// cut at a configurable limit, like SSE events are (maxEventBytes), so a huge answer is refused early
// instead of being read whole.
import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import {
  A2AResponseTooLargeError,
  DEFAULT_MAX_CARD_BYTES,
  DEFAULT_MAX_RESPONSE_BYTES,
  fetchAgentCard,
  JsonRpcTransport,
} from "../../../src/runtime/client/client.js";
import { failure, json, serve } from "../../support/stub-servers.js";

const MiB = 1024 * 1024;

/**
 * Streams `{"jsonrpc":"2.0","id":1,"result":"xxxx…"}` of `total` bytes without a content-length, 64 KiB
 * per write, respecting backpressure; `written` resolves with the bytes written when the connection closes.
 */
function trickleHuge(res: ServerResponse, total: number, contentType = "application/json"): Promise<number> {
  res.writeHead(200, { "content-type": contentType });
  const chunk = Buffer.alloc(64 * 1024, "x");
  let written = 0;
  res.write('{"jsonrpc":"2.0","id":1,"result":"');
  return new Promise((resolve) => {
    res.on("close", () => resolve(written));
    const pump = (): void => {
      while (written < total && !res.destroyed) {
        written += chunk.length;
        if (!res.write(chunk)) {
          res.once("drain", pump);
          return;
        }
      }
      if (!res.destroyed) res.end('"}');
    };
    pump();
  });
}

describe("unary answers are capped", () => {
  it("documents its defaults: 16 MiB for an answer, 1 MiB for a card", () => {
    expect(DEFAULT_MAX_RESPONSE_BYTES).toBe(16 * MiB);
    expect(DEFAULT_MAX_CARD_BYTES).toBe(1 * MiB);
  });

  it("cuts a 64 MiB answer early with an A2AResponseTooLargeError (the default limit), closing the connection", async () => {
    let written: Promise<number> = Promise.resolve(0);
    const server = await serve((_req, res) => {
      written = trickleHuge(res, 64 * MiB);
    });
    const error = await failure(new JsonRpcTransport(server.url).call("GetTask", { id: "t" }));
    expect(error).toBeInstanceOf(A2AResponseTooLargeError);
    expect(error).toMatchObject({ limit: DEFAULT_MAX_RESPONSE_BYTES, status: 200 });
    expect((error as Error).message).toBe(`GetTask: the response is larger than ${DEFAULT_MAX_RESPONSE_BYTES} bytes`);
    // The server could not write the whole answer: the client stopped reading and closed the connection.
    expect(await written).toBeLessThan(64 * MiB);
  });

  it("honors maxResponseBytes, and refuses at once an answer whose content-length is over it", async () => {
    const small = await serve((_req, res, received) => json(res, 200, { jsonrpc: "2.0", id: received.json?.["id"], result: "y".repeat(2000) }));
    await expect(new JsonRpcTransport(small.url, { maxResponseBytes: 4000 }).call("x", {})).resolves.toHaveLength(2000);
    const error = await failure(new JsonRpcTransport(small.url, { maxResponseBytes: 1000 }).call("x", {}));
    expect(error).toBeInstanceOf(A2AResponseTooLargeError);
    expect(error).toMatchObject({ limit: 1000 });
  });

  it("caps the body of a stream request that is answered with JSON instead of events", async () => {
    const server = await serve((_req, res) => void trickleHuge(res, 4 * MiB));
    const transport = new JsonRpcTransport(server.url, { maxResponseBytes: 64 * 1024 });
    const iterator = transport.stream("SendStreamingMessage", {})[Symbol.asyncIterator]();
    const error = await failure(iterator.next());
    expect(error).toBeInstanceOf(A2AResponseTooLargeError);
  });
});

describe("agent cards are capped", () => {
  it("refuses a card over maxCardBytes (default 1 MiB), counted while reading", async () => {
    const server = await serve((_req, res) => void trickleHuge(res, 2 * MiB));
    const error = await failure(fetchAgentCard(server.url, "/.well-known/agent-card.json"));
    expect(error).toBeInstanceOf(A2AResponseTooLargeError);
    expect(error).toMatchObject({ limit: DEFAULT_MAX_CARD_BYTES });
    const card = { name: "n".repeat(5000) };
    const ok = await serve((_req, res) => json(res, 200, card));
    await expect(fetchAgentCard(ok.url, "/.well-known/agent-card.json", { maxCardBytes: 10_000 })).resolves.toEqual(card);
    await expect(fetchAgentCard(ok.url, "/.well-known/agent-card.json", { maxCardBytes: 4_000 })).rejects.toBeInstanceOf(A2AResponseTooLargeError);
  });
});
