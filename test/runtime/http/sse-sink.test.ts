/**
 * The SSE sink is exception-safe (issue 16 item 1, SSE part): whatever throws after the stream opened
 * (an event that cannot be serialized, an error frame that cannot either, a sink whose client is gone),
 * the subscription is released (the iterator returned), the heartbeat stopped and the stream ended; an
 * error after the stream opened is written as an SSE error event (specification-1.0.1.md §9.4.2: errors
 * during a stream arrive as a JSON-RPC error response in an event; §11.7 likewise for HTTP+JSON).
 */
import { describe, expect, it } from "vitest";
import { sseOf } from "../../../src/runtime/http/http.js";

/** An event source of `values` that records whether it was returned (its subscription released). */
function source(values: unknown[]) {
  const state = { returned: false };
  const iterable: AsyncIterable<unknown> = {
    [Symbol.asyncIterator]() {
      let i = 0;
      return {
        next: async () => (i < values.length ? { done: false, value: values[i++] } : { done: true, value: undefined }),
        return: async () => {
          state.returned = true;
          return { done: true, value: undefined };
        },
      };
    },
  };
  return { iterable, state };
}

function sink(options: { throwOnWrite?: number } = {}) {
  const written: string[] = [];
  let ended = false;
  let writes = 0;
  let resolveEnd: () => void = () => undefined;
  const endedPromise = new Promise<void>((resolve) => (resolveEnd = resolve));
  return {
    written,
    get ended() {
      return ended;
    },
    endedPromise,
    sink: {
      write(chunk: string) {
        writes++;
        if (options.throwOnWrite !== undefined && writes >= options.throwOnWrite) throw new Error("socket gone");
        written.push(chunk);
      },
      end() {
        ended = true;
        resolveEnd();
      },
    },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("sseOf: exception safety", () => {
  it("an event that cannot be serialized becomes an error event, the stream ends and the source is released", async () => {
    const { iterable, state } = source([{ n: 1 }, { n: 2, bad: true }, { n: 3 }]);
    const out = sink();
    const response = sseOf(
      iterable,
      (event) => {
        if ((event as { bad?: boolean }).bad) throw new RangeError("Maximum call stack size exceeded");
        return JSON.stringify(event);
      },
      () => JSON.stringify({ error: { code: -32603, message: "Internal error" } }),
      10_000,
    );
    response.open(out.sink);
    await out.endedPromise;
    // Both frames were ready in one turn of the event loop: they go out together.
    expect(out.written.join("")).toBe('data: {"n":1}\n\ndata: {"error":{"code":-32603,"message":"Internal error"}}\n\n');
    expect(state.returned).toBe(true);
  });

  it("an error frame that throws too still ends the stream and releases the source", async () => {
    const { iterable, state } = source([{ bad: true }]);
    const out = sink();
    const response = sseOf(
      iterable,
      () => {
        throw new Error("no");
      },
      () => {
        throw new Error("neither");
      },
      10_000,
    );
    response.open(out.sink);
    await out.endedPromise;
    expect(out.ended).toBe(true);
    expect(state.returned).toBe(true);
  });

  it("a sink that throws on write (the client went away) releases the source and stops", async () => {
    const { iterable, state } = source([{ n: 1 }, { n: 2 }]);
    const out = sink({ throwOnWrite: 1 });
    sseOf(iterable, (e) => JSON.stringify(e), () => "{}", 10_000).open(out.sink);
    await settle();
    expect(state.returned).toBe(true);
  });

  it("a source whose iterator cannot even be made: open() does not throw, the stream gets an error event and ends", async () => {
    const broken: AsyncIterable<unknown> = {
      [Symbol.asyncIterator]() {
        throw new Error("cannot subscribe");
      },
    };
    const out = sink();
    expect(() => sseOf(broken, (e) => JSON.stringify(e), () => '{"error":{}}', 10_000).open(out.sink)).not.toThrow();
    await out.endedPromise;
    expect(out.written).toEqual(['data: {"error":{}}\n\n']);
  });
});

describe("sseOf: writes", () => {
  it("writes the events ready in one turn of the event loop at once, and does not hold an event past its turn", async () => {
    const queue: Array<(result: IteratorResult<unknown>) => void> = [];
    const ready: unknown[] = [];
    let finished = false;
    const iterable: AsyncIterable<unknown> = {
      [Symbol.asyncIterator]: () => ({
        next: () =>
          ready.length > 0
            ? Promise.resolve({ done: false, value: ready.shift() })
            : finished
              ? Promise.resolve({ done: true, value: undefined })
              : new Promise<IteratorResult<unknown>>((resolve) => queue.push(resolve)),
      }),
    };
    const push = (value: unknown) => {
      const waiting = queue.shift();
      if (waiting) waiting({ done: false, value });
      else ready.push(value);
    };
    const out = sink();
    sseOf(iterable, (event) => JSON.stringify(event), () => "{}", 0).open(out.sink);
    for (let n = 1; n <= 3; n++) push({ n });
    await settle();
    expect(out.written).toEqual(['data: {"n":1}\n\ndata: {"n":2}\n\ndata: {"n":3}\n\n']);
    push({ n: 4 });
    await settle();
    expect(out.written).toHaveLength(2);
    expect(out.written[1]).toBe('data: {"n":4}\n\n');
    finished = true;
    queue.shift()?.({ done: true, value: undefined });
    await out.endedPromise;
    expect(out.written.join("")).toBe('data: {"n":1}\n\ndata: {"n":2}\n\ndata: {"n":3}\n\ndata: {"n":4}\n\n');
  });
});

describe("sseOf: a burst from a channel", () => {
  it("writes every event of a burst taken from the channel, in order, with its id, in one write, then the later ones", async () => {
    const { EventChannel } = await import("../../../src/runtime/tasks/event-channel.js");
    const { withEventId } = await import("../../../src/runtime/event-ids.js");
    const channel = new EventChannel<unknown>();
    const out = sink();
    const response = sseOf(channel, (event) => JSON.stringify(event), () => "{}", 0);
    if (response.kind !== "sse") throw new Error("expected an SSE response");
    response.open(out.sink);
    for (let n = 1; n <= 5; n++) channel.push(withEventId({ n }, n));
    await settle();
    expect(out.written).toHaveLength(1);
    expect(out.written[0]).toBe([1, 2, 3, 4, 5].map((n) => `id: ${n}\ndata: {"n":${n}}\n\n`).join(""));
    channel.push(withEventId({ n: 6 }, 6));
    channel.end();
    await out.endedPromise;
    expect(out.written.join("")).toContain('id: 6\ndata: {"n":6}\n\n');
    expect(out.written.join("").match(/^data: /gm)).toHaveLength(6);
  });
});
