import { SchemaShapes, constOf, refName } from "./shape.js";
import { diffProtocols } from "../diff/diff.js";
import { joinPointer } from "../errors.js";
import type { ProtocolIR } from "../ir/types.js";
import { isObject, type Json, type JsonObject } from "../schema/json.js";
import { CARD_RULES, type CardRule, type RuleContext } from "./convert-rules.js";

/** A card converted to another version, and what the conversion could not carry over or filled in. */
export interface CardConversion {
  card: JsonObject;
  /** One line each: a field dropped (no counterpart in the target version), merged or filled in, with its pointer in the source card. */
  notes: string[];
}

/**
 * Converts an agent card (or any value of a definition) between two versions of the protocol. What the
 * IRs and their diff say is derived: fields of the same name are kept, types are paired by name or by the
 * diff's renames, a tag-dispatched union member becomes the presence-dispatched member that wraps the
 * same type (`{ type: "apiKey", … }` ↔ `{ apiKeySecurityScheme: { … } }`), a constant tag the target
 * requires is added, an enum value is matched by spelling. What cannot be derived (fields merged into
 * another, like `url` + `preferredTransport` + `protocolVersion` → `supportedInterfaces`) is in the
 * explicit table of convert-rules.ts. A field with no counterpart is dropped and noted.
 */
export function convertCard(card: unknown, from: ProtocolIR, to: ProtocolIR): CardConversion {
  return new Converter(from, to).convertDefinition(card, from.facts.agentCardType, to.facts.agentCardType);
}

class Converter {
  private readonly source: SchemaShapes;
  private readonly target: SchemaShapes;
  /** Source definition → target definition, from the diff's renames. */
  private readonly renamed = new Map<string, string>();
  private readonly rules: CardRule[];
  private readonly notes: string[] = [];

  private readonly from: ProtocolIR;
  private readonly to: ProtocolIR;

  constructor(from: ProtocolIR, to: ProtocolIR) {
    this.from = from;
    this.to = to;
    this.source = new SchemaShapes(from);
    this.target = new SchemaShapes(to);
    for (const r of diffProtocols(from, to).types.renamed) this.renamed.set(r.from, r.to);
    this.rules = CARD_RULES.filter((rule) => rule.applies(from.specVersion, to.specVersion));
  }

  convertDefinition(value: unknown, fromType: string, toType: string): CardConversion {
    const card = this.convert(value, { $ref: `#/definitions/${fromType}` }, { $ref: `#/definitions/${toType}` }, "");
    return { card: isObject(card) ? card : {}, notes: this.notes };
  }

  /** The target definition of a source definition: the same name, the diff's rename, or the same name in another case. */
  targetType(name: string): string | undefined {
    if (this.target.definition(name)) return name;
    const renamed = this.renamed.get(name);
    if (renamed && this.target.definition(renamed)) return renamed;
    return this.to.types.find((t) => t.name.toLowerCase() === name.toLowerCase())?.name;
  }

  private convert(value: unknown, fromSchema: JsonObject, toSchema: JsonObject, pointer: string): Json {
    const src = this.source.resolve(fromSchema);
    const dst = this.target.resolve(toSchema);
    if (Array.isArray(value)) {
      const items = { from: this.source.items(src.schema), to: this.target.items(dst.schema) };
      return value.map((item, i) => (items.from && items.to ? this.convert(item, items.from, items.to, joinPointer(pointer, i)) : (item as Json)));
    }
    if (!isObject(value)) return this.scalar(value as Json, dst.schema);

    // A union in the source: convert from the member the value is.
    const srcUnion = this.source.members(src.schema);
    if (srcUnion) {
      const member = this.source.member(srcUnion, value);
      if (!member) return value;
      // A member that wraps a definition (`{ apiKeySecurityScheme: … }`) into a union that has that definition as a member.
      const inner = this.unwrapPresence(member.schema, value);
      if (inner && this.unionHas(dst.schema, inner.name)) {
        return this.convertInto(inner.value, inner.schema, dst, joinPointer(pointer, inner.property), pointer, inner.name);
      }
      return this.convertInto(value, member.schema, dst, pointer, pointer, member.name);
    }
    return this.convertInto(value, src.schema, dst, pointer, pointer, src.name);
  }

