"""Sessions on a real server: reconnects, retries, stale versions, bad tokens, malformed frames."""

from __future__ import annotations

import asyncio
import contextlib
import random
import signal
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import pytest
from websockets.exceptions import ConnectionClosed

from echoridge_protocol import messages as m
from tests.e2e.conftest import ServerProcess
from tests.net.wsclient import Client, Mirror, Refused

BOTH = pytest.mark.parametrize("sub", [m.SUBPROTOCOL_MSGPACK, m.SUBPROTOCOL_JSON])


@dataclass
class Table:
    table: str
    tokens: list[str]


async def new_table(url: str, seats: int = 2, start: bool = True, **options: object) -> Table:
    async with Client.connect(url) as lobby:
        await lobby.hello()
        table = (await lobby.create_table(seats, **options)).table  # type: ignore[arg-type]
        tokens = [(await lobby.join(table, f"p{i}")).token for i in range(seats)]
        if start:
            await lobby.start(table, tokens[0])
        return Table(table, tokens)


@contextlib.asynccontextmanager
async def seated(
    url: str, t: Table, seat: int, sub: str = m.SUBPROTOCOL_MSGPACK
) -> AsyncIterator[Client]:
    async with Client.connect(url, sub) as client:
        await client.hello(table=t.table, token=t.tokens[seat])
        yield client


async def act(client: Client, rng: random.Random) -> m.Result:
    """Send one legal command (the mirror must be current)."""
    assert client.mirror is not None and client.mirror.legal
    command_id = f"c-{rng.getrandbits(64):016x}"  # unique across sessions of the seat
    result = await client.command(rng.choice(client.mirror.legal), id=command_id)
    assert result.outcome == "accepted", result
    assert result.version is not None
    await client.until_version(result.version)
    return result


async def whose_turn(clients: list[Client]) -> Client:
    """The client that may act, once every mirror has caught up with the latest version."""
    latest = max(c.mirror.version for c in clients if c.mirror is not None)
    for client in clients:
        await client.until_version(latest)
    for client in clients:
        if client.mirror is not None and client.mirror.legal:
            return client
    raise AssertionError("nobody may act")


async def test_reconnect_mid_turn_gets_exactly_the_missing_deltas(server: ServerProcess) -> None:
    url = server.url
    t = await new_table(url, seats=2)
    rng = random.Random(3)
    async with seated(url, t, 0) as a, seated(url, t, 1) as b:
        for client in (a, b):
            await client.until_version(1)
        for _ in range(6):
            await act(await whose_turn([a, b]), rng)
        # b drops while the game goes on
        assert b.mirror is not None
        kept = Mirror.from_welcome(
            m.Welcome(
                protocol=m.PROTOCOL,
                server="x",
                features=(),
                limits=m.Limits(1, 1, 1, 1),
                session="seat",
                resumed=False,
                table=t.table,
                seat=1,
                epoch=b.mirror.epoch,
                version=b.mirror.version,
                view=b.mirror.view,
            )
        )
        behind = b.mirror.version
    # only seat 0 can move while seat 1 is away: play seat 0's turns
    async with seated(url, t, 0) as a2:
        moved = 0
        while a2.mirror is not None and a2.mirror.legal and moved < 5:
            await act(a2, rng)
            moved += 1
        now = a2.mirror.version if a2.mirror is not None else behind
    async with Client.connect(url, mirror=kept) as back:
        welcome = await back.hello(table=t.table, token=t.tokens[1], resume=True)
        assert welcome.resumed and welcome.version == behind and welcome.view is None
        await back.until_version(now)
        assert kept.applied >= now - behind
        async with seated(url, t, 1) as fresh:  # replaces the resumed session (4009)
            assert fresh.mirror is not None and fresh.mirror.version == now
            assert fresh.mirror.view == kept.view  # the deltas rebuilt exactly the same view
        assert await back.closed() == 4009


