"""A table runner's viewers: the sessions of each seat and of the spectators, the views they
were last sent, the deltas that bring them up to date (fan-out), and the seat sessions whose
token was given up.

Fan-out never awaits a connection: a ``Sink`` only queues.  Each distinct viewer (a seat, or
the spectators, who trail by the table's spectator delay) is a ``Group``: one view, one diff
and one encode per subprotocol per version, the same frame to every session of the group.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from echoridge.store import StoreError
from echoridge.tables.errors import TableError
from echoridge_protocol import codec, diff
from echoridge_protocol import messages as m
from echoridge_protocol.delta import diff_sections
from echoridge_rules import EVERYONE, SPECTATOR, Seat, State, Status, ViewCache, Viewer, view
from echoridge_rules.log import Entry, Told, entries_for

if TYPE_CHECKING:
    from collections import deque

    from echoridge.tables.chat import TableChat
    from echoridge.tables.clocknews import ClockNews
    from echoridge.tables.lobby import Lobby
    from echoridge.tables.presence import TablePresence
    from echoridge.tables.rematch import TableRematch

HISTORY = 160  # states kept for resuming sessions (≥ the largest spectator delay + margin)
SEAT_CHECK_SECONDS = 2.0  # before the start: how often seat sessions' tokens are checked
SPECTATORS = -1  # the viewer key of the spectators (seats are 0..3)

Frame = bytes | str
MakeWelcome = Callable[
    [int, int, dict[str, Any] | None, bool, tuple[Entry, ...] | None], m.Welcome
]


class Sink(Protocol):
    """A connection as the runner sees it: it only ever queues, never blocks."""

    subprotocol: str

    def deliver(self, frame: Frame) -> None: ...

    def close(self, code: int, reason: str, *, drop: bool = False) -> None: ...


class Encoded:
    """One message for many sessions: encoded at most once per subprotocol, the same frame
    object queued for each (``send`` never awaits)."""

    __slots__ = ("frames", "message")

    def __init__(self, message: m.ServerMessage) -> None:
        self.message = message
        self.frames: dict[str, Frame] = {}

    def __call__(self, subprotocol: str) -> Frame:
        frame = self.frames.get(subprotocol)
        if frame is None:
            frame = self.frames[subprotocol] = codec.encode(self.message, subprotocol)
        return frame

    def send(self, sinks: Iterable[Sink]) -> None:
        """Queue the frame for each sink; sinks of one kind that can take a frame together
        (``deliver_all``: the sessions, one ``broadcast()``) get it so, per subprotocol."""
        batches: dict[tuple[type, str], list[Sink]] = {}
        for sink in list(sinks):
            if hasattr(sink, "deliver_all"):
                batches.setdefault((type(sink), sink.subprotocol), []).append(sink)
            else:
                sink.deliver(self(sink.subprotocol))
        for (kind, subprotocol), batch in batches.items():
            kind.deliver_all(batch, self(subprotocol))  # type: ignore[attr-defined]


@dataclass
class Group:
    """Every connection of one viewer (one seat, or the spectators), at one version."""

    version: int
    view: dict[str, Any]
    sinks: set[Sink] = field(default_factory=set)


def viewer_view(state: State, key: int, cache: ViewCache | None = None) -> dict[str, Any]:
    if state.status is Status.NEW or key == SPECTATORS:
        return view(state, SPECTATOR, cache)
    return view(state, Seat(key), cache)


def log_viewer(state: State, key: int) -> Viewer:
    """Whom the log entries of the version that made ``state`` are for: once the game is over,
    everyone sees everything (the last version's accusations and every entry of a welcome)."""
    if state.status is Status.OVER:
        return EVERYONE
    if state.status is Status.NEW or key == SPECTATORS:
        return SPECTATOR
    return Seat(key)


class Viewers:
    """The viewer side of ``TableRunner`` (runner.py), which holds the state it reads."""

    table: str
    lobby: Lobby
    lock: asyncio.Lock
    closed: bool
    epoch: int
    state: State
    meta: dict[str, str]
    history: deque[tuple[int, State]]
    told: list[tuple[Told, ...]]
    groups: dict[int, Group]
    views: ViewCache
    delayed_views: ViewCache
    tokens: dict[int, str] | None
    credentials: dict[Sink, str]
    presence: TablePresence | None
    clock_news: ClockNews
    chat: TableChat
    rematch: TableRematch
    _seat_check: asyncio.TimerHandle | None

    if TYPE_CHECKING:

        @property
        def version(self) -> int: ...

        def _seat_attached(self, seat: int) -> None: ...

    def _sinks(self) -> Iterator[Sink]:
        """Every session of the table on this node."""
        for group in self.groups.values():
            yield from group.sinks

    def _close_all(self, code: int, reason: str) -> None:
        for group in self.groups.values():
            for sink in group.sinks:
                sink.close(code, reason, drop=True)
        self.groups.clear()
        if self.presence is not None:
            self.presence.changed(self.groups)

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
        shared: dict[tuple[str, int, int], list[Any]] = {}  # the sections' ops, this round
        frames: dict[Any, Encoded] = {}  # its deltas, by what they are made of
        for key, group in self.groups.items():
            target = self._target(key)
            while group.version < target:
                state = self._state_at(group.version + 1)
                if state is None:  # fell out of the history: let the sessions resync
                    for sink in group.sinks:
                        sink.close(4011, "resync", drop=True)
                    group.sinks.clear()
                    break
                self._step(key, group, group.version + 1, state, shared, frames)

    def _entries(self, key: int, version: int, state: State) -> tuple[Entry, ...] | None:
        """A delta's log: the entries of ``version`` (which made ``state``) for this viewer."""
        return tuple(entries_for(self.told[version], log_viewer(state, key))) or None

    def _log(self, key: int, version: int) -> tuple[Entry, ...]:
        """A welcome's log: every entry up to ``version`` as this viewer may know them (all of
        them, whole, once the game is over)."""
        state = self._state_at(version)
        viewer = log_viewer(state, key) if state is not None else SPECTATOR
        if viewer is EVERYONE:
            every = (t for said in self.told[: version + 1] for t in said)
            return tuple(entries_for(every, viewer))
        out: list[Entry] = []
        for said in self.told[1 : version + 1]:
            out.extend(entries_for(said, viewer))
        return tuple(out)

    def _step(
        self,
        key: int,
        group: Group,
        version: int,
        state: State,
        shared: dict[tuple[str, int, int], list[Any]],
        frames: dict[Any, Encoded],
    ) -> None:
        """Bring ``group`` to ``version``.  Viewers whose delta is the same (the same sections
        changed alike, as every seat's but the one that acted, and the same log entries) share
        one ``Encoded``: it is encoded once per subprotocol for all of them."""
        new = viewer_view(state, key, self._views(key))
        used: list[tuple[str, int, int]] = []
        ops = diff_sections(group.view, new, shared, used)  # public sections diffed once
        log = self._entries(key, version, state)
        # (a public entry is one object for every viewer, kept in self.told: ids name them)
        made_of = (version, tuple(used), None if log is None else tuple(map(id, log)))
        encoded = frames.get(made_of)
        if encoded is None:
            encoded = frames[made_of] = Encoded(m.Delta(self.table, self.epoch, version, ops, log))
        encoded.send(group.sinks)
        group.view, group.version = new, version
        if key == SPECTATORS:
            self.chat.released(version)  # the table's chat lines said at this version
            if version < self.version:  # kept behind: the clocks of then, with the view
                self.clock_news.trail(group.sinks, version)

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
                    state = self._state_at(v)
                    assert state is not None
                    after = viewer_view(state, key)
                    log = self._entries(key, v, state)
                    backlog.append(m.Delta(self.table, self.epoch, v, diff(before, after), log))
                    before = after
                hello = welcome(self.epoch, resume.version, None, True, None)
            else:
                log = self._log(key, group.version) or None  # (absent when empty, §3.2)
                hello = welcome(self.epoch, group.version, group.view, False, log)
            hello = self.chat.welcome(hello, key, sink)  # with the recent chat it may read
            sink.deliver(codec.encode(hello, sink.subprotocol))
            for delta in backlog:
                sink.deliver(codec.encode(delta, sink.subprotocol))
            self.chat.caught_up(sink, key, hello.version or 0, group.version)
            group.sinks.add(sink)
            self.clock_news.greet(sink, group.version, live=group.version == self.version)
            self.rematch.greet(sink)
            if self.presence is not None:
                self.presence.greet(sink)
                self.presence.changed(self.groups)
            if key != SPECTATORS:
                self._seat_attached(key)

    def detach(self, sink: Sink) -> None:
        for group in self.groups.values():
            group.sinks.discard(sink)
        self.credentials.pop(sink, None)
        self.chat.detach(sink)
        if self.presence is not None:
            self.presence.changed(self.groups)

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

    def table_closed(self) -> None:
        """The table was closed before its start (by its creator, or expired: tables/expiry.py):
        every session here is closed (4004)."""
        self._close_all(4004, "table/closed")
        self.closed = True

    def table_archived(self) -> None:
        """The finished game's live keys were released (tables/archiving.py): every session
        here is closed (4004); its transcript and record remain."""
        self._close_all(4004, "table/archived")
        self.closed = True

    def _arm_seat_check(self) -> None:
        """Before the start, a seat given up on another node, and the table closed there, are
        noticed here within ``SEAT_CHECK_SECONDS`` (after the start, tokens never change: see
        ``_load_game``)."""
        if self._seat_check is not None or self.closed:
            return
        loop = asyncio.get_running_loop()
        self._seat_check = loop.call_later(
            SEAT_CHECK_SECONDS, lambda: loop.create_task(self._check_seats())
        )

    async def _check_seats(self) -> None:
        self._seat_check = None
        if self.closed or self.tokens is not None or not self.sessions:
            return
        with contextlib.suppress(StoreError, TableError):
            if (await self.lobby.meta(self.table))["status"] == "closed":
                self.table_closed()  # by its creator or by expiry, on another node
                return
            if self.credentials:
                tokens = await self.lobby.token_hashes(self.table)
                if self.tokens is None:  # (the game may have been loaded meanwhile)
                    self._close_seats(lambda key, held: tokens.get(key) != held)
        if self.tokens is None and self.sessions:
            self._arm_seat_check()

    @property
    def sessions(self) -> int:
        return sum(len(g.sinks) for g in self.groups.values())
