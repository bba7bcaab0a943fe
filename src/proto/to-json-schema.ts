import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import type protobuf from "protobufjs";
import { protobufjs } from "./protobufjs.js";
import { CodegenError } from "../errors.js";
import { closestName } from "../closest-name.js";
import { BUNDLED_SCHEMA_DIR } from "../schema/paths.js";
import { cleanComment, enumSchema, isRequired, messageSchema, wellKnown, withDescription, type RefTo, type Schema } from "./message-schema.js";
import { JSONRPC_ERRORS, ROLE_METHODS, type JsonRpcErrorFact } from "./binding.js";

/**
 * The proto front end: A2A 1.0 is specified as a protobuf file (`a2a.proto`) plus a JSON-RPC binding in the
 * specification text; the rest of a2a-codegen reads a draft-07 JSON Schema with `definitions`. This turns the
 * proto into that schema (the protocol objects in ProtoJSON form, plus the JSON-RPC envelopes and errors of
 * the binding) and into the version's overlay (the facts file of `src/ir/overlay.ts`).
 *
 * Pure: it reads the proto and its imports, touches nothing else, and returns the same bytes for the same
 * input. Protobufjs parses (with its bundled google/protobuf well-known types); the google/api imports of
 * a2a.proto are read from `schema/proto/` (minimal declarations) unless an include folder provides them.
 */
export interface ProtoConversion {
  /** Draft-07 JSON Schema with every type in "definitions" (sorted by name). */
  schema: Record<string, unknown>;
  /** The facts file (`a2a-<version>.overlay.json`), see src/ir/overlay.ts. */
  overlay: Record<string, unknown>;
  /** Things converted by a fallback or left out, for the user to read. */
  warnings: string[];
}

export interface ProtoConversionOptions {
  /** Folders searched for imports, before the proto's own folder and the bundled `schema/proto`. */
  includeDirs?: string[];
  /** The spec version the overlay names; by default read from a file name like `a2a-1.0.1.proto`. */
  version?: string;
}

/** Where the minimal google/api declarations a2a.proto imports are kept. */
export const BUNDLED_PROTO_INCLUDE_DIR = join(BUNDLED_SCHEMA_DIR, "proto");

const WELL_KNOWN_AGENT_CARD_PATH = "/.well-known/agent-card.json";
const DEFAULT_VERSION = "1.0.1";

