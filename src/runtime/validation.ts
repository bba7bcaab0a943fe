/**
 * Validation runtime of the code a2a-codegen generates: turns the errors of the precompiled (Ajv
 * standalone) validators into a small, stable shape and wraps each validator as a type guard.
 * Copied verbatim into every generated folder; it has no dependencies.
 */

/** One problem found in a value. The shape is stable across versions of a2a-codegen. */
export interface ValidationIssue {
  /** JSON pointer (RFC 6901) to the offending value; for a missing property, to where it should be. */
  pointer: string;
  /** What the schema expects there, e.g. `string`, `one of "agent", "user"`, `a property "parts"`. */
  expected: string;
  /** What the value has there, e.g. `number`, `"bot"`, `missing`. */
  got: string;
  /** The JSON Schema keyword that failed (`required`, `type`, `enum`, `const`, `anyOf`, ...). */
  keyword: string;
  /** One readable sentence naming the place, e.g. `/params/message/role: expected one of "agent", "user", got "bot"`. */
  message: string;
}

/** The error objects Ajv's generated code reports (a subset of Ajv's ErrorObject). */
export interface RawValidationError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/** A validate function as Ajv's standalone code exports it. */
export interface RawValidateFunction {
  (data: unknown): boolean;
  errors?: RawValidationError[] | null;
}

/** A generated validator: a type guard that keeps the issues of its last call. */
export interface Validator<T> {
  (value: unknown): value is T;
  /** The issues of the last call that failed; null after a call that passed. */
  readonly errors: ValidationIssue[] | null;
  /** The definition it checks, e.g. "Message". */
  readonly typeName: string;
  /** The limits it applies before validating (DEFAULT_VALIDATION_LIMITS unless made otherwise). */
  readonly limits: ValidationLimits;
  /** The same validator with other limits (a new guard: this one is unchanged). */
  withLimits(limits: ValidationLimits): Validator<T>;
}

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; issues: ValidationIssue[] };

/**
 * How large a value the validators take. The compiled validators recurse once per level of nesting (a
 * recursive schema such as 1.0's `google.protobuf.Value` follows the value down), so a value nested
 * thousands of levels deep would overflow the stack; a bound on the levels and on the number of values
 * turns that into one issue naming where.
 */
export interface ValidationLimits {
  /** Levels of nesting below the value itself (an object or array inside another is one level). */
  readonly maxDepth: number;
  /** Values in all: every object, array, string, number, boolean and null, the value itself included. */
  readonly maxNodes: number;
}

/**
 * The limits every generated validator applies unless given others: far beyond any A2A message (the
 * bundled schemas nest about 10 levels, and a 1 MiB request body holds at most about 500,000 values),
 * well within what the validators can recurse through.
 */
export const DEFAULT_VALIDATION_LIMITS: ValidationLimits = Object.freeze({ maxDepth: 100, maxNodes: 1_000_000 });

/**
 * The first place where a value exceeds the limits, as an issue (keyword `maxDepth` or `maxNodes`), or
 * null when it is within them. Iterative: it cannot overflow however deep the value is. A server calls it
 * (with its configured limits) before validating a request, to answer -32602 naming the pointer.
 */
export function checkLimits(value: unknown, limits: ValidationLimits = DEFAULT_VALIDATION_LIMITS): ValidationIssue | null {
  // A fast pass that only counts; the pointer of the place is found again, by the slower pass, when it fails.
  const values = pendingValues;
  const depths = pendingDepths;
  values.push(value);
  depths.push(0);
  let nodes = 0;
  let exceeded = false;
  while (values.length > 0) {
    const node = values.pop();
    const depth = depths.pop() as number;
    if (++nodes > limits.maxNodes || (depth > limits.maxDepth && node !== null && typeof node === "object")) {
      exceeded = true;
      break;
    }
    if (node === null || typeof node !== "object") continue;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        values.push(node[i]);
        depths.push(depth + 1);
      }
    } else {
      for (const key in node) {
        if (!Object.prototype.hasOwnProperty.call(node, key)) continue;
        values.push((node as Record<string, unknown>)[key]);
        depths.push(depth + 1);
      }
    }
  }
  if (!exceeded) return null; // the loop emptied the lists (V8 trims their room as they shrink)
  values.length = 0;
  depths.length = 0;
  return limitIssue(value, limits);
}

