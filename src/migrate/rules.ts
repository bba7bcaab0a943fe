import { clientMethodName } from "../emit/client.js";
import { deriveMapping } from "../compat/derive.js";
import { canonicalizer, constsOf } from "../compat/schema-facts.js";
import { COMPAT_TABLES } from "../compat/tables.js";
import { diffProtocols, type SpecDiff } from "../diff/diff.js";
import { CodegenError } from "../errors.js";
import type { ProtocolIR } from "../ir/types.js";
import { bundledIR } from "../load/protocol.js";
import type { Condition, Conversion, Direction, JsonValue, ObjectPlan, Plan, Transform, VersionMapping } from "../runtime/compat/converter.js";
import { isObject } from "../schema/json.js";
import { bundledVersions } from "../schema/load.js";
import { refName } from "../schema/normalize.js";

/**
 * What `migrate` changes in user code, as data: derived from the compat mapping of the two versions when
 * a2a-codegen has one (src/compat/derive.ts), else from their IR diff (src/diff/diff.ts) when the diff has
 * no change a mapping must settle. Nothing here is written per version pair.
 */
export interface MigrationRules {
  readonly from: string;
  readonly to: string;
  /** Where the rules come from, for reports and the doc. */
  readonly source: "mapping" | "diff";
  /** The version mapping and the direction from `from` to `to`, when the rules come from it (stored data converts by it). */
  readonly mapping?: { readonly mapping: VersionMapping; readonly direction: Direction };
  /** Object definitions of `from` (by name) and how a literal of one becomes a literal of `to`. */
  readonly objects: ReadonlyMap<string, ObjectRule>;
  /** Unions of `from` whose members change shape: which member a literal is, by its fields. */
  readonly unions: ReadonlyMap<string, UnionRule>;
  /** Members of `from` unions: member definition → union (`TextPart` → `Part`). */
  readonly unionOf: ReadonlyMap<string, string>;
  /** Enumerations of `from` whose values are spelt differently in `to`: old value → new value. */
  readonly enums: ReadonlyMap<string, EnumRule>;
  /** Type (and guard) names of `from` that `to` calls otherwise. */
  readonly types: ReadonlyMap<string, string>;
  /** Types of `from` that several types of `to` correspond to (0.3 TaskIdParams: CancelTaskRequest, SubscribeToTaskRequest): reported, not renamed. */
  readonly ambiguous: ReadonlyMap<string, readonly string[]>;
  /** Guards of union members `to` does not have (`isFilePart`): the tag they test, which becomes a presence test. */
  readonly guards: ReadonlyMap<string, { readonly definition: string; readonly field: string; readonly value: string }>;
  /** Client method names of `from` that `to` calls otherwise. */
  readonly methods: ReadonlyMap<string, string>;
  /** String constants of the protocol `to` spells otherwise (the well-known card path): old → new. */
  readonly strings: ReadonlyMap<string, string>;
  /** Client methods whose `to` result wraps the `from` result by what it is (`{ task }`): method → wrappers. */
  readonly wrapped: ReadonlyMap<string, readonly WrappedMember[]>;
  /** The other way: client methods whose `from` result is wrapped (`{ task }`) and `to`'s bare, told apart by its tags. */
  readonly unwrapped: ReadonlyMap<string, readonly WrappedMember[]>;
}

export interface ObjectRule {
  /** The `from` definition (or union member) and the `to` one, for reports. */
  readonly source: string;
  readonly target: string;
  /** Constant tags `from` has and `to` does not (`kind: "text"`): removed. */
  readonly drop: readonly string[];
  /** Constant tags `to` has and `from` does not: added. */
  readonly set: { readonly [field: string]: JsonValue };
  /** Fields with a new name (dotted `from`: a nested object's field moved up, `file.bytes` → `raw`). */
  readonly renames: ReadonlyArray<{ readonly from: string; readonly to: string; readonly transform?: Transform; readonly why: string }>;
  /** Fields `to` does not have: cannot be carried over (reported). */
  readonly gone: ReadonlyArray<{ readonly field: string; readonly note: string }>;
  /** Fields `to` requires that `from` does not carry, computed from others (reported when a literal lacks them). */
  readonly computed: ReadonlyArray<{ readonly field: string; readonly note: string }>;
}

export interface UnionRule {
  readonly source: string;
  readonly members: ReadonlyArray<{ readonly when: readonly Condition[]; readonly rule: ObjectRule; readonly label: string; readonly marker: string | undefined }>;
}

export interface EnumRule {
  readonly source: string;
  readonly target: string;
  readonly values: { readonly [value: string]: string };
  /** Values `to` does not have. */
  readonly gone: readonly string[];
}

