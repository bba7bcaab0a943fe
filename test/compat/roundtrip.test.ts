import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TABLE_0_3_TO_1_0 } from "../../src/compat/table.js";
import type { MethodRole } from "../../src/ir/types.js";
import { VersionConverter, type Direction, type Loss } from "../../src/runtime/compat/converter.js";
import { schemaArbitrary } from "../support/arbitrary.js";
import { arbitraryContext, COMPAT, derived, listed, PRIMARY, successResponse, validator, without } from "../support/compat/mapping.js";

/**
 * Round-trip property of the 0.3.0 ↔ 1.0.1 mapping, for every paired method's params and result and for
 * errors: for generated valid objects of one version,
 * - the conversion validates against the other version's schema (plain Ajv on the bundled schema);
 * - converting back gives the original, except exactly at the places the conversion reported as lost;
 * - every reported loss is one of the mapping's listed lossy fields (the table the README shows).
 */

const SEED = 0xc0a7;
const RUNS = 150;
const { compat, primary, mapping } = derived();

interface Case {
  name: string;
  /** The definition a generated instance comes from, and where in it the value is (`result`, `error` or the whole). */
  compatDef: string;
  primaryDef: string;
  at: "result" | "error" | "";
  convert: (converter: VersionConverter, direction: Direction, value: unknown) => unknown;
}

function cases(): Case[] {
  const out: Case[] = [];
  for (const m of mapping.methods) {
    const cm = compat.methods.find((x) => x.method === m.compat);
    const pm = primary.methods.find((x) => x.method === m.primary);
    if (!cm || !pm) throw new Error(`unpaired ${m.compat}`);
    const compatParams = TABLE_0_3_TO_1_0.compatParams[m.role] ?? cm.paramsType;
    if (compatParams && pm.paramsType) {
      out.push({ name: `${m.compat} ↔ ${m.primary} params`, compatDef: compatParams, primaryDef: pm.paramsType, at: "", convert: (c, d, v) => c.params(m.compat, d, v) });
    }
    const cs = successResponse(compat, cm);
    const ps = successResponse(primary, pm);
    // The agent card result is converted by the card converter (src/card/convert.ts), tested there.
    if (cs && ps && m.role !== ("extendedCard" satisfies MethodRole)) {
      out.push({ name: `${m.compat} ↔ ${m.primary} result`, compatDef: cs, primaryDef: ps, at: "result", convert: (c, d, v) => c.result(m.compat, d, v) });
    }
  }
  out.push({ name: "errors", compatDef: "JSONRPCErrorResponse", primaryDef: "JSONRPCErrorResponse", at: "error", convert: (c, d, v) => c.error(d, v) });
  return out;
}

/** The value as its version's definition validates it: the whole, or inside a response envelope. */
function envelope(at: Case["at"], value: unknown): unknown {
  return at === "" ? value : { jsonrpc: "2.0", id: 1, [at]: value };
}

function pick(at: Case["at"], instance: unknown): unknown {
  return at === "" ? instance : (instance as Record<string, unknown>)[at];
}

function withoutEmptyLists(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutEmptyLists);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (!(Array.isArray(v) && v.length === 0)) out[k] = withoutEmptyLists(v);
  return out;
}

const other = (d: Direction): Direction => (d === "toPrimary" ? "toCompat" : "toPrimary");

function run(c: Case, first: Direction): void {
  const from = first === "toPrimary" ? { version: COMPAT, def: c.compatDef } : { version: PRIMARY, def: c.primaryDef };
  const to = first === "toPrimary" ? { version: PRIMARY, def: c.primaryDef } : { version: COMPAT, def: c.compatDef };
  const ctx = arbitraryContext(from.version);
  const arbitrary = schemaArbitrary(ctx, ctx.definition(from.def));
  const validFrom = validator(from.version, from.def);
  const validTo = validator(to.version, to.def);
  let lossless = 0;
  fc.assert(
    fc.property(arbitrary, (instance) => {
      expect(validFrom(instance), `the arbitrary made an invalid ${from.version} ${from.def}: ${JSON.stringify(validFrom.errors)}`).toBe(true);
      const original = pick(c.at, instance);
      const there: Loss[] = [];
      const back: Loss[] = [];
      const mid = c.convert(new VersionConverter(mapping, { onLoss: (l) => there.push(l) }), first, original);
      const end = c.convert(new VersionConverter(mapping, { onLoss: (l) => back.push(l) }), other(first), mid);
      const context = `${JSON.stringify(original)}\n→ ${JSON.stringify(mid)}\n→ ${JSON.stringify(end)}\nlosses ${JSON.stringify([...there, ...back])}`;
      for (const loss of there) expect(listed(mapping, loss), `a loss the lossy table does not list: ${JSON.stringify(loss)}\n${context}`).toBe(true);
      // A conversion validates in its version unless it reported that the version cannot hold a value; the
      // way back is then out of contract (its input is invalid), and its losses are not checked.
      const cannotHold = there.some((l) => l.reason === "missing" || l.reason === "value");
      if (!cannotHold) {
        expect(validTo(envelope(c.at, mid)), `${to.version} ${to.def} rejects the conversion: ${JSON.stringify(validTo.errors)}\n${context}`).toBe(true);
        for (const loss of back) expect(listed(mapping, loss), `a loss the lossy table does not list: ${JSON.stringify(loss)}\n${context}`).toBe(true);
      }
      if (first === "toPrimary" && !cannotHold) {
        // 0.3 → 1.0 → 0.3: nothing is lost on the way back (1.0 holds everything a 0.3 object brought).
        expect(back, context).toEqual([]);
        expect(validFrom(envelope(c.at, end)), `${from.version} rejects the round trip: ${JSON.stringify(validFrom.errors)}\n${context}`).toBe(true);
      }
      const lost = there.map((l) => l.pointer);
      // 1.0.1 is ProtoJSON: a repeated field has no presence, an empty list is the same value as none.
      const same = first === "toCompat" ? withoutEmptyLists : (v: unknown) => v;
      expect(same(without(end, lost)), context).toEqual(same(without(original, lost)));
      if (there.length === 0) {
        expect(same(end), context).toEqual(same(original));
        lossless++;
      }
    }),
    { seed: SEED, numRuns: RUNS },
  );
  // Not vacuous: a share of the instances carry over with no loss at all.
  expect(lossless, `${c.name}: lossless round trips`).toBeGreaterThan(0);
}

describe(`round trip ${COMPAT} → ${PRIMARY} → ${COMPAT}`, () => {
  for (const c of cases()) it(`${c.name}: ${RUNS} generated ${COMPAT} values`, () => run(c, "toPrimary"));
});

describe(`round trip ${PRIMARY} → ${COMPAT} → ${PRIMARY}`, () => {
  for (const c of cases()) it(`${c.name}: ${RUNS} generated ${PRIMARY} values`, () => run(c, "toCompat"));
});
