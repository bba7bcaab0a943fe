// Instances on one PostgreSQL (issue 30): 1 vs 3 server instances as SEPARATE PROCESSES sharing the same
// tables, each with its own connection pool, under the same total load of blocking one-turn SendMessage
// calls (through each instance's service: no HTTP, the commit path is what is measured), with
// synchronous_commit on and off. For each configuration it measures:
//
//   - sends/s (all instances together), p50/p99 latency;
//   - the statement profile of a send: every statement each instance's driver sent, by statement text
//     (and pg_stat_statements' calls and time when the extension is loaded);
//   - transactions per send (pg_stat_database.xact_commit), WAL bytes per send (pg_current_wal_lsn before and
//     after), WAL writes and syncs per send (pg_stat_wal);
//   - CPU per send of the node instances and of PostgreSQL's processes, the cores they kept busy together,
//     and the connections each holds.
//
// Beside each configuration, its floor (`--floor`, on by default): the same processes, pools, load and
// warm-up, each "send" one INSERT of a task-sized JSON row through pg, no A2A runtime. What the floor loses
// from 1 to 3 instances is the price of more processes sharing the machine (and PostgreSQL), not of the
// runtime's coordination between instances.
//
//   npm run build && source .ci/engines.sh && node bench/stores-instances.bench.mjs \
//       [--instances 1,3] [--sync on,off] [--pool auto|N] [--concurrency 16] [--duration 4] [--warmup 5] [--rounds 3] [--floor on|off] [--no-write]
//
// `--pool auto` (the default) sizes the pools as docs/stores.md advises: instances × pool.max near 3 × the
// database server's cores (here the machine's: PostgreSQL runs on it), at least 2 each; `--pool N` gives every
// instance N (the store's own default is 10).
//
// Rounds are interleaved (every configuration once per round, in a rotating order) and each row is the
// configuration's median round by sends/s. The goal (issue 30): 3 instances serve at least the sends/s of
// 1 (synchronous_commit on), judged as the other benches judge (bench/machine-load.mjs: no verdict on a busy
// machine or with fewer than 3 rounds). The load generator lives in each instance (its share of the total
// concurrency), so the node CPU per send includes the calls' own cost (small beside a commit).
import { fork } from "node:child_process";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { cpus } from "node:os";
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import pg from "pg";
import { compileGenerated } from "./compile-generated.mjs";
import { BENCH_CARD as card, medianRound } from "./store-engines.mjs";
import { machineSample, machineState, othersBetween, quietProbe, verdict } from "./machine-load.mjs";
import { captureConsole, currentMachine, machineLine, writeReadmeSection } from "./readme-section.mjs";

const ROOT = resolve(import.meta.dirname, "..");
const SELF = fileURLToPath(import.meta.url);
const PG_URL = process.env.A2A_TEST_POSTGRES_URL;

const flag = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};

// ---------------------------------------------------------------------------------------------------
// Child: one server instance, its own pool, its share of the load

/** A statement's text as a profile key: whitespace collapsed, the run's table prefix made generic. */
const statementKey = (text, prefix) => text.replace(/\s+/g, " ").trim().split(prefix).join("<prefix>").slice(0, 160);

/** A completed one-turn task's JSON, about the size of what a send commits: the floor's row. */
const FLOOR_ROW = JSON.stringify({
  id: "00000000-0000-4000-8000-000000000000",
  contextId: "00000000-0000-4000-8000-000000000001",
  status: { state: "TASK_STATE_COMPLETED", timestamp: new Date(0).toISOString(), message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "done" }] } },
  history: [{ messageId: "m-0", role: "ROLE_USER", parts: [{ text: "hello" }], taskId: "t", contextId: "c" }],
});

