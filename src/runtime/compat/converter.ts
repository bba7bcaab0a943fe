/**
 * The version mapping interpreter: converts protocol objects between a primary version (the one the
 * executor and the task store speak, e.g. 1.0.1) and a compat version (e.g. 0.3.0) by following a
 * `VersionMapping`, plain data generated beside the output (`compat/a2a-<version>/mapping.ts`) from the
 * two versions' IR diff and a small explicit table (see the generator's `src/compat/`).
 *
 * Nothing here knows a version, a method or a field name: every rule comes from the mapping. What a
 * conversion cannot carry over (a field the target version does not have, a value it cannot hold, a
 * required field the source did not have) is reported to the caller as a `Loss`, never silently.
 */

export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** Which way a conversion goes. */
export type Direction = "toPrimary" | "toCompat";

/** How a value is converted. */
export type Conversion =
  /** Copied as it is (scalars, `metadata`, lists of strings). */
  | { readonly copy: true }
  /** By a plan of the mapping: an object pair, a union pair or an enumeration. */
  | { readonly plan: string }
  /** Each item of a list. */
  | { readonly array: Conversion }
  /** Replaced by a constant (`null` ↔ `{}` for an empty result). */
  | { readonly value: JsonValue }
  /** Left out (a version that has no params for a method); the fields of `source` it had are reported lost. */
  | { readonly omit: true; readonly source?: string }
  /** Handed to a hook the caller supplies (the agent card converter); copied when there is none. */
  | { readonly hook: string };

/** What a field rule does to the converted value. */
export type Transform =
  /** A boolean inverted (`blocking` ↔ `returnImmediately`). */
  | { readonly op: "not" }
  /** A list reduced to its first item (lossy when it has more). */
  | { readonly op: "first" }
  /** One item made a list of one. */
  | { readonly op: "list" }
  /** Whether the value is one of `values` (a field the target version computes from another one). */
  | { readonly op: "in"; readonly values: readonly string[] }
  /** Any JSON value made a list of google.rpc details (error `data`, 0.x → 1.0); a list of details stays as it is. */
  | { readonly op: "toDetails"; readonly type: string }
  /** One detail of `type` made back into the value it wraps; other details kept as a list; anything else kept and reported. */
  | { readonly op: "fromDetails"; readonly type: string }
  /** A value that must be an object: kept when it is one, else wrapped as `{ [property]: value }` (lossy). */
  | { readonly op: "object"; readonly property: string }
  /** A string the target constrains (1.0's base64 bytes): kept, and reported when it does not match. */
  | { readonly op: "pattern"; readonly pattern: string };

export interface FieldRule {
  /** Dotted path in the source (`"file.bytes"`); `""` is the whole source value. */
  readonly from: string;
  /** Dotted path in the target; `""` merges the converted value into the target object itself. */
  readonly to: string;
  /** How the value is converted (default: copied). */
  readonly convert?: Conversion;
  readonly transform?: Transform;
  /** When `from` is absent: read this path of the source instead (the loss is reported as `defaulted`). */
  readonly orFrom?: string;
  /** When `from` is absent: this value (ProtoJSON leaves an empty list out; the other version requires it). */
  readonly absent?: JsonValue;
  /** An empty list is left out of the target (ProtoJSON: a field at its default is not written). */
  readonly dropEmpty?: true;
}

export interface ObjectPlan {
  readonly kind: "object";
  /** The source and target definitions, for reports (`Task`, `SendMessageRequest`). */
  readonly source: string;
  readonly target: string;
  /** Constants the target carries (`kind: "task"`). */
  readonly set: { readonly [path: string]: JsonValue };
  readonly fields: readonly FieldRule[];
  /** Source fields dropped on purpose because the target re-derives them (the `kind` tags). */
  readonly ignore: readonly string[];
  /** Fields the target requires: reported as `missing` when the conversion could not fill them. */
  readonly required: readonly string[];
}

/** A test on the source value, by dotted path. */
export type Condition = { readonly path: string; readonly equals: JsonValue } | { readonly path: string; readonly present: true };

export interface UnionPlan {
  readonly kind: "union";
  readonly source: string;
  readonly target: string;
  /** The first member whose conditions all hold converts the value (with an object plan). */
  readonly members: ReadonlyArray<{ readonly when: readonly Condition[]; readonly plan: string }>;
}

export interface EnumPlan {
  readonly kind: "enum";
  readonly source: string;
  readonly target: string;
  /** Source value → target value. A value not listed is kept as it is and reported. */
  readonly values: { readonly [value: string]: string };
}

