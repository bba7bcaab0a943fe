/**
 * ProtoJSON input (A2A 1.0 adopts ProtoJSON, specification-1.0.1.md §5.5): a ProtoJSON parser accepts a
 * field under its lowerCamel JSON name and under its original proto name (`historyLength` and
 * `history_length`), and can ignore fields it does not know. The servers read params that way: each field
 * under its JSON name, unknown fields left out, so that they are never validated, stored or echoed back
 * (a message sent with `"tckUnknownField": 1` comes back from GetTask without it). Free-form values
 * (`metadata`, a data part's `data`) are kept as they are. The table of fields is generated from the
 * proto (`A2A_INPUT_FIELDS` of protocol.ts).
 */
import { isObject, type JsonObject } from "../json.js";

/**
 * Definition → field (JSON name) → what it holds: "" a value kept as it is, a definition name (a message,
 * or a list of them), or "map:<definition>" (a map whose values are that message).
 */
export type InputFields = { readonly [definition: string]: { readonly [field: string]: string } };

/** The JSON name of a proto field name: `push_notification_config` → `pushNotificationConfig` (ProtoJSON's lowerCamel). */
export function jsonName(protoName: string): string {
  return protoName.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/**
 * A value of `definition` as a ProtoJSON reader sees it: fields under their proto names renamed to their
 * JSON names (the JSON name wins when both are sent), unknown fields left out, nested messages alike.
 * Anything that is not an object of a known definition is given back as it is, for the validator to judge.
 */
export function protoJsonInput(value: unknown, definition: string, fields: InputFields): unknown {
  const table = fields[definition];
  if (table === undefined || !isObject(value)) return value;
  const out: JsonObject = {};
  // Keys, not entries: this runs on every request's params, and an entry array per field showed in profiles.
  for (const key of Object.keys(value)) {
    const holds = has(table, key) ? table[key] : undefined;
    if (holds !== undefined) {
      out[key] = nested(value[key], holds, fields);
      continue;
    }
    const name = jsonName(key);
    if (name === key || !has(table, name) || has(value, name)) continue;
    out[name] = nested(value[key], table[name] as string, fields);
  }
  return out;
}

function has(object: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

function nested(value: unknown, holds: string, fields: InputFields): unknown {
  if (holds === "") return value;
  if (holds.startsWith("map:")) {
    if (!isObject(value)) return value;
    const definition = holds.slice(4);
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, protoJsonInput(entry, definition, fields)]));
  }
  return Array.isArray(value) ? value.map((item) => protoJsonInput(item, holds, fields)) : protoJsonInput(value, holds, fields);
}
