// Store benchmark: the task lifecycle of a one-turn blocking SendMessage at the store level (create the
// task with its execution lease, then the final status with its final event, releasing the lease), on the
// in-memory store, PostgreSQL and Redis: lifecycles/s, p50/p99 latency and round trips per lifecycle
// (counted by the stores themselves).
//
//   npm run build && source .ci/engines.sh && node bench/stores.bench.mjs [--duration 4] [--concurrency 16]
//
// Engines come from A2A_TEST_POSTGRES_URL / A2A_TEST_REDIS_URL; a missing one is skipped with a message.
// Each run uses its own table / key prefix and deletes it afterwards.
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const ROOT = resolve(import.meta.dirname, "..");
const load = (path) => import(pathToFileURL(resolve(ROOT, "dist", path)).href);
const { InMemoryStore } = await load("runtime/tasks.js");
const { PostgresStore } = await load("runtime/stores/postgres.js");
const { RedisStore } = await load("runtime/stores/redis.js");

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const duration = arg("duration", 4) * 1000;
const concurrency = arg("concurrency", 16);

const engines = [
  ["memory", undefined, async () => new InMemoryStore()],
  ["postgres", "A2A_TEST_POSTGRES_URL", (url, ns) => PostgresStore.connect({ connectionString: url, tablePrefix: `${ns}_` })],
  ["redis", "A2A_TEST_REDIS_URL", (url, ns) => RedisStore.connect({ url, keyPrefix: `${ns}:` })],
];

const results = [];
for (const [name, variable, open] of engines) {
  const url = variable ? process.env[variable] : undefined;
  if (variable && !url) {
    console.log(`${name}: skipped (set ${variable}; source .ci/engines.sh starts one)`);
    continue;
  }
  const ns = `bench${Date.now().toString(36)}`;
  const store = await open(url, ns);
  const latencies = [];
  let next = 0;
  const end = Date.now() + duration;
  const before = store.roundTrips?.count ?? 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) {
        const id = `t${next++}`;
        const start = performance.now();
        const task = {
          id,
          contextId: "c",
          kind: "task",
          status: { state: "working", timestamp: new Date().toISOString() },
          history: [{ kind: "message", messageId: id, role: "user", parts: [{ kind: "text", text: "hello" }] }],
        };
        await store.tasks.commit({ task, expectedVersion: 0, lease: { acquire: "bench", ttlMs: 30_000 } });
        const done = { ...task, status: { state: "completed", timestamp: new Date().toISOString() } };
        const event = { kind: "status-update", taskId: id, contextId: "c", status: done.status, final: true };
        await store.tasks.commit({ task: done, expectedVersion: 1, events: [{ event, final: true }], lease: { release: "bench" } });
        latencies.push(performance.now() - start);
      }
    }),
  );
  const trips = (store.roundTrips?.count ?? 0) - before;
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))].toFixed(2);
  const row = {
    store: name,
    lifecyclesPerSecond: Math.round(latencies.length / (duration / 1000)),
    p50Ms: Number(at(0.5)),
    p99Ms: Number(at(0.99)),
    roundTripsPerLifecycle: Number((trips / latencies.length).toFixed(2)),
  };
  results.push(row);
  console.log(`${name}: ${row.lifecyclesPerSecond} lifecycles/s, p50 ${row.p50Ms} ms, p99 ${row.p99Ms} ms, ${row.roundTripsPerLifecycle} round trips each`);
  await store.dropTables?.();
  await store.dropKeys?.();
  await store.close();
}
console.log(JSON.stringify({ concurrency, durationMs: duration, results }));
