import type { ProtocolIR, UnionInfo } from "./types.js";
import { canonicalJson, isObject, type JsonObject } from "../schema/json.js";
import { refName } from "../schema/normalize.js";
import { walkSchema } from "../schema/walk.js";
import { aliasEnds, aliasOf } from "./aliases.js";
import { objectShape } from "./unions.js";

/** Ajv options shared by the generated validators and the tests' independent validator. */
export const AJV_OPTIONS = {
  allErrors: true,
  allowUnionTypes: true,
  // `format` is an annotation (as in JSON Schema 2019+): real agents write timestamps in many shapes.
  validateFormats: false,
  strict: true,
  strictTypes: false,
  strictRequired: false,
  // One function per definition, called where it is referenced: a third of the code of inlining.
  inlineRefs: false,
} as const;

export const SCHEMA_ID = "a2a";

/**
 * The schema the validators are compiled from: the normalized schema with every union that can be told
 * apart before validation rewritten as an if/then/else chain. The chain accepts exactly what the anyOf
 * accepts, but reports the errors of the one member the value names (one precise error instead of Ajv's
 * fan-out over every member), and an unknown tag as one `enum` error listing the allowed tags.
 */
export function validatorSchema(ir: ProtocolIR): JsonObject {
  const definitions: JsonObject = {};
  for (const t of ir.types) definitions[t.name] = structuredClone(t.schema);
  applySpecConstraints(definitions, ir.specConstraints, ir.methods);
  collapseAliasChains(definitions);
  const root: JsonObject = { $id: SCHEMA_ID, definitions };
  // Deepest first, so that an inner union is rewritten before the member that contains it moves.
  const unions = [...ir.unions].sort((a, b) => b.pointer.split("/").length - a.pointer.split("/").length || (a.pointer < b.pointer ? -1 : 1));
  // Unions nothing tells apart check first what every member requires alike (the JSON-RPC envelope).
  const types: Record<string, JsonObject> = Object.fromEntries(ir.types.map((t) => [t.name, t.schema]));
  for (const union of unions) {
    const { parent, key } = locate(root, union.pointer);
    const node = (parent as Record<string, unknown>)[key] as JsonObject;
    (parent as Record<string, unknown>)[key] = union.dispatch.kind === "none" ? envelopeFirst(union, node, types) : dispatchChain(union, node);
  }
  return root;
}

/**
 * The constraints of the specification text (the overlay's, e.g. "at least one part"), added to the
 * property they bound: beside its keywords, or beside a `$ref` in an `allOf` (draft-07 ignores a `$ref`'s
 * siblings). A constraint that applies to requests only is added where a method's params reference its
 * definition (`MessageSendParams.message` → `allOf: [Message, { properties: { parts: { minItems: 1 } } }]`),
 * so the definition itself, and every response that reuses it, keeps the schema's verdict.
 */
function applySpecConstraints(definitions: JsonObject, constraints: ProtocolIR["specConstraints"], methods: ProtocolIR["methods"]): void {
  const params = [...new Set(methods.map((m) => m.paramsType).filter((t): t is string => t !== undefined))].sort();
  for (const constraint of constraints) {
    if (constraint.appliesTo === "requests") {
      const bound: JsonObject = { properties: { [constraint.property]: { ...constraint.schema } } };
      for (const name of params) {
        const properties = (definitions[name] as JsonObject | undefined)?.properties;
        if (!isObject(properties)) continue;
        for (const [key, schema] of Object.entries(properties)) {
          if (isObject(schema) && refName(schema.$ref) === constraint.definition) properties[key] = { allOf: [schema, structuredClone(bound)] };
        }
      }
      continue;
    }
    const properties = (definitions[constraint.definition] as JsonObject | undefined)?.properties;
    if (!isObject(properties) || !isObject(properties[constraint.property])) continue;
    const schema = properties[constraint.property] as JsonObject;
    properties[constraint.property] = "$ref" in schema ? { allOf: [schema, { ...constraint.schema }] } : { ...schema, ...constraint.schema };
  }
}

/**
 * A union whose members all require the same properties with the same schema (`jsonrpc: "2.0"` and `id` of
 * every JSON-RPC response) checks them first: `if envelope then union else envelope`, which accepts exactly
 * what the union accepts (each member requires the envelope). A value with a bad envelope gets the
 * envelope's issue (`/jsonrpc`) rather than the fan-out of every member's other complaints.
 */
