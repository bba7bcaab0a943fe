/**
 * The SSE `id:` of a stream result: the task runtime tags each result it yields with the sequence of the
 * event in the task's log, and the SSE writer sends it as the event's `id:`. A client that reconnects
 * with `Last-Event-ID` (SubscribeToTask / tasks/resubscribe) resumes after it, with no gap and no
 * duplicate. Results are tagged by identity, so nothing is added to the protocol objects themselves.
 */
/**
 * What a result is tagged with, by identity: its event id (a stream result), and its JSON text, exactly
 * `JSON.stringify(result)`, where the runtime has it (a committed task, a logged event): a binding writes
 * that text instead of serializing the result again. One record per result, whichever tags it gets.
 */
interface ResultTags {
  id?: string;
  text?: string;
}

const tags = new WeakMap<object, ResultTags>();

function tagsOf(result: object): ResultTags {
  let found = tags.get(result);
  if (found === undefined) tags.set(result, (found = {}));
  return found;
}

/** Tags a stream result with its event id. */
export function withEventId<T>(result: T, id: number | string): T {
  if (typeof result === "object" && result !== null) tagsOf(result).id = String(id);
  return result;
}

/** The event id a stream result was tagged with, if any. */
export function eventIdOf(result: unknown): string | undefined {
  return typeof result === "object" && result !== null ? tags.get(result)?.id : undefined;
}

/**
 * Tags a result with its JSON text, exactly `JSON.stringify(result)` (nothing when `text` is undefined).
 * Only for a value nobody changes after (the runtime's committed tasks and logged events are never changed).
 */
export function withJsonText<T>(result: T, text: string | undefined): T {
  if (text !== undefined && typeof result === "object" && result !== null) tagsOf(result).text = text;
  return result;
}

/** The JSON text a result was tagged with, if any. */
export function jsonTextOf(result: unknown): string | undefined {
  return typeof result === "object" && result !== null ? tags.get(result)?.text : undefined;
}

/** The sequence a `Last-Event-ID` header names: a non-negative integer, else undefined (ignored). */
export function lastEventSequence(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  if (!/^\d{1,15}$/.test(text)) return undefined;
  return Number(text);
}
