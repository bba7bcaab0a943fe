/**
 * Server-Sent Events runtime of the code a2a-codegen generates: frames events for servers and parses
 * an SSE byte stream for clients, by the WHATWG EventSource rules
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation).
 * Copied verbatim into every generated folder; it has no dependencies and runs in Node, browsers and
 * edge runtimes alike.
 */

/** One dispatched event. */
export interface SseEvent {
  /** The `event:` field; absent when the event set none (EventSource would call it "message"). */
  event?: string;
  /** The `data:` lines joined with "\n". */
  data: string;
  /**
   * The last event ID in effect when the event was dispatched (EventSource's `lastEventId`): set by an
   * `id:` field and kept for later events until another `id:` changes it; absent until one does.
   */
  id?: string;
  /** The reconnection time (ms) last set by a `retry:` field, kept like `id`; absent until one does. */
  retry?: number;
}

/**
 * Frames one event: `event:`/`id:` lines when given, one `data:` line per line of data (split on
 * \r\n, \r, \n), then a blank line. Throws a TypeError when `event` or `id` contains a line break, which
 * would break framing (or, for `id`, a NUL, which a parser would ignore).
 */
export function formatSseEvent(event: { event?: string; data: string; id?: string }): string {
  let text = "";
  if (event.event !== undefined) text += `event: ${singleLine("event", event.event)}\n`;
  if (event.id !== undefined) {
    if (event.id.includes("\0")) throw new TypeError("SSE id must not contain NUL");
    text += `id: ${singleLine("id", event.id)}\n`;
  }
  // One line (any JSON text: JSON.stringify escapes line breaks) needs no split.
  if (!event.data.includes("\n") && !event.data.includes("\r")) return `${text}data: ${event.data}\n\n`;
  for (const line of event.data.split(LINE_BREAK)) text += `data: ${line}\n`;
  return text + "\n";
}

/** A comment (heartbeat) such as ": ping\n\n"; each line of a multi-line text becomes its own comment line. */
export function formatSseComment(text = ""): string {
  return text.split(LINE_BREAK).map((line) => (line === "" ? ":\n" : `: ${line}\n`)).join("") + "\n";
}

/** Options of {@link parseSse}. */
export interface SseParseOptions {
  /**
   * Largest event (bytes of its data, UTF-8) accepted; default 4 MiB. A single unterminated line is
   * also capped (at this plus a few bytes for the field name), so nothing buffers without bound.
   */
  maxEventBytes?: number;
  /** Aborting it ends the parse with `SseParseError("aborted")` and cancels the stream. */
  signal?: AbortSignal;
}

/** Why {@link parseSse} gave up. */
export type SseParseErrorReason = "event-too-large" | "aborted";

/** Thrown by {@link parseSse} when an event exceeds the size cap or the signal aborts. */
export class SseParseError extends Error {
  override readonly name = "SseParseError";
  readonly reason: SseParseErrorReason;

