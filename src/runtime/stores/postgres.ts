/**
 * The PostgreSQL store (node-postgres `pg`): tasks, push configs, task event logs, the push outbox and
 * execution leases in tables it creates and migrates itself.
 *
 * - Migrations are versioned (`<prefix>migrations`) and run in one transaction under an advisory lock,
 *   so that several instances starting at once migrate once.
 * - Task updates are compare-and-set on a `version` column; a commit writes the task, its events and
 *   its push notifications in one statement (one round trip, atomic).
 * - Live event subscriptions use LISTEN/NOTIFY on one connection per store: the notification only
 *   says which task changed; events are read from the log after the last sequence delivered.
 * - Time (leases, outbox, retention) is the database's clock, so instances need not agree on theirs.
 * - A lost connection gives `StoreUnavailableError` (bounded by `connectTimeoutMs` and
 *   `queryTimeoutMs`, never a hang or a crash); the pool and the listener reconnect by themselves.
 */
import { createHash } from "node:crypto";
import pg from "pg";
import { ExecutionLeaseHeldError, StoreError, StoreUnavailableError, TaskVersionConflictError } from "./errors.js";
import { decodePageToken, encodePageToken, pageSizeOf } from "./paging.js";
import { pushConfigId, storableJson, taskFacts } from "./task-json.js";
import type { A2AStore, EventSubscription, EventSubscriptionOptions, ExecutionLeases, LeaseHolder, LoggedEvent, OutboxEntry, OutboxMessage, PushConfigStore, PushOutbox, TaskCommit, TaskCommitResult, TaskEventInput, TaskEventLog, TaskPage, TaskQuery, VersionedTask, VersionedTaskStore } from "./contract.js";
import type { JsonObject } from "../json.js";
import { LogFollower } from "./follower.js";
import { TaskPatchPolicy, withPatches } from "./patch-policy.js";
import type { TaskPatchOperation } from "./task-patch.js";

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database` (or a `pg` pool config in `pool`). */
  connectionString?: string;
  /** Extra `pg` pool settings (ssl, max, ...); `connectionString` wins over its own. */
  pool?: pg.PoolConfig;
  /** Prefix of the tables (letters, digits, `_`); default "a2a_". */
  tablePrefix?: string;
  /** Longest wait for a connection, in ms; default 5_000. */
  connectTimeoutMs?: number;
  /** Longest wait for a query, in ms; default 10_000. */
  queryTimeoutMs?: number;
  /** Run the migrations when connecting; default true. */
  migrate?: boolean;
  /** Where connection errors seen in the background are reported; default: nowhere (they surface as StoreUnavailableError). */
  onBackgroundError?: (error: StoreError) => void;
}

/** Counts the statements sent, per operation, for benchmarks (round trips per request). */
export interface RoundTripCounter {
  count: number;
}

const ENGINE = "postgres";
const UNAVAILABLE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH", "EAI_AGAIN", "57P01", "57P02", "57P03", "53300"]);

/** Maps a driver error to a store error: the engine's unavailability, or a failure naming the operation. */
export function postgresError(error: unknown, operation: string): StoreError {
  if (error instanceof StoreError) return error;
  const code = typeof error === "object" && error !== null && "code" in error ? String((error as { code: unknown }).code) : "";
  const message = error instanceof Error ? error.message : String(error);
  if (UNAVAILABLE_CODES.has(code) || code.startsWith("08") || /terminat|timeout|timed out|connection|not queryable|ended/i.test(message)) {
    return new StoreUnavailableError(ENGINE, `${operation}: ${message}`, { cause: error });
  }
  return new StoreError(`${ENGINE} store: ${operation} failed: ${message}`, "failed", { cause: error });
}

/** The versioned schema: migration N is `MIGRATIONS[N - 1]`; never edit a published one, add one. */
function migrations(p: string): string[] {
  return [
    `CREATE TABLE ${p}tasks (
       id text COLLATE "C" PRIMARY KEY,
       context_id text COLLATE "C" NOT NULL,
       state text COLLATE "C" NOT NULL,
       terminal boolean NOT NULL,
       status_time bigint NOT NULL,
       version integer NOT NULL,
       last_seq bigint NOT NULL DEFAULT 0,
       updated_at timestamptz NOT NULL DEFAULT now(),
       task json NOT NULL
     );
     CREATE INDEX ${p}tasks_recent ON ${p}tasks (status_time, id);
     CREATE INDEX ${p}tasks_context ON ${p}tasks (context_id, status_time, id);
     CREATE INDEX ${p}tasks_state ON ${p}tasks (state, status_time, id);
     CREATE INDEX ${p}tasks_context_state ON ${p}tasks (context_id, state, status_time, id);
     CREATE INDEX ${p}tasks_finished ON ${p}tasks (updated_at) WHERE terminal;
     CREATE TABLE ${p}events (
       task_id text COLLATE "C" NOT NULL REFERENCES ${p}tasks (id) ON DELETE CASCADE,
       seq bigint NOT NULL,
       final boolean NOT NULL,
       event json NOT NULL,
       PRIMARY KEY (task_id, seq)
     );
     CREATE TABLE ${p}push_configs (
       task_id text COLLATE "C" NOT NULL,
       config_id text COLLATE "C" NOT NULL,
       position bigserial NOT NULL,
       config json NOT NULL,
       PRIMARY KEY (task_id, config_id)
     );
     CREATE TABLE ${p}outbox (
       id bigserial PRIMARY KEY,
       task_id text NOT NULL,
       target json NOT NULL,
       payload json NOT NULL,
       attempts integer NOT NULL DEFAULT 0,
       due_at timestamptz NOT NULL DEFAULT now(),
       owner text
     );
     CREATE INDEX ${p}outbox_due ON ${p}outbox (due_at, id);
     CREATE TABLE ${p}leases (
       task_id text COLLATE "C" PRIMARY KEY,
       owner text NOT NULL,
       expires_at timestamptz NOT NULL
     );
     CREATE INDEX ${p}leases_expiry ON ${p}leases (expires_at);`,
    // 2: the owner scope of each task (1.0.1 §13.1), beside the task; ListTasks filters on it.
    `ALTER TABLE ${p}tasks ADD COLUMN owner text COLLATE "C" NOT NULL DEFAULT '';
     CREATE INDEX ${p}tasks_owner ON ${p}tasks (owner, status_time, id);
     CREATE INDEX ${p}tasks_owner_context ON ${p}tasks (owner, context_id, status_time, id);`,
    // 3: the patches of a running task's interim writes kept after its last whole text (patch-policy.ts),
    // by the version each made; a whole write deletes them. The id of each task's last write (writeId).
    `ALTER TABLE ${p}tasks ADD COLUMN last_write text;
     CREATE TABLE ${p}task_patches (
       task_id text COLLATE "C" NOT NULL REFERENCES ${p}tasks (id) ON DELETE CASCADE,
       version integer NOT NULL,
       patch json NOT NULL,
       PRIMARY KEY (task_id, version)
     );`,
  ];
}

interface Queryable {
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

export class PostgresStore implements A2AStore {
  readonly engine = ENGINE;
  readonly tasks: PostgresTaskStore;
  readonly pushConfigs: PostgresPushConfigStore;
  readonly events: PostgresTaskEventLog;
  readonly outbox: PostgresPushOutbox;
  readonly leases: PostgresExecutionLeases;
  /** Statements sent so far (round trips), for benchmarks. */
  readonly roundTrips: RoundTripCounter = { count: 0 };
  private closed = false;

  private readonly pool: pg.Pool;
  readonly prefix: string;
  private readonly listener: NotificationListener;

  private constructor(
    pool: pg.Pool,
    prefix: string,
    listener: NotificationListener,
  ) {
    this.pool = pool;
    this.prefix = prefix;
    this.listener = listener;
    const db = this.db();
    this.tasks = new PostgresTaskStore(db, prefix, listener.channel);
    this.pushConfigs = new PostgresPushConfigStore(db, prefix);
    this.events = new PostgresTaskEventLog(db, prefix, listener);
    this.outbox = new PostgresPushOutbox(db, prefix);
    this.leases = new PostgresExecutionLeases(db, prefix);
  }

  /** Connects, runs the pending migrations, and returns the store; `StoreUnavailableError` when the engine cannot be reached. */
  static async connect(options: PostgresStoreOptions): Promise<PostgresStore> {
    const prefix = options.tablePrefix ?? "a2a_";
    if (!/^[a-z_][a-z0-9_]{0,39}$/.test(prefix)) throw new StoreError(`tablePrefix: expected lower-case letters, digits and "_" (at most 40), got ${JSON.stringify(prefix)}`, "invalid");
    const config: pg.PoolConfig = {
      max: 10,
      idleTimeoutMillis: 30_000,
      ...options.pool,
      ...(options.connectionString !== undefined ? { connectionString: options.connectionString } : {}),
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
      query_timeout: options.queryTimeoutMs ?? 10_000,
      // text and json read back as they were written (see "Strings PostgreSQL cannot hold").
      types: STORED_TYPES,
    };
    const pool = new pg.Pool(config);
    // An idle connection the server closed (restart): the pool drops it and opens another on demand.
    pool.on("error", (error) => options.onBackgroundError?.(postgresError(error, "idle connection")));
    const listener = new NotificationListener(config, `${prefix}events`, options.onBackgroundError);
    const store = new PostgresStore(pool, prefix, listener);
    if (options.migrate !== false) {
      try {
        await store.migrate();
      } catch (error) {
        await store.close();
        throw error;
      }
    }
    return store;
  }

  /** Applies the migrations this database lacks, once across instances; returns the schema version. */
  async migrate(): Promise<number> {
    const all = migrations(this.prefix);
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw postgresError(error, "migrate");
    }
    try {
      await client.query("BEGIN");
      await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`${this.prefix}migrations`]);
      await client.query(`CREATE TABLE IF NOT EXISTS ${this.prefix}migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
      const { rows } = await client.query<{ v: number }>(`SELECT coalesce(max(version), 0)::int AS v FROM ${this.prefix}migrations`);
      const current = rows[0]?.v ?? 0;
      if (current > all.length) {
        throw new StoreError(`postgres store: the database schema is at version ${current}, newer than this store knows (${all.length}); upgrade the agent`, "failed");
      }
      for (let version = current + 1; version <= all.length; version++) {
        await client.query(all[version - 1] as string);
        await client.query(`INSERT INTO ${this.prefix}migrations (version) VALUES ($1)`, [version]);
      }
      await client.query("COMMIT");
      return all.length;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw postgresError(error, "migrate");
    } finally {
      client.release();
    }
  }

  async purgeFinished(options: { olderThanMs: number; limit?: number }): Promise<number> {
    const p = this.prefix;
    const { rows } = await this.db().query<{ n: number }>(
      `WITH d AS (
         DELETE FROM ${p}tasks WHERE id IN (
           SELECT id FROM ${p}tasks WHERE terminal AND updated_at < now() - $1 * interval '1 millisecond' ORDER BY updated_at LIMIT $2
         ) RETURNING id
       ), c AS (DELETE FROM ${p}push_configs WHERE task_id IN (SELECT id FROM d)),
       l AS (DELETE FROM ${p}leases WHERE task_id IN (SELECT id FROM d))
       SELECT count(*)::int AS n FROM d`,
      [options.olderThanMs, options.limit ?? 10_000],
    );
    return rows[0]?.n ?? 0;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.listener.close();
    await this.pool.end().catch(() => undefined);
  }

  /** Drops every table of this store (tests and uninstall). */
  async dropTables(): Promise<void> {
    const p = this.prefix;
    await this.db().query(`DROP TABLE IF EXISTS ${p}events, ${p}task_patches, ${p}tasks, ${p}push_configs, ${p}outbox, ${p}leases, ${p}migrations CASCADE`);
  }

  private db(): Queryable {
    return {
      query: async <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => {
        if (this.closed) throw new StoreError("postgres store: closed", "failed");
        this.roundTrips.count++;
        try {
          // Named: each connection parses and plans a statement once, then only binds and runs it.
          return await this.pool.query<R>({ name: statementName(text), text, values: storableValues(text, values ?? []) });
        } catch (error) {
          throw postgresError(error, text.trimStart().split(/\s/, 1)[0]?.toLowerCase() ?? "query");
        }
      },
    };
  }
}

