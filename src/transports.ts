/**
 * The protocol bindings a generation can ask for (`--transports`, the config's `transports`), by the
 * spec's protocolBinding names lower-cased: JSONRPC, HTTP+JSON (REST) and GRPC (specification-1.0.1.md §5).
 */
export const TRANSPORTS = ["jsonrpc", "rest", "grpc"] as const;
export type Transport = (typeof TRANSPORTS)[number];
