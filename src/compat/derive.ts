import { diffProtocols } from "../diff/diff.js";
import { CodegenError } from "../errors.js";
import type { MethodInfo, MethodRole, ProtocolIR } from "../ir/types.js";
import type {
  Condition,
  Conversion,
  Direction,
  EnumPlan,
  FieldRule,
  LossReason,
  LossyField,
  MethodMapping,
  ObjectPlan,
  Plan,
  Transform,
  UnionPlan,
  VersionMapping,
} from "../runtime/compat/converter.js";
import { isObject, type Json, type JsonObject } from "../schema/json.js";
import { refName } from "../schema/normalize.js";
import { canonicalizer, constsOf, enumValues, patternOf, requiredOf, roleOf, successResult } from "./schema-facts.js";
import type { CompatTable, UnionEntry } from "./table.js";

/**
 * Derives the mapping between an older (compat) and a newer (primary) protocol version from their IRs:
 *
 * - **methods** correspond as the IR diff pairs them (same name, else same role: `message/send` ↔ `SendMessage`);
 * - **definitions** correspond from there: the params of paired methods, their results, and recursively the
 *   definitions their same-named fields refer to (`MessageSendParams.configuration` ↔
 *   `SendMessageRequest.configuration` pairs `MessageSendConfiguration` with `SendMessageConfiguration`);
 * - **fields** carry over by name; a field only one side has is listed as lossy in that direction;
 * - **constant tags** (`kind: "task"`) are set on the way to the version that has them, dropped on the way back;
 * - **enumerations** pair values by spelling (`TASK_STATE_INPUT_REQUIRED` ↔ `input-required`);
 * - **wrapped results** come from the primary's profile (`{ task }`, `{ statusUpdate }`), told apart on the
 *   compat side by the constant tags of the wrapped definitions; a list result wrapped in an object
 *   (`[…]` ↔ `{ configs: […] }`) and an empty result (`null` ↔ `{}`) likewise;
 *
 * and from the explicit table (src/compat/table.ts) for what no schema states. Pure: same inputs, same data.
 */
export function deriveMapping(compat: ProtocolIR, primary: ProtocolIR, table: CompatTable): VersionMapping {
  if (table.compat !== compat.specVersion || table.primary !== primary.specVersion) {
    throw new CodegenError(
      `the compat table maps ${table.compat} to ${table.primary}, not ${compat.specVersion} to ${primary.specVersion}`,
      { kind: "usage" },
    );
  }
  return new Deriver(compat, primary, table).run();
}

type Side = "compat" | "primary";

/** One field of a definition pair, both ways: compat path ↔ primary path (dotted), and how its value converts. */
interface Rule {
  c: string;
  p: string;
  toPrimary: Conversion;
  toCompat: Conversion;
  /** Transforms toward the primary and toward the compat version. */
  tP?: Transform;
  tC?: Transform;
  /** Toward the primary: the compat path read when `c` is absent. */
  orFrom?: string;
}

interface ObjectSides {
  id: string;
  cLabel: string;
  pLabel: string;
  cName: string;
  pName: string;
  c: JsonObject;
  p: JsonObject;
  /** Definitions of compat fields read by dotted renames (`file` → FileWithBytes). */
  cNested?: { [field: string]: string };
  renames?: Array<{ c: string; p: string; tP?: Transform; tC?: Transform; orFrom?: string }>;
  toCompatTransforms?: { [primaryPath: string]: Transform };
}

const COPY: Conversion = { copy: true };

class Deriver {
  private readonly defs: Record<Side, Map<string, JsonObject>>;
  private readonly plans: { toPrimary: Record<string, Plan>; toCompat: Record<string, Plan> } = { toPrimary: {}, toCompat: {} };
  private readonly lossy: LossyField[] = [];
  private readonly building = new Set<string>();

  constructor(
    private readonly compat: ProtocolIR,
    private readonly primary: ProtocolIR,
    private readonly table: CompatTable,
  ) {
    this.defs = {
      compat: new Map(compat.types.map((t) => [t.name, t.schema])),
      primary: new Map(primary.types.map((t) => [t.name, t.schema])),
    };
  }