// ---------------------------------------------------------------------------------------------------

interface TaskRow {
  task: JsonObject;
  version: number;
  owner: string;
  last_seq: string;
  last_write: string | null;
  patches: TaskPatchOperation[][] | null;
}

export class PostgresTaskStore implements VersionedTaskStore {
  /** An interim write of a streamed artifact may be kept as its patch (patch-policy.ts). */
  readonly storesTaskPatches = true;
  /** Each task's last write id is kept (`last_write`) and read with it. */
  readonly keepsWriteIds = true;
  private readonly db: Queryable;
  private readonly p: string;
  private readonly channel: string;
  private readonly patchPolicy = new TaskPatchPolicy();
  /** The select expression of a task row's kept patches, in order (null: none), for a row aliased `t`. */
  private readonly patchesColumn: string;

  constructor(
    db: Queryable,
    p: string,
    channel: string,
  ) {
    this.db = db;
    this.p = p;
    this.channel = channel;
    this.patchesColumn = `(SELECT json_agg(c.patch ORDER BY c.version) FROM ${p}task_patches c WHERE c.task_id = t.id) AS patches`;
  }

  async get(taskId: string): Promise<JsonObject | undefined> {
    return (await this.load(taskId))?.task;
  }

  async load(taskId: string): Promise<VersionedTask | undefined> {
    const { rows } = await this.db.query<TaskRow>(`SELECT task, version, owner, last_seq, last_write, ${this.patchesColumn} FROM ${this.p}tasks t WHERE id = $1`, [taskId]);
    const row = rows[0];
    if (!row) return undefined;
    const loaded: VersionedTask = { task: withPatches(row.task, row.patches, taskId), version: row.version, ...(row.owner !== "" ? { owner: row.owner } : {}), logSeq: Number(row.last_seq) };
    if (row.last_write !== null) loaded.lastWriteId = row.last_write;
    return loaded;
  }

