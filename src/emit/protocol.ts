import type { ProtocolIR } from "../ir/types.js";
import type { TemplateRenderer } from "./templates.js";

/** The view-model of protocol.ts: every decision is made here, the template only lays it out. */
export function protocolView(ir: ProtocolIR) {
  const jsonRpcError = ir.types.some((t) => t.name === "JSONRPCError") ? "Models.JSONRPCError" : "unknown";
  return {
    specVersion: JSON.stringify(ir.specVersion),
    wellKnownAgentCardPath: JSON.stringify(ir.facts.wellKnownAgentCardPath),
    discriminatorField: ir.facts.discriminatorField === undefined ? "undefined" : JSON.stringify(ir.facts.discriminatorField),
    profile: JSON.stringify(ir.profile, null, 2),
    requestUnion: ir.requestUnion,
    responseUnion: ir.responseUnion,
    methods: ir.methods.map((m) => {
      const response = m.responseType ? `Models.${m.responseType}` : undefined;
      return {
        name: JSON.stringify(m.method),
        description: m.description,
        request: `Models.${m.requestType}`,
        params: m.hasParams ? `Models.${m.requestType}["params"]` : "undefined",
        response: response ?? "unknown",
        result: response ? `Extract<${response}, { result: unknown }>["result"]` : "unknown",
        error: response ? `Extract<${response}, { error: unknown }>["error"]` : jsonRpcError,
        streaming: String(m.streaming),
        descriptor: JSON.stringify({
          method: m.method,
          requestType: m.requestType,
          paramsType: m.paramsType ?? null,
          paramsRequired: m.paramsRequired,
          responseType: m.responseType ?? null,
          streaming: m.streaming,
          inRequestUnion: m.inRequestUnion,
        }),
      };
    }),
    errors: ir.errors.map((e) => ({
      name: e.name,
      code: e.code,
      description: e.description,
      entry: JSON.stringify({ name: e.name, code: e.code, message: e.defaultMessage ?? null }),
    })),
  };
}

export function emitProtocol(ir: ProtocolIR, templates: TemplateRenderer, header: string): string {
  return templates.render("core/protocol.ts.hbs", { header, ...protocolView(ir) });
}
