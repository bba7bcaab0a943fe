// Store benchmark: the task lifecycle of a blocking SendMessage that completes in one turn, through the
// server's service (no HTTP: the store is what is measured), on each store — in-memory, SQLite, PostgreSQL,
// MySQL, Redis — beside @a2a-js/sdk 1.3's DefaultRequestHandler on its DatabaseTaskStore (Kysely over pg) on
// the same PostgreSQL, (Kysely's MysqlDialect over mysql2) on the same MySQL, and (Kysely's SqliteDialect
// over better-sqlite3) on SQLite, in the same run: lifecycles/s, p50/p99 latency and database round trips
// per SendMessage (every pg query, and every mysql2 query, counted the same way for both; SQLite
// statements, BEGIN and COMMIT included, ours by the store's counter, the SDK's by its prepare calls; Redis
// commands by the store's counter).
// Goals (issues 11, 36): ≥ 2× the SDK's req/s on each SQL engine, and ≤ 3 round trips (statements) per SendMessage.
// Every contender runs once a round on fresh tables, the order rotating from round to round, each after the
// machine has settled; a row is its median round (one run of a few seconds moves by tens of percent here).
//
//   npm run build && source .ci/engines.sh && node bench/stores.bench.mjs [--duration 4] [--concurrency 16] [--rounds 3]
//
// Engines come from A2A_TEST_POSTGRES_URL / A2A_TEST_MYSQL_URL / A2A_TEST_REDIS_URL; a missing one is skipped with a message.
// Each run uses its own table / key prefix and deletes it afterwards.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import mysqlCore from "mysql2";
import pg from "pg";
import { compileGenerated } from "./compile-generated.mjs";
import { availableEngines, BENCH_CARD as card, dropAndClose, InMemoryStore, medianRound } from "./store-engines.mjs";
import { captureConsole, currentMachine, machineLine, writeReadmeSection } from "./readme-section.mjs";
import { quietProbe } from "./machine-load.mjs";

const machine = currentMachine();


const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const duration = arg("duration", 4) * 1000;
const concurrency = arg("concurrency", 16);
const rounds = arg("rounds", 3);

// Every PostgreSQL round trip of this process (ours and the SDK's alike): one per Client#query call.
let pgQueries = 0;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (...args) {
  pgQueries++;
  return query.apply(this, args);
};

// Every MySQL round trip of this process (ours and the SDK's alike): one per Connection#query / #execute call.
let mysqlQueries = 0;
for (const method of ["query", "execute"]) {
  const original = mysqlCore.Connection.prototype[method];
  mysqlCore.Connection.prototype[method] = function (...args) {
    mysqlQueries++;
    return original.apply(this, args);
  };
}

/**
 * Waits (up to 30 s) until the machine is quiet: the engines' work after the previous run (PostgreSQL's
 * autovacuum and checkpoints, InnoDB's purge and dropped tables' pages) would otherwise run during the
 * next contender's and cost it, not the one that caused it.
 */
async function settled() {
  const until = Date.now() + 30_000;
  let probe = await quietProbe(500);
  while (probe.othersCores >= 0.05 && Date.now() < until) probe = await quietProbe(500);
  if (probe.othersCores >= 0.05) console.log(`(the machine did not settle: other processes used ${probe.othersCores.toFixed(2)} cores before this run)`);
}

/** The SDK's executor in the store benches: one turn, a submitted task then its completion with a message "done". */
function sdkOneTurnExecutor({ AgentEvent, Message, TaskState }) {
  const now = () => new Date().toISOString();
  return {
    async execute(ctx, bus) {
      const { taskId, contextId, userMessage } = ctx;
      bus.publish(AgentEvent.task({ id: taskId, contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: now(), message: undefined }, artifacts: [], history: [userMessage], metadata: undefined }));
      const done = Message.fromJSON({ messageId: randomUUID(), role: "ROLE_AGENT", parts: [{ text: "done" }], taskId, contextId });
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: { state: TaskState.TASK_STATE_COMPLETED, timestamp: now(), message: done }, metadata: undefined }));
      bus.finished();
    },
    async cancelTask() {},
  };
}

