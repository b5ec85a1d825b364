"""The listing in pages (SPEC.md §4.1): newest first, every table once while tables are created
and started meanwhile, the filters, the page size and its bounds, a cursor the server did not
make.  One server on a Redis of its own, so the listing holds only this module's tables."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from echoridge_client.errors import Refused
from echoridge_client.lobby import Lobby
from echoridge_protocol import messages as m
from tests.conftest import launch_redis
from tests.e2e.conftest import ServerProcess, start_server
from tests.net.wsclient import Client


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    redis = launch_redis(tmp_path_factory.mktemp("pages-redis"))
    process = start_server(redis.url, tmp_path_factory.mktemp("pages") / "server.log")
    yield process
    process.stop()
    redis.stop()


async def every_page(
    lobby: Lobby, limit: int, status: m.ListedStatus | None = None, mode: m.GameMode | None = None
) -> list[list[m.TableInfo]]:
    pages, cursor = [], None
    for _ in range(100):  # (bounded)
        reply = await lobby.page(cursor, status=status, mode=mode, limit=limit)
        pages.append(list(reply.tables))
        cursor = reply.next
        if cursor is None:
            return pages
    raise AssertionError("more than 100 pages")


async def test_pages_go_newest_first_through_every_table_once_while_tables_come_and_go(
    server: ServerProcess,
) -> None:
    lobby = await Lobby.connect(server.url)
    try:
        made = [(await lobby.create(2)).table for _ in range(23)]
        owners = dict(lobby.owners)
        first = await lobby.page(limit=5)
        assert [t.table for t in first.tables] == made[::-1][:5]  # newest first
        seen = [t.table for t in first.tables]
        cursor, newer = first.next, []
        started, closed = made[3], made[9]  # further down
        for n in range(10):
            assert cursor is not None
            newer.append((await lobby.create(2)).table)  # created meanwhile: before the cursor
            if n == 0:  # one starts meanwhile (listed as playing), one is closed (unlisted)
                await lobby.join(started, "Ana")
                token = (await lobby.join(started, "Ben")).token
                await lobby.start(started, token)
                await lobby.close_table(closed, owners[closed])
            reply = await lobby.page(cursor, limit=5)
            assert len(reply.tables) <= 5
            seen += [t.table for t in reply.tables]
            cursor = reply.next
            if cursor is None:
                break
        assert cursor is None
        assert len(seen) == len(set(seen))  # no table twice
        assert set(seen) == set(made) - {closed}  # no gap
        assert not set(newer) & set(seen)
        # Asked again, the first page starts with the newest.
        again = await lobby.page(limit=5)
        assert [t.table for t in again.tables][: len(newer)] == newer[::-1]
        created = [t.created for page in await every_page(lobby, 7) for t in page]
        assert created == sorted(created, reverse=True)
    finally:
        await lobby.close()


async def test_the_filters_keep_a_status_and_a_mode(server: ServerProcess) -> None:
    lobby = await Lobby.connect(server.url)
    try:
        coop = [(await lobby.create(2, mode="cooperative")).table for _ in range(3)]
        solo = [(await lobby.create(1)).table for _ in range(2)]
        playing = (await lobby.create(2, mode="cooperative")).table
        token = (await lobby.join(playing, "Ana")).token
        await lobby.add_bot(playing, token)
        await lobby.start(playing, token)
        pages = await every_page(lobby, 2, "waiting", "cooperative")
        waiting_coop = [t for page in pages for t in page]
        assert {t.table for t in waiting_coop} >= set(coop)
        assert playing not in {t.table for t in waiting_coop}
        assert all(t.status == "waiting" and t.mode == "cooperative" for t in waiting_coop)
        solos = [t for page in await every_page(lobby, 50, mode="solo") for t in page]
        assert [t.table for t in solos][:2] == solo[::-1] and all(t.mode == "solo" for t in solos)
        being_played = [t for page in await every_page(lobby, 50, "playing") for t in page]
        assert playing in {t.table for t in being_played}
        assert all(t.status == "playing" for t in being_played)
        assert not {t.table for t in being_played} & set(coop + solo)
    finally:
        await lobby.close()


async def test_without_a_limit_a_page_is_the_servers_and_a_limit_is_1_to_100(
    server: ServerProcess,
) -> None:
    lobby = await Lobby.connect(server.url)
    try:
        while len((await lobby.page(limit=100)).tables) < 60:  # (bounded: 60 tables at most)
            await lobby.create(2)
        default = await lobby.page()
        assert len(default.tables) == 50 and default.next is not None
    finally:
        await lobby.close()
    async with Client.connect(server.url) as raw:
        await raw.hello()
        for limit in (0, 101):
            reply = await raw.request(m.ListTables("big", limit=limit))
            assert isinstance(reply, m.ErrorMessage) and reply.code == "protocol/bad_field"
        for cursor in ("nonsense", "12:t-1:x", "-5:t-1"):
            reply = await raw.request(m.ListTables("cursor", cursor=cursor))
            assert isinstance(reply, m.ErrorMessage) and reply.code == "protocol/bad_field"
            assert "cursor" in reply.message


async def test_a_refused_cursor_is_an_error_of_the_sdk(server: ServerProcess) -> None:
    lobby = await Lobby.connect(server.url)
    try:
        with pytest.raises(Refused) as caught:
            await lobby.page("x:y")
        assert caught.value.code == "protocol/bad_field"
    finally:
        await lobby.close()

