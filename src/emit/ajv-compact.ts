/**
 * Shorter spellings of the few statements Ajv's standalone code repeats at every error site, so that the
 * generated validators.ajv.ts is a fraction of Ajv's size and still does the same work in the same order:
 *
 * - `const err0 = {…};if(vErrors === null){vErrors = [err0];}else {vErrors.push(err0);}errors++;` (one
 *   per schema keyword that can fail: about half of Ajv's code) becomes
 *   `vErrors = addError(vErrors, instancePath, schemaPath, params);errors++;` (the keyword is the last
 *   segment of the schema path; a site where it is not keeps Ajv's code), without the
 *   `message` of the keywords whose message the validation runtime writes itself from `params`
 *   (`toIssues` reads `message` only for the others: `pattern`, `minimum`, …);
 * - the error list of a called validator appended with `concatErrors`, the list cut back to a length with
 *   `truncateErrors`, and the object test with `isObject`: small functions V8 inlines;
 * - the values error parameters read from a compiled schema (`{allowedValues: schema67.enum}`) written
 *   in place (`{allowedValues: ["submitted",…]}`), and the constants of the compiled schemas no code
 *   refers to then dropped (Ajv declares one per function, the whole schema for one small array);
 * - the parent object, property name and root value Ajv passes every called validator are not passed
 *   when no code reads them;
 * - where Ajv only counts errors (the subschema of an `if`), the error list left alone (ajv-count-only.ts);
 * - validators whose code is the same but for the validators they call written once (ajv-shared.ts).
 *
 * Each rewrite matches Ajv's exact spelling (anchored on the names it generates); code spelled any other
 * way is left as Ajv wrote it, so that a new Ajv version can only make the module larger, never wrong.
 */

import { withoutCountOnlyLists } from "./ajv-count-only.js";
import { shareDuplicateFunctions } from "./ajv-shared.js";

/** The keywords whose issue the validation runtime (`describe` in runtime/validation.ts) words from `params`. */
const WORDED_BY_RUNTIME = new Set(["required", "type", "enum", "const", "additionalProperties", "anyOf", "oneOf", "not", "if"]);

/** The helpers the rewritten code calls, declared once at the top of the module. */
export const COMPACT_HELPERS = [
  "/** Appends one error (an empty one where Ajv only counts errors) to the list, null while empty; the keyword is the schema path's last segment. */",
  "function addError(list, instancePath, schemaPath, params, message) {",
  "  const keyword = schemaPath === undefined ? undefined : schemaPath.slice(schemaPath.lastIndexOf(\"/\") + 1);",
  "  const error = keyword === undefined ? {} : message === undefined ? {instancePath, schemaPath, keyword, params} : {instancePath, schemaPath, keyword, params, message};",
  "  if (list === null) return [error];",
  "  list.push(error);",
  "  return list;",
  "}",
  "/** The list with the errors of a validator that failed appended. */",
  "function concatErrors(list, errors) {",
  "  return list === null ? errors : list.concat(errors);",
  "}",
  "/** The list cut back to its first `length` errors (null when none are left). */",
  "function truncateErrors(list, length) {",
  "  if (list === null) return null;",
  "  if (length === 0) return null;",
  "  list.length = length;",
  "  return list;",
  "}",
  "/** A JSON object (not an array, not null). */",
  "function isObject(value) {",
  '  return value !== null && typeof value == "object" && !Array.isArray(value);',
  "}",
].join("\n");

export function compactAjvCode(code: string): string {
  let out = code.replace(
    /const (err\d+) = (\{.*?\});if\(vErrors === null\)\{vErrors = \[\1\];\}else \{vErrors\.push\(\1\);\}errors\+\+;/g,
    (whole, _name: string, body: string) => {
      const call = addErrorCall(body);
      return call === undefined ? whole : `vErrors = ${call};errors++;`;
    },
  );
  out = out.replace(
    /vErrors = vErrors === null \? (validate\d+)\.errors : vErrors\.concat\(\1\.errors\);/g,
    (_m, fn: string) => `vErrors = concatErrors(vErrors, ${fn}.errors);`,
  );
  out = out.replace(
    /errors = (_errs\d+);if\(vErrors !== null\)\{if\(\1\)\{vErrors\.length = \1;\}else \{vErrors = null;\}\}/g,
    (_m, mark: string) => `errors = ${mark};vErrors = truncateErrors(vErrors, ${mark});`,
  );
  // `data && typeof data == "object"` is true for the same values as `data !== null && …` once
  // `typeof` says "object" (the only falsy object is null).
  out = out.replace(/(?<=\()(\w+) && typeof \1 == "object" && !Array\.isArray\(\1\)(?=\))/g, (_m, name: string) => `isObject(${name})`);
  return shareDuplicateFunctions(dropUnusedSchemas(withSchemaValuesInlined(withoutUnusedContext(withoutCountOnlyLists(out)))));
}

const HEAD = '{instancePath="", parentData, parentDataProperty, rootData=data}={}';
const CONTEXT_ARGS = /,parentData:\w+,parentDataProperty:(?:"(?:[^"\\]|\\.)*"|\w+),rootData\}/g;

