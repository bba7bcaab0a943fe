// The stores the store benchmarks run on: the in-memory store, SQLite (a temp file), and PostgreSQL, MySQL and Redis when their URLs are
// set (A2A_TEST_POSTGRES_URL / A2A_TEST_MYSQL_URL / A2A_TEST_REDIS_URL; `source .ci/engines.sh` starts them), from the built
// runtime (dist/: `npm run build` first). Each opened store gets a table / key prefix of its own.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const ROOT = resolve(import.meta.dirname, "..");
const fromDist = (path) => import(pathToFileURL(resolve(ROOT, "dist", path)).href);
export const { InMemoryStore } = await fromDist("runtime/stores/memory.js");
const { PostgresStore } = await fromDist("runtime/stores/postgres.js");
const { MysqlStore } = await fromDist("runtime/stores/mysql.js");
const { RedisStore } = await fromDist("runtime/stores/redis.js");
const { SqliteStore } = await fromDist("runtime/stores/sqlite.js");

/** SQLite needs no server: a file per opened namespace in a temp folder, removed with the store. */
const SQLITE_DIR = mkdtempSync(join(tmpdir(), "a2a-bench-sqlite-"));
process.on("exit", () => rmSync(SQLITE_DIR, { recursive: true, force: true }));

/** The 1.0.1 agent card of the store benchmarks (their servers are called through the service, not HTTP). */
export const BENCH_CARD = {
  name: "Bench Agent",
  description: "store benchmark",
  version: "1.0.0",
  supportedInterfaces: [{ url: "http://127.0.0.1:1/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
  capabilities: { streaming: true, pushNotifications: false },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "echo", name: "Echo", description: "Echoes", tags: ["bench"] }],
};

const ENGINES = [
  { name: "memory", variable: undefined, open: async () => new InMemoryStore() },
  { name: "sqlite", variable: undefined, open: (_url, ns) => SqliteStore.open({ path: join(SQLITE_DIR, `${ns}.db`) }) },
  { name: "postgres", variable: "A2A_TEST_POSTGRES_URL", open: (url, ns) => PostgresStore.connect({ connectionString: url, tablePrefix: `${ns}_` }) },
  { name: "mysql", variable: "A2A_TEST_MYSQL_URL", open: (url, ns) => MysqlStore.connect({ url, tablePrefix: `${ns}_` }) },
  { name: "redis", variable: "A2A_TEST_REDIS_URL", open: (url, ns) => RedisStore.connect({ url, keyPrefix: `${ns}:` }) },
];

/**
 * The engines that can run here, each with `open(label, suffix?)`: a store with a fresh table / key prefix
 * (named after the label and the time, or the suffix given). An engine whose URL is not set is left out, with a line that says so.
 */
export function availableEngines() {
  return ENGINES.flatMap(({ name, variable, open }) => {
    const url = variable ? process.env[variable] : undefined;
    if (variable && !url) {
      console.log(`${name}: skipped (set ${variable}; source .ci/engines.sh starts one)`);
      return [];
    }
    // `suffix`: the same one opens the same tables / keys again (several instances on one store).
    return [{ name, open: (label, suffix = Date.now().toString(36)) => open(url, `${label}${suffix}`) }];
  });
}

/** The median of a contender's rounds by sends/s (the lower middle one of an even count): the row a store bench prints. */
export function medianRound(rounds) {
  return [...rounds].sort((a, b) => a.perSecond - b.perSecond)[Math.floor((rounds.length - 1) / 2)];
}

/** Deletes what a benchmark wrote (its tables or keys) and closes the store. */
export async function dropAndClose(store) {
  await (store.dropTables?.() ?? store.dropKeys?.() ?? Promise.resolve());
  await store.close();
  if (store.engine === "sqlite") for (const suffix of ["", "-wal", "-shm"]) rmSync(`${store.path}${suffix}`, { force: true });
}
