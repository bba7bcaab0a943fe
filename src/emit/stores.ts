
/** The store engines `generate --store` can add to an output (in-memory is always there). */
export const STORES = ["postgres", "redis"] as const;
export type StoreEngine = (typeof STORES)[number];

/** The packages a generated project adds when it chooses an engine (the same versions this repository tests). */
export const STORE_DEPENDENCIES: Record<StoreEngine, { dependencies: Record<string, string>; devDependencies: Record<string, string> }> = {
  postgres: { dependencies: { pg: "^8.23.1" }, devDependencies: { "@types/pg": "^8.23.1" } },
  redis: { dependencies: { "@redis/client": "^6.3.1" }, devDependencies: {} },
};

/** Checks a list of engine names (CLI, config, API); throws a message naming the bad one. */
export function unknownStore(stores: readonly string[]): string | undefined {
  return stores.find((s) => !(STORES as readonly string[]).includes(s));
}

/**
 * `runtime/stores/connect.ts` (a URL to a store, among the chosen engines; their runtime files are the
 * engines' bundles of emit/runtime-bundles.ts). Nothing for none: the default output imports no database client.
 */
export function emitStoreConnect(header: string, stores: readonly StoreEngine[]): Record<string, string> {
  const out: Record<string, string> = {};
  const chosen = STORES.filter((s) => stores.includes(s));
  if (chosen.length > 0) out["runtime/stores/connect.ts"] = connectFile(header, chosen);
  return out;
}

/** `connectStore(url)`: the store a URL names, among the engines generated (absent URL: in-memory). */
function connectFile(header: string, chosen: readonly StoreEngine[]): string {
  const has = (s: StoreEngine) => chosen.includes(s);
  const schemes = [...(has("postgres") ? ["postgres://", "postgresql://"] : []), ...(has("redis") ? ["redis://", "rediss://"] : [])];
  return [
    header,
    "/**",
    " * The store an agent runs on, from a URL (typically `A2A_STORE_URL`): " + schemes.map((s) => `\`${s}…\``).join(", ") + ";",
    " * none: the in-memory store (one process). The same build thus runs as one process or as many instances",
    " * sharing one engine.",
    " */",
    'import type { A2AStore } from "./contract.js";',
    'import { StoreError } from "./errors.js";',
    'import { InMemoryStore } from "./memory.js";',
    ...(has("postgres") ? ['import { PostgresStore, type PostgresStoreOptions } from "./postgres.js";'] : []),
    ...(has("redis") ? ['import { RedisStore, type RedisStoreOptions } from "./redis.js";'] : []),
    "",
    "export interface ConnectStoreOptions {",
    ...(has("postgres") ? ['  postgres?: Omit<PostgresStoreOptions, "connectionString">;'] : []),
    ...(has("redis") ? ['  redis?: Omit<RedisStoreOptions, "url">;'] : []),
    "}",
    "",
    "export async function connectStore(url: string | undefined, options: ConnectStoreOptions = {}): Promise<A2AStore> {",
    '  if (url === undefined || url === "") return new InMemoryStore();',
    '  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase() ?? "";',
    ...(has("postgres") ? ['  if (scheme === "postgres" || scheme === "postgresql") return PostgresStore.connect({ ...options.postgres, connectionString: url });'] : []),
    ...(has("redis") ? ['  if (scheme === "redis" || scheme === "rediss") return RedisStore.connect({ ...options.redis, url });'] : []),
    "  // The URL itself is not echoed: it may hold a password.",
    `  throw new StoreError(\`store URL: unsupported scheme "\${scheme}"; this agent was generated with: ${schemes.join(", ")}\`, "invalid");`,
    "}",
    "",
  ].join("\n");
}
