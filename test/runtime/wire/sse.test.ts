import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, it, expect } from "vitest";
import { formatSseComment, formatSseEvent, parseSse, SseParseError, type SseEvent, type SseParseOptions } from "../../../src/runtime/wire/sse.js";

const encoder = new TextEncoder();
const bytes = (text: string): Uint8Array => encoder.encode(text);

/** A ReadableStream of the chunks (strings are UTF-8 encoded), recording whether it was cancelled. */
function streamOf(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> & { cancelled: () => boolean } {
  let cancelled = false;
  const queue = chunks.map((c) => (typeof c === "string" ? bytes(c) : c));
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = queue.shift();
      if (next) controller.enqueue(next);
      else controller.close();
    },
    cancel() {
      cancelled = true;
    },
  });
  return Object.assign(stream, { cancelled: () => cancelled });
}

async function* iterate<T>(chunks: T[]): AsyncGenerator<T> {
  for (const chunk of chunks) yield chunk;
}

async function collect(
  source: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array | string>,
  options?: SseParseOptions,
): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const event of parseSse(source, options)) events.push(event);
  return events;
}

/** Events of the text fed as one chunk, as bytes split at every position, and byte by byte. */
async function parseAllWays(text: string): Promise<SseEvent[]> {
  const whole = await collect(streamOf([text]));
  const all = bytes(text);
  for (let cut = 1; cut < all.length; cut++) {
    expect(await collect(streamOf([all.slice(0, cut), all.slice(cut)])), `split at byte ${cut}`).toEqual(whole);
  }
  expect(await collect(streamOf([...all].map((b) => Uint8Array.of(b)))), "byte by byte").toEqual(whole);
  return whole;
}

async function expectParseError(promise: Promise<unknown>, reason: SseParseError["reason"]): Promise<SseParseError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SseParseError);
  expect((error as SseParseError).reason).toBe(reason);
  expect((error as SseParseError).name).toBe("SseParseError");
  return error as SseParseError;
}

