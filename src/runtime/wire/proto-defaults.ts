/**
 * ProtoJSON default-omission, on the reading side. A ProtoJSON writer (A2A 1.0; the official SDK is one)
 * leaves out every field that holds its default: an empty list, an empty map, "", 0, false, an enum's
 * zero value, even where the schema marks the field REQUIRED (`skills: []`, OAuth `scopes: {}`, an empty
 * ListTasks page that becomes `{"pageSize":50}`). What we receive has those fields put back before it is
 * validated and typed; what we send stays complete, and is validated strictly.
 * Copied verbatim into every generated folder; it has no dependencies. The table is generated from the
 * schema (validators.ts, `PROTO_JSON_DEFAULTS`); for a version whose wire format is not ProtoJSON it is empty.
 */

/** How a property holds values of a definition: one, a list of them, or a map to them. */
export type Holding = "one" | "list" | "map";

/** What a reader may assume of one definition's absent fields, and where its nested definitions are. */
export interface TypeDefaults {
  /** Required properties a ProtoJSON writer leaves out at their default → that default. */
  readonly defaults?: { readonly [property: string]: unknown };
  /** Properties that hold definitions with defaults of their own → [definition, holding]. */
  readonly nested?: { readonly [property: string]: readonly [string, Holding] };
}

/** Definition name → its defaults; only definitions that have some, or lead to some. */
export interface ProtoJsonDefaults {
  readonly [definition: string]: TypeDefaults;
}

/** How many objects one call visits at most (the value of one response is far smaller). */
const MAX_VISITS = 1_000_000;

/**
 * Puts back, in place, the fields a ProtoJSON writer left out at their default, in `value` read as the
 * definition `typeName` and in every definition nested in it; returns `value`. Only absent properties are
 * set: a present value, valid or not, is left as it is for the validator to judge. Iterative (a deep value
 * cannot overflow the stack) and bounded. Values that are not plain objects where an object is expected
 * are skipped.
 */
export function fillProtoJsonDefaults<T = unknown>(table: ProtoJsonDefaults, typeName: string, value: unknown): T {
  const stack: Array<{ node: unknown; type: string }> = [{ node: value, type: typeName }];
  let visits = 0;
  while (stack.length > 0 && visits < MAX_VISITS) {
    const { node, type } = stack.pop() as { node: unknown; type: string };
    const entry = Object.prototype.hasOwnProperty.call(table, type) ? table[type] : undefined;
    if (entry === undefined || !isPlainObject(node)) continue;
    visits++;
    for (const [property, fallback] of Object.entries(entry.defaults ?? {})) {
      if (!Object.prototype.hasOwnProperty.call(node, property)) node[property] = fresh(fallback);
    }
    for (const [property, [nested, holding]] of Object.entries(entry.nested ?? {})) {
      const held = Object.prototype.hasOwnProperty.call(node, property) ? node[property] : undefined;
      if (held === undefined) continue;
      if (holding === "one") stack.push({ node: held, type: nested });
      else if (holding === "list" && Array.isArray(held)) for (const item of held) stack.push({ node: item, type: nested });
      else if (holding === "map" && isPlainObject(held)) for (const item of Object.values(held)) stack.push({ node: item, type: nested });
    }
  }
  return value as T;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A default of its own for each object it is put in (never one shared list or map). */
function fresh(value: unknown): unknown {
  if (Array.isArray(value)) return [];
  if (isPlainObject(value)) return {};
  return value;
}
