/**
 * The PostgreSQL task store: tasks as rows compare-and-set on `version`; a commit writes the task, its
 * events, its push configs and its push notifications in one statement (one round trip, atomic), and
 * NOTIFYs the task's subscribers.
 */
import { ExecutionLeaseHeldError, TaskVersionConflictError } from "../errors.js";
import { decodePageToken, encodePageToken, pageSizeOf } from "../paging.js";
import { storableJson, taskFacts } from "../task-json.js";
import type { TaskCommit, TaskCommitResult, TaskPage, TaskQuery, VersionedTask, VersionedTaskStore } from "../contract.js";
import type { JsonObject } from "../../json.js";
import { TaskPatchPolicy, withPatches } from "../patch-policy.js";
import type { TaskPatchOperation } from "../task-patch.js";
import { type Queryable, toStoredText } from "./sql.js";

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

/** NOTIFY carries the task id (at most 8000 bytes, as stored); a longer id wakes every subscriber ("*"). */
export function notifyPayload(taskId: string): string {
  return Buffer.byteLength(toStoredText(taskId)) < 7_000 ? `t:${taskId}` : "*";
}
