import { createRequire } from "node:module";
import type { Ajv as AjvClass, Options as AjvOptions } from "ajv";
import { CodegenError } from "../errors.js";
import { standaloneModule } from "./ajv-module.js";
import { COMPACT_HELPERS, compactAjvCode } from "./ajv-compact.js";
import { cacheKey, packageVersion, readCached, writeCached } from "../write/output-cache.js";
import { generatorIdentity } from "../write/up-to-date.js";
import type { ProtocolIR, UnionInfo } from "../ir/types.js";
import { canonicalJson, isObject, type JsonObject } from "../schema/json.js";
import { aliasEnds, aliasOf } from "../ir/aliases.js";
import { objectShape } from "../ir/unions.js";
import { refName } from "../schema/normalize.js";
import { walkSchema } from "../schema/walk.js";
import type { TemplateRenderer } from "./templates.js";

// ajv and its standalone module are CommonJS modules with a `default` export.
const require = createRequire(import.meta.url);
/** Ajv's class, loaded on the first compile (a run whose validators come from the cache never loads Ajv). */
function ajvClass(): new (options: AjvOptions) => AjvClass {
  return (require("ajv") as { default: new (options: AjvOptions) => AjvClass }).default;
}

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

/**
 * validators.ajv.ts: Ajv standalone code, one export per definition, compiled now, never at run time.
 * It is TypeScript (unchecked inside, typed at its exports) so that `tsc` builds it with the rest of a
 * project: a .js file beside .ts sources is not copied to the output by tsc.
 */
export function emitAjvModule(ir: ProtocolIR, header: string): string {
  const schema = withoutAnnotations(validatorSchema(ir));
  // Ajv compiles a referenced definition when it first meets the reference, recursively: compiled
  // leaves first, every reference it meets is already compiled, however long the chain of them is.
  // The module is written in the same order, so that Ajv's writer never follows a chain either.
  const refs: Record<string, string> = {};
  for (const name of leavesFirst(schema.definitions as JsonObject)) refs[compiledName(name)] = `${SCHEMA_ID}#/definitions/${name}`;
  const code = cachedStandalone(schema, refs).replace(
    /export const (\w+) = (\w+);/g,
    (_m, name: string, fn: string) => `export const ${name}: RawValidateFunction = ${fn};`,
  );
  return `${header}\n// @ts-nocheck -- machine code written by Ajv; its exports are typed.\nimport type { RawValidateFunction } from "./runtime/validation.js";\n${code}\n${COMPACT_HELPERS}\n`;
}

/**
 * The schema without the keywords that only document it (descriptions, titles, examples, comments): the
 * compiled code never reads them, and Ajv copies the schema of a function into the module where the
 * function reads an `enum` from it.
 */
function withoutAnnotations(schema: JsonObject): JsonObject {
  return walkSchema(structuredClone(schema), "", (node) => {
    delete node.description;
    delete node.title;
    delete node.examples;
    delete node.$comment;
  });
}

/**
 * The compacted standalone code of the schema, from the cache when this generator (its code, and Ajv's
 * version) compiled this very schema before: Ajv's compile is the costliest step of a cold run.
 */
function cachedStandalone(schema: JsonObject, refs: Record<string, string>): string {
  const key = cacheKey("validators.ajv.ts", generatorIdentity(), packageVersion("ajv"), JSON.stringify(STANDALONE_OPTIONS), JSON.stringify(refs), JSON.stringify(schema));
  const hit = readCached("validators", key);
  if (hit !== undefined) return hit;
  const code = compactAjvCode(esmImports(compileStandalone(schema, refs)));
  writeCached("validators", key, code);
  return code;
}

const STANDALONE_OPTIONS = { ...AJV_OPTIONS, code: { source: true, esm: true, optimize: true } } as const;

/**
 * Ajv's standalone module of the schema's definitions (`refs`: export name → schema id, leaves first).
 * Within a cycle of references Ajv recurses once per definition of the cycle; a cycle of thousands
 * overflows the stack, and is then compiled again in a worker thread with a stack of 512 MB.
 */
function compileStandalone(schema: JsonObject, refs: Record<string, string>): string {
  try {
    const Ajv = ajvClass();
    const ajv = new Ajv({ ...STANDALONE_OPTIONS });
    ajv.addSchema(schema);
    for (const id of Object.values(refs)) ajv.getSchema(id);
    return standaloneModule(ajv, refs);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
  }
  return compileInWorker(schema, refs);
}

