/**
 * The MySQL task store: tasks as rows compare-and-set on `version`; a commit writes the task, its
 * events, its push notifications and its lease change in one transaction sent in one round trip (the
 * statements after the compare-and-set run only when it matched, through the session variable it sets;
 * a new task that takes no lease is plain inserts, which a duplicate key stops).
 */
import { ExecutionLeaseHeldError, TaskVersionConflictError } from "../errors.js";
import { decodePageToken, encodePageToken, pageSizeOf } from "../paging.js";
import { eventText, storableJson, taskFacts } from "../task-json.js";
import type { TaskCommit, TaskCommitResult, TaskPage, TaskQuery, VersionedTask, VersionedTaskStore } from "../contract.js";
import type { JsonObject } from "../../json.js";
import { TaskPatchPolicy, withPatches } from "../patch-policy.js";
import type { TaskPatchOperation } from "../task-patch.js";
import { errorCode, key, NOW_MS, rowsOf, type Sql, unkey } from "./sql.js";

interface TaskRow {
  task: string;
  id: Buffer;
  version: number;
  owner: Buffer;
  last_seq: number;
  last_write: Buffer | null;
  status_time: number;
  /** The patches kept after the text, as one JSON array (null: none). */
  patches: string | null;
}

export class MysqlTaskStore implements VersionedTaskStore {
  /** An interim write of a streamed artifact may be kept as its patch (patch-policy.ts). */
  readonly storesTaskPatches = true;
  /** Each task's last write id is kept (`last_write`) and read with it. */
  readonly keepsWriteIds = true;
  private readonly sql: Sql;
  private readonly p: string;
  private readonly wake: (taskId: string) => void;
  private readonly patchPolicy = new TaskPatchPolicy();
  /** The columns of a task row (aliased `t`), its kept patches as one JSON array read in the same statement. */
  private readonly columns: string;

  constructor(sql: Sql, p: string, wake: (taskId: string) => void) {
    this.sql = sql;
    this.p = p;
    this.wake = wake;
    this.columns = `t.task, t.id, t.version, t.owner, t.last_seq, t.last_write, t.status_time,
      IF(t.patches = 0, NULL, (SELECT CONCAT('[', GROUP_CONCAT(c.patch ORDER BY c.version SEPARATOR ','), ']') FROM ${p}task_patches c WHERE c.task_id = t.id)) AS patches`;
  }

  async get(taskId: string): Promise<JsonObject | undefined> {
    return (await this.load(taskId))?.task;
  }

  async load(taskId: string): Promise<VersionedTask | undefined> {
    const [row] = await this.sql.rows<TaskRow>("load", `SELECT ${this.columns} FROM ${this.p}tasks t WHERE t.id = ?`, [key(taskId)]);
    if (!row) return undefined;
    const loaded: VersionedTask = { task: taskOf(row, taskId), version: row.version, logSeq: Number(row.last_seq) };
    const owner = unkey(row.owner);
    if (owner !== "") loaded.owner = owner;
    if (row.last_write !== null) loaded.lastWriteId = unkey(row.last_write);
    return loaded;
  }

  async save(task: JsonObject): Promise<void> {
    const facts = taskFacts(task);
    const json = storableJson(task, `task "${facts.id}"`);
    const p = this.p;
    // The whole task: the patches kept for it before are dropped.
    await this.sql.transaction(
      "save",
      [
        `DELETE FROM ${p}task_patches WHERE task_id = ?`,
        `INSERT INTO ${p}tasks (id, task, context_id, state, terminal, status_time, version, updated_at) VALUES (?, ?, ?, ?, ?, ?, 1, ${NOW_MS})
         ON DUPLICATE KEY UPDATE task = VALUES(task), context_id = VALUES(context_id), state = VALUES(state), terminal = VALUES(terminal),
           status_time = VALUES(status_time), version = version + 1, last_write = NULL, patches = 0, updated_at = VALUES(updated_at)`,
      ],
      [key(facts.id), key(facts.id), json, key(facts.contextId), key(facts.state), facts.terminal, facts.statusTime],
    );
  }

