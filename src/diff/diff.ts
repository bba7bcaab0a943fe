import type { ErrorInfo, MethodInfo, MethodRole, ProtocolIR, TypeDecl, TypeKind, UnionDispatch, UnionInfo } from "../ir/types.js";
import { isObject, type Json, type JsonObject } from "../schema/json.js";
import { diffBindings, isEmptyBindingsDiff, type BindingsDiff } from "./bindings.js";
import { compareStrings, pairMethods, pairTypes, rolesOf, type MethodPair } from "./pairing.js";
import { constOf, enumOf, isUnionSchema, schemaText, type RefMapper } from "./schema-text.js";

/**
 * What changed between two versions of the protocol, at IR level: methods, types (definitions), unions,
 * error codes and version facts. Plain JSON (no undefined: absent values are `null`), every list sorted,
 * so that the same two inputs always give the same bytes.
 *
 * Renames are guesses and say why (`evidence`). A renamed method or type is listed under `renamed`, not
 * under `added` / `removed`, and everything else is compared modulo renames: a field whose type went from
 * `TaskSendParams` to `MessageSendParams` is not a change once that rename is reported.
 */
export interface SpecDiff {
  from: DiffSide;
  to: DiffSide;
  /** True when no list below has an entry. */
  unchanged: boolean;
  /** Version facts: well-known card path, Part discriminator, agent card type, whether requests require `jsonrpc`. */
  facts: FactChange[];
  methods: {
    added: MethodSummary[];
    removed: MethodSummary[];
    renamed: MethodRename[];
    /** Methods of the same name whose request, params, response, streaming flag, ... changed. */
    changed: MethodChange[];
  };
  types: {
    added: TypeSummary[];
    removed: TypeSummary[];
    renamed: TypeRename[];
    /** Definitions of the same name whose fields, enum values or kind changed (union members: see `unions`). */
    changed: TypeChange[];
  };
  /** Unions (definition-level or inline) present in both versions whose members or dispatch changed. */
  unions: UnionChange[];
  errors: {
    added: ErrorSummary[];
    removed: ErrorSummary[];
    /** Same code, different definition name or default message. */
    changed: ErrorChange[];
  };
  /** The protocol bindings: which each version defines, gRPC rpc names, HTTP+JSON routes (see bindings.ts). */
  bindings: BindingsDiff;
}

export interface DiffSide {
  specVersion: string;
  fileName: string;
  sha256: string;
  /** How many methods, definitions and error codes the version has. */
  methods: number;
  types: number;
  errors: number;
}

export type FactName = "wellKnownAgentCardPath" | "discriminatorField" | "agentCardType" | "jsonrpcRequired";
export type Scalar = string | number | boolean | null;

export interface FactChange {
  fact: FactName;
  from: Scalar;
  to: Scalar;
}

export interface MethodSummary {
  method: string;
  /** The role the version's profile gives it (send, stream, pushList, ...), if any. */
  role: MethodRole | null;
  requestType: string;
  /** The params definition, or a rendering of the params schema when it is not a plain reference. */
  params: string | null;
  responseType: string | null;
  streaming: boolean;
}

export interface MethodRename {
  from: string;
  to: string;
  /** Why the two are paired: `same role: send`, or `similar name: shared tasks, set`. */
  evidence: string;
  /** What else changed between the two (modulo renamed types). */
  changes: MethodFieldChange[];
}

export interface MethodChange {
  method: string;
  changes: MethodFieldChange[];
}

export type MethodField = "role" | "requestType" | "params" | "paramsRequired" | "responseType" | "streaming" | "inRequestUnion";

export interface MethodFieldChange {
  field: MethodField;
  from: Scalar;
  to: Scalar;
}

export interface TypeSummary {
  name: string;
  kind: TypeKind;
  /** A short rendering: `{ id, metadata? }`, `"a" | "b"`, `TextPart | FilePart`. */
  shape: string;
}

