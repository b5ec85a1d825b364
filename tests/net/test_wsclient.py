"""The end-to-end tests' websocket client, without the game server: ``Mirror`` with hand-made and
real deltas, ``FrameLog``, and ``Client`` against small scripted websocket servers."""

from __future__ import annotations

import asyncio
import copy
import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.typing import Subprotocol

from echoridge.simulate import game_seed, play_random
from echoridge_protocol import codec, diff
from echoridge_protocol import messages as m
from echoridge_protocol.errors import DecodeError
from echoridge_rules import SPECTATOR, Seat, view
from tests.net.wsclient import Client, FrameLog, Mirror, MirrorError, Refused, WsClientError

SUBPROTOCOLS = [m.SUBPROTOCOL_MSGPACK, m.SUBPROTOCOL_JSON]
LIMITS = m.Limits(65536, 10, 10, 60)
TABLE = "t-1"
COFFEE = {"type": "coffee_break", "seat": 0}

VIEW: dict[str, Any] = {
    "status": "playing",
    "turn": {"seat": 0, "path": []},
    "you": {"seat": 0, "decision": None, "legal": [{"type": "arrest", "seat": 0}]},
    "log": ["started"],
}


def welcome(
    version: int = 3,
    view: dict[str, Any] | None = None,
    *,
    session: m.SessionKind = "seat",
    epoch: int = 1,
    resumed: bool = False,
) -> m.Welcome:
    if session == "lobby":
        return m.Welcome("echoridge.v2", "fake/0", (), LIMITS, "lobby", False)
    return m.Welcome(
        protocol="echoridge.v2",
        server="fake/0",
        features=("lobby", "resume"),
        limits=LIMITS,
        session=session,
        resumed=resumed,
        table=TABLE,
        seat=0 if session == "seat" else None,
        epoch=epoch,
        version=version,
        view=None if resumed else copy.deepcopy(VIEW if view is None else view),
    )


def delta(version: int, ops: list[Any], epoch: int = 1, table: str = TABLE) -> m.Delta:
    return m.Delta(table=table, epoch=epoch, version=version, ops=ops)


@functools.cache
def game_views(seat: int = 0, players: int = 2) -> tuple[dict[str, Any], ...]:
    """A real game's first views for one viewer (-1: a spectator), indexed by version (index 0,
    the table before the start, is a stand-in)."""
    viewer = Seat(seat) if seat >= 0 else SPECTATOR
    views: list[dict[str, Any]] = [{"status": "new", "you": None}]
    for _, _, state in play_random(players, game_seed(5, 0)):
        views.append(view(state, viewer))
        if len(views) > 40:
            break
    return tuple(views)


# --- Mirror with hand-made deltas ----------------------------------------------------------------


def test_mirror_from_a_welcome() -> None:
    mirror = Mirror.from_welcome(welcome(3))
    assert (mirror.table, mirror.epoch, mirror.version) == (TABLE, 1, 3)
    assert mirror.view == VIEW
    assert mirror.legal == [{"type": "arrest", "seat": 0}]
    assert mirror.decision is None
    assert mirror.status == "playing"
    assert mirror.resume_point() == m.Resume(epoch=1, version=3)
    assert len(mirror.frames) == 0


def test_mirror_applies_deltas_in_order() -> None:
    w = welcome(3)
    before = copy.deepcopy(w.view)
    mirror = Mirror.from_welcome(w)
    mirror.apply(delta(4, [["set", ["turn", "seat"], 1], ["push", ["log"], ["drove"]]]))
    mirror.apply(delta(5, []))  # an empty delta still advances the version
    mirror.apply(
        delta(
            6,
            [
                ["set", ["you", "legal", 0, "type"], "proceed"],
                ["set", ["you", "decision"], {"kind": "pick_slot"}],
                ["del", ["status"]],
                ["trim", ["log"], 1],
            ],
        )
    )
    assert mirror.version == 6 and mirror.applied == 3
    assert mirror.view == {
        "turn": {"seat": 1, "path": []},
        "you": {
            "seat": 0,
            "decision": {"kind": "pick_slot"},
            "legal": [{"type": "proceed", "seat": 0}],
        },
        "log": ["started"],
    }
    assert mirror.legal == [{"type": "proceed", "seat": 0}]
    assert mirror.decision == {"kind": "pick_slot"}
    assert mirror.status is None
    assert w.view == before  # the welcome's view was not changed under the test's feet


