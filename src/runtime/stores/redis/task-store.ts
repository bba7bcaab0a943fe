/**
 * The Redis task store: a task's JSON, version and facts in keys under the prefix, compare-and-set and
 * written with its ListTasks indexes, events and push notifications by one script; ListTasks by sorted
 * sets of equal scores (member `<status time>:<id>`), paged by ZRANGE BYLEX REV.
 */
import { ExecutionLeaseHeldError, TaskVersionConflictError } from "../errors.js";
import { decodePageToken, encodePageToken, pageSizeOf } from "../paging.js";
import { storableJson, taskFacts } from "../task-json.js";
import type { TaskCommit, TaskCommitResult, TaskPage, TaskQuery, VersionedTask, VersionedTaskStore } from "../contract.js";
import type { JsonObject } from "../../json.js";
import { TaskPatchPolicy, withPatches } from "../patch-policy.js";
import type { TaskPatchOperation } from "../task-patch.js";
import { Connection } from "./connection.js";

/** The ListTasks sort member: fixed-width status time, then the id (byte order = newest-first order reversed). */
function indexMember(statusTime: number, id: string): string {
  return `${String(Math.max(0, Math.min(statusTime, 999_999_999_999_999))).padStart(15, "0")}:${id}`;
}

export class RedisTaskStore implements VersionedTaskStore {
  /** An interim write of a streamed artifact may be kept as its patch (patch-policy.ts). */
  readonly storesTaskPatches = true;
  /** Each task's last write id is kept (the hash's `w`) and read with it. */
  readonly keepsWriteIds = true;
  private readonly db: Connection;
  private readonly patchPolicy = new TaskPatchPolicy();

  constructor(db: Connection) {
    this.db = db;
  }

  async get(taskId: string): Promise<JsonObject | undefined> {
    return (await this.load(taskId))?.task;
  }

  async load(taskId: string): Promise<VersionedTask | undefined> {
    const reply = await this.db.script<string[]>("load", [taskId]);
    const [json, version, owner, seq, writeId] = reply;
    if (json === undefined) return undefined;
    const task = withPatches(JSON.parse(json) as JsonObject, parsedPatches(reply, 5, reply.length), taskId);
    return { task, version: Number(version), ...(owner ? { owner } : {}), logSeq: Number(seq), ...(writeId ? { lastWriteId: writeId } : {}) };
  }

  async save(task: JsonObject): Promise<void> {
    await this.write({ task, expectedVersion: -1 });
  }

  async commit(write: TaskCommit): Promise<TaskCommitResult> {
    return this.write(write);
  }

  /** One commit script call; `expectedVersion` -1 writes whatever the version. */
  private async write(write: TaskCommit): Promise<TaskCommitResult> {
    const { task, expectedVersion: expected, lease } = write;
    const events = write.events ?? [];
    const pushes = write.pushes ?? [];
    const facts = taskFacts(task);
    const plan = this.patchPolicy.plan(facts.id, write);
    const args: Array<string | number> = [
      facts.id,
      "patch" in plan ? plan.patch : plan.whole,
      expected,
      facts.contextId,
      facts.state,
      facts.terminal ? "1" : "0",
      indexMember(facts.statusTime, facts.id),
      lease === undefined ? "none" : "acquire" in lease ? "acquire" : "release",
      lease === undefined ? "" : "acquire" in lease ? lease.acquire : lease.release,
      lease !== undefined && "acquire" in lease ? Math.max(1, Math.floor(lease.ttlMs)) : 0,
      write.owner ?? "",
      "patch" in plan ? "1" : "0",
      write.writeId ?? "",
      events.length,
    ];
    for (const e of events) args.push(e.final ? "1" : "0", storableJson(e.event, `an event of task "${facts.id}"`));
    args.push(pushes.length);
    for (const m of pushes) args.push(m.taskId, storableJson(m.target, "a push target"), storableJson(m.payload, "a push notification"));
    const reply = await this.db.script<Array<number | string>>("commit", args);
    if (reply[0] === 2) throw new ExecutionLeaseHeldError(facts.id, String(reply[1]));
    if (reply[0] !== 1) throw new TaskVersionConflictError(facts.id, expected, Number(reply[1]));
    this.patchPolicy.written(facts.id, plan);
    const last = Number(reply[2]);
    return { version: Number(reply[1]), sequences: events.map((_, i) => last - events.length + 1 + i) };
  }

  async list(filter: { contextId?: string } = {}): Promise<JsonObject[]> {
    const all: JsonObject[] = [];
    let pageToken: string | undefined;
    do {
      const page = await this.query({ ...filter, pageSize: 1000, ...(pageToken ? { pageToken } : {}) });
      all.push(...page.tasks);
      pageToken = page.nextPageToken || undefined;
    } while (pageToken);
    return all;
  }

  async query(query: TaskQuery): Promise<TaskPage> {
    const pageSize = pageSizeOf(query);
    const { contextId: ctx, status: state } = query;
    const scope = query.owner === undefined ? "idx:" : `idx:o:${Buffer.byteLength(query.owner)}:${query.owner}:`;
    const index =
      scope + (ctx !== undefined && state !== undefined ? `cs:${Buffer.byteLength(ctx)}:${ctx}:${state}` : ctx !== undefined ? `c:${ctx}` : state !== undefined ? `s:${state}` : "all");
    const cursor = query.pageToken ? decodePageToken(query.pageToken) : undefined;
    const max = cursor ? `(${indexMember(cursor.statusTime, cursor.id)}` : "+";
    const min = query.statusTimestampAfter !== undefined ? `[${indexMember(Math.ceil(query.statusTimestampAfter), "").slice(0, 15)}` : "-";
    const reply = await this.db.script<Array<string | number>>("query", [index, max, min, pageSize + 1]);
    const rows: Array<{ member: string; task: JsonObject }> = [];
    for (let i = 1; i + 2 < reply.length; ) {
      const member = String(reply[i]);
      const json = String(reply[i + 1]);
      const count = Number(reply[i + 2]);
      const id = member.slice(16);
      if (json !== "") rows.push({ member, task: withPatches(JSON.parse(json) as JsonObject, parsedPatches(reply, i + 3, i + 3 + count), id) });
      i += 3 + count;
    }
    const page = rows.slice(0, pageSize);
    const last = page.at(-1);
    return {
      tasks: page.map((r) => r.task),
      nextPageToken: rows.length > pageSize && last ? encodePageToken(Number(last.member.slice(0, 15)), last.member.slice(16)) : "",
      totalSize: Number(reply[0]),
    };
  }
}

/** The patches of a script's reply from `from` to `to` (their JSON texts), parsed. */
function parsedPatches(reply: ReadonlyArray<string | number>, from: number, to: number): TaskPatchOperation[][] {
  const patches: TaskPatchOperation[][] = [];
  for (let i = from; i < to; i++) patches.push(JSON.parse(String(reply[i])) as TaskPatchOperation[]);
  return patches;
}
