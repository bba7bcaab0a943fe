/**
 * The task store and the push configs of the SQLite-family stores (the file store on better-sqlite3,
 * sqlite.ts, and the Durable Object store, durable-object.ts): SQL only, through a driver (sql-database.ts).
 * A task's commit is one statement, atomic by itself (the task_commits view's trigger, migration 2); every
 * other write is one write transaction; so compare-and-set commits hold across connections.
 */
import { ExecutionLeaseHeldError, StoreError, TaskVersionConflictError } from "./errors.js";
import { decodePageToken, encodePageToken, pageSizeOf } from "./paging.js";
import { eventText, pushConfigId, storableJson, taskFacts } from "./task-json.js";
import type { PushConfigStore, TaskCommit, TaskCommitResult, TaskPage, TaskQuery, VersionedTask, VersionedTaskStore } from "./contract.js";
import type { JsonObject } from "../json.js";
import { TaskPatchPolicy, withPatches } from "./patch-policy.js";
import type { TaskPatchOperation } from "./task-patch.js";
import { COMMIT_CONFLICT, COMMIT_LEASE_HELD, key, sqlStoreError, unkey, type Sql } from "./sql-database.js";
import { insertEvents } from "./sql-events.js";

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

  /**
   * One statement (an INSERT into the task_commits view, whose trigger does the writes: migration 2):
   * atomic by itself, so no BEGIN or COMMIT. Its RETURNING reads the task row as the trigger left it. On a
   * driver that bounds strings (a Durable Object: 2 MB), events or pushes whose JSON would exceed it are
   * written by their own INSERTs after the statement, in one write transaction with it.
   */
  async commit(write: TaskCommit): Promise<TaskCommitResult> {
    const facts = taskFacts(write.task);
    const plan = this.patchPolicy.plan(facts.id, write);
    const events = (write.events ?? []).map((e, i) => ({ final: e.final, text: eventText(e.event, `event ${i} of task "${facts.id}"`) }));
    const pushes = (write.pushes ?? []).map((m) => [key(m.taskId), storableJson(m.target, "a push target"), storableJson(m.payload, "a push payload")] as const);
    const eventsJson = events.length > 0 ? JSON.stringify(events.map((e) => [e.final ? 1 : 0, e.text])) : null;
    const pushesJson = pushes.length > 0 ? JSON.stringify(pushes) : null;
    const apart = this.tooLong(eventsJson) || this.tooLong(pushesJson);
    const id = key(facts.id);
    const lease = write.lease;
    const acquire = lease !== undefined && "acquire" in lease ? key(lease.acquire) : undefined;
    const now = Date.now();
    const commit = () => {
      let row: { version: number | null; last_seq: number | null } | undefined;
      try {
        row = this.sql.get(
          `INSERT INTO task_commits (id, expected_version, task, patch, context_id, state, terminal, status_time, now, owner, write_id, events, event_count, pushes, lease_acquire, lease_expires, lease_release)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
           RETURNING (SELECT version FROM tasks WHERE id = ?) AS version, (SELECT last_seq FROM tasks WHERE id = ?) AS last_seq`,
          id, write.expectedVersion, "patch" in plan ? null : plan.whole, "patch" in plan ? plan.patch : null,
          key(facts.contextId), facts.state, facts.terminal ? 1 : 0, facts.statusTime, now, key(write.owner ?? ""), write.writeId === undefined ? null : key(write.writeId),
          apart ? null : eventsJson, events.length, apart ? null : pushesJson,
          acquire ?? null, lease !== undefined && "acquire" in lease ? now + lease.ttlMs : null, lease !== undefined && "release" in lease ? key(lease.release) : null,
          id, id,
        );
      } catch (error) {
        throw this.commitError(error, facts.id, write.expectedVersion, acquire, now);
      }
      if (row?.version !== write.expectedVersion + 1 || row.last_seq === null) {
        throw new StoreError(`${this.sql.engine} store: commit of task "${facts.id}": its statement answered version ${String(row?.version)}, not ${write.expectedVersion + 1}`, "failed");
      }
      const first = row.last_seq - events.length + 1;
      if (apart) {
        insertEvents(this.sql, id, first, events);
        for (const p of pushes) this.sql.run("INSERT INTO outbox (task_id, target, payload, due_at) VALUES (?, ?, ?, ?)", ...p, now);
      }
      return { version: row.version, sequences: events.map((_, i) => first + i) };
    };
    const result = apart ? this.sql.write("commit", commit) : commit();
    this.patchPolicy.written(facts.id, plan);
    if (events.length > 0) this.wake(facts.id);
    return result;
  }

  /** Whether a JSON text is longer, in UTF-8, than the driver takes in one string. */
  private tooLong(json: string | null): boolean {
    const limit = this.sql.maxStringBytes;
    if (json === null || limit === undefined || json.length * 3 <= limit) return false;
    return new TextEncoder().encode(json).length > limit;
  }

  /**
   * The store error of a failed commit. The trigger's RAISE says which check refused it; the task's
   * version and the lease's holder are read after it, for the error (a version conflict names the version
   * now; a lease since expired or released is named so, and the runtime's retry then finds it free).
   */
  private commitError(error: unknown, taskId: string, expectedVersion: number, acquire: string | undefined, now: number): StoreError {
    // The RAISE's message, found in the driver's (which may add to it).
    const message = error instanceof Error ? error.message : "";
    const refused = message.includes(COMMIT_CONFLICT) ? COMMIT_CONFLICT : message.includes(COMMIT_LEASE_HELD) ? COMMIT_LEASE_HELD : undefined;
    if (refused === undefined) return sqlStoreError(this.sql.engine, error, "commit");
    const id = key(taskId);
    const found = this.sql.read("commit", () =>
      this.sql.get<{ version: number | null; holder: string | null }>(
        "SELECT (SELECT version FROM tasks WHERE id = ?) AS version, (SELECT owner FROM leases WHERE task_id = ? AND owner <> ? AND expires_at > ?) AS holder",
        id, id, acquire ?? "", now,
      ),
    );
    const current = found?.version ?? 0;
    if (refused === COMMIT_LEASE_HELD && current === expectedVersion) {
      return new ExecutionLeaseHeldError(taskId, found?.holder != null ? unkey(found.holder) : "(expired or released since)");
    }
    return new TaskVersionConflictError(taskId, expectedVersion, current);
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

/** Deletes finished tasks last written over `olderThanMs` ago, with their events, patches, configs and leases, in one write. */
export function purgeFinished(sql: Sql, options: { olderThanMs: number; limit?: number }): number {
  return sql.write("purge", () => {
    const ids = sql.all<{ id: string }>("SELECT id FROM tasks WHERE terminal = 1 AND updated_at < ? ORDER BY updated_at LIMIT ?", Date.now() - options.olderThanMs, options.limit ?? 10_000);
    for (const { id } of ids) {
      for (const table of ["events", "task_patches", "push_configs", "leases"]) sql.run(`DELETE FROM ${table} WHERE task_id = ?`, id);
      sql.run("DELETE FROM tasks WHERE id = ?", id);
    }
    return ids.length;
  });
}
