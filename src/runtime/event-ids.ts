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
  id?: string;
  text?: string;
}

/** A base class whose constructor returns the object it is given: a subclass then adds its fields to that object. */
class ReturnsItsArgument {
  constructor(result: object) {
    return result as ReturnsItsArgument;
  }
}

/**
 * The record is kept on the result itself, in a private field added to it by this class's constructor
 * (its base returns the result instead of a new object). Nothing but this class sees the field: not
 * JSON.stringify, not a property listing (Object.keys, Reflect.ownKeys, util.inspect), not a copy
 * (`{ ...result }`), not an object made with the result as its prototype. What it replaced cost more
 * for every stream event: a WeakMap (its set and the collector's ephemeron work: about 8 % of an SSE
 * stream's in-process time), then a symbol-keyed property made non-enumerable with
 * Object.defineProperty (a call into the engine's slow path: ~190 ns to tag a result and read it back,
 * against ~35 here). A result that can take no new property (frozen, sealed) keeps its record in a
 * WeakMap: engines may come to refuse private fields on such objects too.
 */
class TaggedResult extends ReturnsItsArgument {
  readonly #tags: ResultTags;

  private constructor(result: object, tags: ResultTags) {
    super(result);
    this.#tags = tags;
  }

  /** The result's record, made when it has none. */
  static tagsOf(result: object): ResultTags {
    const found = TaggedResult.readTags(result);
    if (found !== undefined) return found;
    const created: ResultTags = {};
    if (Object.isExtensible(result)) new TaggedResult(result, created);
    else fixedTags.set(result, created);
    return created;
  }

  static readTags(result: object): ResultTags | undefined {
    if (#tags in result) return result.#tags;
    return Object.isExtensible(result) ? undefined : fixedTags.get(result);
  }
}

const fixedTags = new WeakMap<object, ResultTags>();

/** Tags a stream result with its event id. */
export function withEventId<T>(result: T, id: number | string): T {
  if (typeof result === "object" && result !== null) TaggedResult.tagsOf(result).id = String(id);
  return result;
}

/** The event id a stream result was tagged with, if any. */
export function eventIdOf(result: unknown): string | undefined {
  return typeof result === "object" && result !== null ? TaggedResult.readTags(result)?.id : undefined;
}

/**
 * Tags a result with its JSON text, exactly `JSON.stringify(result)` (nothing when `text` is undefined).
 * Only for a value nobody changes after (the runtime's committed tasks and logged events are never changed).
 */
export function withJsonText<T>(result: T, text: string | undefined): T {
  if (text !== undefined && typeof result === "object" && result !== null) TaggedResult.tagsOf(result).text = text;
  return result;
}

/** The JSON text a result was tagged with, if any. */
export function jsonTextOf(result: unknown): string | undefined {
  return typeof result === "object" && result !== null ? TaggedResult.readTags(result)?.text : undefined;
}

/** The sequence a `Last-Event-ID` header names: a non-negative integer, else undefined (ignored). */
export function lastEventSequence(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  if (!/^\d{1,15}$/.test(text)) return undefined;
  return Number(text);
}