  async commit(write: TaskCommit): Promise<TaskCommitResult> {
    const facts = taskFacts(write.task);
    const plan = this.patchPolicy.plan(facts.id, write);
    const events = (write.events ?? []).map((e, i) => ({ final: e.final, text: eventText(e.event, `event ${i} of task "${facts.id}"`) }));
    const pushes = (write.pushes ?? []).map((m) => ({
      taskId: key(m.taskId),
      target: storableJson(m.target, `the push notifications of task "${facts.id}"`),
      payload: storableJson(m.payload, `the push notifications of task "${facts.id}"`),
    }));
    const p = this.p;
    const id = key(facts.id);
    const lease = write.lease;
    const acquire = lease !== undefined && "acquire" in lease ? lease : undefined;
    const leaseOwner = lease === undefined ? "" : key("acquire" in lease ? lease.acquire : lease.release);
    const writeId = write.writeId === undefined ? null : key(write.writeId);
    const statements: string[] = [];
    const values: unknown[] = [];
    const add = (statement: string, ...bound: unknown[]) => {
      statements.push(statement);
      values.push(...bound);
    };
    // A new task's row: its columns, and its values as a VALUES row or a SELECT list.
    const newTask = `INSERT INTO ${p}tasks (id, task, context_id, state, terminal, status_time, version, last_seq, updated_at, owner, last_write)`;
    const newTaskRow = `?, ?, ?, ?, ?, ?, 1, ?, ${NOW_MS}, ?, ?`;
    const newTaskValues = [id, "patch" in plan ? plan.patch : plan.whole, key(facts.contextId), key(facts.state), facts.terminal, facts.statusTime, events.length, key(write.owner ?? ""), writeId];
    // A new task that takes no lease: plain inserts, since a task that exists already fails the first one
    // (a duplicate key, told by `inserted`) and the statements after it do not run; its version is 1 and its
    // events are the log's first. Anything else is guarded by the compare-and-set.
    const plain = write.expectedVersion === 0 && !acquire;
    if (plain) {
      add(`${newTask} VALUES (${newTaskRow})`, ...newTaskValues);
      if (events.length > 0) add(`INSERT INTO ${p}events (task_id, seq, final, event) VALUES ${events.map((_, i) => `(?, ${i + 1}, ?, ?)`).join(", ")}`, ...events.flatMap((e) => [id, e.final, e.text]));
      if (pushes.length > 0) add(`INSERT INTO ${p}outbox (task_id, target, payload, due_at) VALUES ${pushes.map(() => `(?, ?, ?, ${NOW_MS})`).join(", ")}`, ...pushes.flatMap((m) => [m.taskId, m.target, m.payload]));
      if (lease !== undefined) add(`DELETE FROM ${p}leases WHERE task_id = ? AND owner = ?`, id, leaseOwner);
    } else {
      // The lease another instance holds: the compare-and-set does not match while it does.
      const leaseFree = acquire ? `NOT EXISTS (SELECT 1 FROM ${p}leases l WHERE l.task_id = ? AND l.owner <> ? AND l.expires_at > ${NOW_MS})` : "";
      const leaseValues = acquire ? [id, leaseOwner] : [];
      if (write.expectedVersion === 0) {
        // A task that exists already fails the insert (a duplicate key): a conflict, told by `inserted`.
        add(`${newTask} SELECT ${newTaskRow} FROM DUAL${leaseFree ? ` WHERE ${leaseFree}` : ""}`, ...newTaskValues, ...leaseValues);
      } else {
        add(
          `UPDATE ${p}tasks SET ${"patch" in plan ? "patches = patches + 1" : "task = ?, patches = 0"}, context_id = ?, state = ?, terminal = ?, status_time = ?,
             version = version + 1, last_seq = last_seq + ?, last_write = ?, updated_at = ${NOW_MS}
           WHERE id = ? AND version = ?${leaseFree ? ` AND ${leaseFree}` : ""}`,
          ...("patch" in plan ? [] : [plan.whole]), key(facts.contextId), key(facts.state), facts.terminal, facts.statusTime, events.length, writeId, id, write.expectedVersion, ...leaseValues,
        );
      }
      add("SET @a2a_ok = ROW_COUNT()");
      if (write.expectedVersion > 0) {
        // The patch, kept by the version it makes; a whole text drops the patches kept before it.
        if ("patch" in plan) add(`INSERT INTO ${p}task_patches (task_id, version, patch) SELECT id, version, ? FROM ${p}tasks WHERE id = ? AND @a2a_ok = 1`, plan.patch, id);
        else add(`DELETE FROM ${p}task_patches WHERE task_id = ? AND @a2a_ok = 1`, id);
      }
      if (events.length > 0) {
        const rows = events.map((_, i) => (i === 0 ? "SELECT 1 AS k, ? AS final, ? AS event" : `SELECT ${i + 1}, ?, ?`)).join(" UNION ALL ");
        add(
          `INSERT INTO ${p}events (task_id, seq, final, event) SELECT t.id, t.last_seq - ? + x.k, x.final, x.event FROM ${p}tasks t JOIN (${rows}) x WHERE t.id = ? AND @a2a_ok = 1`,
          events.length, ...events.flatMap((e) => [e.final, e.text]), id,
        );
      }
      if (pushes.length > 0) {
        add(
          `INSERT INTO ${p}outbox (task_id, target, payload, due_at) ${pushes.map(() => `SELECT ?, ?, ?, ${NOW_MS} FROM DUAL WHERE @a2a_ok = 1`).join(" UNION ALL ")}`,
          ...pushes.flatMap((m) => [m.taskId, m.target, m.payload]),
        );
      }
      if (acquire) {
        add(
          `INSERT INTO ${p}leases (task_id, owner, expires_at) SELECT ?, ?, ${NOW_MS} + ? FROM DUAL WHERE @a2a_ok = 1
           ON DUPLICATE KEY UPDATE owner = VALUES(owner), expires_at = VALUES(expires_at), previous_owner = NULL, claim = NULL`,
          id, leaseOwner, acquire.ttlMs,
        );
      } else if (lease !== undefined) {
        add(`DELETE FROM ${p}leases WHERE task_id = ? AND owner = ? AND @a2a_ok = 1`, id, leaseOwner);
      }
      // The outcome: the new version and log end, or (no match) the current version and the lease's holder.
      add(
        `SELECT @a2a_ok AS ok, t.version, t.last_seq,
           (SELECT l.owner FROM ${p}leases l WHERE l.task_id = ? AND l.owner <> ? AND l.expires_at > ${NOW_MS}) AS holder
         FROM (SELECT 1) one LEFT JOIN ${p}tasks t ON t.id = ?`,
        id, leaseOwner, id,
      );
    }
    const results = write.expectedVersion === 0 ? await this.inserted(facts.id, id, statements, values) : await this.sql.transaction("commit", statements, values);
    let version = 1;
    let last = events.length;
    if (!plain) {
      const outcome = rowsOf<{ ok: number; version: number | null; last_seq: number | null; holder: Buffer | null }>(results.at(-1))[0];
      if (!outcome || Number(outcome.ok) !== 1) {
        const current = outcome?.version ?? 0;
        if (current === write.expectedVersion && acquire && outcome?.holder) throw new ExecutionLeaseHeldError(facts.id, unkey(outcome.holder));
        throw new TaskVersionConflictError(facts.id, write.expectedVersion, current);
      }
      version = Number(outcome.version);
      last = Number(outcome.last_seq);
    }
    this.patchPolicy.written(facts.id, plan);
    if (events.length > 0) this.wake(facts.id);
    return { version, sequences: events.map((_, i) => last - events.length + 1 + i) };
  }

