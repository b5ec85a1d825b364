"""The lobby over the wire: display names and their limits, the listing (seats taken, names,
bots, the seed commitment, tables in progress, one table by id) and ping/pong."""

from __future__ import annotations

import hashlib

import pytest

from echoridge_protocol import messages as m
from tests.e2e.conftest import ServerProcess
from tests.net.wsclient import Client

REFUSED_NAMES = [
    "",  # empty
    "x" * 33,  # too long
    " Ana",  # whitespace at an end
    "Ana\t",
    "A\u202ena",  # right-to-left override
    "A\u2066na",  # left-to-right isolate
    "A\u200bna",  # zero-width space
    "A\x07na",  # a control character
    "A\nna",
]


@pytest.mark.parametrize("name", REFUSED_NAMES)
async def test_a_name_with_control_bidi_or_padding_is_refused(
    server: ServerProcess, name: str
) -> None:
    async with Client.connect(server.url) as lobby:
        await lobby.hello()
        table = (await lobby.create_table(2)).table
        reply = await lobby.request(m.Join("j", table, name, b"\x01" * 16))
        assert isinstance(reply, m.ErrorMessage) and reply.code == "protocol/bad_field"
        assert reply.id == "j" and "name" in reply.message
        assert (await lobby.request(m.ListTables("l", table))).tables[0].taken == 0  # type: ignore[union-attr]


async def test_names_in_the_listing_and_the_game(server: ServerProcess) -> None:
    markup = "<b>Zoë</b> & «Ben» 👮"  # any printable text is a name; clients show it as text
    async with Client.connect(server.url) as lobby:
        await lobby.hello()
        created = await lobby.create_table(2, public=True, spectators=True)
        table = created.table
        joined = await lobby.join(table, markup)
        waiting = (await lobby.list_tables()).tables
        info = next(t for t in waiting if t.table == table)
        assert info.status == "waiting" and info.taken == 1
        assert info.players == (m.SeatInfo(0, markup),)
        assert info.server_seed_commit == created.server_seed_commit
        await lobby.request(m.AddBot("b", table, joined.token, "greedy"))
        await lobby.start(table, joined.token)
        playing = next(t for t in (await lobby.list_tables()).tables if t.table == table)
        assert playing.status == "playing"  # in progress, listed to be watched
        assert playing.players == (m.SeatInfo(0, markup), m.SeatInfo(1, "Greedy 2", "greedy"))
        async with Client.connect(server.url) as seat:
            welcome = await seat.hello(table=table, token=joined.token)
            assert welcome.view is not None
            names = [(p["name"], p["bot"]) for p in welcome.view["players"]]
            assert names == [(markup, None), ("Greedy 2", "greedy")]


async def test_private_tables_are_listed_only_by_id_and_commitments_match(
    server: ServerProcess,
) -> None:
    async with Client.connect(server.url) as lobby:
        await lobby.hello()
        created = await lobby.create_table(2, public=False)
        assert created.table not in [t.table for t in (await lobby.list_tables()).tables]
        reply = await lobby.request(m.ListTables("one", created.table))
        assert isinstance(reply, m.Tables) and [t.table for t in reply.tables] == [created.table]
        assert len(created.server_seed_commit) == len(hashlib.sha256().digest())
        missing = await lobby.request(m.ListTables("none", "t-nothere"))
        assert isinstance(missing, m.ErrorMessage) and missing.code == "table/not_found"


async def test_ping_is_answered_by_pong_in_every_session(server: ServerProcess) -> None:
    async with Client.connect(server.url) as lobby, Client.connect(server.url) as watcher:
        await lobby.hello()
        assert await lobby.request(m.Ping("p1")) == m.Pong("p1")
        table = (await lobby.create_table(1, spectators=True)).table
        await watcher.hello(table=table, spectate=True)
        assert await watcher.request(m.Ping("p2")) == m.Pong("p2")
