"""The lobby under a flood (issue 24): limits on the tables one client address may create (a
rate, and a cap on those waiting to start) that hold across reconnects and across server
processes sharing Redis; unstarted tables that expire, with their sessions closed (4004) on
every node and their keys left to expire; the codes of a closed table.

Real servers on the session's Redis.  Two clients are told apart by ``X-Forwarded-For`` from a
trusted proxy (127.0.0.1); each test draws its own addresses, so the counts it sees are its
own.  Every loop is bounded in count and time."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import os
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from echoridge_client.errors import Refused
from echoridge_client.lobby import Lobby
from echoridge_protocol import messages as m
from tests.conftest import RedisServer
from tests.e2e.conftest import ServerProcess, start_server
from tests.net.wsclient import Client

PROXIED = ("--trusted-proxies", "127.0.0.1")


def address() -> str:
    """An address of its own (100.64.0.0/10), for one client of one test."""
    return str(ipaddress.ip_address(0x64400000 + int.from_bytes(os.urandom(3)) % (1 << 22)))


def network64() -> str:
    """A /64 of its own (2001:db8::/32), as a prefix to which an interface id is added."""
    return "2001:db8:" + ":".join(os.urandom(2).hex() for _ in range(2)) + ":"


@contextlib.asynccontextmanager
async def lobby_from(server: ServerProcess, client: str) -> AsyncIterator[Lobby]:
    """A lobby session of the SDK whose client address (behind the trusted proxy) is
    ``client``."""
    lobby = await Lobby.connect(server.url, headers={"X-Forwarded-For": client})
    lobby.retry_for = 0
    try:
        yield lobby
    finally:
        await lobby.close()


async def refused(lobby: Lobby, seats: int = 2) -> str:
    with pytest.raises(Refused) as caught:
        await lobby.create(seats)
    return caught.value.code


async def test_one_address_past_its_creation_rate_is_refused_and_another_is_not(
    servers: Callable[..., ServerProcess],
) -> None:
    server = servers(*PROXIED, "--tables-per-minute-per-ip", "3")
    flooder, bystander = address(), address()
    async with lobby_from(server, flooder) as lobby:
        made = [(await lobby.create(2)).table for _ in range(3)]
        with pytest.raises(Refused) as caught:
            await lobby.create(2)
        assert caught.value.code == "table/rate_limited"
        assert "3 tables a minute" in caught.value.message
        assert made[0] in {t.table for t in await lobby.tables()}  # the granted ones are there
    async with lobby_from(server, flooder) as again:  # a new connection changes nothing
        assert await refused(again) == "table/rate_limited"
    async with lobby_from(server, bystander) as other:
        await other.create(2)
    # Without the proxy's word, the peer (127.0.0.1) is the client: counted apart from both.
    async with Client.connect(server.url) as plain:
        await plain.hello()
        await plain.create_table(2)


async def test_one_address_may_have_so_many_tables_waiting_and_a_started_one_frees_a_place(
    servers: Callable[..., ServerProcess],
) -> None:
    server = servers(
        *PROXIED, "--tables-per-minute-per-ip", "0", "--max-waiting-tables-per-ip", "2"
    )
    six = network64()
    async with lobby_from(server, six + "1") as lobby:
        solo = await lobby.create(1)
        closable = await lobby.create(2)
        assert await refused(lobby) == "table/too_many"
    # Another address of the same /64 is the same client.
    async with lobby_from(server, six + "ffff:2") as same:
        assert await refused(same) == "table/too_many"
        token = (await same.join(solo.table, "Ana")).token
        await same.start(solo.table, token)  # started: no longer waiting
        await same.create(2)
        assert await refused(same) == "table/too_many"
        assert closable.owner is not None
        await same.close_table(closable.table, closable.owner)  # closed: no longer waiting
        await same.create(3)
        assert await refused(same) == "table/too_many"
    async with lobby_from(server, address()) as other:
        await other.create(2)


async def test_the_limits_hold_across_server_processes_sharing_redis(
    servers: Callable[..., ServerProcess],
) -> None:
    flags = (*PROXIED, "--tables-per-minute-per-ip", "4")
    one, two = servers(*flags), servers(*flags)
    client = address()
    async with lobby_from(one, client) as a, lobby_from(two, client) as b:
        # Concurrent requests on both servers: exactly four are granted.
        outcomes = await asyncio.gather(
            *(lobby.create(2) for lobby in (a, b) * 4), return_exceptions=True
        )
        granted = [o for o in outcomes if isinstance(o, m.Created)]
        codes = [o.code for o in outcomes if isinstance(o, Refused)]
        assert len(granted) == 4 and codes == ["table/rate_limited"] * 4, outcomes


async def test_limits_of_zero_turn_them_off(servers: Callable[..., ServerProcess]) -> None:
    server = servers(
        *PROXIED, "--tables-per-minute-per-ip", "0", "--max-waiting-tables-per-ip", "0"
    )
    async with lobby_from(server, address()) as lobby:
        for _ in range(25):  # past both defaults (10 a minute, 20 waiting)
            await lobby.create(2)


# --- expiry of unstarted tables ---------------------------------------------------------------


@pytest.fixture
def own_redis(start_redis: Callable[..., RedisServer]) -> RedisServer:
    """A Redis of the test's own: a server that sweeps with a timeout of seconds would close
    the other tests' tables on the session's Redis."""
    return start_redis()


@pytest.fixture
def sweepers(own_redis: RedisServer, tmp_path: Path) -> Iterator[Callable[..., ServerProcess]]:
    started: list[ServerProcess] = []

    def start(*extra: str) -> ServerProcess:
        log = tmp_path / f"sweeper-{len(started)}.log"
        started.append(start_server(own_redis.url, log, *extra))
        return started[-1]

    yield start
    for server in started:
        server.stop()


async def ttl_of_keys(redis_server: RedisServer, table: str) -> dict[str, int]:
    """Every key of the table and its time to live in seconds (-1: none)."""
    redis = aioredis.from_url(redis_server.url)
    try:
        names = [k async for k in redis.scan_iter(match=f"er:{{{table}}}:*")]
        return {k.decode(): await redis.ttl(k) for k in names}
    finally:
        await redis.aclose()


async def test_an_empty_table_expires_and_its_sessions_on_every_node_are_closed(
    sweepers: Callable[..., ServerProcess], own_redis: RedisServer
) -> None:
    sweeper = sweepers("--table-idle-timeout", "1", "--table-max-wait", "0")
    # A node that does not sweep (its setting is off): it notices that the table was closed.
    other = sweepers("--table-idle-timeout", "0", "--table-max-wait", "0")
    lobby = await Lobby.connect(sweeper.url)
    try:
        created = await lobby.create(2)
        table = created.table
        seated = await lobby.create(2)
        token = (await lobby.join(seated.table, "Ana")).token
        async with (
            Client.connect(sweeper.url) as here,
            Client.connect(other.url) as there,
            Client.connect(sweeper.url) as player,
        ):
            await here.hello(table=table, spectate=True)
            await there.hello(table=table, spectate=True)
            await player.hello(table=seated.table, token=token)
            began = time.monotonic()
            assert await here.closed(timeout=8) == 4004
            assert await there.closed(timeout=8) == 4004
            assert time.monotonic() - began < 6
            assert there.ws.close_reason == "table/closed"
            # A table with a seated player is not idle: it stays.
            assert not player.ws.close_code
            assert (await lobby.table(seated.table)) is not None
            # ... until its last player leaves.
            await lobby.leave(seated.table, token)
        with pytest.raises(Refused) as caught:
            await lobby.join(table, "late")
        assert caught.value.code == "table/closed"
        listed = {t.table for t in await lobby.tables()}
        assert table not in listed
        deadline = time.monotonic() + 8
        while await lobby.table(seated.table) is not None and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        assert await lobby.table(seated.table) is None  # table/closed: gone
    finally:
        await lobby.close()
    # What it leaves in Redis expires (within the hour).
    ttls = await ttl_of_keys(own_redis, table)
    assert ttls and all(0 < ttl <= 3600 for ttl in ttls.values()), ttls


async def test_an_unstarted_table_expires_some_time_after_its_creation_whoever_sits_there(
    sweepers: Callable[..., ServerProcess],
) -> None:
    server = sweepers("--table-idle-timeout", "0", "--table-max-wait", "2")
    lobby = await Lobby.connect(server.url)
    try:
        created = await lobby.create(2)
        token = (await lobby.join(created.table, "Ana")).token
        async with Client.connect(server.url) as seat:
            await seat.hello(table=created.table, token=token)
            assert await seat.closed(timeout=8) == 4004
        for late in (lobby.leave(created.table, token), lobby.start(created.table, token)):
            result = await late
            assert result.code == "table/closed", result
    finally:
        await lobby.close()


# --- a closed table's codes -------------------------------------------------------------------


async def test_every_request_at_a_closed_table_is_answered_table_closed(
    server: ServerProcess,
) -> None:
    lobby = await Lobby.connect(server.url)
    try:
        created = await lobby.create(3)
        table, owner = created.table, created.owner
        assert owner is not None
        token = (await lobby.join(table, "Ana")).token
        await lobby.join(table, "Ben")
        assert (await lobby.close_table(table, owner)).outcome == "accepted"
        answers = {
            "close_table": await lobby.close_table(table, owner),
            "remove_player": await lobby.remove_player(table, owner, 1),
            "remove_player (a free seat)": await lobby.remove_player(table, owner, 2),
            "leave": await lobby.leave(table, token),
            "start": await lobby.start(table, token),
            "add_bot": await lobby.add_bot(table, token, "greedy"),
        }
        assert {k: r.code for k, r in answers.items()} == dict.fromkeys(answers, "table/closed")
        with pytest.raises(Refused) as caught:
            await lobby.join(table, "Cleo")
        assert caught.value.code == "table/closed"
        async with Client.connect(server.url) as seat:
            with contextlib.suppress(Exception):
                await seat.hello(table=table, token=token)
            assert await seat.closed() == 4004
    finally:
        await lobby.close()