async function child() {
  const [buildDir, prefix, instance, poolMax, sync, concurrency, warmupMs, kind] = process.argv.slice(3);
  if (kind === "floor") return floorChild(prefix, poolMax, sync, concurrency, warmupMs);
  const statements = new Map();
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (config, ...rest) {
    const text = typeof config === "string" ? config : config?.text;
    if (text !== undefined) {
      const key = statementKey(text, prefix);
      statements.set(key, (statements.get(key) ?? 0) + 1);
    }
    return query.call(this, config, ...rest);
  };
  const { PostgresStore } = await import(pathToFileURL(resolve(ROOT, "dist", "runtime/stores/postgres.js")).href);
  const { createA2AServer } = await import(pathToFileURL(resolve(buildDir, "server/core.js")).href);
  const store = await PostgresStore.connect({
    connectionString: PG_URL,
    tablePrefix: `${prefix}_`,
    pool: { max: Number(poolMax), options: `-c synchronous_commit=${sync}` },
  });
  const core = createA2AServer({ card, executor: { execute: (_ctx, events) => events.completed("done") }, store, instanceId: `bench-${instance}`, pushNotifications: false, logger: { error: (m, d) => console.error(m, d) } });
  const callContext = { headers: { "a2a-version": "1.0" }, signal: new AbortController().signal, binding: "JSONRPC" };
  let sent = 0;
  const send = async () => {
    const message = { messageId: `${process.pid}-${sent++}`, role: "ROLE_USER", parts: [{ text: "hello" }] };
    const result = await core.service.call("SendMessage", { message }, callContext);
    if (result.task?.status?.state !== "TASK_STATE_COMPLETED") throw new Error(`unexpected answer ${JSON.stringify(result).slice(0, 300)}`);
  };
  await measuredLoad(send, concurrency, warmupMs, { onStart: () => statements.clear(), statements: () => Object.fromEntries(statements) });
  await core.close();
  await store.close();
  process.exit(0);
}

/** The floor's instance: its own pool, its share of the load, each send one INSERT (no A2A runtime). */
async function floorChild(prefix, poolMax, sync, concurrency, warmupMs) {
  const pool = new pg.Pool({ connectionString: PG_URL, max: Number(poolMax), options: `-c synchronous_commit=${sync}` });
  let sent = 0;
  let sentBefore = 0;
  const send = async () => {
    const id = `${process.pid}-${sent++}`;
    await pool.query(`INSERT INTO ${prefix}_floor (id, body) VALUES ($1, $2::json)`, [id, FLOOR_ROW]);
  };
  const statement = "INSERT INTO <prefix>_floor (id, body) VALUES ($1, $2::json)";
  await measuredLoad(send, concurrency, warmupMs, { onStart: () => (sentBefore = sent), statements: () => ({ [statement]: sent - sentBefore }) });
  await pool.end();
  process.exit(0);
}

/**
 * Warm-up at the measured load (prepared statements on every pooled connection, and the JIT, whose compiler
 * threads count in this process's CPU time: each instance compiles the hot path once, and a few sends would
 * leave that cost in the measured window, three times over with three instances); then, at the parent's
 * "go", `concurrency` sends in flight until its deadline; reports, and waits for "close".
 */