  async save(task: JsonObject): Promise<void> {
    const facts = taskFacts(task);
    const json = storableJson(task, `task "${facts.id}"`);
    // The whole task: the patches kept for it before are dropped.
    await this.db.query(
      `WITH d AS (DELETE FROM ${this.p}task_patches WHERE task_id = $1)
       INSERT INTO ${this.p}tasks AS t (id, task, context_id, state, terminal, status_time, version)
       VALUES ($1, $2::json, $3, $4, $5, $6, 1)
       ON CONFLICT (id) DO UPDATE SET task = excluded.task, context_id = excluded.context_id, state = excluded.state,
         terminal = excluded.terminal, status_time = excluded.status_time, version = t.version + 1, last_write = NULL, updated_at = now()`,
      [facts.id, json, facts.contextId, facts.state, facts.terminal, facts.statusTime],
    );
  }

  async commit(write: TaskCommit): Promise<TaskCommitResult> {
    const facts = taskFacts(write.task);
    const plan = this.patchPolicy.plan(facts.id, write);
    const json = "patch" in plan ? plan.patch : plan.whole;
    const events = write.events ?? [];
    const pushes = write.pushes ?? [];
    const eventsJson = storableJson(events, `the events of task "${facts.id}"`);
    const pushesJson = storableJson(pushes, `the push notifications of task "${facts.id}"`);
    const p = this.p;
    const lease = write.lease;
    const leaseMode = lease === undefined ? "none" : "acquire" in lease ? "acquire" : "release";
    const leaseOwner = lease === undefined ? "" : "acquire" in lease ? lease.acquire : lease.release;
    const leaseTtl = lease !== undefined && "acquire" in lease ? lease.ttlMs : 0;
    // $1 id, $2 task, $3 context, $4 state, $5 terminal, $6 status time, $7 events, $8 pushes, $9 event count,
    // $10 channel, $11 payload, $12 expected version, $13 lease owner, $14 lease ttl, $15 lease mode
    const leaseFree = `NOT EXISTS (SELECT 1 FROM ${p}leases l WHERE l.task_id = $1 AND l.owner <> $13 AND l.expires_at > now() AND $15 = 'acquire')`;
    const head =
      write.expectedVersion === 0
        ? `INSERT INTO ${p}tasks (id, task, context_id, state, terminal, status_time, version, last_seq, last_write, owner)
           SELECT $1, $2::json, $3, $4, $5, $6, 1, $9, $16::text, $17::text WHERE $12::int = 0 AND ${leaseFree}
           ON CONFLICT (id) DO NOTHING RETURNING version, last_seq`
        : `UPDATE ${p}tasks SET ${"patch" in plan ? "" : "task = $2::json, "}context_id = $3, state = $4, terminal = $5, status_time = $6,
             version = version + 1, last_seq = last_seq + $9, last_write = $16::text, updated_at = now()
           WHERE id = $1 AND version = $12 AND ${leaseFree} RETURNING version, last_seq`;
    // $2 is the patch, kept by the version it makes; a whole text drops the patches kept before it.
    const patches =
      write.expectedVersion === 0
        ? ""
        : "patch" in plan
          ? `pk AS (INSERT INTO ${p}task_patches (task_id, version, patch) SELECT $1, t.version, $2::json FROM t),`
          : `pd AS (DELETE FROM ${p}task_patches WHERE task_id = $1 AND EXISTS (SELECT 1 FROM t)),`;
    const values: unknown[] = [
      facts.id,
      json,
      facts.contextId,
      facts.state,
      facts.terminal,
      facts.statusTime,
      eventsJson,
      pushesJson,
      events.length,
      this.channel,
      notifyPayload(facts.id),
      write.expectedVersion,
      leaseOwner,
      leaseTtl,
      leaseMode,
    ];
    // $16 the write's id (null: none); $17 the owner scope of a task being created.
    values.push(write.writeId ?? null);
    if (write.expectedVersion === 0) values.push(write.owner ?? "");
    const { rows } = await this.db.query<{ version: number; last_seq: string }>(
      `WITH t AS (${head}), ${patches}
       e AS (
         INSERT INTO ${p}events (task_id, seq, final, event)
         SELECT $1, t.last_seq - $9 + x.ord, (x.value->>'final')::boolean, x.value->'event'
         FROM t, json_array_elements($7::json) WITH ORDINALITY AS x(value, ord)
       ),
       o AS (
         INSERT INTO ${p}outbox (task_id, target, payload)
         SELECT x.value->>'taskId', x.value->'target', x.value->'payload'
         FROM t, json_array_elements($8::json) WITH ORDINALITY AS x(value, ord) ORDER BY x.ord
       ),
       la AS (
         INSERT INTO ${p}leases (task_id, owner, expires_at)
         SELECT $1, $13, now() + $14 * interval '1 millisecond' FROM t WHERE $15 = 'acquire'
         ON CONFLICT (task_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
       ),
       lr AS (DELETE FROM ${p}leases WHERE task_id = $1 AND owner = $13 AND $15 = 'release' AND EXISTS (SELECT 1 FROM t))
       SELECT t.version, t.last_seq, (SELECT pg_notify($10, $11) WHERE $9 > 0) AS n FROM t`,
      values,
    );
    const row = rows[0];
    if (!row) {
      const { rows: found } = await this.db.query<{ version: number | null; holder: string | null }>(
        `SELECT (SELECT version FROM ${p}tasks WHERE id = $1) AS version,
                (SELECT owner FROM ${p}leases WHERE task_id = $1 AND owner <> $2 AND expires_at > now()) AS holder`,
        [facts.id, leaseOwner],
      );
      const current = found[0]?.version ?? 0;
      const holder = found[0]?.holder;
      if (current === write.expectedVersion && leaseMode === "acquire" && holder) throw new ExecutionLeaseHeldError(facts.id, holder);
      throw new TaskVersionConflictError(facts.id, write.expectedVersion, current);
    }
    this.patchPolicy.written(facts.id, plan);
    const last = Number(row.last_seq);
    return { version: row.version, sequences: events.map((_, i) => last - events.length + 1 + i) };
  }