export interface WrappedMember {
  /** The bare `from` definition, its constant tags (`{ kind: "task" }`), and the `to` property wrapping it. */
  readonly definition: string;
  readonly tags: { readonly [path: string]: JsonValue };
  readonly property: string;
}

/** The rules to migrate code from one bundled version to another; refuses a pair it cannot map, naming what is missing. */
export function migrationRules(from: string, to: string): MigrationRules {
  const versions = bundledVersions();
  for (const v of [from, to]) {
    if (!versions.includes(v)) throw new CodegenError(`unknown version "${v}"; bundled versions: ${versions.join(", ")}`, { kind: "usage" });
  }
  if (from === to) throw new CodegenError(`--from and --to are both ${from}: nothing to migrate`, { kind: "usage" });
  const fromIr = bundledIR(from);
  const toIr = bundledIR(to);
  const table = COMPAT_TABLES.find((t) => (t.compat === from && t.primary === to) || (t.compat === to && t.primary === from));
  if (table) {
    const up = table.compat === from;
    const mapping = up ? deriveMapping(fromIr, toIr, table) : deriveMapping(toIr, fromIr, table);
    return fromMapping(mapping, up ? "toPrimary" : "toCompat", fromIr, toIr);
  }
  return fromDiff(diffProtocols(fromIr, toIr), fromIr, toIr);
}

// --- from the compat mapping -------------------------------------------------------------------------

function fromMapping(mapping: VersionMapping, direction: Direction, fromIr: ProtocolIR, toIr: ProtocolIR): MigrationRules {
  const plans = mapping.plans[direction];
  const up = direction === "toPrimary";
  const nameOf = (id: string): string => {
    const [c, p] = id.split("#")[0]?.split("~") ?? [id];
    return (up ? c : (p ?? c)) as string;
  };
  const targetOf = (id: string): string => {
    const [c, p] = id.split("#")[0]?.split("~") ?? [id];
    return (up ? (p ?? c) : c) as string;
  };
  const lossy = mapping.lossy.filter((l) => l.direction === direction);
  const objectRule = (id: string, plan: ObjectPlan): ObjectRule => {
    const moved = plan.fields.filter((f) => f.from !== f.to && f.from !== "" && f.to !== "" && f.transform?.op !== "in");
    // A field the target requires that is computed from another (0.3 `final`, from 1.0.1's state).
    const computed = plan.fields.filter((f) => f.transform?.op === "in").map((f) => ({ field: f.to, note: `${plan.target} requires ${f.to}, computed from ${f.from}: add it` }));
    const renames = moved.map((f) => ({
      from: f.from,
      to: f.to,
      ...(f.transform ? { transform: f.transform } : {}),
      why: `${plan.source}.${f.from} is ${plan.target}.${f.to}`,
    }));
    const gone = lossy
      .filter((l, i, all) => l.source === plan.source && l.target === plan.target && l.reason === "no-field" && !l.field.includes(".") && all.findIndex((x) => x.source === l.source && x.field === l.field && x.reason === l.reason) === i)
      .map((l) => ({ field: l.field, note: l.note }));
    return { source: plan.source, target: plan.target, drop: [...plan.ignore], set: plan.set, renames, gone, computed };
  };
  const objects = new Map<string, ObjectRule>();
  const unions = new Map<string, UnionRule>();
  const enums = new Map<string, EnumRule>();
  const types = new Map<string, string>();
  const candidates = new Map<string, string[]>();
  for (const [id, plan] of Object.entries(plans)) {
    if (id.startsWith("{") || id.includes("[]")) continue; // wrapped results: see `wrapped`
    if (plan.kind === "object" && id.includes(" in {")) continue;
    const name = nameOf(id);
    if (!id.includes("#") && !name.includes(".") && !targetOf(id).includes(".")) {
      renameType(types, name, targetOf(id));
      candidates.set(name, [...new Set([...(candidates.get(name) ?? []), targetOf(id)])]);
    }
    // A definition two plans start from (1.0.1 TaskPushNotificationConfig: 0.3's of the same name, and its
    // PushNotificationConfig): its literals follow the plan that keeps its name.
    if (plan.kind === "object" && !id.includes("#") && (!objects.has(name) || name === targetOf(id))) objects.set(name, objectRule(id, plan));
    if (plan.kind === "enum") {
      const changed = Object.entries(plan.values).filter(([a, b]) => a !== b);
      const gone = lossy.filter((l) => l.source === plan.source && l.reason === "value").map((l) => l.field.replace(/^"|"$/g, ""));
      if (changed.length > 0 || gone.length > 0) enums.set(name, { source: plan.source, target: plan.target, values: Object.fromEntries(changed), gone });
    }
    if (plan.kind === "union") {
      const members = plan.members.map((m) => {
        const memberPlan = plans[m.plan] as Plan | undefined;
        if (memberPlan?.kind !== "object") throw new CodegenError(`mapping ${mapping.compat} ↔ ${mapping.primary}: union member ${m.plan} has no object plan`);
        const marker = /\((.+)\)$/.exec(memberPlan.target)?.[1];
        return { when: m.when, rule: objectRule(m.plan, memberPlan), label: m.plan.split("#")[1] ?? m.plan, marker: up ? marker : undefined };
      });
      unions.set(name, { source: plan.source, members });
    }
  }
  const ambiguous = new Map<string, string[]>();
  for (const [name, target] of [...types]) {
    if (target === AMBIGUOUS) ambiguous.set(name, candidates.get(name) ?? []);
    if (target === AMBIGUOUS || target === name) types.delete(name);
  }
  // Client methods: the mapping pairs them; each version's client names them from its IR.
  const methods = new Map<string, string>();
  const wrapped = new Map<string, WrappedMember[]>();
  const unwrapped = new Map<string, WrappedMember[]>();
  for (const m of mapping.methods) {
    const [f, t] = up ? [m.compat, m.primary] : [m.primary, m.compat];
    const fm = fromIr.methods.find((x) => x.method === f);
    const tm = toIr.methods.find((x) => x.method === t);
    if (!fm || !tm) continue;
    const fName = clientMethodName(fm);
    const tName = clientMethodName(tm);
    if (fName !== tName) methods.set(fName, tName);
    // The primary's wrapped results (`{ task }`), told apart on the compat side by their tags (`kind: "task"`).
    const [primaryIr, compatIr] = up ? [toIr, fromIr] : [fromIr, toIr];
    const wrappers = (primaryIr.profile.resultWrappers as { readonly [role: string]: { readonly [definition: string]: string } | undefined })[m.role];
    if (wrappers && isPlanId(m.result.toPrimary, "{")) {
      const members = Object.entries(wrappers).map(([definition, property]) => ({ definition, property, tags: compatIr.profile.objects[definition]?.consts ?? {} }));
      (up ? wrapped : unwrapped).set(fName, members);
    }
  }
  // Guards of union members (`isFilePart`) named after a member `to` calls otherwise.
  addGuardRenames(types, fromIr, toIr);
  return { from: fromIr.specVersion, to: toIr.specVersion, source: "mapping", mapping: { mapping, direction }, objects, unions, enums, types, methods, wrapped, unwrapped, strings: factStrings(diffProtocols(fromIr, toIr)), unionOf: unionMembers(fromIr), ambiguous, guards: memberGuards(fromIr, toIr, unions) };
}

