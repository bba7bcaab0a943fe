/**
 * The two stream primitives behind issue 15 items 4 and 10: `afterFirstEvent` (runtime/wire/sse.ts) waits for
 * a stream's first event before a binding commits to SSE, so that an error before it can be the call's
 * error; `EventChannel.fail` (runtime/tasks/event-channel.ts) ends a channel with an error, thrown once after
 * the events queued before it.
 */
import { describe, expect, it } from "vitest";
import { EventChannel } from "../../../src/runtime/tasks/event-channel.js";
import { afterFirstEvent } from "../../../src/runtime/wire/sse.js";

const drain = async <T>(events: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = [];
  for await (const event of events) out.push(event);
  return out;
};

describe("afterFirstEvent", () => {
  it("rejects with an error thrown before the first event", async () => {
    const channel = new EventChannel<number>();
    channel.fail(new Error("refused"));
    await expect(afterFirstEvent(channel)).rejects.toThrow("refused");
  });

  it("gives the whole stream back once the first event is in: the first, then the rest, then an error after them", async () => {
    const channel = new EventChannel<number>();
    const opened = afterFirstEvent(channel);
    channel.push(1);
    const events = await opened;
    channel.push(2);
    channel.fail(new Error("later"));
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const event of events) seen.push(event);
      })(),
    ).rejects.toThrow("later");
    expect(seen).toEqual([1, 2]);
  });

  it("a stream that ends at once is empty; returning releases the source", async () => {
    const ended = new EventChannel<number>();
    ended.end();
    expect(await drain(await afterFirstEvent(ended))).toEqual([]);
    let released = 0;
    const channel = new EventChannel<number>(() => released++);
    channel.push(1);
    const events = await afterFirstEvent(channel);
    await events[Symbol.asyncIterator]().return?.();
    expect(released).toBe(1);
  });
});

describe("EventChannel.fail", () => {
  it("rejects a pending next() at once, and only once", async () => {
    const channel = new EventChannel<number>();
    const pending = channel.next();
    channel.fail(new Error("boom"));
    await expect(pending).rejects.toThrow("boom");
    await expect(channel.next()).resolves.toEqual({ value: undefined, done: true });
  });

  it("is ignored once the channel has ended", async () => {
    const channel = new EventChannel<number>();
    channel.push(1);
    channel.end();
    channel.fail(new Error("too late"));
    expect(await drain(channel)).toEqual([1]);
  });
});

describe("EventChannel.takeBuffered (a burst handed over without an await per event)", () => {
  it("hands over what is queued, in order, once; the end and a failure still come from next(), after them", async () => {
    const channel = new EventChannel<number>();
    expect(channel.takeBuffered()).toEqual([]);
    const first = channel.next();
    channel.push(1); // to the pending next()
    channel.push(2);
    channel.push(3);
    channel.fail(new Error("after the burst"));
    expect(await first).toEqual({ value: 1, done: false });
    expect(channel.takeBuffered()).toEqual([2, 3]);
    expect(channel.takeBuffered()).toEqual([]);
    await expect(channel.next()).rejects.toThrow("after the burst");
    await expect(channel.next()).resolves.toEqual({ value: undefined, done: true });
  });

  it("the empty answer is shared and cannot be written to; an array handed over is the caller's", () => {
    const channel = new EventChannel<number>();
    expect(Object.isFrozen(channel.takeBuffered())).toBe(true);
    channel.push(1);
    const taken = channel.takeBuffered() as number[];
    taken.push(99); // the caller's own array: the channel does not see it
    channel.push(2);
    expect(channel.takeBuffered()).toEqual([2]);
  });

  it("passes through afterFirstEvent: the first event by next(), the rest of the burst taken, nothing twice", async () => {
    const channel = new EventChannel<number>();
    channel.push(1);
    channel.push(2);
    channel.push(3);
    const events = (await afterFirstEvent(channel)) as AsyncIterableIterator<number> & { takeBuffered?: () => readonly number[] };
    expect(typeof events.takeBuffered).toBe("function");
    // Before the first event is read, nothing is handed over (it would come out ahead of the first).
    expect(events.takeBuffered?.()).toEqual([]);
    expect(await events.next()).toEqual({ value: 1, done: false });
    expect(events.takeBuffered?.()).toEqual([2, 3]);
    channel.end();
    expect(await events.next()).toEqual({ value: undefined, done: true });
  });

  it("afterFirstEvent over an iterator without it adds none", async () => {
    async function* plain() {
      yield 1;
    }
    const events = (await afterFirstEvent(plain())) as { takeBuffered?: unknown };
    expect(events.takeBuffered).toBeUndefined();
  });
});
