"""Moderation: players' reports and blocks, operators' bans, and the audit log of admin actions.

**Reports.**  A player reports another at a table, once: a second report by the same reporter
against the same target at the same table is refused (``report`` returns None).  A report is
kept here, outside any game log (the game's history stays the players' own and hash-chained;
a report is about it, not part of it), as the hash ``er:{mod}:report:<id>`` (reporter, target,
table, version, reason, text when given, at).  ``er:{mod}:reported:<sha256 of reporter, target
and table>`` holds the id of the triple's report: the script that claims it with ``SET NX``
also writes the report and adds its id to ``er:{mod}:reports`` (every report) and
``er:{mod}:against:<target>`` (the reports against one identity), sorted sets scored by the
report's time (ms), so a listing is one ``ZREVRANGEBYSCORE ... LIMIT`` and one pipeline of
``HGETALL`` for its page.  Pages go by time: ``before`` is an ``at`` (exclusive), normally the
last ``at`` of the previous page; a page ends with every report of its last millisecond (so it
can be longer than ``limit`` when reports share that millisecond), so that paging with
``before=page[-1].at`` skips none and shows none twice.

**Blocks.**  ``er:{mod}:blocks:<who>`` is the set of identities ``who`` blocks, at most
``MAX_BLOCKS`` (a script checks the count and adds, atomically).

**Bans.**  A ban is of an identity or of a network (an address is a network of one), until a
time or until lifted.  ``er:{mod}:bans`` is a hash of every ban in force (id: the ban as JSON),
for the operators' listing and for ``lift``; each ban is also in the index its check reads:
``er:{mod}:bans:id:<identity>`` (that identity's bans) or ``er:{mod}:bans:net`` (every network
ban: networks are few).  So ``banned``, asked at every connection's hello, is one round trip:
an ``HGETALL`` of the identity's bans and one of the network bans, matched here; nothing is
cached, so a ban or a lift holds on every node at once.  A ban past its end is ignored by every
read and removed when ``bans`` lists them (nothing expires by itself: a ban's end is the
caller's clock, not Redis's).

**Audit.**  ``er:{mod}:audit`` is a stream (``MAXLEN ~ AUDIT_MAXLEN``) of admin actions: at,
by, action and the action's fields.  A ban and a lift write their entry in the same script as
the ban itself, so neither happens without its entry.

Every key carries the one hash tag ``{mod}``: each script's keys are on one slot, also in a
Redis Cluster (moderation data is small: one shard holds it all).
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import secrets
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal, cast

from echoridge.store.connection import Redis, redis_errors
from echoridge.store.connection import text as _text

PREFIX = "er:{mod}:"
REASONS = ("abuse", "cheating", "spam", "name", "other")
KINDS = ("identity", "network")
MAX_BLOCKS = 500  # identities one identity may block
AUDIT_MAXLEN = 100_000  # audit entries kept (approximately: MAXLEN ~)
WIDEST = {4: 8, 6: 32}  # the shortest prefix a network ban may have, per IP version

ALL_REPORTS = PREFIX + "reports"
ALL_BANS = PREFIX + "bans"
NETWORK_BANS = PREFIX + "bans:net"
AUDIT = PREFIX + "audit"
RESERVED = ("at", "by", "action")  # an audit entry's own fields

Kind = Literal["identity", "network"]


class TooMany(ValueError):
    """The identity blocks ``MAX_BLOCKS`` identities already."""


@dataclass(frozen=True, slots=True)
class Report:
    id: str
    reporter: str
    target: str
    table: str
    version: int  # the table's version when reported
    reason: str  # one of REASONS
    text: str | None
    at: int  # ms since the Unix epoch


@dataclass(frozen=True, slots=True)
class Ban:
    id: str
    kind: Kind
    target: str  # an identity, or a network as ``ipaddress`` writes it (``203.0.113.0/24``)
    until: int | None  # ms since the Unix epoch; None: until lifted
    reason: str
    by: str
    at: int

    def active(self, now_ms: int) -> bool:
        return self.until is None or now_ms < self.until


def _report_key(report: str) -> str:
    return f"{PREFIX}report:{report}"


def _reported_key(reporter: str, target: str, table: str) -> str:
    digest = hashlib.sha256(f"{reporter}\x00{target}\x00{table}".encode()).hexdigest()
    return f"{PREFIX}reported:{digest}"


def _against_key(target: str) -> str:
    return f"{PREFIX}against:{target}"


def _blocks_key(who: str) -> str:
    return f"{PREFIX}blocks:{who}"


def _identity_bans_key(identity: str) -> str:
    return f"{PREFIX}bans:id:{identity}"


def _index_key(ban: Ban) -> str:
    """The index ``banned`` reads for this ban."""
    return NETWORK_BANS if ban.kind == "network" else _identity_bans_key(ban.target)


def network(target: str) -> str:
    """A banned network as stored: ``203.0.113.7`` is ``203.0.113.7/32``, host bits are
    dropped.  ValueError for what is not an address or network, or one wider than /8 (IPv4) or
    /32 (IPv6)."""
    net = ipaddress.ip_network(target.strip(), strict=False)
    if net.prefixlen < WIDEST[net.version]:
        raise ValueError(
            f"{net} is too wide to ban: at most /{WIDEST[net.version]} for IPv{net.version}"
        )
    return str(net)


def _pairs(fields: Mapping[str, str]) -> list[str]:
    return [item for pair in fields.items() for item in pair]


def _ban_of(raw: object) -> Ban | None:
    try:
        data = json.loads(_text(raw))
        if data["kind"] not in KINDS:
            return None
        return Ban(
            str(data["id"]),
            cast(Kind, data["kind"]),
            str(data["target"]),
            None if data["until"] is None else int(data["until"]),
            str(data["reason"]),
            str(data["by"]),
            int(data["at"]),
        )
    except (ValueError, KeyError, TypeError):
        return None


def _bans_of(raw: Any) -> list[Ban]:
    found = (_ban_of(value) for value in (raw or {}).values())
    return [ban for ban in found if ban is not None]


def _ban_fields(ban: Ban) -> dict[str, str]:
    """A ban's fields in its audit entries (``until`` only when it has an end)."""
    fields = {"ban": ban.id, "kind": ban.kind, "target": ban.target, "reason": ban.reason}
    if ban.until is not None:
        fields["until"] = str(ban.until)
    return fields


