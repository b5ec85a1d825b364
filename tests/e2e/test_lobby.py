"""The lobby over the wire: display names and their limits, the listing (seats taken, names,
bots, the seed commitment, tables in progress, one table by id, the mode), the mode at creation
and its refusals, and ping/pong."""

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


async def test_the_mode_at_creation_in_the_listing_and_the_game(server: ServerProcess) -> None:
    from echoridge_client.lobby import Lobby

    sdk = await Lobby.connect(server.url)
    try:
        coop = await sdk.create(2, mode="cooperative")
        pair = await sdk.create(2)
        solo = await sdk.create(1, mode="solo")
        listed = {t.table: t.mode for t in await sdk.tables()}
        assert listed[coop.table] == "cooperative"
        assert listed[pair.table] == "competitive" and listed[solo.table] == "solo"
        tokens = [(await sdk.join(coop.table, name)).token for name in ("Ana", "Ben")]
        await sdk.start(coop.table, tokens[0])
        info = await sdk.table(coop.table)
        assert info is not None and (info.status, info.mode) == ("playing", "cooperative")
    finally:
        await sdk.close()
    async with Client.connect(server.url) as seat:
        welcome = await seat.hello(table=coop.table, token=tokens[1])
        assert welcome.view is not None and welcome.view["mode"] == "cooperative"


@pytest.mark.parametrize(
    ("seats", "mode", "code"),
    [
        (1, "cooperative", "table/bad_mode"),  # co-op is 2 to 4 seats
        (3, "solo", "table/bad_mode"),
        (2, "coop", "protocol/bad_field"),  # not a mode
        (2, "", "protocol/bad_field"),
    ],
)
async def test_a_bad_mode_is_refused_with_its_code(
    server: ServerProcess, seats: int, mode: str, code: str
) -> None:
    async with Client.connect(server.url) as lobby:
        await lobby.hello()
        before = {t.table for t in (await lobby.list_tables()).tables}
        request = m.CreateTable("c", seats, True, True, 0, None, mode)  # type: ignore[arg-type]
        reply = await lobby.request(request)
        assert isinstance(reply, m.ErrorMessage) and (reply.code, reply.id) == (code, "c")
        assert {t.table for t in (await lobby.list_tables()).tables} == before  # none made