function envelopeFirst(union: UnionInfo, node: JsonObject, definitions: Record<string, JsonObject>): JsonObject {
  const items = node[union.keyword];
  if (!Array.isArray(items) || items.length < 2) return node;
  const shapes = items.map((item) => (isObject(item) ? objectShape(item, definitions) : undefined));
  if (shapes.some((s) => s === undefined)) return node;
  const all = shapes as Array<{ properties: JsonObject; required: string[] }>;
  const first = all[0] as { properties: JsonObject; required: string[] };
  const shared: JsonObject = {};
  for (const property of [...first.required].sort()) {
    const schema = first.properties[property];
    if (!isObject(schema)) continue;
    const text = withoutDocs(schema);
    if (all.every((s) => s.required.includes(property) && isObject(s.properties[property]) && withoutDocs(s.properties[property] as JsonObject) === text)) {
      shared[property] = JSON.parse(text) as JsonObject;
    }
  }
  if (Object.keys(shared).length === 0) return node;
  const envelope: JsonObject = { type: "object", required: Object.keys(shared), properties: shared };
  const { description, ...union_ } = node;
  return { ...(description !== undefined ? { description } : {}), if: envelope, then: union_, else: envelope };
}

/** A schema as canonical JSON without its descriptions: two declarations of one property compare equal. */
function withoutDocs(schema: JsonObject): string {
  return canonicalJson(
    walkSchema(structuredClone(schema), "", (n) => {
      delete n.description;
      delete n.$comment;
    }),
  );
}

/**
 * A reference to a definition that is only a reference (an alias) becomes a reference to the end of the
 * chain: Ajv follows such a chain on every compile (quadratic in its length), the generated code then
 * calls the final validator directly. Alias cycles are refused when the IR is built.
 */
function collapseAliasChains(definitions: JsonObject): void {
  const defs = definitions as Record<string, JsonObject>;
  const endOf = aliasEnds(defs);
  for (const def of Object.values(defs)) {
    walkSchema(def, "", (node) => {
      const target = refName(node.$ref);
      if (target !== undefined && aliasOf(defs, target) !== undefined) node.$ref = `#/definitions/${endOf(target)}`;
    });
  }
}

function locate(root: JsonObject, pointer: string): { parent: JsonObject | unknown[]; key: string | number } {
  const tokens = pointer.slice(1).split("/").map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
  let node: unknown = root;
  for (let i = 0; i < tokens.length - 1; i++) node = (node as Record<string, unknown>)[tokens[i] as string];
  const last = tokens[tokens.length - 1] as string;
  return Array.isArray(node) ? { parent: node, key: Number(last) } : { parent: node as JsonObject, key: last };
}

function dispatchChain(union: UnionInfo, node: JsonObject): JsonObject {
  const items = node[union.keyword] as JsonObject[];
  const memberSchema = (index: number): JsonObject =>
    union.members[index]?.ref !== undefined ? { $ref: `#/definitions/${union.members[index]?.ref}` } : (items[index] as JsonObject);
  const doc: JsonObject = typeof node.description === "string" ? { description: node.description } : {};
  const dispatch = union.dispatch;

  if (dispatch.kind === "tag") {
    const tag = dispatch.property;
    let chain: JsonObject = {
      type: "object",
      required: [tag],
      properties: { [tag]: { enum: dispatch.tags.map((t) => t.value) } },
    };
    for (const { value, member } of [...dispatch.tags].reverse()) {
      chain = {
        if: { type: "object", required: [tag], properties: { [tag]: { const: value } } },
        then: memberSchema(member.index),
        else: chain,
      };
    }
    return { ...doc, ...chain };
  }
  if (dispatch.kind === "presence") {
    const markers = dispatch.markers.map((m) => m.property);
    const anyMarker = markers.map((p) => ({ required: [p] }));
    // No marker: say which are expected. Several markers: only the union itself can decide.
    const undecided: JsonObject = {
      if: { type: "object", anyOf: anyMarker },
      then: { [union.keyword]: items.map((_, i) => memberSchema(i)) },
      else: { type: "object", anyOf: anyMarker },
    };
    // Exactly one marker (one `oneOf` over the markers, linear in their number; a chain that checked
    // "this marker and none of the others" at each step would be quadratic): the member it names. The
    // last member needs no test of its own: its marker is the one left.
    const ordered = [...dispatch.markers];
    const last = ordered.pop();
    if (last === undefined) return node;
    const chosen = (index: number): JsonObject => withoutExclusion(memberSchema(index), markers);
    const merged = mergedMembers(dispatch.markers.map((m) => ({ marker: m.property, schema: chosen(m.member.index) })));
    // A proto oneof (variants alike but for their member): one object for the member named, and the
    // several-members case from the first variant and the others' own members (see the two functions).
    if (merged !== undefined) {
      const reduced = undecidedMembers(items.map((_, i) => memberSchema(i)), dispatch.markers.map((m) => ({ marker: m.property, index: m.member.index })));
      if (reduced !== undefined) undecided.then = { [union.keyword]: reduced };
      return { ...doc, if: { type: "object", oneOf: anyMarker }, then: merged, else: undecided };
    }
    let chain: JsonObject = chosen(last.member.index);
    for (const { property, member } of ordered.reverse()) {
      chain = { if: { required: [property] }, then: chosen(member.index), else: chain };
    }
    return { ...doc, if: { type: "object", oneOf: anyMarker }, then: chain, else: undecided };
  }
  return node;
}

