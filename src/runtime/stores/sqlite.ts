/**
 * The SQLite store (better-sqlite3): tasks, push configs, task event logs, the push outbox and execution
 * leases in one database file, in WAL mode, which the store creates and migrates itself.
 *
 * - One file serves one agent process or several on one host: every write is one IMMEDIATE transaction
 *   (SQLite's single writer lock, across processes), so compare-and-set commits, outbox claims and lease
 *   take-overs are atomic between processes; a writer that finds the lock taken waits up to `busyTimeoutMs`.
 * - Migrations are versioned (`migrations` table) and run in one IMMEDIATE transaction: processes starting
 *   at once migrate once. A file migrated by a newer store is refused.
 * - Live event subscriptions: a commit of this store wakes its own subscribers at once; commits of other
 *   connections (other processes) are seen by polling `PRAGMA data_version` every `pollMs` while anyone
 *   subscribes. Events are always read from the log after the last sequence delivered (follower.ts).
 * - Time (leases, outbox, retention) is the host's clock: every process on one host shares it.
 * - The driver is synchronous: a call blocks the event loop for the statement's time (microseconds for
 *   the store's indexed statements), or up to `busyTimeoutMs` while another process writes.
 */
import type Database from "better-sqlite3";
import { ExecutionLeaseHeldError, StoreError, StoreUnavailableError, TaskVersionConflictError } from "./errors.js";
import { decodePageToken, encodePageToken, pageSizeOf } from "./paging.js";
import { eventText, pushConfigId, storableJson, taskFacts } from "./task-json.js";
import type { A2AStore, EventSubscription, EventSubscriptionOptions, LoggedEvent, PushConfigStore, TaskCommit, TaskCommitResult, TaskEventInput, TaskEventLog, TaskPage, TaskQuery, VersionedTask, VersionedTaskStore } from "./contract.js";
import type { JsonObject } from "../json.js";
import { LogFollower } from "./follower.js";
import { TaskPatchPolicy, withPatches } from "./patch-policy.js";
import type { TaskPatchOperation } from "./task-patch.js";
import { ENGINE, key, migrateSqlite, newerSchemaError, openSqliteDatabase, Sql, SQLITE_MIGRATIONS, sqliteError, sqlitePathOf, sqliteSchemaVersion, unkey } from "./sqlite-database.js";
import { SqliteExecutionLeases, SqlitePushOutbox } from "./sqlite-queues.js";

export { migrateSqlite, openSqliteDatabase, SQLITE_MIGRATIONS, sqliteError, sqlitePathOf, sqliteSchemaVersion } from "./sqlite-database.js";
export { SqliteExecutionLeases, SqlitePushOutbox } from "./sqlite-queues.js";

export interface SqliteStoreOptions {
  /** The database file (created with its folder when missing), or ":memory:" (one connection only). */
  path: string;
  /** Longest wait for another process's write lock, in ms; default 5_000. */
  busyTimeoutMs?: number;
  /** How often other processes' commits are looked for while anyone subscribes to a log, in ms; default 25. */
  pollMs?: number;
  /** Run the migrations when opening; default true. Without them, a file behind this store's schema is refused. */
  migrate?: boolean;
}


export class SqliteStore implements A2AStore {
  readonly engine = ENGINE;
  readonly tasks: SqliteTaskStore;
  readonly pushConfigs: SqlitePushConfigStore;
  readonly events: SqliteTaskEventLog;
  readonly outbox: SqlitePushOutbox;
  readonly leases: SqliteExecutionLeases;
  /** Statements run so far, for benchmarks. */
  readonly roundTrips = { count: 0 };
  private closed = false;
  private readonly db: Database.Database;
  /** The database file. */
  readonly path: string;

  private constructor(db: Database.Database, path: string, pollMs: number) {
    this.db = db;
    this.path = path;
    const sql = new Sql(db, this.roundTrips, () => this.closed);
    this.events = new SqliteTaskEventLog(sql, pollMs);
    this.tasks = new SqliteTaskStore(sql, (taskId) => this.events.wake(taskId));
    this.pushConfigs = new SqlitePushConfigStore(sql);
    this.outbox = new SqlitePushOutbox(sql);
    this.leases = new SqliteExecutionLeases(sql);
  }