/**
 * The work lists of checkLimits, kept from call to call (it runs to the end without yielding, so one call
 * uses them at a time): two fresh arrays grown element by element were most of what a request's check
 * allocated.
 */
const pendingValues: unknown[] = [];
const pendingDepths: number[] = [];

/** The issue of the first place, in document order, where a value exceeds the limits (it is known to). */
function limitIssue(value: unknown, limits: ValidationLimits): ValidationIssue | null {
  interface Entry {
    value: unknown;
    depth: number;
    parent: Entry | undefined;
    key: string;
  }
  const pointerOf = (entry: Entry): string => {
    const tokens: string[] = [];
    for (let e: Entry | undefined = entry; e?.parent !== undefined; e = e.parent) tokens.push(escapeToken(e.key));
    return tokens.length === 0 ? "" : "/" + tokens.reverse().join("/");
  };
  const stack: Entry[] = [{ value, depth: 0, parent: undefined, key: "" }];
  let nodes = 0;
  while (stack.length > 0) {
    const entry = stack.pop() as Entry;
    nodes++;
    if (nodes > limits.maxNodes) {
      const pointer = pointerOf(entry);
      return {
        pointer,
        expected: `at most ${limits.maxNodes} values in all`,
        got: "more",
        keyword: "maxNodes",
        message: `${pointer || "/"}: the value holds more than ${limits.maxNodes} values (objects, arrays and scalars)`,
      };
    }
    const node = entry.value;
    if (node === null || typeof node !== "object") continue;
    if (entry.depth > limits.maxDepth) {
      const pointer = pointerOf(entry);
      return {
        pointer,
        expected: `at most ${limits.maxDepth} levels of nesting`,
        got: "deeper",
        keyword: "maxDepth",
        message: `${pointer || "/"}: nested deeper than ${limits.maxDepth} levels`,
      };
    }
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push({ value: node[i], depth: entry.depth + 1, parent: entry, key: String(i) });
    } else {
      const keys = Object.keys(node);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string;
        stack.push({ value: (node as Record<string, unknown>)[key], depth: entry.depth + 1, parent: entry, key });
      }
    }
  }
  return null;
}

export function createValidator<T>(typeName: string, raw: RawValidateFunction, limits: ValidationLimits = DEFAULT_VALIDATION_LIMITS): Validator<T> {
  let last: ValidationIssue[] | null = null;
  const guard = (value: unknown): value is T => {
    // Scalars and shallow values cannot exceed the limits; everything else is measured before validating.
    const over = value !== null && typeof value === "object" ? checkLimits(value, limits) : null;
    if (over !== null) {
      last = [over];
      return false;
    }
    let ok: boolean;
    try {
      ok = raw(value);
    } catch (error) {
      // A validator must answer, never throw: the stack is the only thing that can still run out.
      if (!(error instanceof RangeError)) throw error;
      last = [{ pointer: "", expected: "a value the validator can check", got: "too deeply nested", keyword: "maxDepth", message: "/: nested too deeply to validate" }];
      return false;
    }
    if (ok) {
      last = null;
      return true;
    }
    last = toIssues(raw.errors ?? [], value);
    return false;
  };
  Object.defineProperty(guard, "errors", { get: () => last, enumerable: true });
  Object.defineProperty(guard, "typeName", { value: typeName, enumerable: true });
  Object.defineProperty(guard, "limits", { value: Object.freeze({ ...limits }), enumerable: true });
  Object.defineProperty(guard, "withLimits", { value: (other: ValidationLimits) => createValidator<T>(typeName, raw, other) });
  return guard as Validator<T>;
}

