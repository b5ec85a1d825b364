"""Lua scripts: each runs in one round trip and sees all keys of one table (one hash slot), or
one client's quota keys (``RESERVE``).

A script that refuses a table because it is not open answers with the table's status as the
reason when it is ``closed`` or ``damaged``, and ``started`` when it is playing or over.
Seats: ``name:N`` for a taken seat, ``bot:N`` besides for a seat the server plays; a table with
no seated person (only bots, or nobody) has ``idle_since`` (ms), which the expiry of unstarted
tables counts from (store/lobbyindex.py; without it: from ``created``).
"""

from __future__ import annotations

# The reason a script gives for a table that is not open (its status in m[1]).
_NOT_OPEN = """
local function not_open(status)
  if status == 'closed' or status == 'damaged' then return {status} end
  return {'started'}
end
"""

# Seated people (seats taken that the server does not play), of a table of n seats.
_PEOPLE = """
local function people(meta, n)
  local count = 0
  for i = 0, n - 1 do
    if redis.call('HEXISTS', meta, 'name:' .. i) == 1
       and redis.call('HEXISTS', meta, 'bot:' .. i) == 0 then
      count = count + 1
    end
  end
  return count
end
"""

# The Redis server's time in ms (every node reads the same clock).
_NOW = """
local function now_ms()
  local t = redis.call('TIME')
  return t[1] * 1000 + math.floor(t[2] / 1000)
end
"""

# Give the keys of a closed table (KEYS[from..]) ARGV[ttl] seconds to live.
_RETIRE = """
local function retire(from, ttl)
  for i = from, #KEYS do redis.call('EXPIRE', KEYS[i], ttl) end
end
"""

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

# KEYS: meta; ARGV: field, value -> the field's value (ARGV[2] if it had none) | false: no table
CLAIM = """
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
return redis.call('HGET', KEYS[1], ARGV[1])
"""

# KEYS: meta; ARGV: field/value pairs -> 1 updated | 0 no such table
UPDATE_META = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
"""

# KEYS: meta, secrets; ARGV: name, client seed (hex), token hash, bot kind ("" for a person),
# identity ("" for none) -> {"ok", seat} | {"missing"} | {"started"} | {"closed"} | {"damaged"}
# | {"full"} | {"seated"} (that identity holds a seat there already)
JOIN = _NOT_OPEN + """
local m = redis.call('HMGET', KEYS[1], 'status', 'seats', 'taken')
if not m[1] then return {'missing'} end
if m[1] ~= 'open' then return not_open(m[1]) end
if ARGV[5] ~= '' then
  for i = 0, tonumber(m[2]) - 1 do
    if redis.call('HGET', KEYS[1], 'identity:' .. i) == ARGV[5] then return {'seated'} end
  end
end
for i = 0, tonumber(m[2]) - 1 do
  if redis.call('HEXISTS', KEYS[1], 'name:' .. i) == 0 then
    redis.call('HSET', KEYS[1], 'name:' .. i, ARGV[1], 'cseed:' .. i, ARGV[2],
               'taken', tonumber(m[3]) + 1)
    if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'identity:' .. i, ARGV[5]) end
    if ARGV[4] ~= '' then
      redis.call('HSET', KEYS[1], 'bot:' .. i, ARGV[4])
    else
      redis.call('HDEL', KEYS[1], 'idle_since')
    end
    redis.call('HSET', KEYS[2], 'token:' .. i, ARGV[3])
    return {'ok', i}
  end
end
return {'full'}
"""

# KEYS: meta, secrets; ARGV: seat, token hash
# -> {"ok"} | {"missing"} | {"started"} | {"closed"} | {"damaged"} | {"bad_token"}
LEAVE = _NOT_OPEN + _PEOPLE + _NOW + """
local m = redis.call('HMGET', KEYS[1], 'status', 'seats')
if not m[1] then return {'missing'} end
if m[1] ~= 'open' then return not_open(m[1]) end
if redis.call('HGET', KEYS[2], 'token:' .. ARGV[1]) ~= ARGV[2] then return {'bad_token'} end
redis.call('HDEL', KEYS[1], 'name:' .. ARGV[1], 'cseed:' .. ARGV[1], 'bot:' .. ARGV[1],
           'identity:' .. ARGV[1])
redis.call('HDEL', KEYS[2], 'token:' .. ARGV[1])
redis.call('HINCRBY', KEYS[1], 'taken', -1)
if people(KEYS[1], tonumber(m[2])) == 0 then
  redis.call('HSETNX', KEYS[1], 'idle_since', now_ms())
