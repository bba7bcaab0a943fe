/**
 * The SSE `id:` of a stream result: the task runtime tags each result it yields with the sequence of the
 * event in the task's log, and the SSE writer sends it as the event's `id:`. A client that reconnects
 * with `Last-Event-ID` (SubscribeToTask / tasks/resubscribe) resumes after it, with no gap and no
 * duplicate. Results are tagged by identity, so nothing is added to the protocol objects themselves.
 */
const ids = new WeakMap<object, { id: string; text: string | undefined }>();

/**
 * Tags a stream result with its event id, and with its JSON text when the log gave it (the result is
 * the logged event itself): a binding writes that text instead of serializing the result again.
 */
export function withEventId<T>(result: T, id: number | string, text?: string): T {
  if (typeof result === "object" && result !== null) ids.set(result, { id: String(id), text });
  return result;
}

/** The event id a stream result was tagged with, if any. */
export function eventIdOf(result: unknown): string | undefined {
  return typeof result === "object" && result !== null ? ids.get(result)?.id : undefined;
}

/** The JSON text of a stream result (exactly `JSON.stringify(result)`), when it was tagged with it. */
export function eventTextOf(result: unknown): string | undefined {
  return typeof result === "object" && result !== null ? ids.get(result)?.text : undefined;
}

const texts = new WeakMap<object, string>();

/**
 * Tags a unary result (a task as committed) with its JSON text, exactly `JSON.stringify(result)`: the
 * JSON-RPC binding writes it instead of serializing the result again. Only for a value nobody changes
 * after (the runtime's committed tasks are never changed).
 */
export function withJsonText<T>(result: T, text: string): T {
  if (typeof result === "object" && result !== null) texts.set(result, text);
  return result;
}

/** The JSON text a unary result was tagged with, if any. */
export function jsonTextOf(result: unknown): string | undefined {
  return typeof result === "object" && result !== null ? texts.get(result) : undefined;
}

/** The sequence a `Last-Event-ID` header names: a non-negative integer, else undefined (ignored). */
export function lastEventSequence(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  if (!/^\d{1,15}$/.test(text)) return undefined;
  return Number(text);
}
