"""``ViewCache``: views made through it are exactly the views made without it (the strict
equality of the wire, as ``diff`` sees it), and consecutive views share unchanged subtrees."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from echoridge.simulate import game_seed, play_random
from echoridge_protocol.delta import diff, diff_sections
from echoridge_rules import EVERYONE, SPECTATOR, Seat, Status, ViewCache, view
from echoridge_rules.views import Viewer


def viewers(players: int) -> list[Viewer]:
    return [SPECTATOR, *(Seat(s) for s in range(players))]


@pytest.mark.parametrize(
    ("players", "game", "mode"),
    [(1, 0, "competitive"), (2, 1, "competitive"), (3, 2, "competitive"), (4, 3, "competitive"),
     (4, 4, "competitive"), (2, 5, "cooperative"), (2, 8, "cooperative"), (3, 6, "cooperative"),
     (4, 7, "cooperative")],
)
def test_cached_views_are_the_uncached_views(players: int, game: int, mode: str) -> None:
    """Co-op included: a player's entry and ``you`` follow the team's shared Force hand and the
    team's knowledge (a stale shared-hand count once broke 2-seat co-op transcripts)."""
    cache = ViewCache()
    before: dict[Viewer, Any] = {}
    steps = 0
    for _, _, state in play_random(players, game_seed(99, game), mode=mode):
        steps += 1
        for viewer in viewers(players) if state.status is not Status.NEW else [SPECTATOR]:
            cached = view(state, viewer, cache)
            plain = view(state, viewer)
            assert diff(plain, cached) == [] and diff(cached, plain) == []
            if viewer in before:
                old_cached, old_plain = before[viewer]
                assert diff(old_cached, cached) == diff(old_plain, plain)
            before[viewer] = (cached, plain)
        if state.status is Status.OVER:
            assert diff(view(state, EVERYONE), view(state, EVERYONE, cache)) == []
    assert steps > 20


def test_unchanged_sections_are_shared_between_versions() -> None:
    cache = ViewCache()
    views = [view(s, Seat(0), cache) for _, _, s in play_random(2, game_seed(5, 0))][1:]
    shared = sum(a["city"] is b["city"] for a, b in itertools.pairwise(views))
    blocks = sum(
        x is y
        for a, b in itertools.pairwise(views)
        for x, y in zip(a["city"]["blocks"], b["city"]["blocks"], strict=True)
    )
    assert views[0]["commitments"] is views[-1]["commitments"]
    assert shared > 0 and blocks > 20 * (len(views) - 1)
    # Without a cache nothing is shared.
    a, b = (view(s, Seat(0)) for _, _, s in list(play_random(2, game_seed(5, 0)))[3:5])
    assert a["commitments"] is not b["commitments"]


@pytest.mark.parametrize("game", range(4))
def test_cached_views_are_the_uncached_views_with_seat_commands(game: int) -> None:
    """The same with a turn clock and the seat commands (more time, play for me, take back,
    handover votes), time outs and handovers played now and then: the parts of a view the
    cache keeps (a player, ``you``, ``controls``) must follow every change they depend on."""
    from tests.rules.test_properties import play_game

    played = play_game(4, game_seed(7, game), game, defaults=0.6)
    kinds = {type(step.command).__name__ for step in played.steps}
    assert {"TakeBack", "AutoPass", "PlayForMe"} <= kinds
    if game < 3:  # (the random choices of game 3 make no vote)
        assert "VoteHandover" in kinds
    cache = ViewCache()
    for step in played.steps:
        state = step.after
        for viewer in viewers(4) if state.status is not Status.NEW else [SPECTATOR]:
            assert diff(view(state, viewer), view(state, viewer, cache)) == []


def test_sections_diffed_once_give_every_viewer_its_own_diff() -> None:
    """Fan-out diffs each shared section once per version (``diff_sections`` with one memo for
    every viewer): each viewer's ops are exactly ``diff`` of its two views, and the memo is
    used (the public sections are the same objects in every viewer's view)."""
    cache = ViewCache()
    before: dict[Viewer, Any] = {}
    reused = 0
    for _, _, state in play_random(4, game_seed(3, 1)):
        memo: dict[tuple[str, int, int], list[Any]] = {}
        for viewer in viewers(4) if state.status is not Status.NEW else [SPECTATOR]:
            new = view(state, viewer, cache)
            if viewer in before:
                size = len(memo)
                ops = diff_sections(before[viewer], new, memo)
                assert ops == diff(before[viewer], new)
                reused += size == len(memo) and bool(ops)
            before[viewer] = new
    assert reused > 20