  run(): VersionMapping {
    const diff = diffProtocols(this.compat, this.primary);
    const pairs: Array<[string, string]> = [
      ...this.compat.methods.filter((m) => this.primary.methods.some((n) => n.method === m.method)).map((m): [string, string] => [m.method, m.method]),
      ...diff.methods.renamed.map((r): [string, string] => [r.from, r.to]),
    ];
    const methods: MethodMapping[] = [];
    for (const [c, p] of pairs) {
      const cm = this.compat.methods.find((m) => m.method === c) as MethodInfo;
      const pm = this.primary.methods.find((m) => m.method === p) as MethodInfo;
      const role = roleOf(this.primary, p) ?? roleOf(this.compat, c);
      if (!role) continue;
      methods.push({
        role,
        compat: c,
        primary: p,
        streaming: pm.streaming,
        params: this.params(role, cm, pm),
        result: this.result(role, cm, pm),
      });
    }
    methods.sort((x, y) => order(x.primary, y.primary));
    const errorPair = this.pair("JSONRPCError", "JSONRPCError");
    const paired = (side: Side) => new Set(methods.map((m) => m[side]));
    return {
      primary: this.primary.specVersion,
      compat: this.compat.specVersion,
      methods,
      primaryOnly: this.primary.methods.map((m) => m.method).filter((m) => !paired("primary").has(m)).sort(order),
      compatOnly: this.compat.methods.map((m) => m.method).filter((m) => !paired("compat").has(m)).sort(order),
      errorCodesOnly: {
        primary: diff.errors.added.map((e) => ({ code: e.code, name: e.name })),
        compat: diff.errors.removed.map((e) => ({ code: e.code, name: e.name })),
      },
      error: { toPrimary: errorPair, toCompat: errorPair },
      plans: { toPrimary: sortedRecord(this.plans.toPrimary), toCompat: sortedRecord(this.plans.toCompat) },
      lossy: dedupe(this.lossy).sort(compareLossy),
      ...(this.table.card ? { card: this.cardRule(this.table.card) } : {}),
    };
  }

  /** The table's dual-card rule, checked: it must give every field the compat card requires and the primary card lacks. */
  private cardRule(rule: NonNullable<CompatTable["card"]>): NonNullable<VersionMapping["card"]> {
    const cCard = this.def("compat", this.compat.facts.agentCardType);
    const pProps = this.props("primary", this.primary.facts.agentCardType);
    const cProps = isObject(cCard.properties) ? cCard.properties : {};
    const needed = requiredOf(cCard).filter((f) => !(f in pProps));
    const missing = needed.filter((f) => !rule.fields.some((x) => x.field === f));
    if (missing.length > 0) {
      throw new CodegenError(`compat table: the dual card gives no ${missing.join(", ")}, which ${this.compat.specVersion} clients require`);
    }
    for (const field of rule.merge) {
      if (!(field in cProps) || !(field in pProps)) throw new CodegenError(`compat table: the dual card merges "${field}", which both versions' cards must have`);
    }
    for (const f of rule.fields) {
      if (!(f.field in cProps)) throw new CodegenError(`compat table: ${this.compat.specVersion} ${this.compat.facts.agentCardType} has no field "${f.field}"`);
    }
    if (rule.interfaces && !(rule.interfaces.field in cProps)) {
      throw new CodegenError(`compat table: ${this.compat.specVersion} ${this.compat.facts.agentCardType} has no field "${rule.interfaces.field}" to list the dual card's interfaces in`);
    }
    return rule;
  }

  // --- methods ------------------------------------------------------------------------------------

  private params(role: MethodRole, cm: MethodInfo, pm: MethodInfo): MethodMapping["params"] {
    const c = this.table.compatParams[role] ?? cm.paramsType;
    const p = pm.paramsType;
    if (c !== undefined && p !== undefined) {
      const conversion = this.pair(c, p);
      return { toPrimary: conversion, toCompat: conversion };
    }
    if (c === undefined && !cm.hasParams && p !== undefined) {
      // The compat method takes no params: the primary's are all optional (the tenant), and left out on the way back.
      for (const field of Object.keys(this.props("primary", p))) this.lose("toCompat", p, "(no params)", field, "no-field", `${cm.method} takes no params`);
      return { toPrimary: { value: {} }, toCompat: { omit: true, source: p } };
    }
    return { toPrimary: COPY, toCompat: COPY };
  }