export interface TypeRename {
  from: string;
  to: string;
  /** Why the two are paired: `same role: params of send`, `similar properties: 2 of 2 shared (...)`. */
  evidence: string;
  changes: FieldChange[];
}

export interface TypeChange {
  name: string;
  changes: FieldChange[];
}

/** One change to a definition; `field` is the property, or null for the definition itself. */
export type FieldChange =
  | { change: "kind"; field: null; from: TypeKind; to: TypeKind }
  | { change: "added"; field: string; type: string; required: boolean }
  | { change: "removed"; field: string; type: string; required: boolean }
  | { change: "required"; field: string; from: boolean; to: boolean }
  | { change: "type"; field: string | null; from: string; to: string }
  | { change: "const"; field: string; from: Scalar; to: Scalar }
  /** The default value, as JSON text (null: none). */
  | { change: "default"; field: string; from: string | null; to: string | null }
  | { change: "enum"; field: string | null; added: string[]; removed: string[] };

export interface UnionChange {
  /** `Part`, or `SendMessageSuccessResponse.result` for an inline union. */
  union: string;
  /** JSON pointer in the newer version's normalized schema. */
  pointer: string;
  /** Member definitions (or renderings of inline members). */
  membersAdded: string[];
  membersRemoved: string[];
  /** How members are told apart, when that changed (e.g. tag `type` → tag `kind`). */
  dispatch: { from: DispatchSummary; to: DispatchSummary } | null;
}

export interface DispatchSummary {
  kind: UnionDispatch["kind"];
  /** The tag property, for `tag` dispatch. */
  property: string | null;
}

export interface ErrorSummary {
  code: number;
  name: string;
  message: string | null;
}

export interface ErrorChange {
  code: number;
  changes: Array<{ field: "name" | "message"; from: string | null; to: string | null }>;
}

/** Compares two protocol versions. Pure: reads the IRs, returns plain data. */
export function diffProtocols(a: ProtocolIR, b: ProtocolIR): SpecDiff {
  const methodPairs = pairMethods(a, b);
  const typeRenames = pairTypes(a, b, methodPairs);
  const renamed = new Map(typeRenames.map((r) => [r.from, r.to]));
  const mapRef: RefMapper = (name) => renamed.get(name) ?? name;

  const diff: SpecDiff = {
    from: side(a),
    to: side(b),
    unchanged: false,
    facts: diffFacts(a, b),
    methods: diffMethods(a, b, methodPairs, mapRef),
    types: diffTypes(a, b, typeRenames, mapRef),
    unions: diffUnions(a, b, mapRef),
    errors: diffErrors(a, b),
    bindings: diffBindings(a, b, (method) => methodPairs.find((p) => p.a.method === method)?.b.method),
  };
  diff.unchanged = isEmptyDiff(diff);
  return diff;
}

/** Whether a diff reports no change at all. */
export function isEmptyDiff(diff: SpecDiff): boolean {
  const lists = [
    diff.facts,
    diff.unions,
    ...Object.values(diff.methods),
    ...Object.values(diff.types),
    ...Object.values(diff.errors),
  ];
  return lists.every((list) => list.length === 0) && isEmptyBindingsDiff(diff.bindings);
}

function side(ir: ProtocolIR): DiffSide {
  return {
    specVersion: ir.specVersion,
    fileName: ir.source.fileName,
    sha256: ir.source.sha256,
    methods: ir.methods.length,
    types: ir.types.length,
    errors: ir.errors.length,
  };
}

// --- facts ----------------------------------------------------------------------------------------

function diffFacts(a: ProtocolIR, b: ProtocolIR): FactChange[] {
  const facts: Array<[FactName, Scalar, Scalar]> = [
    ["wellKnownAgentCardPath", a.facts.wellKnownAgentCardPath, b.facts.wellKnownAgentCardPath],
    ["discriminatorField", a.facts.discriminatorField ?? null, b.facts.discriminatorField ?? null],
    ["agentCardType", a.facts.agentCardType, b.facts.agentCardType],
    ["jsonrpcRequired", a.profile.jsonrpcRequired, b.profile.jsonrpcRequired],
  ];
  return facts.filter(([, from, to]) => from !== to).map(([fact, from, to]) => ({ fact, from, to }));
}