export function protoToJsonSchema(protoPath: string, options: ProtoConversionOptions = {}): ProtoConversion {
  const warnings: string[] = [];
  const mainFile = resolve(protoPath);
  const fileName = basename(mainFile);
  const loaded = loadProto(mainFile, options.includeDirs ?? []);
  const { root } = loaded;

  // Which types get a definition: every message and enum of the main file, and every type they (or the
  // service) reference that is not a well-known type rendered inline.
  const all = collectTypes(root);
  const selected = new Map<string, protobuf.Type | protobuf.Enum>();
  const queue: Array<protobuf.Type | protobuf.Enum> = all.filter((t) => t.filename === loaded.files.get(mainFile));
  const services = collectServices(root).filter((s) => s.filename === loaded.files.get(mainFile));
  for (const service of services) {
    for (const method of service.methodsArray) {
      method.resolve();
      for (const type of [method.resolvedRequestType, method.resolvedResponseType]) if (type) queue.push(type);
    }
  }
  while (queue.length > 0) {
    const type = queue.shift() as protobuf.Type | protobuf.Enum;
    if (selected.has(type.fullName) || wellKnown(type.fullName) !== undefined) continue;
    selected.set(type.fullName, type);
    if (type instanceof protobufjs().Type) {
      for (const field of type.fieldsArray) {
        field.resolve();
        if (field.resolvedType) queue.push(field.resolvedType);
      }
    }
  }

  // Names: the proto name within its package, nested names joined (Outer.Inner → OuterInner).
  const names = new Map<string, string>(); // full name → definition
  const owners = new Map<string, string>(); // definition → full name
  for (const fullName of [...selected.keys()].sort()) {
    const type = selected.get(fullName) as protobuf.Type | protobuf.Enum;
    const pkg = loaded.packages.get(type.filename ?? "") ?? "";
    const relative = fullName.replace(/^\./, "").slice(pkg ? pkg.length + 1 : 0);
    const name = relative.split(".").join("");
    claim(owners, name, `proto ${type instanceof protobufjs().Enum ? "enum" : "message"} ${fullName.replace(/^\./, "")}`);
    names.set(fullName, name);
  }
  const refTo = (type: protobuf.Type | protobuf.Enum): Schema => {
    const inline = wellKnown(type.fullName);
    if (inline) return inline();
    const name = names.get(type.fullName);
    if (name === undefined) throw new Error(`internal: ${type.fullName} was not selected`);
    return { $ref: `#/definitions/${name}` };
  };

  const definitions: Record<string, Schema> = {};
  for (const [fullName, type] of selected) {
    const name = names.get(fullName) as string;
    definitions[name] = type instanceof protobufjs().Enum ? enumSchema(type) : messageSchema(type, refTo, warnings);
  }

  // The JSON-RPC binding (specification §9): one request, success response and response per rpc.
  const rpcs: Rpc[] = [];
  const methodOwner = new Map<string, string>();
  for (const service of services) {
    for (const method of service.methodsArray) {
      const other = methodOwner.get(method.name);
      if (other !== undefined) {
        throw new CodegenError(`rpc "${method.name}" is declared by both ${other} and ${service.fullName.replace(/^\./, "")}: JSON-RPC method names must be unique`, { file: fileName });
      }
      methodOwner.set(method.name, service.fullName.replace(/^\./, ""));
      rpcs.push({
        name: method.name,
        description: cleanComment(method.comment),
        input: method.resolvedRequestType as protobuf.Type,
        output: method.resolvedResponseType as protobuf.Type,
        streaming: method.responseStream === true,
      });
    }
  }
  if (rpcs.length === 0) warnings.push(`${fileName} declares no service: the schema has no JSON-RPC methods`);
  for (const [name, schema] of Object.entries(bindingDefinitions(rpcs, refTo, names))) {
    claim(owners, name, `the JSON-RPC binding's "${name}"`);
    definitions[name] = schema;
  }

  const sorted: Record<string, Schema> = {};
  for (const name of Object.keys(definitions).sort()) sorted[name] = definitions[name] as Schema;

  const version = options.version ?? /^a2a-(\d+\.\d+\.\d+)\.proto$/.exec(fileName)?.[1];
  if (version === undefined) warnings.push(`no version in the file name "${fileName}" (a2a-<version>.proto) nor in the options: the overlay says ${DEFAULT_VERSION}`);
  const methodNames = new Set(rpcs.map((r) => r.name));
  const roles: Record<string, string> = {};
  for (const [role, method] of ROLE_METHODS) {
    if (methodNames.has(method)) roles[role] = method;
    else warnings.push(`no rpc "${method}" in ${fileName}: the overlay has no "${role}" role`);
  }
  const overlay = {
    $comment: `Facts of A2A ${version ?? DEFAULT_VERSION} derived from ${fileName} by a2a-codegen's proto front end (src/proto): streaming methods are the rpcs that return a stream; roles name what each rpc does.`,
    version: version ?? DEFAULT_VERSION,
    wellKnownAgentCardPath: WELL_KNOWN_AGENT_CARD_PATH,
    streamingMethods: rpcs.filter((r) => r.streaming).map((r) => r.name),
    responses: {},
    roles,
    // Since 1.0 the client names the protocol version it speaks (A2A-Version service parameter, §3.2.6).
    versionHeader: "A2A-Version",
    // ProtoJSON: a field with its default value (an empty list) is left out, not written empty.
    protoJson: true,
    // §3.4.2: "Task IDs are server-generated when a new task is created": a send naming one is refused.
    serverGeneratedTaskIds: true,
    // A streaming call that fails before its first event is a plain JSON-RPC error response (what the 1.x
    // SDKs and the TCK expect); 0.x frames it as one SSE error event (docs/interop.md, "Stream errors").
    streamErrorsAsResponse: true,
    // §3.2.6 / §14.2.2: the service parameter naming the extensions a client activates.
    extensionsHeader: "A2A-Extensions",
    // §3.2.2 SendMessageConfiguration: "return_immediately" true asks not to wait for the task (default: wait).
    nonBlocking: { field: "returnImmediately", value: true },
  };

  const schema = {
    $schema: "http://json-schema.org/draft-07/schema#",
    $comment:
      `Generated by a2a-codegen from ${fileName} (Protocol Buffers; ProtoJSON field names and values) and the JSON-RPC binding of the ` +
      `A2A specification text (method names, envelopes, error codes). Do not edit: regenerate with \`a2a-codegen schema --from-proto\`.`,
    definitions: sorted,
  };
  return { schema, overlay, warnings };
}

