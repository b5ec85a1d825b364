"""The bot policies (echoridge_client.policies) playing whole games in-process with the engine.

A seat's policy gets exactly what a seat receives: ``view(state, Seat(seat))`` and its
``["you"]["legal"]``; the chosen map goes back to the engine through ``serial.load``.  Every game is
deterministic (game seeds from ``simulate.game_seed``, policy seeds from the game and seat).
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from echoridge.rules import Rng, Seat, State, Status, decide, evolve, view
from echoridge.rules.commands import StartGame
from echoridge.rules.data import EVENTS, SUSPECTS, TRAITS, ResolveKind, TimeOfDay
from echoridge.rules.serial import load
from echoridge.simulate import acting_seat, game_seed
from echoridge_client.policies import (
    EVENT_REWARDS,
    NAB_EVENTS,
    SUSPECT_CODES,
    GreedyPolicy,
    Policy,
    RandomPolicy,
    candidates,
    innocents,
    suspect_trait,
)
from echoridge_client.policies import TRAITS as CLIENT_TRAITS

MAX_COMMANDS = 5_000
OnChoice = Callable[[int, dict[str, Any], dict[str, Any]], None]


def make(lineup: str, game: int) -> list[Policy]:
    """One policy per character of ``lineup``: ``g`` greedy, ``r`` random."""
    kinds: dict[str, Callable[[bytes], Policy]] = {"g": GreedyPolicy, "r": RandomPolicy}
    return [kinds[k](f"policy/{game}/{seat}".encode()) for seat, k in enumerate(lineup)]


def play(
    policies: Sequence[Policy],
    seed: bytes,
    on_choice: OnChoice | None = None,
    check_unchanged: bool = True,
) -> State:
    """Play one game to the end; every choice must be one of the seat's legal maps, unchanged
    (``check_unchanged``: and the list itself must be left as it was)."""
    rng = Rng(seed, "policies")
    state = State()
    cmd: Any = StartGame(len(policies))
    for _ in range(MAX_COMMANDS):
        for event in decide(state, cmd, rng):
            state = evolve(state, event)
        seat = acting_seat(state)
        if seat is None:
            assert state.status is Status.OVER
            return state
        v = view(state, Seat(seat))
        legal = v["you"]["legal"]
        before = copy.deepcopy(legal) if check_unchanged else None
        choice = policies[seat].choose(v, legal)
        assert any(choice is c for c in legal), choice
        assert before is None or legal == before  # nothing in the list was altered
        if on_choice is not None:
            on_choice(seat, v, choice)
        cmd = load(choice)
    raise AssertionError("the game did not end")


# --- the data copied into the client matches the server's -------------------------------------


def test_suspect_table_matches_the_rules() -> None:
    assert {s.id: s.code for s in SUSPECTS.values()} == SUSPECT_CODES
    assert {e.value: pair for e, pair in TRAITS.items()} == CLIENT_TRAITS
    for s in SUSPECTS.values():
        for e in TRAITS:
            assert suspect_trait(s.id, e.value) == s.trait(e)


def test_event_table_matches_the_rules() -> None:
    assert set(EVENT_REWARDS) == set(EVENTS)
    for card, spec in EVENTS.items():
        resolver, contributors, hours, night_only = EVENT_REWARDS[card]
        assert resolver == spec.resolver.value
        assert contributors == (spec.contributors.value if spec.contributors else None)
        assert hours == spec.resolve.hours
        assert night_only == (spec.resolve.time is TimeOfDay.NIGHT)
    assert {c for c, s in EVENTS.items() if s.resolve.kind is ResolveKind.NAB} == NAB_EVENTS


# --- always legal ------------------------------------------------------------------------------


@pytest.mark.parametrize("lineup", ["r", "g", "gr", "rg", "ggr", "gggg", "grgr", "rrrr"])
def test_policies_always_choose_a_legal_command(lineup: str) -> None:
    for game in range(4):
        policies = make(lineup, game)
        state = play(policies, game_seed(600 + len(lineup), game))
        assert len(state.players) == len(lineup)
        for p in policies:
            if isinstance(p, GreedyPolicy):
                assert p.fallbacks == 0  # the heuristic understood every view


def test_random_policy_is_deterministic_and_uniform() -> None:
    legal: list[dict[str, Any]] = [
        {"type": "coffee_break", "seat": 0},
        {"type": "arrest", "seat": 0},
        {"type": "call_for_backup", "seat": 0, "risk": 6, "night_shift": False},
    ]
    a, b = RandomPolicy(7), RandomPolicy(7)
    picks = [a.choose({}, legal) for _ in range(3000)]
    assert picks == [b.choose({}, legal) for _ in range(3000)]
    counts = Counter(legal.index(p) for p in picks)
    assert all(900 < counts[i] < 1100 for i in range(3))
    with pytest.raises(ValueError):
        a.choose({}, [])


def test_greedy_policy_is_deterministic() -> None:
    def transcript(seed: bytes) -> list[dict[str, Any]]:
        chosen: list[dict[str, Any]] = []
        play(make("gg", 1), seed, lambda _s, _v, c: chosen.append(c))
        return chosen

    assert transcript(game_seed(5, 0)) == transcript(game_seed(5, 0))


# --- the accusation ----------------------------------------------------------------------------


def _view(suspects: list[str], seen: list[str], traits: dict[str, str]) -> dict[str, Any]:
    legal = [{"type": "accuse", "seat": 0, "suspect": s} for s in SUSPECT_CODES]
    you = {
        "seat": 0,
        "suspects": suspects,
        "seen": seen,
        "traits": traits,
        "decision": {"seat": 0, "kind": "accusation"},
        "legal": legal,
    }
    return {"status": "accusing", "you": you, "players": [{"seat": 0}]}


def test_greedy_accuses_the_only_consistent_suspect() -> None:
    # Any 4 traits identify one suspect (rules.md §7.4): Blue Bees, Boss, Shoeprints and Car
    # leave only S11 (code 10100).
    traits = {"gang": "Blue Bees", "rank": "Boss", "forensics": "Shoeprints", "getaway": "Car"}
    v = _view([], [], traits)
    assert candidates(v) == ["S11"]
    for seed in range(20):
        assert GreedyPolicy(seed).choose(v, v["you"]["legal"])["suspect"] == "S11"


def test_greedy_accusation_excludes_innocents_and_follows_traits() -> None:
    v = _view(["S09", "S10"], ["S11", "S01"], {"gang": "Blue Bees"})
    expected = {"S12", "S13", "S14", "S15", "S16"}
    assert set(candidates(v)) == expected
    picked = {GreedyPolicy(seed).choose(v, v["you"]["legal"])["suspect"] for seed in range(60)}
    assert picked == expected  # the seed spreads the choice over all candidates


def test_greedy_accusations_in_real_games_respect_knowledge() -> None:
    checked = with_traits = 0

    def check(seat: int, v: dict[str, Any], choice: dict[str, Any]) -> None:
        nonlocal checked, with_traits
        if choice["type"] != "accuse" or seat != 0:
            return
        suspect = choice["suspect"]
        assert suspect not in innocents(v)
        assert suspect not in v["you"]["suspects"] and suspect not in v["you"]["seen"]
        for evidence, value in v["you"]["traits"].items():
            assert suspect_trait(suspect, evidence) == value
        assert suspect in candidates(v)
        checked += 1
        with_traits += bool(v["you"]["traits"])

    for game in range(16):
        state = play(make("grgr", game), game_seed(700, game), check)
        assert state.players[0].accusation is not None
    assert checked == 16
    assert with_traits >= 4  # the games really exercise trait reasoning


# --- strength ----------------------------------------------------------------------------------

STRENGTH_GAMES = 120  # greedy seat 0 against three random seats
CONTROL_GAMES = 60  # the reverse: random seat 0 against three greedy seats


def win_rates(lineup: str, games: int, base: int) -> list[float]:
    wins: Counter[int] = Counter()
    for game in range(games):
        state = play(make(lineup, game), game_seed(base, game), check_unchanged=False)
        wins.update(state.winners)
    return [wins[s] / games for s in range(len(lineup))]


def test_greedy_wins_clearly_more_often_than_random() -> None:
    # Measured (the seeds make it the same on every run): greedy seat 0 against three random
    # seats won 29% of these 120 games, the random seats 3.3%, 1.7% and 1.7% (about 1 in 16 as
    # blind guesses would); with seat 0 random against three greedy seats (60 games), the random
    # seat won 0% and the greedy seats 38%, 32% and 22% (200 and 100 games gave 32% against
    # 3.2%, and 0% against 29%).  The asserted margins (a 3x ratio, 15% floor) leave ample room.
    greedy_first = win_rates("grrr", STRENGTH_GAMES, 800)
    random_first = win_rates("rggg", CONTROL_GAMES, 900)
    print(f"\ngreedy seat 0 vs random 1-3: {greedy_first}")
    print(f"random seat 0 vs greedy 1-3: {random_first}")
    greedy, randoms = greedy_first[0], sum(greedy_first[1:]) / 3
    assert greedy >= 0.15
    assert greedy >= 3 * max(randoms, 0.02)
    control_random, control_greedy = random_first[0], sum(random_first[1:]) / 3
    assert control_greedy >= 0.15
    assert control_greedy >= 3 * max(control_random, 0.02)
