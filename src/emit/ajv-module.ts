import { createRequire } from "node:module";
import type { Ajv as AjvClass } from "ajv";

// Ajv's code-generation helpers (CommonJS). Used through the same calls its standalone module makes.
const require = createRequire(import.meta.url);
// Loaded on the first compile: a run whose validators come from the cache (output-cache.ts) never loads Ajv.
type Codegen = { _: (strings: TemplateStringsArray, ...args: unknown[]) => { toString(): string }; _Code: new (s: string) => object };
type Scope = { UsedValueState: { Started: number; Completed: number } };

interface Source {
  validateName: { prefix: string; toString(): string };
  validateCode: string;
  scopeValues: unknown;
  evaluated?: unknown;
}
interface ScopeName {
  prefix: string;
  value?: { ref?: unknown };
  toString(): string;
}
type Used = Record<string, Map<unknown, number>>;

/**
 * The ES module of Ajv's standalone code for the compiled schemas `refs` (export name → schema id): each
 * export, then the functions and constants it needs that no earlier export brought. The same module as
 * `ajv/dist/standalone`'s, assembled in linear time: Ajv's own concatenates the whole module so far once
 * per export, which is quadratic (7 s of a 10 s run for 5,000 definitions).
 */
export function standaloneModule(ajv: AjvClass, refs: Record<string, string>): string {
  const codegen = require("ajv/dist/compile/codegen/code.js") as Codegen;
  const scope = require("ajv/dist/compile/codegen/scope.js") as Scope;
  const used: Used = {};
  const state = (name: { prefix: string }) => used[name.prefix]?.get(name);
  const mark = (name: { prefix: string }, value: number) => {
    const names = (used[name.prefix] ??= new Map());
    names.set(name, value);
  };
  const n = (ajv.scope as unknown as { opts: { _n: string } }).opts._n;
  const parts: string[] = ['"use strict";'];
  for (const [name, id] of Object.entries(refs)) {
    const validate = ajv.getSchema(id) as unknown as { source?: Source } | undefined;
    if (!validate?.source) throw new Error(`Ajv compiled no source for ${id}`);
    parts.push(`${n}export const ${name} = ${validate.source.validateName};${n}`, functionCode(validate.source));
  }
  return parts.join("");

  function functionCode(source: Source): string {
    if (state(source.validateName) === scope.UsedValueState.Completed) return "";
    mark(source.validateName, scope.UsedValueState.Started);
    const scopeCode = (ajv.scope as unknown as { scopeCode: (values: unknown, used: Used, get: (n: ScopeName) => object | undefined) => object }).scopeCode(
      source.scopeValues,
      used,
      referencedCode,
    );
    const code = `${String(scopeCode)}${n}${source.validateCode}`;
    return source.evaluated !== undefined ? `${code}${String(codegen._`${source.validateName}.evaluated = ${source.evaluated};`)}${n}` : code;
  }

  /** The code of a function another one calls: a validate function, or the wrapper of a recursive root. */
  function referencedCode(name: ScopeName): object | undefined {
    const ref = name.value?.ref;
    if (name.prefix === "validate" && typeof ref === "function") return new codegen._Code(functionCode((ref as unknown as { source: Source }).source));
    if ((name.prefix === "root" || name.prefix === "wrapper") && typeof ref === "object" && ref !== null) {
      const { validate, validateName } = ref as { validate?: { source: Source }; validateName?: { prefix: string } };
      if (!validateName || !validate) throw new Error("Ajv standalone: a wrapper without its function");
      const wrapper = `const ${String(name)} = {validate: ${String(validateName)}};`;
      if (state(validateName) === scope.UsedValueState.Started) return new codegen._Code(wrapper);
      return new codegen._Code(`${wrapper}${n}${functionCode(validate.source)}`);
    }
    return undefined;
  }
}