// ---------------------------------------------------------------------------------------------------
// Loading

interface Loaded {
  root: protobuf.Root;
  /** absolute path → the name protobufjs records as the types' `filename` */
  files: Map<string, string>;
  /** `filename` → proto package */
  packages: Map<string, string>;
}

function loadProto(mainFile: string, includeDirs: string[]): Loaded {
  const root = new (protobufjs().Root)();
  const files = new Map<string, string>();
  const packages = new Map<string, string>();
  const search = [...includeDirs.map((d) => resolve(d)), dirname(mainFile), BUNDLED_PROTO_INCLUDE_DIR];
  const visiting = new Set<string>();

  const visit = (path: string, shownAs: string): void => {
    if (files.has(path)) return;
    if (visiting.has(path)) throw new CodegenError(`import cycle through ${shownAs}`, { file: shownAs });
    visiting.add(path);
    let source: string;
    try {
      source = readFileSync(path, "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new CodegenError(code === "ENOENT" ? "proto file not found" : `proto file cannot be read (${code ?? String(error)})`, { file: shownAs, cause: error });
    }
    let parsed: protobuf.IParserResult;
    try {
      (protobufjs().parse as unknown as { filename: string | null }).filename = shownAs;
      parsed = protobufjs().parse(source, root, { keepCase: true, alternateCommentMode: true });
    } catch (error) {
      throw new CodegenError(`not a valid proto file: ${error instanceof Error ? error.message : String(error)}`, { file: shownAs, cause: error });
    } finally {
      (protobufjs().parse as unknown as { filename: string | null }).filename = null;
    }
    files.set(path, shownAs);
    packages.set(shownAs, parsed.package ?? "");
    for (const imported of [...(parsed.imports ?? []), ...(parsed.weakImports ?? [])]) {
      const bundled = protobufjs().common.get(imported);
      if (bundled) {
        const key = `common:${imported}`;
        if (!files.has(key)) {
          files.set(key, imported);
          packages.set(imported, "google.protobuf");
          root.addJSON(bundled.nested ?? {});
        }
        continue;
      }
      const found = isAbsolute(imported) ? (existsSync(imported) ? imported : undefined) : search.map((dir) => join(dir, imported)).find((p) => existsSync(p));
      if (found === undefined) {
        throw new CodegenError(`cannot find import "${imported}"; looked in ${search.join(", ")} (pass includeDirs for other folders)`, { file: shownAs });
      }
      visit(found, imported);
    }
    visiting.delete(path);
  };
  visit(mainFile, basename(mainFile));
  try {
    root.resolveAll();
  } catch (error) {
    throw unresolvedType(error, root, files) ?? new CodegenError(`the proto does not resolve: ${error instanceof Error ? error.message : String(error)}`, { file: basename(mainFile), cause: error });
  }
  return { root, files, packages };
}

/**
 * protobufjs's "no such Type or Enum 'Partt' in Type .pkg.Message" as a user can act on it: the file, the
 * line and column of the field's type, the field, and the closest type name. Undefined for other errors.
 */
function unresolvedType(error: unknown, root: protobuf.Root, files: ReadonlyMap<string, string>): CodegenError | undefined {
  const m = /no such Type or Enum '([^']+)' in Type \.?(\S+)/.exec(error instanceof Error ? error.message : String(error));
  if (!m) return undefined;
  const [, name, owner] = m as unknown as [string, string, string];
  const type = root.lookup(owner) as protobuf.Type | null;
  const shownAs = type?.filename ?? undefined;
  const path = [...files].find(([, shown]) => shown === shownAs)?.[0];
  const simple = owner.split(".").pop() as string;
  let at = "";
  let field = "";
  if (path !== undefined) {
    const lines = readFileSync(path, "utf8").split("\n");
    const declared = lines.findIndex((line) => new RegExp(`^\\s*message\\s+${simple}\\b`).test(line));
    const token = new RegExp(`(^|[\\s(<,])${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?=[\\s,>])`);
    for (let i = Math.max(declared, 0); i < lines.length; i++) {
      const line = (lines[i] as string).replace(/\/\/.*$/, "");
      const found = token.exec(line);
      if (!found) continue;
      at = ` at line ${i + 1}, column ${found.index + (found[1] as string).length + 1}`;
      field = new RegExp(`${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}>?\\s+(\\w+)\\s*=`).exec(line)?.[1] ?? "";
      break;
    }
  }
  const known = collectTypes(root).map((t) => t.name);
  const suggestion = closestName(name.split(".").pop() as string, known);
  const what = field ? `field ${owner}.${field} has type "${name}"` : `a field of ${owner} has type "${name}"`;
  return new CodegenError(`the proto does not resolve${at}: ${what}, which is no message or enum${suggestion ? `; did you mean "${suggestion}"?` : ""}`, {
    file: shownAs ?? undefined,
    cause: error,
  });
}