@pytest.mark.parametrize(
    ("bad", "match"),
    [
        (delta(5, []), "to version 5, mirror at version 3"),
        (delta(3, []), "to version 3, mirror at version 3"),
        (delta(4, [], epoch=2), "epoch 2, mirror at epoch 1"),
        (delta(4, [], table="t-2"), "table t-2"),
        (delta(4, [["del", ["nope"]]]), "no key 'nope'"),
        (delta(4, [["set", ["log", 5], "x"]]), "index 5 outside"),
        (delta(4, [["set", [], [1, 2]]]), "not a map"),
    ],
)
def test_mirror_refuses_deltas_that_do_not_follow_or_apply(bad: m.Delta, match: str) -> None:
    mirror = Mirror.from_welcome(welcome(3))
    with pytest.raises(MirrorError, match=match):
        mirror.apply(bad)
    assert mirror.version == 3 and mirror.view == VIEW and mirror.applied == 0


def test_mirror_take_a_resumed_welcome() -> None:
    mirror = Mirror.from_welcome(welcome(3))
    mirror.apply(delta(4, [["push", ["log"], ["x"]]]))
    mirror.take(welcome(4, resumed=True))
    assert mirror.version == 4 and mirror.view["log"] == ["started", "x"]
    with pytest.raises(MirrorError, match="resumed at epoch 1 version 3"):
        mirror.take(welcome(3, resumed=True))
    with pytest.raises(MirrorError, match="resumed at epoch 2 version 4"):
        mirror.take(welcome(4, epoch=2, resumed=True))


def test_mirror_take_a_fresh_welcome() -> None:
    mirror = Mirror.from_welcome(welcome(3))
    mirror.take(welcome(9, {"status": "over", "you": None}, epoch=2))
    assert (mirror.epoch, mirror.version) == (2, 9)
    assert mirror.view == {"status": "over", "you": None}
    assert mirror.legal == [] and mirror.you is None


def test_mirror_needs_a_view() -> None:
    with pytest.raises(MirrorError, match="resumed"):
        Mirror.from_welcome(welcome(3, resumed=True))
    with pytest.raises(MirrorError, match="lobby welcome without a view"):
        Mirror.from_welcome(welcome(session="lobby"))


def test_spectator_mirror_has_no_legal_commands() -> None:
    w = welcome(2, {"status": "playing", "you": None}, session="spectator")
    mirror = Mirror.from_welcome(w)
    assert mirror.you is None and mirror.legal == [] and mirror.decision is None


@pytest.mark.parametrize("subprotocol", SUBPROTOCOLS)
@pytest.mark.parametrize("seat", [0, 1, -1])
def test_mirror_follows_a_real_game_through_the_codec(subprotocol: str, seat: int) -> None:
    views = game_views(seat)
    first = m.Welcome(
        "echoridge.v2", "fake/0", (), LIMITS, "seat" if seat >= 0 else "spectator", False,
        table=TABLE, seat=seat if seat >= 0 else None, epoch=1, version=1, view=views[1],
    )
    frames = FrameLog()
    received = codec.decode_server(codec.encode(first, subprotocol), subprotocol)
    assert isinstance(received, m.Welcome)
    mirror = Mirror.from_welcome(received, frames=frames)
    for version in range(2, len(views)):
        old, new = views[version - 1], views[version]
        frame = codec.encode(delta(version, diff(old, new)), subprotocol)
        received = codec.decode_server(frame, subprotocol)
        assert isinstance(received, m.Delta)
        mirror.apply(received)
        assert mirror.view == new
    assert mirror.version == len(views) - 1
    assert len(frames) == 0  # frames are recorded by a Client, not by apply
    if seat >= 0:
        assert mirror.legal == views[-1]["you"]["legal"]
    else:
        assert mirror.legal == []


