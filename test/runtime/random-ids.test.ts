/**
 * The runtime's random ids (runtime/random-ids.ts) are UUIDs of version 4 (RFC 9562 §5.4), written from
 * batches of random bytes: every id, across many batches, has the layout, the version and the variant,
 * and none repeats.
 */
import { describe, expect, it, vi } from "vitest";
import { newId } from "../../src/runtime/random-ids.js";

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("newId", () => {
  it("makes version-4 UUIDs, none twice, across many batches", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      const id = newId();
      expect(id).toMatch(UUID_V4);
      seen.add(id);
    }
    expect(seen.size).toBe(5000);
  });

  it("writes the random bytes it is given, in order, with the version and variant bits set", () => {
    // Drain the current batch so that the next id comes from a batch of these bytes.
    const spy = vi.spyOn(globalThis.crypto, "getRandomValues");
    while (spy.mock.calls.length === 0) newId();
    spy.mockImplementation(<T extends ArrayBufferView | null>(array: T): T => {
      const bytes = array as unknown as Uint8Array;
      for (let i = 0; i < bytes.length; i++) bytes[i] = i % 16 === 0 ? 0xff : i % 256;
      return array;
    });
    try {
      // Drain the batch the first spied call made, then take the first id of a batch of known bytes.
      let id = newId();
      while (spy.mock.calls.length < 2) id = newId();
      // Bytes 0..15: ff 01 02 03 | 04 05 | 06 → 46 07 | 08 → 88 09 | 0a 0b 0c 0d 0e 0f.
      expect(id).toBe("ff010203-0405-4607-8809-0a0b0c0d0e0f");
      expect(id.length).toBe(36);
    } finally {
      spy.mockRestore();
    }
  });
});
