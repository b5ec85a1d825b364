"""The strong bot's rollouts (echoridge_client.rollout) make exactly the greedy bot's decisions.

The reference is the plain way: at every step the acting seat's full view (``view``) and its
legal commands, and ``GreedyPolicy.choose``.  From sampled worlds of real positions (competitive
4 and 2 seats, co-op 3), both ways play the rest of the game with the same luck, and must reach
the same end, command for command.
"""

from __future__ import annotations

import functools
import random

from echoridge.simulate import acting_seat, game_seed
from echoridge_client.determinize import sample
from echoridge_client.policies import GreedyPolicy
from echoridge_client.rollout import greedy_command, light_view, rollout
from echoridge_client.search import searchable
from echoridge_rules import Rng, Seat, State, Status, ViewCache, decide, evolve, view
from echoridge_rules.commands import StartGame
from echoridge_rules.errors import RuleViolation
from echoridge_rules.serial import load


@functools.cache
def _positions(players: int, mode: str, game: int) -> tuple[State, ...]:
    """The states of a greedy game where the active seat's search would choose."""
    bots = [GreedyPolicy(f"{game}/{s}".encode()) for s in range(players)]
    rng = Rng(game_seed(41, game), "rollout")
    state, cmd, out = State(), StartGame(players, mode=mode), []
    for _ in range(5_000):
        for event in decide(state, cmd, rng):
            state = evolve(state, event)
        seat = acting_seat(state)
        if seat is None:
            return tuple(out)
        v = view(state, Seat(seat))
        if searchable(v):
            out.append(state)
        cmd = load(bots[seat].choose(v, v["you"]["legal"]))
    raise AssertionError("the game did not end")


def _plain_rollout(state: State, command: object, luck: bytes) -> tuple[State, list[object]]:
    """search.simulate's former loop: full views, all legal commands, GreedyPolicy."""
    rng = Rng(luck, "search")
    chooser = random.Random(luck)
    cache = ViewCache()
    for event in decide(state, command, rng):  # type: ignore[arg-type]
        state = evolve(state, event)
    picks: list[object] = []
    for _ in range(400):
        if state.status is not Status.PLAYING:
            break
        actor = state.pending[0].seat if state.pending else state.turn.seat  # type: ignore[union-attr]
        seen = view(state, Seat(actor), cache)
        legal = seen["you"]["legal"]
        if not legal:
            break
        pick = load(GreedyPolicy(chooser.getrandbits(32)).choose(seen, legal))
        picks.append(pick)
        try:
            for event in decide(state, pick, rng):
                state = evolve(state, event)
        except RuleViolation:
            break
    return state, picks


def test_rollouts_make_the_greedy_bots_decisions_in_every_mode() -> None:
    compared = ended = steps = 0
    for players, mode, game in ((4, "", 0), (2, "", 1), (3, "cooperative", 2), (4, "", 3)):
        positions = _positions(players, mode, game)
        for k, state in enumerate(positions[:: max(1, len(positions) // 6)]):
            seat = state.turn.seat if state.turn is not None else 0
            mine = view(state, Seat(seat))
            first = load(GreedyPolicy(b"r").choose(mine, mine["you"]["legal"]))
            world = sample(mine, random.Random(k))
            luck = f"{game}/{k}".encode()
            expected, picks = _plain_rollout(world, first, luck)
            assert rollout(world, first, luck) == expected, (players, mode, game, k)
            compared += 1
            ended += expected.status is not Status.PLAYING
            steps += len(picks)
    assert compared >= 20 and ended == compared  # (rollouts to the game's end)
    assert steps > 1000


def test_each_step_is_greedys_choice_from_the_light_view() -> None:
    """Step by step along a game: greedy's choice from the light view equals its choice from the
    full view, and the light view's sections equal the full view's."""
    state = _positions(4, "", 4)[0]
    cache = ViewCache()
    rng = Rng(b"steps", "search")
    steps = 0
    while state.status is Status.PLAYING and steps < 200:
        actor = state.pending[0].seat if state.pending else state.turn.seat  # type: ignore[union-attr]
        full = view(state, Seat(actor))
        light = light_view(state, actor, cache)
        for key in ("turn", "city", "events", "evidence", "players", "looks", "suspects", "coop"):
            if key == "city" and full["you"]["known_tokens"]:
                continue  # (the seat's known values: greedy reads them from known_tokens)
            assert light[key] == full[key], key
        for key in ("seat", "suspects", "seen", "known_tokens", "traits", "team"):
            assert light["you"][key] == full["you"][key], key
        expected = load(GreedyPolicy(steps).choose(full, full["you"]["legal"]))
        assert greedy_command(state, actor, steps, cache) == expected
        for event in decide(state, expected, rng):
            state = evolve(state, event)
        steps += 1
    assert steps >= 60