function collectTypes(ns: protobuf.NamespaceBase): Array<protobuf.Type | protobuf.Enum> {
  const out: Array<protobuf.Type | protobuf.Enum> = [];
  for (const child of ns.nestedArray) {
    if (child instanceof protobufjs().Type || child instanceof protobufjs().Enum) out.push(child);
    if (child instanceof protobufjs().Namespace || child instanceof protobufjs().Type) out.push(...collectTypes(child));
  }
  return out;
}

function collectServices(ns: protobuf.NamespaceBase): protobuf.Service[] {
  const out: protobuf.Service[] = [];
  for (const child of ns.nestedArray) {
    if (child instanceof protobufjs().Service) out.push(child);
    else if (child instanceof protobufjs().Namespace || child instanceof protobufjs().Type) out.push(...collectServices(child));
  }
  return out;
}

function claim(owners: Map<string, string>, name: string, owner: string): void {
  const other = owners.get(name);
  if (other !== undefined) {
    throw new CodegenError(`definition name "${name}" would be used twice: by ${other} and by ${owner}; rename one of them`);
  }
  owners.set(name, owner);
}

// ---------------------------------------------------------------------------------------------------
// The JSON-RPC binding

interface Rpc {
  name: string;
  description: string | undefined;
  input: protobuf.Type;
  output: protobuf.Type;
  streaming: boolean;
}

const JSONRPC = { description: 'The version of the JSON-RPC protocol. MUST be exactly "2.0".', type: "string", const: "2.0" };
const REQUEST_ID = { description: "The identifier established by the client.", type: ["string", "integer"] };
const RESPONSE_ID = { description: "The identifier of the request this answers (null when it could not be read).", type: ["string", "integer", "null"] };

function hasRequiredField(type: protobuf.Type): boolean {
  return type.fieldsArray.some((f) => isRequired(f)) || type.oneofsArray.some((o) => !o.fieldsArray.every((f) => f.options?.proto3_optional === true));
}