/** Runs `once` from `concurrency` loops for `duration` (once the machine is quiet); returns req/s and latency percentiles. */
async function measure(once) {
  await settled();
  const latencies = [];
  const end = Date.now() + duration;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) {
        const start = performance.now();
        await once();
        latencies.push(performance.now() - start);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { n: latencies.length, perSecond: Math.round(latencies.length / (duration / 1000)), p50: at(0.5), p99: at(0.99) };
}

// ---------------------------------------------------------------------------------------------------
// The contenders: each `setup()` opens its store and server and returns { send, trips, teardown }, so that
// every round measures each of them afresh (its own tables), in an order that rotates from round to round.

const build = compileGenerated("1.0.1", ["server/core.ts"], "a2a-stores-bench-");
const { createA2AServer } = await import(pathToFileURL(resolve(build, "server/core.js")).href);
const executor = { execute: (_ctx, events) => events.completed("done") };
const callContext = { headers: { "a2a-version": "1.0" }, signal: new AbortController().signal, binding: "JSONRPC" };
const message = () => ({ messageId: randomUUID(), role: "ROLE_USER", parts: [{ text: "hello" }] });
const logger = { error: (m, d) => console.error(m, d) };

/** Our server's service on one store; its round trips: pg and mysql2 queries, else the store's counter. */
function oursOn(name, open) {
  return {
    name: `a2a-codegen, ${name}`,
    async setup() {
      const store = await open("bench");
      const core = createA2AServer({ card, executor, store, pushNotifications: false, logger });
      const trips = () => (name === "memory" ? 0 : name === "postgres" ? pgQueries : name === "mysql" ? mysqlQueries : (store.roundTrips?.count ?? 0));
      const send = async () => {
        const result = await core.service.call("SendMessage", { message: message() }, callContext);
        if (result.task?.status?.state !== "TASK_STATE_COMPLETED") throw new Error(`unexpected answer ${JSON.stringify(result)}`);
      };
      return { send, trips, teardown: async () => (await core.close(), await dropAndClose(store)) };
    },
  };
}

/**
 * @a2a-js/sdk 1.3's DefaultRequestHandler on its DatabaseTaskStore (Kysely) over `dialect()`, on the table
 * its migrations create (`ddl(table)`, its a2a-db CLI's DDL for the engine).
 */
function sdkOn(name, { dialect, ddl, trips }) {
  return {
    name: `@a2a-js/sdk 1.3 DatabaseTaskStore, ${name}`,
    async setup() {
      const { Kysely } = await import("kysely");
      const { AgentCard, Message, TaskState, SendMessageRequest } = await import("a2a-sdk-v1");
      const { AgentEvent, DefaultRequestHandler, ServerCallContext } = await import("a2a-sdk-v1/server");
      const { DatabaseTaskStore } = await import("a2a-sdk-v1/server/database");
      const table = `sdkbench${Date.now().toString(36)}_tasks`;
      const engine = await dialect();
      await engine.exec(ddl(table));
      const db = new Kysely({ dialect: engine.dialect });
      const handler = new DefaultRequestHandler(AgentCard.fromJSON(card), new DatabaseTaskStore(db, { tableName: table }), sdkOneTurnExecutor({ AgentEvent, Message, TaskState }));
      const send = async () => {
        const result = await handler.sendMessage(SendMessageRequest.fromJSON({ message: message() }), new ServerCallContext());
        if (result.status?.state !== TaskState.TASK_STATE_COMPLETED) throw new Error(`unexpected SDK answer ${JSON.stringify(result)}`);
      };
      return { send, trips: engine.trips ?? trips, teardown: async () => (await db.destroy(), await engine.drop(table)) };
    },
  };
}

const contenders = availableEngines().map(({ name, open }) => oursOn(name, open));