/**
 * Ajv passes every called validator its parent object, the property name and the root value, for the
 * keywords that read them (`$data` references, defaults, `removeAdditional`). The A2A validators use none
 * of these, so the calls pass only the instance path: unless some code other than Ajv's function heads
 * and calls names them, in which case the module stays as it is.
 */
function withoutUnusedContext(code: string): string {
  const out = code
    .replace(CONTEXT_ARGS, "}")
    .split("{instancePath,parentData,parentDataProperty,rootData}")
    .join("{instancePath}")
    .split(HEAD)
    .join('{instancePath=""}={}');
  return /\b(parentData|parentDataProperty|rootData)\b/.test(out) ? code : out;
}

/** `addError(vErrors, …)` for the body of one of Ajv's error objects, or undefined if it is spelled otherwise. */
function addErrorCall(body: string): string | undefined {
  if (body === "{}") return "addError(vErrors)";
  const m = /^\{instancePath(?::(.*?))?,schemaPath:("(?:[^"\\]|\\.)*"),keyword:("\w+"),params:(.*)\}$/.exec(body);
  if (!m) return undefined;
  const [, path, schemaPath, keyword, rest] = m as unknown as [string, string | undefined, string, string, string];
  const at = rest.lastIndexOf(",message:");
  const params = at === -1 ? rest : rest.slice(0, at);
  const message = at === -1 ? undefined : rest.slice(at + ",message:".length);
  // The keyword is the last segment of the schema path (Ajv's `${schemaPath}/${keyword}`): addError takes it from there.
  const keywordName = JSON.parse(keyword) as string;
  const pathText = JSON.parse(schemaPath) as string;
  if (pathText.slice(pathText.lastIndexOf("/") + 1) !== keywordName) return undefined;
  const args = ["vErrors", path ?? "instancePath", schemaPath, params];
  if (message !== undefined && !WORDED_BY_RUNTIME.has(keywordName)) args.push(message);
  return `addError(${args.join(", ")})`;
}

/**
 * `schemaN.path.to.value` (a value of a compiled schema Ajv reads for an error's params, e.g. the allowed
 * values of an `enum`) replaced by the value's JSON: a fresh copy per error, where Ajv's shared the
 * schema's. References spelled otherwise are left as they are (their schema is then kept).
 */
function withSchemaValuesInlined(code: string): string {
  const schemas = new Map<string, unknown>();
  for (const { name, valueStart, end } of schemaDeclarations(code)) {
    try {
      schemas.set(name, JSON.parse(code.slice(valueStart, end - 1)));
    } catch {
      // Not JSON: its references stay.
    }
  }
  if (schemas.size === 0) return code;
  return code.replace(/\b(schema\d+)((?:\.[A-Za-z_$][\w$]*)+)(?![\w$.[(])/g, (whole, name: string, path: string) => {
    let value: unknown = schemas.get(name);
    for (const key of path.slice(1).split(".")) {
      value = value !== null && typeof value === "object" && Object.prototype.hasOwnProperty.call(value, key) ? (value as Record<string, unknown>)[key] : undefined;
    }
    return value === undefined ? whole : JSON.stringify(value);
  });
}

/**
 * The `const schemaN = <JSON-like value>;` declarations of a standalone module: where each starts, where
 * its value starts, and the end (after the `;`). A declaration whose value does not end in `;` is skipped.
 */
function schemaDeclarations(code: string): Array<{ name: string; start: number; valueStart: number; end: number }> {
  const declaration = /const (schema\d+) = /g;
  const found: Array<{ name: string; start: number; valueStart: number; end: number }> = [];
  for (let m = declaration.exec(code); m !== null; m = declaration.exec(code)) {
    const valueStart = m.index + m[0].length;
    const end = jsonEnd(code, valueStart);
    if (end === undefined || code[end] !== ";") continue;
    found.push({ name: m[1] as string, start: m.index, valueStart, end: end + 1 });
    declaration.lastIndex = end + 1;
  }
  return found;
}

/** Drops `const schemaN = <JSON>;` declarations whose name the rest of the module never mentions. */
function dropUnusedSchemas(code: string): string {
  const spans = schemaDeclarations(code);
  if (spans.length === 0) return code;
  // Count the uses outside the declarations themselves.
  const parts: string[] = [];
  let from = 0;
  for (const span of spans) {
    parts.push(code.slice(from, span.start));
    from = span.end;
  }
  parts.push(code.slice(from));
  const rest = parts.join("");
  const used = new Set(rest.match(/\bschema\d+\b/g) ?? []);
  let out = "";
  from = 0;
  for (const span of spans) {
    out += code.slice(from, span.start);
    if (used.has(span.name)) out += code.slice(span.start, span.end);
    from = span.end;
  }
  return out + code.slice(from);
}

/** The index just after the JSON value that starts at `start`, or undefined if there is none. */
function jsonEnd(text: string, start: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      depth--;
      if (depth === 0) return i + 1;
    } else if (depth === 0 && (c === ";" || c === ",")) return i;
  }
  return undefined;
}
