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
import pg from "pg";
import { StoreError, StoreUnavailableError } from "./errors.js";
import type { A2AStore } from "./contract.js";
import { NotificationListener, PostgresTaskEventLog } from "./postgres/event-log.js";
import { PostgresExecutionLeases } from "./postgres/leases.js";
import { PostgresPushOutbox } from "./postgres/outbox.js";
import { PostgresPushConfigStore } from "./postgres/push-configs.js";
import { migrations } from "./postgres/schema.js";
import { ENGINE, type Queryable, type RoundTripCounter, STORED_TYPES, postgresError, statementName, storableValues } from "./postgres/sql.js";
import { PostgresTaskStore } from "./postgres/task-store.js";

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

  /** One round trip (`SELECT 1`); StoreUnavailableError when the engine does not answer. */
  async ping(): Promise<void> {
    if (this.closed) throw new StoreUnavailableError(ENGINE, "ping: the store is closed");
    try {
      await this.pool.query("SELECT 1");
    } catch (error) {
      throw postgresError(error, "ping");
    }
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