  /** Runs the transaction of a commit that creates task `taskId` (stored as `id`): a duplicate key is a version conflict. */
  private async inserted(taskId: string, id: string, statements: readonly string[], values: readonly unknown[]) {
    try {
      return await this.sql.transaction("commit", statements, values);
    } catch (error) {
      if (errorCode(error) !== "ER_DUP_ENTRY") throw error;
      // The task exists already: read what it is at (the conflict path only).
      const [found] = await this.sql.rows<{ version: number | null }>("commit", `SELECT (SELECT version FROM ${this.p}tasks WHERE id = ?) AS version`, [id]);
      throw new TaskVersionConflictError(taskId, 0, found?.version ?? 0);
    }
  }

  async list(filter: { contextId?: string } = {}): Promise<JsonObject[]> {
    const rows =
      filter.contextId === undefined
        ? await this.sql.rows<TaskRow>("list", `SELECT ${this.columns} FROM ${this.p}tasks t ORDER BY t.status_time DESC, t.id DESC`)
        : await this.sql.rows<TaskRow>("list", `SELECT ${this.columns} FROM ${this.p}tasks t WHERE t.context_id = ? ORDER BY t.status_time DESC, t.id DESC`, [key(filter.contextId)]);
    return rows.map((r) => taskOf(r, unkey(r.id)));
  }

  async query(query: TaskQuery): Promise<TaskPage> {
    const pageSize = pageSizeOf(query);
    const where: string[] = [];
    const values: unknown[] = [];
    if (query.owner !== undefined) (where.push("t.owner = ?"), values.push(key(query.owner)));
    if (query.contextId !== undefined) (where.push("t.context_id = ?"), values.push(key(query.contextId)));
    if (query.status !== undefined) (where.push("t.state = ?"), values.push(key(query.status)));
    if (query.statusTimestampAfter !== undefined) (where.push("t.status_time >= ?"), values.push(Math.ceil(query.statusTimestampAfter)));
    const filters = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
    const countValues = [...values];
    if (query.pageToken) {
      const cursor = decodePageToken(query.pageToken);
      where.push("(t.status_time, t.id) < (?, ?)");
      values.push(cursor.statusTime, key(cursor.id));
    }
    const pageWhere = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
    // The page and the total in one round trip.
    const [page, count] = await this.sql.query(
      "query",
      `SELECT ${this.columns} FROM ${this.p}tasks t ${pageWhere} ORDER BY t.status_time DESC, t.id DESC LIMIT ?;
       SELECT count(*) AS n FROM ${this.p}tasks t ${filters}`,
      [...values, pageSize + 1, ...countValues],
    );
    const rows = rowsOf<TaskRow>(page);
    const shown = rows.slice(0, pageSize);
    const last = shown.at(-1);
    return {
      tasks: shown.map((r) => taskOf(r, unkey(r.id))),
      nextPageToken: rows.length > pageSize && last ? encodePageToken(Number(last.status_time), unkey(last.id)) : "",
      totalSize: Number(rowsOf<{ n: number }>(count)[0]?.n ?? 0),
    };
  }
}

/** A row's task, with the patches kept after its text applied. */
function taskOf(row: TaskRow, taskId: string): JsonObject {
  const task = JSON.parse(row.task) as JsonObject;
  return row.patches === null ? task : withPatches(task, JSON.parse(row.patches) as TaskPatchOperation[][], taskId);
}
