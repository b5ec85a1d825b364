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

from echoridge.simulate import acting_seat, game_seed, simulate
from echoridge_client.botdata import CLUE_ACTIONS as CLIENT_CLUE_ACTIONS
from echoridge_client.botdata import ROLE_ACTIONS
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
from echoridge_rules import Rng, Seat, State, Status, decide, evolve, view
from echoridge_rules.actions import ACTION_OF
from echoridge_rules.carddata import EVENTS, ResolveKind
from echoridge_rules.commands import StartGame
from echoridge_rules.coopdata import CLUE_ACTIONS, ROLES, ROLES_BY_COUNT
from echoridge_rules.data import SUSPECTS, TRAITS, Action, TimeOfDay
from echoridge_rules.serial import load, record_class

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
    mode: str = "",
) -> State:
    """Play one game to the end; every choice must be one of the seat's legal maps, unchanged
    (``check_unchanged``: and the list itself must be left as it was).  ``mode``: StartGame's
    (``"cooperative"`` for co-op, rules.md §14)."""
    rng = Rng(seed, "policies")
    state = State()
    cmd: Any = StartGame(len(policies), mode=mode)
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


# --- co-op (rules.md §14) ----------------------------------------------------------------------

COOP = "cooperative"


def test_role_table_matches_the_rules() -> None:
    def actions(types: frozenset[str]) -> frozenset[Action]:
        return frozenset(ACTION_OF[record_class(t)] for t in types)

    assert {r.id: r.actions for r in ROLES.values()} == {
        role: actions(types) for role, types in ROLE_ACTIONS.items()
    }
    assert actions(CLIENT_CLUE_ACTIONS) == CLUE_ACTIONS
    assert set(ROLES_BY_COUNT[4]) == set(ROLE_ACTIONS)


def _coop_view(
    face_up: list[list[str]], shown: dict[str, str], accusations: list[str | None], lead: int
) -> dict[str, Any]:
    v = _view([], [], {})
    v["mode"] = COOP
    v["coop"] = {"marker": 49, "cap": 48, "lead": lead, "shared_force": False}
    v["players"] = [{"seat": i, "face_up": cards} for i, cards in enumerate(face_up)]
    v["evidence"] = [{"evidence": e, "trait": shown.get(e)} for e in ("rank", "gang")]
    v["you"]["team"] = {"force": [[] for _ in face_up], "accusations": accusations}
    return v


def test_team_knowledge_is_every_face_up_card_and_every_shown_trait() -> None:
    # Seat 0's own view holds nothing: the teammates' face-up cards and the traits shown to
    # everyone narrow the field.  Blue Bees: S09-S16; Underboss: S13-S16; minus S13 and S15.
    v = _coop_view([[], ["S13"], ["S15", "S01"]], {"gang": "Blue Bees", "rank": "Underboss"},
                   [None, None, None], lead=1)  # fmt: skip
    assert innocents(v) == {"S13", "S15", "S01"}
    assert candidates(v) == ["S14", "S16"]
    # without the team's knowledge (a competitive view) the seat knows nothing
    assert len(candidates(_view([], [], {}))) == 16


def test_greedy_team_accuses_as_one() -> None:
    shown = {"gang": "Blue Bees", "rank": "Underboss"}  # S13-S16
    # nobody has accused yet: every seat, whatever its seed, names the first candidate
    v = _coop_view([[], ["S13"]], shown, [None, None], lead=1)
    picks = {GreedyPolicy(seed).choose(v, v["you"]["legal"])["suspect"] for seed in range(20)}
    assert picks == {"S14"}
    # the lead (seat 1) named S16: the team follows, before a teammate's S15
    v = _coop_view([[], ["S13"]], shown, ["S15", "S16"], lead=1)
    assert GreedyPolicy(0).choose(v, v["you"]["legal"])["suspect"] == "S16"
    # a teammate's choice when the lead has not chosen; never a known innocent
    v = _coop_view([[], ["S13"]], shown, ["S15", None], lead=1)
    assert GreedyPolicy(0).choose(v, v["you"]["legal"])["suspect"] == "S15"
    v = _coop_view([[], ["S13"]], shown, [None, "S13"], lead=1)
    assert GreedyPolicy(0).choose(v, v["you"]["legal"])["suspect"] == "S14"


@pytest.mark.parametrize("lineup", ["gg", "gr", "rg", "ggg", "grgr", "gggg"])
def test_policies_play_coop_games(lineup: str) -> None:
    clue_actions: Counter[str] = Counter()

    def check(seat: int, v: dict[str, Any], choice: dict[str, Any]) -> None:
        assert v["mode"] == COOP and v["you"]["team"] is not None
        kind = choice["type"]
        if kind in CLIENT_CLUE_ACTIONS:  # a clue action is one the seat's role has (§14)
            assert kind in ROLE_ACTIONS[v["players"][seat]["role"]], (kind, seat)
            clue_actions[kind] += 1

    for game in range(2):
        policies = make(lineup, game)
        state = play(policies, game_seed(1600 + len(lineup), game), check, mode=COOP)
        assert state.winners in ((), tuple(range(len(lineup))))  # the team wins or loses as one
        for p in policies:
            if isinstance(p, GreedyPolicy):
                assert p.fallbacks == 0  # the heuristic understood every co-op view
    assert clue_actions  # the games do take clue actions


COOP_GAMES = 12  # greedy co-op games per team size
RANDOM_GAMES = 40  # random play's co-op games per team size (echo-ridge simulate)


def coop_team_wins(lineup: str, base: int) -> float:
    """The share of COOP_GAMES co-op games that the all-greedy team of ``lineup`` won; the
    team must accuse as one, a suspect its knowledge allows."""

    def check(seat: int, v: dict[str, Any], choice: dict[str, Any]) -> None:
        if choice["type"] == "accuse":
            assert choice["suspect"] in candidates(v), (seat, choice)

    wins = 0
    for game in range(COOP_GAMES):
        state = play(make(lineup, game), game_seed(base, game), check, False, mode=COOP)
        assert len({p.accusation for p in state.players}) == 1  # every seat, the same suspect
        wins += bool(state.winners)
    return wins / COOP_GAMES


def test_greedy_team_wins_coop_games_far_more_often_than_random() -> None:
    # Measured (the seeds make it the same on every run): greedy teams won 12 of these 12
    # 2-seat games and 12 of 12 3-seat ones; random play (simulate) 1 of 40 and 5 of 40.  Over
    # 60 other games (seed 1100) greedy teams of 2, 3, 4 seats won 85%, 100%, 100% and random
    # teams 6.7%, 3.3%, 8.3% (simulate's 2000 random games at seed 7: 6.7%, 6.1%, 6.4%); the
    # greedy policy before co-op (its own cards only, day/night plans) won 20% and 35% with 2
    # and 3 seats.  The asserted floor (50%, and 30 points above random) leaves ample room.
    for players in (2, 3):
        greedy = coop_team_wins("g" * players, 1700 + players)
        random_play = simulate(RANDOM_GAMES, players, 1700 + players, mode=COOP)["win_rate"]
        print(f"\nco-op, {players} seats: greedy team {greedy:.2f}, random play {random_play:.2f}")
        assert greedy >= 0.5
        assert greedy >= random_play + 0.3
