import { CodegenError, joinPointer } from "../errors.js";
import type { JsonObject } from "../schema/json.js";
import { refName } from "../schema/normalize.js";

/** The definition a definition is only a reference to (an alias: `$ref` with at most a description), if it is one. */
export function aliasOf(definitions: Record<string, JsonObject>, name: string): string | undefined {
  const def = Object.prototype.hasOwnProperty.call(definitions, name) ? definitions[name] : undefined;
  return def !== undefined && Object.keys(def).every((k) => k === "$ref" || k === "description" || k === "$comment") ? refName(def.$ref) : undefined;
}

/**
 * The end of each chain of aliases (`A` → `B` → `C`, where `C` is not an alias): a function from a name
 * to the definition at the end of its chain (itself when it is not an alias). Iterative and memoized:
 * a chain of any length costs its length once. Alias cycles must have been refused (refuseAliasCycles).
 */
export function aliasEnds(definitions: Record<string, JsonObject>): (name: string) => string {
  const end = new Map<string, string>();
  return (start: string): string => {
    const chain: string[] = [];
    let name = start;
    for (let next = aliasOf(definitions, name); next !== undefined && !end.has(name) && !chain.includes(next); next = aliasOf(definitions, name)) {
      chain.push(name);
      name = next;
    }
    const last = end.get(name) ?? name;
    for (const link of chain) end.set(link, last);
    return last;
  };
}

/**
 * A definition that is only a reference to another, around a cycle (`A` → `B` → `A`), is a type that is
 * nothing: TypeScript refuses it, and no value could be validated against it.
 */
export function refuseAliasCycles(definitions: Record<string, JsonObject>, at: (pointer: string) => { file: string; pointer: string }): void {
  const cleared = new Set<string>();
  for (const start of Object.keys(definitions)) {
    const chain: string[] = [];
    const onChain = new Set<string>();
    let name: string | undefined = start;
    while (name !== undefined && !cleared.has(name)) {
      if (onChain.has(name)) {
        const cycle = [...chain.slice(chain.indexOf(name)), name];
        throw new CodegenError(
          `definition "${name}" refers to itself through a cycle of plain references (${cycle.join(" → ")}); it describes no value`,
          at(joinPointer("", "definitions", name, "$ref")),
        );
      }
      chain.push(name);
      onChain.add(name);
      name = aliasOf(definitions, name);
    }
    for (const link of chain) cleared.add(link);
  }
}