/** Validates without the stateful `errors` property. */
export function check<T>(validator: Validator<T>, value: unknown): ValidationResult<T> {
  return validator(value) ? { ok: true, value } : { ok: false, issues: validator.errors ?? [] };
}

/** The issues as lines of text, for logs and error messages. */
export function formatIssues(issues: readonly ValidationIssue[]): string {
  return issues.map((issue) => issue.message).join("\n");
}

/**
 * Ajv's raw errors → issues: drops the bookkeeping errors of if/then dispatch, folds the fan-out of a
 * failed union into one issue where the branches agree, and describes each remaining error.
 */
export function toIssues(errors: readonly RawValidationError[], data: unknown): ValidationIssue[] {
  const kept = reduceUnionFanOut(errors.filter((e) => e.keyword !== "if"));
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const error of kept) {
    const issue = describe(error, data);
    const key = issue.pointer + "\u0000" + issue.message;
    if (!seen.has(key)) {
      seen.add(key);
      issues.push(issue);
    }
  }
  return issues;
}

function reduceUnionFanOut(errors: readonly RawValidationError[]): RawValidationError[] {
  const out: RawValidationError[] = [];
  for (const error of errors) {
    if (error.keyword !== "anyOf" && error.keyword !== "oneOf") {
      out.push(error);
      continue;
    }
    if (error.keyword === "oneOf" && error.params["passingSchemas"] != null) {
      out.push(error); // more than one branch matched: the error itself is the news
      continue;
    }
    // The branch errors are the ones just before it at or below its instancePath.
    let start = out.length;
    while (start > 0 && isAtOrBelow((out[start - 1] as RawValidationError).instancePath, error.instancePath)) start--;
    const branches = out.splice(start);
    out.push(...foldBranches(error, branches));
  }
  return out;
}

function foldBranches(union: RawValidationError, branches: RawValidationError[]): RawValidationError[] {
  if (branches.length === 0) return [union];
  const samePlace = branches.every((b) => b.instancePath === union.instancePath);
  if (samePlace && branches.every((b) => b.keyword === "type")) {
    const types = unique(branches.flatMap((b) => String(b.params["type"]).split(",")));
    return [{ ...union, keyword: "type", params: { type: types.join(",") } }];
  }
  if (samePlace && branches.every((b) => b.keyword === "required")) {
    const props = unique(branches.map((b) => String(b.params["missingProperty"])));
    if (props.length === 1) return [branches[0] as RawValidationError];
    return [{ ...union, keyword: "requiredOneOf", params: { properties: props } }];
  }
  // The branch that got furthest into the value is the one the value evidently meant.
  const depth = (e: RawValidationError) => (e.instancePath === "" ? 0 : e.instancePath.split("/").length - 1) + (e.keyword === "required" ? 1 : 0);
  const deepest = Math.max(...branches.map(depth));
  return branches.filter((b) => depth(b) === deepest);
}

function isAtOrBelow(path: string, base: string): boolean {
  return path === base || path.startsWith(base + "/");
}

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}

