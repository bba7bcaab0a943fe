import { createRequire } from "node:module";
import type { Ajv as AjvClass, ErrorObject, Options as AjvOptions } from "ajv";
import { CodegenError } from "../errors.js";
import { isObject } from "../schema/json.js";

const require = createRequire(import.meta.url);
// Loaded on first use (a bundled schema is never checked): a cold run need not load Ajv.
const loadAjv = () => (require("ajv") as { default: new (options: AjvOptions) => AjvClass }).default;

let ajv: AjvClass | undefined;

/**
 * Checks a schema file of the user's against the JSON Schema meta-schema (draft-07, whose keywords every
 * A2A schema uses) before anything is built from it, so that a keyword with a wrong value (`"type":
 * "strin"`) is an input error naming the file and the pointer, never an internal error of a later phase.
 */
export function checkJsonSchema(schema: unknown, displayPath: string): void {
  if (!isObject(schema)) return;
  ajv ??= new (loadAjv())({ allErrors: true, strict: false, validateSchema: false });
  // Checked as draft-07 whatever its $schema says: the later drafts' keywords are unknown (and allowed) there.
  const { $schema: _declared, ...body } = schema;
  if (ajv.validateSchema(body) === true) return;
  const errors = (ajv.errors ?? []) as ErrorObject[];
  const first = errors[0];
  if (!first) return;
  // The errors at the first place (a `type` fails as "one of the types" and "an array of types" at once).
  const here = errors.filter((e) => e.instancePath === first.instancePath);
  const key = first.instancePath.split("/").pop();
  const allowed = here.find((e) => e.keyword === "enum")?.params as { allowedValues?: unknown[] } | undefined;
  const value = valueAt(schema, first.instancePath);
  const problem =
    key === "type" && allowed?.allowedValues
      ? `not a JSON Schema type: ${JSON.stringify(value)}; types: ${allowed.allowedValues.join(", ")}`
      : `not valid JSON Schema: ${JSON.stringify(value)} ${here.map((e) => e.message).filter(Boolean).join(", or ")}`;
  throw new CodegenError(problem, { file: displayPath, pointer: first.instancePath });
}

function valueAt(root: unknown, pointer: string): unknown {
  let node = root;
  for (const token of pointer.split("/").slice(1).map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"))) {
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isObject(node)) node = node[token];
    else return undefined;
  }
  return node;
}
