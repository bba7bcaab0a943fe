import type { TemplateRenderer } from "./templates.js";
import { STORES, URL_STORES, type StoreEngine } from "../options/vocabularies.js";


/** The packages a generated project adds when it chooses an engine (the same versions this repository tests). */
export const STORE_DEPENDENCIES: Record<StoreEngine, { dependencies: Record<string, string>; devDependencies: Record<string, string> }> = {
  postgres: { dependencies: { pg: "^8.23.1" }, devDependencies: { "@types/pg": "^8.23.1" } },
  // mysql2 ships its own types.
  mysql: { dependencies: { mysql2: "^3.24.6" }, devDependencies: {} },
  redis: { dependencies: { "@redis/client": "^6.3.1" }, devDependencies: {} },
  // 12, not 13: 13 needs Node 22 and the project supports Node 20 (docs/stores.md).
  sqlite: { dependencies: { "better-sqlite3": "^12.11.1" }, devDependencies: { "@types/better-sqlite3": "^9.6.0" } },
  // The Durable Object's own storage (ctx.storage.sql): nothing to install.
  "durable-object": { dependencies: {}, devDependencies: {} },
};

/** Checks a list of engine names (CLI, config, API); throws a message naming the bad one. */
export function unknownStore(stores: readonly string[]): string | undefined {
  return stores.find((s) => !(STORES as readonly string[]).includes(s));
}

/**
 * `runtime/stores/connect.ts` (a URL to a store, among the chosen engines; their runtime files are the
 * engines' bundles of emit/runtime-bundles.ts). Nothing for none: the default output imports no database client.
 */
export function emitStoreConnect(templates: TemplateRenderer, header: string, stores: readonly StoreEngine[]): Record<string, string> {
  const out: Record<string, string> = {};
  const chosen = URL_STORES.filter((s) => stores.includes(s));
  if (chosen.length > 0) out["runtime/stores/connect.ts"] = connectFile(templates, header, chosen);
  return out;
}

/** `connectStore(url)`: the store a URL names, among the engines generated (absent URL: in-memory). */
function connectFile(templates: TemplateRenderer, header: string, chosen: readonly StoreEngine[]): string {
  const has = (s: StoreEngine) => chosen.includes(s);
  const schemes = [...(has("postgres") ? ["postgres://", "postgresql://"] : []), ...(has("mysql") ? ["mysql://", "mariadb://"] : []), ...(has("redis") ? ["redis://", "rediss://"] : []), ...(has("sqlite") ? ["sqlite:", "file:"] : [])];
  return templates.render("stores/connect.ts.hbs", {
    header,
    postgres: has("postgres"),
    mysql: has("mysql"),
    redis: has("redis"),
    sqlite: has("sqlite"),
    schemeList: schemes.map((s) => `\`${s}…\``).join(", "),
    schemes: schemes.join(", "),
  });
}