// --- methods --------------------------------------------------------------------------------------

function diffMethods(a: ProtocolIR, b: ProtocolIR, pairs: MethodPair[], mapRef: RefMapper): SpecDiff["methods"] {
  const rolesA = rolesOf(a);
  const rolesB = rolesOf(b);
  const pairedA = new Set(pairs.map((p) => p.a.method));
  const pairedB = new Set(pairs.map((p) => p.b.method));
  const added = b.methods.filter((m) => !pairedB.has(m.method)).map((m) => methodSummary(b, m, rolesB));
  const removed = a.methods.filter((m) => !pairedA.has(m.method)).map((m) => methodSummary(a, m, rolesA));
  const renamed: MethodRename[] = [];
  const changed: MethodChange[] = [];
  for (const pair of pairs) {
    const changes = methodChanges(a, b, pair, rolesA, rolesB, mapRef);
    if (pair.evidence !== undefined) {
      renamed.push({ from: pair.a.method, to: pair.b.method, evidence: pair.evidence, changes });
    } else if (changes.length > 0) {
      changed.push({ method: pair.b.method, changes });
    }
  }
  return {
    added: added.sort((x, y) => compareStrings(x.method, y.method)),
    removed: removed.sort((x, y) => compareStrings(x.method, y.method)),
    renamed: renamed.sort((x, y) => compareStrings(x.from, y.from)),
    changed: changed.sort((x, y) => compareStrings(x.method, y.method)),
  };
}

function methodSummary(ir: ProtocolIR, m: MethodInfo, roles: Map<string, MethodRole>): MethodSummary {
  return {
    method: m.method,
    role: roles.get(m.method) ?? null,
    requestType: m.requestType,
    params: paramsText(ir, m),
    responseType: m.responseType ?? null,
    streaming: m.streaming,
  };
}

/** The params definition, or the rendering of an inline params schema, or null when there are none. */
function paramsText(ir: ProtocolIR, m: MethodInfo, mapRef?: RefMapper): string | null {
  if (m.paramsType !== undefined) return mapRef ? mapRef(m.paramsType) : m.paramsType;
  if (!m.hasParams) return null;
  const request = ir.types.find((t) => t.name === m.requestType)?.schema;
  const properties = request?.properties;
  return schemaText(isObject(properties) ? properties.params : undefined, mapRef);
}

function methodChanges(
  a: ProtocolIR,
  b: ProtocolIR,
  pair: MethodPair,
  rolesA: Map<string, MethodRole>,
  rolesB: Map<string, MethodRole>,
  mapRef: RefMapper,
): MethodFieldChange[] {
  const ma = pair.a;
  const mb = pair.b;
  const mapped = (name: string | undefined): string | null => (name === undefined ? null : mapRef(name));
  const fields: Array<[MethodField, Scalar, Scalar, Scalar]> = [
    // [field, old value compared modulo renames, old value as shown, new value]
    ["role", rolesA.get(ma.method) ?? null, rolesA.get(ma.method) ?? null, rolesB.get(mb.method) ?? null],
    ["requestType", mapRef(ma.requestType), ma.requestType, mb.requestType],
    ["params", paramsText(a, ma, mapRef), paramsText(a, ma), paramsText(b, mb)],
    ["paramsRequired", ma.paramsRequired, ma.paramsRequired, mb.paramsRequired],
    ["responseType", mapped(ma.responseType), ma.responseType ?? null, mb.responseType ?? null],
    ["streaming", ma.streaming, ma.streaming, mb.streaming],
    ["inRequestUnion", ma.inRequestUnion, ma.inRequestUnion, mb.inRequestUnion],
  ];
  return fields.filter(([, compared, , to]) => compared !== to).map(([field, , from, to]) => ({ field, from, to }));
}

