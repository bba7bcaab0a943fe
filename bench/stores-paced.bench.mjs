// Paced token streams on each store: what a streamed artifact costs the store when the agent sends its
// chunks one at a time with a pause between them (an LLM that emits a token every few ms), so that each
// chunk is a write of its own. For each store and stream length: the writes, the task text the store wrote
// (SQLite, PostgreSQL, MySQL and Redis keep an interim write as its patch, `TaskCommit.patch`, and write the whole task
// again once the patches add up to its length; the in-memory store keeps a running task's interim writes
// as objects), the bytes the engine itself took in (PostgreSQL: WAL bytes; MySQL: redo log bytes; Redis: network input bytes),
// and the events.
//
// Goal (issue 12, a store "on every stream"): the text a store writes grows linearly with the stream, so
// the longest stream's text per chunk is at most 1.5x the shortest's (it was n^2: 3.4x from 200 to 800).
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
import { captureConsole, currentMachine, machineLine, writeReadmeSection } from "./readme-section.mjs";

const option = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const pauseMs = Number(option("pause-ms", "2"));
const lengths = option("chunks", "200,400,800").split(",").map(Number);

const build = compileGenerated("1.0.1", ["server/core.ts"], "a2a-stores-paced-bench-");
const { createA2AServer } = await import(pathToFileURL(resolve(build, "server/core.js")).href);
const machine = currentMachine();
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

/**
 * Counts what a store writes: writes and events from its commits; the task text from the store's patch
 * policy (whole texts and patches) where it has one, else the text it is handed (none for an interim
 * write to a store that keeps those as objects).
 */
function counting(store) {
  const counts = { writes: 0, taskBytes: 0, wholeTexts: 0, patches: 0, eventBytes: 0 };
  const commit = store.tasks.commit.bind(store.tasks);
  const policy = store.tasks.patchPolicy;
  store.tasks.commit = (write) => {
    counts.writes++;
    if (!policy && !(write.interim && store.tasks.keepsInterimTasks)) counts.taskBytes += Buffer.byteLength(write.text ?? JSON.stringify(write.task));
    for (const e of write.events ?? []) counts.eventBytes += Buffer.byteLength(JSON.stringify(e.event));
    return commit(write);
  };
  if (policy) {
    const written = policy.written.bind(policy);
    policy.written = (taskId, plan) => {
      if ("patch" in plan) counts.patches++;
      else counts.wholeTexts++;
      counts.taskBytes += Buffer.byteLength("patch" in plan ? plan.patch : plan.whole);
      written(taskId, plan);
    };
  }
  return counts;
}

/** The bytes an engine has taken in so far (PostgreSQL: its WAL position; MySQL: its redo log written; Redis: total_net_input_bytes); none for memory. */
async function engineCounter(name) {
  if (name === "postgres") {
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: process.env.A2A_TEST_POSTGRES_URL });
    await client.connect();
    return {
      read: async () => Number((await client.query("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint AS n")).rows[0].n),
      close: () => client.end(),
    };
  }
  if (name === "mysql") {
    const { default: mysql } = await import("mysql2/promise");
    const connection = await mysql.createConnection({ uri: process.env.A2A_TEST_MYSQL_URL });
    return {
      // InnoDB's redo log bytes written (MariaDB and MySQL alike).
      read: async () => Number((await connection.query("SHOW GLOBAL STATUS LIKE 'Innodb_os_log_written'"))[0][0].Value),
      close: () => connection.end(),
    };
  }
  if (name === "redis") {
    const { createClient } = await import("@redis/client");
    const client = createClient({ url: process.env.A2A_TEST_REDIS_URL });
    await client.connect();
    return {
      read: async () => Number(/total_net_input_bytes:(\d+)/.exec(await client.sendCommand(["INFO", "stats"]))[1]),
      close: () => client.close(),
    };
  }
  return undefined;
}

const rows = [];
for (const { name, open } of availableEngines()) {
  for (const n of lengths) {
    const store = await open("paced");
    const counts = counting(store);
    const engine = await engineCounter(name);
    const engineBefore = await engine?.read();
    const core = createA2AServer({ card, executor: executorOf(n), store, pushNotifications: false, logger: { error: (m, d) => console.error(m, d) } });
    const start = performance.now();
    const result = await core.service.call("SendMessage", { message: { messageId: randomUUID(), role: "ROLE_USER", parts: [{ text: "write" }] } }, callContext);
    const ms = performance.now() - start;
    const engineBytes = engine ? (await engine.read()) - engineBefore : undefined;
    await engine?.close();
    const parts = result.task?.artifacts?.[0]?.parts?.length;
    if (result.task?.status?.state !== "TASK_STATE_COMPLETED" || parts !== n) throw new Error(`${name}: unexpected answer (${parts} parts)`);
    rows.push({ name, n, ms, engineBytes, ...counts });
    await core.close();
    await dropAndClose(store);
  }
}
rmSync(build, { recursive: true, force: true });

const kb = (bytes) => (bytes / 1024).toFixed(1);
const printed = captureConsole();
console.log(`\nOne blocking SendMessage whose agent streams n chunks of one artifact, a ${pauseMs} ms pause after each (node ${process.version})\n`);
console.log("| store | chunks | writes | whole texts / patches | task text written, KB | per chunk, bytes | engine took in, KB | events, KB | the artifact's parts, KB | time, ms |");
console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const r of rows) {
  const split = r.wholeTexts + r.patches > 0 ? `${r.wholeTexts} / ${r.patches}` : "";
  console.log(`| ${r.name} | ${r.n} | ${r.writes} | ${split} | ${kb(r.taskBytes)} | ${Math.round(r.taskBytes / r.n)} | ${r.engineBytes === undefined ? "" : kb(r.engineBytes)} | ${kb(r.eventBytes)} | ${kb(partsBytes(r.n))} | ${Math.round(r.ms)} |`);
}
console.log("");
for (const name of new Set(rows.map((r) => r.name))) {
  const mine = rows.filter((r) => r.name === name).sort((a, b) => a.n - b.n);
  if (mine.length < 2) continue;
  const [a, b] = [mine[0], mine[mine.length - 1]];
  const perChunk = b.taskBytes / b.n / (a.taskBytes / a.n);
  const verdict = perChunk <= 1.5 ? "PASS" : "MISS";
  console.log(`${name}: ${b.n / a.n}x the chunks wrote ${(b.taskBytes / a.taskBytes).toFixed(1)}x the task text; per chunk ${perChunk.toFixed(2)}x (goal <= 1.5x: linear) ${verdict}`);
}
if (!process.argv.includes("--no-write")) {
  const command = `node bench/stores-paced.bench.mjs ${process.argv.slice(2).join(" ")}`.trim();
  writeReadmeSection("stores-paced", "Stores: paced token streams", printed(), { command, machine: machineLine(machine) });
}
process.exit(0);

/** The JSON bytes of the finished artifact's parts, for scale (what a store that appended them would write). */
function partsBytes(n) {
  let bytes = 0;
  for (let i = 0; i < n; i++) bytes += Buffer.byteLength(JSON.stringify({ text: `word${i} ` }));
  return bytes;
}
