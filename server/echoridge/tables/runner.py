"""A live table on one node: its state, its viewers, and the command path.

Every node that has viewers of a table runs a runner for it.  The runner folds the table's log
into a state and follows the log, so an entry appended by any node reaches every viewer.  A
command decided here is appended in one round trip and applied at once; the follower's copy of
the same entry is then skipped.  After each new version the runner projects one view per distinct
viewer (each seat, the spectators), diffs it against that viewer's previous view, encodes the
delta once per subprotocol and hands the same frame to every connection of that viewer: fan-out
never awaits a connection (a ``Sink`` only queues).  That side is viewers.py; the moves the
server makes itself (its bots, decision timeouts) are servermoves.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from typing import Any

from echoridge.store import (
    Appended,
    Conflict,
    Duplicate,
    Entry,
    Head,
    NewEntry,
    StoreError,
    TableDamaged,
    genesis,
)
from echoridge.tables.chat import TableChat
from echoridge.tables.clocknews import ClockNews
from echoridge.tables.clocks import ClockSettings, Timing, from_meta
from echoridge.tables.errors import TableError
from echoridge.tables.outcome import Outcome
from echoridge.tables.presence import TablePresence
from echoridge.tables.rematch import TableRematch
from echoridge.tables.servermoves import ServerMoves
from echoridge.tables.viewers import (
    HISTORY,
    SPECTATORS,
    Group,
    MakeWelcome,
    Sink,
    Viewers,
    viewer_view,
)
from echoridge.tasks import cancel_and_wait
from echoridge_protocol.fairness import game_seed
from echoridge_rules import RuleViolation, State, Status, ViewCache, decide, evolve
from echoridge_rules.commands import Command, SeatCommand, ServerCommand, StartGame, VoteHandover
from echoridge_rules.data import RULES_VERSION
from echoridge_rules.events import Event
from echoridge_rules.log import Told, told
from echoridge_rules.rng import Rng
from echoridge_rules.seats import played_by_server
from echoridge_rules.serial import load

__all__ = ["SPECTATORS", "MakeWelcome", "Outcome", "Sink", "TableRunner", "viewer_view"]

BAD_COMMAND = "That is not a command of this game."
MARK_OVER_RETRY = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0)  # seconds between tries (~32 s)
ARCHIVE_BACKSTOP_SECONDS = 3.0  # every node that saw a game end archives and rates it after this


class TableRunner(Viewers, ServerMoves):
    def __init__(self, node: Any, table: str) -> None:
        self.node = node
        self.table = table
        self.log = node.storage.log
        self.lobby = node.lobby
        self.state = State()
        self.head = genesis(table)
        self.epoch = 1
        self.meta: dict[str, str] = {}
        self.bots: dict[int, str] = {}  # seat -> kind, for seats the server plays
        self.rng: Rng | None = None
        self.tokens: dict[int, str] | None = None  # seat -> token hash, once started
        self.credentials: dict[Sink, str] = {}  # seat session -> the token hash it presented
        self._seat_check: asyncio.TimerHandle | None = None
        self.presence: TablePresence | None = None  # once open
        self.timing = Timing(ClockSettings())
        self.clock_news = ClockNews(table)  # what the sessions are told of the clocks
        self.noticed: set[tuple[str, int, str]] = set()
        self.refused_clocks: set[tuple[int, str, int]] = set()
        self.indexed: int | None = -1  # (nothing noted yet)
        self.history: deque[tuple[int, State]] = deque(maxlen=HISTORY)
        self.told: list[tuple[Told, ...]] = [()]  # per version: what each audience is told
        self.groups: dict[int, Group] = {}
        # Views made through a cache share unchanged subtrees with the ones before, so diffs
        # skip them; delayed spectators walk an older sequence of states, so they get their own.
        self.views = ViewCache()
        self.delayed_views = ViewCache()
        self.lock = asyncio.Lock()
        self.chat = TableChat(self)  # the table's chat on this node (tables/chat.py)
        self.rematch = TableRematch(table, node.storage.directory, self._sinks)  # (rematch.py)
        self._follow_task: asyncio.Task[None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._pass_timer: asyncio.TimerHandle | None = None
        self.closed = False

    # --- lifecycle ----------------------------------------------------------------------------

    @property
    def version(self) -> int:
        return self.head.version

    async def open(self) -> None:
        self.meta = await self.lobby.meta(self.table)
        if self.meta["status"] in ("damaged", "closed"):
            raise TableError(f"table/{self.meta['status']}")
        self.epoch = int(self.meta.get("epoch", "1"))
        self.presence = TablePresence(
            self.table,
            self.node.id,
            self.node.storage.presence,
            int(self.meta["seats"]),
            self._arm_timer,  # who is away changes the clocks
        )
        self.bots = self._bots()
        await self._rebuild()
        if self.meta["status"] in ("playing", "over"):
            await self.ensure_started()
        if self.state.status is Status.OVER:
            self.rematch.over(self.meta)
        self._follow_task = asyncio.create_task(self._follow(), name=f"follow {self.table}")
        self.presence.changed(self.groups)  # read who is away (the handover clocks) once
        self._arm_timer()
        await self.chat.open()

    async def close(self) -> None:
        self.closed = True
        for handle in (self._timer, self._pass_timer, self._seat_check):
            if handle is not None:
                handle.cancel()
        if self._follow_task is not None:
            await cancel_and_wait(self._follow_task)
            # (a cycle: the task's CancelledError holds the frames that hold this runner)
            self._follow_task = None
        if self.presence is not None:
            await self.presence.close()
        await self.rematch.close()
        self.chat.close()
        # A closed runner is no reference cycle (its follow task is dropped above, its presence
        # forgets its callback, its chat holds it weakly), so once reaped it is freed by
        # reference count, without the full collections serve.py makes rare; and should
        # something still hold it, what makes it big (up to HISTORY states, the views, the log)
        # is let go of now.
        self.history.clear()
        self.told = [()]
        self.groups.clear()
        self.credentials.clear()
        self.views = ViewCache()
        self.delayed_views = ViewCache()

    async def _rebuild(self) -> None:
        """Fold the whole log (verifying its chain), keeping the last states for resumes."""
        state = State()
        self.history.clear()
        self.history.append((0, state))
        said: list[tuple[Told, ...]] = [()]
        head = genesis(self.table)
        timing = Timing(from_meta(self.meta, self.node.decision_seconds))
        for entry in await self.log.load(self.table):
            for e in entry.events:
                state = evolve(state, e)
            head = entry.head
            timing.advance(state, entry.time)
            self.history.append((head.version, state))
            said.append(told(state, entry.command, entry.events))
        self.state, self.head, self.told, self.timing = state, head, said, timing


    async def ensure_started(self) -> None:
        """Status playing: make sure the start is in the log (a node may have died between
        marking the table started and appending the start).  Idempotent."""
        async with self.lock:
            await self._load_game()
            if self.version > 0:
                return
            seats = range(int(self.meta["seats"]))
            command = StartGame(
                len(seats),
                tuple(self.meta.get(f"name:{i}", "") for i in seats),
                tuple(self.meta.get(f"bot:{i}", "") for i in seats),
                self.timing.clock.for_rules(),
                mode=self.meta.get("mode", "competitive"),  # tables made before modes: competitive
                rules=RULES_VERSION,
            )
            assert self.rng is not None
            events = decide(self.state, command, self.rng)
            await self._append(None, "start", command, events)

    async def _load_game(self) -> None:
        """Once the table is started: its bots, its generator and its seats' tokens, which no
        longer change (``leave`` is refused after the start).  A seat session whose token was
        given up before the start is closed now, whichever node handled the ``leave``.
        Under the lock."""
        self.meta = await self.lobby.meta(self.table)
        self.bots = self._bots()
        seeds = await self.lobby.seeds(self.table)
        self.tokens = await self.lobby.token_hashes(self.table)
        self.rng = Rng(
            game_seed(seeds.server_seed, self.table, list(seeds.client_seeds)), self.table
        )
        self._close_stale_seats()
        if self.version > 0:
            self._wake_bots()

    # --- following the log ----------------------------------------------------------------------

    async def _follow(self) -> None:
        while not self.closed:
            try:
                async for entry in self.node.storage.follower.follow(self.table, self.head):
                    async with self.lock:
                        if self.rng is None and entry.version > self.version:
                            # Another node started the game: know its tokens before the first
                            # private view goes out (and its generator, to decide commands).
                            await self._load_game()
                        await self._apply(entry)
            except TableDamaged:
                await self._recover()
            except StoreError:
                await asyncio.sleep(0.5)

    async def _apply(self, entry: Entry) -> None:
        """Apply an entry if it is the next one; catch up if entries are missing."""
        if entry.version <= self.version:
            return
        if entry.version > self.version + 1:
            for missing in await self.log.load(self.table, self.head):
                await self._apply(missing)
            return
        self._advance(entry.command, entry.events, entry.head, entry.time)

    def _advance(
        self,
        command: Command,
        events: tuple[Event, ...] | list[Event],
        head: Head,
        time_ms: int,
    ) -> None:
        state = self.state
        for e in events:
            state = evolve(state, e)
        self.state, self.head = state, head
        self.timing.advance(state, time_ms)
        self.history.append((head.version, state))
        self.told.append(told(state, command, events))
        self._fan_out()
        self._arm_timer()
        self._wake_bots()
        if state.status is Status.OVER and self.meta.get("status") != "over":
            self.meta["status"] = "over"
            asyncio.get_running_loop().create_task(self._mark_over())
            self.rematch.over(self.meta)


    async def _mark_over(self) -> None:
        """Say in the table's metadata that its game is over, trying again for a while while
        Redis is away (the log stays the truth: a transcript's build folds it, and repairs
        this: tables/transcripts.py)."""
        # (and archive and rate the game, should the node whose append ended it be gone)
        self.node.transcripts.finished(self.table, delay=ARCHIVE_BACKSTOP_SECONDS)
        for delay in MARK_OVER_RETRY:
            with contextlib.suppress(StoreError):
                await self.node.storage.directory.update(self.table, {"status": "over"})
                return
            await asyncio.sleep(delay)

    async def _recover(self) -> None:
        """The log no longer chains from what this node saw.  If it is still whole from the
        start (it was rolled back), take it as the truth under a new epoch; if an entry was
        edited, the table is damaged for good.  Either way every session is closed."""
        async with self.lock:
            try:
                await self._rebuild()
            except TableDamaged:
                with contextlib.suppress(StoreError):
                    await self.node.storage.directory.update(self.table, {"status": "damaged"})
                self._close_all(4004, "table/damaged")
                self.closed = True
                return
            self.epoch = await self.node.storage.directory.bump_epoch(self.table)
            self._close_all(4011, "resync: the table's history changed")


    # --- commands -------------------------------------------------------------------------------

    async def submit(
        self, seat: int, command_id: str, expected: int, plain: dict[str, Any]
    ) -> Outcome:
        """A seat's command: decide, append (one round trip), apply, fan out.  A command that
        would not be appended is answered ``duplicate`` if its id was appended before, whatever
        it says now (SPEC.md §5.2): the id is looked up only then, off the accepted path (on
        that path the append script finds a known id itself)."""
        key = f"{seat}:{command_id}"
        async with self.lock:
            decided = await self._decide(seat, expected, plain)
            if not isinstance(decided, Outcome):
                return await self._append(seat, key, *decided)
        original = await self.log.command_version(self.table, key)
        return decided if original is None else Outcome("duplicate", original)

    async def _decide(
        self, seat: int, expected: int, plain: dict[str, Any]
    ) -> Outcome | tuple[Command, list[Event]]:
        """The command and its events, or why it cannot be appended.  Under the lock."""
        try:
            command = load(plain)  # (the codec checked its shape: protocol commands.py)
        except (KeyError, TypeError, ValueError):
            return Outcome("rejected", code="rules/bad_command", message=BAD_COMMAND)
        if isinstance(command, ServerCommand) or getattr(command, "seat", None) != seat:
            return Outcome("rejected", code="command/wrong_seat")
        if expected != self.version:
            return Outcome("stale", self.version, "command/stale_version")
        refused = self._seat_refusal(command)
        if refused is not None:
            return refused
        rng = await self._rng()
        if rng is None:
            return Outcome("rejected", code="rules/game_not_started")
        try:
            events = decide(self.state, command, rng)
        except RuleViolation as exc:
            return Outcome("rejected", self.version, exc.code, exc.detail)
        present = self._present_target(command)
        return (command, events) if present is None else present

    async def _rng(self) -> Rng | None:
        """The game's generator (None before the start), loaded if the start was appended by
        another node and its loading failed then.  Under the lock."""
        if self.rng is None and self.state.status is not Status.NEW:
            await self._load_game()
        return self.rng

    def _seat_refusal(self, command: Command) -> Outcome | None:
        """A seat the server plays takes no game commands from its player (they may take it
        back, and use the other seat commands): checked before the rules (SPEC.md §5.2)."""
        state = self.state
        seat = getattr(command, "seat", None)
        if state.status is Status.NEW or seat is None or not 0 <= seat < len(state.players):
            return None
        seat_command = isinstance(command, SeatCommand)
        if not seat_command and played_by_server(state, seat):
            return Outcome(
                "rejected",
                self.version,
                "command/played_by_server",
                "The server plays this seat now; take it back first.",
            )
        return None

    def _present_target(self, command: Command) -> Outcome | None:
        """A handover vote the rules allow (so its target is another person's seat, not handed
        over) needs that seat's player away: checked after the rules (SPEC.md §5.2), so a vote
        for oneself, a bot or a seat the table has not gets the rules' code."""
        if not isinstance(command, VoteHandover):
            return None
        away = self._away()
        if away is not None and command.target in away:
            return None
        return Outcome(
            "rejected", self.version, "command/player_present", "That seat's player is here."
        )

    async def _append(
        self, seat: int | None, key: str, command: Command, events: list[Event]
    ) -> Outcome:
        """Append under the lock; on a conflict catch up (the caller's decision is stale)."""
        started = time.perf_counter()
        with self.node.storage.follower.appending(self.table):
            result = await self.log.append(
                self.table, self.head, key, NewEntry(seat, command, tuple(events))
            )
        self.node.observe_append(result, time.perf_counter() - started)
        if isinstance(result, Appended):
            entry = Entry(
                result.head.version, seat, key, command, tuple(events),
                result.head.hash, self.head.hash, result.time,
            )  # fmt: skip
            self.node.storage.follower.appended(entry, self.table)  # (not read back)
            self._advance(command, events, result.head, result.time)
            if self.state.status is Status.OVER:  # this append ended the game (none after it)
                self.node.transcripts.finished(self.table)
            return Outcome("accepted", result.head.version)
        if isinstance(result, Duplicate):
            # An earlier try was appended though its answer was lost (a slot moving, a failover):
            # this node has not applied it, and no follower will bring it. Catch up.
            if result.entry.version > self.version:
                await self._catch_up()
            return Outcome("duplicate", result.entry.version)
        assert isinstance(result, Conflict)
        await self._catch_up()
        if key == "start":
            return Outcome("accepted", self.version)
        return Outcome("stale", self.version, "command/stale_version")

    async def _catch_up(self) -> None:
        """Apply what the log holds past this node's head (under the lock)."""
        for entry in await self.log.load(self.table, self.head):
            await self._apply(entry)


def command_name(plain: dict[str, Any]) -> str:
    """The type of a command, for logs (never its other fields)."""
    value = plain.get("type") if isinstance(plain, dict) else None
    return value if isinstance(value, str) and len(value) <= 32 else "?"