// --- types ----------------------------------------------------------------------------------------

function diffTypes(
  a: ProtocolIR,
  b: ProtocolIR,
  renames: Array<{ from: string; to: string; evidence: string }>,
  mapRef: RefMapper,
): SpecDiff["types"] {
  const byNameA = new Map(a.types.map((t) => [t.name, t]));
  const byNameB = new Map(b.types.map((t) => [t.name, t]));
  const renamedFrom = new Set(renames.map((r) => r.from));
  const renamedTo = new Set(renames.map((r) => r.to));
  const added = b.types.filter((t) => !byNameA.has(t.name) && !renamedTo.has(t.name)).map(typeSummary);
  const removed = a.types.filter((t) => !byNameB.has(t.name) && !renamedFrom.has(t.name)).map(typeSummary);
  const renamed: TypeRename[] = [];
  for (const r of renames) {
    const ta = byNameA.get(r.from);
    const tb = byNameB.get(r.to);
    if (ta && tb) renamed.push({ ...r, changes: typeChanges(ta, tb, mapRef) });
  }
  const changed: TypeChange[] = [];
  for (const tb of b.types) {
    const ta = byNameA.get(tb.name);
    if (!ta) continue;
    const changes = typeChanges(ta, tb, mapRef);
    if (changes.length > 0) changed.push({ name: tb.name, changes });
  }
  return {
    added: added.sort((x, y) => compareStrings(x.name, y.name)),
    removed: removed.sort((x, y) => compareStrings(x.name, y.name)),
    renamed,
    changed: changed.sort((x, y) => compareStrings(x.name, y.name)),
  };
}

function typeSummary(t: TypeDecl): TypeSummary {
  return { name: t.name, kind: t.kind, shape: schemaText(t.schema, undefined, 1) };
}

/** The changes of one definition: kind, enum values, alias target, and the fields of objects. */
function typeChanges(a: TypeDecl, b: TypeDecl, mapRef: RefMapper): FieldChange[] {
  const changes: FieldChange[] = [];
  if (a.kind !== b.kind) changes.push({ change: "kind", field: null, from: a.kind, to: b.kind });
  if (a.kind === "enum" && b.kind === "enum") {
    const change = enumChange(null, enumOf(a.schema) ?? [], enumOf(b.schema) ?? []);
    if (change) changes.push(change);
  }
  if (a.kind === "alias" && b.kind === "alias") {
    const from = schemaText(a.schema, mapRef);
    const to = schemaText(b.schema);
    if (from !== to) changes.push({ change: "type", field: null, from: schemaText(a.schema), to });
  }
  if (a.kind !== "union" && b.kind !== "union") changes.push(...fieldChanges(a.schema, b.schema, mapRef));
  return changes.sort(compareFieldChanges);
}

function fieldChanges(a: JsonObject, b: JsonObject, mapRef: RefMapper): FieldChange[] {
  const propsA = isObject(a.properties) ? a.properties : {};
  const propsB = isObject(b.properties) ? b.properties : {};
  const requiredA = requiredOf(a);
  const requiredB = requiredOf(b);
  const changes: FieldChange[] = [];
  for (const field of [...new Set([...Object.keys(propsA), ...Object.keys(propsB)])].sort()) {
    const pa = propsA[field];
    const pb = propsB[field];
    if (pa === undefined && pb !== undefined) {
      changes.push({ change: "added", field, type: schemaText(pb), required: requiredB.has(field) });
    } else if (pa !== undefined && pb === undefined) {
      changes.push({ change: "removed", field, type: schemaText(pa), required: requiredA.has(field) });
    } else if (pa !== undefined && pb !== undefined) {
      if (requiredA.has(field) !== requiredB.has(field)) {
        changes.push({ change: "required", field, from: requiredA.has(field), to: requiredB.has(field) });
      }
      changes.push(...propertyChanges(field, pa, pb, mapRef));
    }
  }
  return changes;
}

