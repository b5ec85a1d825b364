"""Table chat in Redis: one capped stream per table and channel, outside the game log and its
hash chain, and one per-process reader that follows the chat streams of the tables it serves.

``er:{table}:chat:table`` and ``er:{table}:chat:spectators`` carry the table's hash tag.  Line
n of a channel has the explicit id ``0-n`` (``ChatLine.seq``); ``add`` numbers and appends it
in one round trip (a Lua script reads the last id and XADDs with ``MAXLEN ~ 200``).  Fields:
``sender``, ``name``, ``text``, ``version``, ``at``, ``seat`` (empty for a spectator),
``identity`` (the sender's when signed in; empty otherwise).

The same script keeps the rate limit (SPEC.md §6.7), so it holds on every node and worker, and
across reconnects: ``er:{table}:chatrate:WHO`` (``rate_key``: a seat, a spectators' client
address, and a signed-in sender's identity besides) is a sorted set of the lines ``WHO`` said
in the last window (member: the line's stream and seq, score: Redis's own clock in ms),
expiring with the window.  A line over the limit is not
appended and does not count; only lines said count.  It sits beside the streams, on the table's
slot, so the check and the append are one atomic script in a Redis Cluster too.

``ChatFollower`` is one XREAD BLOCK loop over every followed table's two streams, on a
connection of its own (a client without a socket timeout: BLOCK holds the connection), woken
by a per-process wake stream when a table is added.  It calls each table's callback with the
new lines in stream order; it never awaits a subscriber.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from echoridge.store import keys
from echoridge.store.connection import Redis, redis_errors
from echoridge.store.errors import StoreUnavailable, TableNotFound
from echoridge.tasks import cancel_and_wait

CHANNELS = ("table", "spectators")
MAXLEN = 200  # lines kept per channel (approximately: MAXLEN ~)
BLOCK_MS = 5000
BATCH = 200
RETRY = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0)  # seconds between reads while Redis is down

# KEYS[1]: the channel's stream, KEYS[2]: the sender's rate key, KEYS[3]: the table's metadata,
#   KEYS[4] (optional): the sender's identity's rate key, counted as well
# ARGV: maxlen, sender, name, text, version, at, seat, lines, window ms, identity ('' none)
#   (lines 0: no limit)
# -> {1, seq} said | {0, ms until the oldest line counted leaves the window} over a limit
#    | {-1, 0} the table is gone (a finished game archived: its chat was released with it)
ADD = """
if redis.call('EXISTS', KEYS[3]) == 0 then return {-1, 0} end
local lines = tonumber(ARGV[8])
local window = tonumber(ARGV[9])
local rates = {KEYS[2]}
if KEYS[4] then rates[2] = KEYS[4] end
local now = 0
if lines > 0 then
  local t = redis.call('TIME')
  now = t[1] * 1000 + math.floor(t[2] / 1000)
  local wait = 0
  for _, rate in ipairs(rates) do
    redis.call('ZREMRANGEBYSCORE', rate, '-inf', now - window)
    if redis.call('ZCARD', rate) >= lines then
      local oldest = redis.call('ZRANGE', rate, 0, 0, 'WITHSCORES')
      wait = math.max(wait, tonumber(oldest[2]) + window - now)
    end
  end
  if wait > 0 then return {0, wait} end
end
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local seq = 1
if #last > 0 then
  local id = last[1][1]
  seq = tonumber(string.sub(id, string.find(id, '-', 1, true) + 1)) + 1
end
redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '0-' .. seq,
  'sender', ARGV[2], 'name', ARGV[3], 'text', ARGV[4], 'version', ARGV[5], 'at', ARGV[6],
  'seat', ARGV[7], 'identity', ARGV[10])
if lines > 0 then
  for _, rate in ipairs(rates) do
    redis.call('ZADD', rate, now, KEYS[1] .. ':' .. seq)
    redis.call('PEXPIRE', rate, window)
  end