// The in-memory store once it is full: a long-running agent's, at its bound (maxTasks, 100,000 by default),
// where every new task drops the least recently written one. Filled before the run with finished tasks
// (written straight to the store: a send each would take most of a round).
const full = oursOn("memory at its bound (100,000 tasks kept)", async () => {
  const store = new InMemoryStore();
  const contextId = randomUUID();
  for (let i = 0; i < 100_000; i++) {
    const id = randomUUID();
    const history = [{ messageId: randomUUID(), role: "ROLE_USER", parts: [{ text: "hello" }], taskId: id, contextId }];
    await store.tasks.commit({ task: { id, contextId, status: { state: "TASK_STATE_COMPLETED", timestamp: new Date().toISOString() }, history }, expectedVersion: 0 });
  }
  return store;
});
contenders.push(full);

const pgUrl = process.env.A2A_TEST_POSTGRES_URL;
if (pgUrl) {
  contenders.push(
    sdkOn("postgres", {
      trips: () => pgQueries,
      async dialect() {
        const { PostgresDialect } = await import("kysely");
        const admin = new pg.Client({ connectionString: pgUrl });
        await admin.connect();
        return {
          dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: pgUrl, max: 10 }) }),
          exec: (sql) => admin.query(sql),
          drop: async (table) => (await admin.query(`DROP TABLE ${table}`), await admin.end()),
        };
      },
      ddl: (table) => `CREATE TABLE ${table} (
        tenant varchar(255) COLLATE "C" NOT NULL, owner varchar(255) COLLATE "C" NOT NULL, id varchar(36) COLLATE "C" NOT NULL,
        context_id varchar(36) COLLATE "C" NOT NULL, status_last_updated bigint NOT NULL, status_state varchar(255) COLLATE "C",
        status text, artifacts text, history text, metadata text, protocol_version varchar(255),
        CONSTRAINT ${table}_pkey PRIMARY KEY (tenant, owner, id));
        CREATE INDEX ${table}_scope_updated_idx ON ${table} (tenant, owner, status_last_updated, id);
        CREATE INDEX ${table}_scope_context_updated_idx ON ${table} (tenant, owner, context_id, status_last_updated, id);`,
    }),
  );
} else console.log("@a2a-js/sdk DatabaseTaskStore: skipped (set A2A_TEST_POSTGRES_URL)");

const mysqlUrl = process.env.A2A_TEST_MYSQL_URL;
if (mysqlUrl) {
  contenders.push(
    sdkOn("mysql", {
      trips: () => mysqlQueries,
      async dialect() {
        const { MysqlDialect } = await import("kysely");
        const admin = await (await import("mysql2/promise")).createConnection({ uri: mysqlUrl, multipleStatements: true });
        return {
          // Kysely's MysqlDialect over a mysql2 pool.
          dialect: new MysqlDialect({ pool: mysqlCore.createPool({ uri: mysqlUrl, connectionLimit: 10 }) }),
          exec: (sql) => admin.query(sql),
          drop: async (table) => (await admin.query(`DROP TABLE ${table}`), await admin.end()),
        };
      },
      // utf8mb4_bin for its utf8mb4_0900_bin, which MariaDB lacks (both compare bytes).
      ddl: (table) => `CREATE TABLE ${table} (
        tenant varchar(255) COLLATE utf8mb4_bin NOT NULL, owner varchar(255) COLLATE utf8mb4_bin NOT NULL, id varchar(36) COLLATE utf8mb4_bin NOT NULL,
        context_id varchar(36) COLLATE utf8mb4_bin NOT NULL, status_last_updated bigint NOT NULL, status_state varchar(255) COLLATE utf8mb4_bin,
        status longtext, artifacts longtext, history longtext, metadata longtext, protocol_version varchar(255),
        CONSTRAINT ${table}_pkey PRIMARY KEY (tenant, owner, id)) DEFAULT CHARSET=utf8mb4;
        CREATE INDEX ${table}_scope_updated_idx ON ${table} (tenant, owner, status_last_updated, id);
        CREATE INDEX ${table}_scope_context_updated_idx ON ${table} (tenant, owner, context_id, status_last_updated, id);`,
    }),
  );
} else console.log("@a2a-js/sdk DatabaseTaskStore on MySQL: skipped (set A2A_TEST_MYSQL_URL)");

