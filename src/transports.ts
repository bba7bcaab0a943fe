import { existsSync } from "node:fs";
import { join } from "node:path";
import { BUNDLED_SCHEMA_DIR } from "./schema/paths.js";

/**
 * The protocol bindings a generation can ask for (`--transports`, the config's `transports`), by the
 * spec's protocolBinding names lower-cased: JSONRPC, HTTP+JSON (REST) and GRPC (specification-1.0.1.md §5).
 */
export const TRANSPORTS = ["jsonrpc", "rest", "grpc"] as const;
export type Transport = (typeof TRANSPORTS)[number];

/** The spec's protocolBinding names, in the order `versions` lists them. */
export type BindingName = "JSONRPC" | "HTTP+JSON" | "GRPC";

/**
 * The bindings a bundled version has: JSON-RPC always; HTTP+JSON and gRPC where the version has a proto
 * (1.0.1 is its proto; 0.3.0 has a2a-0.3.0.proto beside its JSON Schema). 0.1.0–0.2.6 have none: JSON-RPC only.
 */
export function bindingsOfVersion(version: string): BindingName[] {
  return existsSync(join(BUNDLED_SCHEMA_DIR, `a2a-${version}.proto`)) ? ["JSONRPC", "HTTP+JSON", "GRPC"] : ["JSONRPC"];
}