function requiredOf(schema: JsonObject): Set<string> {
  return new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : []);
}

/**
 * How a property's schema changed: its constant, its enum values, or its type rendering; and its default.
 * A property that is a union in both versions is left to the union comparison.
 */
function propertyChanges(field: string, a: Json, b: Json, mapRef: RefMapper): FieldChange[] {
  const constA = constOf(a);
  const constB = constOf(b);
  if (constA !== undefined && constB !== undefined) {
    return constA === constB ? [] : [{ change: "const", field, from: scalar(constA), to: scalar(constB) }];
  }
  const changes: FieldChange[] = [];
  const enumA = enumOf(a);
  const enumB = enumOf(b);
  if (enumA !== undefined && enumB !== undefined) {
    const change = enumChange(field, enumA, enumB);
    if (change) changes.push(change);
  } else if (!(isUnionSchema(a) && isUnionSchema(b))) {
    const from = schemaText(a, mapRef);
    const to = schemaText(b);
    if (from !== to) changes.push({ change: "type", field, from: schemaText(a), to });
  }
  const defaultA = defaultOf(a);
  const defaultB = defaultOf(b);
  if (defaultA !== defaultB) changes.push({ change: "default", field, from: defaultA, to: defaultB });
  return changes;
}

/** A property's default value as JSON text, or null. */
function defaultOf(schema: Json): string | null {
  return isObject(schema) && schema.default !== undefined ? JSON.stringify(schema.default) : null;
}

function enumChange(field: string | null, a: string[], b: string[]): FieldChange | undefined {
  const added = b.filter((v) => !a.includes(v)).sort();
  const removed = a.filter((v) => !b.includes(v)).sort();
  return added.length + removed.length === 0 ? undefined : { change: "enum", field, added, removed };
}

function scalar(value: Json): Scalar {
  return value === null || typeof value !== "object" ? value : JSON.stringify(value);
}

const CHANGE_ORDER: Array<FieldChange["change"]> = ["kind", "removed", "added", "required", "type", "const", "enum", "default"];

function compareFieldChanges(x: FieldChange, y: FieldChange): number {
  if (x.field !== y.field) {
    if (x.field === null) return -1;
    if (y.field === null) return 1;
    return compareStrings(x.field, y.field);
  }
  return CHANGE_ORDER.indexOf(x.change) - CHANGE_ORDER.indexOf(y.change);
}

// --- unions ---------------------------------------------------------------------------------------

function diffUnions(a: ProtocolIR, b: ProtocolIR, mapRef: RefMapper): UnionChange[] {
  const byPointerB = new Map(b.unions.map((u) => [u.pointer, u]));
  const schemasA = new Map(a.types.map((t) => [t.name, t.schema]));
  const schemasB = new Map(b.types.map((t) => [t.name, t.schema]));
  const changes: UnionChange[] = [];
  for (const ua of a.unions) {
    const pointer = renamePointer(ua.pointer, mapRef);
    const ub = byPointerB.get(pointer);
    if (!ub) continue;
    const membersA = memberLabels(ua, schemasA, mapRef);
    const shownA = memberLabels(ua, schemasA);
    const membersB = memberLabels(ub, schemasB);
    const membersAdded = membersB.filter((m) => !membersA.includes(m)).sort();
    const membersRemoved = shownA.filter((_shown, i) => !membersB.includes(membersA[i] as string)).sort();
    const from = dispatchSummary(ua.dispatch);
    const to = dispatchSummary(ub.dispatch);
    const dispatch = from.kind !== to.kind || from.property !== to.property ? { from, to } : null;
    if (membersAdded.length + membersRemoved.length > 0 || dispatch) {
      changes.push({ union: pointerLabel(pointer), pointer, membersAdded, membersRemoved, dispatch });
    }
  }
  return changes.sort((x, y) => compareStrings(x.pointer, y.pointer));
}