  /** Opens (creating) the file, runs the pending migrations, and returns the store. */
  static async open(options: SqliteStoreOptions): Promise<SqliteStore> {
    let db: Database.Database;
    try {
      db = openSqliteDatabase(options.path, options.busyTimeoutMs ?? 5_000);
    } catch (error) {
      throw new StoreUnavailableError(ENGINE, `open ${options.path}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    try {
      if (options.migrate !== false) migrateSqlite(db);
      else {
        const current = sqliteSchemaVersion(db);
        if (current > SQLITE_MIGRATIONS.length) throw newerSchemaError(current, SQLITE_MIGRATIONS.length);
        if (current < SQLITE_MIGRATIONS.length) {
          throw new StoreError(
            `${ENGINE} store: the database schema is at version ${current}, this store needs ${SQLITE_MIGRATIONS.length}; run \`a2a-codegen store migrate --url sqlite:${options.path}\``,
            "failed",
          );
        }
      }
    } catch (error) {
      db.close();
      throw sqliteError(error, "migrate");
    }
    return new SqliteStore(db, options.path, options.pollMs ?? 25);
  }

  /** Opens the store of a `sqlite:<path>` or `file:<path>` URL (`sqlite::memory:` for a private in-memory one). */
  static connect(url: string, options: Omit<SqliteStoreOptions, "path"> = {}): Promise<SqliteStore> {
    return SqliteStore.open({ ...options, path: sqlitePathOf(url) });
  }

  async purgeFinished(options: { olderThanMs: number; limit?: number }): Promise<number> {
    const sql = new Sql(this.db, this.roundTrips, () => this.closed);
    return sql.write("purge", () => {
      const ids = sql.all<{ id: string }>("SELECT id FROM tasks WHERE terminal = 1 AND updated_at < ? ORDER BY updated_at LIMIT ?", Date.now() - options.olderThanMs, options.limit ?? 10_000);
      for (const { id } of ids) {
        for (const table of ["events", "task_patches", "push_configs", "leases"]) sql.run(`DELETE FROM ${table} WHERE task_id = ?`, id);
        sql.run("DELETE FROM tasks WHERE id = ?", id);
      }
      return ids.length;
    });
  }

  /** Reads from the file (`SELECT 1`); StoreUnavailableError once closed or when the file cannot be read. */
  async ping(): Promise<void> {
    if (this.closed) throw new StoreUnavailableError(ENGINE, "ping: the store is closed");
    try {
      this.db.prepare("SELECT 1").get();
    } catch (error) {
      throw sqliteError(error, "ping");
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.events.stop();
    this.db.close();
  }
}

// ---------------------------------------------------------------------------------------------------

interface TaskRow {
  task: string;
  version: number;
  owner: string;
  last_seq: number;
  last_write: string | null;
  patches: number;
}

export class SqliteTaskStore implements VersionedTaskStore {
  /** Each task's last write id is kept (`last_write`) and read with it. */
  readonly keepsWriteIds = true;
  /** An interim write of a streamed artifact may be kept as its patch (patch-policy.ts). */
  readonly storesTaskPatches = true;
  private readonly patchPolicy = new TaskPatchPolicy();

  private readonly sql: Sql;
  private readonly wake: (taskId: string) => void;

  constructor(sql: Sql, wake: (taskId: string) => void) {
    this.sql = sql;
    this.wake = wake;
  }

  async get(taskId: string): Promise<JsonObject | undefined> {
    return (await this.load(taskId))?.task;
  }

  async load(taskId: string): Promise<VersionedTask | undefined> {
    const [row, task] = this.withTasks("load", () => {
      const found = this.sql.get<TaskRow>("SELECT task, version, owner, last_seq, last_write, patches FROM tasks WHERE id = ?", key(taskId));
      return found ? [found] : [];
    }, () => taskId);
    if (!row || !task) return undefined;
    const loaded: VersionedTask = { task, version: row.version, logSeq: row.last_seq };
    if (row.owner !== "") loaded.owner = unkey(row.owner);
    if (row.last_write !== null) loaded.lastWriteId = unkey(row.last_write);
    return loaded;
  }

  /**
   * Task rows and their tasks: one statement when no row has kept patches (the usual case), else the rows
   * read again with their patches in one read transaction, so that a row and its patches agree.
   */
  private withTasks<R extends { task: string; patches: number }>(operation: string, rowsOf: () => R[], idOf: (row: R) => string): [R | undefined, JsonObject | undefined, R[], JsonObject[]] {
    const first = this.sql.read(operation, rowsOf);
    const [rows, tasks] = !first.some((r) => r.patches > 0)
      ? [first, first.map((r) => JSON.parse(r.task) as JsonObject)]
      : this.sql.snapshot(operation, () => {
          const again = rowsOf();
          return [again, again.map((r) => this.taskOf(idOf(r), r))] as const;
        });
    return [rows[0], tasks[0], rows, tasks];
  }

