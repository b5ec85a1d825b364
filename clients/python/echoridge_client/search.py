"""The bot levels: ``easy``, ``normal`` and ``strong`` (SPEC.md, "Bot levels").

* ``EasyPolicy`` (``easy``): random with sense.  It never names a suspect it knows is innocent,
  answers decisions as the greedy bot does, and on its turns picks at random among the things a
  new player would try (an action here, or a drive), with a Coffee Break only when nothing else
  is possible.
* ``GreedyPolicy`` (``normal``, policies.py): the heuristic.
* ``StrongPolicy`` (``strong``): determinized Monte Carlo search over the seat's information set.

How ``StrongPolicy`` decides a turn (any other decision, the answers and the accusation, is the
greedy bot's, whose reasoning over known innocents and traits is already exact):

1. **Candidates.**  The greedy bot's pick, and the best few others by its scores (value per
   hour; ``WIDTH``, one drive per destination).
2. **Determinization.**  ``determinize.sample(view, rng)`` builds a whole engine ``State`` from
   the seat's view alone: everything the seat has not seen (the murderer, other hands, the decks,
   face-down tokens) drawn at random consistently with all it knows.  The true state is never
   an input, so the bot cannot cheat (tests/clients/test_search.py checks that worlds the seat
   cannot tell apart give the same decisions).
3. **Simulation.**  On each sampled world every candidate is played with the engine, then the
   rest of the game with greedy policies for every seat (dice, draws and answers from a
   generator shared by the candidates of one world, so they are compared on the same luck).
4. **Evaluation.**  The end is scored by the seat's chance to win (``evaluate``): each officer
   names the murderer with a chance of one in the suspects it cannot rule out, and the
   tie-break (badge, then time track) of rules.md §12 decides among those right; in co-op, the
   team's chance.  (A simulation cut short is scored the same way, with the clues each officer
   holds towards unsolved evidence counted as information to come.)
5. **Choice.**  A candidate replaces the greedy pick only if its mean gain over it, paired
   world by world, clears ``CONFIDENCE`` standard errors after at least ``MIN_SAMPLES`` worlds:
   the largest of a few noisy estimates is mostly noise.  The search stops at its time
   ``budget`` (wall seconds per decision) or after a fixed number of ``simulations`` (then the
   same seed gives the same decisions: tests and benches).  Early in a game, when a simulation
   to the end is long, the budget often allows too few worlds and the greedy pick stands.

How strong it is: bench/bots_bench.py (docs/clients.md has the last measurements).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from typing import Any

from echoridge_client.botdata import Command, View, as_block, of_kind
from echoridge_client.greedy import Turn
from echoridge_client.policies import GreedyPolicy, RandomPolicy

LEVELS = ("easy", "normal", "strong")
DEFAULT_BUDGET = 0.5  # seconds of wall time per decision the strong bot may search
WIDTH = 6  # candidate commands the search compares besides the greedy pick
CONFIDENCE = 2.0  # standard errors a gain over the greedy pick must clear
MIN_SAMPLES = 4  # samples before a candidate may replace the greedy pick
SEARCHED_PHASES = ("w1", "w2")  # turn phases in which the search chooses the action

Sampler = Callable[[View, random.Random], Any]


class EasyPolicy:
    """Random with sense (see the module docstring); the same seed gives the same choices."""

    def __init__(self, seed: int | bytes | None = None) -> None:
        self._rng = random.Random(seed)
        self._greedy = GreedyPolicy(seed)

    def choose(self, view: View, legal: list[Command]) -> Command:
        if not legal:
            raise ValueError("no legal command to choose from")
        kinds = {c.get("type") for c in legal}
        turn = view.get("turn") or {}
        you = view.get("you") or {}
        mine = turn.get("seat") == you.get("seat") and not you.get("decision")
        if "accuse" in kinds or not mine or turn.get("phase") not in SEARCHED_PHASES:
            return self._greedy.choose(view, legal)
        tries = [c for c in legal if c.get("type") not in ("coffee_break", "play_force")]
        drives: dict[Any, Command] = {}
        for c in of_kind(tries, "drive"):  # one drive per destination: no wandering in circles
            path = c.get("path") or ()
            if path:
                drives.setdefault(tuple(path[-1]), c)
        pool = [c for c in tries if c.get("type") != "drive"] + list(drives.values())
        return self._rng.choice(pool) if pool else self._greedy.choose(view, legal)


class StrongPolicy:
    """Determinized search (see the module docstring).

    ``budget``: seconds of wall time per decision; ``simulations``: a fixed number of sampled
    positions instead (deterministic for a seed); ``sampler``: how a position is sampled from a
    view (``determinize.sample``; tests may pass another).  ``decisions`` counts the searched
    decisions and ``samples`` the positions simulated, for reports."""

    def __init__(
        self,
        seed: int | bytes | None = None,
        budget: float = DEFAULT_BUDGET,
        simulations: int | None = None,
        sampler: Sampler | None = None,
    ) -> None:
        self._rng = random.Random(seed)
        self.budget = budget
        self.simulations = simulations
        self._greedy = GreedyPolicy(seed)
        self._sampler = sampler
        self.decisions = 0
        self.samples = 0
        self.fallbacks = 0

    def choose(self, view: View, legal: list[Command]) -> Command:
        if not legal:
            raise ValueError("no legal command to choose from")
        if len(legal) == 1:
            return legal[0]
        greedy = self._greedy.choose(view, legal)
        if not searchable(view):
            return greedy
        options = self.candidates(view, legal, greedy)
        if len(options) < 2:
            return greedy
        try:
            return self.search(view, options)
        except Exception:  # a position the sampler cannot rebuild, or a bug: play greedy
            self.fallbacks += 1
            return greedy

    def candidates(self, view: View, legal: list[Command], greedy: Command) -> list[Command]:
        """The greedy pick first, then the best-scored others (one drive per destination; no
        Coffee Break unless it is the greedy pick)."""
        scored = Turn(view, legal, random.Random(0)).scored()
        scored.sort(key=lambda sc: -sc[0])
        out = [greedy]
        ends: set[Any] = set()
        if greedy.get("type") == "drive" and greedy.get("path"):
            ends.add(as_block(greedy["path"][-1]))
        for _, c in scored:
            if len(out) > WIDTH:
                break
            if c is greedy or c.get("type") == "coffee_break":
                continue
            if c.get("type") == "drive":
                end = as_block((c.get("path") or [[0, 0]])[-1])
                if end in ends:
                    continue
                ends.add(end)
            out.append(c)
        return out

    def search(self, view: View, options: list[Command]) -> Command:
        from echoridge_rules.serial import load

        sampler = self._sampler
        if sampler is None:
            from echoridge_client.determinize import sample

            sampler = sample
        seat = int(view["you"]["seat"])
        commands = [load(c) for c in options]
        # diffs[i]: candidate i's score minus the greedy pick's, per sample (the same world
        # and luck for both: paired, so the noise they share cancels)
        diffs: list[list[float]] = [[] for _ in options]
        deadline = time.perf_counter() + self.budget
        done = 0
        while True:
            if self.simulations is not None:
                if done >= self.simulations:
                    break
            elif time.perf_counter() >= deadline:
                break
            state = sampler(view, self._rng)
            luck = self._rng.randbytes(16)
            base = simulate(state, seat, commands[0], luck)
            for i in range(1, len(commands)):
                diffs[i].append(simulate(state, seat, commands[i], luck) - base)
                if self.simulations is None and time.perf_counter() >= deadline:
                    break
            done += 1
        self.decisions += 1
        self.samples += done
        return options[better(diffs)]


def better(diffs: list[list[float]]) -> int:
    """The candidate to play: the one whose mean gain over the greedy pick (index 0) is largest,
    if that gain is clear of the noise (``CONFIDENCE`` standard errors), else the greedy pick:
    the maximum of a few noisy estimates is mostly noise, and the greedy pick is a good prior."""
    best, best_gain = 0, 0.0
    for i, ds in enumerate(diffs):
        if i == 0 or len(ds) < MIN_SAMPLES:
            continue
        mean = sum(ds) / len(ds)
        spread = math.sqrt(sum((d - mean) ** 2 for d in ds) / (len(ds) - 1))
        if mean > CONFIDENCE * spread / math.sqrt(len(ds)) and mean > best_gain:
            best, best_gain = i, mean
    return best


def searchable(view: View) -> bool:
    """Whether the search chooses here: the seat's own turn, before its action, no decision."""
    you = view.get("you") or {}
    turn = view.get("turn") or {}
    return (
        view.get("status") == "playing"
        and turn.get("seat") == you.get("seat")
        and turn.get("phase") in SEARCHED_PHASES
        and not view.get("decisions")
        and not you.get("decision")
    )