/** Marks a type two definitions of `to` correspond to (0.3 TaskIdParams: CancelTaskRequest or SubscribeToTaskRequest): not renamed. */
const AMBIGUOUS = "\u0000";

function renameType(types: Map<string, string>, from: string, to: string): void {
  const known = types.get(from);
  types.set(from, known === undefined || known === to ? to : AMBIGUOUS);
}

function isPlanId(conversion: Conversion, prefix: string): boolean {
  return "plan" in conversion && conversion.plan.startsWith(prefix);
}

/** Guards (`isTextPart`) of types both versions have under the same name are kept; a renamed type's guard follows it. */
function addGuardRenames(types: Map<string, string>, fromIr: ProtocolIR, toIr: ProtocolIR): void {
  const toNames = new Set(toIr.types.map((t) => t.name));
  for (const [a, b] of [...types]) {
    if (toNames.has(b)) types.set(`is${a}`, `is${b}`);
  }
  void fromIr;
}

// --- from the IR diff --------------------------------------------------------------------------------

function fromDiff(diff: SpecDiff, fromIr: ProtocolIR, toIr: ProtocolIR): MigrationRules {
  const missing: string[] = [];
  for (const u of diff.unions) {
    if (u.dispatch) missing.push(`${u.union} tells its members apart by ${u.dispatch.to.kind}${u.dispatch.to.property ? ` "${u.dispatch.to.property}"` : ""} instead of ${u.dispatch.from.kind}${u.dispatch.from.property ? ` "${u.dispatch.from.property}"` : ""}`);
  }
  for (const t of diff.types.changed) {
    for (const c of t.changes) if (c.change === "kind") missing.push(`${t.name} is a ${c.to} instead of a ${c.from}`);
  }
  if (missing.length > 0) {
    throw new CodegenError(
      `no mapping from ${fromIr.specVersion} to ${toIr.specVersion}: no compat table pairs them (src/compat/tables.ts), and their IR diff has changes only a table can settle: ${missing.slice(0, 5).join("; ")}${missing.length > 5 ? `; and ${missing.length - 5} more` : ""}`,
      { kind: "usage" },
    );
  }
  const types = new Map<string, string>();
  for (const r of diff.types.renamed) types.set(r.from, r.to);
  const objects = new Map<string, ObjectRule>();
  const enums = new Map<string, EnumRule>();
  for (const t of [...diff.types.changed.map((c) => ({ from: c.name, to: c.name, changes: c.changes })), ...diff.types.renamed]) {
    const gone = t.changes.filter((c) => c.change === "removed").map((c) => ({ field: c.field, note: `${toIr.specVersion} ${t.to} has no such field` }));
    const drop: string[] = [];
    const set: Record<string, JsonValue> = {};
    for (const c of t.changes) {
      if (c.change === "const" && c.to !== null) set[c.field] = c.to;
      else if (c.change === "const" && c.from !== null) drop.push(c.field);
    }
    if (gone.length > 0 || drop.length > 0 || Object.keys(set).length > 0) {
      objects.set(t.from, { source: t.from, target: t.to, drop, set, renames: [], gone, computed: [] });
    }
    for (const c of t.changes) {
      if (c.change !== "enum" || c.field !== null) continue;
      const fromValues = enumOf(fromIr, t.from);
      const toValues = enumOf(toIr, t.to);
      const fc = canonicalizer(fromValues);
      const tc = canonicalizer(toValues);
      const values: Record<string, string> = {};
      const goneValues: string[] = [];
      for (const v of c.removed) {
        const match = c.added.find((w) => tc(w) === fc(v));
        if (match !== undefined) values[v] = match;
        else goneValues.push(v);
      }
      enums.set(t.from, { source: t.from, target: t.to, values, gone: goneValues });
    }
  }
  const methods = new Map<string, string>();
  for (const r of diff.methods.renamed) {
    const fm = fromIr.methods.find((m) => m.method === r.from);
    const tm = toIr.methods.find((m) => m.method === r.to);
    if (fm && tm && clientMethodName(fm) !== clientMethodName(tm)) methods.set(clientMethodName(fm), clientMethodName(tm));
  }
  addGuardRenames(types, fromIr, toIr);
  return { from: fromIr.specVersion, to: toIr.specVersion, source: "diff", objects, unions: new Map(), enums, types, methods, wrapped: new Map(), unwrapped: new Map(), strings: factStrings(diff), unionOf: unionMembers(fromIr), ambiguous: new Map(), guards: new Map() };
}

