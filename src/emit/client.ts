import { CodegenError } from "../errors.js";
import type { ProtocolIR } from "../ir/types.js";
import type { TemplateRenderer } from "./templates.js";

/** `SendMessageRequest` → `sendMessage`: a client method is named from its request definition. */
export function clientMethodName(requestType: string): string {
  const stem = requestType.replace(/Request$/, "");
  return stem.charAt(0).toLowerCase() + stem.slice(1);
}

/** Classes client.ts declares or re-exports itself: an error definition must not become one of them. */
const CLIENT_CLASSES = ["A2AClient", "A2AJsonRpcError", "A2ATransportError", "A2AResponseValidationError"];

/** One error class per error definition (`TaskNotFoundError` → `A2ATaskNotFoundError`), each name once. */
function errorClasses(ir: ProtocolIR) {
  const seen = new Map<string, string>();
  return ir.errors.map((e) => {
    const className = `A2A${e.name.replace(/Error$/, "")}Error`;
    const at = { file: ir.source.file, pointer: `/definitions/${e.name}` };
    const other = seen.get(className);
    if (other !== undefined) throw new CodegenError(`error definitions "${other}" and "${e.name}" would both be the client's error class "${className}"; rename one of them`, at);
    if (CLIENT_CLASSES.includes(className)) throw new CodegenError(`error definition "${e.name}" would be the client's error class "${className}", which the client already has; rename it`, at);
    seen.set(className, e.name);
    return { className, code: e.code, description: e.description };
  });
}

/** Members every generated client has: a request definition named after one of them is refused. */
const RESERVED_CLIENT_MEMBERS = ["call", "stream", "transport", "endpoint", "options", "card", "constructor"];

/** A client method's JSDoc: the JSON-RPC method, then what the request's description says beyond "a request for it". */
function methodDoc(method: string, description: string | undefined): string {
  const rest = (description ?? "").replace(/^Represents a JSON-RPC request for the `[^`]+` method\.?\s*/, "").trim();
  return rest ? `\`${method}\`: ${rest}` : `\`${method}\``;
}

export function clientView(ir: ProtocolIR) {
  const methods = ir.methods.map((m) => ({
    name: clientMethodName(m.requestType),
    method: JSON.stringify(m.method),
    streaming: m.streaming,
    hasParams: m.hasParams,
    description: methodDoc(m.method, m.description),
  }));
  const names = new Map<string, string>();
  ir.methods.forEach((m, i) => {
    const name = methods[i]?.name ?? "";
    const at = { file: ir.source.file, pointer: `/definitions/${m.requestType}` };
    const other = names.get(name);
    if (other !== undefined) {
      throw new CodegenError(`request "${m.requestType}" and request "${other}" would both be the client method "${name}"; rename one of them`, at);
    }
    if (RESERVED_CLIENT_MEMBERS.includes(name) || !/^[A-Za-z_$][\w$]*$/.test(name)) {
      throw new CodegenError(`request "${m.requestType}" would be the client method "${name}", which the client already has or cannot name a method; rename the request`, at);
    }
    names.set(name, m.requestType);
  });
  const send = ir.methods.find((m) => m.method === ir.profile.methods.send);
  const stream = ir.methods.find((m) => m.method === ir.profile.methods.stream);
  return {
    specVersion: ir.specVersion,
    wellKnownAgentCardPath: ir.facts.wellKnownAgentCardPath,
    /** The core definitions by role (the schema may name them otherwise than Message, Task, ...). */
    types: ir.core,
    sendMethod: send ? clientMethodName(send.requestType) : "call",
    sendRpc: send?.method,
    sendRpcLiteral: send ? JSON.stringify(send.method) : "",
    streamMethod: stream ? clientMethodName(stream.requestType) : "stream",
    methods,
    errors: errorClasses(ir),
  };
}

export function emitClient(ir: ProtocolIR, templates: TemplateRenderer, header: string): string {
  return templates.render("client/client.ts.hbs", { header, ...clientView(ir) });
}
