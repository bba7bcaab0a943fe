import { CodegenError, joinPointer } from "../errors.js";
import { cloneJson, isObject, type Json, type JsonObject } from "./json.js";
import { walkSchema } from "./walk.js";
import { closestName } from "../closest-name.js";

/**
 * The one form every later stage reads, whatever dialect the input was written in:
 * - definitions live in `definitions` (0.1.0 used `$defs`), sorted by name, and every `$ref` is
 *   `#/definitions/<Name>`;
 * - `title`s are gone (pydantic writes one on every property; json-schema-to-typescript turns them into
 *   type names like `Message1`) — a type is named only from its definition key;
 * - a `$ref` keeps at most a `description` beside it ("ref + doc");
 * - a JSON-RPC response object that declares `result` and `error` both optional (0.1.0) becomes the
 *   union JSON-RPC 2.0 §5 prescribes: exactly one of the two.
 * The input object is never mutated.
 */
export interface NormalizedSchema {
  /** Which spelling the input used for its definitions map. */
  dialect: "definitions" | "$defs";
  definitions: Record<string, JsonObject>;
  /** Maps a normalized pointer (`/definitions/X/...`) prefix back to where it was in the input. */
  sourcePointer(pointer: string): string;
}

const DOC_SIBLINGS = new Set(["description", "$comment"]);
const DROPPED_KEYWORDS = ["title", "$schema", "$id", "examples"];

/**
 * How deeply a schema file may nest (JSON levels). The bundled schemas nest 10 levels; every later stage
 * (cloning, walking, json-schema-to-typescript, Ajv) recurses over the nesting, so a schema nested
 * thousands of levels deep would overflow the stack instead of being refused.
 */
export const MAX_SCHEMA_DEPTH = 128;

/**
 * Names that cannot be a definition or a property: a JSON object with a key `__proto__` becomes another
 * object's prototype when it is copied or assigned, so the definition would vanish (and the server drops
 * such keys from requests anyway).
 */
const UNSAFE_KEYS = new Set(["__proto__"]);

export function normalizeSchema(input: JsonObject, file: string): NormalizedSchema {
  checkDepth(input, file);
  const hasDefs = isObject(input.$defs);
  const hasDefinitions = isObject(input.definitions);
  if (!hasDefs && !hasDefinitions) {
    throw new CodegenError(
      'not an A2A JSON Schema: it has no "definitions" (or "$defs") object holding the protocol\'s types',
      { file, pointer: "" },
    );
  }
  if (hasDefs && hasDefinitions) {
    const both = Object.keys(input.$defs as JsonObject).filter((k) => k in (input.definitions as JsonObject));
    if (both.length > 0) {
      throw new CodegenError(`definition "${both[0]}" is declared in both "definitions" and "$defs"`, {
        file,
        pointer: joinPointer("", "$defs", both[0] as string),
      });
    }
  }
  const dialect = hasDefs ? "$defs" : "definitions";
  const sources: Array<["definitions" | "$defs", JsonObject]> = [];
  if (hasDefinitions) sources.push(["definitions", input.definitions as JsonObject]);
  if (hasDefs) sources.push(["$defs", input.$defs as JsonObject]);

  const origin = new Map<string, "definitions" | "$defs">();
  const raw: Record<string, JsonObject> = {};
  for (const [key, defs] of sources) {
    for (const [name, schema] of Object.entries(defs)) {
      if (UNSAFE_KEYS.has(name)) {
        throw new CodegenError(`definition name "${name}" is not allowed: a JSON object key "${name}" is an object's prototype, never a value; rename the definition`, {
          file,
          pointer: joinPointer("", key, name),
        });
      }
      if (!isObject(schema)) {
        throw new CodegenError("a definition must be a JSON object (a schema)", { file, pointer: joinPointer("", key, name) });
      }
      origin.set(name, key);
      raw[name] = cloneJson(schema);
    }
  }
  const sourcePointer = (pointer: string): string => {
    const m = /^\/definitions\/([^/]*)(.*)$/.exec(pointer);
    if (!m) return pointer;
    const name = (m[1] as string).replace(/~1/g, "/").replace(/~0/g, "~");
    return joinPointer("", origin.get(name) ?? "definitions", name) + m[2];
  };

  const definitions: Record<string, JsonObject> = {};
  for (const name of Object.keys(raw).sort()) {
    const pointer = joinPointer("", "definitions", name);
    definitions[name] = walkSchema(raw[name] as JsonObject, pointer, (node, at) =>
      normalizeNode(node, at, raw, file, sourcePointer),
    );
  }
  for (const name of Object.keys(definitions)) {
    definitions[name] = exactlyOneOfResultOrError(definitions[name] as JsonObject);
  }
  return { dialect, definitions, sourcePointer };
}

