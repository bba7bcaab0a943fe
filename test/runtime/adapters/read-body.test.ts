// readBody (runtime/adapters/node.ts) on its two paths: a node stream read through its events, any other
// async iterable through its iterator. The same answers either way: the bytes, "too-large" over the limit,
// "timed-out" when the body has not arrived in time.
import { PassThrough, Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { readBody } from "../../../src/runtime/adapters/node.js";

const text = (body: Uint8Array | string) => (typeof body === "string" ? body : Buffer.from(body).toString("utf8"));

async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield new TextEncoder().encode(part);
}

describe("readBody", () => {
  it("joins the chunks of a node stream in order", async () => {
    const stream = new PassThrough();
    const read = readBody(stream, 1024);
    stream.write("{\"a\":");
    stream.write("1}");
    stream.end();
    expect(text(await read)).toBe('{"a":1}');
  });

  it("joins the chunks of an async iterable that is no node stream", async () => {
    expect(text(await readBody(chunks("ab", "cd"), 1024))).toBe("abcd");
  });

  it("answers too-large past the limit, on both paths", async () => {
    expect(await readBody(Readable.from([Buffer.from("x".repeat(20))]), 10)).toBe("too-large");
    expect(await readBody(chunks("x".repeat(6), "x".repeat(6)), 10)).toBe("too-large");
    // A declared length far past the limit is refused before anything is read.
    expect(await readBody(new PassThrough(), 10, String(64 * 1024 * 1024))).toBe("too-large");
  });

  it("answers timed-out when the body trickles past the deadline, and stops reading", async () => {
    const stream = new PassThrough();
    stream.write("{");
    const started = Date.now();
    expect(await readBody(stream, 1024, undefined, 50)).toBe("timed-out");
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(stream.listenerCount("data")).toBe(0);
    async function* trickle(): AsyncGenerator<Uint8Array> {
      yield new TextEncoder().encode("{");
      await new Promise(() => undefined);
    }
    expect(await readBody(trickle(), 1024, undefined, 50)).toBe("timed-out");
  });

  it("answers a stream read to its end already (by a middleware) at once, without waiting for the deadline", async () => {
    const stream = Readable.from([Buffer.from("consumed")]);
    for await (const _chunk of stream) void _chunk;
    expect(stream.readableEnded).toBe(true);
    const started = Date.now();
    const body = await readBody(stream, 1024, undefined, 5_000);
    expect(body).toBeInstanceOf(Uint8Array);
    expect((body as Uint8Array).byteLength).toBe(0);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("rejects when the stream fails or closes before its end", async () => {
    const failing = new PassThrough();
    const read = readBody(failing, 1024);
    failing.destroy(new Error("socket hang up"));
    await expect(read).rejects.toThrow("socket hang up");
    const closed = new PassThrough();
    const early = readBody(closed, 1024);
    closed.destroy();
    await expect(early).rejects.toThrow();
  });
});
