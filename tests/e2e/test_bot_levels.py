"""Bot levels over the wire (SPEC.md §4.4, "Bot levels"), against real ``echo-ridge serve``
processes and the session's redis-server: every kind is accepted by ``add_bot`` and listed, an
unknown one is refused with ``protocol/bad_field``, ``create_table.handover_bot`` is kept and
listed, and a table with a strong bot (its searches in the server's process pool) plays to the
end under a decision clock."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from echoridge.transcript import replay
from echoridge_client.lobby import Lobby
from echoridge_client.policies import GreedyPolicy
from echoridge_client.session import Seat
from echoridge_protocol import messages as m
from tests.e2e.conftest import ServerProcess
from tests.net.wsclient import Client

FAST = ("--bot-delay", "0", "--clock-floor", "1", "--bot-budget", "0.05")


async def test_every_kind_of_bot_is_accepted_and_listed(server: ServerProcess) -> None:
    lobby = await Lobby.connect(server.url)
    try:
        levels = (await lobby.create(4)).table
        token = (await lobby.join(levels, "Ada")).token
        for kind in ("easy", "normal", "strong"):
            assert (await lobby.add_bot(levels, token, kind)).outcome == "accepted"
        others = (await lobby.create(4)).table  # (a seat left free: listed)
        other = (await lobby.join(others, "Bea")).token
        for kind in ("random", "greedy"):
            assert (await lobby.add_bot(others, other, kind)).outcome == "accepted"
        page = await lobby.page(status="waiting", limit=100)  # (newest first: ours)
        listed = {t.table: t for t in page.tables}
        for table, kinds in ((levels, [None, "easy", "normal", "strong"]),
                             (others, [None, "random", "greedy"])):  # fmt: skip
            info = await lobby.table(table)
            assert info is not None
            # (a full table is not listed among those waiting: SPEC.md §4.1)
            for shown in (info, listed[table]) if table == others else (info,):
                assert [p.bot for p in shown.players] == kinds
                assert shown.handover_bot == "normal"  # (the default level)
        assert (await lobby.table(levels)).players[3].name == "Strong 4"  # type: ignore[union-attr]
        assert (await lobby.start(levels, token)).outcome == "accepted"
        seat = await Seat.sit(server.url, levels, token)
        try:
            assert [p["bot"] for p in seat.view["players"]] == [None, "easy", "normal", "strong"]
        finally:
            await seat.close()
    finally:
        await lobby.close()


async def test_an_unknown_kind_or_level_is_refused_with_bad_field(server: ServerProcess) -> None:
    async with Client.connect(server.url) as lobby:
        welcome = await lobby.hello()
        assert "bot_levels" in welcome.features
        created = await lobby.create_table(2)
        joined = await lobby.join(created.table, "Ada")
        for kind in ("expert", "Strong", ""):
            bad = m.AddBot(lobby.next_id(), created.table, joined.token, kind)  # type: ignore[arg-type]
            reply = await lobby.request(bad)
            assert isinstance(reply, m.ErrorMessage), reply
            assert (reply.code, reply.id) == ("protocol/bad_field", bad.id)
        for level in ("greedy", "hard"):
            request = m.CreateTable(lobby.next_id(), 2, True, True, 0, None, None, level)  # type: ignore[arg-type]
            reply = await lobby.request(request)
            assert isinstance(reply, m.ErrorMessage) and reply.code == "protocol/bad_field"
        info = await lobby.request(m.ListTables(lobby.next_id(), table=created.table))
        assert isinstance(info, m.Tables) and info.tables[0].taken == 1  # no bot was seated


async def test_the_handover_level_is_kept_and_listed(server: ServerProcess) -> None:
    lobby = await Lobby.connect(server.url)
    try:
        for level in ("easy", "strong"):
            table = (await lobby.create(2, handover_bot=level)).table  # type: ignore[arg-type]
            info = await lobby.table(table)
            assert info is not None and info.handover_bot == level
            token = (await lobby.join(table, "Ada")).token
            await lobby.add_bot(table, token, "random")
            await lobby.start(table, token)
            await lobby.close()
            lobby = await Lobby.connect(server.url)
        with pytest.raises(ValueError):
            await lobby.add_bot(table, token, "expert")  # (the SDK checks it first)
    finally:
        await lobby.close()


async def test_a_strong_bot_plays_a_whole_game_under_a_decision_clock(
    servers: Callable[..., ServerProcess],
) -> None:
    """A person (the SDK's greedy policy), a strong bot and a random one, on a server whose
    strong bots search in one worker process for 0.05 s a decision; a seat handed over plays
    at the table's ``strong`` level too.  Decision clock of 5 s: the person answers in time."""
    server = servers(*FAST, "--bot-processes", "1", "--move-log-level", "info")
    clock = m.Clock("custom", turn=120, bank=0, decision=5, grace=120, strikes=0)
    lobby = await Lobby.connect(server.url)
    try:
        created = await lobby.create(3, clock=clock, handover_bot="strong")
        table = created.table
        token = (await lobby.join(table, "Ada")).token
        await lobby.add_bot(table, token, "strong")
        await lobby.add_bot(table, token, "random")
        info = await lobby.table(table)
        assert info is not None and info.clock is not None and info.clock.decision == 5
        assert (await lobby.start(table, token)).outcome == "accepted"
        seat = await Seat.sit(server.url, table, token)
        try:
            await seat.play(GreedyPolicy(1), timeout=240)
            assert seat.over and seat.error is None
            assert [p["bot"] for p in seat.view["players"]] == [None, "strong", "random"]
        finally:
            await seat.close()
        transcript = await lobby.transcript(table)
        report = replay(transcript)
        assert report.ok, report.problem
    finally:
        await lobby.close()
    output = server.output()
    assert '"event": "bot move"' in output and '"bot": "strong"' in output  # (JSON lines)
    assert "strong bot failed" not in output  # the pool searched every decision
    assert server.stop() == 0  # (the pool is closed with the node)


async def test_bot_flags_are_checked(servers: Callable[..., ServerProcess]) -> None:
    for flags in (("--bot-budget", "0"), ("--bot-budget", "11"), ("--bot-processes", "-1")):
        with pytest.raises(RuntimeError, match="--bot-"):
            servers(*flags)
    server = servers("--bot-processes", "0", "--bot-budget", "0.01", "--bot-delay", "0")
    lobby = await Lobby.connect(server.url)
    try:  # searches in a thread: a table of bots only plays to the end all the same
        table = (await lobby.create(2)).table
        token = (await lobby.join(table, "Ada")).token
        await lobby.add_bot(table, token, "strong")
        await lobby.start(table, token)
        seat = await Seat.sit(server.url, table, token)
        try:
            assert (await seat.play_for_me()).outcome == "accepted"
            async with asyncio.timeout(240):
                await seat.wait(lambda: seat.over)
        finally:
            await seat.close()
    finally:
        await lobby.close()