  private result(role: MethodRole, cm: MethodInfo, pm: MethodInfo): MethodMapping["result"] {
    const c = successResult(this.compat, cm);
    const p = successResult(this.primary, pm);
    const wrappers = this.primary.profile.resultWrappers[role];
    if (wrappers) {
      const conversion = this.wrapped(wrappers);
      return { toPrimary: conversion, toCompat: conversion };
    }
    const cRef = isObject(c) ? refName(c.$ref) : undefined;
    const pRef = isObject(p) ? refName(p.$ref) : undefined;
    const cItems = isObject(c) && c.type === "array" && isObject(c.items) ? refName(c.items.$ref) : undefined;
    if (cItems !== undefined && pRef !== undefined) {
      const conversion = this.listWrapper(cItems, pRef);
      if (conversion) return { toPrimary: conversion, toCompat: conversion };
    }
    if (cRef !== undefined && pRef !== undefined) {
      const conversion = this.pair(cRef, pRef);
      return { toPrimary: conversion, toCompat: conversion };
    }
    if (this.primary.profile.emptyResults.includes(role) && isObject(c) && c.type === "null") {
      return { toPrimary: { value: {} }, toCompat: { value: null } };
    }
    return { toPrimary: COPY, toCompat: COPY };
  }

  /**
   * A result the primary wraps by what it is (`{ task }`, `{ statusUpdate }`) and the compat version sends
   * bare, told apart by its constant tags (`kind: "task"`).
   */
  private wrapped(wrappers: { readonly [definition: string]: string }): Conversion {
    const entries = Object.entries(wrappers).sort(([a], [b]) => order(a, b));
    const id = `{${entries.map(([, property]) => property).join("|")}}`;
    if (this.plans.toPrimary[id]) return { plan: id };
    const up: UnionPlan["members"][number][] = [];
    const down: UnionPlan["members"][number][] = [];
    for (const [definition, property] of entries) {
      const consts = this.compat.profile.objects[definition]?.consts ?? {};
      if (Object.keys(consts).length === 0) {
        throw new CodegenError(`cannot tell a bare ${this.compat.specVersion} ${definition} from the other results: it has no constant tag`, { kind: "input" });
      }
      const inner = this.pair(definition, definition);
      const member = `${definition} in {${property}}`;
      const plan = (fields: FieldRule[], source: string, target: string): ObjectPlan => ({ kind: "object", source, target, set: {}, fields, ignore: [], required: [] });
      this.plans.toPrimary[member] = plan([{ from: "", to: property, convert: inner }], definition, `{ ${property} }`);
      this.plans.toCompat[member] = plan([{ from: property, to: "", convert: inner }], `{ ${property} }`, definition);
      up.push({ when: Object.entries(consts).map(([path, equals]): Condition => ({ path, equals })), plan: member });
      down.push({ when: [{ path: property, present: true }], plan: member });
    }
    this.plans.toPrimary[id] = { kind: "union", source: entries.map(([d]) => d).join(" | "), target: id, members: up };
    this.plans.toCompat[id] = { kind: "union", source: id, target: entries.map(([d]) => d).join(" | "), members: down };
    return { plan: id };
  }

  /** A compat list result the primary wraps in an object (`[…]` ↔ `{ configs: […], nextPageToken }`). */
  private listWrapper(item: string, wrapper: string): Conversion | undefined {
    const props = this.props("primary", wrapper);
    const lists = Object.entries(props).filter(([, s]) => isObject(s) && s.type === "array" && isObject(s.items) && refName(s.items.$ref) !== undefined);
    if (lists.length !== 1) return undefined;
    const [property, schema] = lists[0] as [string, JsonObject];
    const inner: Conversion = { array: this.pair(item, refName((schema.items as JsonObject).$ref) as string) };
    const id = `${item}[]~${wrapper}`;
    const base = { kind: "object" as const, set: {}, ignore: [], required: [] };
    const dropEmpty = this.primary.profile.protoJson ? { dropEmpty: true as const } : {};
    this.plans.toPrimary[id] = { ...base, source: `${item}[]`, target: wrapper, fields: [{ from: "", to: property, convert: inner, ...dropEmpty }] };
    this.plans.toCompat[id] = { ...base, source: wrapper, target: `${item}[]`, fields: [{ from: property, to: "", convert: inner, absent: [] }] };
    for (const field of Object.keys(props).filter((f) => f !== property)) this.lose("toCompat", wrapper, `${item}[]`, field, "no-field", `a ${this.compat.specVersion} list result has no ${field}`);
    return { plan: id };
  }

