/**
 * The JSON texts of one task's logged events, as the in-memory event log keeps them: their UTF-8 bytes,
 * one after the other in one growing array, and where each ends.
 *
 * Why not one string each: a streamed task's log holds every event's text while the task runs and for a
 * while after it finishes (a client may resume with Last-Event-ID). Kept as strings, each is an object
 * that the collector copies out of the young generation and marks again at every major collection for as
 * long as it is kept; a stream of a thousand chunks is a thousand of them. As bytes, a log is one array,
 * which the collector neither copies nor scans. Under the server bench's SSE load (4 streams of 1,000
 * chunks, `node bench/server-ab.mjs --payloads sse`) this took 8-11 % off the server's CPU per event.
 * The texts are written once and read back only to replay a log (a resumption, a late subscriber).
 */
export class EventTexts {
  private bytes: Uint8Array = new Uint8Array(0);
  private used = 0;
  /** Where each text ends in `bytes` (the next one starts there). */
  private readonly ends: number[] = [];

  /** How many texts are kept. */
  get length(): number {
    return this.ends.length;
  }

  /** Keeps a text after the others; returns how many are kept now. */
  push(text: string): number {
    // A UTF-16 code unit is at most 3 bytes of UTF-8: with that much room, encodeInto writes it whole.
    const room = text.length * 3;
    if (this.used + room > this.bytes.length) this.grow(this.used + room);
    this.used += ENCODER.encodeInto(text, this.bytes.subarray(this.used)).written;
    return this.ends.push(this.used);
  }

  /**
   * The text at `index` (0 is the first kept), exactly as pushed: JSON.stringify's texts are well-formed
   * UTF-16 (it escapes a lone surrogate), so their UTF-8 round trip is exact.
   */
  at(index: number): string {
    const end = this.ends[index];
    if (end === undefined) throw new RangeError(`no event text at ${index} (${this.ends.length} kept)`);
    return DECODER.decode(this.bytes.subarray(index === 0 ? 0 : this.ends[index - 1], end));
  }

  /**
   * Gives back the room reserved for texts to come (a finished task's log, kept a while for resumption,
   * rarely grows again): the array is copied to the length written.
   */
  fit(): void {
    if (this.bytes.length > this.used) this.bytes = this.bytes.slice(0, this.used);
  }

  private grow(needed: number): void {
    const next = new Uint8Array(Math.max(needed, this.bytes.length * 2, MIN_BYTES));
    next.set(this.bytes.subarray(0, this.used));
    this.bytes = next;
  }
}

/** The first array of a log: room for a few small events. */
const MIN_BYTES = 1024;

const ENCODER = new TextEncoder();
// Well-formed UTF-8 (TextEncoder writes nothing else) decodes exactly; a leading U+FEFF is text, not a mark.
const DECODER = new TextDecoder("utf-8", { ignoreBOM: true });
