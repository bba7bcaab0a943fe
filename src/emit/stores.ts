import { readFileSync } from "node:fs";
import { join } from "node:path";

/** The store engines `generate --store` can add to an output (in-memory is always there). */
export const STORES = ["postgres", "redis"] as const;
export type StoreEngine = (typeof STORES)[number];

/** The runtime files each engine needs, under src/runtime/stores/. */
const STORE_FILES: Record<StoreEngine, readonly string[]> = {
  postgres: ["follower.ts", "postgres.ts"],
  redis: ["follower.ts", "redis.ts"],
};

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
 * The files of the chosen engines, as output paths (`runtime/stores/<file>`) with the output's
 * header. Nothing for none: the default output imports no database client.
 */
export function emitStoreFiles(runtimeDir: string, header: string, stores: readonly StoreEngine[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const store of STORES.filter((s) => stores.includes(s))) {
    for (const file of STORE_FILES[store]) out[`runtime/stores/${file}`] = `${header}\n${readFileSync(join(runtimeDir, "stores", file), "utf8")}`;
  }
  return out;
}