  /** A source object (of definition `fromName` when known) into a target schema, union or object. */
  private convertInto(
    value: JsonObject,
    fromSchema: JsonObject,
    dst: { schema: JsonObject; name: string | undefined },
    pointer: string,
    outerPointer: string,
    fromName?: string,
  ): Json {
    const dstUnion = this.target.members(dst.schema);
    if (!dstUnion) return this.object(value, fromSchema, dst.schema, pointer, fromName);
    // The member that is the same definition, else the member that wraps it (`{ apiKeySecurityScheme: … }`).
    const wanted = fromName ? this.targetType(fromName) : undefined;
    for (const raw of dstUnion) {
      const member = this.target.resolve(raw);
      if (wanted && member.name === wanted) return this.object(value, fromSchema, member.schema, pointer, fromName);
      const wrapper = wanted ? this.presenceProperty(member.schema) : undefined;
      if (wrapper && refName(String(wrapper.schema.$ref ?? "")) === wanted) {
        return { [wrapper.property]: this.object(value, fromSchema, this.target.resolve(wrapper.schema).schema, pointer, fromName) };
      }
    }
    // An object of optional fields into a union of one-field members (OAuthFlows): the first field present wins.
    const present = dstUnion
      .map((raw) => this.presenceProperty(this.target.resolve(raw).schema))
      .filter((p): p is { property: string; schema: JsonObject } => p !== undefined && p.property in value);
    if (present.length > 0) {
      const [first, ...rest] = present as [{ property: string; schema: JsonObject }, ...Array<{ property: string; schema: JsonObject }>];
      for (const other of rest) this.note(joinPointer(outerPointer, other.property), `dropped: A2A ${this.to.specVersion} allows one of ${present.map((p) => p.property).join(", ")}; kept ${first.property}`);
      const fromProperty = this.source.object(fromSchema)?.properties[first.property] ?? {};
      return { [first.property]: this.convert(value[first.property], fromProperty, first.schema, joinPointer(pointer, first.property)) };
    }
    const member = this.target.member(dstUnion, value);
    return member ? this.object(value, fromSchema, member.schema, pointer, fromName) : value;
  }

  /** The one required field of a presence-dispatched member (`{ apiKeySecurityScheme }`), when the member is one. */
  private presenceProperty(schema: JsonObject): { property: string; schema: JsonObject } | undefined {
    const shape = this.target.object(schema) ?? this.source.object(schema);
    if (!shape) return undefined;
    const names = Object.keys(shape.properties);
    if (names.length !== 1 || shape.required.length !== 1 || shape.required[0] !== names[0]) return undefined;
    return { property: names[0] as string, schema: shape.properties[names[0] as string] as JsonObject };
  }

  /** A presence-dispatched source member wrapping a definition: the wrapped value, its definition and schema. */
  private unwrapPresence(member: JsonObject, value: JsonObject): { property: string; value: JsonObject; name: string; schema: JsonObject } | undefined {
    const shape = this.source.object(member);
    const names = shape ? Object.keys(shape.properties) : [];
    const property = names[0];
    if (!shape || names.length !== 1 || property === undefined || !isObject(value[property])) return undefined;
    const inner = this.source.resolve(shape.properties[property] as JsonObject);
    return inner.name === undefined ? undefined : { property, value: value[property] as JsonObject, name: inner.name, schema: inner.schema };
  }

  /** Whether a target schema is a union with the counterpart of a source definition as a member. */
  private unionHas(schema: JsonObject, fromName: string): boolean {
    const wanted = this.targetType(fromName);
    return (this.target.members(schema) ?? []).some((m) => wanted !== undefined && this.target.resolve(m).name === wanted);
  }

  private object(value: JsonObject, fromSchema: JsonObject, toSchema: JsonObject, pointer: string, fromName: string | undefined): Json {
    const from = this.source.object(fromSchema);
    const to = this.target.object(toSchema);
    if (!to) return value;
    const rules = this.rules.filter((r) => r.type === fromName);
    const consumed = new Set(rules.flatMap((r) => r.fields));
    const out: JsonObject = {};
    // A rule's fields go where the first of its fields was (the others in source order); a `last` rule runs at the end.
    const pending = rules.map((rule) => ({ anchor: rule.last ? "" : (rule.fields.find((f) => f in value) ?? ""), rule }));
    const context: RuleContext = {
      from: this.from.specVersion,
      to: this.to.specVersion,
      targetFields: Object.keys(to.properties),
      note: (field, text) => this.note(joinPointer(pointer, field), text),
    };
    const place = (anchor: string) => {
      for (const p of pending.filter((p) => p.anchor === anchor)) Object.assign(out, p.rule.convert(value, context, out));
    };
    for (const [key, child] of Object.entries(value)) {
      const at = joinPointer(pointer, key);
      if (consumed.has(key)) {
        place(key);
        continue;
      }
      const fromProperty = from?.properties[key] ?? from?.values ?? {};
      const toProperty = to.properties[key] ?? to.values;
      if (toProperty) out[key] = this.convert(child, fromProperty, toProperty, at);
      else if (!to.closed) out[key] = child as Json;
      else if (constOf(fromProperty) === undefined) this.note(at, `dropped: ${fromName ?? "this object"} has no "${key}" in A2A ${this.to.specVersion}`);
    }
    place(""); // `last` rules, and rules none of whose fields were present.
    // The constant tag a target member requires (`type: "apiKey"`, `kind: "text"`).
    for (const key of to.required) {
      const constant = constOf(to.properties[key] ?? {});
      if (!(key in out) && constant !== undefined) out[key] = constant as Json;
    }
    return out;
  }

  /** A scalar: an enum value spelled the target's way (`completed` ↔ `TASK_STATE_COMPLETED`), else as it is. */
  private scalar(value: Json, schema: JsonObject): Json {
    if (typeof value !== "string" || !Array.isArray(schema.enum) || schema.enum.includes(value)) return value;
    const key = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, "");
    const match = schema.enum.find((e) => typeof e === "string" && (key(e) === key(value) || key(e).endsWith(key(value))));
    return match ?? value;
  }

  private note(pointer: string, text: string): void {
    this.notes.push(`${pointer || "/"}: ${text}`);
  }
}