  async list(filter: { contextId?: string } = {}): Promise<JsonObject[]> {
    const { rows } = await this.db.query<{ task: JsonObject; id: string; patches: TaskPatchOperation[][] | null }>(
      filter.contextId === undefined
        ? `SELECT task, id, ${this.patchesColumn} FROM ${this.p}tasks t ORDER BY status_time DESC, id DESC`
        : `SELECT task, id, ${this.patchesColumn} FROM ${this.p}tasks t WHERE context_id = $1 ORDER BY status_time DESC, id DESC`,
      filter.contextId === undefined ? [] : [filter.contextId],
    );
    return rows.map((r) => withPatches(r.task, r.patches, r.id));
  }

  async query(query: TaskQuery): Promise<TaskPage> {
    const pageSize = pageSizeOf(query);
    const where: string[] = [];
    const values: unknown[] = [];
    const add = (sql: (n: string) => string, value: unknown) => {
      values.push(value);
      where.push(sql(`$${values.length}`));
    };
    if (query.owner !== undefined) add((n) => `owner = ${n}`, query.owner);
    if (query.contextId !== undefined) add((n) => `context_id = ${n}`, query.contextId);
    if (query.status !== undefined) add((n) => `state = ${n}`, query.status);
    if (query.statusTimestampAfter !== undefined) add((n) => `status_time >= ${n}`, Math.ceil(query.statusTimestampAfter));
    const filters = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
    const countValues = [...values];
    if (query.pageToken) {
      const cursor = decodePageToken(query.pageToken);
      values.push(cursor.statusTime, cursor.id);
      where.push(`(status_time, id) < ($${values.length - 1}, $${values.length})`);
    }
    values.push(pageSize + 1);
    const [page, count] = await Promise.all([
      this.db.query<{ task: JsonObject; id: string; status_time: string; patches: TaskPatchOperation[][] | null }>(
        `SELECT task, id, status_time, ${this.patchesColumn} FROM ${this.p}tasks t ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
         ORDER BY status_time DESC, id DESC LIMIT $${values.length}`,
        values,
      ),
      this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.p}tasks ${filters}`, countValues),
    ]);
    const rows = page.rows.slice(0, pageSize);
    const last = rows.at(-1);
    return {
      tasks: rows.map((r) => withPatches(r.task, r.patches, r.id)),
      nextPageToken: page.rows.length > pageSize && last ? encodePageToken(Number(last.status_time), last.id) : "",
      totalSize: count.rows[0]?.n ?? 0,
    };
  }
}

const statementNames = new Map<string, string>();

/** A prepared statement's name: a short hash of its text (the store sends a small, fixed set of texts). */
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `a2a_${createHash("sha1").update(text).digest("hex").slice(0, 20)}`;
    statementNames.set(text, name);
  }
  return name;
}

/** NOTIFY carries the task id (at most 8000 bytes, as stored); a longer id wakes every subscriber ("*"). */
function notifyPayload(taskId: string): string {
  return Buffer.byteLength(toStoredText(taskId)) < 7_000 ? `t:${taskId}` : "*";
}

// ---------------------------------------------------------------------------------------------------
// Strings PostgreSQL cannot hold

/*
 * Any JSON string is a valid id, text or metadata value, and the other engines keep it as it is. PostgreSQL
 * text cannot hold U+0000; a lone surrogate cannot be written as UTF-8 (it would arrive as U+FFFD, so two
 * ids would become one); and the json operators the store uses (`->`, `->>`) refuse the JSON escapes of
 * both. So the store writes each such character, and U+0001 (so that the form can be read back), as
 * U+0001 followed by its code in 4 lower-case hex digits: in a text parameter as those characters, in a
 * json parameter (`$n::json`) as the escape `\u0001` followed by the digits (which `->>` reads as the same
 * characters). Reads undo it (the text and json type parsers below). Other strings are stored as they are,
 * so rows written before read the same.
 */

/** U+0000, U+0001 and lone surrogates: what a stored text writes as U+0001 and 4 hex digits. */
const UNSTORABLE = /[\u0000\u0001]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** The JSON escapes of those characters (and every other escape, so that an escaped backslash is skipped). */
const UNSTORABLE_ESCAPE = /\\(?:u(0000|0001|d[89a-f][0-9a-f]{2})|[^])/gi;

function toStoredText(text: string): string {
  return text.replace(UNSTORABLE, (c) => `\u0001${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function fromStoredText(text: string): string {
  return text.includes("\u0001") ? text.replace(/\u0001([0-9a-f]{4})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))) : text;
}

function toStoredJson(json: string): string {
  return json.includes("\\u") ? json.replace(UNSTORABLE_ESCAPE, (m, hex: string | undefined) => (hex === undefined ? m : `\\u0001${hex.toLowerCase()}`)) : json;
}

function fromStoredJson(json: string): unknown {
  const text = json.includes("\\u0001") ? json.replace(/\\(?:u0001([0-9a-f]{4})|[^])/g, (m, hex: string | undefined) => (hex === undefined ? m : `\\u${hex}`)) : json;
  return JSON.parse(text) as unknown;
}

const jsonParameters = new Map<string, ReadonlySet<number>>();

/** A statement's values as stored: the strings of its `$n::json` parameters as JSON, the other strings as text. */
function storableValues(statement: string, values: readonly unknown[]): unknown[] {
  let json = jsonParameters.get(statement);
  if (json === undefined) {
    json = new Set([...statement.matchAll(/\$(\d+)::json\b/g)].map((m) => Number(m[1]) - 1));
    jsonParameters.set(statement, json);
  }
  const positions = json;
  return values.map((value, i) => (typeof value !== "string" ? value : positions.has(i) ? toStoredJson(value) : toStoredText(value)));
}

const TEXT_OID = 25;
const JSON_OID = 114;

/** The type parsers of the store's connections: text and json as they were before they were stored. */
const STORED_TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if (format !== "binary" && oid === TEXT_OID) return fromStoredText;
    if (format !== "binary" && oid === JSON_OID) return fromStoredJson;
    return format === undefined ? pg.types.getTypeParser(oid) : pg.types.getTypeParser(oid, format);
  }) as pg.CustomTypesConfig["getTypeParser"],
};