  /** A row's task with the patches kept after its text applied (read only when it has some). */
  private taskOf(taskId: string, row: { task: string; patches: number }): JsonObject {
    const task = JSON.parse(row.task) as JsonObject;
    if (row.patches === 0) return task;
    const patches = this.sql.all<{ patch: string }>("SELECT patch FROM task_patches WHERE task_id = ? ORDER BY version", key(taskId));
    return withPatches(task, patches.map((p) => JSON.parse(p.patch) as TaskPatchOperation[]), taskId);
  }

  async save(task: JsonObject): Promise<void> {
    const facts = taskFacts(task);
    const json = storableJson(task, `task "${facts.id}"`);
    this.sql.write("save", () => {
      this.sql.run("DELETE FROM task_patches WHERE task_id = ?", key(facts.id));
      return this.sql.run(
        `INSERT INTO tasks (id, task, context_id, state, terminal, status_time, version, updated_at) VALUES (?, ?, ?, ?, ?, ?, 1, ?)
         ON CONFLICT (id) DO UPDATE SET task = excluded.task, context_id = excluded.context_id, state = excluded.state, terminal = excluded.terminal,
           status_time = excluded.status_time, version = version + 1, last_write = NULL, patches = 0, updated_at = excluded.updated_at`,
        key(facts.id), json, key(facts.contextId), facts.state, facts.terminal ? 1 : 0, facts.statusTime, Date.now(),
      );
    });
  }

  async commit(write: TaskCommit): Promise<TaskCommitResult> {
    const facts = taskFacts(write.task);
    const plan = this.patchPolicy.plan(facts.id, write);
    const events = (write.events ?? []).map((e, i) => ({ final: e.final, text: eventText(e.event, `event ${i} of task "${facts.id}"`) }));
    const pushes = (write.pushes ?? []).map((m) => ({ taskId: key(m.taskId), target: storableJson(m.target, "a push target"), payload: storableJson(m.payload, "a push payload") }));
    const id = key(facts.id);
    const sql = this.sql;
    const result = sql.write("commit", () => {
      const now = Date.now();
      const lease = write.lease;
      if (lease !== undefined && "acquire" in lease) {
        const holder = sql.get<{ owner: string }>("SELECT owner FROM leases WHERE task_id = ? AND owner <> ? AND expires_at > ?", id, key(lease.acquire), now);
        if (holder) {
          const current = sql.get<{ version: number }>("SELECT version FROM tasks WHERE id = ?", id)?.version ?? 0;
          if (current === write.expectedVersion) throw new ExecutionLeaseHeldError(facts.id, unkey(holder.owner));
          throw new TaskVersionConflictError(facts.id, write.expectedVersion, current);
        }
      }
      let row: { version: number; last_seq: number } | undefined;
      if (write.expectedVersion === 0) {
        row = sql.get(
          `INSERT INTO tasks (id, task, context_id, state, terminal, status_time, version, last_seq, updated_at, owner, last_write)
           VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING RETURNING version, last_seq`,
          id, "patch" in plan ? plan.patch : plan.whole, key(facts.contextId), facts.state, facts.terminal ? 1 : 0, facts.statusTime, events.length, now, key(write.owner ?? ""), write.writeId === undefined ? null : key(write.writeId),
        );
      } else if ("patch" in plan) {
        // The patch, kept by the version it makes; the task's text stays as it was.
        row = sql.get(
          `UPDATE tasks SET context_id = ?, state = ?, terminal = ?, status_time = ?, version = version + 1, last_seq = last_seq + ?, updated_at = ?, last_write = ?, patches = patches + 1
           WHERE id = ? AND version = ? RETURNING version, last_seq`,
          key(facts.contextId), facts.state, facts.terminal ? 1 : 0, facts.statusTime, events.length, now, write.writeId === undefined ? null : key(write.writeId), id, write.expectedVersion,
        );
        if (row) sql.run("INSERT INTO task_patches (task_id, version, patch) VALUES (?, ?, ?)", id, row.version, plan.patch);
      } else {
        // The whole text: the patches kept before it are dropped.
        row = sql.get(
          `UPDATE tasks SET task = ?, context_id = ?, state = ?, terminal = ?, status_time = ?, version = version + 1, last_seq = last_seq + ?, updated_at = ?, last_write = ?, patches = 0
           WHERE id = ? AND version = ? RETURNING version, last_seq`,
          plan.whole, key(facts.contextId), facts.state, facts.terminal ? 1 : 0, facts.statusTime, events.length, now, write.writeId === undefined ? null : key(write.writeId), id, write.expectedVersion,
        );
      }
      if (!row) {
        const current = sql.get<{ version: number }>("SELECT version FROM tasks WHERE id = ?", id)?.version ?? 0;
        throw new TaskVersionConflictError(facts.id, write.expectedVersion, current);
      }
      if (write.expectedVersion > 0 && !("patch" in plan)) sql.run("DELETE FROM task_patches WHERE task_id = ?", id);
      const first = row.last_seq - events.length + 1;
      insertEvents(sql, id, first, events);
      for (const p of pushes) sql.run("INSERT INTO outbox (task_id, target, payload, due_at) VALUES (?, ?, ?, ?)", p.taskId, p.target, p.payload, now);
      if (lease !== undefined && "acquire" in lease) {
        sql.run("INSERT INTO leases (task_id, owner, expires_at) VALUES (?, ?, ?) ON CONFLICT (task_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at", id, key(lease.acquire), now + lease.ttlMs);
      } else if (lease !== undefined) {
        sql.run("DELETE FROM leases WHERE task_id = ? AND owner = ?", id, key(lease.release));
      }
      return { version: row.version, sequences: events.map((_, i) => first + i) };
    });
    this.patchPolicy.written(facts.id, plan);
    if (events.length > 0) this.wake(facts.id);
    return result;
  }