export type Plan = ObjectPlan | UnionPlan | EnumPlan;

/** The conversions of one method's params and result, each way. */
export interface MethodMapping {
  /** The role both methods play (send, stream, get, ...). */
  readonly role: string;
  readonly compat: string;
  readonly primary: string;
  readonly streaming: boolean;
  readonly params: { readonly toPrimary: Conversion; readonly toCompat: Conversion };
  readonly result: { readonly toPrimary: Conversion; readonly toCompat: Conversion };
}

/** One place where a conversion may lose information, listed at generation time (the README shows them). */
export interface LossyField {
  readonly direction: Direction;
  /** The plan's source and target definitions and the field (dotted), e.g. `Part (text)` / `mediaType`. */
  readonly source: string;
  readonly target: string;
  readonly field: string;
  readonly reason: LossReason;
  /** In words, for the README. */
  readonly note: string;
}

export type LossReason =
  /** The target version has no such field. */
  | "no-field"
  /** The target version cannot hold this value (a second auth scheme, a non-object data part, an unknown enum value). */
  | "value"
  /** The target requires a field the source may not have. */
  | "missing"
  /** The field was absent and filled from another one. */
  | "defaulted";

export interface VersionMapping {
  readonly primary: string;
  readonly compat: string;
  readonly methods: readonly MethodMapping[];
  /** Methods only one version has (1.0's ListTasks): a compat client cannot call them. */
  readonly primaryOnly: readonly string[];
  readonly compatOnly: readonly string[];
  /** Error codes only one version defines: their objects convert like any error, a client of the other version sees a plain JSON-RPC error. */
  readonly errorCodesOnly: {
    readonly primary: ReadonlyArray<{ readonly code: number; readonly name: string }>;
    readonly compat: ReadonlyArray<{ readonly code: number; readonly name: string }>;
  };
  /** Error objects, both ways. */
  readonly error: { readonly toPrimary: Conversion; readonly toCompat: Conversion };
  readonly plans: { readonly toPrimary: { readonly [id: string]: Plan }; readonly toCompat: { readonly [id: string]: Plan } };
  /** Every place a conversion may lose information. */
  readonly lossy: readonly LossyField[];
  /** How the primary's agent card also serves compat clients (runtime/compat/card.ts), when the pair has a rule. */
  readonly card?: DualCardRule;
}

/**
 * The agent card both versions' clients read: the primary card, its JSON-RPC interface listed a second time
 * under the compat version, and the top-level fields compat clients need, each taken from the primary card.
 */
export interface DualCardRule {
  /** The `protocolVersion` of the compat entry in `supportedInterfaces` (e.g. "0.3"). */
  readonly interfaceVersion: string;
  /** The binding of the interface compat clients use (e.g. "JSONRPC"). */
  readonly binding: string;
  /**
   * Top-level fields, each from a dotted path of the primary card (`interface.url` reads the primary
   * interface of `binding`, `compat.security` the compat version's form of the card, when given) or a
   * constant; a field the card already has is left as it is.
   */
  readonly fields: ReadonlyArray<{ readonly field: string; readonly from?: string; readonly value?: JsonValue }>;
  /**
   * Maps of named entries (`securitySchemes`) whose entries carry both versions' fields: each entry of the
   * primary card gets the fields of the compat card's entry of the same name (when a compat card is given).
   */
  readonly merge: readonly string[];
  /**
   * The compat card's list of interfaces (0.3 `additionalInterfaces`, entries `{ url, transport }`): the
   * field and the name of its entries' binding field. The dual card lists there every binding compat
   * clients are served on.
   */
  readonly interfaces?: { readonly field: string; readonly binding: string };
}

/** What one conversion did not carry over, at a JSON pointer of the source value. */
export interface Loss {
  readonly direction: Direction;
  readonly source: string;
  readonly target: string;
  readonly field: string;
  readonly reason: LossReason;
  readonly pointer: string;
}

export interface ConvertOptions {
  /** Converters for `hook` conversions (e.g. `card`); without one the value is copied. */
  readonly hooks?: { readonly [name: string]: (value: unknown, direction: Direction) => unknown };
  /** Receives every loss; by default losses are dropped. */
  readonly onLoss?: (loss: Loss) => void;
}

export class CompatMappingError extends Error {
  override readonly name = "CompatMappingError";
}

type Obj = { [key: string]: unknown };

