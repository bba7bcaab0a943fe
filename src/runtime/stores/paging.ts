/**
 * ListTasks paging (1.0.1 §3.1.4) shared by the engines: page size, the opaque cursor, newest-first order.
 */
import type { TaskQuery } from "./contract.js";
import { InvalidStoreQueryError } from "./errors.js";
import type { TaskFacts } from "./task-json.js";

/** ListTasks page size: 50 by default, between 1 and 1000. */
export function pageSizeOf(query: TaskQuery): number {
  const size = query.pageSize ?? 50;
  if (!Number.isInteger(size) || size < 1) throw new InvalidStoreQueryError("pageSize", `expected a positive integer, got ${String(size)}`);
  return Math.min(size, 1000);
}

/** The opaque cursor of a page: the sort key (status time, id) of its last task. */
export function encodePageToken(statusTime: number, id: string): string {
  const bytes = new TextEncoder().encode(JSON.stringify([statusTime, id]));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function decodePageToken(token: string): { statusTime: number; id: string } {
  let parsed: unknown;
  try {
    const binary = atob(token.replace(/-/g, "+").replace(/_/g, "/"));
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))));
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || !Number.isSafeInteger(parsed[0]) || typeof parsed[1] !== "string") {
    throw new InvalidStoreQueryError("pageToken", "not a page token of this server");
  }
  return { statusTime: parsed[0] as number, id: parsed[1] as string };
}

/** Newest first: status time descending, then id descending (a total order, so cursors are stable). */
export function compareNewestFirst(a: TaskFacts, b: TaskFacts): number {
  if (a.statusTime !== b.statusTime) return b.statusTime - a.statusTime;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** Whether a task sorts after the cursor (strictly older in the newest-first order). */
export function afterCursor(facts: TaskFacts, cursor: { statusTime: number; id: string }): boolean {
  return facts.statusTime < cursor.statusTime || (facts.statusTime === cursor.statusTime && facts.id < cursor.id);
}
