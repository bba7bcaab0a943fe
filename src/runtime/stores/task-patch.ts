/**
 * What a write of a running task changed, as JSON Patch (RFC 6902), and its application.
 *
 * An agent that streams an artifact writes its task once per batch of chunks. A store that keeps text
 * (PostgreSQL, Redis) wrote the whole task each time: a stream of n chunks wrote text of the order of n²
 * (800 one-word chunks, 6.4 MB for a 15 KB artifact). Such a store can keep the patch of each such write
 * instead (a few dozen bytes), write the whole task now and then, and apply the patches kept since at
 * every read (`VersionedTaskStore.storesTaskPatches`).
 *
 * The runtime changes a task only by making new values for what changes (a copied artifact with a
 * copied, longer parts array; a new status; a longer history), never by changing a value it wrote
 * before: the patch is found by comparing references, walking only into what differs.
 * Only `add` and `replace` are made and applied.
 */
import { isObject, type JsonObject } from "../json.js";

export interface TaskPatchOperation {
  op: "add" | "replace";
  /** A JSON Pointer (RFC 6901); `-` as the last token appends to an array (RFC 6902 §4.1). */
  path: string;
  value: unknown;
}

/**
 * The operations that turn `before` into `after`; undefined when they cannot be said with `add` and
 * `replace` (a member removed): the writer then writes the whole task.
 */
export function taskPatch(before: JsonObject, after: JsonObject): TaskPatchOperation[] | undefined {
  const ops: TaskPatchOperation[] = [];
  return objectPatch(before, after, "", ops) ? ops : undefined;
}

function objectPatch(before: JsonObject, after: JsonObject, path: string, ops: TaskPatchOperation[]): boolean {
  for (const key in before) if (Object.hasOwn(before, key) && !Object.hasOwn(after, key) && before[key] !== undefined) return false;
  for (const key in after) {
    if (!Object.hasOwn(after, key)) continue;
    const was = before[key];
    const now = after[key];
    if (was === now) continue;
    if (now === undefined) return false;
    const at = `${path}/${pointerToken(key)}`;
    if (was === undefined) ops.push({ op: "add", path: at, value: now });
    else if (!valuePatch(was, now, at, ops)) return false;
  }
  return true;
}

/** The patch of a member or an item that is not the same value any more. */
function valuePatch(was: unknown, now: unknown, path: string, ops: TaskPatchOperation[]): boolean {
  if (Array.isArray(was) && Array.isArray(now)) return arrayPatch(was, now, path, ops);
  if (isPlainObject(was) && isPlainObject(now)) return objectPatch(was, now, path, ops);
  ops.push({ op: "replace", path, value: now });
  return true;
}

/**
 * An object JSON writes member by member: not an array, and of no class (a Date, or anything with
 * `toJSON`, is written as what its `toJSON` gives: compared member by member, two dates would be equal).
 */
function isPlainObject(value: unknown): value is JsonObject {
  if (!isObject(value) || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== "function";
}

/** An array that kept its items and gained some is appended to; one that got shorter is replaced. */
function arrayPatch(was: readonly unknown[], now: readonly unknown[], path: string, ops: TaskPatchOperation[]): boolean {
  if (now.length < was.length) {
    ops.push({ op: "replace", path, value: now });
    return true;
  }
  for (let i = 0; i < was.length; i++) {
    if (was[i] !== now[i] && !valuePatch(was[i], now[i], `${path}/${i}`, ops)) return false;
  }
  for (let i = was.length; i < now.length; i++) ops.push({ op: "add", path: `${path}/-`, value: now[i] });
  return true;
}

/** A member name as a JSON Pointer token (RFC 6901 §3: `~` is `~0`, `/` is `~1`). */
function pointerToken(key: string): string {
  return key.includes("~") || key.includes("/") ? key.replace(/~/g, "~0").replace(/\//g, "~1") : key;
}

/**
 * Applies patches made by `taskPatch` to a task read back from its text (changed in place, and
 * returned). A path that leads nowhere throws: the stored patches do not fit the stored task.
 */
export function applyTaskPatch(task: JsonObject, ops: readonly TaskPatchOperation[]): JsonObject {
  for (const { op, path, value } of ops) {
    const tokens = path.split("/").slice(1).map((t) => (t.includes("~") ? t.replace(/~1/g, "/").replace(/~0/g, "~") : t));
    const last = tokens.pop();
    if (last === undefined || (op !== "add" && op !== "replace")) throw new Error(`task patch: cannot apply ${String(op)} at "${path}"`);
    let parent: unknown = task;
    for (const token of tokens) {
      parent = Array.isArray(parent) ? parent[arrayIndex(token, parent.length - 1, path)] : isObject(parent) && Object.hasOwn(parent, token) ? parent[token] : undefined;
      if (parent === undefined) throw new Error(`task patch: "${path}" leads nowhere in the stored task`);
    }
    if (Array.isArray(parent)) {
      if (op === "add" && last === "-") parent.push(value);
      else if (op === "add") parent.splice(arrayIndex(last, parent.length, path), 0, value);
      else parent[arrayIndex(last, parent.length - 1, path)] = value;
    } else if (isObject(parent)) {
      if (op === "replace" && !Object.hasOwn(parent, last)) throw new Error(`task patch: "${path}" replaces a member the stored task lacks`);
      // Defined, not assigned: a member named `__proto__` (JSON.parse makes it an own member) stays one.
      Object.defineProperty(parent, last, { value, writable: true, enumerable: true, configurable: true });
    } else {
      throw new Error(`task patch: "${path}" leads nowhere in the stored task`);
    }
  }
  return task;
}

function arrayIndex(token: string, max: number, path: string): number {
  const index = /^(0|[1-9][0-9]*)$/.test(token) ? Number(token) : NaN;
  if (!(index <= max)) throw new Error(`task patch: "${path}" has no item ${token}`);
  return index;
}