function normalizeNode(
  node: JsonObject,
  pointer: string,
  definitions: Record<string, JsonObject>,
  file: string,
  sourcePointer: (p: string) => string,
): JsonObject {
  for (const key of DROPPED_KEYWORDS) delete node[key];
  for (const keyword of ["properties", "patternProperties"]) {
    const map = node[keyword];
    const unsafe = isObject(map) ? Object.keys(map).find((k) => UNSAFE_KEYS.has(k)) : undefined;
    if (unsafe !== undefined) {
      throw new CodegenError(`property name "${unsafe}" is not allowed: JSON parsers make it the object's prototype and the server drops it; rename the property`, {
        file,
        pointer: sourcePointer(joinPointer(pointer, keyword, unsafe)),
      });
    }
  }
  const ref = node.$ref;
  if (ref === undefined) return node;
  const refPointer = sourcePointer(joinPointer(pointer, "$ref"));
  if (typeof ref !== "string") throw new CodegenError("$ref must be a string", { file, pointer: refPointer });
  const m = /^#\/(definitions|\$defs)\/(.+)$/.exec(ref);
  if (!m) {
    const why = ref.startsWith("#")
      ? `$ref "${ref}" does not point into the definitions`
      : `$ref "${ref}" points outside this file; a2a-codegen reads one self-contained schema`;
    throw new CodegenError(why, { file, pointer: refPointer });
  }
  const target = decodeURIComponent((m[2] as string).replace(/~1/g, "/").replace(/~0/g, "~"));
  if (!Object.prototype.hasOwnProperty.call(definitions, target)) {
    const suggestion = closestName(target, Object.keys(definitions));
    throw new CodegenError(`dangling $ref "${ref}": there is no definition "${target}"${suggestion ? `; did you mean "${suggestion}"?` : ""}`, { file, pointer: refPointer });
  }
  const out: JsonObject = { $ref: `#/definitions/${target}` };
  for (const [key, value] of Object.entries(node)) {
    if (DOC_SIBLINGS.has(key)) out[key] = value;
  }
  return out;
}

/**
 * JSON-RPC 2.0 §5: a response has `result` or `error`, never both, never neither. 0.1.0's schema declares
 * both optional on one object, which neither types nor validates that rule; turn it into two variants.
 */
function exactlyOneOfResultOrError(schema: JsonObject): JsonObject {
  const props = schema.properties;
  if (!isObject(props) || !("result" in props) || !("error" in props) || !("jsonrpc" in props)) return schema;
  const required = Array.isArray(schema.required) ? (schema.required as Json[]).filter((r): r is string => typeof r === "string") : [];
  if (required.includes("result") || required.includes("error")) return schema;
  const variant = (present: "result" | "error", absent: "result" | "error"): JsonObject => {
    const { [absent]: _dropped, ...kept } = props;
    const base: JsonObject = { ...schema };
    delete base.description;
    return { ...base, properties: kept, required: [...required, present], not: { required: [absent] } };
  };
  const out: JsonObject = { anyOf: [variant("result", "error"), variant("error", "result")] };
  if (schema.description !== undefined) out.description = schema.description;
  return out;
}

/** Refuses a schema nested more than MAX_SCHEMA_DEPTH levels, naming where (an iterative walk: it cannot overflow). */
export function checkDepth(input: JsonObject, file: string): void {
  const stack: Array<{ value: Json; depth: number; pointer: string }> = [{ value: input, depth: 1, pointer: "" }];
  while (stack.length > 0) {
    const { value, depth, pointer } = stack.pop() as { value: Json; depth: number; pointer: string };
    if (value === null || typeof value !== "object") continue;
    if (depth > MAX_SCHEMA_DEPTH) {
      throw new CodegenError(`the schema nests deeper than ${MAX_SCHEMA_DEPTH} levels here; a2a-codegen reads schemas up to that depth`, {
        file,
        pointer,
      });
    }
    const entries: Array<[string | number, Json]> = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
    for (const [key, child] of entries) stack.push({ value: child, depth: depth + 1, pointer: joinPointer(pointer, key) });
  }
}

/** The definition name a `#/definitions/X` ref points at. */
export function refName(ref: Json | undefined): string | undefined {
  if (typeof ref !== "string") return undefined;
  const m = /^#\/definitions\/(.+)$/.exec(ref);
  return m ? (m[1] as string) : undefined;
}