  // --- definitions --------------------------------------------------------------------------------

  /** The conversion of a compat definition to a primary one (and back), built once. */
  private pair(c: string, p: string): Conversion {
    const hook = this.table.hooks.find((h) => h.compat === c && h.primary === p);
    if (hook) return { hook: hook.hook };
    const id = c === p ? c : `${c}~${p}`;
    if (this.plans.toPrimary[id] || this.building.has(id)) return { plan: id };
    this.building.add(id);
    const cDef = this.def("compat", c);
    const pDef = this.def("primary", p);
    const union = this.table.unions.find((u) => u.compat === c && u.primary === p);
    const cEnum = enumValues(cDef);
    const pEnum = enumValues(pDef);
    if (union) this.unionPlans(id, union);
    else if (cEnum && pEnum) this.enumPlans(id, c, p, cEnum, pEnum);
    else if (isObject(cDef.properties) && isObject(pDef.properties)) {
      this.objectPlans({ id, cLabel: c, pLabel: p, cName: c, pName: p, c: cDef, p: pDef });
    } else {
      throw new CodegenError(`no rule converts ${this.compat.specVersion} ${c} to ${this.primary.specVersion} ${p}: add one to the compat table`, { kind: "input" });
    }
    return { plan: id };
  }

  /** How one field's value converts, from the two schemas of the field. */
  private conversion(c: Json | undefined, p: Json | undefined, label: { c: string; p: string }): Conversion {
    if (!isObject(c) || !isObject(p)) return COPY;
    const cRef = refName(c.$ref);
    const pRef = refName(p.$ref);
    if (cRef !== undefined && pRef !== undefined) return this.pair(cRef, pRef);
    const cEnum = enumValues(cRef ? this.def("compat", cRef) : c);
    const pEnum = enumValues(pRef ? this.def("primary", pRef) : p);
    if (cEnum && pEnum) {
      const id = `${cRef ?? label.c}~${pRef ?? label.p}`;
      if (!this.plans.toPrimary[id]) this.enumPlans(id, cRef ?? label.c, pRef ?? label.p, cEnum, pEnum);
      return { plan: id };
    }
    if (c.type === "array" && p.type === "array") {
      const items = this.conversion(c.items, p.items, { c: `${label.c}[]`, p: `${label.p}[]` });
      return "copy" in items ? COPY : { array: items };
    }
    return COPY;
  }

  private enumPlans(id: string, c: string, p: string, cValues: string[], pValues: string[]): void {
    const extra = this.table.enumValues.find((e) => e.compat === c && e.primary === p)?.values ?? [];
    const cCanon = canonicalizer(cValues);
    const pCanon = canonicalizer(pValues);
    const up: Record<string, string> = {};
    const down: Record<string, string> = {};
    for (const v of cValues) {
      const match = extra.find(([x]) => x === v)?.[1] ?? pValues.find((w) => pCanon(w) === cCanon(v));
      if (match !== undefined) up[v] = match;
      else this.lose("toPrimary", c, p, `"${v}"`, "value", `${this.primary.specVersion} ${p} has no such value`);
    }
    for (const v of pValues) {
      const match = extra.find(([, y]) => y === v)?.[0] ?? cValues.find((w) => cCanon(w) === pCanon(v));
      if (match !== undefined) down[v] = match;
      else this.lose("toCompat", p, c, `"${v}"`, "value", `${this.compat.specVersion} ${c} has no such value`);
    }
    this.plans.toPrimary[id] = { kind: "enum", source: c, target: p, values: up } satisfies EnumPlan;
    this.plans.toCompat[id] = { kind: "enum", source: p, target: c, values: down } satisfies EnumPlan;
  }