def _longest(bans: list[Ban]) -> Ban | None:
    """The ban that lasts longest (until lifted first), then the newest."""
    return max(bans, key=lambda b: (b.until is None, b.until or 0, b.at, b.id), default=None)


IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def ip_addresses(address: str | None) -> list[IpAddress]:
    """A client address as the bans see it: none for what is not an IP address (a Unix
    socket's peer); an IPv4-mapped IPv6 address is its IPv4 address too."""
    if not address:
        return []
    try:
        ip = ipaddress.ip_address(address.strip().strip("[]"))
    except ValueError:
        return []
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return [ip, ip.ipv4_mapped]
    return [ip]


def applying(bans: list[Ban], identity: str | None, addresses: list[IpAddress]) -> Ban | None:
    """Of ``bans`` (in force), the one that holds ``identity`` or a network holding one of
    ``addresses`` and lasts longest, else None."""
    applies = []
    for ban in bans:
        if ban.kind == "identity":
            if ban.target == identity:
                applies.append(ban)
            continue
        try:
            net = ipaddress.ip_network(ban.target)
        except ValueError:
            continue
        if any(ip.version == net.version and ip in net for ip in addresses):
            applies.append(ban)
    return _longest(applies)


# KEYS: the triple's claim, the report, every report, the reports against the target
# ARGV: id, at, then the report's field/value pairs -> 1 | 0 (the triple was reported before)
REPORT = """
if not redis.call('SET', KEYS[1], ARGV[1], 'NX') then return 0 end
redis.call('HSET', KEYS[2], unpack(ARGV, 3))
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[4], ARGV[2], ARGV[1])
return 1
"""

# KEYS: the blocker's set; ARGV: whom, the cap -> 1 blocked (now or before) | 0 at the cap
BLOCK = """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 1 end
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
return 1
"""

# KEYS: every ban, the ban's index, the audit stream
# ARGV: id, the ban (JSON), the audit's maxlen, then the audit entry's field/value pairs -> 1
BAN = """
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[3], '*', unpack(ARGV, 4))
return 1
"""

# KEYS: every ban, the ban's index, the audit stream
# ARGV: id, the audit's maxlen, then the audit entry's field/value pairs
# -> 1 lifted | 0 (not in force: lifted meanwhile)
LIFT = """
if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[2], '*', unpack(ARGV, 3))
return 1
"""