// ---------------------------------------------------------------------------------------------------

export class PostgresPushConfigStore implements PushConfigStore {
  private readonly db: Queryable;
  private readonly p: string;

  constructor(
    db: Queryable,
    p: string,
  ) {
    this.db = db;
    this.p = p;
  }

  async set(taskId: string, config: JsonObject): Promise<JsonObject> {
    const id = pushConfigId(taskId, config);
    const { rows } = await this.db.query<{ config: JsonObject }>(
      `INSERT INTO ${this.p}push_configs (task_id, config_id, config) VALUES ($1, $2, $3::json)
       ON CONFLICT (task_id, config_id) DO UPDATE SET config = excluded.config RETURNING config`,
      [taskId, id, storableJson(config, `push config "${id}"`)],
    );
    return rows[0]?.config ?? { ...config };
  }

  async get(taskId: string, configId?: string): Promise<JsonObject | undefined> {
    const { rows } =
      configId === undefined
        ? await this.db.query<{ config: JsonObject }>(`SELECT config FROM ${this.p}push_configs WHERE task_id = $1 ORDER BY position DESC LIMIT 1`, [taskId])
        : await this.db.query<{ config: JsonObject }>(`SELECT config FROM ${this.p}push_configs WHERE task_id = $1 AND config_id = $2`, [taskId, configId]);
    return rows[0]?.config;
  }

