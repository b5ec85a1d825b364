"""The SDK's game log over real server processes: every seat's and spectator's ``log`` is the
engine's log for that viewer (recomputed here from the finished game's transcript with
``echoridge_rules.log``), a seat's log holds its own commands' results (private ones whole, the
other seat's redacted), a spectator's log is the public form, and a session that drops and
resumes keeps its log whole (the missing deltas' entries appended, none lost or doubled)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest

from echoridge_client.lobby import Lobby
from echoridge_client.policies import GreedyPolicy, RandomPolicy
from echoridge_client.session import Seat, Spectator, TableSession
from echoridge_protocol import messages as m
from echoridge_protocol.fairness import game_seed
from echoridge_rules import EVERYONE, SPECTATOR, State, decide, evolve
from echoridge_rules.log import entries_for, told
from echoridge_rules.model import Status
from echoridge_rules.rng import Rng
from echoridge_rules.serial import load
from echoridge_rules.views import Seat as SeatViewer
from echoridge_rules.views import Viewer
from tests.e2e.conftest import ServerProcess, servers  # noqa: F401

Entry = dict[str, Any]
#: the fields a private entry's redacted form leaves out
SECRET_KINDS = {
    "token_peeked": ("value",),
    "trait_learned": ("trait",),
    "suspect_drawn": ("card",),
    "suspect_seen": ("card",),
    "force_gained": ("card",),
    "accused": ("suspect",),
}


@pytest.fixture
def server(servers: Callable[..., ServerProcess]) -> ServerProcess:  # noqa: F811
    return servers("--bot-delay", "0")


def plain(value: Any) -> Any:
    """As it travels: tuples are lists."""
    return json.loads(json.dumps(value))


def engine_logs(transcript: dict[str, Any], viewers: list[Viewer]) -> list[dict[int, list[Entry]]]:
    """Per viewer: version -> the entries the engine tells that viewer of that version (the
    server's ``log_viewer``: the version that ends the game is told whole to everyone)."""
    table = transcript["table"]
    seeds = [bytes.fromhex(s) for s in transcript["client_seeds"]]
    rng = Rng(game_seed(bytes.fromhex(transcript["server_seed"]), table, seeds), table)
    state = State()
    out: list[dict[int, list[Entry]]] = [{} for _ in viewers]
    for entry in transcript["entries"]:
        command = load(entry["command"])
        events = decide(state, command, rng)
        for e in events:
            state = evolve(state, e)
        said = told(state, command, events)
        over = state.status is Status.OVER  # the last version: whole for everyone
        for i, viewer in enumerate(viewers):
            entries = plain(entries_for(said, EVERYONE if over else viewer))
            if entries:
                out[i][entry["version"]] = entries
    return out


def flat(by_version: dict[int, list[Entry]]) -> list[Entry]:
    return [e for v in sorted(by_version) for e in by_version[v]]


class Recorded:
    """What ``on_log`` told a session: version -> the entries of that version."""

    def __init__(self, session: TableSession) -> None:
        self.by_version: dict[int, list[Entry]] = {}
        self.resets = 0
        self.batches = 0
        session.on_log = self.take

    def take(self, session: TableSession, entries: list[Entry], reset: bool) -> None:
        self.batches += 1
        if reset:
            self.resets += 1
            self.by_version = {}
            if entries:
                self.by_version[session.version] = list(entries)  # the welcome's, up to now
            return
        self.by_version.setdefault(session.version, []).extend(entries)


async def test_every_log_is_the_engines_for_its_viewer_across_drops_and_resumes(
    server: ServerProcess,
) -> None:
    lobby = await Lobby.connect(server.url)
    table = (await lobby.create(2)).table
    tokens = [(await lobby.join(table, name)).token for name in ("Ada", "Bo")]
    a = await Seat.sit(server.url, table, tokens[0])
    b = await Seat.sit(server.url, table, tokens[1], subprotocol=m.SUBPROTOCOL_JSON)
    watcher = await Spectator.watch(server.url, table)
    recorded = [Recorded(s) for s in (a, b, watcher)]
    assert a.log == [] and a.log_resets == 1  # nothing has happened yet
    await lobby.start(table, tokens[0])
    dropped = asyncio.Event()
    late: list[Spectator] = []

    going = asyncio.Event()
    going.set()

    async def drop_b_and_the_watcher() -> None:
        await b.until_version(12, 60)
        going.clear()  # hold the seats: a spectator arrives mid-game
        late.append(await Spectator.watch(server.url, table))
        assert late[0].status == "playing" and late[0].log and not late[0].log_whole
        going.set()
        for _ in range(3):  # cut the connections (no close handshake): they resume
            before = [session.reconnects for session in (b, watcher)]
            for session in (b, watcher):
                assert session.connection is not None
                session.connection.ws.transport.abort()
            async with asyncio.timeout(30):  # both back before the next cut (a busy machine)
                while any(s.reconnects == n for s, n in zip((b, watcher), before, strict=True)):
                    await asyncio.sleep(0.05)
        dropped.set()

    async def play(seat: Seat, policy: Any) -> None:
        while not seat.over:
            await going.wait()
            if not seat.legal:
                await seat.wait(lambda v=seat.version: seat.version != v or seat.over)
                continue
            result = await seat.act(policy.choose(seat.view, seat.legal))
            assert result.outcome != "rejected" or result.code == "command/stale_version"

    async def follow(session: TableSession) -> list[Entry]:
        return [entry async for entry in session.entries()]

    followed = asyncio.create_task(follow(a))
    saboteur = asyncio.create_task(drop_b_and_the_watcher())
    async with asyncio.timeout(120):
        await asyncio.gather(play(a, GreedyPolicy(1)), play(b, RandomPolicy(2)))
    await saboteur
    await watcher.wait(lambda: watcher.over, 30)
    assert dropped.is_set() and b.reconnects >= 3 and watcher.reconnects >= 3
    assert b.log_resets == 1 and watcher.log_resets == 1  # resumed every time: no fresh view

    transcript = await lobby.transcript(table)
    expected = engine_logs(transcript, [SeatViewer(0), SeatViewer(1), SPECTATOR, EVERYONE])
    for session, rec, want in zip((a, b, watcher), recorded, expected[:3], strict=True):
        for v in sorted(set(want) | set(rec.by_version)):
            assert rec.by_version.get(v) == want.get(v), (session.token, v)
        assert session.log == flat(want)
        assert rec.by_version == want  # and on_log told each version's entries in its turn
        assert not session.log_whole
    assert await asyncio.wait_for(followed, 10) == a.log

    # the late spectator's welcome carried the log so far; the deltas did the rest
    [fresh] = late
    await fresh.wait(lambda: fresh.over, 30)
    assert fresh.log == watcher.log and fresh.log_resets == 1

    # seats' own results: whole for them, redacted for the other seat and the spectator
    assert any(e["kind"] == "car_driven" and e["seat"] == 0 for e in a.log)
    for e in a.log:
        if e["kind"] == "backup_called":
            assert isinstance(e["success"], bool) and e["dice"] and e["risk"] >= 1
    assert any(0 in (e.get("to") or ()) for e in a.log), "a greedy seat learns something alone"
    assert len(a.log) == len(b.log) == len(watcher.log)  # the same facts, some redacted
    for mine, theirs, public in zip(a.log, b.log, watcher.log, strict=True):
        assert mine["kind"] == theirs["kind"] == public["kind"]
        if "to" not in public:
            assert mine == theirs == public
        if public["kind"] == "token_peeked" and public["to"] == [0]:
            assert "value" in mine and "value" not in theirs and "value" not in public
    last = max(recorded[2].by_version)  # the version that ends the game is told whole
    for version, entries in recorded[2].by_version.items():
        for e in entries:
            if version != last and e.get("to") and e["kind"] in SECRET_KINDS:
                assert not set(SECRET_KINDS[e["kind"]]) & set(e), e

    # a fresh welcome after the game: the whole log, as everyone may know it now
    after = await Spectator.watch(server.url, table)
    assert after.over and after.log_whole
    assert after.log == flat(expected[3])
    for session in (a, b, watcher, fresh, after):
        await session.close()
    await lobby.close()


def welcome(version: int, view: dict[str, Any] | None, log: list[Entry] | None) -> m.Welcome:
    return m.Welcome(
        protocol=m.PROTOCOL,
        server="test",
        features=(),
        limits=m.Limits(65536, 10, 10, 60),
        session="spectator",
        resumed=view is None,
        table="t-1",
        epoch=1,
        version=version,
        view=view,
        log=None if log is None else tuple(log),
    )


def delta(version: int, log: list[Entry] | None = None) -> m.Delta:
    ops = [["set", ["n"], version]]
    return m.Delta(table="t-1", epoch=1, version=version, ops=ops, log=log and tuple(log))


async def test_the_session_log_without_a_server() -> None:
    """A welcome's log, then each delta's appended (on_log told each batch); a resumed welcome
    keeps the log, a fresh one starts it again; ``entries()`` follows; presence is kept."""
    session = Spectator("ws://unused", "t-1", verify=False)
    told_: list[tuple[list[Entry], bool]] = []
    session.on_log = lambda s, entries, reset: told_.append((list(entries), reset))
    updates: list[int] = []
    session.on_update = lambda s: updates.append(s.version)
    one, two, three = ({"kind": "turn_began", "seat": 0, "number": n} for n in (1, 2, 3))

    await session._on_message(welcome(1, {"status": "playing"}, [one]))
    assert session.log == [one] and told_ == [([one], True)] and not session.log_whole
    session._welcomed = asyncio.get_running_loop().create_future()
    session._welcomed.set_result(None)
    follower = asyncio.create_task(anext(aiter(session.entries(1))))
    await session._on_message(delta(2, [two]))
    await session._on_message(delta(3))  # a version with nothing to tell
    assert session.log == [one, two] and told_[-1] == ([two], False) and len(told_) == 2
    assert await asyncio.wait_for(follower, 1) == two

    presence = m.Presence(table="t-1", seats=(m.SeatPresence(0, True, 5),), spectators=3)
    await session._on_message(presence)
    assert session.presence == presence and updates[-1] == 3

    session._welcomed = asyncio.get_running_loop().create_future()  # a resume
    await session._on_message(welcome(3, None, None))
    await session._on_message(delta(4, [three]))
    assert session.log == [one, two, three] and session.log_resets == 1

    session._welcomed = asyncio.get_running_loop().create_future()  # a fresh view, after the end
    await session._on_message(welcome(9, {"status": "over"}, [three]))
    assert session.log == [three] and session.log_whole and session.log_resets == 2
    assert told_[-1] == ([three], True)
    assert [e async for e in session.entries()] == [three]  # over: the iteration ends
