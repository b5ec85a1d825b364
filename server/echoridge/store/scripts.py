"""Lua scripts: each runs in one round trip and sees all keys of one table (one hash slot)."""

from __future__ import annotations

# KEYS: log, command ids, meta
# ARGV: expected version, expected hash, command id ("" for none), c, e, new hash
# -> {"ok", version, time ms} | {"conflict", version} | {"damaged", version, why}
#    | {"dup", version, entry} | {"missing"}
APPEND = """
if redis.call('EXISTS', KEYS[3]) == 0 then return {'missing'} end
if ARGV[3] ~= '' then
  local seen = redis.call('HGET', KEYS[2], ARGV[3])
  if seen then
    local id = '0-' .. seen
    return {'dup', tonumber(seen), redis.call('XRANGE', KEYS[1], id, id)}
  end
end
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local version = 0
local hash = false
if #last > 0 then
  version = tonumber(string.sub(last[1][1], 3))
  local fields = last[1][2]
  for i = 1, #fields, 2 do
    if fields[i] == 'h' then hash = fields[i + 1] end
  end
end
if version ~= tonumber(ARGV[1]) then return {'conflict', version} end
if version > 0 and hash ~= ARGV[2] then
  return {'damaged', version, 'the log no longer holds the entry this appender saw'}
end
local new = version + 1
local now = redis.call('TIME')
local t = now[1] * 1000 + math.floor(now[2] / 1000)
local added = redis.pcall('XADD', KEYS[1], '0-' .. new, 'c', ARGV[4], 'e', ARGV[5], 'h', ARGV[6],
                          't', t)
if type(added) == 'table' and added.err then
  return {'damaged', version, 'entries after this one were deleted'}
end
if ARGV[3] ~= '' then redis.call('HSET', KEYS[2], ARGV[3], new) end
return {'ok', new, t}
"""

# KEYS: meta, secrets; ARGV: n, meta field/value pairs (2n), secret field/value pairs
# -> 1 created | 0 exists
CREATE_TABLE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local n = tonumber(ARGV[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 2, 1 + 2 * n))
if #ARGV > 1 + 2 * n then
  redis.call('HSET', KEYS[2], unpack(ARGV, 2 + 2 * n, #ARGV))
end
return 1
"""

# KEYS: meta; ARGV: field/value pairs -> 1 updated | 0 no such table
UPDATE_META = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
"""

# KEYS: meta, secrets; ARGV: name, client seed (hex), token hash, bot kind ("" for a person)
# -> {"ok", seat} | {"missing"} | {"started"} | {"full"}
JOIN = """
local m = redis.call('HMGET', KEYS[1], 'status', 'seats', 'taken')
if not m[1] then return {'missing'} end
if m[1] ~= 'open' then return {'started'} end
for i = 0, tonumber(m[2]) - 1 do
  if redis.call('HEXISTS', KEYS[1], 'name:' .. i) == 0 then
    redis.call('HSET', KEYS[1], 'name:' .. i, ARGV[1], 'cseed:' .. i, ARGV[2],
               'taken', tonumber(m[3]) + 1)
    if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'bot:' .. i, ARGV[4]) end
    redis.call('HSET', KEYS[2], 'token:' .. i, ARGV[3])
    return {'ok', i}
  end
end
return {'full'}
"""

# KEYS: meta, secrets; ARGV: seat, token hash
# -> {"ok"} | {"missing"} | {"started"} | {"bad_token"}
LEAVE = """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'missing'} end
if status ~= 'open' then return {'started'} end
if redis.call('HGET', KEYS[2], 'token:' .. ARGV[1]) ~= ARGV[2] then return {'bad_token'} end
redis.call('HDEL', KEYS[1], 'name:' .. ARGV[1], 'cseed:' .. ARGV[1], 'bot:' .. ARGV[1])
redis.call('HDEL', KEYS[2], 'token:' .. ARGV[1])
redis.call('HINCRBY', KEYS[1], 'taken', -1)
return {'ok'}
"""

# KEYS: meta -> {"ok"} | {"missing"} | {"started"}
CLOSE = """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'missing'} end
if status ~= 'open' then return {'started'} end
redis.call('HSET', KEYS[1], 'status', 'closed')
return {'ok'}
"""

# KEYS: meta -> {"ok"} | {"missing"} | {"started"} | {"not_full"}
START = """
local m = redis.call('HMGET', KEYS[1], 'status', 'seats', 'taken')
if not m[1] then return {'missing'} end
if m[1] ~= 'open' then return {'started'} end
if m[2] ~= m[3] then return {'not_full'} end
redis.call('HSET', KEYS[1], 'status', 'playing')
return {'ok'}
"""

# KEYS: this node's here hash, the nodes set, the away hash (presence.py)
# ARGV: node, here TTL seconds, N, then N field/value pairs for here (N 0: this node has no
#       session at the table), then the field/value pairs of away (seats just gone)
# -> {the nodes set's members, the away hash as field, value, ...}
PRESENCE = """
redis.call('DEL', KEYS[1])
local n = tonumber(ARGV[3])
if n > 0 then
  redis.call('HSET', KEYS[1], unpack(ARGV, 4, 3 + 2 * n))
  redis.call('EXPIRE', KEYS[1], ARGV[2])
  redis.call('SADD', KEYS[2], ARGV[1])
  redis.call('EXPIRE', KEYS[2], 86400)
else
  redis.call('SREM', KEYS[2], ARGV[1])
end
if #ARGV > 3 + 2 * n then
  redis.call('HSET', KEYS[3], unpack(ARGV, 4 + 2 * n, #ARGV))
  redis.call('EXPIRE', KEYS[3], 2592000)
end
return {redis.call('SMEMBERS', KEYS[2]), redis.call('HGETALL', KEYS[3])}
"""
