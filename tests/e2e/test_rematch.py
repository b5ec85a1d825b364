"""The rematch (SPEC.md §4.6) through the SDK, on two server processes sharing one Redis: two
people and a greedy bot play to the end (one person on each server, a spectator on the
second); the rematch is refused before the end, and for a token that is not a seat; both
people ask for it at once on different servers and get one new table, with the old settings
and the bot in its seat; every session of the old table is told; the people join and it
starts."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from echoridge_client.errors import Refused
from echoridge_client.lobby import Lobby
from echoridge_client.policies import GreedyPolicy
from echoridge_client.session import Seat, Spectator
from echoridge_protocol import messages as m
from tests.e2e.conftest import ServerProcess

CLOCK = m.Clock(preset="custom", turn=600, bank=120, decision=300, grace=600, strikes=3)


async def listed_waiting(lobby: Lobby) -> set[str]:
    return {t.table for t in await lobby.tables(status="waiting")}


async def test_a_rematch_is_one_table_with_the_settings_and_bots_and_everyone_is_told(
    servers: Callable[..., ServerProcess],
) -> None:
    a, b = servers(), servers()
    ana_lobby, ben_lobby = await Lobby.connect(a.url), await Lobby.connect(b.url)
    sessions: list[Seat | Spectator] = []
    try:
        created = await ana_lobby.create(3, spectator_delay=2, clock=CLOCK)
        old = created.table
        ana = await ana_lobby.join(old, "Ana")
        ben = await ben_lobby.join(old, "Ben")
        await ana_lobby.add_bot(old, ana.token, "greedy")
        with pytest.raises(Refused) as early:
            await ana_lobby.rematch(old, ana.token)
        assert early.value.code == "table/not_started"
        await ana_lobby.start(old, ana.token)
        ana_seat = await Seat.sit(a.url, old, ana.token)
        ben_seat = await Seat.sit(b.url, old, ben.token)
        watcher = await Spectator.watch(b.url, old)
        sessions += [ana_seat, ben_seat, watcher]
        with pytest.raises(Refused) as playing:
            await ben_lobby.rematch(old, ben.token)
        assert playing.value.code == "table/not_finished"

        await asyncio.gather(
            ana_seat.play(GreedyPolicy(1), timeout=180),
            ben_seat.play(GreedyPolicy(2), timeout=180),
        )
        assert ana_seat.over and ben_seat.over
        for _ in range(100):  # the metadata says "over" just after the last delta
            info = await ana_lobby.table(old)
            if info is not None and info.status == "over":
                break
            await asyncio.sleep(0.05)

        with pytest.raises(Refused) as stranger:
            await ana_lobby.rematch(old, "not-a-token-of-this-table")
        assert stranger.value.code == "auth/bad_token"
        with pytest.raises(Refused) as elsewhere:
            await ana_lobby.rematch("t-nosuchtable", ana.token)
        assert elsewhere.value.code == "table/not_found"
        assert ana_seat.rematch_table is None

        before = await listed_waiting(ana_lobby)
        first, second = await asyncio.gather(
            ana_lobby.rematch(old, ana.token), ben_lobby.rematch(old, ben.token)
        )
        new = first.table
        assert second.table == new != old
        assert first.server_seed_commit == second.server_seed_commit
        assert [r.owner is not None for r in (first, second)].count(True) == 1  # one maker
        assert await listed_waiting(ana_lobby) - before == {new}  # one table made
        again = await ben_lobby.rematch(old, ben.token)
        assert (again.table, again.owner) == (new, None)

        # Every session of the old table is told, on both servers.
        for session in sessions:
            await session.wait(lambda s=session: s.rematch_table is not None, timeout=10)
            assert session.rematch_table == new
        old_info = await ben_lobby.table(old)
        assert old_info is not None and old_info.rematch == new
        late = await Spectator.watch(a.url, old)  # a session opened later learns it too
        sessions.append(late)
        await late.wait(lambda: late.rematch_table is not None, timeout=10)
        assert late.rematch_table == new

        info = await ana_lobby.table(new)
        assert info is not None and old_info is not None
        assert (info.status, info.seats, info.taken) == ("waiting", 3, 1)
        assert info.players == (m.SeatInfo(2, "Greedy 3", "greedy"),)
        assert (info.public, info.spectators, info.spectator_delay, info.mode) == (
            old_info.public, old_info.spectators, old_info.spectator_delay, old_info.mode
        )
        assert info.clock == old_info.clock and info.clock is not None
        assert (info.clock.turn, info.clock.bank, info.clock.strikes) == (600, 120, 3)
        assert info.server_seed_commit == first.server_seed_commit != created.server_seed_commit

        # The people join the rematch and it starts.
        ana2 = await ana_lobby.join(new, "Ana")
        ben2 = await ben_lobby.join(new, "Ben")
        assert {ana2.seat, ben2.seat} == {0, 1}
        await ben_lobby.start(new, ben2.token)
        seat = await Seat.sit(b.url, new, ben2.token)
        sessions.append(seat)
        assert seat.status != "new"
        names = [(p["name"], p["bot"]) for p in seat.view["players"]]
        assert names[2] == ("Greedy 3", "greedy")
    finally:
        for session in sessions:
            await session.close()
        await ana_lobby.close()
        await ben_lobby.close()
