"""Ratings kept in Redis (store/ratingstore.py) on a real redis-server: a game counts once however
many connections apply it at once; games applied one by one give what a rebuild from the
records gives (``rate_all``), also when one arrives out of end order; the shown numbers are
openskill's own."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterable, Mapping
from typing import Any

import pytest
from openskill.models import PlackettLuce

from echoridge.ratings import rate_all, shown
from echoridge.store import Storage
from echoridge.store.ratingstore import FIRST, RatingStore


def players(n: int) -> list[str]:
    return ["p-" + uuid.uuid4().hex[:16] for _ in range(n)]


def record(table: str, ended: int, who: list[str], winners: list[int]) -> dict[str, Any]:
    return {
        "table": table,
        "mode": "competitive",
        "seats": len(who),
        "ended": ended,
        "winners": winners,
        "players": [{"seat": i, "name": f"P{i}", "identity": w} for i, w in enumerate(who)],
    }


async def each(records: Iterable[Mapping[str, Any]]) -> AsyncIterator[Mapping[str, Any]]:
    for r in records:
        yield r


@pytest.fixture
async def store(storage: Storage) -> RatingStore:
    # A projection of its own per test: these tests rebuild, which replaces every rating.
    old = [k async for k in storage.redis.scan_iter("er:{ratings}:*")]
    if old:
        await storage.redis.delete(*old)
    return storage.ratings


async def test_a_game_counts_once_however_many_apply_it_at_once(store: RatingStore) -> None:
    ada, ben, cy = players(3)
    game = record("t-" + uuid.uuid4().hex[:8], 1_000, [ada, ben, cy], [1])
    outcomes = await asyncio.gather(*(store.apply(game) for _ in range(8)))
    assert sorted(outcomes) == ["counted"] * 7 + ["ok"]
    rated = await store.get("competitive", [ada, ben, cy])
    assert {r.games for r in rated.values()} == {1}
    # openskill's own numbers: ben won, ada and cy tied behind
    model = PlackettLuce()
    [[a], [b], [c]] = model.rate(
        [[model.rating()], [model.rating()], [model.rating()]], ranks=[2.0, 1.0, 2.0]
    )
    assert rated[ben].mu == pytest.approx(b.mu) and rated[ben].sigma == pytest.approx(b.sigma)
    assert rated[ada].mu == pytest.approx(a.mu) and rated[cy].mu == pytest.approx(c.mu)
    changes = (await store.changes([game["table"]]))[game["table"]]
    assert changes[ben] == (FIRST, shown(b.mu, b.sigma))
    top = [who for who, _ in await store.top("competitive", 0, 3)]
    assert top[0] == ben


async def test_games_applied_at_once_lose_no_update(store: RatingStore) -> None:
    people = players(4)
    games = [
        record(f"t-{uuid.uuid4().hex[:8]}", 1_000 + n, [people[n % 4], people[(n + 1) % 4]], [0])
        for n in range(12)
    ]
    await asyncio.gather(*(store.apply(g, each(games)) for g in games))
    rated = await store.get("competitive", people)
    assert sum(r.games for r in rated.values()) == 24  # every game counted, for both players
    expected = rate_all(games).by_mode["competitive"]
    for who in people:
        assert rated[who].mu == pytest.approx(expected[who].mu)
        assert rated[who].sigma == pytest.approx(expected[who].sigma)


async def test_a_late_game_rebuilds_and_a_rebuild_gives_the_same_numbers(
    store: RatingStore,
) -> None:
    ada, ben, cy = players(3)
    first = record("t-a" + uuid.uuid4().hex[:8], 2_000, [ada, ben], [0])
    second = record("t-b" + uuid.uuid4().hex[:8], 3_000, [ben, cy], [1])
    late = record("t-c" + uuid.uuid4().hex[:8], 2_500, [ada, cy], [0])  # ended before second
    archive = [first, second, late]
    assert await store.apply(first, each(archive)) == "ok"
    assert await store.apply(second, each(archive)) == "ok"
    assert await store.apply(late, each(archive)) == "rebuilt"
    assert await store.apply(late, each(archive)) == "counted"
    expected = rate_all(archive).by_mode["competitive"]
    rated = await store.get("competitive", [ada, ben, cy])
    for who in (ada, ben, cy):
        assert rated[who].mu == pytest.approx(expected[who].mu)
    again = await store.rebuild(each(reversed(archive)))
    assert again.by_mode["competitive"] == expected
    assert await store.get("competitive", [ada, ben, cy]) == rated
    assert await store.counted(late["table"])


async def test_a_game_of_guests_bots_or_coop_rates_nobody(store: RatingStore) -> None:
    ada, ben = players(2)
    coop = record("t-" + uuid.uuid4().hex[:8], 1, [ada, ben], [0, 1]) | {"mode": "cooperative"}
    assert await store.apply(coop) == "unrated"
    guest = record("t-" + uuid.uuid4().hex[:8], 1, [ada, ben], [0])
    guest["players"][1]["identity"] = None
    assert await store.apply(guest) == "unrated"
    assert await store.get("competitive", [ada, ben]) == {}


async def test_a_bot_levels_rating_is_kept_but_never_on_the_leaderboard(store: RatingStore) -> None:
    (ada,) = players(1)
    game = record("t-" + uuid.uuid4().hex[:8], 1, [ada, "-"], [1]) | {"rate_bots": True}
    game["players"][1] = {"seat": 1, "name": "Strong 2", "bot": "strong", "identity": None}
    assert await store.apply(game) == "ok"
    rated = await store.get("competitive", [ada, "bot:strong"])
    assert set(rated) == {ada, "bot:strong"} and rated["bot:strong"].mu > rated[ada].mu
    assert [who for who, _ in await store.top("competitive", 0, 10)] == [ada]
    again = await store.rebuild(each([game]))
    assert again.get("competitive", "bot:strong") == rated["bot:strong"]
    assert [who for who, _ in await store.top("competitive", 0, 10)] == [ada]