  private unionPlans(id: string, entry: UnionEntry): void {
    const info = this.primary.unions.find((u) => u.definition === entry.primary);
    const primaryUnion = this.def("primary", entry.primary);
    const items = (primaryUnion.anyOf ?? primaryUnion.oneOf) as Json[] | undefined;
    if (info?.dispatch.kind !== "presence" || !items) {
      throw new CodegenError(`compat table: ${this.primary.specVersion} ${entry.primary} is not a union told apart by which field is present`);
    }
    const up: UnionPlan["members"][number][] = [];
    const down: UnionPlan["members"][number][] = [];
    for (const member of entry.members) {
      const marker = info.dispatch.markers.find((m) => m.property === member.primaryMarker);
      const schema = marker ? items[marker.member.index] : undefined;
      if (!isObject(schema)) throw new CodegenError(`compat table: ${this.primary.specVersion} ${entry.primary} has no member with "${member.primaryMarker}"`);
      const memberId = `${id}#${member.label}`;
      const label = `${entry.compat} (${member.label})`;
      this.objectPlans({
        id: memberId,
        cLabel: label,
        pLabel: `${entry.primary} (${member.primaryMarker})`,
        cName: member.compatMember,
        pName: entry.primary,
        c: this.def("compat", member.compatMember),
        p: schema,
        cNested: member.compatNested,
        renames: Object.entries(member.renames).map(([c, p]) => ({ c, p })),
        ...(member.toCompat ? { toCompatTransforms: member.toCompat } : {}),
      });
      up.push({ when: member.compatWhen, plan: memberId });
      down.push({ when: [{ path: member.primaryMarker, present: true }], plan: memberId });
    }
    this.plans.toPrimary[id] = { kind: "union", source: entry.compat, target: entry.primary, members: up };
    this.plans.toCompat[id] = { kind: "union", source: entry.primary, target: entry.compat, members: down };
  }

