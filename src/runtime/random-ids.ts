/**
 * Random ids (UUID version 4, RFC 9562 §5.4) for tasks, contexts, messages and artifacts: a turn makes
 * three to six of them.
 *
 * The random bits come from the platform's CSPRNG (`crypto.getRandomValues`, web-standard), 128 ids' worth
 * at a time, as node's own `crypto.randomUUID` does. What differs is the text: node writes each id by
 * adding 20 pieces of string one to another (about 600 bytes of intermediate strings per id, 240 ns);
 * here a batch's 128 ids are written as ASCII bytes into one array, decoded to one string, and each id
 * is a 36-character slice of it (one small string object that points into the batch's text: 96 ns).
 */
export function newId(): string {
  if (next === BATCH) refill();
  const at = next++ * ID_LENGTH;
  return ids.slice(at, at + ID_LENGTH);
}

const BATCH = 128;
const ID_LENGTH = 36;
const random = new Uint8Array(16 * BATCH);
const text = new Uint8Array(ID_LENGTH * BATCH);
const DECODER = new TextDecoder();
/** The two lower-case hex digits of each byte value, as ASCII codes. */
const HEX = new Uint8Array(512);
for (let byte = 0; byte < 256; byte++) {
  const digits = byte.toString(16).padStart(2, "0");
  HEX[byte * 2] = digits.charCodeAt(0);
  HEX[byte * 2 + 1] = digits.charCodeAt(1);
}
const DASH = 0x2d;

let ids = "";
let next = BATCH;

function refill(): void {
  globalThis.crypto.getRandomValues(random);
  let out = 0;
  for (let id = 0; id < BATCH; id++) {
    const from = id * 16;
    // The version (4: random) in the high nibble of byte 6, the variant (0b10) in the top bits of byte 8.
    random[from + 6] = ((random[from + 6] as number) & 0x0f) | 0x40;
    random[from + 8] = ((random[from + 8] as number) & 0x3f) | 0x80;
    for (let i = 0; i < 16; i++) {
      // 8-4-4-4-12 hex digits: a dash before bytes 4, 6, 8 and 10.
      if (i === 4 || i === 6 || i === 8 || i === 10) text[out++] = DASH;
      const byte = random[from + i] as number;
      text[out++] = HEX[byte * 2] as number;
      text[out++] = HEX[byte * 2 + 1] as number;
    }
  }
  ids = DECODER.decode(text);
  next = 0;
}
