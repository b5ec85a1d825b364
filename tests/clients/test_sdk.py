"""The Python SDK against real server processes: whole games by bots in both subprotocols with
spectators (every transcript verified), a forced disconnect mid-game, and a tampered reveal."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import msgpack
import pytest
from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve

from echoridge.transcript import replay
from echoridge_client.connection import for_table
from echoridge_client.errors import RevealError
from echoridge_client.lobby import Lobby
from echoridge_client.policies import GreedyPolicy, RandomPolicy
from echoridge_client.session import Seat, Spectator
from echoridge_protocol import codec
from echoridge_protocol import messages as m
from tests.e2e.conftest import ServerProcess, servers  # noqa: F401

MSGPACK, JSON = m.SUBPROTOCOL_MSGPACK, m.SUBPROTOCOL_JSON


@pytest.fixture
def server(servers: Callable[..., ServerProcess]) -> ServerProcess:  # noqa: F811
    return servers("--bot-delay", "0")


async def table_of(url: str, seats: int) -> tuple[Lobby, str, list[str]]:
    lobby = await Lobby.connect(url)
    table = (await lobby.create(seats)).table
    tokens = [(await lobby.join(table, f"bot {i}")).token for i in range(seats)]
    return lobby, table, tokens


async def table_of_with_bot(url: str) -> tuple[Lobby, str, list[str]]:
    """A 2-seat table: one person (the returned token) and a greedy server-side bot."""
    lobby = await Lobby.connect(url)
    table = (await lobby.create(2)).table
    token = (await lobby.join(table, "person")).token
    await lobby.add_bot(table, token, "greedy")
    return lobby, table, [token]


@pytest.mark.parametrize("sub", [MSGPACK, JSON])
async def test_bots_play_whole_games_and_every_transcript_verifies(
    server: ServerProcess, sub: str
) -> None:
    for game in range(2):
        lobby, table, tokens = await table_of(server.url, 4)
        seats = [await Seat.sit(server.url, table, t, subprotocol=sub) for t in tokens]
        watchers = [
            await Spectator.watch(server.url, table, subprotocol=s) for s in (MSGPACK, JSON)
        ]
        await lobby.start(table, tokens[0])
        policies = [RandomPolicy(game * 10 + i) for i in range(3)] + [GreedyPolicy(game)]
        await asyncio.gather(
            *(s.play(p, timeout=120) for s, p in zip(seats, policies, strict=True))
        )
        for w in watchers:
            await w.wait(lambda w=w: w.over, 30)  # type: ignore[misc]
        assert len({s.version for s in seats} | {w.version for w in watchers}) == 1
        assert all(s.view["result"] == watchers[0].view["result"] for s in seats)
        assert all(s.error is None and s.reconnects == 0 for s in seats)
        transcript = await lobby.transcript(table)
        report = replay(transcript)
        assert report.ok, report.problem
        assert len(transcript["entries"]) == seats[0].version  # type: ignore[arg-type]
        for session in (*seats, *watchers):
            await session.close()
        await lobby.close()


async def test_a_forced_disconnect_mid_game_resumes_with_nothing_lost_or_doubled(
    server: ServerProcess,
) -> None:
    lobby, table, tokens = await table_of(server.url, 2)
    a = await Seat.sit(server.url, table, tokens[0])
    b = await Seat.sit(server.url, table, tokens[1])
    await lobby.start(table, tokens[0])
    dropped = asyncio.Event()

    async def drop_b_now_and_then() -> None:
        await b.until_version(15, 60)
        for _ in range(3):  # cut b's connection (no close handshake) three times
            assert b.connection is not None
            b.connection.ws.transport.abort()
            await asyncio.sleep(0.3)
        dropped.set()

    saboteur = asyncio.create_task(drop_b_now_and_then())
    await asyncio.gather(a.play(RandomPolicy(1), timeout=120), b.play(RandomPolicy(2), timeout=120))
    await saboteur
    assert dropped.is_set() and b.reconnects >= 3
    assert a.version == b.version and a.view["result"] == b.view["result"]
    # b's mirror, kept across the drops by resuming, equals a fresh view of the seat
    fresh = await Seat.sit(server.url, table, tokens[1])
    assert fresh.view == b.view and fresh.version == b.version
    # nothing doubled: every command in the log is distinct, and both seats' counts match it
    transcript = await lobby.transcript(table)
    ids = [e["command"] for e in transcript["entries"]]  # type: ignore[index, union-attr]
    assert len(ids) == a.version
    assert replay(transcript).ok
    for session in (a, b, fresh):
        await session.close()
    await lobby.close()


@contextlib.asynccontextmanager
async def tampering_proxy(upstream: str) -> AsyncIterator[str]:
    """A websocket proxy in front of the server that alters every salt it forwards."""

    def tamper(value: Any) -> Any:
        if isinstance(value, dict):
            out = {k: tamper(v) for k, v in value.items()}
            if "salt" in out and isinstance(out["salt"], str):
                out["salt"] = ("0" if out["salt"][0] != "0" else "1") + out["salt"][1:]
            return out
        if isinstance(value, list):
            return [tamper(v) for v in value]
        return value

    async def handle(client: ServerConnection) -> None:
        sub = str(client.subprotocol)
        async with connect(upstream, subprotocols=[sub]) as server_side:  # type: ignore[list-item]

            async def up() -> None:
                async for frame in client:
                    await server_side.send(frame)

            async def down() -> None:
                async for frame in server_side:
                    data = codec.to_plain(codec.decode_server(frame, sub), hex_bytes=sub == JSON)
                    changed = tamper(data)
                    if changed == data:
                        await client.send(frame)
                    elif sub == JSON:
                        await client.send(json.dumps(changed, separators=(",", ":")))
                    else:
                        await client.send(msgpack.packb(changed, use_bin_type=True))

            # When either side ends, end the other: a client that stopped reading must not leave
            # the proxy waiting for a server that has nothing more to say.
            tasks = [asyncio.create_task(up()), asyncio.create_task(down())]
            try:
                await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)

    async with serve(handle, "127.0.0.1", 0, subprotocols=[MSGPACK, JSON]) as proxy:  # type: ignore[list-item]
        port = next(iter(proxy.sockets)).getsockname()[1]
        yield f"ws://127.0.0.1:{port}/ws"


async def test_a_tampered_reveal_is_caught(server: ServerProcess) -> None:
    lobby, table, tokens = await table_of(server.url, 1)
    lobby2, table, tokens = await table_of_with_bot(server.url)
    await lobby.close()
    lobby = lobby2
    async with tampering_proxy(server.url) as proxy:
        victim = await Seat.sit(proxy, table, tokens[0])
        await lobby.start(table, tokens[0])
        with pytest.raises(RevealError):
            await victim.play(GreedyPolicy(7), timeout=120)
        assert isinstance(victim.error, RevealError)
        await victim.close()
    await lobby.close()


async def test_lobby_looks_up_one_table_by_id(server: ServerProcess) -> None:
    lobby = await Lobby.connect(server.url)
    created = await lobby.create(3, public=False)
    token = (await lobby.join(created.table, "Ada")).token
    await lobby.add_bot(created.table, token, "greedy")
    info = await lobby.table(created.table)  # a private table: found by its id
    assert info is not None and info.table == created.table and info.status == "waiting"
    assert info.seats == 3 and info.taken == 2
    p0 = info.players[0]
    assert (p0.seat, p0.name, p0.bot) == (0, "Ada", None)
    assert info.players[1].bot == "greedy"
    assert info.server_seed_commit == created.server_seed_commit
    assert await lobby.table("t-000000000000") is None
    await lobby.close()


def test_a_table_session_names_its_table_in_the_url() -> None:
    """SPEC.md §2.1: the routing hint ``?table=``, added to what the URL already asks, once."""
    assert for_table("ws://h:1/ws", "t-1") == "ws://h:1/ws?table=t-1"
    assert for_table("wss://h/ws?x=1&table=old", "new") == "wss://h/ws?x=1&table=new"
    assert for_table("ws://h/", "a b") == "ws://h/?table=a+b"
