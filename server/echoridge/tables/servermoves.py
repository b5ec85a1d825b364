"""The moves a table's server makes itself, and the clocks that make them.

- **Bots** (botmoves.py): the server plays a seat whose player is a server bot (metadata
  ``bot:N``), a seat handed over (rules/seats.py: away, strikes, vote, "play for me"), and the
  rest of a turn that timed out, each with a bot of its kind (the table's ``handover_bot``
  level for a person's seat).
- **Clocks** (clocks.py): after each version and each change of presence the runner works out
  the clocks that run (``Timing.running``), sends them to the table's sessions (``clocks``, and
  the v2 ``deadline`` for the decision clock), keeps the earliest in the store's clock index
  (for nodes that have no runner for the table, clockwork.py) and arms one timer for it.  When
  it fires: a turn clock appends ``TimeOut``, a decision clock the default answer
  (``ApplyDefault``, rules.md §4.5.6), a handover clock ``HandOver(seat, "away")``.
- **Taking a seat back**: a player who reconnects to a seat handed over while they were away
  takes it back (``TakeBack``), unless they handed it over themself.

Every node that runs the table may make these moves: each is decided from the state alone and
appended with a command id of its version (or turn) and seat, so a second node's is a duplicate.
When Redis is away they are tried again (``retry_delay``), or the game would wait forever:
nobody else retries for the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from typing import TYPE_CHECKING, Any

from echoridge.store import StoreError
from echoridge.tables.botmoves import BotMoves, retry_delay
from echoridge.tables.clocks import Timing, waiting_on
from echoridge.tables.errors import TableError
from echoridge.tables.notices import REMINDER_MS, Notice
from echoridge.tables.outcome import Outcome
from echoridge.tables.viewers import SPECTATORS, Sink
from echoridge_protocol import messages as m
from echoridge_rules import RuleViolation, State, Status, decide
from echoridge_rules.commands import ApplyDefault, HandOver, Proceed, TakeBack, TimeOut
from echoridge_rules.legal import nothing_to_play
from echoridge_rules.seats import played_by_server

if TYPE_CHECKING:
    from collections.abc import Iterator

    from echoridge.tables.clocknews import ClockNews
    from echoridge.tables.presence import TablePresence
    from echoridge.tables.viewers import Group
    from echoridge_rules import ViewCache
    from echoridge_rules.commands import Command
    from echoridge_rules.events import Event
    from echoridge_rules.rng import Rng

TAKEN_BACK_ON_RETURN = ("away", "strikes", "vote")  # not "self": its player asked


class ServerMoves(BotMoves):
    """The server's own moves, for ``TableRunner`` (runner.py), which holds the state."""

    node: Any
    table: str
    lock: asyncio.Lock
    closed: bool
    state: State
    meta: dict[str, str]
    bots: dict[int, str]
    views: ViewCache
    presence: TablePresence | None
    groups: dict[int, Group]
    timing: Timing
    clock_news: ClockNews  # the running clocks and deadline, as sent (clocknews.py)
    noticed: set[tuple[str, int, str]]  # the notices this runner has sent: (key, seat, kind)
    refused_clocks: set[tuple[int, str, int]]  # (version, kind, seat): its move was refused
    indexed: int | None  # the deadline last noted in the clock index
    _timer: asyncio.TimerHandle | None
    _pass_timer: asyncio.TimerHandle | None  # an auto-pass due (_wake_auto_pass)

    if TYPE_CHECKING:

        def _sinks(self) -> Iterator[Sink]: ...

        def _spectator_version(self) -> int: ...

        @property
        def version(self) -> int: ...

        async def _rng(self) -> Rng | None: ...

        async def _append(
            self, seat: int | None, key: str, command: Command, events: list[Event]
        ) -> Outcome: ...

    def _wake_auto_pass(self) -> None:
        """A seat whose ``auto_pass`` is on, in a W3/W4 window where ``proceed`` is its only
        legal command, is passed for after a random pause (SPEC.md §6.6): the table never waits
        long on an empty window, and nobody can tell by the timing whether the seat or the
        server answered.  Its id (``pass:VERSION:SEAT``) makes a second node's a duplicate."""
        if self._pass_timer is not None:  # (a version ago: moot, and it holds this runner)
            self._pass_timer.cancel()
            self._pass_timer = None
        state = self.state
        if self.closed or state.status is not Status.PLAYING:
            return
        if (seat := nothing_to_play(state)) is None:
            return
        if not state.players[seat].auto_pass or played_by_server(state, seat):
            return
        loop = asyncio.get_running_loop()
        delay = self.node.pass_delay * random.uniform(0.5, 1.5)
        version = self.version
        self._pass_timer = loop.call_later(
            delay, lambda: loop.create_task(self._auto_pass(seat, version))
        )

    async def _auto_pass(self, seat: int, version: int) -> None:
        with contextlib.suppress(StoreError, TableError):  # (the seat answers it then)
            await self.server_move(Proceed(seat), f"pass:{version}:{seat}", seat, at=version)

    # --- clocks -------------------------------------------------------------------------------

    def _away(self) -> dict[int, int] | None:
        """Seat -> away since (ms) for the seats whose player is not connected, as the merged
        presence last said (None until it has been read once), but seats with a session on
        this node: that is known at once, the merged presence a moment later."""
        current = self.presence.current if self.presence is not None else None
        if current is None:
            return None
        message = current.message
        assert isinstance(message, m.Presence)
        here = {key for key, group in self.groups.items() if group.sinks}
        return {p.seat: p.since for p in message.seats if not p.connected and p.seat not in here}

    def _arm_timer(self) -> None:
        """Work out the running clocks, tell the table's sessions if they changed, and arm a
        timer for the earliest."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.closed:
            return
        away = self._away()
        running = self._running(away)
        self._send_clocks(running)
        reminders = self._notify(running, away)
        wake = min([c.at for c in running] + [at for at, _ in reminders], default=None)
        self._index_clock(wake)
        if wake is None:
            return
        loop = asyncio.get_running_loop()
        version = self.version
        delay = max(0.0, wake / 1000 - time.time())
        self._timer = loop.call_later(delay, lambda: loop.create_task(self._clocks_due(version)))

    def _notify(
        self, running: list[m.RunningClock], away: dict[int, int] | None
    ) -> list[tuple[int, m.RunningClock]]:
        """Play by notification (notices.py): a ``to_move`` notice for each away seat the game
        waits on, and, for its clocks longer than an hour, when to remind it (returned, and
        sent by ``_clocks_due`` when due)."""
        notices = self.node.notices
        state = self.state
        if notices is None or away is None or state.status not in (
            Status.PLAYING, Status.ACCUSING,
        ):  # fmt: skip
            return []
        turn = state.turn
        seats = waiting_on(state) or ([turn.seat] if turn is not None else [])
        reminders = []
        for seat in seats:
            if seat not in away or played_by_server(state, seat):
                continue
            clock = next(
                (c for c in running if c.seat == seat and c.kind in ("turn", "decision")), None
            )
            key = self._notice_key(clock, seat)
            name = state.players[seat].name
            at = clock.at if clock is not None else None
            if (key, seat, "to_move") not in self.noticed:
                self.noticed.add((key, seat, "to_move"))
                notices.send(Notice("to_move", self.table, key, seat, name, at, self.version))
            if (
                clock is not None
                and clock.at - REMINDER_MS > self.timing.time
                and (key, seat, "reminder") not in self.noticed
            ):
                reminders.append((clock.at - REMINDER_MS, clock))
        return reminders

    def _notice_key(self, clock: m.RunningClock | None, seat: int) -> str:
        turn = self.state.turn
        if (clock is None or clock.kind == "turn") and turn is not None and turn.seat == seat:
            return f"turn{turn.number}"
        return f"v{self.version}"

    def _send_clocks(self, running: list[m.RunningClock]) -> None:
        """Tell the sessions at the table's version of new clocks; spectators kept behind
        are told them with their view (clocknews.py, ``Viewers._step``)."""
        if not self.clock_news.running(self.version, running):
            return
        delayed = self._spectator_version() < self.version
        sinks = (
            sink
            for key, group in self.groups.items()
            if not (key == SPECTATORS and delayed)
            for sink in group.sinks
        )
        self.clock_news.send(sinks, spectators=not delayed)

    def _running(self, away: dict[int, int] | None) -> list[m.RunningClock]:
        """The running clocks, but those whose move was refused at this version (so a clock
        that cannot act never fires again and again)."""
        return [
            c
            for c in self.timing.running(self.state, away)
            if (self.version, c.kind, c.seat) not in self.refused_clocks
        ]

    def _index_clock(self, at: int | None) -> None:
        """Keep the earliest deadline of this table in the store's clock index, so that some
        node acts on it even when no node has a session here (clockwork.py)."""
        if at != self.indexed:
            self.indexed = at
            self.node.clock_index.note(self.table, at)

    async def _clocks_due(self, version: int, attempt: int = 0) -> None:
        self._timer = None
        if self.closed or self.version != version:
            return
        now = time.time() * 1000
        away = self._away()
        running = self._running(away)
        for at, clock in self._notify(running, away):
            if at <= now + 5:
                name = self.state.players[clock.seat].name
                key = self._notice_key(clock, clock.seat)
                self.noticed.add((key, clock.seat, "reminder"))
                self.node.notices.send(
                    Notice("reminder", self.table, key, clock.seat, name, clock.at, self.version)
                )
        due = [c for c in running if c.at <= now + 5]
        if not due:
            self._arm_timer()  # (a reminder, or presence changed meanwhile)
            return
        for clock in due:
            if self.closed or self.version != version:
                return
            try:
                outcome = await self._time_out(clock)
            except StoreError:  # Redis is away: try again soon
                self._retry_clocks(version, attempt + 1)
                return
            except TableError:
                return
            if outcome is not None:
                self.node.log_timeout(self.table, clock.kind, clock.seat, outcome)
                if outcome.outcome == "rejected":
                    self.refused_clocks.add((version, clock.kind, clock.seat))
            version = self.version
        if self.version == version:
            self._arm_timer()

    def _retry_clocks(self, version: int, attempt: int) -> None:
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(
            retry_delay(attempt), lambda: loop.create_task(self._clocks_due(version, attempt))
        )

    async def _time_out(self, clock: m.RunningClock) -> Outcome | None:
        """Append what a clock that ran out does."""
        state = self.state
        seat = clock.seat
        if clock.kind == "turn":
            assert state.turn is not None
            return await self.server_move(TimeOut(seat), f"timeout:{state.turn.number}:{seat}")
        if clock.kind == "decision":
            return await self.server_move(ApplyDefault(seat), f"default:{self.version}:{seat}")
        return await self.server_move(HandOver(seat, "away"), f"away:{self.version}:{seat}")

    async def server_move(
        self, command: Command, key: str, seat: int | None = None, at: int | None = None
    ) -> Outcome:
        """Decide and append a command the server makes (a timeout, a handover, an auto-pass);
        with ``at``, only if the table is still at that version (else nothing: it moved on)."""
        async with self.lock:
            if at is not None and (self.closed or self.version != at):
                return Outcome("rejected", self.version, "command/stale_version")
            rng = await self._rng()
            if rng is None:
                return Outcome("rejected", code="rules/game_not_started")
            try:
                events = decide(self.state, command, rng)
            except RuleViolation as exc:
                return Outcome("rejected", self.version, exc.code, exc.detail)
            return await self._append(seat, key, command, events)

    # --- players coming back --------------------------------------------------------------------

    def _seat_attached(self, seat: int) -> None:
        """A seat session joined: its handover clock stops, and its player takes back a seat
        handed over while they were away."""
        state = self.state
        if state.status in (Status.PLAYING, Status.ACCUSING):
            self._arm_timer()
        if (
            state.status in (Status.PLAYING, Status.ACCUSING)
            and 0 <= seat < len(state.players)
            and state.players[seat].auto in TAKEN_BACK_ON_RETURN
        ):
            asyncio.get_running_loop().create_task(self._take_back(seat, self.version))

    async def _take_back(self, seat: int, version: int, attempt: int = 0) -> None:
        with contextlib.suppress(TableError):
            try:
                outcome = await self.server_move(TakeBack(seat), f"back:{version}:{seat}", seat)
            except StoreError:
                if not self.closed and attempt < 8:
                    await asyncio.sleep(retry_delay(attempt + 1))
                    await self._take_back(seat, self.version, attempt + 1)
                return
            if outcome.outcome == "stale" and not self.closed:
                self._seat_attached(seat)  # the table moved on meanwhile: try at the new version
