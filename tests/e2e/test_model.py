"""A stateful model test over a real server and Redis (hypothesis ``RuleBasedStateMachine``).

Steps: seats join and the game starts; seats send legal commands, illegal ones and old
command ids again; viewers (two seats and a spectator) disconnect, reconnect, resume from good
and bad coordinates; the server is killed (kill -9) and started again on the same port.  After
every step each connected viewer's mirror, brought up to the table's version, equals the view
the engine gives that viewer at that version, folded from the log in Redis: it holds exactly
what that viewer may see, nothing else.

The short profile here runs in ``make test``; ``ECHORIDGE_MODEL_EXAMPLES=N`` runs more.
A failure hypothesis shrinks is kept as a regression test at the end of this module.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import random
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from websockets.exceptions import ConnectionClosed

from echoridge.store import EventStore
from echoridge.store.connection import client as redis_client
from echoridge.tables.runner import SPECTATORS, viewer_view
from echoridge_protocol import messages as m
from echoridge_rules import State, evolve
from tests.conftest import RedisServer
from tests.e2e.conftest import ServerProcess, start_server
from tests.net.wsclient import Client, Mirror, WsClientError

SEATS = 2
VIEWERS = (0, 1, SPECTATORS)
EXAMPLES = int(os.environ.get("ECHORIDGE_MODEL_EXAMPLES", "15"))
STEPS = 40
# Choices are drawn as plain numbers and taken modulo what there is to choose from: what there
# is depends on the game, which the server's random seed makes different in every run.
PICK = st.integers(0, 2**16)


T = TypeVar("T")


def choose(items: Sequence[T], pick: int) -> T:
    return items[pick % len(items)]


class Viewer:
    """One seat or the spectators: a connection (or none) and the mirror it keeps."""

    def __init__(self, key: int) -> None:
        self.key = key
        self.token: str | None = None
        self.client: Client | None = None
        self.stack: contextlib.AsyncExitStack | None = None
        self.mirror: Mirror | None = None
        self.accepted: dict[str, int] = {}  # command id -> the version it made


class TableModel(RuleBasedStateMachine):
    """One two-seat table, its three viewers and the server (see the module docstring)."""

    redis: RedisServer
    workdir: Path
    server: ServerProcess | None = None
    logs = itertools.count()

    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.store = EventStore(redis_client(self.redis.url))
        self.viewers = {key: Viewer(key) for key in VIEWERS}
        self.table = ""
        self.started = False
        self.restarts = 0
        self.rng = random.Random(0)

    def run(self, coroutine: Any) -> Any:
        return self.loop.run_until_complete(asyncio.wait_for(coroutine, 30))

    def teardown(self) -> None:
        for viewer in self.viewers.values():
            self.run(self._disconnect(viewer))
        self.run(self.store.redis.aclose())
        self.loop.close()

    # --- the server and the table -----------------------------------------------------------------

    @classmethod
    def the_server(cls) -> ServerProcess:
        if cls.server is None or cls.server.process.poll() is not None:
            port = [] if cls.server is None else ["--port", str(cls.server.port)]
            log = cls.workdir / f"server-{next(cls.logs)}.log"
            cls.server = start_server(cls.redis.url, log, "--decision-timeout", "0", *port)
        return cls.server

    @initialize()
    def create_table(self) -> None:
        async def create() -> str:
            async with Client.connect(self.the_server().url) as lobby:
                await lobby.hello()
                return (await lobby.create_table(SEATS)).table

        self.table = self.run(create())

    @precondition(lambda self: not self.started and self._free_seats())
    @rule()
    def join(self) -> None:
        async def join() -> m.Joined:
            async with Client.connect(self.the_server().url) as lobby:
                await lobby.hello()
                return await lobby.join(self.table, "p")

        joined = self.run(join())
        self.viewers[joined.seat].token = joined.token

    @precondition(lambda self: not self.started and not self._free_seats())
    @rule()
    def start(self) -> None:
        async def start() -> m.Result:
            async with Client.connect(self.the_server().url) as lobby:
                await lobby.hello()
                token = self.viewers[0].token
                assert token is not None
                return await lobby.start(self.table, token)

        result = self.run(start())
        assert (result.outcome, result.version) == ("accepted", 1)
        self.started = True

    def _free_seats(self) -> list[int]:
        return [s for s in range(SEATS) if self.viewers[s].token is None]

    @precondition(lambda self: self.restarts < 1)
    @rule()
    def kill_and_restart_the_server(self) -> None:
        server = self.the_server()
        server.kill()
        for viewer in self.viewers.values():  # their connections die with it
            self.run(self._disconnect(viewer))
        self.restarts += 1
        self.the_server()

    # --- viewers ----------------------------------------------------------------------------

    def _can_connect(self, viewer: Viewer) -> bool:
        return viewer.client is None and (viewer.key == SPECTATORS or viewer.token is not None)

    async def _connect(self, viewer: Viewer, resume: m.Resume | bool | None) -> m.Welcome:
        stack = contextlib.AsyncExitStack()
        client = await stack.enter_async_context(
            Client.connect(self.the_server().url, mirror=viewer.mirror)
        )
        try:
            if viewer.key == SPECTATORS:
                welcome = await client.hello(table=self.table, spectate=True, resume=resume)
            else:
                welcome = await client.hello(table=self.table, token=viewer.token, resume=resume)
        except BaseException:
            await stack.aclose()
            raise
        viewer.client, viewer.stack, viewer.mirror = client, stack, client.mirror
        return welcome

    async def _disconnect(self, viewer: Viewer) -> None:
        if viewer.stack is not None:
            with contextlib.suppress(Exception):
                await viewer.stack.aclose()
        viewer.client = viewer.stack = None

    def _connectable(self, resumable: bool = False) -> list[Viewer]:
        return [
            v
            for v in self.viewers.values()
            if self._can_connect(v) and (v.mirror is not None or not resumable)
        ]

    def _connected(self, seats_only: bool = False) -> list[Viewer]:
        return [
            v
            for v in self.viewers.values()
            if v.client is not None and v.mirror is not None and not (seats_only and v.key < 0)
        ]

    @precondition(lambda self: self._connectable())
    @rule(pick=PICK)
    def connect_fresh(self, pick: int) -> None:
        viewer = choose(self._connectable(), pick)
        viewer.mirror = None
        welcome = self.run(self._connect(viewer, None))
        assert not welcome.resumed

    @precondition(lambda self: self._connectable(resumable=True))
    @rule(pick=PICK)
    def resume_from_where_it_was(self, pick: int) -> None:
        viewer = choose(self._connectable(resumable=True), pick)
        assert viewer.mirror is not None
        was = viewer.mirror.version
        welcome = self.run(self._connect(viewer, True))
        # within the history the server keeps: exactly the missing deltas
        assert welcome.resumed and welcome.version == was

    @precondition(lambda self: self._connectable(resumable=True))
    @rule(pick=PICK, epoch=st.integers(-1, 2), ahead=st.integers(1, 10**6))
    def resume_from_bad_coordinates(self, pick: int, epoch: int, ahead: int) -> None:
        viewer = choose(self._connectable(resumable=True), pick)
        assert viewer.mirror is not None
        # (ahead of the table, or of another epoch: a version the table is at or has passed,
        # of the right epoch, is a claim the server may take at its word)
        table = self.run(self.store.head(self.table)).version
        point = m.Resume(viewer.mirror.epoch + epoch, table + ahead)
        if epoch != 0:
            point = m.Resume(max(0, viewer.mirror.epoch + epoch), viewer.mirror.version)
        welcome = self.run(self._connect(viewer, point))
        assert not welcome.resumed and welcome.view is not None

    @precondition(lambda self: self._connected())
    @rule(pick=PICK)
    def disconnect(self, pick: int) -> None:
        self.run(self._disconnect(choose(self._connected(), pick)))

    # --- commands ---------------------------------------------------------------------------

    # (Preconditions look at the model only, never at the game: hypothesis replays a sequence
    # of steps, and the game differs from run to run.  A step with nothing to do does nothing.)

    @precondition(lambda self: self._connected(seats_only=True))
    @rule(pick=PICK)
    def send_a_legal_command(self, pick: int) -> None:
        players = [v for v in self._connected(seats_only=True) if v.mirror and v.mirror.legal]
        if not players:
            return
        viewer = choose(players, pick)
        assert viewer.client is not None and viewer.mirror is not None
        command_id = f"c-{pick:05d}-{len(viewer.accepted)}-{viewer.key}"
        result = self.run(viewer.client.command(choose(viewer.mirror.legal, pick), id=command_id))
        assert result.outcome == "accepted", result
        assert result.version is not None
        viewer.accepted[command_id] = result.version

    @precondition(lambda self: self._connected(seats_only=True))
    @rule(picks=st.lists(PICK, min_size=1, max_size=25))
    def play_a_while(self, picks: list[int]) -> None:
        """Several legal commands in a row (the game gets somewhere: decisions, the end)."""
        for pick in picks:
            self.send_a_legal_command(pick)
            self.run(self._check_mirrors())

    @precondition(lambda self: self._connected(seats_only=True))
    @rule(pick=PICK)
    def send_an_illegal_command(self, pick: int) -> None:
        viewer = choose(self._connected(seats_only=True), pick)
        assert viewer.client is not None and viewer.mirror is not None
        command = {"type": "arrest", "seat": viewer.key}
        if command in viewer.mirror.legal:
            # well formed (SPEC §5.4: a path off the board is a protocol error), but no road
            command = {"type": "drive", "seat": viewer.key, "path": [[1, 1], [5, 5]]}
        before = self.run(self.store.head(self.table)).version
        result = self.run(viewer.client.command(command, id=f"bad-{pick}"))
        assert result.outcome == "rejected", result
        assert self.run(self.store.head(self.table)).version == before

    @precondition(lambda self: self._connected(seats_only=True))
    @rule(pick=PICK)
    def send_an_old_command_id_again(self, pick: int) -> None:
        senders = [v for v in self._connected(seats_only=True) if v.accepted]
        if not senders:
            return
        viewer = choose(senders, pick)
        assert viewer.client is not None and viewer.mirror is not None
        command_id = choose(sorted(viewer.accepted), pick)
        command = choose([*viewer.mirror.legal, {"type": "proceed", "seat": viewer.key}], pick)
        result = self.run(viewer.client.command(command, id=command_id))
        assert (result.outcome, result.version) == ("duplicate", viewer.accepted[command_id])

    # --- the invariant ------------------------------------------------------------------------

    @invariant()
    def every_mirror_is_the_engine_s_view_for_its_viewer(self) -> None:
        if not self.table:
            return
        self.run(self._check_mirrors())

    async def _check_mirrors(self) -> None:
        state, version = State(), 0
        for entry in await self.store.load(self.table):
            for event in entry.events:
                state = evolve(state, event)
            version = entry.version
        for viewer in self.viewers.values():
            client = viewer.client
            if client is None:
                continue
            try:
                await client.until_version(version, timeout=10)
            except (ConnectionClosed, WsClientError) as exc:
                raise AssertionError(f"viewer {viewer.key} lost its session: {exc}") from exc
            assert viewer.mirror is not None
            assert viewer.mirror.version == version
            expected = viewer_view(state, viewer.key)
            assert viewer.mirror.view == expected, f"viewer {viewer.key} at version {version}"
            if viewer.key == SPECTATORS:
                assert viewer.mirror.view.get("you") is None


@pytest.fixture
def model(redis_server: RedisServer, tmp_path: Path) -> Iterator[type[TableModel]]:
    TableModel.redis = redis_server
    TableModel.workdir = tmp_path
    TableModel.server = None
    yield TableModel
    if TableModel.server is not None:
        TableModel.server.stop()


def test_the_table_model_holds_over_a_real_server(model: type[TableModel]) -> None:
    run_state_machine_as_test(
        model,
        settings=settings(
            max_examples=EXAMPLES,
            stateful_step_count=STEPS,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        ),
    )
