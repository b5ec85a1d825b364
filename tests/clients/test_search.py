"""The bot levels of echoridge_client.search: the strong bot's search, and the easy bot.

The strong bot must not cheat: its only input is the seat's view.  The non-interference test
takes real positions, makes other worlds that look the same to the seat (another murderer, other
hands, decks and face-down tokens: ``determinize.sample`` of the seat's view, checked to give
the same view), and asks the bot with the same seed in each: the decisions must be the same.
The search's parts are checked against the engine and the view-side reasoning of the greedy bot.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Iterator

import pytest

from echoridge.simulate import acting_seat, game_seed
from echoridge_client.botdata import candidates
from echoridge_client.determinize import sample
from echoridge_client.policies import GreedyPolicy, Policy, RandomPolicy
from echoridge_client.search import (
    LEVELS,
    EasyPolicy,
    StrongPolicy,
    evaluate,
    make_policy,
    searchable,
    strong_choice,
    suspects_left,
)
from echoridge_rules import Rng, Seat, State, Status, decide, evolve, view
from echoridge_rules.commands import StartGame
from echoridge_rules.data import RULES_VERSION
from echoridge_rules.serial import load

MAX_COMMANDS = 5_000


def _play(policies: list[Policy], seed: bytes, mode: str = "") -> Iterator[State]:
    """Every state of one game (each after a command), to the end."""
    rng = Rng(seed, "search")
    state = State()
    cmd = StartGame(len(policies), mode=mode)
    for _ in range(MAX_COMMANDS):
        for event in decide(state, cmd, rng):
            state = evolve(state, event)
        yield state
        seat = acting_seat(state)
        if seat is None:
            assert state.status is Status.OVER
            return
        v = view(state, Seat(seat))
        legal = v["you"]["legal"]
        choice = policies[seat].choose(v, legal)
        assert any(choice is c for c in legal), choice
        cmd = load(choice)
    raise AssertionError("the game did not end")


@functools.cache
def _positions(players: int, mode: str, game: int) -> tuple[State, ...]:
    """The states of a greedy game where its active seat's search would choose."""
    policies: list[Policy] = [GreedyPolicy(f"{game}/{s}".encode()) for s in range(players)]
    out = []
    for state in _play(policies, game_seed(29, game), mode):
        if state.status is Status.PLAYING and state.turn is not None:
            v = view(state, Seat(state.turn.seat))
            if searchable(v):
                out.append(state)
    return tuple(out)


def test_the_strong_bot_decides_the_same_in_worlds_its_seat_cannot_tell_apart() -> None:
    asked = differed = murderers = 0
    for players, mode, game in ((4, "", 0), (3, "", 1), (2, "cooperative", 2)):
        positions = _positions(players, mode, game)  # (late ones: the simulations are short)
        for state in positions[len(positions) // 2 :: max(1, len(positions) // 8)]:
            seat = state.turn.seat if state.turn is not None else 0
            mine = view(state, Seat(seat))
            worlds = [state] + [
                sample(mine, random.Random(k), rules=RULES_VERSION) for k in range(1)
            ]
            views = [view(world, Seat(seat)) for world in worlds]
            assert all(v == mine for v in views)  # the seat cannot tell them apart
            murderers += len({w.murderer for w in worlds}) > 1
            picks = [
                StrongPolicy(b"same seed", simulations=4).choose(v, v["you"]["legal"])
                for v in views
            ]
            assert all(p == picks[0] for p in picks), (players, seat, picks)
            greedy = GreedyPolicy(b"same seed").choose(mine, mine["you"]["legal"])
            asked += 1
            differed += picks[0] != greedy
    assert murderers > 0  # the worlds really differed in the secret that matters most
    assert asked >= 9
    assert differed > 0  # (the search chose, not merely the greedy bot)


def test_a_sampled_world_is_scored_from_what_the_seat_knows() -> None:
    """``suspects_left`` of the true state is the view's candidates (the greedy bot's reasoning);
    scores are chances; the true world's score for the seat is among the sampled ones'."""
    for state in _positions(4, "", 0)[::5]:
        for seat in range(4):
            v = view(state, Seat(seat))
            assert suspects_left(state, seat) == candidates(v)
            assert 0.0 <= evaluate(state, seat) <= 1.0
    for state in _positions(2, "cooperative", 2)[::5]:
        for seat in range(2):
            assert suspects_left(state, seat) == candidates(view(state, Seat(seat)))


def test_a_fixed_number_of_simulations_gives_the_same_decision_for_a_seed() -> None:
    state = _positions(4, "", 0)[10]
    v = view(state, Seat(state.turn.seat if state.turn else 0))
    bots = [StrongPolicy(b"x", simulations=2) for _ in range(2)]
    assert bots[0].choose(v, v["you"]["legal"]) == bots[1].choose(v, v["you"]["legal"])
    assert bots[0].samples == 2 and bots[0].decisions == 1 and bots[0].fallbacks == 0
    # the process pool's entry point: plain data in and out, a member of legal
    assert strong_choice(v, v["you"]["legal"], b"x", budget=0.05) in v["you"]["legal"]


def test_candidates_hold_the_greedy_pick_and_one_drive_per_destination() -> None:
    for state in _positions(4, "", 0)[::4]:
        v = view(state, Seat(state.turn.seat if state.turn else 0))
        legal = v["you"]["legal"]
        greedy = GreedyPolicy(b"c").choose(v, legal)
        options = StrongPolicy(b"c").candidates(v, legal, greedy)
        assert options[0] is greedy
        assert all(any(o is c for c in legal) for o in options)
        ends = [tuple(o["path"][-1]) for o in options if o["type"] == "drive"]
        assert len(ends) == len(set(ends))
        assert len(options) == len({id(o) for o in options})


def test_a_position_the_sampler_refuses_falls_back_to_the_greedy_bot() -> None:
    def refuse(view: object, rng: random.Random) -> State:
        raise ValueError("cannot rebuild this")

    state = _positions(4, "", 0)[3]
    v = view(state, Seat(state.turn.seat if state.turn else 0))
    bot = StrongPolicy(b"f", simulations=2, sampler=refuse)
    pick = bot.choose(v, v["you"]["legal"])
    assert pick == GreedyPolicy(b"f").choose(v, v["you"]["legal"])
    assert bot.fallbacks == 1


@pytest.mark.parametrize("kind", [*LEVELS, "random", "greedy"])
def test_every_kind_plays_a_whole_game(kind: str) -> None:
    """Each kind in a seat of a game with random seats; a strong bot with a tiny budget."""
    bot = make_policy(kind, b"whole", budget=0.002)
    policies: list[Policy] = [bot, RandomPolicy(b"r1"), RandomPolicy(b"r2")]
    *_, end = _play(policies, game_seed(29, 7))
    assert end.status is Status.OVER


def test_the_easy_bot_never_names_a_known_innocent_and_plays_with_sense() -> None:
    kinds: Counter[str] = Counter()
    for game in range(3):
        bots: list[Policy] = [EasyPolicy(f"{game}/{s}".encode()) for s in range(3)]
        accusations = {}
        for state in _play(bots, game_seed(31, game)):
            if state.status is Status.OVER:
                accusations = {p.seat: p.accusation for p in state.players}
                for p in state.players:
                    assert p.accusation not in set(p.suspects) | set(p.seen)
            if state.turn is not None and state.status is Status.PLAYING:
                kinds.update(a for a in state.turn.actions)
        assert len(accusations) == 3
    assert kinds  # it took actions, not only breaks
