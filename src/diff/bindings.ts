import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { grpcRpcs, irSourcePath, protoPathOf, type GrpcRpcFact } from "../emit/grpc.js";
import type { ProtocolIR } from "../ir/types.js";
import { httpRoutesOf, type HttpRouteFact } from "../proto/binding.js";
import { BUNDLED_SCHEMA_DIR } from "../schema/paths.js";

/**
 * What changed in the protocol bindings between two versions (specification-1.0.1.md §5, §10, §11;
 * specification-0.3.0.md §3.2): which bindings each version defines, the gRPC service and its rpcs, and
 * the HTTP+JSON routes of each rpc. The gRPC and HTTP+JSON bindings come from a version's proto (its
 * source, or the proto bundled beside its JSON Schema); a version without one defines JSON-RPC only.
 * Rpcs are paired by the A2A method they are, through the method pairs of the IR diff (a renamed method's
 * rpc is the same operation), so `TaskSubscription` → `SubscribeToTask` is a rename, not a removal.
 */
export interface BindingsDiff {
  /**
   * The bindings each side defines, by the spec's protocolBinding names; null for a schema file of the
   * user's without a proto beside it (its bindings are not known: nothing is compared).
   */
  from: string[] | null;
  to: string[] | null;
  /** The gRPC service's full name, when both sides have one and it changed. */
  grpcService: { from: string; to: string } | null;
  rpcs: {
    added: RpcSummary[];
    removed: RpcSummary[];
    /** The same operation under another rpc name. */
    renamed: Array<{ from: string; to: string; methodFrom: string; method: string }>;
    /** Same operation, another request/response message or streaming flag. */
    changed: Array<{ rpc: string; field: "requestType" | "responseType" | "streaming"; from: string; to: string }>;
  };
  routes: {
    /** Routes of an rpc the other side lacks, or of an operation the other side has no route for. */
    added: RouteSummary[];
    removed: RouteSummary[];
    /** The routes of one operation, as `VERB path` lists, when they differ. */
    changed: Array<{ rpc: string; from: string[]; to: string[] }>;
  };
}

export interface RpcSummary {
  rpc: string;
  method: string;
  streaming: boolean;
}

export interface RouteSummary {
  rpc: string;
  routes: string[];
}

interface BindingFacts {
  bindings: string[];
  service: string | undefined;
  rpcs: GrpcRpcFact[];
  routes: HttpRouteFact[];
}

function bindingFacts(ir: ProtocolIR): BindingFacts | null {
  const source = irSourcePath(ir);
  const proto = protoPathOf(source);
  if (proto === undefined) {
    // A bundled version without a proto (0.1.0–0.2.6) is JSON-RPC only; a user's schema file says nothing.
    return resolve(dirname(source)) === resolve(BUNDLED_SCHEMA_DIR) ? { bindings: ["JSONRPC"], service: undefined, rpcs: [], routes: [] } : null;
  }
  let rpcs: GrpcRpcFact[];
  let routes: HttpRouteFact[];
  try {
    rpcs = grpcRpcs(proto, ir.specVersion);
    routes = httpRoutesOf(readFileSync(proto, "utf8"));
  } catch {
    // A proto that cannot be read defines no binding the diff can compare.
    return { bindings: ["JSONRPC"], service: undefined, rpcs: [], routes: [] };
  }
  const bindings = ["JSONRPC", ...(routes.length > 0 ? ["HTTP+JSON"] : []), ...(rpcs.length > 0 ? ["GRPC"] : [])];
  const service = rpcs[0]?.path.split("/")[1];
  return { bindings, service, rpcs, routes };
}

const routeText = (r: HttpRouteFact) => `${r.verb} ${r.path}`;
const compare = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);