function isObj(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A list of google.rpc details: objects that each name their `@type`. */
function isDetails(value: unknown): boolean {
  return Array.isArray(value) && value.every((d) => isObj(d) && typeof d["@type"] === "string");
}

function segments(path: string): string[] {
  return path === "" ? [] : path.split(".");
}

function getPath(value: unknown, path: string): unknown {
  let node = value;
  for (const key of segments(path)) {
    if (!isObj(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

function setPath(target: Obj, path: string, value: unknown): void {
  const keys = segments(path);
  if (keys.length === 0) {
    // Own properties only, defined rather than assigned: a "__proto__" key stays a plain key.
    if (isObj(value)) for (const key of Object.keys(value)) Object.defineProperty(target, key, { value: value[key], enumerable: true, writable: true, configurable: true });
    return;
  }
  let node = target;
  for (const key of keys.slice(0, -1)) {
    if (!isObj(node[key])) node[key] = {};
    node = node[key] as Obj;
  }
  node[keys[keys.length - 1] as string] = value;
}

function pointerOf(base: string, path: string): string {
  return segments(path).reduce((p, key) => `${p}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`, base);
}

/** Converts protocol values between the two versions of a mapping. */
export class VersionConverter {
  readonly mapping: VersionMapping;
  private readonly options: ConvertOptions;

  constructor(mapping: VersionMapping, options: ConvertOptions = {}) {
    this.mapping = mapping;
    this.options = options;
  }

  /** The method of the other version that plays the same role, by either name. */
  method(name: string): MethodMapping | undefined {
    return this.mapping.methods.find((m) => m.compat === name || m.primary === name);
  }

  /** A method's params in the other version's shape. */
  params(method: string, direction: Direction, params: unknown): unknown {
    return this.convert(this.methodOf(method).params[direction], direction, params);
  }

  /** A method's result (or one streamed event) in the other version's shape. */
  result(method: string, direction: Direction, result: unknown): unknown {
    return this.convert(this.methodOf(method).result[direction], direction, result);
  }

  /**
   * A protocol object outside a method call (a stored Task, a push notification payload) in the other
   * version's shape, by its definition in the source version (`"Task"`, `"Message"`).
   */
  object(definition: string, direction: Direction, value: unknown): unknown {
    const ids = Object.keys(this.mapping.plans[direction]).filter((id) => {
      const [compat, primary = compat] = id.split("~");
      return (direction === "toPrimary" ? compat : primary) === definition;
    });
    if (ids.length !== 1) {
      const why = ids.length === 0 ? "no plan converts it" : `it converts to several: ${ids.join(", ")}`;
      throw new CompatMappingError(`cannot convert a ${definition} ${direction}: ${why}`);
    }
    return this.convert({ plan: ids[0] as string }, direction, value);
  }

  /** A JSON-RPC error object (`{ code, message, data }`) in the other version's shape. */
  error(direction: Direction, error: unknown): unknown {
    return this.convert(this.mapping.error[direction], direction, error);
  }

  /** A value by a conversion of the mapping (a plan id: `{ plan: "Task~Task" }`). */
  convert(conversion: Conversion, direction: Direction, value: unknown, pointer = ""): unknown {
    if ("copy" in conversion) return value;
    if ("value" in conversion) return conversion.value;
    if ("omit" in conversion) {
      if (isObj(value)) {
        const plan: Plan = { kind: "object", source: conversion.source ?? "", target: "(no params)", set: {}, fields: [], ignore: [], required: [] };
        for (const key of Object.keys(value)) this.lose(direction, plan, key, "no-field", pointerOf(pointer, key));
      }
      return undefined;
    }
    if ("hook" in conversion) {
      const hook = this.options.hooks?.[conversion.hook];
      return hook ? hook(value, direction) : value;
    }
    if ("array" in conversion) {
      return Array.isArray(value) ? value.map((item, i) => this.convert(conversion.array, direction, item, `${pointer}/${i}`)) : value;
    }
    const plan = this.mapping.plans[direction][conversion.plan];
    if (!plan) throw new CompatMappingError(`the mapping has no plan "${conversion.plan}" ${direction}`);
    if (plan.kind === "enum") return this.convertEnum(plan, direction, value, pointer);
    if (plan.kind === "union") return this.convertUnion(plan, direction, value, pointer);
    return this.convertObject(plan, direction, value, pointer);
  }

  private methodOf(name: string): MethodMapping {
    const method = this.method(name);
    if (!method) throw new CompatMappingError(`no method "${name}" in the ${this.mapping.compat} ↔ ${this.mapping.primary} mapping`);
    return method;
  }

  private lose(direction: Direction, plan: Plan, field: string, reason: LossReason, pointer: string): void {
    this.options.onLoss?.({ direction, source: plan.source, target: plan.target, field, reason, pointer });
  }

  private convertEnum(plan: EnumPlan, direction: Direction, value: unknown, pointer: string): unknown {
    if (typeof value === "string" && Object.hasOwn(plan.values, value)) return plan.values[value];
    this.lose(direction, plan, typeof value === "string" ? JSON.stringify(value) : "", "value", pointer);
    return value;
  }

  private convertUnion(plan: UnionPlan, direction: Direction, value: unknown, pointer: string): unknown {
    for (const member of plan.members) {
      const holds = member.when.every((c) => ("equals" in c ? getPath(value, c.path) === c.equals : getPath(value, c.path) !== undefined));
      if (holds) return this.convert({ plan: member.plan }, direction, value, pointer);
    }
    this.lose(direction, plan, "", "value", pointer);
    return value;
  }

  private convertObject(plan: ObjectPlan, direction: Direction, value: unknown, pointer: string): unknown {
    const whole = plan.fields.some((f) => f.from === "");
    if (!isObj(value) && !whole) return value;
    const out: Obj = {};
    for (const [path, constant] of Object.entries(plan.set)) setPath(out, path, constant);
    const consumed = new Set<string>();
    let replacement: { value: unknown } | undefined;
    for (const rule of plan.fields) {
      consumed.add(rule.from);
      if (rule.orFrom !== undefined) consumed.add(rule.orFrom);
      let source = getPath(value, rule.from);
      let at = pointerOf(pointer, rule.from);
      if (source === undefined && rule.orFrom !== undefined) {
        source = getPath(value, rule.orFrom);
        at = pointerOf(pointer, rule.orFrom);
        if (source !== undefined) this.lose(direction, plan, rule.from, "defaulted", pointerOf(pointer, rule.from));
      }
      if (source === undefined && rule.absent !== undefined) source = rule.absent;
      if (source === undefined) continue;
      let converted = this.convert(rule.convert ?? { copy: true }, direction, source, at);
      if (rule.transform) converted = this.transform(rule.transform, converted, () => this.lose(direction, plan, rule.from, "value", at));
      if (converted === undefined || (rule.dropEmpty && Array.isArray(converted) && converted.length === 0)) continue;
      if (rule.to === "" && !isObj(converted)) replacement = { value: converted };
      else setPath(out, rule.to, converted);
    }
    if (isObj(value)) this.reportUnconsumed(plan, direction, value, consumed, pointer);
    for (const field of plan.required) {
      if (getPath(out, field) === undefined) this.lose(direction, plan, field, "missing", pointer);
    }
    return replacement ? replacement.value : out;
  }

  /** Reports the source fields no rule read (dotted, for fields a rule read only part of). */
  private reportUnconsumed(plan: ObjectPlan, direction: Direction, value: Obj, consumed: Set<string>, pointer: string): void {
    if (consumed.has("")) return;
    const visit = (node: Obj, prefix: string) => {
      for (const key of Object.keys(node)) {
        const path = prefix === "" ? key : `${prefix}.${key}`;
        if (consumed.has(path) || plan.ignore.includes(path)) continue;
        const partly = [...consumed].some((c) => c.startsWith(`${path}.`));
        const child = node[key];
        if (partly && isObj(child)) visit(child, path);
        else this.lose(direction, plan, path, "no-field", pointerOf(pointer, path));
      }
    };
    visit(value, "");
  }

  private transform(t: Transform, value: unknown, lost: () => void): unknown {
    switch (t.op) {
      case "not":
        return typeof value === "boolean" ? !value : value;
      case "first":
        if (!Array.isArray(value)) return value;
        if (value.length !== 1) lost();
        return value[0];
      case "list":
        return [value];
      case "in":
        return typeof value === "string" && t.values.includes(value);
      case "toDetails": {
        if (!isDetails(value)) return [{ "@type": t.type, value }];
        // A list that already looks like the one detail this op makes would come back unwrapped.
        if (Array.isArray(value) && value.length === 1 && isObj(value[0]) && value[0]["@type"] === t.type) lost();
        return value;
      }
      case "fromDetails": {
        const [only] = Array.isArray(value) ? value : [];
        if (Array.isArray(value) && value.length === 1 && isObj(only) && only["@type"] === t.type && "value" in only) return only["value"];
        if (!isDetails(value)) lost();
        return value;
      }
      case "object":
        if (isObj(value)) return value;
        lost();
        return { [t.property]: value };
      case "pattern":
        if (typeof value === "string" && !new RegExp(t.pattern, "u").test(value)) lost();
        return value;
    }
  }
}
