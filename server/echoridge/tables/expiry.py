"""Tables whose game never starts are closed: the node's side of the expiry index.

Every ``POLL_SECONDS`` the sweeper asks the index (store/lobbyindex.py, ``er:lobby:expiry``)
for the unstarted tables whose time is up (``--table-idle-timeout`` after they last had a
seated person, ``--table-max-wait`` after their creation) and closes each with the ``EXPIRE``
script, which checks the time again against the table's metadata and closes it atomically, as
``close_table`` does: status ``closed``, out of the listing, its keys left to live an hour.
Every node and worker sweeps; the script makes one of them the closer, and a table the index
still holds after a restart is closed by whichever node sweeps next.  The closer closes its own
sessions there at once (4004 ``table/closed``); other nodes notice within seconds (their
runners check an unstarted table's status, tables/viewers.py).
"""

from __future__ import annotations

import time
from typing import Any

from echoridge.logs import get_logger
from echoridge.tables.polling import Sweep

POLL_SECONDS = 1.0
BATCH = 64  # tables closed per sweep, at most

log = get_logger("echoridge.tables")


class Sweeper(Sweep):
    name = "expiry"

    def __init__(self, node: Any, poll_seconds: float = POLL_SECONDS) -> None:
        super().__init__(poll_seconds)
        self.node = node
        self.directory = node.storage.directory

    def start(self) -> None:
        policy = self.directory.expiry
        if policy.idle_ms or policy.max_ms:
            self._begin()

    async def sweep(self) -> int:
        """Close the tables whose time is up; how many this node closed."""
        closed = 0
        for table in await self.directory.lobby.due(int(time.time() * 1000), BATCH):
            outcome, _ = await self.directory.expire(table)
            if outcome == "ok":
                closed += 1
                log.info("table expired", table=table)
            if outcome in ("ok", "closed"):
                await self.node.closed_here(table)
        return closed
