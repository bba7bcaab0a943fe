/**
 * The oldest key of a Map (the first in insertion order), for a bounded map that drops its oldest entry
 * when it is full, as the memory task store does at `maxTasks`.
 *
 * Why not `map.keys().next()`: a deleted entry stays in V8's table as a hole until the table is rebuilt,
 * and a new iterator starts at the table's first slot. Dropping the oldest entry again and again leaves
 * the holes at the front, and each new iterator walked all of them: in a store full at 100,000 tasks, a
 * task cost 11-23 µs more to write (its creation drops one). One iterator kept between calls walks each
 * hole once.
 *
 * The caller deletes every key it is given (then every live key is still ahead of the iterator, so the
 * next one is the oldest); a key written again (deleted and set) goes to the end, as with a new iterator.
 */
export class OldestKeys<K> {
  private readonly map: Map<K, unknown>;
  private iterator: Iterator<K> | undefined;

  constructor(map: Map<K, unknown>) {
    this.map = map;
  }

  /** The oldest key, which the caller is about to delete; undefined when the map is empty. */
  next(): K | undefined {
    if (this.map.size === 0) return undefined;
    const kept = this.iterator?.next();
    if (kept !== undefined && kept.done !== true) return kept.value;
    // No iterator yet, or one that ran to the end (an iterator that has said "done" stays done): a new one.
    this.iterator = this.map.keys();
    const first = this.iterator.next();
    return first.done === true ? undefined : first.value;
  }
}