  constructor(reason: SseParseErrorReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}

/** The default of {@link SseParseOptions.maxEventBytes}: 4 MiB. */
export const DEFAULT_MAX_SSE_EVENT_BYTES = 4 * 1024 * 1024;

/**
 * Parses a byte stream (a WHATWG ReadableStream<Uint8Array> as fetch gives, or any
 * AsyncIterable<Uint8Array | string>) into events by the WHATWG EventSource rules. Lines end in \r\n,
 * \n or \r (also when split across chunks); comment lines are skipped; an event is dispatched at a blank
 * line when it has data; an event cut off by the end of the stream is not dispatched. Bytes are decoded
 * as streaming UTF-8 and a leading BOM is dropped. Leaving the loop early (break, throw), an oversized
 * event or an abort cancels the stream.
 */
export async function* parseSse(
  stream: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array | string>,
  options: SseParseOptions = {},
): AsyncGenerator<SseEvent, void, undefined> {
  const { signal } = options;
  const parser = new SseParser(options.maxEventBytes ?? DEFAULT_MAX_SSE_EVENT_BYTES);
  const source = openSource(stream);
  let unwatch = (): void => {};
  try {
    if (signal?.aborted) throw abortedError(signal);
    // An abort fails the read in progress. Not a race of each read against one promise that lives as long
    // as the stream: every race adds a reaction to that promise, kept until it settles (memory that grows
    // with each chunk of a long stream).
    let failRead: ((error: unknown) => void) | undefined;
    if (signal) {
      const onAbort = (): void => {
        void source.close(); // stop the transfer now, even if the consumer is not pulling
        failRead?.(abortedError(signal));
      };
      signal.addEventListener("abort", onAbort, { once: true });
      unwatch = () => signal.removeEventListener("abort", onAbort);
    }
    for (;;) {
      if (signal?.aborted) throw abortedError(signal);
      const chunk = signal
        ? await new Promise<IteratorResult<Uint8Array | string>>((resolve, reject) => {
            failRead = reject;
            source.next().then(resolve, reject);
          })
        : await source.next();
      failRead = undefined;
      if (chunk.done) return;
      for (const event of parser.feed(chunk.value)) {
        yield event;
        if (signal?.aborted) throw abortedError(signal);
      }
    }
  } finally {
    unwatch();
    await source.close();
  }
}

const LINE_BREAK = /\r\n|\r|\n/;

function singleLine(field: string, value: string): string {
  if (/[\r\n]/.test(value)) throw new TypeError(`SSE ${field} must not contain a line break`);
  return value;
}

function abortedError(signal: AbortSignal): SseParseError {
  return new SseParseError("aborted", "SSE stream aborted", { cause: signal.reason });
}

/** A stream's chunks, with a `close` that releases it (cancelling it unless it ended) and never rejects. */
interface ChunkSource {
  next(): Promise<IteratorResult<Uint8Array | string>>;
  close(): Promise<void>;
}

function openSource(stream: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array | string>): ChunkSource {
  let ended = false;
  let pending = false; // a next() has not settled yet
  let closing: Promise<void> | undefined;
  const track = async (read: Promise<IteratorResult<Uint8Array | string>>) => {
    pending = true;
    try {
      const result = await read;
      if (result.done) ended = true;
      return result;
    } catch (error) {
      ended = true;
      throw error;
    } finally {
      pending = false;
    }
  };
  if (isReadableStream(stream)) {
    const reader = stream.getReader();
    return {
      next: () => track(reader.read()),
      close: () =>
        (closing ??= (async () => {
          // cancel() also settles a pending read, so this never waits on the network.
          if (!ended) await reader.cancel().catch(() => {});
          reader.releaseLock();
        })()),
    };
  }
  const iterator = stream[Symbol.asyncIterator]();
  return {
    next: () => track(iterator.next()),
    close: () =>
      (closing ??= (async () => {
        if (ended || !iterator.return) return;
        const returned = Promise.resolve()
          .then(() => iterator.return?.())
          .catch(() => undefined);
        // An async generator runs return() only after a pending next(); do not wait on that.
        if (!pending) await returned;
      })()),
  };
}

function isReadableStream(value: object): value is ReadableStream<Uint8Array> {
  return typeof (value as { getReader?: unknown }).getReader === "function";
}

/** The event-stream interpretation: text in, events out. */
class SseParser {
  private readonly decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  private atStart = true; // no text seen yet: a BOM here is dropped
  private skipLF = false; // the last chunk ended in \r: a \n first in the next one ends no line
  private partial = ""; // the unterminated line so far
  private partialBytes = 0;
  private data: string[] = [];
  private dataBytes = 0;
  private eventType = "";
  private lastEventId: string | undefined;
  private retry: number | undefined;

  private readonly maxEventBytes: number;

  constructor(maxEventBytes: number) {
    this.maxEventBytes = maxEventBytes;
    if (!(maxEventBytes >= 0)) throw new RangeError(`maxEventBytes must be a non-negative number, got ${maxEventBytes}`);
  }

