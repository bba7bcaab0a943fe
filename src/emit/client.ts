import { CodegenError } from "../errors.js";
import { errorClasses } from "./error-classes.js";
import type { MethodInfo, ProtocolIR } from "../ir/types.js";
import { SHAPES_BY_VERSION } from "./grpc.js";
import { httpRoutesFor } from "./protocol.js";
import type { TemplateRenderer } from "./templates.js";

/**
 * The client method of a protocol method, one rule for every version: the lowerCamelCase of the
 * operation's name. The operation is the method itself when it is an identifier (1.0's `SendMessage`);
 * a 0.x method is a path (`message/send`), whose operation the schema names in its request definition
 * (`SendMessageRequest`, less the `Request`). So `SendMessage` and `message/send` are both `sendMessage`.
 */
export function clientMethodName(method: Pick<MethodInfo, "method" | "requestType">): string {
  const operation = /^[A-Za-z_$][\w$]*$/.test(method.method) ? method.method : method.requestType.replace(/Request$/, "");
  return operation.charAt(0).toLowerCase() + operation.slice(1);
}

/**
 * The doc comment of a client method: "`method`: what it does", without the schema's boilerplate that
 * names the method again ("JSON-RPC request of the `SendMessage` method (A2A JSON-RPC binding).",
 * "Represents a JSON-RPC request for the `tasks/get` method.").
 */
export function clientMethodDoc(method: Pick<MethodInfo, "method" | "description">): string {
  const rest = (method.description ?? "").replace(/^(?:Represents an? )?JSON-RPC request (?:of|for) the `[^`]+` method(?:\s*\([^)]*\))?\.?\s*/i, "").trim();
  return rest ? `\`${method.method}\`: ${rest}` : `\`${method.method}\``;
}

/** Members every generated client has: a request definition named after one of them is refused. */
const RESERVED_CLIENT_MEMBERS = ["call", "stream", "transport", "endpoint", "options", "card", "getCard", "constructor"];


export function clientView(ir: ProtocolIR) {
  const methods = ir.methods.map((m) => ({
    name: clientMethodName(m),
    method: JSON.stringify(m.method),
    streaming: m.streaming,
    hasParams: m.hasParams,
    description: clientMethodDoc(m),
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
  const sendParamsType = ir.profile.params.send;
  const wrapperKeys = [...new Set(Object.values(ir.profile.resultWrappers).flatMap((wrappers) => Object.values(wrappers ?? {})))].sort();
  return {
    specVersion: ir.specVersion,
    /** Whether the version's proto defines the HTTP+JSON binding (the client then exports `restTransport`). */
    hasHttpRoutes: httpRoutesFor(ir) !== undefined,
    hasWireShapes: httpRoutesFor(ir) !== undefined && SHAPES_BY_VERSION[ir.specVersion] !== undefined,
    /** The extended card method, as a string literal (its response text gets the public card's duplicate-member check); "" without one. */
    extendedCardMethod: ir.profile.methods.extendedCard === undefined ? "" : JSON.stringify(ir.profile.methods.extendedCard),
    wellKnownAgentCardPath: ir.facts.wellKnownAgentCardPath,
    /** The core definitions by role (the schema may name them otherwise than Message, Task, ...). */
    types: ir.core,
    sendMethod: send ? clientMethodName(send) : "call",
    sendRpc: send && sendParamsType ? send.method : undefined,
    sendRpcLiteral: send ? JSON.stringify(send.method) : "",
    sendParamsType,
    streamMethod: stream ? clientMethodName(stream) : "stream",
    wrapperKeys: wrapperKeys.map((key) => JSON.stringify(key)),
    methods,
    errors: errorClasses(ir),
  };
}

export function emitClient(ir: ProtocolIR, templates: TemplateRenderer, header: string, telemetry = false): string {
  return templates.render("client/client.ts.hbs", { header, ...clientView(ir), telemetry });
}

/** client-validation.ts: the client's opt-in schema checks (the only client file that imports validators.ts). */
export function emitClientValidation(templates: TemplateRenderer, header: string): string {
  return templates.render("client/client-validation.ts.hbs", { header });
}
