// Store benchmark: the task lifecycle of a blocking SendMessage that completes in one turn, through the
// server's service (no HTTP: the store is what is measured), on each store — in-memory, SQLite, PostgreSQL,
// MySQL, Redis — beside @a2a-js/sdk 1.3's DefaultRequestHandler on its DatabaseTaskStore (Kysely over pg) on
// the same PostgreSQL, (Kysely's MysqlDialect over mysql2) on the same MySQL, and (Kysely's SqliteDialect
// over better-sqlite3) on SQLite, in the same run: lifecycles/s, p50/p99 latency and database round trips
// per SendMessage (every pg query, and every mysql2 query, counted the same way for both; SQLite
// statements, BEGIN and COMMIT included, ours by the store's counter, the SDK's by its prepare calls; Redis
// commands by the store's counter).
// Goals (issues 11, 36): ≥ 2× the SDK's req/s on each SQL engine, and ≤ 3 round trips (statements) per SendMessage.
//
//   npm run build && source .ci/engines.sh && node bench/stores.bench.mjs [--duration 4] [--concurrency 16]
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
import { availableEngines, BENCH_CARD as card, dropAndClose } from "./store-engines.mjs";
import { captureConsole, currentMachine, machineLine, writeReadmeSection } from "./readme-section.mjs";

const machine = currentMachine();


const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const duration = arg("duration", 4) * 1000;
const concurrency = arg("concurrency", 16);

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

/** Runs `once` from `concurrency` loops for `duration`; returns req/s and latency percentiles. */

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

