"""Bans reach the connections open when they are made (SPEC.md §4.11).

A ban is checked at ``hello`` and ``create_table`` on every node (tables/players.py), and
nothing caches it.  A session signed in before its identity or network was banned would play
on, so every ``SWEEP_SECONDS`` each node reads the bans in force (one ``HGETALL``, nothing when
there are none) and closes each of its sessions that one holds: an ``error`` ``auth/banned``
(with ``retry_in`` for a ban that ends), then close code 4001.  A seat closed so is away like
any other (its clock and the handover go on); the table is not touched.

The sweep holds only this node's sessions, so every node runs its own; a store that cannot be
read skips a round.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

from echoridge.logs import get_logger
from echoridge.store import StoreError
from echoridge.store.moderation import applying, ip_addresses
from echoridge.tables.players import banned

if TYPE_CHECKING:
    from echoridge.net.session import Session
    from echoridge.store.moderation import Moderation

SWEEP_SECONDS = 5.0

log = get_logger("echoridge.bans")


async def sweep(moderation: Moderation, sessions: Iterable[Session]) -> int:
    """Close the sessions a ban in force holds; how many were closed."""
    now = int(time.time() * 1000)
    try:
        bans = await moderation.bans(now)
    except StoreError:
        return 0
    if not bans:
        return 0
    cut = 0
    for session in list(sessions):
        if session.closing:
            continue
        identity = session.identity.id if session.identity is not None else None
        ip = session.requester.ip if session.requester is not None else None
        ban = applying(bans, identity, ip_addresses(ip))
        if ban is not None:
            session.refuse(banned(ban))
            cut += 1
    if cut:
        log.info("banned sessions closed", sessions=cut)
    return cut


class BanSweep:
    """The sweep of one ``GameServer``'s sessions, every ``seconds``."""

    def __init__(
        self, moderation: Moderation, sessions: set[Session], seconds: float = SWEEP_SECONDS
    ) -> None:
        self.moderation = moderation
        self.sessions = sessions
        self.seconds = seconds
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="ban sweep")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.seconds)
            try:
                await sweep(self.moderation, self.sessions)
            except Exception:  # never let one bad round end the sweep
                log.exception("ban sweep failed")