  async list(filter: { contextId?: string } = {}): Promise<JsonObject[]> {
    const [, , , tasks] = this.withTasks(
      "list",
      () =>
        filter.contextId === undefined
          ? this.sql.all<{ task: string; id: string; patches: number }>("SELECT task, id, patches FROM tasks ORDER BY status_time DESC, id DESC")
          : this.sql.all<{ task: string; id: string; patches: number }>("SELECT task, id, patches FROM tasks WHERE context_id = ? ORDER BY status_time DESC, id DESC", key(filter.contextId)),
      (r) => unkey(r.id),
    );
    return tasks;
  }

  async query(query: TaskQuery): Promise<TaskPage> {
    const pageSize = pageSizeOf(query);
    const where: string[] = [];
    const values: unknown[] = [];
    if (query.owner !== undefined) (where.push("owner = ?"), values.push(key(query.owner)));
    if (query.contextId !== undefined) (where.push("context_id = ?"), values.push(key(query.contextId)));
    if (query.status !== undefined) (where.push("state = ?"), values.push(query.status));
    if (query.statusTimestampAfter !== undefined) (where.push("status_time >= ?"), values.push(Math.ceil(query.statusTimestampAfter)));
    const filters = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
    const countValues = [...values];
    if (query.pageToken) {
      const cursor = decodePageToken(query.pageToken);
      where.push("(status_time, id) < (?, ?)");
      values.push(cursor.statusTime, key(cursor.id));
    }
    const pageWhere = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
    const [, , rows, tasks] = this.withTasks(
      "query",
      () => this.sql.all<{ task: string; id: string; status_time: number; patches: number }>(`SELECT task, id, status_time, patches FROM tasks ${pageWhere} ORDER BY status_time DESC, id DESC LIMIT ?`, ...values, pageSize + 1),
      (r) => unkey(r.id),
    );
    const total = this.sql.read("query", () => this.sql.get<{ n: number }>(`SELECT count(*) AS n FROM tasks ${filters}`, ...countValues)?.n ?? 0);
    const page = rows.slice(0, pageSize);
    const last = page.at(-1);
    return {
      tasks: tasks.slice(0, pageSize),
      nextPageToken: rows.length > pageSize && last ? encodePageToken(last.status_time, unkey(last.id)) : "",
      totalSize: total,
    };
  }
}

// ---------------------------------------------------------------------------------------------------

export class SqlitePushConfigStore implements PushConfigStore {
  private readonly sql: Sql;

  constructor(sql: Sql) {
    this.sql = sql;
  }

  async set(taskId: string, config: JsonObject): Promise<JsonObject> {
    const id = pushConfigId(taskId, config);
    const json = storableJson(config, `push config "${id}"`);
    this.sql.write("set push config", () =>
      this.sql.run("INSERT INTO push_configs (task_id, config_id, config) VALUES (?, ?, ?) ON CONFLICT (task_id, config_id) DO UPDATE SET config = excluded.config", key(taskId), key(id), json),
    );
    return JSON.parse(json) as JsonObject;
  }

  async get(taskId: string, configId?: string): Promise<JsonObject | undefined> {
    const row = this.sql.read("get push config", () =>
      configId === undefined
        ? this.sql.get<{ config: string }>("SELECT config FROM push_configs WHERE task_id = ? ORDER BY position DESC LIMIT 1", key(taskId))
        : this.sql.get<{ config: string }>("SELECT config FROM push_configs WHERE task_id = ? AND config_id = ?", key(taskId), key(configId)),
    );
    return row && (JSON.parse(row.config) as JsonObject);
  }

