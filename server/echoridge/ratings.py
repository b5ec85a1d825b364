"""Ratings as a projection of finished games (issue 28, a first step: the computation).

Ratings are never a truth of their own: they are computed from the archive's records of
finished games (store/archive.py), in end order, and ``rate_all`` over the same games gives the
same numbers every time (``echo-ridge ratings rebuild`` will run it; the server will apply each
game as it is archived, once, keyed by its table).  The model is openskill's Plackett-Luce
(Weng-Lin): made for free-for-all games of any number of players, deterministic, MIT, no
dependencies; a rating is (mu, sigma), shown as its ordinal mu - 3 sigma, provisional while
sigma is high.

What a game counts for (``placing``): only competitive games of 2 to 4 seats, and only their
people (an identity each: ``players[i].identity``; bots and guests are left out, and a game with
fewer than two rated people rates nobody), unless the table let bots count (``rate_bots``:
then each bot seat plays for its level's own rating, ``bot_identity``).  A game the operator
stopped before its end (``stopped``) is not rated.  Winners rank first;
the others after them, tied; a seat the server played for the player's absence (``players[i].
absent``) ranks last, as Board Game Arena ranks a leaver.  Co-op and solo games are not rated.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from openskill.models import PlackettLuce

PROVISIONAL_SIGMA = 6.0  # sigma above this: the rating is marked provisional (default 25/3)
RATED_MODES = ("competitive",)
BASE, SCALE = 1000, 40  # the shown rating: BASE + SCALE * (mu - 3 sigma)


def shown(mu: float, sigma: float) -> int:
    """A rating as players see it (SPEC.md §4.10): an integer, 1000 for a new player."""
    return max(0, round(BASE + SCALE * (mu - 3 * sigma)))


@dataclass(frozen=True, slots=True)
class Rating:
    mu: float
    sigma: float
    games: int

    @property
    def shown(self) -> int:
        """The number players see: a conservative estimate (mu - 3 sigma), scaled."""
        return shown(self.mu, self.sigma)

    @property
    def provisional(self) -> bool:
        return self.sigma > PROVISIONAL_SIGMA


@dataclass
class Ratings:
    """Every rated player's rating per mode, and the games counted (each table once)."""

    by_mode: dict[str, dict[str, Rating]] = field(default_factory=dict)
    counted: set[str] = field(default_factory=set)
    model: PlackettLuce = field(default_factory=PlackettLuce)

    def get(self, mode: str, player: str) -> Rating | None:
        return self.by_mode.get(mode, {}).get(player)

    def apply(self, record: Mapping[str, Any]) -> dict[str, tuple[Rating | None, Rating]] | None:
        """Count one finished game's record: each rated player's rating before it (None: a
        first game) and after; None when it rates nobody or was counted."""
        table = str(record.get("table", ""))
        placed = placing(record)
        if table in self.counted or placed is None:
            return None
        mode, places = placed
        return self.rate(mode, places, table)

    def rate(
        self, mode: str, places: list[tuple[str, int]], table: str
    ) -> dict[str, tuple[Rating | None, Rating]]:
        """Rate one game of ``mode`` from its places ((identity, rank), rank 1 the best)."""
        table_ratings = self.by_mode.setdefault(mode, {})
        teams = []
        for player, _ in places:
            known = table_ratings.get(player)
            if known is None:
                teams.append([self.model.rating(name=player)])
            else:
                teams.append([self.model.rating(mu=known.mu, sigma=known.sigma, name=player)])
        ranks = [float(rank) for _, rank in places]
        rated = self.model.rate(teams, ranks=ranks)
        changes: dict[str, tuple[Rating | None, Rating]] = {}
        for (player, _), [after] in zip(places, rated, strict=True):
            before = table_ratings.get(player)
            games = (before.games if before else 0) + 1
            table_ratings[player] = Rating(after.mu, after.sigma, games)
            changes[player] = (before, table_ratings[player])
        self.counted.add(table)
        return changes


def placing(record: Mapping[str, Any]) -> tuple[str, list[tuple[str, int]]] | None:
    """(mode, [(identity, rank)...]) for a game that rates its people, else None."""
    mode = record.get("mode")
    seats = int(record.get("seats") or 0)
    if mode not in RATED_MODES or not 2 <= seats <= 4:
        return None
    if record.get("stopped"):
        return None  # stopped before its end by the operator: nobody lost or won it
    winners = set(record.get("winners") or ())
    bots_count = bool(record.get("rate_bots"))
    places: list[tuple[str, int]] = []
    for p in record.get("players") or ():
        who = p.get("identity")
        if p.get("bot"):
            who = bot_identity(str(p["bot"])) if bots_count else None
        if not who:
            continue
        rank = 1 if p.get("seat") in winners else 2
        if p.get("absent"):
            rank = 3
        places.append((str(who), rank))
    return (str(mode), places) if len(places) >= 2 else None


def bot_identity(kind: str) -> str:
    """The rating of a server bot, one per level, shared by all its seats (a table that rates
    bots: ``create_table.rate_bots``): ``bot:normal`` (``greedy`` is ``normal``), ``bot:easy``,
    ``bot:strong``, ``bot:random``.  Never on the leaderboard (store/ratingstore.py)."""
    return "bot:" + ("normal" if kind == "greedy" else kind)


def is_bot(who: str) -> bool:
    return who.startswith("bot:")


def order(record: Mapping[str, Any]) -> tuple[int, str]:
    """Where a game comes in the order games are rated: by end (ms), then table id."""
    return int(record.get("ended") or 0), str(record.get("table"))


def rate_all(records: Iterable[Mapping[str, Any]]) -> Ratings:
    """The ratings of these games, counted in end order (then table id: a total order)."""
    ratings = Ratings()
    for record in sorted(records, key=order):
        ratings.apply(record)
    return ratings