  private objectPlans(sides: ObjectSides): void {
    const { cName, pName } = sides;
    const cProps = isObject(sides.c.properties) ? sides.c.properties : {};
    const pProps = isObject(sides.p.properties) ? sides.p.properties : {};
    const cConsts = constsOf(cProps);
    const pConsts = constsOf(pProps);
    const cRequired = requiredOf(sides.c);
    const pRequired = requiredOf(sides.p);
    const rules: Rule[] = [];
    const targeted = new Set<string>();
    const consumed = new Set<string>();
    const cSchemaAt = (path: string): Json | undefined => {
      const nested = sides.cNested?.[top(path)];
      return nested && path.includes(".") ? this.schemaAt("compat", this.def("compat", nested), path.slice(top(path).length + 1)) : this.schemaAt("compat", sides.c, path);
    };
    const add = (c: string, p: string, options: Partial<Rule> = {}) => {
      let extra = options;
      const conversion = this.conversion(cSchemaAt(c), this.schemaAt("primary", sides.p, p), { c: `${cName}.${c}`, p: `${pName}.${p}` });
      const transform = sides.toCompatTransforms?.[p];
      const tC = extra.tC ?? transform;
      // A string the target constrains and the source does not (1.0.1's base64 bytes): checked and reported.
      const patternP = patternOf(this.resolve("primary", this.schemaAt("primary", sides.p, p)));
      const patternC = patternOf(this.resolve("compat", cSchemaAt(c)));
      if (patternP !== undefined && patternP !== patternC && extra.tP === undefined) {
        extra = { ...extra, tP: { op: "pattern", pattern: patternP } };
        this.lose("toPrimary", sides.cLabel, sides.pLabel, c, "value", `${this.primary.specVersion} requires ${p} to match ${patternP}`);
      }
      if (patternC !== undefined && patternC !== patternP && tC === undefined) {
        extra = { ...extra, tC: { op: "pattern", pattern: patternC } };
        this.lose("toCompat", sides.pLabel, sides.cLabel, p, "value", `${this.compat.specVersion} requires ${c} to match ${patternC}`);
      }
      if (tC?.op === "object") this.lose("toCompat", sides.pLabel, sides.cLabel, p, "value", `${this.compat.specVersion} holds only an object: another value is wrapped as { ${tC.property} }`);
      rules.push({ c, p, toPrimary: conversion, toCompat: conversion, ...(transform ? { tC: transform } : {}), ...extra });
      targeted.add(p);
      consumed.add(c);
    };

    // The table's renames (and the error data rule).
    const renames = [
      ...(sides.renames ?? []),
      ...this.table.renames
        .filter((r) => r.compat === cName && r.primary === pName)
        .map((r) => ({ c: r.field, p: r.to, ...(r.toPrimary ? { tP: r.toPrimary } : {}), ...(r.toCompat ? { tC: r.toCompat } : {}), ...(r.toPrimaryOrFrom ? { orFrom: r.toPrimaryOrFrom } : {}) })),
    ];
    const errorData = this.table.errorData;
    if (errorData && errorData.definition === cName && errorData.definition === pName) {
      this.lose("toPrimary", sides.cLabel, sides.pLabel, errorData.field, "value", `any value travels as one ${errorData.detailType} detail and a list of details as it is, but a list of that one detail alone comes back unwrapped`);
      this.lose("toCompat", sides.pLabel, sides.cLabel, errorData.field, "value", `a value that is not a list of details comes back as one ${errorData.detailType} detail`);
      renames.push({ c: errorData.field, p: errorData.field, tP: { op: "toDetails", type: errorData.detailType }, tC: { op: "fromDetails", type: errorData.detailType } });
    }
    for (const r of renames) {
      if (cSchemaAt(r.c) === undefined) throw new CodegenError(`compat table: ${this.compat.specVersion} ${cName} has no field "${r.c}"`);
      if (this.schemaAt("primary", sides.p, r.p) === undefined) throw new CodegenError(`compat table: ${this.primary.specVersion} ${pName} has no field "${r.p}"`);
      add(r.c, r.p, { ...(r.tP ? { tP: r.tP } : {}), ...(r.tC ? { tC: r.tC } : {}), ...(r.orFrom ? { orFrom: r.orFrom } : {}) });
      if (r.tP?.op === "first") {
        this.lose("toPrimary", sides.cLabel, sides.pLabel, r.c, "value", `${this.primary.specVersion} keeps one value, the first`);
        if (pRequired.includes(r.p)) this.lose("toPrimary", sides.cLabel, sides.pLabel, r.p, "missing", `an empty list leaves out ${r.p}, which ${this.primary.specVersion} requires`);
      }
      if (r.orFrom) this.lose("toPrimary", sides.cLabel, sides.pLabel, r.c, "defaulted", `absent: ${this.primary.specVersion} requires it; ${r.orFrom}'s value is used`);
    }
    // Fields of the compat object's nested objects that dotted renames read.
    for (const [field, nestedDef] of Object.entries(sides.cNested ?? {})) {
      consumed.add(field);
      for (const key of Object.keys(this.props("compat", nestedDef))) {
        if (!consumed.has(`${field}.${key}`)) this.lose("toPrimary", sides.cLabel, sides.pLabel, `${field}.${key}`, "no-field", `${this.primary.specVersion} has no such field`);
      }
    }
    // A nested compat object whose fields the primary carries at its top level.
    for (const nest of this.table.nests.filter((n) => n.compat === cName && n.primary === pName)) {
      const nestedRef = refName((cProps[nest.field] as JsonObject | undefined)?.$ref);
      if (!nestedRef) throw new CodegenError(`compat table: ${this.compat.specVersion} ${cName}.${nest.field} is not a reference`);
      consumed.add(nest.field);
      for (const key of Object.keys(this.props("compat", nestedRef))) {
        if (key in pProps && !targeted.has(key)) add(`${nest.field}.${key}`, key);
        else this.lose("toPrimary", sides.cLabel, sides.pLabel, `${nest.field}.${key}`, "no-field", `${this.primary.specVersion} ${pName} has no such field`);
      }
    }
    // Fields of the same name.
    for (const field of Object.keys(cProps)) {
      if (consumed.has(field) || field in cConsts) continue;
      if (field in pProps && !targeted.has(field) && !(field in pConsts)) add(field, field);
    }
    const computed = this.table.computed.filter((x) => x.compat === cName);
    for (const field of Object.keys(cProps)) {
      if (consumed.has(field) || field in cConsts) continue;
      const recomputed = computed.some((x) => x.field === field);
      this.lose("toPrimary", sides.cLabel, sides.pLabel, field, "no-field", recomputed ? `${this.primary.specVersion} has no such field; recomputed on the way back` : `${this.primary.specVersion} ${pName} has no such field`);
    }
    for (const field of Object.keys(pProps)) {
      if (targeted.has(field) || field in pConsts) continue;
      this.lose("toCompat", sides.pLabel, sides.cLabel, field, "no-field", `${this.compat.specVersion} ${cName} has no such field`);
    }

    const computedRules: FieldRule[] = computed.map((x) => {
      const values = enumValues(this.resolve("primary", this.schemaAt("primary", sides.p, x.from))) ?? [];
      const canon = canonicalizer(values);
      return { from: x.from, to: x.field, transform: { op: "in", values: values.filter((v) => x.whenIn.includes(canon(v))) } };
    });

    // What each direction may leave out that the target requires.
    const fills = (target: Side, field: string): boolean => {
      const sourceRequired = target === "compat" ? pRequired : cRequired;
      if (target === "compat" && computed.some((x) => x.field === field)) return true;
      return rules.some((r) => {
        const to = target === "compat" ? r.c : r.p;
        const from = target === "compat" ? r.p : r.c;
        return (to === field || to.startsWith(`${field}.`)) && (sourceRequired.includes(top(from)) || (target === "primary" && r.orFrom !== undefined && cRequired.includes(top(r.orFrom))));
      });
    };
    for (const field of cRequired.filter((f) => !(f in cConsts))) {
      if (!fills("compat", field)) this.lose("toCompat", sides.pLabel, sides.cLabel, field, "missing", `${this.compat.specVersion} ${cName} requires ${field}; ${this.primary.specVersion} may leave it out`);
    }
    for (const field of pRequired.filter((f) => !(f in pConsts))) {
      if (!fills("primary", field)) this.lose("toPrimary", sides.cLabel, sides.pLabel, field, "missing", `${this.primary.specVersion} ${pName} requires ${field}; ${this.compat.specVersion} may leave it out`);
    }

    const build = (direction: Direction): ObjectPlan => {
      const up = direction === "toPrimary";
      return {
        kind: "object",
        source: up ? sides.cLabel : sides.pLabel,
        target: up ? sides.pLabel : sides.cLabel,
        set: up ? pConsts : cConsts,
        fields: [
          ...rules.map((r): FieldRule => {
            const transform = up ? r.tP : r.tC;
            return {
              from: up ? r.c : r.p,
              to: up ? r.p : r.c,
              convert: up ? r.toPrimary : r.toCompat,
              ...(transform ? { transform } : {}),
              ...(up && r.orFrom ? { orFrom: r.orFrom } : {}),
            };
          }),
          ...(up ? [] : computedRules),
        ],
        ignore: Object.keys(up ? cConsts : pConsts),
        required: (up ? pRequired.filter((f) => !(f in pConsts)) : cRequired.filter((f) => !(f in cConsts))).sort(order),
      };
    };
    this.plans.toPrimary[sides.id] = build("toPrimary");
    this.plans.toCompat[sides.id] = build("toCompat");
  }

