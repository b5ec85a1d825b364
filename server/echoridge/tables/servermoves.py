"""The moves a table's server makes itself: its bots' (seats played by the server, metadata
``bot:N``), and the default answers of decisions owed too long (rules.md §4.5.6).

Every node that runs the table may make them: each is decided from the state alone and
appended with a command id of its version and seat, so a second node's is a duplicate.  When
Redis is away they are tried again (``retry_delay``), or the game would wait forever: nobody
else retries for the server.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from echoridge.rules import RuleViolation, State, Status, decide
from echoridge.rules.serial import load
from echoridge.store import StoreError
from echoridge.tables.errors import TableError
from echoridge.tables.viewers import Encoded, Sink, viewer_view
from echoridge_protocol import messages as m

if TYPE_CHECKING:
    from collections.abc import Iterator

    from echoridge.rules import ViewCache
    from echoridge.rules.commands import Command
    from echoridge.rules.events import Event
    from echoridge.rules.rng import Rng
    from echoridge.tables.runner import Outcome


class ServerMoves:
    """The server's own moves, for ``TableRunner`` (runner.py), which holds the state."""

    node: Any
    table: str
    lock: asyncio.Lock
    closed: bool
    state: State
    meta: dict[str, str]
    bots: dict[int, str]
    views: ViewCache
    deadline: m.Deadline | None  # the running decision clock, as sent
    _timer: asyncio.TimerHandle | None

    if TYPE_CHECKING:

        def _sinks(self) -> Iterator[Sink]: ...

        @property
        def version(self) -> int: ...

        async def _rng(self) -> Rng | None: ...

        async def _append(
            self, seat: int | None, key: str, command: Command, events: list[Event]
        ) -> Outcome: ...

        async def default(self, seat: int) -> Outcome: ...

    def _bots(self) -> dict[int, str]:
        """The seats the server plays itself (metadata ``bot:N`` = kind)."""
        return {
            int(key[len("bot:") :]): kind
            for key, kind in self.meta.items()
            if key.startswith("bot:") and kind in ("random", "greedy")
        }

    def _wake_bots(self) -> None:
        """Let the bots the game waits on move.  Each move is decided from the state with a seed
        of (table, seat, version), so every node that runs this table decides the same command,
        and its command id makes a second append a duplicate."""
        bots = self.bots
        if not bots or self.closed or self.state.status not in (Status.PLAYING, Status.ACCUSING):
            return
        waiting = self._waiting_on() or ([self.state.turn.seat] if self.state.turn else [])
        for seat in waiting:
            if seat in bots:
                self._schedule_bot(seat, self.version)

    def _schedule_bot(self, seat: int, version: int, attempt: int = 0) -> None:
        loop = asyncio.get_running_loop()
        delay = self.node.bot_delay if attempt == 0 else retry_delay(attempt)
        loop.call_later(delay, lambda: loop.create_task(self._bot_move(seat, version, attempt)))

    async def _bot_move(self, seat: int, version: int, attempt: int) -> None:
        try:
            async with self.lock:
                if self.closed or self.version != version:
                    return
                rng = await self._rng()
                if rng is None:
                    return
                seen = viewer_view(self.state, seat, self.views)
                legal = seen.get("you", {}).get("legal") or []
                if not legal:
                    return
                policy = bot_policy(self.bots[seat], f"{self.table}/{seat}/{version}")
                choice = policy.choose(seen, legal)
                try:
                    command = load(choice)
                    events = decide(self.state, command, rng)
                except RuleViolation:
                    return
                await self._append(seat, f"bot:{version}:{seat}", command, events)
        except StoreError:  # Redis is away: the bot tries again (the same command id)
            if not self.closed and self.version == version:
                self._schedule_bot(seat, version, attempt + 1)

    # --- decision timeouts ------------------------------------------------------------------------

    def _waiting_on(self) -> list[int]:
        """The seats the game waits on for a decision (or an open W3/W4 window)."""
        state = self.state
        if state.pending:
            if state.status is Status.ACCUSING:
                return [d.seat for d in state.pending]
            return [state.pending[0].seat]
        turn = state.turn
        if turn is not None and turn.phase.value in ("w3", "w4"):
            return [turn.seat]
        return []

    def _arm_timer(self) -> None:
        """(Re)start the decision clock: when it runs out with no progress, the owed decisions
        get their default answers (rules.md §4.5.6).  Every node may fire it: the command id
        makes the second answer a duplicate."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        seconds = getattr(self.node, "decision_seconds", 0)
        self.deadline = None
        if self.closed or not seconds or not self._waiting_on():
            return
        loop = asyncio.get_running_loop()
        version = self.version
        self._timer = loop.call_later(seconds, lambda: loop.create_task(self._time_out(version)))
        at = int((time.time() + seconds) * 1000)
        self.deadline = m.Deadline(self.table, version, tuple(self._waiting_on()), at)
        Encoded(self.deadline).send(self._sinks())

    async def _time_out(self, version: int, attempt: int = 0) -> None:
        for seat in self._waiting_on():
            if self.closed or self.version != version:
                return
            try:
                outcome = await self.default(seat)
            except StoreError:  # Redis is away: try again soon
                self._retry_time_out(version, attempt + 1)
                return
            except TableError:
                return
            self.node.log_timeout(self.table, seat, outcome)
            version = self.version

    def _retry_time_out(self, version: int, attempt: int) -> None:
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(
            retry_delay(attempt), lambda: loop.create_task(self._time_out(version, attempt))
        )


def retry_delay(attempt: int) -> float:
    """Seconds before attempt ``attempt`` (1, 2, ...) of a server move that failed on Redis."""
    return float(min(5.0, 0.1 * 2**attempt))


def bot_policy(kind: str, seed: str) -> Any:
    from echoridge_client.policies import GreedyPolicy, RandomPolicy

    return GreedyPolicy(seed.encode()) if kind == "greedy" else RandomPolicy(seed.encode())