async function measure(once) {
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
// Ours: the generated 1.0.1 server's service on each store

const build = compileGenerated("1.0.1", ["server/core.ts"], "a2a-stores-bench-");
const { createA2AServer } = await import(pathToFileURL(resolve(build, "server/core.js")).href);
const executor = { execute: (_ctx, events) => events.completed("done") };
const callContext = { headers: { "a2a-version": "1.0" }, signal: new AbortController().signal, binding: "JSONRPC" };
const message = () => ({ messageId: randomUUID(), role: "ROLE_USER", parts: [{ text: "hello" }] });

const results = [];
for (const { name, open } of availableEngines()) {
  const store = await open("bench");
  const core = createA2AServer({ card, executor, store, pushNotifications: false, logger: { error: (m, d) => console.error(m, d) } });
  const send = async () => {
    const result = await core.service.call("SendMessage", { message: message() }, callContext);
    if (result.task?.status?.state !== "TASK_STATE_COMPLETED") throw new Error(`unexpected answer ${JSON.stringify(result)}`);
  };
  await send(); // warm-up (prepared statements, scripts loaded)
  const trips = () => (name === "postgres" ? pgQueries : name === "mysql" ? mysqlQueries : (store.roundTrips?.count ?? 0));
  const before = trips();
  const m = await measure(send);
  const perRequest = name === "memory" ? 0 : (trips() - before) / m.n;
  results.push({ name: `a2a-codegen, ${name}`, ...m, roundTrips: perRequest });
  await core.close();
  await dropAndClose(store);
}

// ---------------------------------------------------------------------------------------------------
// Instances on one PostgreSQL (issue 30): 1 and 3 servers in this process, each with its own store (its own
// connection pool) on the same tables, the sends spread round-robin. One process: what this measures is
// the commit path's cost as instances (and connections) are added, not the CPU of more node processes.

const instanceRows = [];
const postgres = availableEngines().find((e) => e.name === "postgres");
if (postgres) {
  for (const count of [1, 3]) {
    const suffix = `${Date.now().toString(36)}n${count}`;
    const stores = [];
    for (let i = 0; i < count; i++) stores.push(await postgres.open("inst", suffix));
    const cores = stores.map((store, i) => createA2AServer({ card, executor, store, instanceId: `bench-${i}`, pushNotifications: false, logger: { error: (m, d) => console.error(m, d) } }));
    let next = 0;
    const send = async () => {
      const result = await cores[next++ % count].service.call("SendMessage", { message: message() }, callContext);
      if (result.task?.status?.state !== "TASK_STATE_COMPLETED") throw new Error(`unexpected answer ${JSON.stringify(result)}`);
    };
    for (let i = 0; i < count; i++) await send();
    const before = pgQueries;
    const m = await measure(send);
    instanceRows.push({ count, ...m, roundTrips: (pgQueries - before) / m.n });
    for (const core of cores) await core.close();
    for (const store of stores.slice(1)) await store.close();
    await dropAndClose(stores[0]);
  }
}

// ---------------------------------------------------------------------------------------------------
// @a2a-js/sdk 1.3: DefaultRequestHandler + DatabaseTaskStore (Kysely, PostgresDialect) on the same PostgreSQL

const pgUrl = process.env.A2A_TEST_POSTGRES_URL;
if (pgUrl) {
  const { Kysely, PostgresDialect } = await import("kysely");
  const { AgentCard, Message, TaskState } = await import("a2a-sdk-v1");
  const { AgentEvent, DefaultRequestHandler, ServerCallContext } = await import("a2a-sdk-v1/server");
  const { DatabaseTaskStore } = await import("a2a-sdk-v1/server/database");
  const table = `sdkbench${Date.now().toString(36)}_tasks`;
  const pool = new pg.Pool({ connectionString: pgUrl, max: 10 });
  const db = new Kysely({ dialect: new PostgresDialect({ pool }) });
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  // The table the SDK's `taskStoreMigrations` create for PostgreSQL (its CLI's DDL).
  await admin.query(`CREATE TABLE ${table} (
    tenant varchar(255) COLLATE "C" NOT NULL, owner varchar(255) COLLATE "C" NOT NULL, id varchar(36) COLLATE "C" NOT NULL,
    context_id varchar(36) COLLATE "C" NOT NULL, status_last_updated bigint NOT NULL, status_state varchar(255) COLLATE "C",
    status text, artifacts text, history text, metadata text, protocol_version varchar(255),
    CONSTRAINT ${table}_pkey PRIMARY KEY (tenant, owner, id));
    CREATE INDEX ${table}_scope_updated_idx ON ${table} (tenant, owner, status_last_updated, id);
    CREATE INDEX ${table}_scope_context_updated_idx ON ${table} (tenant, owner, context_id, status_last_updated, id);`);
  const sdkExecutor = sdkOneTurnExecutor({ AgentEvent, Message, TaskState });
  const handler = new DefaultRequestHandler(AgentCard.fromJSON(card), new DatabaseTaskStore(db, { tableName: table }), sdkExecutor);
  const { SendMessageRequest } = await import("a2a-sdk-v1");
  const send = async () => {
    const request = SendMessageRequest.fromJSON({ message: message() });
    const result = await handler.sendMessage(request, new ServerCallContext());
    if (result.status?.state !== TaskState.TASK_STATE_COMPLETED) throw new Error(`unexpected SDK answer ${JSON.stringify(result)}`);
  };
  await send();
  const before = pgQueries;
  const m = await measure(send);
  results.push({ name: "@a2a-js/sdk 1.3 DatabaseTaskStore, postgres", ...m, roundTrips: (pgQueries - before) / m.n });
  await db.destroy();
  await admin.query(`DROP TABLE ${table}`);
  await admin.end();
} else console.log("@a2a-js/sdk DatabaseTaskStore: skipped (set A2A_TEST_POSTGRES_URL)");

// ---------------------------------------------------------------------------------------------------
// @a2a-js/sdk 1.3: DefaultRequestHandler + DatabaseTaskStore (Kysely, MysqlDialect over a mysql2 pool) on the same MySQL

const mysqlUrl = process.env.A2A_TEST_MYSQL_URL;
if (mysqlUrl) {
  const { Kysely, MysqlDialect } = await import("kysely");
  const { AgentCard, Message, TaskState, SendMessageRequest } = await import("a2a-sdk-v1");
  const { AgentEvent, DefaultRequestHandler, ServerCallContext } = await import("a2a-sdk-v1/server");
  const { DatabaseTaskStore } = await import("a2a-sdk-v1/server/database");
  const table = `sdkbench${Date.now().toString(36)}_tasks`;
  const pool = mysqlCore.createPool({ uri: mysqlUrl, connectionLimit: 10 });
  const db = new Kysely({ dialect: new MysqlDialect({ pool }) });
  const admin = await (await import("mysql2/promise")).createConnection({ uri: mysqlUrl, multipleStatements: true });
  // The table the SDK's migrations create for MySQL (its a2a-db CLI's DDL), with utf8mb4_bin for its
  // utf8mb4_0900_bin, which MariaDB lacks (both compare bytes).
  await admin.query(`CREATE TABLE ${table} (
    tenant varchar(255) COLLATE utf8mb4_bin NOT NULL, owner varchar(255) COLLATE utf8mb4_bin NOT NULL, id varchar(36) COLLATE utf8mb4_bin NOT NULL,
    context_id varchar(36) COLLATE utf8mb4_bin NOT NULL, status_last_updated bigint NOT NULL, status_state varchar(255) COLLATE utf8mb4_bin,
    status longtext, artifacts longtext, history longtext, metadata longtext, protocol_version varchar(255),
    CONSTRAINT ${table}_pkey PRIMARY KEY (tenant, owner, id)) DEFAULT CHARSET=utf8mb4;
    CREATE INDEX ${table}_scope_updated_idx ON ${table} (tenant, owner, status_last_updated, id);
    CREATE INDEX ${table}_scope_context_updated_idx ON ${table} (tenant, owner, context_id, status_last_updated, id);`);
  const sdkExecutor = sdkOneTurnExecutor({ AgentEvent, Message, TaskState });
  const handler = new DefaultRequestHandler(AgentCard.fromJSON(card), new DatabaseTaskStore(db, { tableName: table }), sdkExecutor);
  const send = async () => {
    const result = await handler.sendMessage(SendMessageRequest.fromJSON({ message: message() }), new ServerCallContext());
    if (result.status?.state !== TaskState.TASK_STATE_COMPLETED) throw new Error(`unexpected SDK answer ${JSON.stringify(result)}`);
  };
  await send();
  const before = mysqlQueries;
  const m = await measure(send);
  results.push({ name: "@a2a-js/sdk 1.3 DatabaseTaskStore, mysql", ...m, roundTrips: (mysqlQueries - before) / m.n });
  await db.destroy();
  await admin.query(`DROP TABLE ${table}`);
  await admin.end();
} else console.log("@a2a-js/sdk DatabaseTaskStore on MySQL: skipped (set A2A_TEST_MYSQL_URL)");

// ---------------------------------------------------------------------------------------------------
// @a2a-js/sdk 1.3's DatabaseTaskStore on SQLite (Kysely's SqliteDialect over better-sqlite3, the driver its
// a2a-db CLI uses for sqlite: URLs), in WAL mode like ours; statements counted by the SDK's prepare calls.

{
  const { Kysely, SqliteDialect } = await import("kysely");
  const Database = (await import("better-sqlite3")).default;
  const { AgentCard, Message, TaskState, SendMessageRequest } = await import("a2a-sdk-v1");
  const { AgentEvent, DefaultRequestHandler, ServerCallContext } = await import("a2a-sdk-v1/server");
  const { DatabaseTaskStore } = await import("a2a-sdk-v1/server/database");
  const dir = mkdtempSync(join(tmpdir(), "a2a-bench-sdk-sqlite-"));
  const sqlite = new Database(join(dir, "sdk.db"));
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  let statements = 0;
  const prepare = sqlite.prepare.bind(sqlite);
  sqlite.prepare = (text) => (statements++, prepare(text));
  // The table the SDK's migrations create for SQLite (its a2a-db CLI's DDL: "collate binary", text payloads).
  sqlite.exec(`CREATE TABLE a2a_tasks (
    tenant varchar(255) collate binary NOT NULL, owner varchar(255) collate binary NOT NULL, id varchar(36) collate binary NOT NULL,
    context_id varchar(36) collate binary NOT NULL, status_last_updated bigint NOT NULL, status_state varchar(255) collate binary,
    status text, artifacts text, history text, metadata text, protocol_version varchar(255),
    CONSTRAINT a2a_tasks_pkey PRIMARY KEY (tenant, owner, id));
    CREATE INDEX a2a_tasks_scope_updated_idx ON a2a_tasks (tenant, owner, status_last_updated, id);
    CREATE INDEX a2a_tasks_scope_context_updated_idx ON a2a_tasks (tenant, owner, context_id, status_last_updated, id);`);
  const db = new Kysely({ dialect: new SqliteDialect({ database: sqlite }) });
  const sdkExecutor = sdkOneTurnExecutor({ AgentEvent, Message, TaskState });
  const handler = new DefaultRequestHandler(AgentCard.fromJSON(card), new DatabaseTaskStore(db, { tableName: "a2a_tasks" }), sdkExecutor);
  const send = async () => {
    const result = await handler.sendMessage(SendMessageRequest.fromJSON({ message: message() }), new ServerCallContext());
    if (result.status?.state !== TaskState.TASK_STATE_COMPLETED) throw new Error(`unexpected SDK answer ${JSON.stringify(result)}`);
  };
  await send();
  const before = statements;
  const m = await measure(send);
  results.push({ name: "@a2a-js/sdk 1.3 DatabaseTaskStore, sqlite", ...m, roundTrips: (statements - before) / m.n });
  await db.destroy();
  rmSync(dir, { recursive: true, force: true });
}

rmSync(build, { recursive: true, force: true });

const printed = captureConsole();
console.log(`\nBlocking one-turn SendMessage, ${concurrency} concurrent, ${duration / 1000} s each (node ${process.version})\n`);
console.log("| store | req/s | p50 ms | p99 ms | round trips / request |");
console.log("|---|---:|---:|---:|---:|");
for (const r of results) console.log(`| ${r.name} | ${r.perSecond} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.roundTrips.toFixed(2)} |`);
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
  console.log("| instances | req/s | p50 ms | p99 ms | round trips / request |");
  console.log("|---:|---:|---:|---:|---:|");
  for (const r of instanceRows) console.log(`| ${r.count} | ${r.perSecond} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.roundTrips.toFixed(2)} |`);
}
if (!process.argv.includes("--no-write")) {
  const command = `node bench/stores.bench.mjs ${process.argv.slice(2).join(" ")}`.trim();
  writeReadmeSection("stores", "Stores: one-turn tasks on each engine", printed(), { command, machine: machineLine(machine) });
}
process.exit(0);
