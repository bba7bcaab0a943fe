import fc from "fast-check";

/**
 * Schema-driven fast-check arbitraries for the property tests: valid instances of a JSON Schema
 * (draft-07 subset the A2A schemas use) and the places in an instance where a single mutation can go.
 *
 * Supported keywords: `$ref` (`#/definitions/X`, `#/$defs/X`), `allOf`, `anyOf`, `oneOf`, `const`,
 * `enum`, `type` (one or several), `properties`, `required`, `additionalProperties`, `items` (one
 * schema), and the empty schema. Annotations (`title`, `description`, `default`, `examples`, `format`...)
 * are ignored — `format` is not asserted by the validators under test. Any other keyword throws: a
 * keyword the generator ignored would make it produce invalid "valid" instances.
 */

export type Schema = boolean | { [keyword: string]: unknown };
type Obj = Record<string, unknown>;

const ANNOTATIONS = new Set([
  "title",
  "description",
  "default",
  "examples",
  "format",
  "$comment",
  "$schema",
  "$id",
  "definitions",
  "$defs",
  "readOnly",
  "writeOnly",
  "deprecated",
]);
const HANDLED = new Set(["$ref", "anyOf", "oneOf", "allOf", "const", "enum", "type", "properties", "required", "additionalProperties", "items"]);

function isObj(value: unknown): value is Obj {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function checkKeywords(schema: Obj): void {
  for (const key of Object.keys(schema)) {
    if (!ANNOTATIONS.has(key) && !HANDLED.has(key)) throw new Error(`arbitrary: unsupported keyword "${key}" in ${JSON.stringify(schema)}`);
  }
}

/** The keywords of a schema node that constrain a value (everything but annotations). */
function constraints(schema: Obj): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(schema)) if (!ANNOTATIONS.has(k)) out[k] = v;
  return out;
}

