/**
 * The Redis store's Lua scripts, one per write (atomic, one round trip), and their SHA-1 hashes for EVALSHA.
 * ARGV[1] is always the key prefix; time is the Redis server's (TIME inside the scripts).
 */
import { createHash } from "node:crypto";

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

export const SCRIPTS = {
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

export type ScriptName = keyof typeof SCRIPTS;

export const SHAS = Object.fromEntries(Object.entries(SCRIPTS).map(([name, body]) => [name, createHash("sha1").update(body).digest("hex")])) as Record<ScriptName, string>;