  // --- schemas ------------------------------------------------------------------------------------

  private def(side: Side, name: string): JsonObject {
    const def = this.defs[side].get(name);
    if (!def) throw new CodegenError(`compat table: ${side === "compat" ? this.compat.specVersion : this.primary.specVersion} has no definition "${name}"`);
    return def;
  }

  private props(side: Side, name: string): JsonObject {
    const def = this.def(side, name);
    return isObject(def.properties) ? def.properties : {};
  }

  private resolve(side: Side, schema: Json | undefined): JsonObject | undefined {
    if (!isObject(schema)) return undefined;
    const ref = refName(schema.$ref);
    return ref ? this.def(side, ref) : schema;
  }

  /** The schema of a dotted path of an object schema, following references. */
  private schemaAt(side: Side, schema: JsonObject, path: string): Json | undefined {
    let node: Json | undefined = schema;
    for (const key of path.split(".")) {
      const resolved = this.resolve(side, node);
      const props: Json | undefined = resolved?.properties;
      node = isObject(props) ? props[key] : undefined;
      if (node === undefined) return undefined;
    }
    return node;
  }

  private lose(direction: Direction, source: string, target: string, field: string, reason: LossReason, note: string): void {
    this.lossy.push({ direction, source, target, field, reason, note });
  }
}

// --- helpers ----------------------------------------------------------------------------------------

function top(path: string): string {
  return path.split(".")[0] as string;
}

function order(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortedRecord<T>(record: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const key of Object.keys(record).sort(order)) out[key] = record[key] as T;
  return out;
}

function dedupe(list: LossyField[]): LossyField[] {
  const seen = new Set<string>();
  return list.filter((l) => {
    const key = `${l.direction}\u0000${l.source}\u0000${l.target}\u0000${l.field}\u0000${l.reason}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function compareLossy(a: LossyField, b: LossyField): number {
  return order(a.direction, b.direction) || order(a.source, b.source) || order(a.target, b.target) || order(a.field, b.field) || order(a.reason, b.reason);
}
