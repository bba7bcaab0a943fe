/**
 * OldestKeys (runtime/stores/oldest-keys.ts): the oldest key of a bounded map, from one iterator kept
 * between calls. It must give exactly what `map.keys().next().value` gives, whatever was written,
 * written again, deleted or cleared meanwhile, as long as the caller deletes every key it is given.
 */
import { describe, expect, it } from "vitest";
import { OldestKeys } from "../../../src/runtime/stores/oldest-keys.js";
import { InMemoryTaskStore } from "../../../src/runtime/stores/memory-task-store.js";

/** A repeatable pseudo-random integer below `n` (a 32-bit LCG, its high bits). */
function seeded(seed: number): (n: number) => number {
  let state = seed >>> 0;
  return (n) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return (state >>> 16) % n;
  };
}

describe("OldestKeys", () => {
  it("gives the first key in insertion order; a key written again goes last", () => {
    const map = new Map<string, number>([
      ["a", 1],
      ["b", 2],
      ["c", 3],
    ]);
    const oldest = new OldestKeys(map);
    expect(oldest.next()).toBe("a");
    map.delete("a");
    map.delete("b");
    map.set("b", 4); // written again: now the newest
    expect(oldest.next()).toBe("c");
    map.delete("c");
    expect(oldest.next()).toBe("b");
    map.delete("b");
    expect(oldest.next()).toBeUndefined();
    // After it ran to the end, keys set later are found (an iterator that said "done" is not used again).
    map.set("d", 5);
    expect(oldest.next()).toBe("d");
  });

  it("agrees with a new iterator's first key over a long random run of sets, rewrites, deletes and clears", () => {
    const map = new Map<number, number>();
    const oldest = new OldestKeys(map);
    const random = seeded(7);
    let taken = 0;
    let clears = 0;
    for (let step = 0; step < 20_000; step++) {
      const op = random(100);
      const key = random(500);
      if (op < 50) {
        map.delete(key);
        map.set(key, step);
      } else if (op < 60) map.delete(key);
      else if (op === 60 && random(20) === 0) {
        map.clear();
        clears++;
      } else {
        const expected = map.keys().next().value;
        expect(oldest.next()).toBe(expected);
        if (expected !== undefined) {
          map.delete(expected);
          taken++;
        }
      }
    }
    expect(taken).toBeGreaterThan(5_000);
    expect(clears).toBeGreaterThan(0);
  });
});

describe("InMemoryTaskStore at maxTasks", () => {
  it("drops the least recently written task first, over many rounds of drops (a task written again is kept)", async () => {
    const max = 5;
    const store = new InMemoryTaskStore(max);
    const versions = new Map<string, number>();
    /** The live tasks, least recently written first: what the store must hold. */
    let model: string[] = [];
    const write = async (id: string) => {
      const expectedVersion = versions.get(id) ?? 0;
      versions.set(
        id,
        (
          await store.commit({
            task: { id, contextId: "c", status: { state: "working" } },
            expectedVersion,
          })
        ).version,
      );
      model = [...model.filter((kept) => kept !== id), id];
      for (const dropped of model.splice(0, Math.max(0, model.length - max)))
        versions.delete(dropped);
    };
    const random = seeded(11);
    let created = 0;
    for (let i = 0; i < 400; i++) {
      // Half the time a live task is written again (it becomes the newest), else a new task (one is dropped).
      const again = random(2) === 0 && model.length > 0;
      if (!again) created++;
      await write(again ? (model[random(model.length)] as string) : `t${i}`);
      expect(store.size).toBe(model.length);
      for (const id of model) expect(store.has(id)).toBe(true);
    }
    expect(created).toBeGreaterThan(150); // many drops, and many writes again
    expect(model).toHaveLength(max);
    expect([...versions.keys()].sort()).toEqual([...model].sort());
  });
});