  async list(taskId: string): Promise<JsonObject[]> {
    const rows = this.sql.read("list push configs", () => this.sql.all<{ config: string }>("SELECT config FROM push_configs WHERE task_id = ? ORDER BY position", key(taskId)));
    return rows.map((r) => JSON.parse(r.config) as JsonObject);
  }

  async delete(taskId: string, configId: string): Promise<boolean> {
    return this.sql.write("delete push config", () => this.sql.run("DELETE FROM push_configs WHERE task_id = ? AND config_id = ?", key(taskId), key(configId)) > 0);
  }
}

// ---------------------------------------------------------------------------------------------------

export class SqliteTaskEventLog implements TaskEventLog {
  private readonly follower: LogFollower;
  private timer: NodeJS.Timeout | undefined;
  private seenVersion = -1;

  private readonly sql: Sql;
  private readonly pollMs: number;

  constructor(sql: Sql, pollMs: number) {
    this.sql = sql;
    this.pollMs = pollMs;
    this.follower = new LogFollower(
      (taskId, after, limit) => this.read(taskId, after, limit),
      async () => this.poll(),
    );
  }

  /** This store wrote events of a task: its subscribers catch up now. */
  wake(taskId: string): void {
    this.follower.wake(taskId);
  }

  async append(taskId: string, events: readonly TaskEventInput[]): Promise<number[]> {
    if (events.length === 0) return [];
    const texts = events.map((e, i) => ({ final: e.final, text: eventText(e.event, `event ${i} of task "${taskId}"`) }));
    const id = key(taskId);
    const sequences = this.sql.write("append", () => {
      const row = this.sql.get<{ last_seq: number }>("UPDATE tasks SET last_seq = last_seq + ? WHERE id = ? RETURNING last_seq", events.length, id);
      if (!row) throw new StoreError(`task "${taskId}" not found`, "not-found");
      const first = row.last_seq - events.length + 1;
      insertEvents(this.sql, id, first, texts);
      return texts.map((_, i) => first + i);
    });
    this.wake(taskId);
    return sequences;
  }

  async read(taskId: string, after = 0, limit = 10_000): Promise<LoggedEvent[]> {
    const rows = this.sql.read("read events", () =>
      this.sql.all<{ seq: number; final: number; event: string }>("SELECT seq, final, event FROM events WHERE task_id = ? AND seq > ? ORDER BY seq LIMIT ?", key(taskId), after, limit),
    );
    return rows.map((r) => ({ seq: r.seq, final: r.final === 1, event: JSON.parse(r.event) as JsonObject }));
  }

  async end(taskId: string): Promise<number> {
    return this.sql.read("read log end", () => this.sql.get<{ last_seq: number }>("SELECT last_seq FROM tasks WHERE id = ?", key(taskId))?.last_seq ?? 0);
  }

  subscribe(taskId: string, listener: (event: LoggedEvent) => void, options?: EventSubscriptionOptions): EventSubscription {
    return this.follower.subscribe(taskId, listener, options);
  }

  /** Starts polling for other connections' commits (while anyone subscribes). */
  private poll(): void {
    if (this.timer) return;
    this.seenVersion = this.sql.dataVersion();
    this.timer = setInterval(() => {
      if (this.follower.size === 0) {
        clearInterval(this.timer);
        this.timer = undefined;
        return;
      }
      let version: number;
      try {
        version = this.sql.dataVersion();
      } catch {
        return; // closed, or the file is busy: the next tick tries again
      }
      if (version !== this.seenVersion) {
        this.seenVersion = version;
        this.follower.wake(undefined);
      }
    }, this.pollMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** Events per INSERT statement (one statement for a commit's events, up to this many). */
const EVENTS_PER_STATEMENT = 64;

/** Logs events from sequence `first` on, as few multi-row INSERTs (each row text cached by its row count). */
function insertEvents(sql: Sql, taskId: string, first: number, events: ReadonlyArray<{ final: boolean; text: string }>): void {
  for (let from = 0; from < events.length; from += EVENTS_PER_STATEMENT) {
    const batch = events.slice(from, from + EVENTS_PER_STATEMENT);
    const values: unknown[] = [];
    batch.forEach((e, i) => values.push(taskId, first + from + i, e.final ? 1 : 0, e.text));
    sql.run(`INSERT INTO events (task_id, seq, final, event) VALUES ${Array.from(batch, () => "(?, ?, ?, ?)").join(", ")}`, ...values);
  }
}