# --- simulation ---------------------------------------------------------------------------------


def simulate(state: Any, seat: int, command: Any, luck: bytes) -> float:
    """Play ``command`` on a sampled ``state``, then the rest of the game with greedy policies
    for every seat (``rollout.rollout``), and score the end for ``seat``.  ``luck`` seeds the
    dice and the policies."""
    from echoridge_client.rollout import rollout

    end = rollout(state, command, luck)
    return -1.0 if end is None else evaluate(end, seat)


# --- evaluation ---------------------------------------------------------------------------------

GAIN_SHARE = 0.8  # the chance an evidence one holds clues of is solved before the end
SOLVE_SHARE = 0.5  # the trait halves what is left
TIE_SLOPE = 2.0  # how sharply a badge level decides a tie-break (logistic)
SPACE_SLOPE = 0.35
TIE_POWER = 2.0  # ... and an hour on the time track


def evaluate(state: Any, seat: int) -> float:
    """The seat's estimated chance to win ``state`` (its game or its team's)."""
    from echoridge_rules.queries import coop

    chances = [_chance(state, p.seat) for p in state.players]
    if coop(state):
        return max(chances)  # the team's accusation: the best informed officer's
    me = state.players[seat]
    win = chances[seat]
    weight = _progress(state) ** TIE_POWER  # early leads in badge and time may not last
    for other in state.players:
        if other.seat == seat:
            continue
        edge = TIE_SLOPE * (other.badge - me.badge) + SPACE_SLOPE * (me.space - other.space)
        edge *= weight
        beats = 1.0 / (1.0 + math.exp(-edge))  # the other wins a tie with me
        win *= 1.0 - chances[other.seat] * beats
    return win


