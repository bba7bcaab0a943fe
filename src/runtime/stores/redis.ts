/**
 * The Redis store (node-redis, `@redis/client`): tasks, push configs, task event logs, the push outbox
 * and execution leases in keys under one prefix.
 *
 * Why node-redis: it is the client Redis maintains (ioredis is in maintenance mode), it is written in
 * TypeScript, and it has what a store that must never hang needs built in: per-command timeouts,
 * `disableOfflineQueue` (commands fail at once while disconnected instead of piling up), a reconnect
 * strategy, and Pub/Sub subscriptions restored after a reconnection. The core package is used alone
 * (no Redis Stack modules), so a generated agent adds one dependency.
 *
 * - Every write is one Lua script (atomic, one round trip): compare-and-set on the task's version, its
 *   ListTasks indexes, its events and its push notifications together.
 * - The event log of a task is a Redis Stream whose entry ids are the task's sequences (`<seq>-0`):
 *   the server enforces their order, XRANGE reads from any sequence, and the stream is deleted with
 *   the task. A Pub/Sub message on `<prefix>events` wakes the subscribers of other instances up; they
 *   read the stream after the last sequence they delivered (a wake-up lost while disconnected is made
 *   good by the catch-up that follows the reconnection). XREAD BLOCK would need one blocking connection
 *   per waiting stream set and could not change the set without interrupting it.
 * - ListTasks: sorted sets of equal scores ordered by member `<status time, 15 digits>:<id>`, one per
 *   filter combination (all, context, state, context+state), paged by ZRANGE BYLEX REV with the cursor
 *   as an exclusive bound.
 * - Time (leases, outbox, retention) is the Redis server's clock (TIME inside the scripts).
 * - The scripts build key names from the prefix, so the store needs a single Redis (standalone or
 *   behind Sentinel), not Redis Cluster.
 * - Durability is Redis's: run it with the append-only file (`appendonly yes`) to keep tasks across a
 *   restart.
 */
import { createHash } from "node:crypto";
import { createClient } from "@redis/client";
import { ExecutionLeaseHeldError, StoreError, StoreUnavailableError, TaskVersionConflictError } from "./errors.js";
import { decodePageToken, encodePageToken, pageSizeOf } from "./paging.js";
import { pushConfigId, storableJson, taskFacts } from "./task-json.js";
import type { A2AStore, EventSubscription, EventSubscriptionOptions, ExecutionLeases, LeaseHolder, LoggedEvent, OutboxEntry, OutboxMessage, PushConfigStore, PushOutbox, TaskCommit, TaskCommitResult, TaskEventInput, TaskEventLog, TaskPage, TaskQuery, VersionedTask, VersionedTaskStore } from "./contract.js";
import type { JsonObject } from "../json.js";
import { LogFollower } from "./follower.js";
import { TaskPatchPolicy, withPatches } from "./patch-policy.js";
import type { TaskPatchOperation } from "./task-patch.js";