/** Compares the bindings of two versions; `methodOf` maps a method of `a` to its counterpart in `b`. */
export function diffBindings(a: ProtocolIR, b: ProtocolIR, methodOf: (method: string) => string | undefined): BindingsDiff {
  const knownA = bindingFacts(a);
  const knownB = bindingFacts(b);
  const diff: BindingsDiff = {
    from: knownA?.bindings ?? null,
    to: knownB?.bindings ?? null,
    grpcService: null,
    rpcs: { added: [], removed: [], renamed: [], changed: [] },
    routes: { added: [], removed: [], changed: [] },
  };
  if (!knownA || !knownB) return diff;
  const fa = knownA;
  const fb = knownB;
  if (fa.service !== undefined && fb.service !== undefined && fa.service !== fb.service) diff.grpcService = { from: fa.service, to: fb.service };
  const routesOf = (routes: HttpRouteFact[], rpc: string) => routes.filter((r) => r.method === rpc).map(routeText);
  const summary = (r: GrpcRpcFact): RpcSummary => ({ rpc: r.rpc, method: r.method, streaming: r.streaming });
  const matchedB = new Set<string>();
  const pairs: Array<[GrpcRpcFact, GrpcRpcFact]> = [];
  for (const ra of fa.rpcs) {
    const method = methodOf(ra.method);
    const rb = fb.rpcs.find((r) => r.rpc === ra.rpc && !matchedB.has(r.rpc)) ?? (method !== undefined ? fb.rpcs.find((r) => r.method === method && !matchedB.has(r.rpc)) : undefined);
    if (!rb) {
      diff.rpcs.removed.push(summary(ra));
      continue;
    }
    matchedB.add(rb.rpc);
    pairs.push([ra, rb]);
  }
  for (const rb of fb.rpcs) if (!matchedB.has(rb.rpc)) diff.rpcs.added.push(summary(rb));
  const shortName = (type: string) => type.split(".").pop() ?? type;
  for (const [ra, rb] of pairs) {
    if (ra.rpc !== rb.rpc) diff.rpcs.renamed.push({ from: ra.rpc, to: rb.rpc, methodFrom: ra.method, method: rb.method });
    if (shortName(ra.requestType) !== shortName(rb.requestType)) diff.rpcs.changed.push({ rpc: rb.rpc, field: "requestType", from: shortName(ra.requestType), to: shortName(rb.requestType) });
    if (shortName(ra.responseType) !== shortName(rb.responseType)) diff.rpcs.changed.push({ rpc: rb.rpc, field: "responseType", from: shortName(ra.responseType), to: shortName(rb.responseType) });
    if (ra.streaming !== rb.streaming) diff.rpcs.changed.push({ rpc: rb.rpc, field: "streaming", from: String(ra.streaming), to: String(rb.streaming) });
    const from = routesOf(fa.routes, ra.rpc);
    const to = routesOf(fb.routes, rb.rpc);
    if (from.length === 0 && to.length > 0) diff.routes.added.push({ rpc: rb.rpc, routes: to });
    else if (to.length === 0 && from.length > 0) diff.routes.removed.push({ rpc: ra.rpc, routes: from });
    else if (from.join("\n") !== to.join("\n")) diff.routes.changed.push({ rpc: rb.rpc, from, to });
  }
  for (const r of diff.rpcs.removed) {
    const routes = routesOf(fa.routes, r.rpc);
    if (routes.length > 0) diff.routes.removed.push({ rpc: r.rpc, routes });
  }
  for (const r of diff.rpcs.added) {
    const routes = routesOf(fb.routes, r.rpc);
    if (routes.length > 0) diff.routes.added.push({ rpc: r.rpc, routes });
  }
  // Every list sorted, for the same bytes from the same inputs.
  diff.rpcs.added.sort((x, y) => compare(x.rpc, y.rpc));
  diff.rpcs.removed.sort((x, y) => compare(x.rpc, y.rpc));
  diff.rpcs.renamed.sort((x, y) => compare(x.to, y.to));
  diff.rpcs.changed.sort((x, y) => compare(x.rpc, y.rpc) || compare(x.field, y.field));
  diff.routes.added.sort((x, y) => compare(x.rpc, y.rpc));
  diff.routes.removed.sort((x, y) => compare(x.rpc, y.rpc));
  diff.routes.changed.sort((x, y) => compare(x.rpc, y.rpc));
  return diff;
}

/** Whether the bindings diff reports no change. */
export function isEmptyBindingsDiff(d: BindingsDiff): boolean {
  return (
    (d.from === null || d.to === null || d.from.join() === d.to.join()) &&
    d.grpcService === null &&
    Object.values(d.rpcs).every((l) => l.length === 0) &&
    Object.values(d.routes).every((l) => l.length === 0)
  );
}