// On SQLite: Kysely's SqliteDialect over better-sqlite3 (the driver its a2a-db CLI uses for sqlite: URLs), in
// WAL mode like ours; statements counted by the SDK's prepare calls.
contenders.push(
  sdkOn("sqlite", {
    async dialect() {
      const { SqliteDialect } = await import("kysely");
      const Database = (await import("better-sqlite3")).default;
      const dir = mkdtempSync(join(tmpdir(), "a2a-bench-sdk-sqlite-"));
      const sqlite = new Database(join(dir, "sdk.db"));
      sqlite.pragma("journal_mode = WAL");
      sqlite.pragma("synchronous = NORMAL");
      let statements = 0;
      const prepare = sqlite.prepare.bind(sqlite);
      sqlite.prepare = (text) => (statements++, prepare(text));
      return {
        dialect: new SqliteDialect({ database: sqlite }),
        exec: (sql) => sqlite.exec(sql),
        trips: () => statements,
        drop: async () => rmSync(dir, { recursive: true, force: true }),
      };
    },
    ddl: (table) => `CREATE TABLE ${table} (
      tenant varchar(255) collate binary NOT NULL, owner varchar(255) collate binary NOT NULL, id varchar(36) collate binary NOT NULL,
      context_id varchar(36) collate binary NOT NULL, status_last_updated bigint NOT NULL, status_state varchar(255) collate binary,
      status text, artifacts text, history text, metadata text, protocol_version varchar(255),
      CONSTRAINT ${table}_pkey PRIMARY KEY (tenant, owner, id));
      CREATE INDEX ${table}_scope_updated_idx ON ${table} (tenant, owner, status_last_updated, id);
      CREATE INDEX ${table}_scope_context_updated_idx ON ${table} (tenant, owner, context_id, status_last_updated, id);`,
  }),
);

// Instances on one PostgreSQL (issue 30): 1 and 3 servers in this process, each with its own store (its own
// connection pool) on the same tables, the sends spread round-robin. One process: what this measures is
// the commit path's cost as instances (and connections) are added, not the CPU of more node processes.
const postgres = availableEngines().find((e) => e.name === "postgres");
if (postgres) {
  for (const count of [1, 3]) {
    contenders.push({
      name: `instances: ${count}`,
      instances: count,
      async setup() {
        const suffix = `${Date.now().toString(36)}n${count}`;
        const stores = [];
        for (let i = 0; i < count; i++) stores.push(await postgres.open("inst", suffix));
        const cores = stores.map((store, i) => createA2AServer({ card, executor, store, instanceId: `bench-${i}`, pushNotifications: false, logger }));
        let next = 0;
        const send = async () => {
          const result = await cores[next++ % count].service.call("SendMessage", { message: message() }, callContext);
          if (result.task?.status?.state !== "TASK_STATE_COMPLETED") throw new Error(`unexpected answer ${JSON.stringify(result)}`);
        };
        for (let i = 1; i < count; i++) await send(); // each instance warmed up (the first by the round's warm-up send)
        const teardown = async () => {
          for (const core of cores) await core.close();
          for (const store of stores.slice(1)) await store.close();
          await dropAndClose(stores[0]);
        };
        return { send, trips: () => pgQueries, teardown };
      },
    });
  }
}

// The rounds: each contender set up, warmed up (one send: prepared statements, scripts loaded), measured and
// torn down, in an order that rotates from round to round; each row is the median round by req/s.
const runs = new Map(contenders.map((c) => [c.name, []]));
for (let round = 0; round < rounds; round++) {
  for (let i = 0; i < contenders.length; i++) {
    const contender = contenders[(i + round) % contenders.length];
    const { send, trips, teardown } = await contender.setup();
    try {
      await send();
      const before = trips();
      const m = await measure(send);
      runs.get(contender.name).push({ ...m, roundTrips: (trips() - before) / m.n });
    } finally {
      await teardown();
    }
  }
}
const results = contenders.filter((c) => c.instances === undefined).map((c) => ({ name: c.name, ...medianRound(runs.get(c.name)) }));
const instanceRows = contenders.filter((c) => c.instances !== undefined).map((c) => ({ count: c.instances, ...medianRound(runs.get(c.name)) }));
/** The req/s of each round, for the table (how much the rounds agree). */
const spread = (name) => runs.get(name).map((r) => r.perSecond).join(" / ");