export interface RedisStoreOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…`. */
  url: string;
  /** Prefix of every key and channel; default "a2a:". */
  keyPrefix?: string;
  /** Longest wait for a connection, in ms; default 5_000. */
  connectTimeoutMs?: number;
  /** Longest wait for a command, in ms; default 10_000. */
  commandTimeoutMs?: number;
  /** Where connection errors seen in the background are reported; default: nowhere (they surface as StoreUnavailableError). */
  onBackgroundError?: (error: StoreError) => void;
}

type Reply = string | number | null | Reply[];
type Client = ReturnType<typeof createClient<{}, {}, {}, 2>>;

const ENGINE = "redis";

/** Maps a client error to a store error: the engine's unavailability, or a failure naming the operation. */
export function redisError(error: unknown, operation: string): StoreError {
  if (error instanceof StoreError) return error;
  const name = error instanceof Error ? error.name : "";
  const message = error instanceof Error ? error.message : String(error);
  const replyError = name === "ErrorReply" || name === "SimpleError" || name === "BlobError";
  if (!replyError && /offline|closed|timeout|timed out|connect|socket|ECONN|EPIPE|ENOTFOUND|EHOSTUNREACH|abort/i.test(`${name} ${message}`)) {
    return new StoreUnavailableError(ENGINE, `${operation}: ${message}`, { cause: error });
  }
  if (/^(LOADING|BUSY|MASTERDOWN|TRYAGAIN)/.test(message)) return new StoreUnavailableError(ENGINE, `${operation}: ${message}`, { cause: error });
  return new StoreError(`${ENGINE} store: ${operation} failed: ${message}`, "failed", { cause: error });
}

/** The Lua scripts; ARGV[1] is always the key prefix. */
const LUA = {
  now: `local t = redis.call('TIME') return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`,
  // Removes a task's index entries (a write re-adds them).
  // The index keys of a task: unscoped (every task) and within its owner scope, by context, state and both.
  indexes: `
    local function indexes(p, own, ctx, state)
      local cs = 'cs:' .. string.len(ctx) .. ':' .. ctx .. ':' .. state
      local o = p .. 'idx:o:' .. string.len(own) .. ':' .. own .. ':'
      return {p .. 'idx:all', p .. 'idx:c:' .. ctx, p .. 'idx:s:' .. state, p .. 'idx:' .. cs, o .. 'all', o .. 'c:' .. ctx, o .. 's:' .. state, o .. cs}
    end`,
  // Removes a task's index entries (a write re-adds them).
  unindex: `
    local function unindex(p, id, tkey)
      local old = redis.call('HMGET', tkey, 'm', 'ctx', 'state', 'own')
      if not old[1] then return end
      for _, key in ipairs(indexes(p, old[4] or '', old[2], old[3])) do redis.call('ZREM', key, old[1]) end
      redis.call('ZREM', p .. 'finished', id)
    end`,
};

const SCRIPTS = {
  // ARGV: prefix, id, json (or a patch), expected (-1: unconditional), ctx, state, terminal, member,
  //       lease mode (none, acquire, release), lease owner, lease ttl, task owner (kept from the creation),
  //       '1' when ARGV[3] is a patch (kept after the task's text, patch-policy.ts) else '0', write id ('' none),
  //       event count, (final, event)..., push count, (taskId, target, payload)...
  // Returns {1, version, lastSeq}, {0, currentVersion} (version conflict) or {2, holder} (lease held).
  commit: `
    ${LUA.indexes}
    ${LUA.unindex}
    local p, id = ARGV[1], ARGV[2]
    local tkey = p .. 'task:' .. id
    local cur = tonumber(redis.call('HGET', tkey, 'v') or '0')
    local expected = tonumber(ARGV[4])
    if expected >= 0 and cur ~= expected then return {0, cur} end
    local now = (function() ${LUA.now} end)()
    local mode, lowner = ARGV[9], ARGV[10]
    if mode == 'acquire' then
      local holder = redis.call('HGET', p .. 'lease-owner', id)
      local expires = tonumber(redis.call('ZSCORE', p .. 'leases', id) or '0')
      if holder and holder ~= lowner and expires > now then return {2, holder} end
      redis.call('HSET', p .. 'lease-owner', id, lowner)
      redis.call('ZADD', p .. 'leases', now + tonumber(ARGV[11]), id)
    elseif mode == 'release' and redis.call('HGET', p .. 'lease-owner', id) == lowner then
      redis.call('HDEL', p .. 'lease-owner', id)
      redis.call('ZREM', p .. 'leases', id)
    end
    local own = redis.call('HGET', tkey, 'own')
    if not own then own = cur == 0 and ARGV[12] or '' end
    unindex(p, id, tkey)
    local ctx, state, member = ARGV[5], ARGV[6], ARGV[8]
    for _, key in ipairs(indexes(p, own, ctx, state)) do redis.call('ZADD', key, 0, member) end
    if ARGV[7] == '1' then redis.call('ZADD', p .. 'finished', now, id) end
    local seq = tonumber(redis.call('HGET', tkey, 'seq') or '0')
    local i = 15
    local n = tonumber(ARGV[i])
    for k = 1, n do
      seq = seq + 1
      redis.call('XADD', p .. 'events:' .. id, seq .. '-0', 'f', ARGV[i + 2 * k - 1], 'e', ARGV[i + 2 * k])
    end
    if ARGV[13] == '1' then
      redis.call('RPUSH', p .. 'patches:' .. id, ARGV[3])
    else
      redis.call('DEL', p .. 'patches:' .. id)
      redis.call('HSET', tkey, 'json', ARGV[3])
    end
    redis.call('HSET', tkey, 'v', cur + 1, 'ctx', ctx, 'state', state, 'm', member, 'seq', seq, 'upd', now, 'own', own, 'w', ARGV[14])
    if n > 0 then redis.call('PUBLISH', p .. 'events', id) end
    i = i + 2 * n + 1
    local m = tonumber(ARGV[i])
    for k = 1, m do
      local oid = redis.call('INCR', p .. 'outbox:next')
      local j = i + 3 * (k - 1)
      redis.call('HSET', p .. 'outbox:' .. oid, 'task', ARGV[j + 1], 'target', ARGV[j + 2], 'payload', ARGV[j + 3], 'attempts', 0)
      redis.call('ZADD', p .. 'outbox', now, oid)
    end
    return {1, cur + 1, seq}`,
  // ARGV: prefix, id, event count, (final, event)... Returns the last sequence, or -1 without the task.
  append: `
    local p, id = ARGV[1], ARGV[2]
    local tkey = p .. 'task:' .. id
    if redis.call('EXISTS', tkey) == 0 then return -1 end
    local seq = tonumber(redis.call('HGET', tkey, 'seq') or '0')
    local n = tonumber(ARGV[3])
    for k = 1, n do
      seq = seq + 1
      redis.call('XADD', p .. 'events:' .. id, seq .. '-0', 'f', ARGV[2 + 2 * k], 'e', ARGV[3 + 2 * k])
    end
    redis.call('HSET', tkey, 'seq', seq)
    if n > 0 then redis.call('PUBLISH', p .. 'events', id) end
    return seq`,
  // ARGV: prefix, task id. Returns {} without the task, else {json, version, owner, last event sequence, last write id, patch...}.
  load: `
    local p, id = ARGV[1], ARGV[2]
    local r = redis.call('HMGET', p .. 'task:' .. id, 'json', 'v', 'own', 'seq', 'w')
    if not r[1] then return {} end
    local out = {r[1], r[2], r[3] or '', r[4] or '0', r[5] or ''}
    for _, patch in ipairs(redis.call('LRANGE', p .. 'patches:' .. id, 0, -1)) do out[#out + 1] = patch end
    return out`,
  // ARGV: prefix, index key, max (lex), min (lex), limit. Returns {total, (member, json, patch count, patch...)...} newest first.
  query: `
    local p = ARGV[1]
    local key = p .. ARGV[2]
    local total = redis.call('ZLEXCOUNT', key, ARGV[4], '+')
    local members = redis.call('ZRANGE', key, ARGV[3], ARGV[4], 'BYLEX', 'REV', 'LIMIT', 0, tonumber(ARGV[5]))
    local out = {total}
    for _, member in ipairs(members) do
      local id = string.sub(member, 17)
      out[#out + 1] = member
      out[#out + 1] = redis.call('HGET', p .. 'task:' .. id, 'json') or ''
      local patches = redis.call('LRANGE', p .. 'patches:' .. id, 0, -1)
      out[#out + 1] = #patches
      for _, patch in ipairs(patches) do out[#out + 1] = patch end
    end
    return out`,
  // ARGV: prefix, task id, config id, json. Keeps the position of an existing id.
  pushSet: `
    local p = ARGV[1]
    if redis.call('HEXISTS', p .. 'pushpos:' .. ARGV[2], ARGV[3]) == 0 then
      redis.call('HSET', p .. 'pushpos:' .. ARGV[2], ARGV[3], redis.call('INCR', p .. 'pushseq'))
    end
    redis.call('HSET', p .. 'push:' .. ARGV[2], ARGV[3], ARGV[4])
    return 1`,
  // ARGV: prefix, task id. Returns {position, json, ...}.
  pushList: `
    local p = ARGV[1]
    local all = redis.call('HGETALL', p .. 'push:' .. ARGV[2])
    local out = {}
    for i = 1, #all, 2 do
      out[#out + 1] = redis.call('HGET', p .. 'pushpos:' .. ARGV[2], all[i]) or '0'
      out[#out + 1] = all[i + 1]
    end
    return out`,
  pushDelete: `
    local p = ARGV[1]
    redis.call('HDEL', p .. 'pushpos:' .. ARGV[2], ARGV[3])
    return redis.call('HDEL', p .. 'push:' .. ARGV[2], ARGV[3])`,
  // ARGV: prefix, count, (taskId, target, payload)... Returns the ids.
  enqueue: `
    local p = ARGV[1]
    local now = (function() ${LUA.now} end)()
    local ids = {}
    for k = 1, tonumber(ARGV[2]) do
      local oid = redis.call('INCR', p .. 'outbox:next')
      local j = 2 + 3 * (k - 1)
      redis.call('HSET', p .. 'outbox:' .. oid, 'task', ARGV[j + 1], 'target', ARGV[j + 2], 'payload', ARGV[j + 3], 'attempts', 0)
      redis.call('ZADD', p .. 'outbox', now, oid)
      ids[#ids + 1] = tostring(oid)
    end
    return ids`,
  // ARGV: prefix, owner, lease ms, limit. A claimed entry is due again when its lease ends.
  claim: `
    local p = ARGV[1]
    local now = (function() ${LUA.now} end)()
    local ids = redis.call('ZRANGEBYSCORE', p .. 'outbox', '-inf', now, 'LIMIT', 0, tonumber(ARGV[4]))
    local out = {}
    for _, oid in ipairs(ids) do
      local key = p .. 'outbox:' .. oid
      redis.call('ZADD', p .. 'outbox', now + tonumber(ARGV[3]), oid)
      local attempts = redis.call('HINCRBY', key, 'attempts', 1)
      redis.call('HSET', key, 'owner', ARGV[2])
      local e = redis.call('HMGET', key, 'task', 'target', 'payload')
      out[#out + 1] = oid
      out[#out + 1] = e[1]
      out[#out + 1] = e[2]
      out[#out + 1] = e[3]
      out[#out + 1] = attempts
    end
    return out`,
  ack: `
    local p = ARGV[1]
    local key = p .. 'outbox:' .. ARGV[2]
    if redis.call('HGET', key, 'owner') ~= ARGV[3] then return 0 end
    redis.call('DEL', key)
    redis.call('ZREM', p .. 'outbox', ARGV[2])
    return 1`,
  retry: `
    local p = ARGV[1]
    local key = p .. 'outbox:' .. ARGV[2]
    if redis.call('HGET', key, 'owner') ~= ARGV[3] then return 0 end
    local now = (function() ${LUA.now} end)()
    redis.call('HDEL', key, 'owner')
    redis.call('ZADD', p .. 'outbox', now + tonumber(ARGV[4]), ARGV[2])
    return 1`,
  // ARGV: prefix, task id, owner, ttl ms.
  acquire: `
    local p = ARGV[1]
    local now = (function() ${LUA.now} end)()
    local owner = redis.call('HGET', p .. 'lease-owner', ARGV[2])
    local expires = tonumber(redis.call('ZSCORE', p .. 'leases', ARGV[2]) or '0')
    if owner and owner ~= ARGV[3] and expires > now then return 0 end
    redis.call('HSET', p .. 'lease-owner', ARGV[2], ARGV[3])
    redis.call('ZADD', p .. 'leases', now + tonumber(ARGV[4]), ARGV[2])
    return 1`,
  renew: `
    local p = ARGV[1]
    if redis.call('HGET', p .. 'lease-owner', ARGV[2]) ~= ARGV[3] then return 0 end
    local now = (function() ${LUA.now} end)()
    redis.call('ZADD', p .. 'leases', now + tonumber(ARGV[4]), ARGV[2])
    return 1`,
  release: `
    local p = ARGV[1]
    if redis.call('HGET', p .. 'lease-owner', ARGV[2]) ~= ARGV[3] then return 0 end
    redis.call('HDEL', p .. 'lease-owner', ARGV[2])
    redis.call('ZREM', p .. 'leases', ARGV[2])
    return 1`,
  holder: `
    local p = ARGV[1]
    local owner = redis.call('HGET', p .. 'lease-owner', ARGV[2])
    if not owner then return {} end
    return {owner, redis.call('ZSCORE', p .. 'leases', ARGV[2])}`,
  // ARGV: prefix, owner, ttl ms, limit. Returns {taskId, previousOwner, ...}.
  claimExpired: `
    local p = ARGV[1]
    local now = (function() ${LUA.now} end)()
    local ids = redis.call('ZRANGEBYSCORE', p .. 'leases', '-inf', now, 'LIMIT', 0, tonumber(ARGV[4]))
    local out = {}
    for _, id in ipairs(ids) do
      out[#out + 1] = id
      out[#out + 1] = redis.call('HGET', p .. 'lease-owner', id) or ''
      redis.call('HSET', p .. 'lease-owner', id, ARGV[2])
      redis.call('ZADD', p .. 'leases', now + tonumber(ARGV[3]), id)
    end
    return out`,
  // ARGV: prefix, older than ms, limit. Returns how many tasks were deleted.
  purge: `
    ${LUA.indexes}
    ${LUA.unindex}
    local p = ARGV[1]
    local now = (function() ${LUA.now} end)()
    local ids = redis.call('ZRANGEBYSCORE', p .. 'finished', '-inf', '(' .. (now - tonumber(ARGV[2])), 'LIMIT', 0, tonumber(ARGV[3]))
    for _, id in ipairs(ids) do
      local tkey = p .. 'task:' .. id
      unindex(p, id, tkey)
      redis.call('DEL', tkey, p .. 'events:' .. id, p .. 'patches:' .. id, p .. 'push:' .. id, p .. 'pushpos:' .. id)
      redis.call('HDEL', p .. 'lease-owner', id)
      redis.call('ZREM', p .. 'leases', id)
      redis.call('ZREM', p .. 'finished', id)
    end
    return #ids`,
} as const;

type ScriptName = keyof typeof SCRIPTS;
const SHAS = Object.fromEntries(Object.entries(SCRIPTS).map(([name, body]) => [name, createHash("sha1").update(body).digest("hex")])) as Record<ScriptName, string>;

/**
 * The data layout version this store writes, kept at `<prefix>schema`. 2: a running task's patches
 * (`patches:<id>`, patch-policy.ts), which a store of layout 1 would not apply. Each layout reads the
 * data of the layouts before it: a store raises the version it finds, and refuses a newer one.
 */
const SCHEMA_VERSION = 2;

/** The ListTasks sort member: fixed-width status time, then the id (byte order = newest-first order reversed). */
function indexMember(statusTime: number, id: string): string {
  return `${String(Math.max(0, Math.min(statusTime, 999_999_999_999_999))).padStart(15, "0")}:${id}`;
}

class Connection {
  /** Commands sent so far (round trips), for benchmarks. */
  readonly roundTrips = { count: 0 };
  readonly client: Client;
  readonly prefix: string;

  constructor(
    client: Client,
    prefix: string,
  ) {
    this.client = client;
    this.prefix = prefix;
  }

  async command<T extends Reply>(args: string[], operation: string): Promise<T> {
    this.roundTrips.count++;
    try {
      return fromStoredReply(await this.client.sendCommand(args.map(toStoredText))) as T;
    } catch (error) {
      throw redisError(error, operation);
    }
  }

  /** Runs a script by its hash, loading it on the first NOSCRIPT. */
  async script<T extends Reply>(name: ScriptName, args: Array<string | number>): Promise<T> {
    const argv = [this.prefix, ...args.map((arg) => toStoredText(String(arg)))];
    this.roundTrips.count++;
    try {
      return fromStoredReply(await this.client.sendCommand(["EVALSHA", SHAS[name], "0", ...argv])) as T;
    } catch (error) {
      if (!(error instanceof Error) || !/NOSCRIPT/.test(error.message)) throw redisError(error, name);
    }
    this.roundTrips.count++;
    try {
      return fromStoredReply(await this.client.sendCommand(["EVAL", SCRIPTS[name], "0", ...argv])) as T;
    } catch (error) {
      throw redisError(error, name);
    }
  }
}

/*
 * Strings Redis would change: a command's strings travel as UTF-8, where a lone surrogate becomes U+FFFD
 * (two ids would become one). Any JSON string is a valid id or value (the other engines keep it), so each
 * lone surrogate, and U+0001 (so that the form can be read back), is sent as U+0001 and its code in 4
 * lower-case hex digits, and replies are read back the same way. JSON texts (JSON.stringify escapes both)
 * and every other string travel as they are.
 */
const UNSTORABLE = /\u0001|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function toStoredText(text: string): string {
  return text.replace(UNSTORABLE, (c) => `\u0001${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function fromStoredText(text: string): string {
  return text.includes("\u0001") ? text.replace(/\u0001([0-9a-f]{4})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))) : text;
}

function fromStoredReply(reply: unknown): unknown {
  if (typeof reply === "string") return fromStoredText(reply);
  return Array.isArray(reply) ? reply.map(fromStoredReply) : reply;
}

function clientOptions(options: RedisStoreOptions) {
  return {
    url: options.url,
    RESP: 2 as const,
    // Fail fast while disconnected: callers get StoreUnavailableError, not a queue that grows.
    disableOfflineQueue: true,
    commandOptions: { timeout: options.commandTimeoutMs ?? 10_000 },
    socket: {
      connectTimeout: options.connectTimeoutMs ?? 5_000,
      // Reconnect forever, backing off to 2 s: the store recovers by itself when Redis is back.
      reconnectStrategy: (retries: number) => Math.min(100 * 2 ** Math.min(retries, 5), 2_000),
    },
  };
}

/** Connects a client, giving up after the connect timeout (never waits forever for a first connection). */
async function connectClient(client: Client, timeoutMs: number, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreUnavailableError(ENGINE, `${what}: no connection within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([client.connect(), timeout]);
  } catch (error) {
    client.destroy();
    throw redisError(error, what);
  } finally {
    clearTimeout(timer);
  }
}

export class RedisStore implements A2AStore {
  readonly engine = ENGINE;
  readonly tasks: RedisTaskStore;
  readonly pushConfigs: RedisPushConfigStore;
  readonly events: RedisTaskEventLog;
  readonly outbox: RedisPushOutbox;
  readonly leases: RedisExecutionLeases;
  private closed = false;

  private readonly connection: Connection;
  private readonly subscriber: Subscriber;

  private constructor(
    connection: Connection,
    subscriber: Subscriber,
  ) {
    this.connection = connection;
    this.subscriber = subscriber;
    this.tasks = new RedisTaskStore(connection);
    this.pushConfigs = new RedisPushConfigStore(connection);
    this.events = new RedisTaskEventLog(connection, subscriber);
    this.outbox = new RedisPushOutbox(connection);
    this.leases = new RedisExecutionLeases(connection);
  }

  /** Connects and checks the data layout version; `StoreUnavailableError` when Redis cannot be reached. */
  static async connect(options: RedisStoreOptions): Promise<RedisStore> {
    const prefix = options.keyPrefix ?? "a2a:";
    const client: Client = createClient(clientOptions(options));
    client.on("error", (error: unknown) => options.onBackgroundError?.(redisError(error, "connection")));
    await connectClient(client, options.connectTimeoutMs ?? 5_000, "connect");
    const connection = new Connection(client, prefix);
    const store = new RedisStore(connection, new Subscriber(client, `${prefix}events`, options));
    try {
      // The layout version: set once, raised when older than this store's, refused when newer.
      await connection.command(["SET", `${prefix}schema`, String(SCHEMA_VERSION), "NX"], "connect");
      const stored = Number(await connection.command<string | null>(["GET", `${prefix}schema`], "connect"));
      if (stored > SCHEMA_VERSION) {
        throw new StoreError(`redis store: the data layout is at version ${stored}, newer than this store knows (${SCHEMA_VERSION}); upgrade the agent`, "failed");
      }
      if (stored < SCHEMA_VERSION) await connection.command(["SET", `${prefix}schema`, String(SCHEMA_VERSION)], "connect");
      // Load the scripts now (sent together): each operation is then one EVALSHA.
      await Promise.all(Object.values(SCRIPTS).map((body) => connection.command(["SCRIPT", "LOAD", body], "connect")));
    } catch (error) {
      await store.close();
      throw error;
    }
    return store;
  }

  /** Commands sent so far (round trips), for benchmarks. */
  get roundTrips(): { readonly count: number } {
    return this.connection.roundTrips;
  }

  async purgeFinished(options: { olderThanMs: number; limit?: number }): Promise<number> {
    return this.connection.script<number>("purge", [Math.max(0, Math.floor(options.olderThanMs)), options.limit ?? 10_000]);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.subscriber.close();
    const client = this.connection.client;
    if (client.isOpen) await client.close().catch(() => client.destroy());
  }

  /** Deletes every key of this store's prefix (tests and uninstall). */
  async dropKeys(): Promise<void> {
    let cursor = "0";
    do {
      const [next, keys] = await this.connection.command<[string, string[]]>(["SCAN", cursor, "MATCH", `${globEscape(this.connection.prefix)}*`, "COUNT", "500"], "scan");
      if (keys.length > 0) await this.connection.command(["UNLINK", ...keys], "unlink");
      cursor = next;
    } while (cursor !== "0");
  }
}

function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

// ---------------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------------

export class RedisPushConfigStore implements PushConfigStore {
  private readonly db: Connection;

  constructor(db: Connection) {
    this.db = db;
  }

  async set(taskId: string, config: JsonObject): Promise<JsonObject> {
    const id = pushConfigId(taskId, config);
    const json = storableJson(config, `push config "${id}"`);
    await this.db.script("pushSet", [taskId, id, json]);
    return JSON.parse(json) as JsonObject;
  }

  async get(taskId: string, configId?: string): Promise<JsonObject | undefined> {
    if (configId !== undefined) {
      const json = await this.db.command<string | null>(["HGET", `${this.db.prefix}push:${taskId}`, configId], "push get");
      return json === null ? undefined : (JSON.parse(json) as JsonObject);
    }
    return (await this.list(taskId)).at(-1);
  }

  async list(taskId: string): Promise<JsonObject[]> {
    const reply = await this.db.script<string[]>("pushList", [taskId]);
    const entries: Array<{ position: number; config: JsonObject }> = [];
    for (let i = 0; i + 1 < reply.length; i += 2) entries.push({ position: Number(reply[i]), config: JSON.parse(String(reply[i + 1])) as JsonObject });
    return entries.sort((a, b) => a.position - b.position).map((e) => e.config);
  }

  async delete(taskId: string, configId: string): Promise<boolean> {
    return (await this.db.script<number>("pushDelete", [taskId, configId])) > 0;
  }
}

// ---------------------------------------------------------------------------------------------------

export class RedisTaskEventLog implements TaskEventLog {
  private readonly follower: LogFollower;

  private readonly db: Connection;

  constructor(
    db: Connection,
    subscriber: Subscriber,
  ) {
    this.db = db;
    this.follower = new LogFollower(
      (taskId, after, limit) => this.read(taskId, after, limit),
      () => subscriber.listening(),
    );
    subscriber.onMessage = (taskId) => this.follower.wake(taskId);
    subscriber.onReconnect = () => this.follower.wake(undefined);
    subscriber.wanted = () => this.follower.size > 0;
  }

  async append(taskId: string, events: readonly TaskEventInput[]): Promise<number[]> {
    if (events.length === 0) return [];
    const args: Array<string | number> = [taskId, events.length];
    for (const e of events) args.push(e.final ? "1" : "0", storableJson(e.event, `an event of task "${taskId}"`));
    const last = await this.db.script<number>("append", args);
    if (last < 0) throw new StoreError(`task "${taskId}" not found`, "not-found");
    return events.map((_, i) => last - events.length + 1 + i);
  }

  async read(taskId: string, after = 0, limit = 10_000): Promise<LoggedEvent[]> {
    const entries = await this.db.command<Array<[string, string[]]>>(
      ["XRANGE", `${this.db.prefix}events:${taskId}`, `${after + 1}-0`, "+", "COUNT", String(limit)],
      "read events",
    );
    return entries.map(([id, fields]) => {
      const value = (name: string) => fields[fields.indexOf(name) + 1] ?? "";
      return { seq: Number(id.slice(0, id.indexOf("-"))), final: value("f") === "1", event: JSON.parse(value("e")) as JsonObject };
    });
  }

  subscribe(taskId: string, listener: (event: LoggedEvent) => void, options?: EventSubscriptionOptions): EventSubscription {
    return this.follower.subscribe(taskId, listener, options);
  }
}

/** The Pub/Sub connection: opened on the first subscription; node-redis reconnects and resubscribes it. */
class Subscriber {
  onMessage: (taskId: string) => void = () => undefined;
  onReconnect: () => void = () => undefined;
  /** Whether anyone still follows a log. */
  wanted: () => boolean = () => true;
  private client: Client | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryDelay = 100;
  private opening: Promise<void> | undefined;
  private subscribed = false;
  private closed = false;

  private readonly main: Client;
  private readonly channel: string;
  private readonly options: RedisStoreOptions;

  constructor(
    main: Client,
    channel: string,
    options: RedisStoreOptions,
  ) {
    this.main = main;
    this.channel = channel;
    this.options = options;
  }

  /** Resolves once the channel is subscribed; rejects with StoreUnavailableError while Redis is unreachable. */
  listening(): Promise<void> {
    if (this.closed) return Promise.reject(new StoreError("redis store: closed", "failed"));
    if (this.client && this.subscribed) {
      return this.client.isReady ? Promise.resolve() : Promise.reject(new StoreUnavailableError(ENGINE, "subscribe: reconnecting"));
    }
    this.opening ??= this.open().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  private async open(): Promise<void> {
    const client = this.client ?? (this.main.duplicate() as Client);
    if (!this.client) {
      this.client = client;
      client.on("error", (error: unknown) => this.options.onBackgroundError?.(redisError(error, "subscriber")));
      // After a reconnection node-redis subscribes again; catch up now and twice more, so that an event
      // published before the subscription was back in place is read too.
      client.on("ready", () => {
        for (const delay of [0, 250, 1_000]) setTimeout(() => this.onReconnect(), delay).unref();
      });
      try {
        await connectClient(client, this.options.connectTimeoutMs ?? 5_000, "subscribe");
      } catch (error) {
        this.client = undefined;
        this.scheduleRetry();
        throw error;
      }
    }
    try {
      await client.subscribe(this.channel, (message: string) => this.onMessage(fromStoredText(message)));
      this.subscribed = true;
      this.retryDelay = 100;
    } catch (error) {
      this.scheduleRetry();
      throw redisError(error, "subscribe");
    }
  }

  /** The first connection failed: try again (backing off to 2 s) while anyone follows a log, then catch up. */
  private scheduleRetry(): void {
    if (this.closed || this.retryTimer || !this.wanted()) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.listening().then(
        () => this.onReconnect(),
        () => undefined,
      );
    }, this.retryDelay);
    this.retryTimer.unref();
    this.retryDelay = Math.min(this.retryDelay * 2, 2_000);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.opening?.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    if (client?.isOpen) await client.close().catch(() => client.destroy());
  }
}

// ---------------------------------------------------------------------------------------------------

export class RedisPushOutbox implements PushOutbox {
  private readonly db: Connection;

  constructor(db: Connection) {
    this.db = db;
  }

  async enqueue(messages: readonly OutboxMessage[]): Promise<string[]> {
    if (messages.length === 0) return [];
    const args: Array<string | number> = [messages.length];
    for (const m of messages) args.push(m.taskId, storableJson(m.target, "a push target"), storableJson(m.payload, "a push notification"));
    return this.db.script<string[]>("enqueue", args);
  }

  async claim(owner: string, options: { leaseMs: number; limit?: number }): Promise<OutboxEntry[]> {
    const reply = await this.db.script<Array<string | number>>("claim", [owner, Math.max(1, Math.floor(options.leaseMs)), options.limit ?? 10]);
    const entries: OutboxEntry[] = [];
    for (let i = 0; i + 4 < reply.length; i += 5) {
      entries.push({
        id: String(reply[i]),
        taskId: String(reply[i + 1]),
        target: JSON.parse(String(reply[i + 2])) as JsonObject,
        payload: JSON.parse(String(reply[i + 3])) as JsonObject,
        attempts: Number(reply[i + 4]),
      });
    }
    return entries.sort((a, b) => Number(a.id) - Number(b.id));
  }

  async ack(id: string, owner: string): Promise<boolean> {
    return (await this.db.script<number>("ack", [id, owner])) === 1;
  }

  async retry(id: string, owner: string, delayMs: number): Promise<boolean> {
    return (await this.db.script<number>("retry", [id, owner, Math.max(0, Math.floor(delayMs))])) === 1;
  }

  async size(): Promise<number> {
    return this.db.command<number>(["ZCARD", `${this.db.prefix}outbox`], "outbox size");
  }
}

// ---------------------------------------------------------------------------------------------------

export class RedisExecutionLeases implements ExecutionLeases {
  private readonly db: Connection;

  constructor(db: Connection) {
    this.db = db;
  }

  async acquire(taskId: string, owner: string, ttlMs: number): Promise<boolean> {
    return (await this.db.script<number>("acquire", [taskId, owner, Math.max(1, Math.floor(ttlMs))])) === 1;
  }

  async renew(taskId: string, owner: string, ttlMs: number): Promise<boolean> {
    return (await this.db.script<number>("renew", [taskId, owner, Math.max(1, Math.floor(ttlMs))])) === 1;
  }

  async release(taskId: string, owner: string): Promise<void> {
    await this.db.script("release", [taskId, owner]);
  }

  async holder(taskId: string): Promise<LeaseHolder | undefined> {
    const reply = await this.db.script<string[]>("holder", [taskId]);
    return reply.length === 2 ? { owner: String(reply[0]), expiresAt: Number(reply[1]) } : undefined;
  }

  async claimExpired(owner: string, ttlMs: number, limit = 100): Promise<Array<{ taskId: string; previousOwner: string }>> {
    const reply = await this.db.script<string[]>("claimExpired", [owner, Math.max(1, Math.floor(ttlMs)), limit]);
    const taken: Array<{ taskId: string; previousOwner: string }> = [];
    for (let i = 0; i + 1 < reply.length; i += 2) taken.push({ taskId: String(reply[i]), previousOwner: String(reply[i + 1]) });
    return taken;
  }
}