# --- FrameLog ------------------------------------------------------------------------------------


def test_frame_log_contains_in_both_encodings() -> None:
    join = m.Joined(id="r1", table=TABLE, seat=1, token="tok-ABC")
    created = m.Created(id="r2", table=TABLE, server_seed_commit=bytes(range(32)))
    log = FrameLog(codec.encode(x, s) for x in (join, created) for s in SUBPROTOCOLS)
    assert len(log) == 4
    assert log.find("tok-ABC") == [0, 1]
    assert log.find(bytes(range(32))) == [2, 3]
    assert log.contains("r2") and not log.contains("tok-XYZ") and not log.contains(b"\xff\xfe")
    plain = log.plain()
    assert plain[0] == plain[1] == codec.to_plain(join)
    assert plain[3]["server_seed_commit"] == bytes(range(32)).hex()


def test_frame_log_walk_visits_every_key_and_value() -> None:
    msg = delta(4, [["set", ["you", "hand"], ["S01", {"S02": [True]}]]])
    log = FrameLog([codec.encode(msg, m.SUBPROTOCOL_JSON)])
    seen = list(log.walk())
    values = [v for _, _, v in seen]
    assert "S01" in values and "S02" in values and True in values and "hand" in values
    assert (0, ("ops", 0, 2, 1, "S02", 0), True) in seen
    assert all(i == 0 for i, _, _ in seen)


# --- Client against scripted servers -------------------------------------------------------------

Handler = Callable[[ServerConnection], Awaitable[None]]


@asynccontextmanager
async def fake_server(handler: Handler) -> AsyncIterator[str]:
    async with serve(
        handler, "127.0.0.1", 0, subprotocols=[Subprotocol(s) for s in SUBPROTOCOLS]
    ) as server:
        port = server.sockets[0].getsockname()[1]
        yield f"ws://127.0.0.1:{port}/ws"


class Peer:
    """The server side of one connection, speaking the codec."""

    def __init__(self, ws: ServerConnection) -> None:
        self.ws = ws
        assert ws.subprotocol is not None
        self.sub: str = ws.subprotocol

    async def recv(self) -> m.ClientMessage:
        return codec.decode_client(await self.ws.recv(), self.sub)

    async def send(self, *messages: m.ServerMessage) -> None:
        for message in messages:
            await self.ws.send(codec.encode(message, self.sub))

    async def bye(self, code: int, reason: str = "") -> None:
        await self.send(m.ServerBye(code=code, reason=reason))
        await self.ws.close(code, reason)


@pytest.mark.parametrize("subprotocol", SUBPROTOCOLS)
async def test_lobby_hello_and_replies_matched_by_id(subprotocol: str) -> None:
    async def handler(ws: ServerConnection) -> None:
        peer = Peer(ws)
        hello = await peer.recv()
        assert isinstance(hello, m.Hello) and hello.session_kind() == "lobby"
        await peer.send(welcome(session="lobby"))
        request = await peer.recv()
        assert isinstance(request, m.ListTables)
        await peer.send(
            m.ErrorMessage(code="protocol/malformed", message="not for you"),
            m.Result(id="someone-else", outcome="accepted", version=1),
            m.Tables(id=request.id, tables=()),
        )
        await ws.wait_closed()

    async with fake_server(handler) as url, Client.connect(url, subprotocol) as c:
        assert c.subprotocol == subprotocol
        w = await c.hello()
        assert w.session == "lobby" and c.mirror is None
        tables = await c.list_tables()
        assert tables.tables == ()
        skipped = [await c.recv(), await c.recv()]
        assert [type(x) for x in skipped] == [m.ErrorMessage, m.Result]
        assert len(c.frames) == 4
        with pytest.raises(TimeoutError):
            await c.recv(timeout=0.05)


