import type { ProtocolIR } from "../ir/types.js";
import type { TemplateRenderer } from "./templates.js";

/** `SendMessageRequest` → `sendMessage`: a client method is named from its request definition. */
export function clientMethodName(requestType: string): string {
  const stem = requestType.replace(/Request$/, "");
  return stem.charAt(0).toLowerCase() + stem.slice(1);
}

export function clientView(ir: ProtocolIR) {
  const methods = ir.methods.map((m) => ({
    name: clientMethodName(m.requestType),
    method: JSON.stringify(m.method),
    streaming: m.streaming,
    hasParams: m.hasParams,
    description: m.description ? `\`${m.method}\`: ${m.description.replace(/^Represents a JSON-RPC request for the `[^`]+` method\.?\s*/, "")}`.trim() : `\`${m.method}\``,
  }));
  const names = new Set<string>();
  for (const m of methods) {
    if (names.has(m.name) || ["call", "stream", "transport", "endpoint", "options", "card"].includes(m.name)) {
      throw new Error(`two methods would be the client method "${m.name}"`);
    }
    names.add(m.name);
  }
  const send = ir.methods.find((m) => m.method === ir.profile.methods.send);
  const stream = ir.methods.find((m) => m.method === ir.profile.methods.stream);
  return {
    specVersion: ir.specVersion,
    wellKnownAgentCardPath: ir.facts.wellKnownAgentCardPath,
    sendMethod: send ? clientMethodName(send.requestType) : "call",
    sendRpc: send?.method,
    sendRpcLiteral: send ? JSON.stringify(send.method) : "",
    streamMethod: stream ? clientMethodName(stream.requestType) : "stream",
    methods,
    errors: ir.errors.map((e) => ({ className: `A2A${e.name.replace(/Error$/, "")}Error`, code: e.code, description: e.description })),
  };
}

export function emitClient(ir: ProtocolIR, templates: TemplateRenderer, header: string): string {
  return templates.render("client/client.ts.hbs", { header, ...clientView(ir) });
}