  async list(taskId: string): Promise<JsonObject[]> {
    const { rows } = await this.db.query<{ config: JsonObject }>(`SELECT config FROM ${this.p}push_configs WHERE task_id = $1 ORDER BY position`, [taskId]);
    return rows.map((r) => r.config);
  }

  async delete(taskId: string, configId: string): Promise<boolean> {
    const { rowCount } = await this.db.query(`DELETE FROM ${this.p}push_configs WHERE task_id = $1 AND config_id = $2`, [taskId, configId]);
    return (rowCount ?? 0) > 0;
  }
}

// ---------------------------------------------------------------------------------------------------

export class PostgresTaskEventLog implements TaskEventLog {
  private readonly follower: LogFollower;

  private readonly db: Queryable;
  private readonly p: string;
  private readonly listener: NotificationListener;

  constructor(
    db: Queryable,
    p: string,
    listener: NotificationListener,
  ) {
    this.db = db;
    this.p = p;
    this.listener = listener;
    this.follower = new LogFollower(
      (taskId, after, limit) => this.read(taskId, after, limit),
      () => listener.listening(),
    );
    listener.onNotification = (payload) => this.follower.wake(payload.startsWith("t:") ? fromStoredText(payload.slice(2)) : undefined);
    listener.onReconnect = () => this.follower.wake(undefined);
    listener.wanted = () => this.follower.size > 0;
  }