async def test_a_spectator_resumes_against_its_delayed_view(server: ServerProcess) -> None:
    """SPEC.md §3.3: a spectator's resume point is measured against its own (delayed) view, not
    the table: from behind it gets exactly the deltas up to its delay; from a version the table
    has passed but its delay has not, a fresh view at the delayed version."""
    url = server.url
    t = await new_table(url, seats=2, spectator_delay=3)
    rng = random.Random(5)
    async with Client.connect(url) as early:
        await early.hello(table=t.table, spectate=True)
        assert early.mirror is not None and early.mirror.version == 0  # (table: 1, delay 3)
        kept = Mirror(t.table, early.mirror.epoch, 0, early.mirror.view)
    async with seated(url, t, 0) as a, seated(url, t, 1) as b:
        for client in (a, b):
            await client.until_version(1)
        for _ in range(4):
            await act(await whose_turn([a, b]), rng)
        await a.until_version(5)  # (one version a command)
    async with Client.connect(url, mirror=kept) as behind:
        welcome = await behind.hello(table=t.table, spectate=True, resume=True)
        assert welcome.resumed and welcome.version == 0 and welcome.view is None
        await behind.until_version(2)  # the missing deltas, up to the delayed view
        assert not any(isinstance(x, m.Delta) for x in await behind.drain(0.3))
    async with Client.connect(url) as ahead:
        resume = m.Resume(kept.epoch, 4)  # the table was there; the spectators' view was not
        welcome = await ahead.hello(table=t.table, spectate=True, resume=resume)
        assert not welcome.resumed and welcome.version == 2
        assert welcome.view == kept.view  # (the view the resumed deltas made)


async def test_a_retried_command_is_applied_once(server: ServerProcess) -> None:
    t = await new_table(server.url, seats=1)
    async with seated(server.url, t, 0) as me:
        await me.until_version(1)
        assert me.mirror is not None
        command = me.mirror.legal[0]
        first = await me.command(command, id="c-42", expected=1)
        assert first.outcome == "accepted" and first.version == 2
        await me.until_version(2)
        again = await me.command(command, id="c-42", expected=1)
        assert (again.outcome, again.version) == ("duplicate", 2)
        assert me.mirror.version == 2
    # and after a reconnect too
    async with seated(server.url, t, 0) as me:
        again = await me.command(command, id="c-42", expected=1)
        assert (again.outcome, again.version) == ("duplicate", 2)


async def test_a_stale_expected_version_is_refused(server: ServerProcess) -> None:
    t = await new_table(server.url, seats=1)
    async with seated(server.url, t, 0) as me:
        await me.until_version(1)
        assert me.mirror is not None
        await act(me, random.Random(1))
        stale = await me.command(me.mirror.legal[0], expected=1)
        assert (stale.outcome, stale.code, stale.version) == (
            "rejected",
            "command/stale_version",
            me.mirror.version,
        )
        ahead = await me.command(me.mirror.legal[0], expected=99)
        assert ahead.code == "command/stale_version"


async def test_a_command_for_another_seat_is_refused(server: ServerProcess) -> None:
    t = await new_table(server.url, seats=2)
    async with seated(server.url, t, 0) as a, seated(server.url, t, 1) as b:
        await a.until_version(1)
        await b.until_version(1)
        mover = await whose_turn([a, b])
        other = b if mover is a else a
        assert mover.mirror is not None and other.mirror is not None
        result = await other.command(mover.mirror.legal[0], expected=other.mirror.version)
        assert (result.outcome, result.code) == ("rejected", "command/wrong_seat")
        rules = await other.command(
            {"type": "coffee_break", "seat": other.mirror.view["you"]["seat"]},
            expected=other.mirror.version,
        )
        assert (rules.outcome, rules.code) == ("rejected", "rules/not_your_turn")


async def test_a_wrong_token_is_refused_and_closed(server: ServerProcess) -> None:
    t = await new_table(server.url, seats=1, start=False)
    async with Client.connect(server.url) as c:
        with pytest.raises(Refused) as refused:
            await c.hello(table=t.table, token="not-a-token-" + "x" * 20)
        assert refused.value.code == "auth/bad_token"
        assert await c.closed() == 4001
    async with Client.connect(server.url) as c:
        with pytest.raises(Refused) as refused:
            await c.hello(table="t-nosuchtable", token=t.tokens[0])
        assert refused.value.code == "table/not_found"
        assert await c.closed() == 4004


async def test_a_seat_cannot_also_spectate(server: ServerProcess) -> None:
    t = await new_table(server.url, seats=1)
    async with Client.connect(server.url) as c:
        with pytest.raises(Refused) as refused:
            await c.hello(table=t.table, token=t.tokens[0], spectate=True)
        assert refused.value.code == "auth/seat_and_spectate"
        assert await c.closed() in (4000, 4001)


async def test_private_tables_cannot_be_spectated(server: ServerProcess) -> None:
    t = await new_table(server.url, seats=1, public=False)
    async with Client.connect(server.url) as c:
        with pytest.raises(Refused) as refused:
            await c.hello(table=t.table, spectate=True)
        assert refused.value.code == "table/no_spectators"