const WORKER_SOURCE = `
const { workerData } = require("node:worker_threads");
const { schema, refs, options, ajvPath, standalonePath, port, flag } = workerData;
let answer;
try {
  const Ajv = require(ajvPath).default;
  const standaloneCode = require(standalonePath).default;
  const ajv = new Ajv(options);
  ajv.addSchema(schema);
  for (const id of Object.values(refs)) ajv.getSchema(id);
  answer = { code: standaloneCode(ajv, refs) };
} catch (error) {
  answer = { error: String(error && error.message || error), range: error instanceof RangeError };
}
port.postMessage(answer);
Atomics.store(flag, 0, 1);
Atomics.notify(flag, 0);
`;

function compileInWorker(schema: JsonObject, refs: Record<string, string>): string {
  const { Worker, MessageChannel, receiveMessageOnPort } = require("node:worker_threads") as typeof import("node:worker_threads");
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      schema,
      refs,
      options: STANDALONE_OPTIONS,
      ajvPath: require.resolve("ajv"),
      standalonePath: require.resolve("ajv/dist/standalone/index.js"),
      port: port2,
      flag,
    },
    transferList: [port2],
    resourceLimits: { stackSizeMb: 512 },
  });
  try {
    Atomics.wait(flag, 0, 0, 10 * 60_000);
    const answer = receiveMessageOnPort(port1)?.message as { code?: string; error?: string; range?: boolean } | undefined;
    if (answer?.code !== undefined) return answer.code;
    if (answer?.range) {
      throw new CodegenError("the schema's references nest too deeply for the validators to be compiled (a cycle of too many definitions); shorten the cycle", { pointer: "/definitions" });
    }
    throw new Error(`compiling the validators failed: ${answer?.error ?? "the worker gave no answer"}`);
  } finally {
    void worker.terminate();
    port1.close();
  }
}

/**
 * The definitions in an order where each comes after the definitions it refers to (a depth-first
 * post-order, iterative so that a chain of thousands of references cannot overflow the stack; in a
 * cycle, the order within it is the walk's).
 */
export function leavesFirst(definitions: JsonObject): string[] {
  const order: string[] = [];
  const state = new Map<string, "open" | "done">();
  for (const root of Object.keys(definitions)) {
    if (state.has(root)) continue;
    const stack: Array<{ name: string; refs: string[] }> = [{ name: root, refs: refsOf(definitions[root]) }];
    state.set(root, "open");
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as { name: string; refs: string[] };
      const next = top.refs.pop();
      if (next === undefined) {
        stack.pop();
        state.set(top.name, "done");
        order.push(top.name);
      } else if (!state.has(next) && Object.prototype.hasOwnProperty.call(definitions, next)) {
        state.set(next, "open");
        stack.push({ name: next, refs: refsOf(definitions[next]) });
      }
    }
  }
  return order;
}

/** The definitions a schema refers to, in reverse order of appearance (popped from the end: in order). */
function refsOf(schema: unknown): string[] {
  const refs: string[] = [];
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...node);
    else if (node !== null && typeof node === "object") {
      const ref = refName((node as JsonObject).$ref);
      if (ref !== undefined) refs.push(ref);
      stack.push(...Object.values(node as JsonObject));
    }
  }
  return [...new Set(refs)].reverse();
}

/**
 * Ajv's standalone code still `require`s its runtime helpers (deep equality, unicode length) even in ESM
 * mode; turn those into imports so the module loads as ESM.
 */
function esmImports(code: string): string {
  const imports: string[] = [];
  const body = code.replace(/const (\w+) = require\("([^"]+)"\)(\.default)?;/g, (_m, name: string, module: string, dflt?: string) => {
    const spec = module.endsWith(".js") ? module : `${module}.js`;
    imports.push(dflt ? `import ${name}_module from "${spec}";\nconst ${name} = ${name}_module.default;` : `import ${name} from "${spec}";`);
    return "";
  });
  if (/\brequire\(/.test(body)) throw new Error("Ajv standalone code has a require() a2a-codegen cannot turn into an import");
  return imports.length ? `${imports.join("\n")}\n${body}` : body;
}

/**
 * The export of validators.ajv.ts that validates a definition. Prefixed: an export is a module-scope
 * binding, so a definition named `Array`, `Object` or `JSON` exported as itself would shadow the global
 * that Ajv's code calls (`Array.isArray`) in the whole module.
 */
export function compiledName(definition: string): string {
  return `validate_${definition}`;
}

export function validatorsView(ir: ProtocolIR) {
  return {
    types: ir.types.map((t) => ({ name: t.name, validator: `validate${t.name}`, compiled: compiledName(t.name) })),
    protoJsonDefaults: JSON.stringify(ir.protoJsonDefaults, null, 2),
  };
}

export function emitValidatorFiles(ir: ProtocolIR, templates: TemplateRenderer, header: string): Record<string, string> {
  const view = { header, ...validatorsView(ir) };
  return {
    "validators.ajv.ts": emitAjvModule(ir, header),
    "validators.ts": templates.render("core/validators.ts.hbs", view),
  };
}