  async append(taskId: string, events: readonly TaskEventInput[]): Promise<number[]> {
    if (events.length === 0) return [];
    const json = storableJson(events, `the events of task "${taskId}"`);
    const p = this.p;
    const { rows } = await this.db.query<{ last_seq: string }>(
      `WITH t AS (UPDATE ${p}tasks SET last_seq = last_seq + $2 WHERE id = $1 RETURNING last_seq),
       e AS (
         INSERT INTO ${p}events (task_id, seq, final, event)
         SELECT $1, t.last_seq - $2 + x.ord, (x.value->>'final')::boolean, x.value->'event'
         FROM t, json_array_elements($3::json) WITH ORDINALITY AS x(value, ord)
       )
       SELECT t.last_seq, (SELECT pg_notify($4, $5)) AS n FROM t`,
      [taskId, events.length, json, this.listener.channel, notifyPayload(taskId)],
    );
    const row = rows[0];
    if (!row) throw new StoreError(`task "${taskId}" not found`, "not-found");
    const last = Number(row.last_seq);
    return events.map((_, i) => last - events.length + 1 + i);
  }

  async read(taskId: string, after = 0, limit = 10_000): Promise<LoggedEvent[]> {
    const { rows } = await this.db.query<{ seq: string; final: boolean; event: JsonObject }>(
      `SELECT seq, final, event FROM ${this.p}events WHERE task_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
      [taskId, after, limit],
    );
    return rows.map((r) => ({ seq: Number(r.seq), final: r.final, event: r.event }));
  }

  subscribe(taskId: string, listener: (event: LoggedEvent) => void, options?: EventSubscriptionOptions): EventSubscription {
    return this.follower.subscribe(taskId, listener, options);
  }
}

/**
 * The LISTEN connection: opened on the first subscription, reopened after a loss (with backoff while
 * anyone listens), and each reopening tells the log to catch up.
 */
class NotificationListener {
  onNotification: (payload: string) => void = () => undefined;
  onReconnect: () => void = () => undefined;
  /** Whether anyone still follows a log (no reconnection attempts otherwise: the next subscription opens it). */
  wanted: () => boolean = () => true;
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryDelay = 100;
  private closed = false;

  private readonly config: pg.PoolConfig;
  readonly channel: string;
  private readonly onBackgroundError: ((error: StoreError) => void) | undefined;

  constructor(
    config: pg.PoolConfig,
    channel: string,
    onBackgroundError: ((error: StoreError) => void) | undefined,
  ) {
    this.config = config;
    this.channel = channel;
    this.onBackgroundError = onBackgroundError;
  }

  /** Resolves once LISTEN is active; rejects with StoreUnavailableError when the engine is down (and keeps retrying). */
  listening(): Promise<void> {
    if (this.closed) return Promise.reject(new StoreError("postgres store: closed", "failed"));
    if (this.client) return Promise.resolve();
    if (!this.connecting) {
      this.connecting = this.open().finally(() => {
        this.connecting = undefined;
      });
    }
    return this.connecting;
  }

  private async open(): Promise<void> {
    const client = new pg.Client({ ...this.config, query_timeout: this.config.query_timeout });
    client.on("error", (error) => this.lost(client, error));
    client.on("end", () => this.lost(client, new Error("connection ended")));
    client.on("notification", (message) => {
      if (message.channel === this.channel) this.onNotification(message.payload ?? "*");
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
    } catch (error) {
      client.removeAllListeners("end");
      client.end().catch(() => undefined);
      this.scheduleRetry();
      throw postgresError(error, "listen");
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.retryDelay = 100;
    // Subscriptions made while the engine was down, or open across the loss: catch up now.
    this.onReconnect();
  }

  private lost(client: pg.Client, error: unknown): void {
    if (this.client !== client) return;
    this.client = undefined;
    client.end().catch(() => undefined);
    if (this.closed) return;
    this.onBackgroundError?.(postgresError(error, "listen"));
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.closed || this.retryTimer || !this.wanted()) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.listening().catch(() => undefined);
    }, this.retryDelay);
    this.retryTimer.unref();
    this.retryDelay = Math.min(this.retryDelay * 2, 2_000);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    await this.connecting?.catch(() => undefined);
    await client?.end().catch(() => undefined);
  }
}

// ---------------------------------------------------------------------------------------------------

export class PostgresPushOutbox implements PushOutbox {
  private readonly db: Queryable;
  private readonly p: string;

  constructor(
    db: Queryable,
    p: string,
  ) {
    this.db = db;
    this.p = p;
  }

  async enqueue(messages: readonly OutboxMessage[]): Promise<string[]> {
    if (messages.length === 0) return [];
    const { rows } = await this.db.query<{ id: string }>(
      `INSERT INTO ${this.p}outbox (task_id, target, payload)
       SELECT x.value->>'taskId', x.value->'target', x.value->'payload'
       FROM json_array_elements($1::json) WITH ORDINALITY AS x(value, ord) ORDER BY x.ord RETURNING id`,
      [storableJson(messages, "push notifications")],
    );
    return rows.map((r) => r.id).sort((a, b) => Number(a) - Number(b));
  }

  async claim(owner: string, options: { leaseMs: number; limit?: number }): Promise<OutboxEntry[]> {
    const p = this.p;
    const { rows } = await this.db.query<{ id: string; task_id: string; target: JsonObject; payload: JsonObject; attempts: number }>(
      `UPDATE ${p}outbox o SET owner = $1, attempts = o.attempts + 1, due_at = now() + $2 * interval '1 millisecond'
       FROM (SELECT id FROM ${p}outbox WHERE due_at <= now() ORDER BY due_at, id LIMIT $3 FOR UPDATE SKIP LOCKED) c
       WHERE o.id = c.id RETURNING o.id, o.task_id, o.target, o.payload, o.attempts`,
      [owner, options.leaseMs, options.limit ?? 10],
    );
    return rows
      .map((r) => ({ id: r.id, taskId: r.task_id, target: r.target, payload: r.payload, attempts: r.attempts }))
      .sort((a, b) => Number(a.id) - Number(b.id));
  }

  async ack(id: string, owner: string): Promise<boolean> {
    if (!/^\d+$/.test(id)) return false;
    const { rowCount } = await this.db.query(`DELETE FROM ${this.p}outbox WHERE id = $1 AND owner = $2`, [id, owner]);
    return (rowCount ?? 0) > 0;
  }

  async retry(id: string, owner: string, delayMs: number): Promise<boolean> {
    if (!/^\d+$/.test(id)) return false;
    const { rowCount } = await this.db.query(
      `UPDATE ${this.p}outbox SET owner = NULL, due_at = now() + $3 * interval '1 millisecond' WHERE id = $1 AND owner = $2`,
      [id, owner, delayMs],
    );
    return (rowCount ?? 0) > 0;
  }

  async size(): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.p}outbox`);
    return rows[0]?.n ?? 0;
  }
}

