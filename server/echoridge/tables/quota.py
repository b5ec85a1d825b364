"""The lobby's limits on one client: how many tables it may create a minute and how many of
them may wait to start at once; and when a table whose game never starts is closed.

Who a limit counts is a ``Requester``'s ``keys``: the client's address as the gate admitted it
(net/gate.py: the peer, or what a trusted proxy forwards; IPv6 by its /64), and the identity of
a signed-in session (issue 28) as well.  The counts are kept in Redis (store/quota.py), so they
hold across reconnects, workers and nodes.  A request without a requester (an in-process
caller: tests, tools) is not counted.

The defaults are for a public server: a person creates a table or two, and a few more when
trying modes and clocks, so 10 a minute never stands in their way while a script is held to
600 tables an hour; 20 tables waiting at once leaves room for a club or a classroom behind one
address (each table that starts stops counting), while a flood is held to 20 listed tables per
address.  Tables nobody sits at are closed after 30 minutes, every unstarted table after 2
hours: an abandoned table leaves the lobby within the half hour, a real one has had plenty of
time to fill.  ``echo-ridge serve`` has a flag for each (0: no limit); load tests and the test
suite, which create many tables from 127.0.0.1, turn the first two off.
"""

from __future__ import annotations

from dataclasses import dataclass

from echoridge.store.lobbyindex import ExpiryPolicy
from echoridge.store.quota import Granted, Quotas, TooFast, TooMany
from echoridge.tables.errors import TableError

WINDOW_MS = 60_000  # the creation rate is counted over the last minute


@dataclass(frozen=True)
class LobbyLimits:
    """``echo-ridge serve --tables-per-minute-per-ip --max-waiting-tables-per-ip
    --table-idle-timeout --table-max-wait`` (0: none)."""

    tables_per_minute: int = 10
    waiting_tables: int = 20
    idle_seconds: int = 30 * 60  # an unstarted table with no seated person is closed after
    max_wait_seconds: int = 2 * 60 * 60  # an unstarted table is closed this long after creation

    def check(self) -> None:
        """ValueError for a setting that cannot be used."""
        if min(
            self.tables_per_minute, self.waiting_tables, self.idle_seconds, self.max_wait_seconds
        ) < 0:
            raise ValueError("the lobby's limits are 0 (none) or more")

    def expiry(self) -> ExpiryPolicy:
        return ExpiryPolicy(self.idle_seconds * 1000, self.max_wait_seconds * 1000)

    def waiting_set_seconds(self) -> int:
        """How long a client's set of waiting tables outlives its last table: as long as a
        table may wait (a week when tables never expire)."""
        longest = self.max_wait_seconds or 7 * 24 * 3600
        return longest + 60


@dataclass(frozen=True)
class Requester:
    """Who asks: the client's address key (net/gate.py ``address_key``) and, for a signed-in
    session, its identity: the limits hold for each (a player cannot escape them by changing
    address, nor several identities behind one address by changing identity)."""

    address: str | None = None
    identity: str | None = None
    ip: str | None = None  # the client's own address (bans match it: store/moderation.py)

    @property
    def keys(self) -> tuple[str, ...]:
        """What the lobby's limits count (none: nothing)."""
        out = []
        if self.identity:
            out.append(f"id:{self.identity}")
        if self.address:
            out.append(f"ip:{self.address}")
        return tuple(out)


async def reserve(quotas: Quotas, limits: LobbyLimits, who: Requester | None, table: str) -> None:
    """Count a new table against ``who``'s limits, each of them, or refuse it:
    ``table/rate_limited``, ``table/too_many``."""
    if who is None or not (limits.tables_per_minute or limits.waiting_tables):
        return
    for key in who.keys:
        await _reserve(quotas, limits, key, table)


async def _reserve(quotas: Quotas, limits: LobbyLimits, key: str, table: str) -> None:
    outcome = await quotas.reserve(
        key,
        table,
        per_window=limits.tables_per_minute,
        window_ms=WINDOW_MS,
        waiting=limits.waiting_tables,
        waiting_seconds=limits.waiting_set_seconds(),
    )
    whose = "you" if key.startswith("id:") else "your address"
    match outcome:
        case Granted():
            return
        case TooFast(retry_ms=ms):
            raise TableError(
                "table/rate_limited",
                f"At most {limits.tables_per_minute} tables a minute from {whose}; "
                f"try again in {max(1, -(-ms // 1000))} s.",
                retry_in=max(1, ms),
            )
        case TooMany(waiting=n):
            raise TableError(
                "table/too_many",
                f"{n} tables created by {whose} are waiting to start (at most "
                f"{limits.waiting_tables}); start or close one first.",
            )
