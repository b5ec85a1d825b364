"""Replays on a real server (issue 27, SPEC 4.7): after a 2-seat game, ``replay`` gives every
seat and a spectator, version by version, exactly the views and log entries their sessions were
sent during the game, and everyone's view ends at the transcript's ``final``; every page agrees
with the transcript (the SDK's check); a game in progress is refused with ``table/not_finished``,
a bad request with ``protocol/bad_field``."""

from __future__ import annotations

import asyncio
import copy
import time
from typing import Any

import msgpack
import pytest
import redis.asyncio as aioredis

from echoridge.store import keys
from echoridge_client.errors import Refused
from echoridge_client.lobby import Lobby
from echoridge_client.policies import RandomPolicy
from echoridge_client.replay import check_against_transcript
from echoridge_client.session import Seat, Spectator
from tests.conftest import RedisServer
from tests.e2e.conftest import ServerProcess


class Recording:
    """Keeps the view at every version the session reached, and the log as it grew."""

    views: dict[int, dict[str, Any]]

    async def _notify(self) -> None:
        session: Any = self
        if not hasattr(self, "views"):
            self.views = {}
        if session.version >= 0:
            self.views[session.version] = copy.deepcopy(session.view)
        await super()._notify()  # type: ignore[misc]


class RecordingSeat(Recording, Seat):
    pass


class RecordingSpectator(Recording, Spectator):
    pass


async def replayed(lobby: Lobby, table: str, seat: int | None, *, everyone: bool = False) -> Any:
    return [v async for v in lobby.replay(table, seat, everyone=everyone)]


async def test_every_seat_and_a_spectator_replay_what_they_were_sent(
    server: ServerProcess, redis_server: RedisServer
) -> None:
    url = server.url
    lobby = await Lobby.connect(url)
    try:
        table = (await lobby.create(2, public=True, spectators=True)).table
        names = (f"Ada{table[-6:]}", "Ben")  # (a name no other test's game has)
        tokens = [(await lobby.join(table, name)).token for name in names]
        seats = [await RecordingSeat.sit(url, table, t) for t in tokens]
        watcher = await RecordingSpectator.watch(url, table)
        with pytest.raises(Refused) as early:
            await lobby.replay_page(table, 0)
        assert early.value.code == "table/not_started"
        await lobby.start(table, tokens[0])
        await seats[0].until_version(1)
        with pytest.raises(Refused) as playing:
            await lobby.replay_page(table, 0)
        assert playing.value.code == "table/not_finished"
        await asyncio.gather(
            *(s.play(RandomPolicy(bytes([i]) * 8), timeout=120) for i, s in enumerate(seats))
        )
        last = seats[0].version
        await watcher.until_version(last)
        transcript = await lobby.transcript(table)
        assert len(transcript["entries"]) == last

        for seat, session in [(0, seats[0]), (1, seats[1]), (None, watcher)]:
            began = time.perf_counter()
            versions = await replayed(lobby, table, seat)
            assert [v.version for v in versions] == list(range(last + 1))
            for v in versions:
                if v.version in session.views:  # (every version a delta brought)
                    assert v.view == session.views[v.version], (seat, v.version)
            assert len(session.views) > last // 2
            assert [e for v in versions for e in v.log] == session.log
            check_against_transcript([(v.version, v.view) for v in versions], transcript, seat)
            print(
                f"replay of seat {seat}: {last + 1} versions in {time.perf_counter() - began:.3f} s"
            )
        everyone = await replayed(lobby, table, None, everyone=True)
        assert everyone[-1].view == transcript["final"]
        assert everyone[last // 2].view["secrets"] is not None
        check_against_transcript([(v.version, v.view) for v in everyone], transcript, everyone=True)

        for asked in ({"seat": 2}, {"seat": 0, "everyone": True}, {"start": last + 1}):
            with pytest.raises(Refused) as bad:
                await lobby.replay_page(table, **asked)
            assert bad.value.code == "protocol/bad_field"
        with pytest.raises(Refused) as unknown:
            await lobby.replay_page("t-0000000000", 0)
        assert unknown.value.code == "table/not_found"
        # the record of games: by a player's name (any case), and by table
        name = f"Ada{table[-6:]}"
        record = (await lobby.games(tables=[table, "t-0000000000"])).games
        assert [g.table for g in record] == [table]
        result = seats[0].view["result"]
        assert list(record[0].winners) == result["winners"]
        assert record[0].murderer == result["murderer"]
        assert [p.accusation for p in record[0].players] == result["accusations"]
        assert [p.name for p in record[0].players] == [name, "Ben"]
        assert record[0].version == last and record[0].ended >= record[0].started > 0
        turns = [e["number"] for e in seats[0].log if e["kind"] == "turn_began"]
        assert record[0].turns == max(turns) > 1
        by_name = await lobby.games(player=name.upper(), limit=5)
        assert [g.table for g in by_name.games] == [table] and by_name.next is None
        # a damaged record (a stored value missing its fields) is left out, not an error
        raw = aioredis.from_url(redis_server.url)
        try:
            await raw.set(keys.record("t-damaged"), msgpack.packb({"table": "t-damaged"}))
        finally:
            await raw.aclose()
        record = (await lobby.games(tables=["t-damaged", table])).games
        assert [g.table for g in record] == [table]
        for bad in ({"player": name, "tables": [table]}, {"cursor": "not-a-cursor"},
                    {"tables": [table], "cursor": "1:t-x"}):  # fmt: skip
            with pytest.raises(Refused) as refused:
                await lobby.games(**bad)
            assert refused.value.code == "protocol/bad_field", bad

        page = await lobby.replay_page(table, 1, start=last - 3, limit=2)
        assert [s.version for s in page.steps] == [last - 2, last - 1] and page.next == last - 1
    finally:
        for session in (*seats, watcher):
            await session.close()
        await lobby.close()
