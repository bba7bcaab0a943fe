/**
 * The JSON text of a task the runtime commits, built without serializing again the artifact parts it
 * wrote before. A streamed artifact grows by a chunk per event and its task is committed every few
 * chunks: serializing the whole task each time costs the square of the stream's length (it was the
 * largest cost of an SSE stream). The text of each parts array is kept, by the array's identity, with
 * how many parts it covers; the runtime tells which array an appended artifact's parts were copied
 * from, so that a commit writes only the parts added since the last one.
 *
 * The text is exactly `JSON.stringify(task)` as long as a part is not changed after it was published:
 * the runtime never changes one, and its event carried that very text already (an agent that changes a
 * part object it published gets the published text stored, as its subscribers got).
 */
import type { JsonObject } from "../json.js";
import { flat, jsonText } from "../stores/task-json.js";

/** Below this many artifact parts, one JSON.stringify of the task is as fast: no text is built. */
const MIN_PARTS = 16;

export class TaskTexts {
  /** The texts of a parts array's first `count` parts, joined with commas. */
  private readonly written = new WeakMap<readonly unknown[], { count: number; text: string }>();
  /** A parts array the runtime made by copying another and adding parts after its `length` first ones. */
  private readonly copies = new WeakMap<readonly unknown[], { from: readonly unknown[]; length: number }>();

  /**
   * Tells that `parts` starts with the parts of `from` (an appended artifact's copy): its text starts
   * with the one written for `from`.
   */
  copied(parts: readonly unknown[], from: readonly unknown[]): void {
    this.copies.set(parts, { from, length: from.length });
  }

  /**
   * The task's JSON text when it has enough artifact parts for the kept texts to pay (undefined
   * otherwise: serialize the task with `storableJson`). A value JSON cannot write throws StoreError "invalid",
   * as `storableJson` does.
   */
  of(task: JsonObject): string | undefined {
    const artifacts = task["artifacts"];
    if (!Array.isArray(artifacts) || !isPlainObject(task) || !isPlainArray(artifacts) || partCount(artifacts) < MIN_PARTS) return undefined;
    const what = `task "${String(task["id"])}"`;
    return objectText(task, "artifacts", what, () => {
      const out: string[] = [];
      for (let i = 0; i < artifacts.length; i++) {
        const artifact: unknown = artifacts[i];
        out.push(
          isPlainObject(artifact)
            ? objectText(artifact, "parts", what, (parts) => (Array.isArray(parts) && isPlainArray(parts) ? this.partsText(parts, what) : jsonText(parts, what)))
            : (jsonText(artifact, what) ?? "null"),
        );
      }
      return `[${out.join(",")}]`;
    });
  }

  /** `[...]` of the parts: the text written before for their first ones, then the new ones'. */
  private partsText(parts: readonly unknown[], what: string): string {
    let known = this.written.get(parts);
    if (known === undefined || known.count > parts.length) {
      const copy = this.copies.get(parts);
      const base = copy && this.written.get(copy.from);
      // The copy took `copy.length` parts of `from`: its text covers the first `base.count` of them.
      known = base !== undefined && copy !== undefined && base.count <= copy.length && copy.length <= parts.length ? base : undefined;
    }
    let count = known?.count ?? 0;
    let text = known?.text ?? "";
    for (; count < parts.length; count++) {
      const part = jsonText(parts[count], what) ?? "null";
      text = count === 0 ? part : `${text},${part}`;
    }
    // Kept flat: appended to, a kept text would otherwise be a chain of every part's piece (V8's ropes),
    // walked again by each commit's copy and held by the collector.
    this.written.set(parts, { count, text: flat(text) });
    // Its own text is kept now: holding the array it was copied from would keep a chain of every copy.
    this.copies.delete(parts);
    return `[${text}]`;
  }
}

/**
 * The JSON texts of a turn's artifact-update events, each from its artifact's text: what comes before the
 * artifact (the event's kind, task and context ids, chunk flags) is the same for every chunk of the turn
 * with the same flags and is serialized once. Each event of a stream is serialized in any case (its log
 * keeps the text, its subscribers get it); this spares serializing its ids again for every chunk.
 */
export class ArtifactEventTexts {
  /** By the chunk flags (`append`, `lastChunk`: each absent, true or false): the text before the artifact's. */
  private readonly heads: Array<string | undefined> = [];

  /**
   * Exactly `JSON.stringify(event)` for an event whose last member is a plain `artifact` (as
   * `ProtocolShapes.artifactEvent` builds them), given the flags it was built with; undefined otherwise
   * (or when the artifact cannot be serialized: the store refuses it then, naming the task).
   */
  of(event: JsonObject, append: boolean | undefined, lastChunk: boolean | undefined): string | undefined {
    const artifact = event["artifact"];
    if (!isPlainObject(event) || !isPlainObject(artifact)) return undefined;
    try {
      const key = flagCode(append) * 3 + flagCode(lastChunk);
      let head = this.heads[key];
      if (head === undefined) {
        const keys = Object.keys(event);
        if (keys[keys.length - 1] !== "artifact") return undefined;
        const { artifact: _artifact, ...before } = event;
        const text = JSON.stringify(before);
        head = this.heads[key] = text === "{}" ? '{"artifact":' : `${text.slice(0, -1)},"artifact":`;
      }
      return `${head}${JSON.stringify(artifact)}}`;
    } catch {
      return undefined;
    }
  }
}

function flagCode(flag: boolean | undefined): number {
  return flag === undefined ? 0 : flag ? 1 : 2;
}

function partCount(artifacts: readonly unknown[]): number {
  let count = 0;
  for (const artifact of artifacts) {
    const parts = typeof artifact === "object" && artifact !== null ? (artifact as JsonObject)["parts"] : undefined;
    if (Array.isArray(parts)) count += parts.length;
  }
  return count;
}

/** An object JSON.stringify writes key by key (no toJSON of its own, an ordinary prototype). */
function isPlainObject(value: unknown): value is JsonObject {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== "function";
}

function isPlainArray(value: readonly unknown[]): boolean {
  return Object.getPrototypeOf(value) === Array.prototype && typeof (value as { toJSON?: unknown }).toJSON !== "function";
}

/**
 * `JSON.stringify(obj)` with the value under `key` written by `text` (given that value): the same keys,
 * in the same order, a key whose value JSON leaves out (undefined, a function) left out.
 */
function objectText(obj: JsonObject, key: string, what: string, text: (value: unknown) => string | undefined): string {
  let out = "";
  for (const name of Object.keys(obj)) {
    const value = obj[name];
    const written = name === key ? text(value) : jsonText(value, what);
    if (written === undefined) continue;
    out += `${out === "" ? "" : ","}${JSON.stringify(name)}:${written}`;
  }
  return `{${out}}`;
}
