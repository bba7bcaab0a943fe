/**
 * The SSE `id:` of a stream result: the task runtime tags each result it yields with the sequence of the
 * event in the task's log, and the SSE writer sends it as the event's `id:`. A client that reconnects
 * with `Last-Event-ID` (SubscribeToTask / tasks/resubscribe) resumes after it, with no gap and no
 * duplicate. The tags are not part of the protocol objects: neither JSON nor a copy of a result sees them.
 */

/**
 * What a result is tagged with, by identity: its event id (a stream result), and its JSON text, exactly
 * `JSON.stringify(result)`, where the runtime has it (a committed task, a logged event): a binding writes
 * that text instead of serializing the result again. One record per result, whichever tags it gets.
 */
interface ResultTags {
  /** The result the record was made for (a result that inherits another's record from its prototype has none of its own). */
  readonly owner: object;
  id?: string;
  text?: string;
}

/**
 * The record is kept on the result itself, under a symbol, as a non-enumerable, read-only property:
 * JSON.stringify and property listings skip it, and a copy of the result (`{ ...result }`, which copies
 * enumerable properties only) does not carry the tags of the original. A WeakMap did the same for every
 * result at a cost per stream event (its set and the collector's ephemeron work) of about 8 % of an SSE
 * stream's in-process time; it is kept only for results that cannot take a property (frozen, sealed).
 */
const TAGS = Symbol("a2a.resultTags");
const fixedTags = new WeakMap<object, ResultTags>();

function tagsOf(result: object): ResultTags {
  const found = readTags(result);
  if (found !== undefined) return found;
  const created: ResultTags = { owner: result };
  if (Object.isExtensible(result)) Object.defineProperty(result, TAGS, { value: created });
  else fixedTags.set(result, created);
  return created;
}

function readTags(result: object): ResultTags | undefined {
  const own = (result as { [TAGS]?: ResultTags })[TAGS];
  if (own !== undefined) return own.owner === result ? own : undefined;
  return Object.isExtensible(result) ? undefined : fixedTags.get(result);
}

/** Tags a stream result with its event id. */
export function withEventId<T>(result: T, id: number | string): T {
  if (typeof result === "object" && result !== null) tagsOf(result).id = String(id);
  return result;
}

/** The event id a stream result was tagged with, if any. */
export function eventIdOf(result: unknown): string | undefined {
  return typeof result === "object" && result !== null ? readTags(result)?.id : undefined;
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
  return typeof result === "object" && result !== null ? readTags(result)?.text : undefined;
}

/** The sequence a `Last-Event-ID` header names: a non-negative integer, else undefined (ignored). */
export function lastEventSequence(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  if (!/^\d{1,15}$/.test(text)) return undefined;
  return Number(text);
}
