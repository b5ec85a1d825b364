"""A live table on one node: its state, its viewers, and the command path.

Every node that has viewers of a table runs a runner for it.  The runner folds the table's log
into a state and follows the log, so an entry appended by any node reaches every viewer.  A
command decided here is appended in one round trip and applied at once; the follower's copy of
the same entry is then skipped.  After each new version the runner projects one view per distinct
viewer (each seat, the spectators), diffs it against that viewer's previous view, encodes the
delta once per subprotocol and hands the same frame to every connection of that viewer: fan-out
never awaits a connection (a ``Sink`` only queues).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from echoridge.rules import (
    SPECTATOR,
    RuleViolation,
    Seat,
    State,
    Status,
    ViewCache,
    decide,
    evolve,
    view,
)
from echoridge.rules.commands import ApplyDefault, Command, StartGame
from echoridge.rules.events import Event
from echoridge.rules.rng import Rng
from echoridge.rules.serial import load
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
from echoridge.tables.errors import TableError
from echoridge.tasks import cancel_and_wait
from echoridge_protocol import codec, diff
from echoridge_protocol import messages as m
from echoridge_protocol.fairness import game_seed

HISTORY = 160  # states kept for resuming sessions (≥ the largest spectator delay + margin)
SEAT_CHECK_SECONDS = 2.0  # before the start: how often seat sessions' tokens are checked
SPECTATORS = -1  # the viewer key of the spectators (seats are 0..3)

Frame = bytes | str
MakeWelcome = Callable[[int, int, dict[str, Any] | None, bool], m.Welcome]


class Sink(Protocol):
    """A connection as the runner sees it: it only ever queues, never blocks."""

    subprotocol: str

    def deliver(self, frame: Frame) -> None: ...

    def close(self, code: int, reason: str, *, drop: bool = False) -> None: ...


@dataclass
class Group:
    """Every connection of one viewer (one seat, or the spectators), at one version."""

    version: int
    view: dict[str, Any]
    sinks: set[Sink] = field(default_factory=set)


@dataclass(frozen=True)
class Outcome:
    """What became of a command: accepted, rejected, duplicate or stale."""

    outcome: str
    version: int | None = None
    code: str | None = None
    message: str | None = None


def viewer_view(state: State, key: int, cache: ViewCache | None = None) -> dict[str, Any]:
    if state.status is Status.NEW or key == SPECTATORS:
        return view(state, SPECTATOR, cache)
    return view(state, Seat(key), cache)


class TableRunner:
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
        self.history: deque[tuple[int, State]] = deque(maxlen=HISTORY)
        self.groups: dict[int, Group] = {}
        # Views made through a cache share unchanged subtrees with the ones before, so diffs
        # skip them; delayed spectators walk an older sequence of states, so they get their own.
        self.views = ViewCache()
        self.delayed_views = ViewCache()
        self.lock = asyncio.Lock()
        self._follow_task: asyncio.Task[None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self.closed = False

    # --- lifecycle ----------------------------------------------------------------------------

    @property
    def version(self) -> int:
        return self.head.version

    async def open(self) -> None:
        self.meta = await self.lobby.meta(self.table)
        if self.meta["status"] == "damaged":
            raise TableError("table/damaged")
        self.epoch = int(self.meta.get("epoch", "1"))
        self.bots = self._bots()
        await self._rebuild()
        if self.meta["status"] in ("playing", "over"):
            await self.ensure_started()
        self._follow_task = asyncio.create_task(self._follow(), name=f"follow {self.table}")
        self._arm_timer()

    async def close(self) -> None:
        self.closed = True
        for handle in (self._timer, self._seat_check):
            if handle is not None:
                handle.cancel()
        if self._follow_task is not None:
            await cancel_and_wait(self._follow_task)

    async def _rebuild(self) -> None:
        """Fold the whole log (verifying its chain), keeping the last states for resumes."""
        state = State()
        self.history.clear()
        self.history.append((0, state))
        head = genesis(self.table)
        for entry in await self.log.load(self.table):
            for e in entry.events:
                state = evolve(state, e)
            head = entry.head
            self.history.append((head.version, state))
        self.state, self.head = state, head

    def _bots(self) -> dict[int, str]:
        """The seats the server plays itself (metadata ``bot:N`` = kind)."""
        return {
            int(key[len("bot:") :]): kind
            for key, kind in self.meta.items()
            if key.startswith("bot:") and kind in ("random", "greedy")
        }

    async def ensure_started(self) -> None:
        """Status playing: make sure the start is in the log (a node may have died between
        marking the table started and appending the start).  Idempotent."""
        async with self.lock:
            await self._load_game()
            if self.version > 0:
                return
            command = StartGame(int(self.meta["seats"]))
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
        self._advance(entry.events, entry.head)

    def _advance(self, events: tuple[Event, ...] | list[Event], head: Head) -> None:
        state = self.state
        for e in events:
            state = evolve(state, e)
        self.state, self.head = state, head
        self.history.append((head.version, state))
        self._fan_out()
        self._arm_timer()
        self._wake_bots()
        if state.status is Status.OVER and self.meta.get("status") != "over":
            self.meta["status"] = "over"
            asyncio.get_running_loop().create_task(self._mark_over())

    # --- server-side bots -----------------------------------------------------------------------

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
        if self.closed or not seconds or not self._waiting_on():
            return
        loop = asyncio.get_running_loop()
        version = self.version
        self._timer = loop.call_later(seconds, lambda: loop.create_task(self._time_out(version)))

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

    async def _mark_over(self) -> None:
        with contextlib.suppress(StoreError):
            await self.node.storage.directory.update(self.table, {"status": "over"})

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

    def _close_all(self, code: int, reason: str) -> None:
        for group in self.groups.values():
            for sink in group.sinks:
                sink.close(code, reason, drop=True)
        self.groups.clear()

    # --- viewers ------------------------------------------------------------------------------

    def _state_at(self, version: int) -> State | None:
        for v, state in reversed(self.history):
            if v == version:
                return state
        return None

    def _spectator_version(self) -> int:
        if self.state.status is Status.OVER:
            return self.version
        return max(0, self.version - int(self.meta.get("spectator_delay", "0")))

    def _target(self, key: int) -> int:
        return self._spectator_version() if key == SPECTATORS else self.version

    def _views(self, key: int) -> ViewCache:
        delayed = key == SPECTATORS and self._spectator_version() != self.version
        return self.delayed_views if delayed else self.views

    def _fan_out(self) -> None:
        for key, group in self.groups.items():
            target = self._target(key)
            while group.version < target:
                state = self._state_at(group.version + 1)
                if state is None:  # fell out of the history: let the sessions resync
                    for sink in group.sinks:
                        sink.close(4011, "resync", drop=True)
                    group.sinks.clear()
                    break
                self._step(key, group, group.version + 1, state)

    def _step(self, key: int, group: Group, version: int, state: State) -> None:
        new = viewer_view(state, key, self._views(key))
        delta = m.Delta(
            table=self.table, epoch=self.epoch, version=version, ops=diff(group.view, new)
        )
        frames: dict[str, Frame] = {}
        for sink in list(group.sinks):
            frame = frames.get(sink.subprotocol)
            if frame is None:
                frame = frames[sink.subprotocol] = codec.encode(delta, sink.subprotocol)
            sink.deliver(frame)
        group.view, group.version = new, version

    async def attach(
        self,
        sink: Sink,
        key: int,
        resume: m.Resume | None,
        welcome: MakeWelcome,
        credential: str | None = None,
    ) -> None:
        """Add a session: queue its welcome and, when resuming, exactly the missing deltas.
        A seat session gives the hash of the token it presented (``credential``): once the
        game has started it must be the seat's token (it was checked before the runner was
        reached, but the seat may have been given up and taken again since)."""
        async with self.lock:
            if self.closed:
                raise TableError("table/damaged")
            if key != SPECTATORS:
                if self.tokens is not None and self.tokens.get(key) != credential:
                    raise TableError("auth/bad_token")
                if credential is not None:
                    self.credentials[sink] = credential
                if self.tokens is None:
                    self._arm_seat_check()
            group = self.groups.get(key)
            if group is None:
                target = self._target(key)
                state = self._state_at(target)
                assert state is not None
                group = self.groups[key] = Group(target, viewer_view(state, key, self._views(key)))
            backlog: list[m.Delta] = []
            resumed = (
                resume is not None
                and resume.epoch == self.epoch
                and resume.version <= group.version
                and self._state_at(resume.version) is not None
            )
            if resume is not None and resumed:
                before = viewer_view(self._state_at(resume.version), key)  # type: ignore[arg-type]
                for v in range(resume.version + 1, group.version + 1):
                    after = viewer_view(self._state_at(v), key)  # type: ignore[arg-type]
                    backlog.append(m.Delta(self.table, self.epoch, v, diff(before, after)))
                    before = after
                sink.deliver(
                    codec.encode(welcome(self.epoch, resume.version, None, True), sink.subprotocol)
                )
            else:
                sink.deliver(
                    codec.encode(
                        welcome(self.epoch, group.version, group.view, False), sink.subprotocol
                    )
                )
            for delta in backlog:
                sink.deliver(codec.encode(delta, sink.subprotocol))
            group.sinks.add(sink)

    def detach(self, sink: Sink) -> None:
        for group in self.groups.values():
            group.sinks.discard(sink)
        self.credentials.pop(sink, None)

    # --- seats given up ---------------------------------------------------------------------------

    def seat_left(self, seat: int, credential: str, spare: Sink | None = None) -> None:
        """This node handled a ``leave``: close the seat's sessions that presented that token
        (but ``spare``, the session that asked: it answers first, then closes itself)."""
        self._close_seats(lambda key, held: key == seat and held == credential, spare)

    def _close_stale_seats(self) -> None:
        tokens = self.tokens or {}
        self._close_seats(lambda key, held: tokens.get(key) != held)

    def _close_seats(self, stale: Callable[[int, str], bool], spare: Sink | None = None) -> None:
        for key, group in self.groups.items():
            if key == SPECTATORS:
                continue
            for sink in list(group.sinks):
                held = self.credentials.get(sink)
                if held is not None and sink is not spare and stale(key, held):
                    group.sinks.discard(sink)
                    del self.credentials[sink]
                    sink.close(4001, "auth/bad_token: the seat was given up")

    def _arm_seat_check(self) -> None:
        """Before the start, a seat given up on another node is noticed here within
        ``SEAT_CHECK_SECONDS`` (after the start, tokens never change: see ``_load_game``)."""
        if self._seat_check is not None or self.closed:
            return
        loop = asyncio.get_running_loop()
        self._seat_check = loop.call_later(
            SEAT_CHECK_SECONDS, lambda: loop.create_task(self._check_seats())
        )

    async def _check_seats(self) -> None:
        self._seat_check = None
        if self.closed or self.tokens is not None or not self.credentials:
            return
        with contextlib.suppress(StoreError, TableError):
            tokens = await self.lobby.token_hashes(self.table)
            if self.tokens is None:  # (the game may have been loaded meanwhile)
                self._close_seats(lambda key, held: tokens.get(key) != held)
        if self.tokens is None and self.credentials:
            self._arm_seat_check()

    @property
    def sessions(self) -> int:
        return sum(len(g.sinks) for g in self.groups.values())

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
            command = load(plain)
        except (KeyError, TypeError, ValueError) as exc:
            return Outcome("rejected", code="protocol/bad_field", message=f"command: {exc}")
        if isinstance(command, StartGame | ApplyDefault) or getattr(command, "seat", None) != seat:
            return Outcome("rejected", code="command/wrong_seat")
        if expected != self.version:
            return Outcome("stale", self.version, "command/stale_version")
        rng = await self._rng()
        if rng is None:
            return Outcome("rejected", code="rules/game_not_started")
        try:
            return command, decide(self.state, command, rng)
        except RuleViolation as exc:
            return Outcome("rejected", self.version, exc.code, exc.detail)

    async def _rng(self) -> Rng | None:
        """The game's generator (None before the start), loaded if the start was appended by
        another node and its loading failed then.  Under the lock."""
        if self.rng is None and self.state.status is not Status.NEW:
            await self._load_game()
        return self.rng

    async def default(self, seat: int) -> Outcome:
        """The server's timeout answer for a seat (rules.md §4.5.6)."""
        async with self.lock:
            rng = await self._rng()
            if rng is None:
                return Outcome("rejected", code="rules/game_not_started")
            command = ApplyDefault(seat)
            try:
                events = decide(self.state, command, rng)
            except RuleViolation as exc:
                return Outcome("rejected", self.version, exc.code, exc.detail)
            return await self._append(None, f"default:{self.version}:{seat}", command, events)

    async def _append(
        self, seat: int | None, key: str, command: Command, events: list[Event]
    ) -> Outcome:
        """Append under the lock; on a conflict catch up (the caller's decision is stale)."""
        started = time.perf_counter()
        result = await self.log.append(
            self.table, self.head, key, NewEntry(seat, command, tuple(events))
        )
        self.node.observe_append(result, time.perf_counter() - started)
        if isinstance(result, Appended):
            self._advance(events, result.head)
            return Outcome("accepted", result.head.version)
        if isinstance(result, Duplicate):
            return Outcome("duplicate", result.entry.version)
        assert isinstance(result, Conflict)
        for entry in await self.log.load(self.table, self.head):
            await self._apply(entry)
        if key == "start":
            return Outcome("accepted", self.version)
        return Outcome("stale", self.version, "command/stale_version")


def retry_delay(attempt: int) -> float:
    """Seconds before attempt ``attempt`` (1, 2, ...) of a server move that failed on Redis."""
    return float(min(5.0, 0.1 * 2**attempt))


def bot_policy(kind: str, seed: str) -> Any:
    from echoridge_client.policies import GreedyPolicy, RandomPolicy

    return GreedyPolicy(seed.encode()) if kind == "greedy" else RandomPolicy(seed.encode())


def command_name(plain: dict[str, Any]) -> str:
    """The type of a command, for logs (never its other fields)."""
    value = plain.get("type") if isinstance(plain, dict) else None
    return value if isinstance(value, str) and len(value) <= 32 else "?"
