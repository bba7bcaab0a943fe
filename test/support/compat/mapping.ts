import type { ValidateFunction } from "ajv";
import { deriveMapping } from "../../../src/compat/derive.js";
import { TABLE_0_3_TO_1_0 } from "../../../src/compat/table.js";
import { bundledIR } from "../../../src/load/protocol.js";
import type { MethodInfo, ProtocolIR } from "../../../src/ir/types.js";
import type { Loss, LossyField, VersionMapping } from "../../../src/runtime/compat/converter.js";
import { refName } from "../../../src/schema/normalize.js";
import { independentValidator, readSchema } from "../project.js";
import { SchemaContext, unescapeToken } from "../arbitrary.js";

export const COMPAT = "0.3.0";
export const PRIMARY = "1.0.1";

let cached: { compat: ProtocolIR; primary: ProtocolIR; mapping: VersionMapping } | undefined;
/** The two IRs and the mapping derived from them, as `generate --compat` derives it. */
export function derived(): { compat: ProtocolIR; primary: ProtocolIR; mapping: VersionMapping } {
  if (!cached) {
    const compat = bundledIR(COMPAT);
    const primary = bundledIR(PRIMARY);
    cached = { compat, primary, mapping: deriveMapping(compat, primary, TABLE_0_3_TO_1_0) };
  }
  return cached;
}

/**
 * The schema of a version prepared for the test arbitrary (test/support/arbitrary.ts): 1.0.1's derived
 * schema has keywords that arbitrary does not generate for. `not` (oneof exclusivity) is dropped: the
 * arbitrary never adds a property an object does not declare; int32 bounds are dropped (it generates
 * within ±1000); a base64 `pattern` becomes a few valid values. Ajv checks every instance on the real schema.
 */
export function arbitraryContext(version: string): SchemaContext {
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip);
    if (node === null || typeof node !== "object") return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === "not" || key === "minimum" || key === "maximum") continue;
      if (key === "pattern") {
        out.enum = ["", "AAAA", "aGVsbG8="];
        continue;
      }
      out[key] = strip(value);
    }
    return out;
  };
  return new SchemaContext(strip(readSchema(version)) as Record<string, unknown>);
}

/** The success-response definition of a method (the member of its response union that has `result`). */
export function successResponse(ir: ProtocolIR, method: MethodInfo): string | undefined {
  const defs = new Map(ir.types.map((t) => [t.name, t.schema]));
  const response = method.responseType ? defs.get(method.responseType) : undefined;
  const members = (response?.anyOf ?? response?.oneOf ?? []) as Array<{ $ref?: string }>;
  for (const member of members) {
    const name = refName(member.$ref);
    const props = name ? defs.get(name)?.properties : undefined;
    if (name && props && typeof props === "object" && "result" in props) return name;
  }
  return undefined;
}

export function validator(version: string, definition: string): ValidateFunction {
  return independentValidator(version, definition);
}

/** Whether a loss is one of the mapping's listed lossy fields. */
export function listed(mapping: VersionMapping, loss: Loss): boolean {
  return mapping.lossy.some(
    (l: LossyField) => l.direction === loss.direction && l.source === loss.source && l.target === loss.target && l.field === loss.field && l.reason === loss.reason,
  );
}

/** A copy of a value without what is at the given JSON pointers (pointers that lead nowhere are skipped). */
export function without(value: unknown, pointers: readonly string[]): unknown {
  let copy = structuredClone(value);
  for (const pointer of [...pointers].sort().reverse()) {
    if (pointer === "") {
      copy = undefined;
      continue;
    }
    const tokens = pointer.slice(1).split("/").map(unescapeToken);
    let node: unknown = copy;
    for (const t of tokens.slice(0, -1)) node = node !== null && typeof node === "object" ? (node as Record<string, unknown>)[t] : undefined;
    const last = tokens[tokens.length - 1] as string;
    if (node !== null && typeof node === "object" && !Array.isArray(node)) delete (node as Record<string, unknown>)[last];
  }
  return copy;
}