export function escapeToken(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

export function unescapeToken(token: string): string {
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** The root schema document, against which `#/definitions/X` and `#/$defs/X` refs resolve. */
export class SchemaContext {
  constructor(readonly root: Obj) {}

  resolve(ref: string): Schema {
    const m = /^#\/(definitions|\$defs)\/([^/]+)$/.exec(ref);
    if (!m) throw new Error(`arbitrary: unsupported $ref "${ref}"`);
    const table = this.root[m[1] as string];
    const target = isObj(table) ? table[unescapeToken(m[2] as string)] : undefined;
    if (target === undefined) throw new Error(`arbitrary: unresolved $ref "${ref}"`);
    return target as Schema;
  }

  /** A definition by name, whichever of `definitions` / `$defs` holds it. */
  definition(name: string): Schema {
    for (const key of ["definitions", "$defs"]) {
      const table = this.root[key];
      if (isObj(table) && Object.hasOwn(table, name)) return table[name] as Schema;
    }
    throw new Error(`arbitrary: no definition "${name}"`);
  }
}

// ---------------------------------------------------------------------------------------------------
// A small structural validator for the supported subset, used only to pick the union member a value
// belongs to (oneOf generation, mutation sites). The tests check every generated instance with Ajv.

export function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case "integer":
      return Number.isInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "object":
      return isObj(value);
    case "array":
      return Array.isArray(value);
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
    default:
      throw new Error(`arbitrary: unknown type "${type}"`);
  }
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObj(a) && isObj(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

export function conforms(ctx: SchemaContext, schema: Schema, value: unknown): boolean {
  if (schema === true) return true;
  if (schema === false) return false;
  const s = schema;
  if (typeof s.$ref === "string" && !conforms(ctx, ctx.resolve(s.$ref), value)) return false;
  if (Array.isArray(s.allOf) && !s.allOf.every((m) => conforms(ctx, m as Schema, value))) return false;
  if (Array.isArray(s.anyOf) && !s.anyOf.some((m) => conforms(ctx, m as Schema, value))) return false;
  if (Array.isArray(s.oneOf) && s.oneOf.filter((m) => conforms(ctx, m as Schema, value)).length !== 1) return false;
  if ("const" in s && !deepEqual(s.const, value)) return false;
  if (Array.isArray(s.enum) && !s.enum.some((e) => deepEqual(e, value))) return false;
  if (s.type !== undefined) {
    const types = (Array.isArray(s.type) ? s.type : [s.type]) as string[];
    if (!types.some((t) => hasType(value, t))) return false;
  }
  if (isObj(value)) {
    const props = isObj(s.properties) ? s.properties : {};
    for (const r of (s.required as string[] | undefined) ?? []) if (!Object.hasOwn(value, r)) return false;
    for (const [k, v] of Object.entries(value)) {
      if (Object.hasOwn(props, k)) {
        if (!conforms(ctx, props[k] as Schema, v)) return false;
      } else if (s.additionalProperties !== undefined && !conforms(ctx, s.additionalProperties as Schema, v)) return false;
    }
  }
  if (Array.isArray(value) && s.items !== undefined) {
    if (Array.isArray(s.items)) throw new Error("arbitrary: tuple `items` is not supported");
    if (!value.every((item) => conforms(ctx, s.items as Schema, item))) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------------
// Valid instances.

export interface ArbitraryOptions {
  /**
   * Container nesting (objects, arrays) from which on optional properties are left out, arrays are
   * empty, no extra properties are added and empty schemas yield primitives. Required properties are
   * always generated, so this bounds the recursion of the A2A types (Message → Part → ...).
   */
  maxDepth?: number;
  /** Most items of an array (default 3). */
  maxItems?: number;
  /** Most extra properties added where `additionalProperties` is a schema (default 2). */
  maxExtraKeys?: number;
}

const ABSENT = Symbol("absent");

const stringArb: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.string({ maxLength: 8 }), weight: 4 },
  { arbitrary: fc.string({ unit: "grapheme", maxLength: 4 }), weight: 1 },
);
const integerArb: fc.Arbitrary<number> = fc.integer({ min: -1000, max: 1000 });
const numberArb: fc.Arbitrary<number> = fc.oneof(integerArb, fc.double({ min: -1e6, max: 1e6, noNaN: true }));
const primitiveArb: fc.Arbitrary<unknown> = fc.oneof(stringArb, integerArb, numberArb, fc.boolean(), fc.constant(null));
// Extra property names include the characters a JSON pointer must escape.
const extraKeyArb: fc.Arbitrary<string> = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom("a/b", "~0", "x~1y", "", "é"));

function plainObject(entries: Array<[string, unknown]>): Obj {
  const out: Obj = {};
  for (const [k, v] of entries) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

class Generator {
  private readonly cache = new Map<Schema, Map<number, fc.Arbitrary<unknown>>>();
  private readonly maxDepth: number;
  private readonly maxItems: number;
  private readonly maxExtraKeys: number;

  constructor(
    private readonly ctx: SchemaContext,
    options: ArbitraryOptions,
  ) {
    this.maxDepth = options.maxDepth ?? 6;
    this.maxItems = options.maxItems ?? 3;
    this.maxExtraKeys = options.maxExtraKeys ?? 2;
  }

  arbitrary(schema: Schema, depth: number): fc.Arbitrary<unknown> {
    if (depth > this.maxDepth + 50) throw new Error("arbitrary: a cycle of required properties (no finite instance)");
    let byDepth = this.cache.get(schema);
    if (!byDepth) this.cache.set(schema, (byDepth = new Map()));
    let arb = byDepth.get(depth);
    if (!arb) {
      arb = this.build(schema, depth);
      byDepth.set(depth, arb);
    }
    return arb;
  }

  private anyJson(depth: number): fc.Arbitrary<unknown> {
    if (depth >= this.maxDepth) return primitiveArb;
    return fc.oneof(
      { arbitrary: primitiveArb, weight: 4 },
      { arbitrary: fc.array(primitiveArb, { maxLength: 2 }), weight: 1 },
      { arbitrary: fc.array(fc.tuple(extraKeyArb, primitiveArb), { maxLength: 2 }).map(plainObject), weight: 1 },
    );
  }

  private build(schema: Schema, depth: number): fc.Arbitrary<unknown> {
    if (schema === true) return this.anyJson(depth);
    if (schema === false) throw new Error("arbitrary: the schema `false` has no instance");
    checkKeywords(schema);
    const own = constraints(schema);
    const { $ref, allOf, anyOf, oneOf, ...rest } = own;

    if (typeof $ref === "string") {
      // draft-07 ignores the siblings of $ref; the A2A schemas only put annotations there.
      const target = this.ctx.resolve($ref);
      return Object.keys(rest).length === 0 && !allOf && !anyOf && !oneOf
        ? this.arbitrary(target, depth)
        : this.arbitrary({ allOf: [target, { ...rest, ...(allOf ? { allOf } : {}), ...(anyOf ? { anyOf } : {}), ...(oneOf ? { oneOf } : {}) }] }, depth);
    }
    if (Array.isArray(allOf)) {
      const merged = this.mergeAll([...(allOf as Schema[]), { ...rest, ...(anyOf ? { anyOf } : {}), ...(oneOf ? { oneOf } : {}) }]);
      return this.arbitrary(merged, depth);
    }
    for (const [keyword, members] of [
      ["anyOf", anyOf],
      ["oneOf", oneOf],
    ] as const) {
      if (!Array.isArray(members)) continue;
      // Sibling constraints apply to every member.
      const others = { ...rest, ...(keyword === "anyOf" && oneOf ? { oneOf } : {}) };
      const branches = (members as Schema[]).map((m) => (Object.keys(others).length ? this.mergeAll([others, m]) : m));
      const arb = fc.oneof(...branches.map((b) => this.arbitrary(b, depth)));
      if (keyword === "anyOf") return arb;
      // oneOf: the value must match exactly one member (A2A's tagged unions do by construction).
      return arb.filter((v) => (members as Schema[]).filter((m) => conforms(this.ctx, m, v)).length === 1);
    }
    if ("const" in rest) return fc.constant(rest.const).map((v) => structuredClone(v));
    if (Array.isArray(rest.enum)) return fc.constantFrom(...(rest.enum as unknown[])).map((v) => structuredClone(v));

    let types: string[];
    if (rest.type !== undefined) types = (Array.isArray(rest.type) ? rest.type : [rest.type]) as string[];
    else if (rest.properties !== undefined || rest.required !== undefined || rest.additionalProperties !== undefined) types = ["object"];
    else if (rest.items !== undefined) types = ["array"];
    else return this.anyJson(depth);
    const arbs = types.map((t) => this.typed(rest, t, depth));
    return arbs.length === 1 ? (arbs[0] as fc.Arbitrary<unknown>) : fc.oneof(...arbs);
  }

  private typed(schema: Obj, type: string, depth: number): fc.Arbitrary<unknown> {
    switch (type) {
      case "object":
        return this.object(schema, depth);
      case "array": {
        if (Array.isArray(schema.items)) throw new Error("arbitrary: tuple `items` is not supported");
        if (depth >= this.maxDepth) return fc.constant([]).map(() => []);
        const items = (schema.items ?? true) as Schema;
        return fc.array(this.arbitrary(items, depth + 1), { maxLength: this.maxItems });
      }
      case "string":
        return stringArb;
      case "integer":
        return integerArb;
      case "number":
        return numberArb;
      case "boolean":
        return fc.boolean();
      case "null":
        return fc.constant(null);
      default:
        throw new Error(`arbitrary: unknown type "${type}"`);
    }
  }

  private object(schema: Obj, depth: number): fc.Arbitrary<unknown> {
    const props = isObj(schema.properties) ? (schema.properties as Record<string, Schema>) : {};
    const required = new Set((schema.required as string[] | undefined) ?? []);
    const extra = schema.additionalProperties as Schema | undefined;
    const keys = [...new Set([...Object.keys(props), ...required])];
    const deep = depth >= this.maxDepth;
    const fields: Array<fc.Arbitrary<[string, unknown]>> = [];
    for (const key of keys) {
      const sub: Schema = Object.hasOwn(props, key) ? (props[key] as Schema) : (extra ?? true);
      if (required.has(key)) fields.push(this.arbitrary(sub, depth + 1).map((v) => [key, v] as [string, unknown]));
      else if (!deep) {
        fields.push(
          fc.option(this.arbitrary(sub, depth + 1), { nil: ABSENT, freq: 2 }).map((v) => [key, v] as [string, unknown]),
        );
      }
    }
    const extras: fc.Arbitrary<Array<[string, unknown]>> =
      extra !== undefined && extra !== false && !deep
        ? fc.option(
            fc.array(
              fc.tuple(
                extraKeyArb.filter((k) => !keys.includes(k) && k !== "__proto__"),
                this.arbitrary(extra, depth + 1),
              ),
              { minLength: 1, maxLength: this.maxExtraKeys },
            ),
            { nil: [], freq: 2 },
          )
        : fc.constant([]);
    return fc.tuple(fc.tuple(...fields), extras).map(([declared, added]) =>
      plainObject([...declared.filter(([, v]) => v !== ABSENT), ...added]),
    );
  }

  /** allOf of object-ish schemas as one schema (refs resolved; conflicting properties nest an allOf). */
  private mergeAll(schemas: Schema[]): Schema {
    const out: Obj = {};
    for (const raw of schemas) {
      if (raw === true) continue;
      if (raw === false) return false;
      checkKeywords(raw);
      let s = constraints(raw);
      if (typeof s.$ref === "string") {
        const { $ref, ...siblings } = s;
        const target = this.mergeAll([this.ctx.resolve($ref as string)]);
        if (target === false) return false;
        s = { ...(target === true ? {} : target), ...siblings };
        if (target !== true && Object.keys(siblings).length) s = this.mergeAll([target, siblings]) as Obj;
      }
      if (Array.isArray(s.allOf)) {
        const { allOf, ...others } = s;
        const inner = this.mergeAll([...(allOf as Schema[]), others]);
        if (inner === false) return false;
        s = inner === true ? {} : inner;
      }
      for (const [k, v] of Object.entries(s)) {
        if (!(k in out)) out[k] = v;
        else if (k === "properties") {
          const a = out.properties as Record<string, Schema>;
          const b = v as Record<string, Schema>;
          const merged: Record<string, Schema> = { ...a };
          for (const [p, ps] of Object.entries(b)) merged[p] = Object.hasOwn(a, p) ? { allOf: [a[p] as Schema, ps] } : ps;
          out.properties = merged;
        } else if (k === "required") out.required = [...new Set([...(out.required as string[]), ...(v as string[])])];
        else if (k === "type") {
          const a = (Array.isArray(out.type) ? out.type : [out.type]) as string[];
          const b = (Array.isArray(v) ? v : [v]) as string[];
          const both = a.flatMap((t) => (b.includes(t) ? [t] : (t === "integer" && b.includes("number")) || (t === "number" && b.includes("integer")) ? ["integer"] : []));
          out.type = [...new Set(both)];
        } else if (k === "anyOf" || k === "oneOf") out.allOf = [...((out.allOf as Schema[]) ?? []), { [k]: v }];
        else if (!deepEqual(out[k], v)) throw new Error(`arbitrary: cannot merge "${k}" of ${JSON.stringify(schemas)}`);
      }
    }
    return out;
  }
}

/** An arbitrary of instances valid against `schema` (a node of, or a definition in, `ctx.root`). */
export function schemaArbitrary(ctx: SchemaContext, schema: Schema, options: ArbitraryOptions = {}): fc.Arbitrary<unknown> {
  return new Generator(ctx, options).arbitrary(schema, 0);
}

// ---------------------------------------------------------------------------------------------------
// Where a single mutation can go.

export type SiteKind =
  /** A present required property, to remove. */
  | "remove-required"
  /** Any value, to replace by one of another JSON type. */
  | "retype"
  /** A value its schema fixes with `const` / `enum`, to replace by an unknown string. */
  | "unknown-enum"
  /** An item of an array, to replace by a value of another JSON type. */
  | "retype-item";

export interface Site {
  kind: SiteKind;
  /** JSON pointer of the value to remove / replace. */
  pointer: string;
  /** The value there now. */
  value: unknown;
}

/**
 * The mutation sites of a valid instance: walks the value with its schema, following for a union the
 * first member the value conforms to.
 */
export function mutationSites(ctx: SchemaContext, schema: Schema, value: unknown): Site[] {
  const sites = new Map<string, Site>();
  const add = (kind: SiteKind, pointer: string, v: unknown) => {
    const key = `${kind}\u0000${pointer}`;
    if (!sites.has(key)) sites.set(key, { kind, pointer, value: v });
  };
  const walk = (s: Schema, v: unknown, pointer: string): void => {
    add("retype", pointer, v);
    if (s === true || s === false) return;
    if (typeof s.$ref === "string") walk(ctx.resolve(s.$ref), v, pointer);
    if (Array.isArray(s.allOf)) for (const m of s.allOf) walk(m as Schema, v, pointer);
    for (const keyword of ["anyOf", "oneOf"]) {
      const members = s[keyword];
      if (!Array.isArray(members)) continue;
      const member = (members as Schema[]).find((m) => conforms(ctx, m, v));
      if (member === undefined) throw new Error(`mutationSites: ${pointer || "/"} matches no member of its ${keyword}: ${JSON.stringify(v)}`);
      walk(member, v, pointer);
    }
    if ("const" in s || Array.isArray(s.enum)) add("unknown-enum", pointer, v);
    if (isObj(v)) {
      const props = isObj(s.properties) ? (s.properties as Record<string, Schema>) : {};
      for (const r of (s.required as string[] | undefined) ?? []) {
        if (Object.hasOwn(v, r)) add("remove-required", `${pointer}/${escapeToken(r)}`, v[r]);
      }
      if (s.properties !== undefined || s.additionalProperties !== undefined) {
        for (const [k, child] of Object.entries(v)) {
          const sub = Object.hasOwn(props, k) ? (props[k] as Schema) : ((s.additionalProperties as Schema | undefined) ?? true);
          walk(sub, child, `${pointer}/${escapeToken(k)}`);
        }
      }
    }
    if (Array.isArray(v) && s.items !== undefined) {
      v.forEach((item, i) => {
        add("retype-item", `${pointer}/${i}`, item);
        walk(s.items as Schema, item, `${pointer}/${i}`);
      });
    }
  };
  walk(schema, value, "");
  return [...sites.values()];
}

export const REMOVE: unique symbol = Symbol("remove");

/** A copy of `value` with the value at `pointer` replaced (or removed, for `REMOVE`). */
export function withValueAt(value: unknown, pointer: string, replacement: unknown | typeof REMOVE): unknown {
  if (pointer === "") return replacement === REMOVE ? undefined : replacement;
  const copy = structuredClone(value);
  const tokens = pointer.slice(1).split("/").map(unescapeToken);
  let node: unknown = copy;
  for (const t of tokens.slice(0, -1)) node = (node as Record<string, unknown>)[t];
  const last = tokens[tokens.length - 1] as string;
  if (Array.isArray(node)) {
    if (replacement === REMOVE) node.splice(Number(last), 1);
    else node[Number(last)] = replacement;
  } else if (isObj(node)) {
    if (replacement === REMOVE) delete node[last];
    else Object.defineProperty(node, last, { value: replacement, enumerable: true, writable: true, configurable: true });
  } else throw new Error(`withValueAt: no container at ${pointer}`);
  return copy;
}