async function measuredLoad(send, concurrency, warmupMs, { onStart, statements }) {
  const warmUntil = Date.now() + Number(warmupMs);
  await Promise.all(Array.from({ length: Number(concurrency) }, async () => {
    for (let i = 0; i < 5 || Date.now() < warmUntil; i++) await send();
  }));
  process.send({ type: "ready" });
  const { until } = await new Promise((resolve) => process.once("message", resolve));
  onStart();
  const cpu0 = process.cpuUsage();
  const latencies = [];
  await Promise.all(
    Array.from({ length: Number(concurrency) }, async () => {
      while (Date.now() < until) {
        const start = performance.now();
        await send();
        latencies.push(performance.now() - start);
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  process.send({ type: "done", latencies, statements: statements(), cpuMs: (cpu.user + cpu.system) / 1000 });
  await new Promise((resolve) => process.once("message", resolve)); // the parent's readings are taken: close
}

// ---------------------------------------------------------------------------------------------------
// Parent

/** CPU time (ms) of PostgreSQL's processes (its postmaster and backends), from /proc; undefined when unreadable. */
function postgresCpuMs() {
  let total = 0;
  let seen = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      if (comm !== "postgres") continue;
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      total += (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime in 10 ms ticks
      seen++;
    } catch {
      // the process ended meanwhile
    }
  }
  return seen > 0 ? total : undefined;
}

/** What can be read at once: the WAL position, the connections open, PostgreSQL's CPU so far. */
async function liveReadings(admin) {
  // One after the other: `admin` is one connection (pg deprecates queries queued on a busy client).
  const lsn = await admin.query("SELECT pg_current_wal_lsn() AS lsn");
  const conns = await admin.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()");
  return { lsn: lsn.rows[0].lsn, connections: conns.rows[0].n, pgCpuMs: postgresCpuMs() };
}

/**
 * The cumulative statistics (transactions, WAL writes, statements). Backends send theirs to the shared
 * statistics lazily (at most once a second while busy, and when they exit): read after the instances'
 * connections are closed, and after a moment.
 */
async function settledReadings(admin, statStatements) {
  await new Promise((resolve) => setTimeout(resolve, 500));
  await admin.query("SELECT pg_stat_clear_snapshot()");
  const wal = await admin.query("SELECT wal_records, wal_bytes, wal_write, wal_sync FROM pg_stat_wal").catch(() => ({ rows: [{}] }));
  const db = await admin.query("SELECT xact_commit, xact_rollback FROM pg_stat_database WHERE datname = current_database()");
  const out = { wal: wal.rows[0], xactCommit: Number(db.rows[0].xact_commit) };
  if (statStatements) {
    const r = await admin.query("SELECT query, calls, total_exec_time FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())");
    out.statements = r.rows;
  }
  return out;
}

const lsnBytes = (lsn) => {
  const [hi, lo] = lsn.split("/").map((x) => parseInt(x, 16));
  return hi * 2 ** 32 + lo;
};

async function runConfig(buildDir, admin, statStatements, { kind, instances, sync, pool, concurrency, durationMs, warmupMs }) {
  const prefix = `inst${Date.now().toString(36)}${kind === "floor" ? "f" : ""}${instances}${sync}`;
  // The tables first, from one connection, so that the instances do not race on the migrations.
  const { PostgresStore } = await import(pathToFileURL(resolve(ROOT, "dist", "runtime/stores/postgres.js")).href);
  const owner = kind === "a2a" ? await PostgresStore.connect({ connectionString: PG_URL, tablePrefix: `${prefix}_` }) : undefined;
  if (kind === "floor") await admin.query(`CREATE TABLE ${prefix}_floor (id text PRIMARY KEY, body json NOT NULL)`);
  const children = [];
  try {
    for (let i = 0; i < instances; i++) {
      const share = Math.floor(concurrency / instances) + (i < concurrency % instances ? 1 : 0);
      const c = fork(SELF, ["--child", buildDir, prefix, String(i), String(pool), sync, String(share), String(warmupMs), kind], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
      const exited = new Promise((resolve) => c.once("exit", resolve));
      const next = (type) =>
        new Promise((resolve, reject) => {
          c.once("message", (m) => (m.type === type ? resolve(m) : reject(new Error(`instance ${i}: ${JSON.stringify(m)}`))));
          exited.then((code) => reject(new Error(`instance ${i} exited (${code}) before "${type}"`)));
        });
      children.push({ c, exited, next, ready: next("ready") });
    }
    await Promise.all(children.map((ch) => ch.ready));
    if (statStatements) await admin.query("SELECT pg_stat_statements_reset()");
    const before = { ...(await settledReadings(admin, false)), ...(await liveReadings(admin)) };
    const machine0 = machineSample();
    const until = Date.now() + 300 + durationMs; // 300 ms for the message to reach every instance
    const results = children.map((ch) => ch.next("done"));
    for (const ch of children) ch.c.send({ until });
    const done = await Promise.all(results);
    const machine1 = machineSample();
    // The connections are still open here (each instance closes on the next message).
    const live = await liveReadings(admin);
    for (const ch of children) ch.c.send({ type: "close" });
    await Promise.all(children.map((ch) => ch.exited));
    const after = { ...live, ...(await settledReadings(admin, statStatements)) };
    const latencies = done.flatMap((d) => d.latencies).sort((a, b) => a - b);
    const n = latencies.length;
    const at = (q) => latencies[Math.min(n - 1, Math.floor(q * n))] ?? 0;
    const nodeCpuMs = done.reduce((s, d) => s + d.cpuMs, 0);
    const pgCpuMs = before.pgCpuMs !== undefined && after.pgCpuMs !== undefined ? after.pgCpuMs - before.pgCpuMs : undefined;
    const others = othersBetween(machine0, machine1, nodeCpuMs + (pgCpuMs ?? 0));
    const statements = {};
    for (const d of done) for (const [k, v] of Object.entries(d.statements)) statements[k] = (statements[k] ?? 0) + v;
    const wal = (k) => (after.wal[k] !== undefined ? (Number(after.wal[k]) - Number(before.wal[k])) / n : undefined);
    return {
      kind,
      instances,
      sync,
      pool,
      concurrency,
      n,
      perSecond: n / (durationMs / 1000),
      p50: at(0.5),
      p99: at(0.99),
      statementsPerSend: Object.values(statements).reduce((s, v) => s + v, 0) / n,
      statements: Object.fromEntries(Object.entries(statements).map(([k, v]) => [k, v / n]).sort((a, b) => b[1] - a[1])),
      pgStatStatements: after.statements
        ?.filter((r) => r.query.includes(prefix))
        .map((r) => ({ query: statementKey(r.query, prefix), perSend: Number(r.calls) / n, msPerCall: r.total_exec_time / Math.max(1, Number(r.calls)) }))
        .sort((a, b) => b.perSend - a.perSend),
      xactPerSend: (after.xactCommit - before.xactCommit) / n,
      walBytesPerSend: (lsnBytes(after.lsn) - lsnBytes(before.lsn)) / n,
      walWritesPerSend: wal("wal_write"),
      walSyncsPerSend: wal("wal_sync"),
      walRecordsPerSend: wal("wal_records"),
      nodeCpuUsPerSend: (1000 * nodeCpuMs) / n,
      pgCpuUsPerSend: pgCpuMs === undefined ? undefined : (1000 * pgCpuMs) / n,
      /** The cores the instances and PostgreSQL kept busy together (of the machine's). */
      busyCores: (nodeCpuMs + (pgCpuMs ?? 0)) / (machine1.at - machine0.at),
      connections: after.connections,
      others: others.othersCores,
      steal: others.steal,
    };
  } finally {
    for (const ch of children) if (ch.c.exitCode === null) ch.c.kill("SIGKILL");
    if (owner) {
      await owner.dropTables();
      await owner.close();
    } else await admin.query(`DROP TABLE IF EXISTS ${prefix}_floor`);
  }
}

async function main() {
  if (!PG_URL) {
    console.log("stores-instances: skipped (set A2A_TEST_POSTGRES_URL; source .ci/engines.sh starts one)");
    return;
  }
  const list = (v) => v.split(",").map((s) => s.trim()).filter(Boolean);
  const instanceCounts = list(flag("instances", "1,3")).map(Number);
  const syncs = list(flag("sync", "on,off"));
  const poolFlag = flag("pool", "auto");
  if (poolFlag !== "auto" && !(Number(poolFlag) >= 1)) throw new Error(`--pool: expected auto or a positive number, got ${poolFlag}`);
  /** The pool of each instance of a configuration: fixed, or sized for the database (docs/stores.md). */
  const poolFor = (instances) => (poolFlag === "auto" ? Math.max(2, Math.round((3 * cpus().length) / instances)) : Number(poolFlag));
  const concurrency = Number(flag("concurrency", "16"));
  const durationMs = Number(flag("duration", "4")) * 1000;
  const warmupMs = Number(flag("warmup", "5")) * 1000;
  const rounds = Number(flag("rounds", "3"));
  const kinds = flag("floor", "on") === "off" ? ["a2a"] : ["a2a", "floor"];
  const machine = currentMachine();
  const printed = captureConsole();
  const buildDir = compileGenerated("1.0.1", ["server/core.ts"], "a2a-instances-bench-");
  process.on("exit", () => rmSync(buildDir, { recursive: true, force: true }));
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  const statStatements = await admin
    .query("SELECT 1 FROM pg_stat_statements LIMIT 1")
    .then(() => true)
    .catch(() => false);
  const settings = Object.fromEntries(
    (await admin.query("SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'wal_level', 'max_connections', 'shared_buffers', 'wal_writer_delay', 'commit_delay')")).rows.map((r) => [r.name, r.setting]),
  );
  const version = (await admin.query("SHOW server_version")).rows[0].server_version;
  console.log(`instances on one PostgreSQL ${version} — ${concurrency} sends in flight in all, split across the instances (separate processes, pool max ${poolFlag === "auto" ? `${instanceCounts.map((n) => `${poolFor(n)} each with ${n}`).join(", ")}: instances × pool.max near 3 × ${cpus().length} cores` : `${poolFlag} each`}); ${durationMs / 1000} s per run after ${warmupMs / 1000} s of warm-up in each instance, ${rounds} interleaved rounds`);
  console.log(`engine settings: ${Object.entries(settings).map(([k, v]) => `${k}=${v}`).join(", ")}; pg_stat_statements ${statStatements ? "loaded" : "not loaded (statements counted in each instance's driver)"}`);
  const probe = { ...(await quietProbe(2000)), load: machine.load };
  const configs = kinds.flatMap((kind) => syncs.flatMap((sync) => instanceCounts.map((instances) => ({ kind, instances, sync, pool: poolFor(instances), concurrency, durationMs, warmupMs }))));
  const keyOf = (c) => `${c.kind}/${c.instances}/${c.sync}`;
  const samples = new Map(configs.map((c) => [keyOf(c), []]));
  const label = (c) => (c.kind === "floor" ? "floor" : "A2A  ");
  for (let round = 0; round < rounds; round++) {
    console.log(`round ${round + 1} of ${rounds}`);
    for (let i = 0; i < configs.length; i++) {
      const config = configs[(i + round) % configs.length];
      const row = await runConfig(buildDir, admin, statStatements, config);
      samples.get(keyOf(config)).push(row);
      console.log(`  ${label(config)} ${config.instances} instance${config.instances === 1 ? " " : "s"}, synchronous_commit=${config.sync.padEnd(3)}  ${Math.round(row.perSecond).toString().padStart(6)} sends/s  p50 ${row.p50.toFixed(1)} ms  (others ${row.others.toFixed(2)} cores)`);
    }
  }
  await admin.end();
  const rows = configs.map((c) => ({ ...medianRound(samples.get(keyOf(c))), rounds: samples.get(keyOf(c)).map((r) => r.perSecond) }));
  const state = machineState({ probe, during: [...samples.values()].flat().map((r) => r.others), steals: [...samples.values()].flat().map((r) => r.steal) });
  const f = (x, d = 0) => (x === undefined ? "—" : x.toFixed(d));
  console.log(`\nBlocking one-turn SendMessage (A2A), and the floor (one INSERT of a task-sized row per send, no A2A runtime), ${concurrency} in flight in all; each row the median of ${rounds} rounds by sends/s (lowest–highest under "rounds"); busy cores: the instances' and PostgreSQL's CPU together, of ${machine.cpus}\n`);
  console.log("| sends | instances | synchronous_commit | sends/s | rounds | p50 ms | p99 ms | statements/send | transactions/send | WAL bytes/send | WAL writes/send | node CPU µs/send | PostgreSQL CPU µs/send | busy cores | connections |");
  console.log("|---|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    console.log(
      `| ${r.kind === "floor" ? "floor" : "A2A"} | ${r.instances} | ${r.sync} | ${f(r.perSecond)} | ${f(Math.min(...r.rounds))}–${f(Math.max(...r.rounds))} | ${f(r.p50, 1)} | ${f(r.p99, 1)} | ${f(r.statementsPerSend, 2)} | ${f(r.xactPerSend, 2)} | ${f(r.walBytesPerSend)} | ${f(r.walWritesPerSend, 2)} | ${f(r.nodeCpuUsPerSend)} | ${f(r.pgCpuUsPerSend)} | ${f(r.busyCores, 2)} | ${r.connections} |`,
    );
  }
  const profiled = rows.find((r) => r.kind === "a2a" && r.instances === Math.max(...instanceCounts) && r.sync === syncs[0]) ?? rows[0];
  console.log(`\nstatement profile of one send (${profiled.instances} instance${profiled.instances === 1 ? "" : "s"}, synchronous_commit=${profiled.sync}; per send, from the instances' drivers):`);
  for (const [text, perSend] of Object.entries(profiled.statements)) console.log(`  ${perSend.toFixed(2).padStart(5)}  ${text}`);
  if (profiled.pgStatStatements?.length) {
    console.log("pg_stat_statements (per send, mean execution time):");
    for (const s of profiled.pgStatStatements.slice(0, 12)) console.log(`  ${s.perSend.toFixed(2).padStart(5)}  ${s.msPerCall.toFixed(3)} ms  ${s.query}`);
  }
  console.log(`\n${state.summary}`);
  const one = rows.find((r) => r.kind === "a2a" && r.instances === 1 && r.sync === "on");
  const three = rows.find((r) => r.kind === "a2a" && r.instances === 3 && r.sync === "on");
  if (one && three) {
    const ratio = three.perSecond / one.perSecond;
    const result = rounds < 3 ? `no verdict (${rounds} round${rounds === 1 ? "" : "s"} < 3)` : verdict(ratio >= 1, state);
    console.log(`\ngoal (issue 30) — 3 instances ≥ 1 instance's sends/s on one PostgreSQL (synchronous_commit=on): ${f(three.perSecond)} / ${f(one.perSecond)} = ${ratio.toFixed(2)}× → ${result}`);
    const floorOne = rows.find((r) => r.kind === "floor" && r.instances === 1 && r.sync === "on");
    const floorThree = rows.find((r) => r.kind === "floor" && r.instances === 3 && r.sync === "on");
    if (floorOne && floorThree) {
      const floorRatio = floorThree.perSecond / floorOne.perSecond;
      console.log(
        `  the floor on the same machine: ${f(floorThree.perSecond)} / ${f(floorOne.perSecond)} = ${floorRatio.toFixed(2)}×; 1 A2A instance kept ${f(one.busyCores, 2)} of ${machine.cpus} cores busy ` +
          `(what 3 instances lose beyond the floor's loss: ${((ratio / floorRatio) * 100).toFixed(0)} % of the floor's ratio kept)`,
      );
    }
  }
  if (!process.argv.includes("--no-write")) {
    const command = `node bench/stores-instances.bench.mjs ${process.argv.slice(2).join(" ")}`.trim();
    writeReadmeSection("stores-instances", "Stores: instances on one PostgreSQL", printed(), { command, machine: machineLine(machine), state });
  }
}

if (process.argv[2] === "--child") {
  child().catch((error) => {
    console.error(error);
    process.exit(1);
  });
} else {
  main().then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