@pytest.mark.parametrize("subprotocol", SUBPROTOCOLS)
async def test_seat_session_keeps_the_mirror_current(subprotocol: str) -> None:
    views = game_views(0)

    async def handler(ws: ServerConnection) -> None:
        peer = Peer(ws)
        hello = await peer.recv()
        assert isinstance(hello, m.Hello) and hello.token == "tok-0"
        await peer.send(welcome(2, views[2]))
        await peer.send(*(delta(v + 1, diff(views[v], views[v + 1])) for v in (2, 3, 4)))
        command = await peer.recv()
        assert isinstance(command, m.SendCommand)
        assert command.expected == 5 and command.command == COFFEE
        # the delta first, then the result: the client must not lose the delta
        await peer.send(delta(6, diff(views[5], views[6])))
        await peer.send(m.Result(id=command.id, outcome="accepted", version=6))
        await ws.wait_closed()

    async with fake_server(handler) as url, Client.connect(url, subprotocol) as c:
        w = await c.hello(table=TABLE, token="tok-0")
        assert w.session == "seat" and c.mirror is not None
        await c.until_version(5)
        assert c.mirror.view == views[5] and c.mirror.version == 5
        result = await c.command(COFFEE)
        assert result.outcome == "accepted" and result.version == 6
        assert c.mirror.version == 6 and c.mirror.view == views[6]
        late = await c.recv()  # the delta read while waiting for the result is still there
        assert isinstance(late, m.Delta) and late.version == 6
        assert len(c.frames) == 1 + 3 + 2
        assert c.mirror.frames.frames == c.frames.frames


async def test_resume_with_the_same_mirror_and_frame_log() -> None:
    views = game_views(1)
    hellos: list[m.Hello] = []

    async def handler(ws: ServerConnection) -> None:
        peer = Peer(ws)
        hello = await peer.recv()
        assert isinstance(hello, m.Hello)
        hellos.append(hello)
        if hello.resume is None:
            await peer.send(welcome(2, views[2]), delta(3, diff(views[2], views[3])))
        else:
            start = hello.resume.version
            await peer.send(welcome(start, resumed=True))
            await peer.send(
                *(delta(v + 1, diff(views[v], views[v + 1])) for v in range(start, start + 2))
            )
        await ws.wait_closed()

    async with fake_server(handler) as url:
        async with Client.connect(url) as first:
            log = first.record_frames()
            await first.hello(table=TABLE, token="tok-1")
            await first.until_version(3)
            mirror = first.mirror
            assert mirror is not None
        async with Client.connect(url, m.SUBPROTOCOL_JSON, mirror=mirror, record=log) as second:
            w = await second.hello(table=TABLE, token="tok-1", resume=True)
            assert w.resumed and second.mirror is mirror
            await second.until_version(5)
    assert hellos[1].resume == m.Resume(epoch=1, version=3)
    assert mirror.version == 5 and mirror.view == views[5]
    assert len(log) == len(mirror.frames) == 2 + 3
    assert log.frames == mirror.frames.frames
    assert isinstance(log.frames[0], bytes) and isinstance(log.frames[-1], str)


async def test_a_refused_hello_then_bye_and_close_code() -> None:
    async def handler(ws: ServerConnection) -> None:
        peer = Peer(ws)
        await peer.recv()
        await peer.send(m.ErrorMessage(code="auth/bad_token", message="no such seat"))
        await peer.bye(4001, "unauthorized")

    async with fake_server(handler) as url, Client.connect(url) as c:
        with pytest.raises(Refused) as refused:
            await c.hello(table=TABLE, token="wrong")
        assert refused.value.code == "auth/bad_token"
        assert await c.closed() == 4001
        bye = await c.recv()
        assert isinstance(bye, m.ServerBye) and bye.code == 4001
        assert c.mirror is None


