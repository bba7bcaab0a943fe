/** JSON values as the generator handles them; schemas are plain JSON objects. */
export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A deep copy of a JSON value (the input schema is never mutated). */
export function cloneJson<T extends Json>(value: T): T {
  return structuredClone(value);
}

/** JSON with object keys sorted at every level: the canonical form used for hashing and determinism. */
export function canonicalJson(value: Json): string {
  return JSON.stringify(sortKeys(value));
}

export function sortKeys(value: Json): Json {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (isObject(value)) {
    const out: JsonObject = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys(value[key] as Json);
    return out;
  }
  return value;
}

/** Line and column (both 1-based) of a character offset in a text. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
