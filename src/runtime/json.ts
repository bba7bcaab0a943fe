/**
 * The ground floor of the runtime: a JSON object as the runtime handles it, and the check that a value is one.
 */

export type JsonObject = { [key: string]: unknown };

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