class Moderation:
    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        self._report = redis.register_script(REPORT)
        self._block = redis.register_script(BLOCK)
        self._ban = redis.register_script(BAN)
        self._lift = redis.register_script(LIFT)

    # --- reports --------------------------------------------------------------------------------

    async def report(
        self,
        reporter: str,
        target: str,
        table: str,
        version: int,
        reason: str,
        text: str | None,
        at_ms: int,
    ) -> Report | None:
        """Record ``reporter``'s report against ``target`` at ``table``; None when that reporter
        reported that target at that table before.  ValueError for a reason not in REASONS, or
        a report against oneself."""
        if reason not in REASONS:
            raise ValueError(f"a report's reason is one of {', '.join(REASONS)}: {reason!r}")
        if reporter == target:
            raise ValueError("nobody reports themselves")
        report = Report(
            "r-" + secrets.token_hex(8), reporter, target, table, version, reason, text, at_ms
        )
        fields = {
            "reporter": reporter,
            "target": target,
            "table": table,
            "version": str(version),
            "reason": reason,
            "at": str(at_ms),
        }
        if text is not None:
            fields["text"] = text
        async with redis_errors("recording a report"):
            made = await self._report(
                keys=[
                    _reported_key(reporter, target, table),
                    _report_key(report.id),
                    ALL_REPORTS,
                    _against_key(target),
                ],
                args=[report.id, at_ms, *_pairs(fields)],
            )
        return report if int(made) == 1 else None

    async def reports(
        self, limit: int = 50, before: int | None = None, target: str | None = None
    ) -> list[Report]:
        """Reports newest first (against ``target`` only, when given) made before ``before``
        (ms, exclusive; None: from the newest).  At most ``limit``, and then the rest of the
        last one's millisecond: the next page is ``before=page[-1].at``."""
        if limit < 1:
            raise ValueError("limit is at least 1")
        key = ALL_REPORTS if target is None else _against_key(target)
        top = "+inf" if before is None else f"({before}"
        async with redis_errors("reading reports"):
            raw: Any = await self.redis.zrevrangebyscore(
                key, top, "-inf", start=0, num=limit + 1, withscores=True
            )
            rows = [(_text(member), int(score)) for member, score in raw]
            if len(rows) > limit and rows[limit - 1][1] == rows[limit][1]:
                last = rows[limit - 1][1]  # (the page ends inside a millisecond: all of it)
                same: Any = await self.redis.zrevrangebyscore(key, last, last)
                rows = [row for row in rows if row[1] > last]
                rows += [(_text(member), last) for member in same]
            else:
                rows = rows[:limit]
            pipe = self.redis.pipeline(transaction=False)
            for report, _ in rows:
                pipe.hgetall(_report_key(report))
            values: list[Any] = await pipe.execute() if rows else []
        out = []
        for (report, _), fields in zip(rows, values, strict=True):
            if not fields:
                continue
            plain = {_text(k): _text(v) for k, v in fields.items()}
            out.append(
                Report(
                    report,
                    plain["reporter"],
                    plain["target"],
                    plain["table"],
                    int(plain["version"]),
                    plain["reason"],
                    plain.get("text"),
                    int(plain["at"]),
                )
            )
        return out

    # --- blocks ---------------------------------------------------------------------------------

    async def block(self, who: str, whom: str) -> None:
        """``who`` blocks ``whom`` (again: nothing changes).  ValueError for blocking oneself;
        TooMany when ``who`` blocks MAX_BLOCKS identities already."""
        if who == whom:
            raise ValueError("nobody blocks themselves")
        if not who or not whom:
            raise ValueError("an identity is not empty")
        async with redis_errors("blocking"):
            done = await self._block(keys=[_blocks_key(who)], args=[whom, MAX_BLOCKS])
        if int(done) != 1:
            raise TooMany(f"{who} blocks {MAX_BLOCKS} identities already: unblock some first")

    async def unblock(self, who: str, whom: str) -> bool:
        """``who`` no longer blocks ``whom``; whether it did."""
        async with redis_errors("unblocking"):
            removed: Any = await self.redis.srem(_blocks_key(who), whom)
        return int(removed) == 1

    async def blocked(self, who: str) -> set[str]:
        """The identities ``who`` blocks."""
        async with redis_errors("reading blocks"):
            members: Any = await self.redis.smembers(_blocks_key(who))
        return {_text(m) for m in members}

    # --- bans -----------------------------------------------------------------------------------

    async def ban(
        self,
        kind: Kind,
        target: str,
        until_ms: int | None,
        reason: str,
        by: str,
        at_ms: int,
    ) -> Ban:
        """Ban an identity, or a network (``target``: an address or CIDR, see ``network``),
        until ``until_ms`` (None: until lifted), and note it in the audit log.  ValueError for
        an unknown kind, a bad or too wide network, or an end not after ``at_ms``."""
        if kind not in KINDS:
            raise ValueError(f"a ban is of {' or '.join(KINDS)}: {kind!r}")
        if kind == "network":
            target = network(target)
        elif not target:
            raise ValueError("an identity is not empty")
        if until_ms is not None and until_ms <= at_ms:
            raise ValueError("a ban ends after it begins")
        ban = Ban("b-" + secrets.token_hex(8), kind, target, until_ms, reason, by, at_ms)
        entry = {"at": str(at_ms), "by": by, "action": "ban", **_ban_fields(ban)}
        async with redis_errors("banning"):
            await self._ban(
                keys=[ALL_BANS, _index_key(ban), AUDIT],
                args=[ban.id, json.dumps(asdict(ban)), AUDIT_MAXLEN, *_pairs(entry)],
            )
        return ban

    async def lift(self, ban_id: str, by: str, at_ms: int) -> bool:
        """Lift a ban in force at ``at_ms`` and note it in the audit log; False for a ban that is
        not (never made, lifted before, or over: then it is removed, and nothing is noted)."""
        async with redis_errors("reading a ban"):
            raw: Any = await self.redis.hget(ALL_BANS, ban_id)
        ban = _ban_of(raw) if raw is not None else None
        if ban is None:
            return False
        if not ban.active(at_ms):
            await self._remove([ban])
            return False
        entry = {"at": str(at_ms), "by": by, "action": "lift", **_ban_fields(ban)}
        async with redis_errors("lifting a ban"):
            lifted = await self._lift(
                keys=[ALL_BANS, _index_key(ban), AUDIT],
                args=[ban.id, AUDIT_MAXLEN, *_pairs(entry)],
            )
        return int(lifted) == 1

    async def bans(self, now_ms: int) -> list[Ban]:
        """The bans in force at ``now_ms``, newest first; those over are removed."""
        async with redis_errors("reading bans"):
            raw: Any = await self.redis.hgetall(ALL_BANS)
        found = _bans_of(raw)
        over = [ban for ban in found if not ban.active(now_ms)]
        if over:
            await self._remove(over)
        return sorted(
            (ban for ban in found if ban.active(now_ms)), key=lambda b: (b.at, b.id), reverse=True
        )

    async def banned(self, identity: str | None, address: str | None, now_ms: int) -> Ban | None:
        """The ban in force at ``now_ms`` on ``identity`` or on a network holding ``address``
        (the one that lasts longest), else None.  One round trip.  An address that is not an IP
        address (a Unix socket's peer) is in no network; an IPv4-mapped IPv6 address is its
        IPv4 address too."""
        addresses = ip_addresses(address)
        if not identity and not addresses:
            return None
        async with redis_errors("checking bans"):
            pipe = self.redis.pipeline(transaction=False)
            if identity:
                pipe.hgetall(_identity_bans_key(identity))
            if addresses:
                pipe.hgetall(NETWORK_BANS)
            replies: list[Any] = await pipe.execute()
        candidates = [ban for reply in replies for ban in _bans_of(reply)]
        return applying([ban for ban in candidates if ban.active(now_ms)], identity, addresses)

    async def _remove(self, bans: list[Ban]) -> None:
        """Remove bans that are over (no audit entry: nobody acted)."""
        async with redis_errors("removing bans that are over"):
            pipe = self.redis.pipeline(transaction=False)
            for ban in bans:
                pipe.hdel(ALL_BANS, ban.id)
                pipe.hdel(_index_key(ban), ban.id)
            await pipe.execute()

    # --- the audit log --------------------------------------------------------------------------

    async def audit(self, by: str, action: str, fields: dict[str, str], at_ms: int) -> None:
        """Note an admin action (closing a table, ...) in the audit log.  ValueError for an
        empty action or a field named at, by or action."""
        if not action:
            raise ValueError("an action has a name")
        clash = sorted(set(fields) & set(RESERVED))
        if clash:
            raise ValueError(f"an audit entry's own fields: {', '.join(clash)}")
        entry: dict[Any, Any] = {"at": str(at_ms), "by": by, "action": action, **fields}
        async with redis_errors("writing the audit log"):
            await self.redis.xadd(AUDIT, entry, maxlen=AUDIT_MAXLEN, approximate=True)

    async def audit_log(self, limit: int = 100) -> list[dict[str, str]]:
        """The newest ``limit`` entries of the audit log, newest first."""
        async with redis_errors("reading the audit log"):
            rows: Any = await self.redis.xrevrange(AUDIT, "+", "-", count=limit)
        return [{_text(k): _text(v) for k, v in fields.items()} for _, fields in rows]
