/**
 * A task's JSON as stores keep it: the facts they index, JSON text that refuses what JSON cannot write,
 * and the compaction that leaves a task's id and context out of its kept text.
 */
import { jsonTextOf } from "../event-ids.js";
import { isTerminalState, taskContextOf } from "../profile.js";
import type { JsonObject } from "../json.js";
import { StoreError } from "./errors.js";

/** Terminal task states in every protocol version's spelling. */
/** What stores index of a task: its id, context, state and status time. */
export interface TaskFacts {
  id: string;
  contextId: string;
  state: string;
  terminal: boolean;
  /** The status timestamp in epoch ms (`now` when the status has none or it does not parse). */
  statusTime: number;
}

export function taskFacts(task: JsonObject, now: number = Date.now()): TaskFacts {
  const id = task["id"];
  if (typeof id !== "string" || id === "") throw new StoreError("task.id: expected a non-empty string", "invalid");
  const status = typeof task["status"] === "object" && task["status"] !== null ? (task["status"] as JsonObject) : {};
  const state = typeof status["state"] === "string" ? status["state"] : "";
  const parsed = typeof status["timestamp"] === "string" ? Date.parse(status["timestamp"]) : NaN;
  const contextId = taskContextOf(task) ?? "";
  return { id, contextId, state, terminal: isTerminalState(state), statusTime: Number.isFinite(parsed) ? parsed : now };
}

/** Serializes a value a store is about to keep; a value JSON cannot write is refused, never stored. */
export function storableJson(value: unknown, what: string, replacer?: (key: string, value: unknown) => unknown): string {
  const text = jsonText(value, what, replacer);
  if (text === undefined) throw new StoreError(`${what} cannot be stored: not a JSON value`, "invalid");
  return text;
}

/**
 * `JSON.stringify(value)` (with `replacer`, when given), undefined for a value JSON leaves out (undefined,
 * a function: a member that JSON.stringify skips); a value it cannot write (a cycle, a BigInt) is a
 * StoreError naming `what`.
 */
export function jsonText(value: unknown, what: string, replacer?: (key: string, value: unknown) => unknown): string | undefined {
  try {
    return replacer === undefined ? JSON.stringify(value) : JSON.stringify(value, replacer);
  } catch (error) {
    throw new StoreError(`${what} cannot be stored: ${error instanceof Error ? error.message : String(error)}`, "invalid", { cause: error });
  }
}

/**
 * An event's JSON text, for the log (which copies it into its bytes) and the live subscribers: the one it
 * is tagged with (the runtime's artifact events), else serialized. Not flattened here: nothing keeps the
 * string, and the log's encoding flattens it once anyway.
 */
export function eventText(event: JsonObject, what: string): string {
  return jsonTextOf(event) ?? storableJson(event, what);
}

/**
 * JSON text to keep: JSON.stringify returns a rope of the pieces it wrote (V8), which costs about a
 * fifth more than the text itself as long as it is kept; reading a character flattens it in place
 * (one copy), and the collector then drops the pieces.
 */
export function flat(text: string): string {
  text.charCodeAt(0);
  return text;
}

/*
 * The memory store keeps a task's text with its own ids written once: every message of a task's history
 * and status carries the task's `taskId` and `contextId` (the runtime stamps them), four or five times
 * 40-50 characters, a third of a typical finished task's text. Each `"taskId":<its id>` and
 * `"contextId":<its context>` member stands as one control character instead. The round trip is exact:
 * JSON text cannot hold a raw control character (strings escape them), and a match starts and ends with
 * unescaped quotes, which only a member's key and string value can be.
 */
const TASK_ID_MEMBER = "\u0001";
const CONTEXT_ID_MEMBER = "\u0002";

/**
 * The text kept for a task: its id members replaced (the JSON spelling of both ids, as JSON.stringify
 * writes them), left to right, as `replaceAll` of each member would. Both members are searched in the
 * task's text and the earlier match is replaced first, so the output is built once: replacing one member
 * and then searching the result for the other flattened that result (1.2 KB copied and dropped for a
 * finished task).
 */
export function compactTaskText(text: string, taskId: string, contextId: string): string {
  const taskNeedle = `Id":${JSON.stringify(taskId)}`;
  const contextNeedle = contextId === "" ? undefined : `Id":${JSON.stringify(contextId)}`;
  let task = idMemberAt(text, TASK_ID_HEAD, taskNeedle, 0);
  let context = contextNeedle === undefined ? -1 : idMemberAt(text, CONTEXT_ID_HEAD, contextNeedle, 0);
  let out = "";
  let from = 0;
  while (task >= 0 || context >= 0) {
    if (context < 0 || (task >= 0 && task < context)) {
      out += text.slice(from, task) + TASK_ID_MEMBER;
      from = task + TASK_ID_HEAD.length + taskNeedle.length;
      task = idMemberAt(text, TASK_ID_HEAD, taskNeedle, from);
    } else {
      out += text.slice(from, context) + CONTEXT_ID_MEMBER;
      from = context + CONTEXT_ID_HEAD.length + (contextNeedle as string).length;
      context = idMemberAt(text, CONTEXT_ID_HEAD, contextNeedle as string, from);
    }
  }
  // The result is a rope of slices of the input, which would keep the whole input alive.
  return from === 0 ? text : flat(out + text.slice(from));
}

/** What the two id members' keys begin with (their needles, `Id":<id as JSON>`, follow). */
const TASK_ID_HEAD = '"task';
const CONTEXT_ID_HEAD = '"context';

/**
 * The start of the first `<head><needle>` member (`"taskId":"…"`) at or after `from`, -1 for none.
 * Searched from the member's `Id":` on, its name checked before it: V8 scans for a needle's first
 * character, then compares; a quote is every few characters of JSON text, an `I` a few times in a task
 * (the `…Id` keys). Two members never overlap (each is a key and its value), so a search from the end of
 * one member of either kind misses no member of the other.
 */
function idMemberAt(text: string, head: string, needle: string, from: number): number {
  let at = text.indexOf(needle, from + head.length);
  while (at >= 0 && !text.startsWith(head, at - head.length)) at = text.indexOf(needle, at + 1);
  return at < 0 ? -1 : at - head.length;
}

/** The task's JSON text again, from what `compactTaskText` kept. */
export function expandTaskText(kept: string, taskId: string, contextId: string): string {
  let out = kept;
  // Replaced by a function: a replacement string would read `$&`, `$$`… in an id as patterns.
  if (out.includes(TASK_ID_MEMBER)) {
    const member = `"taskId":${JSON.stringify(taskId)}`;
    out = out.replaceAll(TASK_ID_MEMBER, () => member);
  }
  if (out.includes(CONTEXT_ID_MEMBER)) {
    const member = `"contextId":${JSON.stringify(contextId)}`;
    out = out.replaceAll(CONTEXT_ID_MEMBER, () => member);
  }
  return out;
}

/** The id a config is kept under: its own `id`, else the task's id. */
export function pushConfigId(taskId: string, config: JsonObject): string {
  return typeof config["id"] === "string" && config["id"] !== "" ? config["id"] : taskId;
}
