"""The protocol at its edges, as a stranger's client met them (issue 24): on a real server and
Redis, over both subprotocols, bounded in count and time.

- a lone surrogate in a request id gets ``protocol/malformed``, not an internal error;
- a command map from ``you.legal`` with a field added, a missing field, a wrong type or an
  unknown or server command type gets a ``protocol/...`` error with the command's id, nothing
  of Python in its message, and changes nothing;
- a chat text of 501..2,000 characters gets ``chat/too_long`` and is no refused frame;
- a welcome before the start carries no empty ``log``; after the client's ``bye`` the server
  closes with 1000 and sends nothing more.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from echoridge_protocol import messages as m
from tests.conftest import RedisServer
from tests.e2e.conftest import ServerProcess, start_server
from tests.net.wsclient import Client

BOTH = pytest.mark.parametrize("sub", [m.SUBPROTOCOL_MSGPACK, m.SUBPROTOCOL_JSON])
PYTHON = re.compile(r"__init__|positional argument|Traceback|tuple length|TypeError|KeyError")


@pytest.fixture(scope="module")
def edge_server(
    redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    server = start_server(redis_server.url, Path(tmp_path_factory.mktemp("edges")) / "log")
    yield server
    server.stop()


async def test_a_lone_surrogate_in_a_request_id_is_malformed_not_internal(
    edge_server: ServerProcess,
) -> None:
    async with Client.connect(edge_server.url, m.SUBPROTOCOL_JSON) as client:
        await client.hello()
        await client.send_raw('{"type":"list_tables","id":"\\ud800"}')
        await client.send_raw('{"type":"list_tables","id":"r1","\\udfff":1}')
        first, second = await client.recv(), await client.recv()
        assert isinstance(first, m.ErrorMessage) and first.code == "protocol/malformed"
        assert first.id is None
        assert isinstance(second, m.ErrorMessage) and second.code == "protocol/malformed"
        assert (await client.list_tables()).id  # the session goes on
    assert "session failed" not in edge_server.output()


MALFORMED = [
    ("protocol/unknown_field", lambda c: {**c, "bogus": 1}),
    ("protocol/missing_field", lambda c: {k: v for k, v in c.items() if k != "seat"}),
    ("protocol/bad_field", lambda c: {**c, "seat": "0"}),
    ("protocol/bad_field", lambda c: {**c, "type": "fly"}),
    ("protocol/bad_field", lambda c: {"type": "time_out", "seat": c["seat"]}),
    ("protocol/missing_field", lambda c: {"type": "call_for_backup", "seat": c["seat"]}),
    ("protocol/bad_field", lambda c: {"type": "stakeout", "seat": c["seat"], "risk": [3]}),
]


@BOTH
async def test_malformed_commands_get_protocol_errors_with_their_id_and_change_nothing(
    edge_server: ServerProcess, sub: str
) -> None:
    async with Client.connect(edge_server.url, sub) as lobby:
        await lobby.hello()
        table = (await lobby.create_table(2)).table
        tokens = [(await lobby.join(table, f"p{i}")).token for i in range(2)]
        await lobby.start(table, tokens[0])
    for token in tokens:
        async with Client.connect(edge_server.url, sub) as seat:
            await seat.hello(table=table, token=token)
            assert seat.mirror is not None
            legal = seat.mirror.legal
            if not legal:
                continue
            version = seat.mirror.version
            for i, (code, change) in enumerate(MALFORMED):
                command = change(legal[0])
                await seat.send(m.SendCommand(id=f"bad-{i}", expected=version, command=command))
                reply = await seat.recv()
                assert isinstance(reply, m.ErrorMessage), (command, reply)
                assert (reply.code, reply.id) == (code, f"bad-{i}"), (command, reply)
                assert reply.message.startswith("command.command"), reply.message
                assert not PYTHON.search(reply.message), reply.message
            assert seat.mirror.version == version  # nothing was applied
            result = await seat.command(legal[0], id="good")  # unchanged, it is accepted
            assert result.outcome == "accepted", result
            return
    raise AssertionError("nobody had a legal command")


@BOTH
async def test_a_long_chat_line_is_too_long_for_the_chat_not_the_protocol(
    edge_server: ServerProcess, sub: str
) -> None:
    async with Client.connect(edge_server.url, sub) as lobby:
        await lobby.hello()
        table = (await lobby.create_table(1)).table
        token = (await lobby.join(table, "p0")).token
        await lobby.start(table, token)
    async with Client.connect(edge_server.url, sub) as seat:
        await seat.hello(table=table, token=token)
        for n in (501, 1025, 2000):
            say = m.Say(id=f"s{n}", channel="table", text="x" * n)
            await seat.send(say)
            while not isinstance(reply := await seat.recv(), m.Result | m.ErrorMessage):
                pass
            assert isinstance(reply, m.Result), reply
            assert (reply.outcome, reply.code) == ("rejected", "chat/too_long")
        outcomes = []  # refused lines did not count: 5 lines may be said, then a typed wait
        for i in range(6):
            await seat.send(m.Say(id=f"ok{i}", channel="table", text=f"line {i}"))
            while not isinstance(reply := await seat.recv(), m.Result):
                pass
            outcomes.append((reply.outcome, reply.code, reply.retry_in))
        assert outcomes[:5] == [("accepted", None, None)] * 5
        assert outcomes[5][:2] == ("rejected", "chat/rate_limited")
        assert outcomes[5][2] is not None and 0 < outcomes[5][2] <= 10_000


@BOTH
async def test_a_welcome_before_the_start_has_no_empty_log(
    edge_server: ServerProcess, sub: str
) -> None:
    async with Client.connect(edge_server.url, sub) as lobby:
        await lobby.hello()
        table = (await lobby.create_table(2)).table
        token = (await lobby.join(table, "p0")).token
    async with Client.connect(edge_server.url, m.SUBPROTOCOL_JSON) as seat:
        welcome = await seat.hello(table=table, token=token)
        assert welcome.version == 0 and welcome.view is not None
        raw = next(iter(seat.frames))
        assert isinstance(raw, str) and '"log":' not in raw, raw[:300]
    async with Client.connect(edge_server.url, m.SUBPROTOCOL_JSON) as spectator:
        await spectator.hello(table=table, spectate=True)
        raw = next(iter(spectator.frames))
        assert isinstance(raw, str) and '"log":' not in raw, raw[:300]


@BOTH
async def test_after_the_client_s_bye_the_server_sends_nothing_and_closes_1000(
    edge_server: ServerProcess, sub: str
) -> None:
    async with Client.connect(edge_server.url, sub) as client:
        await client.hello()
        assert await client.bye("done") == 1000
        assert not any(isinstance(x, m.ServerBye) for x in await client.drain())


async def test_a_delayed_spectator_s_clocks_trail_with_its_view(
    edge_server: ServerProcess,
) -> None:
    """SPEC.md §3.3, §6.6: a spectator kept 3 versions behind never gets a ``clocks`` or
    ``deadline`` of a version its view has not reached (who owes a decision, ahead of it)."""
    clock = m.Clock("custom", turn=600, bank=0, decision=600, grace=600, strikes=0)
    async with Client.connect(edge_server.url) as lobby:
        await lobby.hello()
        created = await lobby.create_table(2, spectator_delay=3, clock=clock)
        table = created.table
        tokens = [(await lobby.join(table, f"p{i}")).token for i in range(2)]
        async with (
            Client.connect(edge_server.url) as spectator,
            Client.connect(edge_server.url) as seat0,
            Client.connect(edge_server.url) as seat1,
        ):
            await spectator.hello(table=table, spectate=True)
            await lobby.start(table, tokens[0])
            seats = [seat0, seat1]
            for seat, token in zip(seats, tokens, strict=True):
                await seat.hello(table=table, token=token)
            for _ in range(40):  # bounded: until the table is well past the delay
                for seat in seats:
                    await seat.drain(quiet=0.05)
                mover = next((s for s in seats if s.mirror and s.mirror.legal), None)
                if mover is None or mover.mirror is None or mover.mirror.version >= 14:
                    break
                await mover.command(mover.mirror.legal[0])
            await spectator.drain(quiet=0.5)
    at, told = 0, 0
    for message in spectator.frames.plain():
        if message["type"] in ("welcome", "delta"):
            at = message["version"]
        elif message["type"] in ("clocks", "deadline"):
            told += 1
            assert message["version"] <= at, (message, at)
    assert at >= 8 and told > 0, (at, told)


async def test_refusals_of_a_rate_say_when_to_try_again(
    redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """``retry_in`` (SPEC.md §5.2, §7.1): a typed wait for ``table/rate_limited``,
    ``protocol/rate_limited`` and ``chat/rate_limited``; the SDK's lobby waits as it says."""
    from echoridge_client.errors import Refused
    from echoridge_client.lobby import Lobby
    from echoridge_client.retry import Backoff

    log = Path(tmp_path_factory.mktemp("rates")) / "log"
    server = start_server(
        redis_server.url, log, "--tables-per-minute-per-ip", "2", "--commands-per-second", "10"
    )
    try:
        async with Client.connect(server.url) as client:
            await client.hello()
            for _ in range(2):
                await client.create_table(1)
            await client.send(m.CreateTable("r9", 1, True, True, 0))
            refused = await client.recv()
            assert isinstance(refused, m.ErrorMessage) and refused.code == "table/rate_limited"
            assert refused.id == "r9" and refused.retry_in is not None
            assert 0 < refused.retry_in <= 60_000
            for i in range(30):  # bursts of 20: the bucket empties
                await client.send(m.Ping(id=f"p{i}"))
            limited = [
                x for x in await client.drain(quiet=0.5)
                if isinstance(x, m.ErrorMessage) and x.code == "protocol/rate_limited"
            ]  # fmt: skip
            assert limited
            assert all(x.retry_in is not None and 0 < x.retry_in <= 1000 for x in limited)
        sdk = await Lobby.connect(server.url)
        sdk.retry_for = 1  # (less than the wait asked: the SDK gives up at once)
        try:
            with pytest.raises(Refused) as info:
                await sdk.create(1)
        finally:
            await sdk.close()
        assert info.value.code == "table/rate_limited" and info.value.retry_in
        # how long the SDK's lobby waits before it asks again: what the server said, and more
        delay = Lobby._delay(info.value.code, info.value.retry_in, Backoff())
        assert delay is not None and 1.0 <= delay * 1000 / info.value.retry_in <= 1.25
    finally:
        server.stop()