/** Deterministic PRNG (mulberry32). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("formatSseEvent", () => {
  it("frames data alone", () => {
    expect(formatSseEvent({ data: '{"a":1}' })).toBe('data: {"a":1}\n\n');
  });

  it("writes event and id lines first", () => {
    expect(formatSseEvent({ event: "error", id: "42", data: "x" })).toBe("event: error\nid: 42\ndata: x\n\n");
  });

  it("writes one data line per line, whatever the line break", () => {
    expect(formatSseEvent({ data: "a\nb\r\nc\rd" })).toBe("data: a\ndata: b\ndata: c\ndata: d\n\n");
    expect(formatSseEvent({ data: "a\n\nb\n" })).toBe("data: a\ndata: \ndata: b\ndata: \n\n");
  });

  it("frames empty data as one empty data line", () => {
    expect(formatSseEvent({ data: "" })).toBe("data: \n\n");
  });

  it("refuses an event name or id that would break framing", () => {
    expect(() => formatSseEvent({ event: "a\nb", data: "x" })).toThrow(TypeError);
    expect(() => formatSseEvent({ event: "a\rdata: evil", data: "x" })).toThrow(TypeError);
    expect(() => formatSseEvent({ id: "1\r\n", data: "x" })).toThrow(TypeError);
    expect(() => formatSseEvent({ id: "1\0", data: "x" })).toThrow(TypeError);
  });
});

describe("formatSseComment", () => {
  it("frames a heartbeat", () => {
    expect(formatSseComment("ping")).toBe(": ping\n\n");
    expect(formatSseComment()).toBe(":\n\n");
  });

  it("keeps every line of a multi-line text a comment", async () => {
    const text = formatSseComment("a\ndata: evil\r\rb");
    expect(text).toBe(": a\n: data: evil\n:\n: b\n\n");
    expect(await collect(streamOf([text]))).toEqual([]);
  });
});

describe("parseSse", () => {
  it("parses a simple event", async () => {
    expect(await collect(streamOf(["data: hello\n\n"]))).toEqual([{ data: "hello" }]);
  });

  it("joins multi-line data with \\n", async () => {
    expect(await parseAllWays("data: a\ndata: b\ndata: c\n\n")).toEqual([{ data: "a\nb\nc" }]);
  });

  it("accepts CRLF, lone CR and mixed line endings", async () => {
    expect(await parseAllWays("data: a\r\ndata: b\r\n\r\ndata: c\r\n\r\n")).toEqual([{ data: "a\nb" }, { data: "c" }]);
    expect(await parseAllWays("data: a\rdata: b\r\rdata: c\r\r")).toEqual([{ data: "a\nb" }, { data: "c" }]);
    expect(await parseAllWays("data: a\rdata: b\r\ndata: c\n\r\n")).toEqual([{ data: "a\nb\nc" }]);
  });

  it("counts a \\r\\n split across chunks once", async () => {
    expect(await collect(streamOf(["data: a\r", "\ndata: b\r", "\n\r", "\n"]))).toEqual([{ data: "a\nb" }]);
    expect(await collect(iterate(["data: a\r", "", "\ndata: b\r\n", "\r", "\n"]))).toEqual([{ data: "a\nb" }]);
  });

  it("treats \\r then \\r across chunks as two line ends", async () => {
    expect(await collect(streamOf(["data: a\r", "\rdata: b\r", "\r"]))).toEqual([{ data: "a" }, { data: "b" }]);
  });

  it("decodes multi-byte UTF-8 split anywhere across chunks", async () => {
    expect(await parseAllWays("data: héllo 😀 世界\n\nevent: ünï\ndata: ∑\n\n")).toEqual([
      { data: "héllo 😀 世界" },
      { event: "ünï", data: "∑" },
    ]);
  });

  it("skips comments and heartbeats", async () => {
    expect(await parseAllWays(": ping\n\n:\n\ndata: a\n: inside an event\ndata: b\n\n: ping\n\n")).toEqual([{ data: "a\nb" }]);
    expect(await collect(streamOf([": ping\n\n", ": ping\n\n"]))).toEqual([]);
  });

  it("reports the event type, resetting it after each event", async () => {
    expect(await parseAllWays('event: error\ndata: {"code":1}\n\ndata: next\n\n')).toEqual([
      { event: "error", data: '{"code":1}' },
      { data: "next" },
    ]);
  });

  it("ignores an empty event type", async () => {
    expect(await collect(streamOf(["event:\ndata: x\n\nevent\ndata: y\n\n"]))).toEqual([{ data: "x" }, { data: "y" }]);
  });

  it("removes exactly one leading space after the colon", async () => {
    expect(await collect(streamOf(["data:x\n\ndata:  two\n\ndata: \tthree \n\n"]))).toEqual([
      { data: "x" },
      { data: " two" },
      { data: "\tthree " },
    ]);
  });

  it("keeps colons inside the value", async () => {
    expect(await collect(streamOf(["data: a: b:c\n\n"]))).toEqual([{ data: "a: b:c" }]);
  });

  it("dispatches events whose data lines are empty", async () => {
    expect(await collect(streamOf(["data\n\n", "data:\ndata:\n\n", "data: a\ndata:\n\n"]))).toEqual([
      { data: "" },
      { data: "\n" },
      { data: "a\n" },
    ]);
  });

  it("does not dispatch at a blank line without data", async () => {
    expect(await collect(streamOf(["\n\n\r\n", "event: x\n\n", "id: 1\n\n", "retry: 5\n\n", "foo: bar\n\n"]))).toEqual([]);
  });

  it("keeps the last event id across events, per EventSource", async () => {
    const events = await parseAllWays("id: 1\ndata: a\n\ndata: b\n\nid: 2\ndata: c\n\nid\ndata: d\n\n");
    expect(events).toEqual([
      { id: "1", data: "a" },
      { id: "1", data: "b" },
      { id: "2", data: "c" },
      { id: "", data: "d" },
    ]);
  });

  it("sets the id even from an event without data, and ignores an id with NUL", async () => {
    expect(await collect(streamOf(["id: 7\n\ndata: a\n\nid: 8\0x\ndata: b\n\n"]))).toEqual([
      { id: "7", data: "a" },
      { id: "7", data: "b" },
    ]);
  });

  it("takes retry only when it is all digits, and keeps it", async () => {
    const events = await collect(streamOf(["retry: 3000\ndata: a\n\nretry: 10a\ndata: b\n\nretry: -1\nretry:\nretry: 1.5\n\ndata: c\n\nretry: 0\ndata: d\n\n"]));
    expect(events).toEqual([
      { retry: 3000, data: "a" },
      { retry: 3000, data: "b" },
      { retry: 3000, data: "c" },
      { retry: 0, data: "d" },
    ]);
  });

  it("ignores unknown fields", async () => {
    expect(await collect(streamOf(["foo: bar\ndata: a\nDATA: b\nData: c\nbaz\n\n"]))).toEqual([{ data: "a" }]);
  });

  it("strips a BOM at the start of the stream only", async () => {
    expect(await collect(streamOf([Uint8Array.of(0xef, 0xbb, 0xbf), "data: a\n\n"]))).toEqual([{ data: "a" }]);
    expect(await collect(streamOf([Uint8Array.of(0xef), Uint8Array.of(0xbb, 0xbf, 0x64), "ata: a\n\n"]))).toEqual([{ data: "a" }]);
    expect(await collect(iterate(["\uFEFFdata: a\n\n"]))).toEqual([{ data: "a" }]);
    // A second BOM makes the field name "\uFEFFdata", an unknown field.
    expect(await collect(streamOf(["\uFEFF\uFEFFdata: a\n\ndata: b\n\n"]))).toEqual([{ data: "b" }]);
    // Not a BOM at the start of a later chunk.
    expect(await collect(streamOf(["data: a\n", "\uFEFFdata: b\n\n"]))).toEqual([{ data: "a" }]);
  });

  it("does not dispatch an event cut off by the end of the stream", async () => {
    expect(await collect(streamOf(["data: a\n\ndata: b\n"]))).toEqual([{ data: "a" }]);
    expect(await collect(streamOf(["data: a\n\ndata: b"]))).toEqual([{ data: "a" }]);
    expect(await collect(streamOf(["data: a\n\ndata: b\r"]))).toEqual([{ data: "a" }]);
    expect(await collect(streamOf([]))).toEqual([]);
  });

  it("reads any async iterable of strings and bytes", async () => {
    expect(await collect(iterate<Uint8Array | string>(["data: a", bytes("\ndata: é"), "\n\n"]))).toEqual([{ data: "a\né" }]);
  });

  it("propagates a stream error and releases the reader", async () => {
    let sent = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent) controller.error(new Error("connection reset"));
        else controller.enqueue(bytes("data: a\n\n"));
        sent = true;
      },
    });
    const events: SseEvent[] = [];
    await expect(
      (async () => {
        for await (const event of parseSse(stream)) events.push(event);
      })(),
    ).rejects.toThrow("connection reset");
    expect(events).toEqual([{ data: "a" }]);
    expect(stream.locked).toBe(false);
  });

  describe("size cap", () => {
    it("accepts data of exactly maxEventBytes and refuses one byte more", async () => {
      expect(await collect(streamOf(["data: 12345\n\n"]), { maxEventBytes: 5 })).toEqual([{ data: "12345" }]);
      await expectParseError(collect(streamOf(["data: 123456\n\n"]), { maxEventBytes: 5 }), "event-too-large");
    });

    it("counts UTF-8 bytes and the \\n between data lines", async () => {
      expect(await collect(streamOf(["data: ab\ndata: c\n\n"]), { maxEventBytes: 4 })).toEqual([{ data: "ab\nc" }]);
      await expectParseError(collect(streamOf(["data: ab\ndata: cd\n\n"]), { maxEventBytes: 4 }), "event-too-large");
      expect(await collect(streamOf(["data: é😀\n\n"]), { maxEventBytes: 6 })).toEqual([{ data: "é😀" }]);
      await expectParseError(collect(streamOf(["data: é😀\n\n"]), { maxEventBytes: 5 }), "event-too-large");
    });

    it("counts each event on its own", async () => {
      expect(await collect(streamOf(["data: 1234\n\ndata: 5678\n\n"]), { maxEventBytes: 4 })).toHaveLength(2);
    });

    it("yields the events before the oversized one", async () => {
      const events: SseEvent[] = [];
      const run = (async () => {
        for await (const event of parseSse(streamOf(["data: ok\n\ndata: far too long\n\n"]), { maxEventBytes: 4 })) events.push(event);
      })();
      await expectParseError(run, "event-too-large");
      expect(events).toEqual([{ data: "ok" }]);
    });

    it("throws early on an endless event and stops reading", async () => {
      let pulled = 0;
      async function* endless(): AsyncGenerator<string> {
        for (;;) {
          pulled++;
          yield "data: " + "x".repeat(1000) + "\n";
        }
      }
      await expectParseError(collect(endless(), { maxEventBytes: 64 * 1024 }), "event-too-large");
      expect(pulled).toBeLessThanOrEqual(67);
    });

    it("throws early on an endless line and cancels the stream", async () => {
      let pulled = 0;
      let cancelled = false;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          controller.enqueue(bytes(pulled++ === 0 ? "data: " : "y".repeat(1000)));
        },
        cancel() {
          cancelled = true;
        },
      });
      await expectParseError(collect(stream, { maxEventBytes: 10_000 }), "event-too-large");
      expect(pulled).toBeLessThan(20);
      expect(cancelled).toBe(true);
      expect(stream.locked).toBe(false);
    });

    it("caps an endless comment line too", async () => {
      async function* endless(): AsyncGenerator<string> {
        yield ": ";
        for (;;) yield "z".repeat(1000);
      }
      await expectParseError(collect(endless(), { maxEventBytes: 10_000 }), "event-too-large");
    });

    it("defaults to 4 MiB", async () => {
      const big = "x".repeat(4 * 1024 * 1024);
      expect((await collect(iterate([`data: ${big}\n\n`])))[0]?.data.length).toBe(big.length);
      await expectParseError(collect(iterate([`data: ${big}x\n\n`])), "event-too-large");
    });

    it("refuses a negative or NaN cap", async () => {
      await expect(collect(iterate([]), { maxEventBytes: -1 })).rejects.toThrow(RangeError);
      await expect(collect(iterate([]), { maxEventBytes: Number.NaN })).rejects.toThrow(RangeError);
    });
  });

  describe("abort", () => {
    it("ends a pending read with SseParseError('aborted') and cancels the stream", async () => {
      let cancelled = false;
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(bytes("data: first\n\n"));
        },
        cancel() {
          cancelled = true;
        },
      });
      const controller = new AbortController();
      const events: SseEvent[] = [];
      const run = (async () => {
        for await (const event of parseSse(stream, { signal: controller.signal })) {
          events.push(event);
          setTimeout(() => controller.abort(new Error("user left")), 10);
        }
      })();
      const error = await expectParseError(run, "aborted");
      expect((error.cause as Error).message).toBe("user left");
      expect(events).toEqual([{ data: "first" }]);
      expect(cancelled).toBe(true);
      expect(stream.locked).toBe(false);
    });

    it("throws at once for an already aborted signal and cancels the stream", async () => {
      const stream = streamOf(["data: a\n\n"]);
      await expectParseError(collect(stream, { signal: AbortSignal.abort() }), "aborted");
      expect(stream.cancelled()).toBe(true);
      expect(stream.locked).toBe(false);
    });

    it("stops between events of one chunk", async () => {
      const controller = new AbortController();
      const events: SseEvent[] = [];
      const run = (async () => {
        for await (const event of parseSse(streamOf(["data: a\n\ndata: b\n\n"]), { signal: controller.signal })) {
          events.push(event);
          controller.abort();
        }
      })();
      await expectParseError(run, "aborted");
      expect(events).toEqual([{ data: "a" }]);
    });

    it("keeps nothing per chunk for the signal: a long stream's memory stays flat", async () => {
      // Racing each read against one promise that lives as long as the stream added a reaction to that
      // promise per chunk, kept until the stream ended: ~20 MB per 100,000 chunks here.
      setFlagsFromString("--expose-gc");
      const gc = runInNewContext("gc") as () => void;
      async function* endless(): AsyncGenerator<string> {
        for (;;) yield "data: x\n\n";
      }
      const controller = new AbortController();
      const events = parseSse(endless(), { signal: controller.signal });
      const read = async (count: number) => {
        for (let i = 0; i < count; i++) if ((await events.next()).done) throw new Error("the stream ended");
      };
      const heapAfterGc = () => {
        gc();
        gc();
        return process.memoryUsage().heapUsed;
      };
      await read(20_000);
      const before = heapAfterGc();
      await read(100_000);
      const growth = heapAfterGc() - before;
      controller.abort();
      await expect(events.next()).rejects.toThrow(SseParseError);
      expect(growth).toBeLessThan(4 * 1024 * 1024);
    });

    it("does not hang on an async iterable that never yields", async () => {
      let returned = false;
      const never: AsyncIterable<string> = {
        [Symbol.asyncIterator]: () => ({
          next: () => new Promise<IteratorResult<string>>(() => {}),
          return: async () => {
            returned = true;
            return { done: true, value: undefined };
          },
        }),
      };
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 10);
      await expectParseError(collect(never, { signal: controller.signal }), "aborted");
      expect(returned).toBe(true);
    });

    it("does not hang on an async generator stuck in a pending next()", async () => {
      async function* stuck(): AsyncGenerator<string> {
        yield "data: a\n\n";
        await new Promise<never>(() => {}); // return() of a generator waits for this, forever
      }
      const controller = new AbortController();
      const events: SseEvent[] = [];
      const run = (async () => {
        for await (const event of parseSse(stuck(), { signal: controller.signal })) {
          events.push(event);
          setTimeout(() => controller.abort(), 10);
        }
      })();
      const timeout = new Promise<string>((resolve) => setTimeout(() => resolve("hung"), 1000));
      expect(await Promise.race([run.then(() => "done", (e: unknown) => (e instanceof SseParseError ? e.reason : "other")), timeout])).toBe("aborted");
      expect(events).toEqual([{ data: "a" }]);
    });

    it("removes its abort listener when done", async () => {
      const controller = new AbortController();
      expect(await collect(streamOf(["data: a\n\n"]), { signal: controller.signal })).toEqual([{ data: "a" }]);
      controller.abort(); // nothing listens any more: no unhandled rejection, no error
    });
  });

  describe("leaving early", () => {
    it("cancels the ReadableStream when the loop breaks", async () => {
      let cancelled = false;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          controller.enqueue(bytes("data: tick\n\n"));
        },
        cancel() {
          cancelled = true;
        },
      });
      let seen = 0;
      for await (const event of parseSse(stream)) {
        expect(event.data).toBe("tick");
        if (++seen === 3) break;
      }
      expect(cancelled).toBe(true);
      expect(stream.locked).toBe(false);
    });

    it("cancels the ReadableStream when the loop body throws", async () => {
      const stream = streamOf(["data: a\n\n", "data: b\n\n"]);
      await expect(
        (async () => {
          for await (const _ of parseSse(stream)) throw new Error("consumer failed");
        })(),
      ).rejects.toThrow("consumer failed");
      expect(stream.cancelled()).toBe(true);
    });

    it("returns the async iterator when the loop breaks", async () => {
      let finalized = false;
      async function* source(): AsyncGenerator<string> {
        try {
          for (;;) yield "data: x\n\n";
        } finally {
          finalized = true;
        }
      }
      for await (const _ of parseSse(source())) break;
      expect(finalized).toBe(true);
    });

    it("leaves a stream that ended alone (no cancel)", async () => {
      const stream = streamOf(["data: a\n\n"]);
      expect(await collect(stream)).toEqual([{ data: "a" }]);
      expect(stream.cancelled()).toBe(false);
      expect(stream.locked).toBe(false);
    });
  });

  it("round-trips formatSseEvent output for random events and random chunking", async () => {
    const random = prng(20240613);
    const alphabet = ["a", "b", "Z", "0", " ", ":", "\n", "\r", "\r\n", "é", "😀", "世", "\t", "\uFEFF", "data: ", "\n\n"];
    const pick = (): string => alphabet[Math.floor(random() * alphabet.length)] ?? "";
    const word = (max: number, allowBreaks: boolean): string => {
      let text = "";
      const length = Math.floor(random() * max);
      for (let i = 0; i < length; i++) {
        const piece = pick();
        if (allowBreaks || !/[\r\n]/.test(piece)) text += piece;
      }
      return text;
    };
    for (let round = 0; round < 200; round++) {
      const sent: { event?: string; data: string; id: string }[] = [];
      const count = 1 + Math.floor(random() * 4);
      for (let i = 0; i < count; i++) {
        const event = word(6, false);
        sent.push({ ...(event === "" ? {} : { event }), data: word(20, true), id: word(4, false) });
      }
      const all = bytes(sent.map((e) => (random() < 0.3 ? formatSseComment(word(5, true)) : "") + formatSseEvent(e)).join(""));
      const chunks: Uint8Array[] = [];
      for (let at = 0; at < all.length; ) {
        const size = 1 + Math.floor(random() * 12);
        chunks.push(all.slice(at, at + size));
        at += size;
      }
      const expected = sent.map((e) => ({ ...e, data: e.data.replace(/\r\n|\r/g, "\n") }));
      expect(await collect(streamOf(chunks)), `round ${round}`).toEqual(expected);
    }
  });
});
