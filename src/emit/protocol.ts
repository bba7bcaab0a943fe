import { existsSync, readFileSync } from "node:fs";
import type { ProtocolIR } from "../ir/types.js";
import { ERROR_STATUS, httpRoutesOf, type HttpRouteFact } from "../proto/binding.js";
import { irSourcePath, methodOfRpc, SHAPES_BY_VERSION } from "./grpc.js";
import type { TemplateRenderer } from "./templates.js";
import { cacheKey, packageVersion, readCachedAs, writeCached } from "../write/output-cache.js";
import { generatorIdentity } from "../write/up-to-date.js";

/**
 * The version's HTTP+JSON routes, from the google.api.http rules of its proto: the source itself (1.0),
 * or the proto bundled beside its JSON Schema (a2a-0.3.0.proto beside a2a-0.3.0.json). None without a proto.
 */
export function httpRoutesFor(ir: ProtocolIR): HttpRouteFact[] | undefined {
  const source = irSourcePath(ir);
  const file = source.endsWith(".proto") ? source : source.replace(/\.json$/, ".proto");
  if (!file.endsWith(".proto") || !existsSync(file)) return undefined;
  const methods = new Set(ir.methods.map((m) => m.method));
  // Only rules whose rpc is a method of the version, by its JSON-RPC name (1.0 names them alike; 0.3.0's
  // table, specification-0.3.0.md §3.5.6), the rpc's name kept where it differs.
  const routes = cachedHttpRoutes(readFileSync(file, "utf8"))
    .map((r): HttpRouteFact => {
      const method = methodOfRpc(ir.specVersion, r.method);
      return method === r.method ? r : { ...r, method, rpc: r.method };
    })
    .filter((r) => methods.has(r.method));
  return routes.length > 0 ? routes : undefined;
}

/**
 * The proto's routes (`httpRoutesOf`), from the output cache when this generator (its code, and
 * protobufjs's version) read this very proto before: a run that has every other step cached then never
 * loads protobufjs.
 */
function cachedHttpRoutes(protoText: string): HttpRouteFact[] {
  const key = cacheKey("http-routes", generatorIdentity(), packageVersion("protobufjs"), protoText);
  const hit = readCachedAs("routes", key, (text) => JSON.parse(text) as HttpRouteFact[]);
  if (hit !== undefined) return hit;
  const routes = httpRoutesOf(protoText);
  writeCached("routes", key, JSON.stringify(routes));
  return routes;
}

/** The view-model of protocol.ts: every decision is made here, the template only lays it out. */
export function protocolView(ir: ProtocolIR) {
  const jsonRpcError = ir.types.some((t) => t.name === "JSONRPCError") ? "Models.JSONRPCError" : "unknown";
  const routes = httpRoutesFor(ir);
  const statuses = ir.errors.filter((e) => ERROR_STATUS[e.name] !== undefined).map((e) => ({ code: e.code, ...(ERROR_STATUS[e.name] as { grpc: string; http: number }) }));
  return {
    httpRoutes: routes ? routes.map((r) => JSON.stringify(r)) : undefined,
    // The translation between the proto's shapes and the JSON-RPC ones, where they differ (0.3.0).
    wireShapes: routes ? SHAPES_BY_VERSION[ir.specVersion] : undefined,
    inputFields: ir.inputFields ? Object.entries(ir.inputFields).map(([name, fields]) => `${JSON.stringify(name)}: ${JSON.stringify(fields)}`) : undefined,
    errorStatus: routes ? statuses.map((s) => `"${s.code}": ${JSON.stringify({ http: s.http, grpc: s.grpc })}`) : undefined,
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