function bindingDefinitions(rpcs: Rpc[], refTo: RefTo, names: Map<string, string>): Record<string, Schema> {
  const defs: Record<string, Schema> = {};
  const requests: string[] = [];
  const successes: string[] = [];
  for (const rpc of rpcs) {
    const request = `${rpc.name}RpcRequest`;
    const success = `${rpc.name}RpcSuccessResponse`;
    const response = `${rpc.name}RpcResponse`;
    const inName = names.get(rpc.input.fullName) ?? rpc.input.fullName.replace(/^\./, "");
    const outName = names.get(rpc.output.fullName) ?? rpc.output.fullName.replace(/^\./, "");
    const doc = rpc.description ? ` ${rpc.description}` : "";
    // JSON-RPC 2.0 lets a request omit params; the binding's own GetExtendedAgentCard example does. Params
    // are required only when the request message has a required field (an absent params could not be valid).
    const paramsRequired = hasRequiredField(rpc.input);
    defs[request] = {
      description: `JSON-RPC request of the \`${rpc.name}\` method (A2A JSON-RPC binding).${doc}`,
      type: "object",
      properties: {
        jsonrpc: JSONRPC,
        id: REQUEST_ID,
        method: { description: `The method name: "${rpc.name}".`, type: "string", const: rpc.name },
        params: withDescription(refTo(rpc.input), `The ${inName} message, in ProtoJSON.${paramsRequired ? "" : " May be omitted: it has no required field."}`),
      },
      required: paramsRequired ? ["jsonrpc", "id", "method", "params"] : ["jsonrpc", "id", "method"],
    };
    defs[success] = {
      description: rpc.streaming
        ? `One event of the \`${rpc.name}\` stream (a Server-Sent Events \`data:\` payload): its result is a ${outName}.`
        : `Successful JSON-RPC response of the \`${rpc.name}\` method: its result is a ${outName}.`,
      type: "object",
      properties: {
        jsonrpc: JSONRPC,
        id: RESPONSE_ID,
        result: withDescription(refTo(rpc.output), `The ${outName} message, in ProtoJSON.`),
      },
      required: ["jsonrpc", "id", "result"],
    };
    defs[response] = {
      description: `JSON-RPC response of the \`${rpc.name}\` method${rpc.streaming ? " (each event of its stream)" : ""}: a success or an error.`,
      anyOf: [{ $ref: "#/definitions/JSONRPCErrorResponse" }, { $ref: `#/definitions/${success}` }],
    };
    requests.push(request);
    successes.push(success);
  }
  if (rpcs.length > 0) {
    defs.A2ARequest = {
      description: "Any JSON-RPC request of the A2A protocol, told apart by `method`.",
      anyOf: requests.map((r) => ({ $ref: `#/definitions/${r}` })),
    };
    defs.JSONRPCResponse = {
      description: "Any JSON-RPC response of the A2A protocol: an error, or the success response of one of its methods.",
      anyOf: [{ $ref: "#/definitions/JSONRPCErrorResponse" }, ...successes.map((s) => ({ $ref: `#/definitions/${s}` }))],
    };
  }
  defs.JSONRPCError = {
    description: "A JSON-RPC 2.0 error object. The A2A binding puts error details in `data` as an array of objects, each with an `@type` (ProtoJSON `Any`).",
    type: "object",
    properties: {
      code: { description: "A number that indicates the error type that occurred.", type: "integer" },
      message: { description: "A short description of the error.", type: "string" },
      data: { description: "Additional information about the error; in A2A, an array of objects each with an `@type` key." },
    },
    required: ["code", "message"],
  };
  defs.JSONRPCErrorResponse = {
    description: "A JSON-RPC 2.0 error response.",
    type: "object",
    properties: {
      jsonrpc: JSONRPC,
      id: RESPONSE_ID,
      error: {
        description: "The error that occurred.",
        anyOf: [{ $ref: "#/definitions/JSONRPCError" }, ...JSONRPC_ERRORS.map((e) => ({ $ref: `#/definitions/${e.name}` }))],
      },
    },
    required: ["jsonrpc", "id", "error"],
  };
  for (const error of JSONRPC_ERRORS) defs[error.name] = errorSchema(error);
  return defs;
}

function errorSchema(error: JsonRpcErrorFact): Schema {
  return {
    description: `${error.description} (JSON-RPC error code ${error.code}${error.a2a ? ", an A2A-specific error" : ""}.)`,
    type: "object",
    properties: {
      code: { description: `Always ${error.code}.`, type: "integer", const: error.code },
      message: { description: "A short description of the error.", type: "string", default: error.message },
      data: {
        description: "Error details: objects each naming its type in `@type` (ProtoJSON `Any`), e.g. google.rpc.ErrorInfo or google.rpc.BadRequest.",
        type: "array",
        items: { type: "object", properties: { "@type": { type: "string" } }, required: ["@type"] },
      },
    },
    required: ["code", "message"],
  };
}