/** `/definitions/<Old>/...` → `/definitions/<New>/...` for a renamed definition. */
function renamePointer(pointer: string, mapRef: RefMapper): string {
  const m = /^\/definitions\/([^/]+)(.*)$/.exec(pointer);
  if (!m) return pointer;
  const name = unescape(m[1] as string);
  return `/definitions/${escape(mapRef(name))}${m[2] ?? ""}`;
}

/** A member's definition name, or the rendering of an inline member. */
function memberLabels(u: UnionInfo, schemas: Map<string, JsonObject>, mapRef?: RefMapper): string[] {
  const node = schemaAt(u.pointer, schemas);
  const items = node ? node[u.keyword] : undefined;
  return u.members.map((m) => {
    if (m.ref !== undefined) return mapRef ? mapRef(m.ref) : m.ref;
    return schemaText(Array.isArray(items) ? items[m.index] : undefined, mapRef, 1);
  });
}

/** The schema a `/definitions/...` pointer designates. */
function schemaAt(pointer: string, schemas: Map<string, JsonObject>): JsonObject | undefined {
  const [, , name, ...rest] = pointer.split("/").map(unescape);
  let node: Json | undefined = name === undefined ? undefined : schemas.get(name);
  for (const segment of rest) {
    if (Array.isArray(node)) node = node[Number(segment)];
    else if (isObject(node)) node = node[segment];
    else return undefined;
  }
  return isObject(node) ? node : undefined;
}

function dispatchSummary(d: UnionDispatch): DispatchSummary {
  return { kind: d.kind, property: d.kind === "tag" ? d.property : null };
}

/** `/definitions/X` → `X`; `/definitions/X/properties/result` → `X.result`; `/items` → `[]`. */
export function pointerLabel(pointer: string): string {
  const segments = pointer.split("/").slice(2).map(unescape);
  let label = segments.shift() ?? pointer;
  while (segments.length > 0) {
    const segment = segments.shift() as string;
    if (segment === "properties" && segments.length > 0) label += `.${segments.shift() as string}`;
    else if (segment === "items") label += "[]";
    else if ((segment === "anyOf" || segment === "oneOf" || segment === "allOf") && segments.length > 0) label += `.${segment}[${segments.shift() as string}]`;
    else label += `/${segment}`;
  }
  return label;
}

function unescape(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}

function escape(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

// --- errors ---------------------------------------------------------------------------------------

function diffErrors(a: ProtocolIR, b: ProtocolIR): SpecDiff["errors"] {
  const byCodeA = new Map(a.errors.map((e) => [e.code, e]));
  const byCodeB = new Map(b.errors.map((e) => [e.code, e]));
  const added = [...byCodeB.values()].filter((e) => !byCodeA.has(e.code)).map(errorSummary);
  const removed = [...byCodeA.values()].filter((e) => !byCodeB.has(e.code)).map(errorSummary);
  const changed: ErrorChange[] = [];
  for (const eb of byCodeB.values()) {
    const ea = byCodeA.get(eb.code);
    if (!ea) continue;
    const changes: ErrorChange["changes"] = [];
    if (ea.name !== eb.name) changes.push({ field: "name", from: ea.name, to: eb.name });
    if (ea.defaultMessage !== eb.defaultMessage) changes.push({ field: "message", from: ea.defaultMessage ?? null, to: eb.defaultMessage ?? null });
    if (changes.length > 0) changed.push({ code: eb.code, changes });
  }
  const byCode = (x: { code: number }, y: { code: number }) => y.code - x.code;
  return { added: added.sort(byCode), removed: removed.sort(byCode), changed: changed.sort(byCode) };
}

function errorSummary(e: ErrorInfo): ErrorSummary {
  return { code: e.code, name: e.name, message: e.defaultMessage ?? null };
}