  /** The events the chunk completes; throws (after yielding the earlier ones) when one is too large. */
  *feed(chunk: Uint8Array | string): Generator<SseEvent, void, undefined> {
    let text = typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true });
    if (text === "") return;
    if (this.atStart) {
      this.atStart = false;
      if (text.startsWith("\uFEFF")) text = text.slice(1);
    }
    let pos = 0;
    if (this.skipLF && text.startsWith("\n")) pos = 1;
    this.skipLF = false;
    const breaks = /[\r\n]/g;
    breaks.lastIndex = pos;
    for (let match = breaks.exec(text); match; match = breaks.exec(text)) {
      const end = match.index;
      const line = this.partial + text.slice(pos, end);
      this.partial = "";
      this.partialBytes = 0;
      pos = end + 1;
      if (text[end] === "\r") {
        if (text[pos] === "\n") pos++;
        else if (pos === text.length) this.skipLF = true;
      }
      breaks.lastIndex = pos;
      const event = this.line(line);
      if (event) yield event;
    }
    const rest = text.slice(pos);
    this.partial += rest;
    this.partialBytes += utf8Length(rest);
    if (this.partialBytes > this.maxEventBytes + MAX_FIELD_PREFIX) this.tooLarge();
  }

  private line(line: string): SseEvent | undefined {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "event":
        this.eventType = value;
        break;
      case "data":
        this.dataBytes += (this.data.length > 0 ? 1 : 0) + utf8Length(value);
        if (this.dataBytes > this.maxEventBytes) this.tooLarge();
        this.data.push(value);
        break;
      case "id":
        if (!value.includes("\0")) this.lastEventId = value;
        break;
      case "retry":
        if (/^[0-9]+$/.test(value)) this.retry = Number(value);
        break;
    }
    return undefined;
  }

  private dispatch(): SseEvent | undefined {
    const hasData = this.data.length > 0;
    const event: SseEvent = { data: this.data.join("\n") };
    if (this.eventType !== "") event.event = this.eventType;
    if (this.lastEventId !== undefined) event.id = this.lastEventId;
    if (this.retry !== undefined) event.retry = this.retry;
    this.data = [];
    this.dataBytes = 0;
    this.eventType = "";
    return hasData ? event : undefined;
  }

  private tooLarge(): never {
    throw new SseParseError("event-too-large", `SSE event larger than ${this.maxEventBytes} bytes`);
  }
}

/** Room for "data: " and the like on top of maxEventBytes in the cap on one unterminated line. */
const MAX_FIELD_PREFIX = 8;

/** Bytes of the string's UTF-8 encoding (a surrogate pair counts 4). */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    bytes += code < 0x80 ? 1 : code < 0x800 || (code >= 0xd800 && code <= 0xdfff) ? 2 : 3;
  }
  return bytes;
}

/**
 * An async iterator that can also hand over, synchronously, the values it holds already: a reader that
 * wakes up for one value of a burst (a commit's batch of events) takes the rest at once instead of one
 * `await` (a promise and a turn of the microtask queue) per value. The end and a failure still come
 * from `next()`, after the values taken.
 */
export interface BufferedEvents<T> {
  /** The values queued now, in order (none: an empty array); they are no longer queued. */
  takeBuffered(): readonly T[];
}

/** Whether an iterator can hand over its queued values synchronously. */
export function hasBufferedEvents<T>(iterator: AsyncIterator<T>): iterator is AsyncIterator<T> & BufferedEvents<T> {
  return typeof (iterator as Partial<BufferedEvents<T>>).takeBuffered === "function";
}

/**
 * Waits for the first event of a stream before its response is committed: an error thrown before it
 * rejects here (so a binding can answer it as a plain error response, not an SSE stream), and the
 * stream is given back whole (the first event, then the rest). A stream that ends at once is empty.
 */
export async function afterFirstEvent<T>(events: AsyncIterable<T>): Promise<AsyncIterable<T>> {
  const iterator = events[Symbol.asyncIterator]();
  const first = await iterator.next();
  let pending: IteratorResult<T> | undefined = first;
  const buffered = hasBufferedEvents(iterator) ? iterator : undefined;
  const rest: AsyncIterableIterator<T> & Partial<BufferedEvents<T>> = {
    next: () => {
      if (pending) {
        const out = pending;
        pending = undefined;
        return Promise.resolve(out);
      }
      return iterator.next();
    },
    return: async (value?: unknown) => {
      pending = undefined;
      await iterator.return?.(value);
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]: () => rest,
  };
  // The values after the first, handed over as the stream's own iterator does (the first goes by `next()`).
  if (buffered) rest.takeBuffered = () => (pending ? [] : buffered.takeBuffered());
  return rest;
}
