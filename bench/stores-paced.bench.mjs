// Paced token streams on each store: what a streamed artifact costs the store when the agent sends its
// chunks one at a time with a pause between them (an LLM that emits a token every few ms), so that each
// chunk is a write of its own. For each store and stream length: the writes, the bytes of task text the
// store was handed (a PostgreSQL or Redis store keeps the whole task at every write; the in-memory store
// keeps a running task's interim writes as objects, `TaskCommit.interim`) and the bytes of events.
// A measurement, not a goal: it shows how the text written grows with the stream's length (bytes per
// chunk that grow with n are n² in all), for the storage design that would make it linear.
//
//   npm run build && source .ci/engines.sh && node bench/stores-paced.bench.mjs [--pause-ms 2] [--chunks 200,400,800]
//
// Engines come from A2A_TEST_POSTGRES_URL / A2A_TEST_REDIS_URL; a missing one is skipped with a message.
// Each run uses its own table / key prefix and deletes it afterwards.
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { compileGenerated } from "./compile-generated.mjs";
import { availableEngines, BENCH_CARD as card, dropAndClose } from "./store-engines.mjs";

const option = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const pauseMs = Number(option("pause-ms", "2"));
const lengths = option("chunks", "200,400,800").split(",").map(Number);

const build = compileGenerated("1.0.1", ["server/core.ts"], "a2a-stores-paced-bench-");
const { createA2AServer } = await import(pathToFileURL(resolve(build, "server/core.js")).href);
const pause = () => new Promise((done) => setTimeout(done, pauseMs));
const callContext = { headers: { "a2a-version": "1.0" }, signal: new AbortController().signal, binding: "JSONRPC" };

/** The agent: `n` chunks of one artifact (a word each, as an LLM's tokens), a pause after each. */
const executorOf = (n) => ({
  async execute(_ctx, events) {
    events.working();
    for (let i = 0; i < n; i++) {
      events.artifact({ artifactId: "answer", name: "answer", parts: [events.textPart(`word${i} `)] }, { append: i > 0, lastChunk: i === n - 1 });
      await pause();
    }
    events.completed("done");
  },
});

/** Counts what a store's commits are handed: writes, task text bytes, event bytes. */
function counting(store) {
  const counts = { writes: 0, taskBytes: 0, eventBytes: 0 };
  const commit = store.tasks.commit.bind(store.tasks);
  store.tasks.commit = (write) => {
    counts.writes++;
    // The text a store keeps: the writer's (the runtime's, built from its part texts), else the task serialized; none for an interim write to a store that keeps those as objects.
    if (!(write.interim && store.tasks.keepsInterimTasks)) counts.taskBytes += Buffer.byteLength(write.text ?? JSON.stringify(write.task));
    for (const e of write.events ?? []) counts.eventBytes += Buffer.byteLength(JSON.stringify(e.event));
    return commit(write);
  };
  return counts;
}

const rows = [];
for (const { name, open } of availableEngines()) {
  for (const n of lengths) {
    const store = await open("paced");
    const counts = counting(store);
    const core = createA2AServer({ card, executor: executorOf(n), store, pushNotifications: false, logger: { error: (m, d) => console.error(m, d) } });
    const start = performance.now();
    const result = await core.service.call("SendMessage", { message: { messageId: randomUUID(), role: "ROLE_USER", parts: [{ text: "write" }] } }, callContext);
    const ms = performance.now() - start;
    const parts = result.task?.artifacts?.[0]?.parts?.length;
    if (result.task?.status?.state !== "TASK_STATE_COMPLETED" || parts !== n) throw new Error(`${name}: unexpected answer (${parts} parts)`);
    rows.push({ name, n, ms, ...counts });
    await core.close();
    await dropAndClose(store);
  }
}
rmSync(build, { recursive: true, force: true });

const kb = (bytes) => (bytes / 1024).toFixed(1);
console.log(`\nOne blocking SendMessage whose agent streams n chunks of one artifact, a ${pauseMs} ms pause after each (node ${process.version})\n`);
console.log("| store | chunks | writes | task text written, KB | per chunk, bytes | events, KB | the artifact's parts, KB | time, ms |");
console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
for (const r of rows) {
  console.log(`| ${r.name} | ${r.n} | ${r.writes} | ${kb(r.taskBytes)} | ${Math.round(r.taskBytes / r.n)} | ${kb(r.eventBytes)} | ${kb(partsBytes(r.n))} | ${Math.round(r.ms)} |`);
}
for (const name of new Set(rows.map((r) => r.name))) {
  const mine = rows.filter((r) => r.name === name).sort((a, b) => a.n - b.n);
  if (mine.length < 2) continue;
  const [a, b] = [mine[0], mine[mine.length - 1]];
  const growth = b.taskBytes / a.taskBytes;
  console.log(`${name}: ${b.n / a.n}× the chunks wrote ${growth.toFixed(1)}× the task text (linear: ${b.n / a.n}×, quadratic: ${((b.n / a.n) ** 2).toFixed(0)}×)`);
}
process.exit(0);

/** The JSON bytes of the finished artifact's parts, for scale (what a store that appended them would write). */
function partsBytes(n) {
  let bytes = 0;
  for (let i = 0; i < n; i++) bytes += Buffer.byteLength(JSON.stringify({ text: `word${i} ` }));
  return bytes;
}