function enumOf(ir: ProtocolIR, name: string): string[] {
  const schema = ir.types.find((t) => t.name === name)?.schema;
  const values = schema && Array.isArray(schema.enum) ? schema.enum : [];
  return values.filter((v): v is string => typeof v === "string");
}

/** The protocol's string facts that changed (`/.well-known/agent.json` → `/.well-known/agent-card.json`). */
function factStrings(diff: SpecDiff): Map<string, string> {
  const strings = new Map<string, string>();
  for (const f of diff.facts) if (f.fact === "wellKnownAgentCardPath" && typeof f.from === "string" && typeof f.to === "string") strings.set(f.from, f.to);
  return strings;
}

/** Each definition that is a member of a union of references, and that union. */
function unionMembers(ir: ProtocolIR): Map<string, string> {
  // The named members of oneofs (1.0.1 TextPart, RawPart, …), then the referenced members of anyOfs.
  const members = new Map<string, string>(ir.namedUnions.flatMap((u) => u.members.map((m): [string, string] => [m.name, u.union])));
  for (const t of ir.types) {
    const items = t.schema.anyOf ?? t.schema.oneOf;
    if (!Array.isArray(items)) continue;
    for (const item of items) {
      const ref = isObject(item) ? refName(item.$ref) : undefined;
      if (ref !== undefined && !members.has(ref)) members.set(ref, t.name);
    }
  }
  return members;
}

/** The guards (`is<Member>`) of `from`'s union members that `to` has no definition for, with the one tag each tests. */
function memberGuards(fromIr: ProtocolIR, toIr: ProtocolIR, unions: ReadonlyMap<string, UnionRule>): Map<string, { definition: string; field: string; value: string }> {
  const guards = new Map<string, { definition: string; field: string; value: string }>();
  // The definitions `to` has, and the names it gives its oneofs' members (1.0.1 TextPart, RawPart, …).
  const toNames = new Set([...toIr.types.map((t) => t.name), ...toIr.namedUnions.flatMap((u) => u.members.map((m) => m.name))]);
  for (const [member, union] of unionMembers(fromIr)) {
    if (!unions.has(union) || toNames.has(member)) continue;
    const schema = fromIr.types.find((t) => t.name === member)?.schema;
    const tags = Object.entries(schema && isObject(schema.properties) ? constsOf(schema.properties) : {});
    const [tag] = tags;
    if (tags.length === 1 && tag && typeof tag[1] === "string") guards.set(`is${member}`, { definition: member, field: tag[0], value: tag[1] });
  }
  return guards;
}
