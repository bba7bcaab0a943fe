/**
 * The vocabularies of the options: the names a list option (or its config key) may hold. Each is declared
 * once; everything else (option declarations, config validation, the emitters, the scaffold) reads it from
 * here. A leaf for the CLI's light path: node built-ins and other leaves only.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { BindingName } from "../runtime/service/service.js";
import { BUNDLED_SCHEMA_DIR } from "../schema/paths.js";

/**
 * The web frameworks a server adapter is generated for (`--framework`, the config's `frameworks`); `web` is
 * none: the web-standard fetch handler (server/web.ts) for Cloudflare Workers, Deno and Bun.
 */
export const FRAMEWORKS = ["node", "express", "fastify", "hono", "web"] as const;
export type Framework = (typeof FRAMEWORKS)[number];

/** Where an agent `init` scaffolds runs (`--runtime`): Node, or an edge runtime on the web fetch handler (docs/edge.md). */
export const RUNTIMES = ["node", "workers", "deno", "bun"] as const;
export type RuntimeName = (typeof RUNTIMES)[number];

/**
 * The store engines an output can add beside the in-memory store (`--store`, the config's `stores`).
 * `durable-object`: a Cloudflare Durable Object's own SQLite storage (no URL, no package: docs/edge.md).
 */
export const STORES = ["postgres", "mysql", "redis", "sqlite", "durable-object"] as const;
export type StoreEngine = (typeof STORES)[number];
/** The engines a URL names (`connectStore(url)`, A2A_STORE_URL): every one but the Durable Object's storage. */
export type UrlStoreEngine = Exclude<StoreEngine, "durable-object">;
export const URL_STORES: readonly UrlStoreEngine[] = STORES.filter((s): s is UrlStoreEngine => s !== "durable-object");

/** The LLM framework bridges an output can add (`--bridge`, the config's `bridges`): runtime/bridges/<name>.ts. */
export const BRIDGES = ["ai-sdk", "langgraph"] as const;
export type Bridge = (typeof BRIDGES)[number];

/** The agents `init --template` scaffolds: an echo agent (no model), or an LLM agent on the AI SDK or the LangGraph bridge. */
export const TEMPLATES = ["echo", "ai-sdk", "langgraph"] as const;
export type Template = (typeof TEMPLATES)[number];

/**
 * The protocol bindings a generation can ask for (`--transports`, the config's `transports`), by the
 * spec's protocolBinding names lower-cased: JSONRPC, HTTP+JSON (REST) and GRPC (specification-1.0.1.md §5).
 */
export const TRANSPORTS = ["jsonrpc", "rest", "grpc"] as const;
export type Transport = (typeof TRANSPORTS)[number];

/**
 * The spec's protocolBinding name of each transport. `BindingName` is the runtime's own type (the runtime
 * is copied into every output and cannot import the generator): declared there, once.
 */
export const BINDING_OF_TRANSPORT = { jsonrpc: "JSONRPC", rest: "HTTP+JSON", grpc: "GRPC" } as const satisfies Record<Transport, BindingName>;
export type { BindingName };

/** The transport a protocolBinding name is (`HTTP+JSON` → `rest`), undefined for a name of none. */
export function transportOfBinding(binding: string): Transport | undefined {
  return TRANSPORTS.find((t) => BINDING_OF_TRANSPORT[t] === binding.toUpperCase());
}

/**
 * The bindings a bundled version has: JSON-RPC always; HTTP+JSON and gRPC where the version has a proto
 * (1.0.1 is its proto; 0.3.0 has a2a-0.3.0.proto beside its JSON Schema). 0.1.0–0.2.6 have none: JSON-RPC only.
 */
export function bindingsOfVersion(version: string): BindingName[] {
  return existsSync(join(BUNDLED_SCHEMA_DIR, `a2a-${version}.proto`)) ? TRANSPORTS.map((t) => BINDING_OF_TRANSPORT[t]) : ["JSONRPC"];
}