rmSync(build, { recursive: true, force: true });

const printed = captureConsole();
console.log(`\nBlocking one-turn SendMessage, ${concurrency} concurrent, ${duration / 1000} s each, ${rounds} round(s), the median round (node ${process.version})\n`);
console.log("| store | req/s | p50 ms | p99 ms | round trips / request | req/s of each round |");
console.log("|---|---:|---:|---:|---:|---|");
for (const r of results) console.log(`| ${r.name} | ${r.perSecond} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.roundTrips.toFixed(2)} | ${spread(r.name)} |`);
const empty = results.find((r) => r.name === "a2a-codegen, memory");
const atBound = results.find((r) => r.name === full.name);
if (empty && atBound) {
  // A bounded store that slows down once it is full punishes the agents that run longest.
  const share = atBound.perSecond / empty.perSecond;
  console.log(`\nIn-memory store at its bound: ${(100 * share).toFixed(0)} % of the empty store's req/s (goal ≥ 85 %): ${share >= 0.85 ? "PASS" : "MISS"}`);
}
const oursSqlite = results.find((r) => r.name === "a2a-codegen, sqlite");
const sdkSqlite = results.find((r) => r.name === "@a2a-js/sdk 1.3 DatabaseTaskStore, sqlite");
if (oursSqlite && sdkSqlite) {
  const ratio = oursSqlite.perSecond / sdkSqlite.perSecond;
  console.log(`\nSQLite: ${ratio.toFixed(2)}× the SDK's req/s (goal ≥ 2×): ${ratio >= 2 ? "PASS" : "MISS"}`);
  console.log(`SQLite: ${oursSqlite.roundTrips.toFixed(2)} statements per SendMessage, BEGIN and COMMIT included (goal ≤ 3): ${oursSqlite.roundTrips <= 3 ? "PASS" : "MISS"}`);
}
const ours = results.find((r) => r.name === "a2a-codegen, postgres");
const sdk = results.find((r) => r.name === "@a2a-js/sdk 1.3 DatabaseTaskStore, postgres");
if (ours && sdk) {
  const ratio = ours.perSecond / sdk.perSecond;
  console.log(`\nPostgreSQL: ${ratio.toFixed(2)}× the SDK's req/s (goal ≥ 2×): ${ratio >= 2 ? "PASS" : "MISS"}`);
  console.log(`PostgreSQL: ${ours.roundTrips.toFixed(2)} round trips per SendMessage (goal ≤ 3): ${ours.roundTrips <= 3 ? "PASS" : "MISS"}`);
}
const oursMysql = results.find((r) => r.name === "a2a-codegen, mysql");
const sdkMysql = results.find((r) => r.name === "@a2a-js/sdk 1.3 DatabaseTaskStore, mysql");
if (oursMysql && sdkMysql) {
  const ratio = oursMysql.perSecond / sdkMysql.perSecond;
  console.log(`\nMySQL: ${ratio.toFixed(2)}× the SDK's req/s (goal ≥ 2×): ${ratio >= 2 ? "PASS" : "MISS"}`);
  console.log(`MySQL: ${oursMysql.roundTrips.toFixed(2)} round trips per SendMessage (goal ≤ 3): ${oursMysql.roundTrips <= 3 ? "PASS" : "MISS"}`);
}
if (instanceRows.length > 0) {
  console.log(`\nInstances on one PostgreSQL (one process, each instance its own pool, sends round-robin)\n`);
  console.log("| instances | req/s | p50 ms | p99 ms | round trips / request | req/s of each round |");
  console.log("|---:|---:|---:|---:|---:|---|");
  for (const r of instanceRows) console.log(`| ${r.count} | ${r.perSecond} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.roundTrips.toFixed(2)} | ${spread(`instances: ${r.count}`)} |`);
}
if (!process.argv.includes("--no-write")) {
  const command = `node bench/stores.bench.mjs ${process.argv.slice(2).join(" ")}`.trim();
  writeReadmeSection("stores", "Stores: one-turn tasks on each engine", printed(), { command, machine: machineLine(machine) });
}
process.exit(0);