async def test_client_bye() -> None:
    async def handler(ws: ServerConnection) -> None:
        peer = Peer(ws)
        await peer.recv()
        await peer.send(welcome(session="lobby"))
        assert isinstance(await peer.recv(), m.ClientBye)
        await ws.close(1000)

    async with fake_server(handler) as url, Client.connect(url) as c:
        await c.hello()
        assert await c.bye("done") == 1000


@pytest.mark.parametrize(
    ("subprotocol", "frame", "code"),
    [
        (m.SUBPROTOCOL_MSGPACK, b"\xc1", "protocol/malformed"),
        (m.SUBPROTOCOL_MSGPACK, "text", "protocol/wrong_frame"),
        (m.SUBPROTOCOL_JSON, '{"type": "list_tables", "id": "r9"', "protocol/malformed"),
        (m.SUBPROTOCOL_JSON, '{"type": "list_tables", "id": 7}', "protocol/bad_field"),
    ],
)
async def test_send_raw_frames(subprotocol: str, frame: bytes | str, code: str) -> None:
    async def handler(ws: ServerConnection) -> None:
        peer = Peer(ws)
        try:
            await peer.recv()
        except DecodeError as exc:
            await peer.send(m.ErrorMessage(code=exc.code, message=exc.message, id=exc.request_id))
        await ws.wait_closed()

    async with fake_server(handler) as url, Client.connect(url, subprotocol) as c:
        await c.send_raw(frame)
        error = await c.expect(m.ErrorMessage)
        assert error.code == code


async def test_a_delta_out_of_step_raises() -> None:
    async def handler(ws: ServerConnection) -> None:
        peer = Peer(ws)
        await peer.recv()
        await peer.send(welcome(3), delta(5, []))
        await ws.wait_closed()

    async with fake_server(handler) as url, Client.connect(url) as c:
        await c.hello(table=TABLE, token="t")
        with pytest.raises(MirrorError, match="to version 5, mirror at version 3"):
            await c.until_version(5)


async def test_expect_and_timeouts() -> None:
    async def handler(ws: ServerConnection) -> None:
        peer = Peer(ws)
        await peer.recv()
        await peer.send(welcome(session="lobby"), m.Result(id="x", outcome="accepted"))
        await ws.wait_closed()  # and never answers anything again

    async with fake_server(handler) as url, Client.connect(url) as c:
        await c.hello()
        with pytest.raises(WsClientError, match="expected tables"):
            await c.expect(m.Tables)
        with pytest.raises(TimeoutError):
            await c.list_tables(timeout=0.1)
        with pytest.raises(WsClientError, match="needs a mirror"):
            await c.command({"type": "arrest", "seat": 0})
        assert await c.drain(quiet=0.05) == []


async def test_drain_returns_kept_and_arriving_messages() -> None:
    async def handler(ws: ServerConnection) -> None:
        peer = Peer(ws)
        await peer.recv()
        await peer.send(welcome(session="lobby"))
        request = await peer.recv()
        assert isinstance(request, m.ListTables)
        await peer.send(m.Result(id="a", outcome="accepted"), m.Tables(id=request.id, tables=()))
        await asyncio.sleep(0.01)
        await peer.send(m.Result(id="b", outcome="accepted"))
        await peer.bye(1001, "going away")

    async with fake_server(handler) as url, Client.connect(url) as c:
        await c.hello()
        await c.list_tables()
        drained = await c.drain(quiet=0.5)
        assert [getattr(x, "id", None) for x in drained] == ["a", "b", None]
        assert isinstance(drained[-1], m.ServerBye)
        with pytest.raises(ConnectionClosed):
            await c.recv()