/**
 * The members of a presence union as one object schema, when they are inline objects that differ only in
 * their marker (a proto oneof's variants: the message's other fields, plus the member that is set). Where
 * exactly one marker is present, the member it names checks the same properties, requires the same ones and
 * reports the same errors in the same order as an object that declares every marker: the absent markers'
 * schemas never apply. One object instead of a chain of near-copies (Part's four variants, SecurityScheme's
 * five) is most of the generated code of a proto oneof. Any other union is left to the chain (undefined).
 */
function mergedMembers(members: Array<{ marker: string; schema: JsonObject }>): JsonObject | undefined {
  let common: string | undefined;
  let requiredText: string | undefined;
  const properties: JsonObject = {};
  const order: string[] = [];
  for (const { marker, schema } of members) {
    if (Object.keys(schema).some((k) => k !== "type" && k !== "properties" && k !== "required" && k !== "description")) return undefined;
    if (schema.type !== "object" || !isObject(schema.properties)) return undefined;
    const own = schema.properties;
    if (!isObject(own[marker])) return undefined;
    const required = Array.isArray(schema.required) ? schema.required : [];
    // The marker is required last (the variant's own clause): the rest must be the same in every member.
    if (required[required.length - 1] !== marker) return undefined;
    const rest = JSON.stringify(required.slice(0, -1));
    if (requiredText !== undefined && rest !== requiredText) return undefined;
    requiredText = rest;
    const others = Object.entries(own).filter(([k]) => k !== marker);
    const text = JSON.stringify(others);
    if (common !== undefined && text !== common) return undefined;
    common = text;
    // Where the marker sits among the others: every member's order must be a subsequence of the merged one.
    const at = Object.keys(own).indexOf(marker);
    const before = Object.keys(own).slice(0, at);
    if (order.length === 0) order.push(...Object.keys(own));
    else {
      const anchor = before.length === 0 ? -1 : order.indexOf(before[before.length - 1] as string);
      let insert = anchor + 1;
      while (insert < order.length && members.some((m) => m.marker === order[insert])) insert++;
      order.splice(insert, 0, marker);
    }
    properties[marker] = own[marker];
    for (const [k, v] of others) properties[k] = v;
  }
  if (common === undefined || requiredText === undefined) return undefined;
  const ordered: JsonObject = {};
  for (const k of order) ordered[k] = properties[k] as JsonObject;
  // Every member's own order must be the merged order without the other markers (same errors, same order).
  for (const { marker, schema } of members) {
    const own = Object.keys(schema.properties as JsonObject).join("\u0000");
    if (order.filter((k) => k === marker || !members.some((m) => m.marker === k)).join("\u0000") !== own) return undefined;
  }
  const required = JSON.parse(requiredText) as string[];
  return { type: "object", properties: ordered, ...(required.length > 0 ? { required } : {}) };
}

/**
 * The members of a merged presence union (see mergedMembers) where several markers are present: every
 * member fails, and the issues are the deepest of all members' errors, each reported once. The first member
 * keeps all its checks; the others keep only their marker's (its `required`, its schema): every other error
 * of theirs is one the first member reports earlier (the same property, the same schema), so the issues are
 * the same, from a fraction of the code. Undefined when a member has no marker.
 */
function undecidedMembers(members: JsonObject[], markers: Array<{ marker: string; index: number }>): JsonObject[] | undefined {
  const markerOf = new Map(markers.map((m) => [m.index, m.marker]));
  if (members.some((_, i) => !markerOf.has(i))) return undefined;
  // Each member's `not` (no other marker) fails here, always with the same error at the value itself: a
  // `not: {}` fails alike without testing the markers again.
  return members.map((member, i): JsonObject => {
    if (i === 0) return { ...member, not: {} };
    const marker = markerOf.get(i) as string;
    return { properties: { [marker]: (member.properties as JsonObject)[marker] as JsonObject }, required: [marker], not: {} };
  });
}

/**
 * A member of a presence union without its `not: {anyOf: [{required: [other marker]}, …]}` or `not: {required: [other]}` (a proto
 * oneof's "and no other field of the oneof"): where it is chosen, exactly one marker is present, so that
 * clause holds and checking it again is only code. Any other member is returned as it is.
 */
function withoutExclusion(member: JsonObject, markers: string[]): JsonObject {
  const not = member.not;
  if (!isObject(not) || Object.keys(not).length !== 1) return member;
  // A oneof of two members excludes the other one alone: `not: {required: [other]}`.
  const clauses = Array.isArray(not.anyOf) ? not.anyOf : Array.isArray(not.required) ? [not] : undefined;
  if (clauses === undefined) return member;
  const onlyMarkers = clauses.every(
    (clause) =>
      isObject(clause) &&
      Object.keys(clause).length === 1 &&
      Array.isArray(clause.required) &&
      clause.required.length === 1 &&
      markers.includes(clause.required[0] as string),
  );
  if (!onlyMarkers) return member;
  const { not: _exclusion, ...rest } = member;
  return rest;
}
