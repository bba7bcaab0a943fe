import { createRequire } from "node:module";
import type { Ajv as AjvClass, Options as AjvOptions } from "ajv";
import { CodegenError } from "../errors.js";
import { standaloneModule } from "./ajv-module.js";
import { COMPACT_HELPERS, compactAjvCode } from "./ajv-compact.js";
import { cacheKey, packageVersion, readCached, writeCached } from "../write/output-cache.js";
import { generatorIdentity } from "../write/up-to-date.js";
import type { ProtocolIR } from "../ir/types.js";
import { AJV_OPTIONS, SCHEMA_ID, validatorSchema } from "../ir/validator-schema.js";
import type { JsonObject } from "../schema/json.js";
import { refName } from "../schema/normalize.js";
import { walkSchema } from "../schema/walk.js";
import type { TemplateRenderer } from "./templates.js";

// ajv and its standalone module are CommonJS modules with a `default` export.
const require = createRequire(import.meta.url);
/** Ajv's class, loaded on the first compile (a run whose validators come from the cache never loads Ajv). */
function ajvClass(): new (options: AjvOptions) => AjvClass {
  return (require("ajv") as { default: new (options: AjvOptions) => AjvClass }).default;
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

/**
 * `validateSchema: false`: the schema compiled here is built by the generator from one that was already
 * checked against the meta-schema (a user's file, load/meta-schema.ts) or is bundled. Checking it again
 * would compile the draft-07 meta-schema's own validator on every first run (about a fifth of Ajv's time);
 * strict mode still refuses an unknown keyword or a bad type while compiling.
 */
const STANDALONE_OPTIONS = { ...AJV_OPTIONS, validateSchema: false, code: { source: true, esm: true, optimize: true } } as const;

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
    "proto-defaults.ts": templates.render("core/proto-defaults.ts.hbs", view),
  };
}