@BOTH
async def test_malformed_frames_get_errors_and_the_connection_stays(
    server: ServerProcess, sub: str
) -> None:
    t = await new_table(server.url, seats=1)
    async with seated(server.url, t, 0, sub) as me:
        await me.until_version(1)
        binary = sub == m.SUBPROTOCOL_MSGPACK
        garbage: list[bytes | str] = [
            b"\xc1\xff\x00" if binary else "{not json",
            ("{}" if binary else b"\x80"),  # the other frame kind
            b"\x81\xa4type\xa4nope" if binary else '{"type":"nope"}',
            b"\x81\xa4type\xa7command" if binary else '{"type":"command"}',
        ]
        codes = []
        for frame in garbage:
            await me.send_raw(frame)
            error = await me.expect(m.ErrorMessage)
            codes.append(error.code)
        assert codes == [
            "protocol/malformed",
            "protocol/wrong_frame",
            "protocol/unknown_type",
            "protocol/missing_field",
        ]
        # still a working session
        assert me.mirror is not None
        result = await me.command(me.mirror.legal[0])
        assert result.outcome == "accepted"


async def test_hello_must_come_first(server: ServerProcess) -> None:
    async with Client.connect(server.url) as c:
        await c.send(m.ListTables(id="r1"))
        error = await c.expect(m.ErrorMessage)
        assert error.code == "protocol/hello_first"
        assert await c.closed() == 4000


async def test_a_flood_of_bad_frames_closes_the_connection(server: ServerProcess) -> None:
    async with Client.connect(server.url) as c:
        await c.hello()
        with contextlib.suppress(ConnectionClosed):
            for _ in range(30):
                await c.send_raw(b"\xc1")
        assert await c.closed() == 1008


async def test_health_and_metrics(server: ServerProcess) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    await writer.drain()
    data = await asyncio.wait_for(reader.read(65536), 5)
    writer.close()
    text = data.decode()
    assert text.startswith("HTTP/1.1 200")
    for name in (
        "echoridge_connections",
        "echoridge_tables",
        "echoridge_commands_total",
        "echoridge_append_conflicts_total",
        "echoridge_command_seconds_bucket",
    ):
        assert name in text


async def test_sigterm_says_restarting_and_stops_cleanly(server: ServerProcess) -> None:
    t = await new_table(server.url, seats=1)
    async with seated(server.url, t, 0) as me:
        await me.until_version(1)
        server.process.send_signal(signal.SIGTERM)
        assert await me.closed(15) == 1012
        byes = [x for x in me.frames.plain() if x.get("type") == "bye"]
        assert byes and byes[-1]["code"] == 1012
    assert server.process.wait(15) == 0
    assert "echo-ridge: stopped" in server.output()


async def test_owed_decisions_time_out_to_their_defaults(
    servers: Callable[..., ServerProcess],
) -> None:
    """Nobody accuses: after the decision timeout every accusation is the default (none)."""
    server = servers("--decision-timeout", "0.5")
    t = await new_table(server.url, seats=2)
    rng = random.Random(8)
    async with seated(server.url, t, 0) as a, seated(server.url, t, 1) as b:
        await a.until_version(1)
        await b.until_version(1)
        while True:
            mover = await whose_turn([a, b])
            assert mover.mirror is not None
            if all(c["type"] == "accuse" for c in mover.mirror.legal):
                break
            await act(mover, rng)
        assert a.mirror is not None and a.mirror.status == "accusing"
        waiting, noticed = a.mirror.version, time.time() * 1000
        async with asyncio.timeout(5):  # the accusations' clock, as the server runs it
            while not any(d.version == waiting for d in a.deadlines):
                with contextlib.suppress(TimeoutError):
                    a._pending.append(await asyncio.wait_for(a._read(), 0.05))
        clock = next(d for d in a.deadlines if d.version == waiting)
        assert clock.table == t.table and clock.seats == (0, 1)
        assert noticed - 500 <= clock.at <= noticed + 500 + 100  # armed with 0.5 s to go
        async with asyncio.timeout(20):
            while a.mirror.status != "over":
                await a.recv(20)
        assert a.mirror.view["result"]["accusations"] == [None, None]
        assert a.mirror.view["result"]["winners"] == []
    assert '"event": "decision timed out"' in server.output()