function describe(error: RawValidationError, data: unknown): ValidationIssue {
  const at = error.instancePath;
  const p = error.params;
  const here = valueAt(data, at);
  const issue = (pointer: string, expected: string, got: string, message: string): ValidationIssue => ({
    pointer,
    expected,
    got,
    keyword: error.keyword,
    message: `${pointer || "/"}: ${message}`,
  });
  switch (error.keyword) {
    case "required": {
      const name = String(p["missingProperty"]);
      return issue(`${at}/${escapeToken(name)}`, `a property "${name}"`, "missing", `required property "${name}" is missing`);
    }
    case "requiredOneOf": {
      const names = (p["properties"] as string[]).map((n) => `"${n}"`).join(" or ");
      return issue(at, `a property ${names}`, "neither", `must have a property ${names}`);
    }
    case "type": {
      const expected = String(p["type"]).split(",").join(" or ");
      const got = jsonType(here);
      return issue(at, expected, got, `expected ${expected}, got ${got}`);
    }
    case "enum": {
      const allowed = ((p["allowedValues"] as unknown[]) ?? []).map(show).join(", ");
      const expected = `one of ${allowed}`;
      const got = here === undefined ? "missing" : show(here);
      return issue(at, expected, got, `expected ${expected}, got ${got}`);
    }
    case "const": {
      const expected = show(p["allowedValue"]);
      const got = here === undefined ? "missing" : show(here);
      return issue(at, expected, got, `expected ${expected}, got ${got}`);
    }
    case "additionalProperties": {
      const name = String(p["additionalProperty"]);
      return issue(`${at}/${escapeToken(name)}`, "no such property", "present", `property "${name}" is not allowed`);
    }
    case "minItems":
    case "maxItems": {
      const limit = Number(p["limit"]);
      const expected = `${error.keyword === "minItems" ? "at least" : "at most"} ${limit} item${limit === 1 ? "" : "s"}`;
      const got = Array.isArray(here) ? `${here.length} item${here.length === 1 ? "" : "s"}` : jsonType(here);
      return issue(at, expected, got, `expected ${expected}, got ${got}`);
    }
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum": {
      const expected = `a number ${String(p["comparison"])} ${String(p["limit"])}`;
      const got = show(here);
      return issue(at, expected, got, `expected ${expected}, got ${got}`);
    }
    case "anyOf":
    case "oneOf":
      return issue(at, `a value matching one of the union's members`, jsonType(here), `matches none of the union's members`);
    case "not":
      return issue(at, "not this combination of properties", "present", "has a combination of properties the schema forbids");
    default: {
      const expected = error.message ?? `to satisfy "${error.keyword}"`;
      return issue(at, expected, show(here), expected);
    }
  }
}

function escapeToken(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

function valueAt(data: unknown, pointer: string): unknown {
  if (pointer === "") return data;
  let node: unknown = data;
  for (const raw of pointer.slice(1).split("/")) {
    const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (node === null || typeof node !== "object" || !Object.prototype.hasOwnProperty.call(node, token)) return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}

function jsonType(value: unknown): string {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** How many characters of a value an issue shows. */
const SHOWN = 60;

/**
 * A value as JSON for an issue message, at most SHOWN characters: it writes only what it shows, so a
 * huge or deeply nested value costs no more than a small one (JSON.stringify of the whole value would
 * throw a RangeError at 10,000 levels, and copy megabytes to print 60 characters).
 */
function show(value: unknown): string {
  if (value === undefined) return "missing";
  const out = { text: "" };
  preview(value, 0, out);
  return out.text.length > SHOWN ? `${out.text.slice(0, SHOWN - 3)}...` : out.text;
}

function preview(value: unknown, depth: number, out: { text: string }): void {
  if (out.text.length > SHOWN) return;
  if (typeof value === "string") {
    out.text += JSON.stringify(value.length > SHOWN ? value.slice(0, SHOWN) : value);
    return;
  }
  if (value === null || typeof value !== "object") {
    out.text += JSON.stringify(value) ?? String(value);
    return;
  }
  if (depth >= 8) {
    out.text += Array.isArray(value) ? "[...]" : "{...}";
    return;
  }
  if (Array.isArray(value)) {
    out.text += "[";
    for (let i = 0; i < value.length && out.text.length <= SHOWN; i++) {
      if (i > 0) out.text += ",";
      preview(value[i], depth + 1, out);
    }
    out.text += "]";
    return;
  }
  out.text += "{";
  let first = true;
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    if (out.text.length > SHOWN) break;
    out.text += `${first ? "" : ","}${JSON.stringify(key.length > SHOWN ? key.slice(0, SHOWN) : key)}:`;
    first = false;
    preview((value as Record<string, unknown>)[key], depth + 1, out);
  }
  out.text += "}";
}