// ---------------------------------------------------------------------------------------------------

export class PostgresExecutionLeases implements ExecutionLeases {
  private readonly db: Queryable;
  private readonly p: string;

  constructor(
    db: Queryable,
    p: string,
  ) {
    this.db = db;
    this.p = p;
  }

  async acquire(taskId: string, owner: string, ttlMs: number): Promise<boolean> {
    const { rows } = await this.db.query(
      `INSERT INTO ${this.p}leases AS l (task_id, owner, expires_at) VALUES ($1, $2, now() + $3 * interval '1 millisecond')
       ON CONFLICT (task_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
       WHERE l.owner = excluded.owner OR l.expires_at <= now()
       RETURNING owner`,
      [taskId, owner, ttlMs],
    );
    return rows.length > 0;
  }

  async renew(taskId: string, owner: string, ttlMs: number): Promise<boolean> {
    const { rowCount } = await this.db.query(`UPDATE ${this.p}leases SET expires_at = now() + $3 * interval '1 millisecond' WHERE task_id = $1 AND owner = $2`, [
      taskId,
      owner,
      ttlMs,
    ]);
    return (rowCount ?? 0) > 0;
  }

  async release(taskId: string, owner: string): Promise<void> {
    await this.db.query(`DELETE FROM ${this.p}leases WHERE task_id = $1 AND owner = $2`, [taskId, owner]);
  }

  async holder(taskId: string): Promise<LeaseHolder | undefined> {
    const { rows } = await this.db.query<{ owner: string; expires: number }>(
      `SELECT owner, (extract(epoch FROM expires_at) * 1000)::float8 AS expires FROM ${this.p}leases WHERE task_id = $1`,
      [taskId],
    );
    const row = rows[0];
    return row && { owner: row.owner, expiresAt: Math.round(row.expires) };
  }

  async claimExpired(owner: string, ttlMs: number, limit = 100): Promise<Array<{ taskId: string; previousOwner: string }>> {
    const p = this.p;
    const { rows } = await this.db.query<{ task_id: string; previous_owner: string }>(
      `UPDATE ${p}leases l SET owner = $1, expires_at = now() + $2 * interval '1 millisecond'
       FROM (SELECT task_id, owner FROM ${p}leases WHERE expires_at <= now() ORDER BY expires_at LIMIT $3 FOR UPDATE SKIP LOCKED) c
       WHERE l.task_id = c.task_id RETURNING l.task_id, c.owner AS previous_owner`,
      [owner, ttlMs, limit],
    );
    return rows.map((r) => ({ taskId: r.task_id, previousOwner: r.previous_owner }));
  }
}