def _progress(state: Any) -> float:
    """How far the game is, 0 to 1: the share of the officers' hours used."""
    from echoridge_rules.queries import hour_cap

    cap = max(1, hour_cap(state))
    return sum(1.0 if p.ended else min(1.0, p.space / cap) for p in state.players) / max(
        1, len(state.players)
    )


def _chance(state: Any, seat: int) -> float:
    """The chance ``seat`` names the murderer at the end: one in the suspects it is expected to
    be unable to rule out by then."""
    from echoridge_rules import Status
    from echoridge_rules.data import CLUES_NEEDED, Evidence
    from echoridge_rules.queries import clues, holder

    left = len(suspects_left(state, seat))
    player = state.players[seat]
    if left <= 1:
        return 1.0
    rest = float(left - 1)
    for evidence in Evidence:  # a clue held towards an unsolved evidence: a Suspect to come,
        if state.status is not Status.PLAYING or holder(state, evidence) is not None:
            continue  # (and a chance to collect the last one; none once the game is over)
        mine = clues(state, player, evidence)
        if mine > 0:
            rest *= 1.0 - GAIN_SHARE / max(left, 2)
            rest *= 1.0 - SOLVE_SHARE * mine / CLUES_NEEDED[evidence]
    return 1.0 / (1.0 + rest)


def suspects_left(state: Any, seat: int) -> list[str]:
    """The suspects ``seat`` cannot rule out in ``state``: not held or seen (in co-op, not any
    officer's face-up card), and matching every trait of the murderer the seat knows."""
    from echoridge_rules.data import SUSPECTS, Evidence
    from echoridge_rules.queries import coop, knows_trait

    player = state.players[seat]
    out = set(player.suspects) | set(player.seen)
    if coop(state):
        for p in state.players:
            out.update(p.suspects)
    murderer = SUSPECTS[state.murderer]
    traits = [(e, murderer.trait(e)) for e in Evidence if knows_trait(state, seat, e)]
    return [
        s
        for s, spec in SUSPECTS.items()
        if s not in out and all(spec.trait(e) == value for e, value in traits)
    ]


# --- the levels ---------------------------------------------------------------------------------


def make_policy(kind: str, seed: int | bytes | None, budget: float = DEFAULT_BUDGET) -> Any:
    """The policy for a bot kind: a level (``easy``, ``normal``, ``strong``), or ``random``
    (uniform) and ``greedy`` (the same as ``normal``)."""
    if kind == "strong":
        return StrongPolicy(seed, budget=budget)
    if kind == "easy":
        return EasyPolicy(seed)
    if kind in ("normal", "greedy"):
        return GreedyPolicy(seed)
    if kind == "random":
        return RandomPolicy(seed)
    raise ValueError(f"unknown bot kind {kind!r}")


def strong_choice(
    view: View, legal: list[Command], seed: bytes, budget: float = DEFAULT_BUDGET
) -> Command:
    """One strong decision, for a process pool (arguments and result are plain data)."""
    return StrongPolicy(seed, budget=budget).choose(view, legal)


__all__ = [
    "DEFAULT_BUDGET",
    "LEVELS",
    "EasyPolicy",
    "StrongPolicy",
    "evaluate",
    "make_policy",
    "strong_choice",
    "suspects_left",
]