end
return {1, seq}
"""


def key(table: str, channel: str) -> str:
    """The stream of one chat channel of a table."""
    return f"er:{{{table}}}:chat:{channel}"


def rate_key(table: str, who: str) -> str:
    """The lines ``who`` (``seat:N``, ``addr:ADDRESS`` for the spectators of one client
    address, ``id:IDENTITY`` for a signed-in player) said at a table in the last rate
    window."""
    return f"er:{{{table}}}:chatrate:{who}"


@dataclass(frozen=True, slots=True)
class Rate:
    """At most ``lines`` lines in any ``seconds``, per ``rate_key``."""

    lines: int
    seconds: float


class RateLimited(Exception):
    """The sender has said its lines for now; ``wait``: seconds until it may say one again."""

    def __init__(self, wait: float) -> None:
        super().__init__(f"rate limited for {wait:.1f} s")
        self.wait = wait


def _channel_of(stream: str) -> tuple[str, str]:
    """(table, channel) of a chat stream key."""
    head, _, channel = stream.rpartition(":chat:")
    return head[len("er:{") : -1], channel


@dataclass(frozen=True, slots=True)
class StoredLine:
    """One chat line as stored (the runner makes the wire's ``ChatLine`` of it)."""

    seq: int
    channel: str
    sender: str
    name: str
    text: str
    version: int
    at: int
    seat: int | None
    identity: str | None = None  # the sender's, when signed in


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _line(channel: str, stream_id: Any, raw: Any) -> StoredLine | None:
    fields = {_text(k): v for k, v in (raw.items() if isinstance(raw, dict) else raw)}
    try:
        seq = int(_text(stream_id).partition("-")[2])
        seat = _text(fields.get("seat", b""))
        return StoredLine(
            seq=seq,
            channel=channel,
            sender=_text(fields["sender"]),
            name=_text(fields["name"]),
            text=_text(fields["text"]),
            version=int(_text(fields["version"])),
            at=int(_text(fields["at"])),
            seat=int(seat) if seat else None,
            identity=_text(fields.get("identity", b"")) or None,
        )
    except (KeyError, ValueError):
        return None  # not a line this server wrote: skipped


class ChatStore:
    """Appending and reading chat lines."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        self._add = redis.register_script(ADD)  # EVALSHA, loading the script when Redis lacks it

    async def add(
        self,
        table: str,
        channel: str,
        *,
        sender: str,
        name: str,
        text: str,
        version: int,
        at: int,
        seat: int | None,
        identity: str | None = None,
        who: str | None = None,
        rate: Rate | None = None,
    ) -> StoredLine:
        """Number and append a line (one round trip), unless ``who`` (``rate_key``; default:
        ``sender``), or the sender's ``identity`` at this table whatever it said as, said
        ``rate.lines`` lines in the last ``rate.seconds``: ``RateLimited``.
        No ``rate``: no limit.  A table with no metadata (released: store/archive.py) is
        ``TableNotFound``, and nothing is written."""
        lines, window = (rate.lines, max(1, round(rate.seconds * 1000))) if rate else (0, 0)
        async with redis_errors("adding a chat line"):
            said, value = await self._add(
                keys=[key(table, channel), rate_key(table, who or sender), keys.meta(table)]
                + ([rate_key(table, f"id:{identity}")] if identity else []),
                args=[MAXLEN, sender, name, text, version, at, "" if seat is None else seat,
                      lines, window, identity or ""],
            )  # fmt: skip
        if int(said) == -1:
            raise TableNotFound(table)
        if not int(said):
            raise RateLimited(max(0, int(value)) / 1000)
        return StoredLine(int(value), channel, sender, name, text, version, at, seat, identity)

    async def recent(self, table: str) -> dict[str, list[StoredLine]]:
        """Every line kept of both channels, oldest first (one round trip)."""
        async with redis_errors("reading chat"):
            pipe = self.redis.pipeline(transaction=False)
            for channel in CHANNELS:
                pipe.xrange(key(table, channel))
            replies = await pipe.execute()
        out: dict[str, list[StoredLine]] = {}
        for channel, rows in zip(CHANNELS, replies, strict=True):
            lines = (_line(channel, i, raw) for i, raw in rows or ())
            out[channel] = [line for line in lines if line is not None]
        return out


OnLines = Callable[[list[StoredLine]], None]


class _Followed:
    __slots__ = ("after", "callback")

    def __init__(self, callback: OnLines, after: dict[str, int]) -> None:
        self.callback = callback
        self.after = after  # channel -> the last seq read


class ChatFollower:
    """The process's reader of the chat streams of the tables it follows."""

    def __init__(self, redis: Redis, reader: Redis, block_ms: int = BLOCK_MS) -> None:
        self._redis = redis
        self._reader = reader  # without a socket timeout: XREAD BLOCK holds a connection
        self._block_ms = block_ms
        self._tables: dict[str, _Followed] = {}
        self._wake_key = f"er:chatwake:{uuid.uuid4().hex}"
        self._wake_id = "0-0"
        self._task: asyncio.Task[None] | None = None
        self._waking: asyncio.Task[None] | None = None
        self._stopping = False

    def follow(self, table: str, after: dict[str, int], callback: OnLines) -> object:
        """Call ``callback`` with the table's lines after ``after`` (channel -> seq) as they
        are added, whoever adds them; a handle for ``unfollow``."""
        followed = self._add(table, after, callback)
        if not self._stopping and (self._task is None or self._task.done()):
            self._task = asyncio.get_running_loop().create_task(
                self._loop(), name="chat-follower"
            )
        self._waking = asyncio.get_running_loop().create_task(self._wake())  # (kept: not GC'd)
        return followed

    def _add(self, table: str, after: dict[str, int], callback: OnLines) -> object:
        followed = self._tables[table] = _Followed(callback, dict(after))
        return followed

    def unfollow(self, table: str, handle: object) -> None:
        if self._tables.get(table) is handle:
            del self._tables[table]

    async def stop(self) -> None:
        self._stopping = True
        if self._task is not None:
            await cancel_and_wait(self._task)
            self._task = None
        with contextlib.suppress(Exception):
            await self._redis.delete(self._wake_key)

    async def _wake(self) -> None:
        with contextlib.suppress(StoreUnavailable):
            async with redis_errors("waking the chat follower"):
                await self._redis.xadd(self._wake_key, {"w": 1}, maxlen=1, approximate=False)

    async def _loop(self) -> None:
        failures = 0
        while not self._stopping:
            try:
                async with redis_errors("following chat"):
                    reply = await self._reader.xread(
                        self._streams(), count=BATCH, block=self._block_ms
                    )
                failures = 0
            except StoreUnavailable:
                await asyncio.sleep(RETRY[min(failures, len(RETRY) - 1)])
                failures += 1
                continue
            items = reply.items() if isinstance(reply, dict) else (reply or [])
            for stream, rows in items:
                name = _text(stream)
                rows = list(rows)
                if name == self._wake_key:
                    self._wake_id = _text(rows[-1][0]) if rows else self._wake_id
                    continue
                self._take(name, rows)

    def _streams(self) -> dict[Any, Any]:
        """What to read: the wake stream and every followed table's channels, each after the
        last entry read.  (A function of its own: a loop variable left in ``_loop``'s frame
        would hold a table unfollowed meanwhile for as long as the XREAD blocks.)"""
        streams: dict[Any, Any] = {self._wake_key: self._wake_id}
        for table, followed in self._tables.items():
            for channel in CHANNELS:
                streams[key(table, channel)] = f"0-{followed.after.get(channel, 0)}"
        return streams

    def _take(self, name: str, rows: list[Any]) -> None:
        """Hand the lines of one chat stream's ``rows`` (as XREAD gives them) to their table."""
        table, channel = _channel_of(name)
        sub = self._tables.get(table)
        if sub is None or not rows:
            return
        lines = [line for i, raw in rows if (line := _line(channel, i, raw)) is not None]
        last = int(_text(rows[-1][0]).partition("-")[2])
        sub.after[channel] = max(last, sub.after.get(channel, 0))
        if lines:
            sub.callback(lines)  # (it never awaits; it drops lines it has seen)