end
return {'ok'}
"""

# KEYS: meta, then the table's other keys (retired with it); ARGV: seconds they live on
# -> {"ok"} | {"missing"} | {"started"} | {"closed"} | {"damaged"}
CLOSE = _NOT_OPEN + _RETIRE + """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'missing'} end
if status ~= 'open' then return not_open(status) end
redis.call('HSET', KEYS[1], 'status', 'closed', 'closed_by', 'owner')
retire(1, ARGV[1])
return {'ok'}
"""

# Close an unstarted table whose time is up (tables/expiry.py): ARGV[2] ms after its creation,
# or ARGV[1] ms after it last had a seated person (0: never).
# KEYS: meta, then the table's other keys (retired with it); ARGV: idle ms, max ms, seconds
# its keys live on -> {"ok"} | {"later", due ms} | {"never"} | {"missing"} | {"started"}
#    | {"closed"} | {"damaged"}
EXPIRE = _NOT_OPEN + _PEOPLE + _NOW + _RETIRE + """
local m = redis.call('HMGET', KEYS[1], 'status', 'seats', 'created', 'idle_since')
if not m[1] then return {'missing'} end
if m[1] ~= 'open' then return not_open(m[1]) end
local idle, most = tonumber(ARGV[1]), tonumber(ARGV[2])
local created = tonumber(m[3]) or 0
local due = nil
if most > 0 then due = created + most end
if idle > 0 and people(KEYS[1], tonumber(m[2])) == 0 then
  local at = (tonumber(m[4]) or created) + idle
  if due == nil or at < due then due = at end
end
if due == nil then return {'never'} end
if due > now_ms() then return {'later', due} end
redis.call('HSET', KEYS[1], 'status', 'closed', 'closed_by', 'expiry')
retire(1, ARGV[3])
return {'ok'}
"""

# KEYS: meta -> {"ok"} | {"missing"} | {"started"} | {"closed"} | {"damaged"} | {"not_full"}
START = _NOT_OPEN + """
local m = redis.call('HMGET', KEYS[1], 'status', 'seats', 'taken')
if not m[1] then return {'missing'} end
if m[1] ~= 'open' then return not_open(m[1]) end
if m[2] ~= m[3] then return {'not_full'} end
redis.call('HSET', KEYS[1], 'status', 'playing')
redis.call('HDEL', KEYS[1], 'idle_since')
return {'ok'}
"""

# A client's quota of tables (store/quota.py): made (sorted set: table -> ms created, the last
# window's) and waiting (sorted set: the tables it made that may still be waiting to start).
# KEYS: made, waiting; ARGV: the new table, window ms, tables per window (0: no limit),
# waiting tables (0: no limit), seconds the waiting set lives
# -> {"ok"} | {"rate", ms until one more is allowed}
#    | {"waiting", now ms, the waiting set's tables and their times: table, ms, ...}
RESERVE = _NOW + """
local now = now_ms()
local window, per, cap = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
if per > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
  if redis.call('ZCARD', KEYS[1]) >= per then
    local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
    return {'rate', math.max(1, tonumber(oldest[2]) + window - now)}
  end
end
if cap > 0 and redis.call('ZCARD', KEYS[2]) >= cap then
  return {'waiting', now, redis.call('ZRANGE', KEYS[2], 0, -1, 'WITHSCORES')}
end
if per > 0 then
  redis.call('ZADD', KEYS[1], now, ARGV[1])
  redis.call('PEXPIRE', KEYS[1], window)
end
if cap > 0 then
  redis.call('ZADD', KEYS[2], now, ARGV[1])
  redis.call('EXPIRE', KEYS[2], ARGV[5])
end
return {'ok'}
"""

# KEYS: this node's here hash, the nodes set, the away hash, the table's metadata (presence.py)
# ARGV: node, here TTL seconds, N, then N field/value pairs for here (N 0: this node has no
#       session at the table), then the field/value pairs of away (seats just gone)
# -> {the nodes set's members, the away hash as field, value, ...}
# A table without metadata (released to the archive, or closed and expired) gets nothing written.
PRESENCE = """
redis.call('DEL', KEYS[1])
if redis.call('EXISTS', KEYS[4]) == 0 then return {{}, {}} end
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

# Archive a finished game (store/archive.py): SET NX its transcript and, when given, its record,
# living as long as the table's metadata (no time to live while the table has none).
# KEYS: transcript, meta, record; ARGV: the compressed transcript[, the packed record]
# -> 1 kept now | 0 kept already (the record is written if missing) | -1 no such table
ARCHIVE = """
local ttl = redis.call('PTTL', KEYS[2])
if ttl == -2 then return -1 end
local function keep(key, value)
  if ttl > 0 then
    return redis.call('SET', key, value, 'NX', 'PX', ttl)
  end
  return redis.call('SET', key, value, 'NX')
end
local kept = keep(KEYS[1], ARGV[1])
if ARGV[2] then keep(KEYS[3], ARGV[2]) end
if kept then return 1 end
return 0
"""

# Release an archived game's live keys (store/archive.py), once its transcript and record are kept.
# KEYS: transcript, record, then the live keys (keys.live: the metadata first), then the presence
#       hashes of the nodes named in the table's nodes set (they would expire in seconds anyway)
# -> 'ok' | 'gone' (released before) | 'not_archived' (nothing deleted)
RELEASE = """
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('EXISTS', KEYS[2]) == 0 then
  return 'not_archived'
end
if redis.call('EXISTS', KEYS[3]) == 0 then return 'gone' end
redis.call('DEL', unpack(KEYS, 3))
redis.call('PERSIST', KEYS[1])
redis.call('PERSIST', KEYS[2])
return 'ok'
"""
