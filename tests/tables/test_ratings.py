"""Ratings as a projection (echoridge/ratings.py): the numbers are openskill's Plackett-Luce own,
game after game in end order; a rebuild from the same records gives the same numbers whatever
order they come in; a game counts once; a seat played for an absent player ranks last; bots,
guests, co-op and solo games do not rate people."""

from __future__ import annotations

import random
from typing import Any

from openskill.models import PlackettLuce

from echoridge.ratings import Ratings, placing, rate_all


def game(table: str, ended: int, people: list[str | None], winners: list[int], **extra: Any
         ) -> dict[str, Any]:  # fmt: skip
    players = [{"seat": i, "name": f"n{i}", "bot": None, "identity": who}
               for i, who in enumerate(people)]  # fmt: skip
    return {"table": table, "mode": "competitive", "seats": len(people), "players": players,
            "winners": winners, "ended": ended, **extra}  # fmt: skip


def test_the_numbers_are_the_librarys_own_game_after_game() -> None:
    games = [
        game("t1", 1, ["ada", "ben", "cy"], [0]),
        game("t2", 2, ["ben", "cy"], [1]),
        game("t3", 3, ["ada", "ben", "cy", "di"], [2, 3]),
    ]
    ours = rate_all(games)
    model = PlackettLuce()
    r = {p: model.rating(name=p) for p in ("ada", "ben", "cy", "di")}
    [[r["ada"]], [r["ben"]], [r["cy"]]] = model.rate(
        [[r["ada"]], [r["ben"]], [r["cy"]]], ranks=[1, 2, 2]
    )
    [[r["ben"]], [r["cy"]]] = model.rate([[r["ben"]], [r["cy"]]], ranks=[2, 1])
    teams = [[r["ada"]], [r["ben"]], [r["cy"]], [r["di"]]]
    [[r["ada"]], [r["ben"]], [r["cy"]], [r["di"]]] = model.rate(teams, ranks=[2, 2, 1, 1])
    for p, want in r.items():
        got = ours.get("competitive", p)
        assert got is not None and (got.mu, got.sigma) == (want.mu, want.sigma), p
    assert ours.get("competitive", "ada").games == 2  # type: ignore[union-attr]
    assert ours.get("competitive", "cy").shown > ours.get("competitive", "ben").shown  # type: ignore[union-attr]


def test_a_rebuild_gives_the_same_numbers_in_any_order_and_counts_a_game_once() -> None:
    rng = random.Random(28)
    people = ["ada", "ben", "cy", "di", "ed"]
    games = []
    for i in range(60):
        seated = rng.sample(people, rng.randint(2, 4))
        games.append(game(f"t{i}", 1000 + i, seated, rng.sample(range(len(seated)), 1)))
    once = rate_all(games)
    shuffled = games[:]
    rng.shuffle(shuffled)
    again = rate_all(shuffled + games[:5])  # (the same games seen twice: counted once)
    assert again.by_mode == once.by_mode and len(again.counted) == 60
    incremental = Ratings()
    for g in games:
        assert incremental.apply(g)
        assert not incremental.apply(g)  # a second node seeing the end changes nothing
    assert incremental.by_mode == once.by_mode
    assert all(not r.provisional for r in once.by_mode["competitive"].values())
    fresh = rate_all(games[:1])
    assert all(r.provisional for r in fresh.by_mode["competitive"].values())


def test_a_seat_played_for_an_absent_player_ranks_last() -> None:
    record = game("t", 1, ["ada", "ben", "cy"], [0])
    record["players"][2]["absent"] = True
    assert placing(record) == ("competitive", [("ada", 1), ("ben", 2), ("cy", 3)])


def test_bots_guests_coop_and_solo_rate_nobody() -> None:
    with_bot = game("t", 1, ["ada", None], [1])
    with_bot["players"][1]["bot"] = "greedy"
    assert placing(with_bot) is None  # one person left
    assert placing(game("t", 1, ["ada", None, "cy"], [1])) == (
        "competitive",
        [("ada", 2), ("cy", 2)],
    )
    assert placing({**game("t", 1, ["ada", "ben"], [0, 1]), "mode": "cooperative"}) is None
    assert placing(game("t", 1, ["ada"], [0])) is None


def test_a_table_that_rates_bots_rates_each_bot_seat_at_its_levels_own_rating() -> None:
    record = game("t", 1, ["ada", None, None, "ben"], [1])
    record["players"][1]["bot"] = "greedy"  # (the normal level's old name)
    record["players"][2]["bot"] = "strong"
    assert placing(record) == ("competitive", [("ada", 2), ("ben", 2)])
    rated = {**record, "rate_bots": True}
    assert placing(rated) == (
        "competitive",
        [("ada", 2), ("bot:normal", 1), ("bot:strong", 2), ("ben", 2)],
    )
    # one person against bots is rated too, and the bot level's rating moves with it
    solo_vs_bots = {**game("u", 2, ["ada", None], [0]), "rate_bots": True}
    solo_vs_bots["players"][1]["bot"] = "strong"
    ratings = rate_all([rated, solo_vs_bots])
    strong = ratings.get("competitive", "bot:strong")
    assert strong is not None and strong.games == 2


def test_a_stopped_game_rates_nobody() -> None:
    record = game("t", 1, ["ada", "ben", "cy"], [])
    assert placing(record) is not None
    assert placing({**record, "stopped": "operator"}) is None
