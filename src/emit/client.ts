import type { MethodInfo, ProtocolIR } from "../ir/types.js";
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

const RESERVED = ["call", "stream", "transport", "endpoint", "options", "card", "getCard"];

export function clientView(ir: ProtocolIR) {
  const methods = ir.methods.map((m) => ({
    name: clientMethodName(m),
    method: JSON.stringify(m.method),
    streaming: m.streaming,
    hasParams: m.hasParams,
    description: clientMethodDoc(m),
  }));
  const names = new Set<string>();
  for (const m of methods) {
    if (names.has(m.name) || RESERVED.includes(m.name)) throw new Error(`two methods would be the client method "${m.name}"`);
    names.add(m.name);
  }
  const send = ir.methods.find((m) => m.method === ir.profile.methods.send);
  const stream = ir.methods.find((m) => m.method === ir.profile.methods.stream);
  const sendParamsType = ir.profile.params.send;
  const wrapperKeys = [...new Set(Object.values(ir.profile.resultWrappers).flatMap((wrappers) => Object.values(wrappers ?? {})))].sort();
  return {
    specVersion: ir.specVersion,
    wellKnownAgentCardPath: ir.facts.wellKnownAgentCardPath,
    sendMethod: send ? clientMethodName(send) : "call",
    sendRpc: send && sendParamsType ? send.method : undefined,
    sendRpcLiteral: send ? JSON.stringify(send.method) : "",
    sendParamsType,
    streamMethod: stream ? clientMethodName(stream) : "stream",
    wrapperKeys: wrapperKeys.map((key) => JSON.stringify(key)),
    methods,
    errors: ir.errors.map((e) => ({ className: `A2A${e.name.replace(/Error$/, "")}Error`, code: e.code, description: e.description })),
  };
}

export function emitClient(ir: ProtocolIR, templates: TemplateRenderer, header: string): string {
  return templates.render("client/client.ts.hbs", { header, ...clientView(ir) });
}
