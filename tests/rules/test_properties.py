"""Property tests of the rules engine over whole random games.

Every game is played by seats that pick among ``legal_actions`` with a seeded chooser, so a game is
fully determined by (players, game seed, choice seed, policy, defaults).  Two policies are used:
``uniform`` picks any legal command, ``purposeful`` favours clue actions and Drives towards useful
blocks, which reaches evidence solving, looks, pools and `E`/`P` rewards far more often.  With
``defaults`` > 0 the server's ``ApplyDefault`` is sometimes sent instead of an answer.

Hypothesis runs derandomized and without a database, so the examples are the same on every run.
"""

from __future__ import annotations

import functools
import json
import random
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import Phase as HPhase
from hypothesis import strategies as st

from echoridge.simulate import acting_seat
from echoridge_protocol.fairness import commit
from echoridge_rules import (
    EVERYONE,
    SPECTATOR,
    Rng,
    RulesError,
    RuleViolation,
    Seat,
    State,
    Status,
    decide,
    evolve,
    fold,
    legal_actions,
    view,
)
from echoridge_rules import commands as c
from echoridge_rules import events as ev
from echoridge_rules.board import BLOCKS, NEIGHBOURS, index
from echoridge_rules.carddata import (
    ABILITIES,
    EVENT_IDS,
    EVENTS,
    FORCE_CARDS,
    FORCE_DECK,
    AllNight,
    DriveWaive,
    EventHandLimit,
    HandLimitDelta,
    LongDriveWaiver,
    SurchargeRow,
    SurchargeToken,
)
from echoridge_rules.coopdata import Mode
from echoridge_rules.data import (
    BADGE_MAX,
    COLORS,
    DAY_SPACES,
    EVENT_LINES,
    EVIDENCE_ORDER,
    HAND_LIMIT,
    HOURS,
    HQ,
    MOBSTERS_PER_COLOR,
    RULES_VERSION,
    SEARCH_TOKENS,
    STAKEOUT_VALUES,
    SUSPECT_IDS,
    SUSPECTS,
    TRAITS,
)
from echoridge_rules.decisions import ChooseAccusation, ChooseSlot
from echoridge_rules.engine import check
from echoridge_rules.legal import seat_controls
from echoridge_rules.model import ClueKind, Phase, Place
from echoridge_rules.serial import digest, from_plain, load, to_plain

# --- oracles: small independent readings of the rules -----------------------------------------


def is_coop(state: State) -> bool:
    return state.mode is Mode.COOPERATIVE


def knows_trait(state: State, seat: int, evidence: Any) -> bool:
    """§15: the Evidence token holder, and whoever learned the trait through an `E` reward;
    §14: in co-op everyone, once the evidence is solved."""
    if is_coop(state):
        return any(e is evidence for e, _ in state.solved)
    return (evidence, seat) in state.solved or evidence in state.players[seat].learned


def cap_of(state: State) -> int:
    """§4.4 and §14: 48, or in co-op the space below the Out-of-Time Marker."""
    return state.marker - 1 if is_coop(state) and state.marker is not None else HOURS


def shared(state: State) -> bool:
    """§14: two co-op officers share one Force hand."""
    return is_coop(state) and len(state.players) == 2


def hand_of(state: State, seat: int) -> tuple[str, ...]:
    return state.team_force if shared(state) else state.players[seat].force


def hand_limit(state: State, seat: int) -> int:
    """§9 hand limit 2, Quartermaster +1 (either officer's for a shared hand), HAND_LIMIT(-1)
    events."""
    limit = HAND_LIMIT
    seats = range(len(state.players)) if shared(state) else (seat,)
    if any(
        isinstance(ABILITIES[state.players[s].ability].effect, HandLimitDelta) for s in seats
    ):
        limit += 1
    for a in state.slots:
        if a is not None:
            limit += sum(e.delta for e in EVENTS[a.card].ongoing if isinstance(e, EventHandLimit))
    return max(0, limit)


def surcharge(state: State, block: tuple[int, int]) -> int:
    """§4.3: +1 h per SURCHARGE_TOKEN event with a token on the block, +1 h per SURCHARGE_ROW
    event with a token in the block's row."""
    extra = 0
    for a in state.slots:
        if a is None:
            continue
        for eff in EVENTS[a.card].ongoing:
            if isinstance(eff, SurchargeToken):
                extra += block in a.tokens
            elif isinstance(eff, SurchargeRow):
                extra += any(t[1] == block[1] for t in a.tokens)
    return extra


def drive_waivers(state: State, seat: int, length: int) -> int:
    """Base hours waived on a Drive of this many blocks: Code Three (played this turn) plus
    Wheelman on a Drive of 3+ blocks."""
    turn = state.turn
    assert turn is not None
    waived = sum(
        eff.blocks
        for card in turn.played
        if isinstance(eff := FORCE_CARDS[card].effect, DriveWaive)
    )
    eff = ABILITIES[state.players[seat].ability].effect
    if isinstance(eff, LongDriveWaiver) and length >= eff.min_drive:
        waived += eff.blocks
    return waived


def drive_hours(state: State, seat: int, path: tuple[tuple[int, int], ...]) -> int:
    return (
        len(path)
        - min(len(path), drive_waivers(state, seat, len(path)))
        + sum(surcharge(state, b) for b in path)
    )


# --- playing random games ------------------------------------------------------------------------

MAX_COMMANDS = 5_000
TABLE = "props"


@dataclass(frozen=True)
class Step:
    before: State
    command: c.Command
    events: tuple[ev.Event, ...]
    after: State


@dataclass(frozen=True)
class Game:
    players: int
    seed: bytes
    choices: int
    policy: str
    defaults: float
    steps: tuple[Step, ...]
    mode: str = ""

    @property
    def final(self) -> State:
        return self.steps[-1].after

    @property
    def commands(self) -> list[c.Command]:
        return [s.command for s in self.steps]

    @property
    def events(self) -> list[ev.Event]:
        return [e for s in self.steps for e in s.events]

    def states(self) -> Iterator[State]:
        yield self.steps[0].before
        for s in self.steps:
            yield s.after

    def repro(self) -> str:
        return (
            f"play_game(players={self.players}, seed={self.seed!r}, choices={self.choices}, "
            f"policy={self.policy!r}, defaults={self.defaults}, mode={self.mode!r})"
        )


_WEIGHTS: dict[type, float] = {
    c.CatchInformant: 30,
    c.CatchWitness: 30,
    c.SearchScene: 30,
    c.BookMobster: 30,
    c.HoldMobster: 10,
    c.ResolveEvent: 15,
    c.Arrest: 6,
    c.CallForBackup: 1,
    c.CoffeeBreak: 0.3,
    c.PlayForce: 3,
    c.Proceed: 1,
}


def _usefulness(state: State, block: tuple[int, int]) -> float:
    w = 0.2
    if state.mobsters[index(block)] is not None:
        w += 2
    w += 4 * sum(1 for t in state.tokens if t.block == block and t.place is Place.CITY)
    w += 2 * sum(1 for a in state.slots if a is not None and block in a.tokens)
    if block == HQ and any(p.holding for p in state.players):
        w += 3
    return w


def _weight(state: State, cmd: c.Command) -> float:
    if isinstance(cmd, c.Drive):
        return _usefulness(state, cmd.path[-1]) / len(cmd.path)
    if isinstance(cmd, c.Stakeout):
        return 4.0 * cmd.risk
    return _WEIGHTS.get(type(cmd), 1.0)


def owes_something(state: State, seat: int) -> bool:
    """Whether ApplyDefault(seat) has something to apply: a decision, or an open W3/W4."""
    if any(d.seat == seat for d in state.pending):
        return True
    turn = state.turn
    return turn is not None and turn.seat == seat and turn.phase in (Phase.W3, Phase.W4)


def seat_moves(state: State, seat: int) -> list[c.Command]:
    """The seat commands a seat may send now, and the server's time out and handover."""
    out = list(seat_controls(state, seat))
    for server in (c.TimeOut(seat), c.HandOver(seat, "away")):
        try:
            check(state, server)
        except RuleViolation:
            continue
        out.append(server)
    return out


def next_actor(state: State, r: random.Random) -> int | None:
    if state.pending and all(isinstance(d, ChooseAccusation) for d in state.pending):
        return r.choice([d.seat for d in state.pending])  # accusations in any order
    return acting_seat(state)


@functools.lru_cache(maxsize=8)
def play_game(
    players: int,
    seed: bytes,
    choices: int,
    policy: str = "uniform",
    defaults: float = 0.0,
    mode: str = "",
) -> Game:
    """One game of random legal commands, under the current rules; decide raising on any of
    them fails the caller.  ``mode`` "cooperative" plays the co-op game (§14); with one player
    it means Solo."""
    if players == 1:
        mode = ""
    r = random.Random(choices)
    rng = Rng(seed, TABLE)
    state = State()
    # With defaults, the table also has a turn clock, and seats and clocks act now and then
    cmd: c.Command = c.StartGame(
        players, clock=(60, 120, 2) if defaults else (), mode=mode, rules=RULES_VERSION
    )
    steps: list[Step] = []
    while True:
        events = decide(state, cmd, rng)
        after = state
        for e in events:
            after = evolve(after, e)
        steps.append(Step(state, cmd, tuple(events), after))
        state = after
        seat = next_actor(state, r)
        if seat is None:
            break
        assert len(steps) < MAX_COMMANDS, "game did not end"
        if defaults and owes_something(state, seat) and r.random() < defaults:
            cmd = c.ApplyDefault(seat)
            continue
        if defaults and r.random() < defaults / 4:
            seat_commands = seat_moves(state, r.randrange(players))
            if seat_commands:
                cmd = r.choice(seat_commands)
                continue
        options = legal_actions(state, seat)
        assert options, f"seat {seat} owes a move but has no legal action"
        if policy == "purposeful":
            cmd = r.choices(options, [_weight(state, o) for o in options])[0]
        else:
            cmd = r.choice(options)
    return Game(players, seed, choices, policy, defaults, tuple(steps), mode)


def replay(
    players: int, seed: bytes, commands: list[c.Command], table: str = TABLE
) -> list[tuple[ev.Event, ...]]:
    rng = Rng(seed, table)
    state = State()
    out = []
    for cmd in commands:
        events = decide(state, cmd, rng)
        state = fold(events, state)
        out.append(tuple(events))
    return out


# Hypothesis drifts towards the "simplest" value of a strategy: listing 4 players first makes that
# the richest game rather than Solo.
game_params = st.tuples(
    st.sampled_from((4, 3, 2, 1)),
    st.binary(min_size=32, max_size=32),
    st.integers(0, 2**32 - 1),
    st.sampled_from(("uniform", "purposeful")),
    st.sampled_from((0.0, 0.0, 0.2)),
    st.sampled_from(("", "cooperative", "")),
)


def props(examples: int) -> settings:
    """Deterministic, database-free settings.  Shrinking is off: a failure message names the whole
    game (``play_game(...)``), which replays exactly, and shrinking whole games is very slow."""
    return settings(
        phases=(HPhase.explicit, HPhase.reuse, HPhase.generate),
        max_examples=examples,
        deadline=None,
        derandomize=True,
        database=None,
        print_blob=False,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def sample_points(game: Game, k: int, salt: int) -> list[State]:
    """Up to k states of the game (never the empty pre-game state), chosen by the choice seed."""
    states = [s.after for s in game.steps]
    r = random.Random(game.choices * 7919 + salt)
    if len(states) <= k:
        return states
    # always include a few decision points, which are the richest states
    with_decisions = [s for s in states if s.pending]
    picked = r.sample(with_decisions, min(len(with_decisions), k // 3))
    rest = [s for s in states if not any(s is p for p in picked)]
    return picked + r.sample(rest, k - len(picked))


# --- 1. random legal games always finish ---------------------------------------------------------


@props(40)
@given(game_params)
def test_random_legal_games_finish_with_every_seat_accused(params: tuple) -> None:
    game = play_game(*params)  # decide raised on no command taken from legal_actions
    final = game.final
    assert final.status is Status.OVER, game.repro()
    assert all(p.ended and p.accused for p in final.players), game.repro()
    assert not final.pending and not final.agenda and final.turn is None
    assert all(legal_actions(final, s) == () for s in range(game.players))
    assert sum(isinstance(e, ev.GameEnded) for e in game.events) == 1
    assert sum(isinstance(e, ev.Accused) for e in game.events) == game.players
    # Only the seat the game waits for has legal commands (every accuser during the accusation),
    # and a turn never gets stuck: Coffee Break is legal whenever an action is due (§5.2).
    for state in game.states():
        if state.status is not Status.PLAYING:
            continue
        actor = acting_seat(state)
        for seat in range(game.players):
            if seat != actor:
                assert legal_actions(state, seat) == (), (game.repro(), seat)
        turn = state.turn
        if (
            turn is not None
            and not state.pending
            and turn.phase in (Phase.W1, Phase.W2)
            and (not turn.actions or (turn.extra_action and len(turn.actions) == 1))
        ):
            assert c.CoffeeBreak(turn.seat) in legal_actions(state, turn.seat), game.repro()


# --- 2. fold ------------------------------------------------------------------------------------


@props(25)
@given(game_params)
def test_fold_matches_step_by_step_and_in_chunks_and_is_deterministic(params: tuple) -> None:
    game = play_game(*params)
    assert fold(game.events) == game.final
    state = State()
    for step in game.steps:
        assert step.before == state
        state = fold(step.events, state)
        assert state == step.after
    # the same seed and the same commands give identical events
    assert replay(game.players, game.seed, game.commands) == [s.events for s in game.steps]
    # decide is pure: asking again on the same state gives the same events
    for step in game.steps[:: max(1, len(game.steps) // 10)]:
        assert tuple(decide(step.before, step.command, Rng(game.seed, TABLE))) == step.events
    # every random draw is logged in order, and is the generator's value
    drawn = [e for e in game.events if isinstance(e, ev.Drawn)]
    assert [d.index for d in drawn] == list(range(len(drawn)))
    assert game.final.draws == len(drawn)
    rng = Rng(game.seed, TABLE)
    assert all(0 <= d.value < d.bound and rng.below(d.index, d.bound) == d.value for d in drawn)


# --- 3. legal_actions and decide agree ----------------------------------------------------------

OFF_BOARD = ((0, 3), (3, 0), (6, 3), (3, 6), (0, 0), (-1, 2))
ALL_BLOCKS = (*BLOCKS, *OFF_BOARD)
CARD_NAMES = (*FORCE_CARDS, "Code Three", "bogus", "")


def candidates(state: State, seat: int) -> list[c.Command]:
    """Many commands of every kind with plausible and implausible parameters (Drives excepted,
    but for a few paths that are never valid)."""
    n = len(state.players)
    targets: list[int | None] = [None, *range(-1, n + 2)]
    out: list[c.Command] = [
        c.Arrest(seat),
        c.CoffeeBreak(seat),
        c.HoldMobster(seat),
        c.BookMobster(seat),
        c.Proceed(seat),
        c.RestCase(seat, False),
        c.RestCase(seat, True),
        c.StartGame(n),
        c.StartGame(0),
        c.StartGame(5),
    ]
    for ns in (False, True):
        out += [c.CallForBackup(seat, r, ns) for r in range(0, 8)]
        out += [c.Stakeout(seat, r, ns) for r in range(0, 8)]
        out += [c.CatchInformant(seat, ns), c.CatchWitness(seat, ns), c.SearchScene(seat, ns)]
        out += [c.ResolveEvent(seat, slot, ns) for slot in range(-1, 5)]
    for card in CARD_NAMES:
        out.append(c.PlayForce(seat, card))
        out += [c.PlayForce(seat, card, b) for b in ALL_BLOCKS]
        out.append(c.DiscardForce(seat, card))
        out.append(c.TakeFromPool(seat, card))
    out += [c.GainSuspect(seat, t) for t in targets]
    out += [c.Interrogate(seat, t) for t in targets]
    out += [c.PickSlot(seat, k) for k in range(-1, 9)]
    out += [c.LearnTrait(seat, e) for e in EVIDENCE_ORDER]
    out += [c.PeekToken(seat, b) for b in ALL_BLOCKS]
    out += [c.Accuse(seat, s) for s in (*SUSPECT_IDS, "S00", "S17", "s01", "")]
    car = state.players[seat].car if 0 <= seat < n else HQ
    far = next(b for b in BLOCKS if abs(b[0] - car[0]) + abs(b[1] - car[1]) == 2)
    nb = NEIGHBOURS[car][0]
    out += [
        c.Drive(seat, ()),
        c.Drive(seat, (car,)),
        c.Drive(seat, (far,)),
        c.Drive(seat, (nb, far if far not in NEIGHBOURS[nb] else nb)),
        c.Drive(seat, ((car[0], 0),)),
        c.Drive(seat, ((6, 6),)),
        c.Drive(seat, (nb, car) * 33),  # longer than 64 blocks
    ]
    return out


def min_drive_hours(state: State, seat: int) -> dict[tuple[int, int], int]:
    """The true cheapest Drive hours to every block (walks of up to 64 blocks), with Code Three
    and Wheelman waivers and event surcharges."""
    start = state.players[seat].car
    sur = {b: surcharge(state, b) for b in BLOCKS}
    best: dict[tuple[int, int], int] = {}
    layer: dict[tuple[int, int], int] = {start: 0}  # least surcharge of a walk of this length
    for length in range(1, 65):
        nxt: dict[tuple[int, int], int] = {}
        for b, s in layer.items():
            for n in NEIGHBOURS[b]:
                v = s + sur[n]
                if v < nxt.get(n, 1 << 30):
                    nxt[n] = v
        layer = nxt
        base = length - min(length, drive_waivers(state, seat, length))
        for b, s in layer.items():
            best[b] = min(best.get(b, 1 << 30), base + s)
    return best


def check_agreement(state: State, rng: Rng, where: str) -> None:
    """legal_actions and decide agree at one state, for every seat (and a few that do not exist)."""
    n = len(state.players)
    for seat in range(-1, n + 2):
        legal = legal_actions(state, seat)
        assert len(set(legal)) == len(legal), f"duplicate legal commands {where}"
        for cmd in legal:
            try:
                decide(state, cmd, rng)
            except RuleViolation as exc:  # pragma: no cover - reported by the assert
                raise AssertionError(f"legal {cmd} refused ({exc}) {where}") from exc
        allowed = set(legal)
        for cmd in candidates(state, seat):
            if cmd in allowed:
                continue
            with pytest.raises(RuleViolation):
                decide(state, cmd, rng)
                pytest.fail(f"{cmd} is not in legal_actions but decide accepted it {where}")
        # ApplyDefault is a server command: accepted exactly when the seat owes something
        if 0 <= seat < n and owes_something(state, seat):
            decide(state, c.ApplyDefault(seat), rng)
        else:
            with pytest.raises(RuleViolation):
                decide(state, c.ApplyDefault(seat), rng)
        # Drives: legal_actions lists a cheapest path to every block a Drive can reach
        drives = [cmd for cmd in legal if isinstance(cmd, c.Drive)]
        turn = state.turn
        if drives or (
            0 <= seat < n
            and turn is not None
            and turn.seat == seat
            and turn.phase is Phase.W1
            and not state.pending
            and state.status is Status.PLAYING
        ):
            assert turn is not None
            car = state.players[seat].car
            best = min_drive_hours(state, seat)
            budget = cap_of(state) - 1 - turn.start
            reachable = {b for b, h in best.items() if h <= budget and b != car}
            listed = {d.path[-1]: d for d in drives}
            assert set(listed) == reachable, (
                f"Drives: missing {sorted(reachable - set(listed))}, "
                f"extra {sorted(set(listed) - reachable)} {where}"
            )
            for b, d in listed.items():
                hours = drive_hours(state, seat, d.path)
                assert hours == best[b], f"{d} costs {hours} h, cheapest {best[b]} h {where}"
            # any other path is legal too when its hours fit (rulings 23), and costs its hours
            walker = random.Random(state.draws * 31 + seat)
            for _ in range(12):
                path, here = [], car
                for _ in range(walker.randint(1, 7)):
                    here = walker.choice(NEIGHBOURS[here])
                    path.append(here)
                cmd = c.Drive(seat, tuple(path))
                hours = drive_hours(state, seat, cmd.path)
                if hours <= budget:
                    driven = [e for e in decide(state, cmd, rng) if isinstance(e, ev.CarDriven)]
                    assert [e.hours for e in driven] == [hours], f"{cmd} {where}"
                else:
                    with pytest.raises(RuleViolation):
                        decide(state, cmd, rng)
        else:
            for b in NEIGHBOURS[state.players[seat].car if 0 <= seat < n else HQ]:
                with pytest.raises(RuleViolation):
                    decide(state, c.Drive(seat, (b,)), rng)


@props(20)
@given(game_params)
def test_legal_actions_are_accepted_and_everything_else_is_refused(params: tuple) -> None:
    game = play_game(*params)
    rng = Rng(game.seed, TABLE)
    for i, state in enumerate(sample_points(game, 12, salt=3)):
        check_agreement(state, rng, f"at point {i} of {game.repro()}")
    # before the start only StartGame is accepted
    for cmd in candidates(State(), 0):
        if isinstance(cmd, c.StartGame) and 1 <= cmd.players <= 4:
            decide(State(), cmd, rng)
        else:
            with pytest.raises(RuleViolation):
                decide(State(), cmd, rng)


def ill_typed(state: State, seat: int) -> list[c.Command]:
    """Commands whose seat, target or slot is a bool or a float equal to a valid int."""
    out: list[c.Command] = []
    for cls in (c.CoffeeBreak, c.Arrest, c.Proceed, c.ApplyDefault):
        out.append(cls(float(seat)))  # type: ignore[arg-type]
        if seat in (0, 1):
            out.append(cls(bool(seat)))  # type: ignore[arg-type]
    for t in range(len(state.players)):
        out += [c.GainSuspect(seat, float(t)), c.Interrogate(seat, float(t))]  # type: ignore[arg-type]
        if t in (0, 1):
            out += [c.GainSuspect(seat, bool(t)), c.Interrogate(seat, bool(t))]
    out += [c.PickSlot(seat, True), c.PickSlot(seat, 1.0)]  # type: ignore[arg-type]
    out += [c.ResolveEvent(seat, True), c.ResolveEvent(seat, 1.0)]  # type: ignore[arg-type]
    return out


def test_ill_typed_parameters_are_refused() -> None:
    """Defence in depth (the wire decoder already rejects these): decide refuses a command whose
    int field holds a bool or a float, as it does for a risk (``CallForBackup(0, 2.0)``)."""
    wrong = []
    for players in (1, 2, 3, 4):
        game = play_game(players, bytes([9, players]) * 16, players, "purposeful")
        rng = Rng(game.seed, TABLE)
        for state in list(game.states())[1::3]:
            seat = acting_seat(state)
            if seat is None:
                continue
            for cmd in ill_typed(state, seat):
                try:
                    decide(state, cmd, rng)
                    wrong.append(f"{cmd} accepted")
                except RuleViolation:
                    pass
                except Exception as exc:
                    wrong.append(f"{cmd} raised {type(exc).__name__}: {exc}")
    assert not wrong, f"{len(wrong)} ill-typed commands not refused, e.g. {sorted(set(wrong))[:6]}"


# --- 4. other seats' secrets never change a view -------------------------------------------------


def _trait_key(suspect: str, known: list) -> tuple[str, ...]:
    return tuple(SUSPECTS[suspect].trait(e) for e in known)


@dataclass
class Perturbation:
    state: State
    changed: set[str]


def perturb_secrets(state: State, viewer: int | None, r: random.Random) -> Perturbation:
    """Change everything the viewer (a seat, or None for a spectator) may not know:
    - relabel the Suspect cards the viewer neither owns nor has seen, everywhere (other hands,
      deck, cards out of the game, other seats' seen/shown, pending slots, and the murderer
      among the suspects that share every trait the viewer knows); other seats' accusations
      become any suspect or none;
    - redistribute the Force deck and other seats' Force hands, keeping hand sizes;
    - permute the values of face-down and removed clue tokens the viewer has not looked at;
    - shuffle the event deck and the order of every pending slot pick.
    In co-op (§14) every hand is face up and solved traits are shown to everyone, and a seat
    knows what its team knows: the other seats' Force hands, accusations and looked-at tokens."""
    changed: set[str] = set()
    coop = is_coop(state)
    me = state.players[viewer] if viewer is not None else None
    team = coop and me is not None  # the viewer knows every teammate's secrets
    others = [p for p in state.players if me is None or p.seat != me.seat]
    hidden_from = [] if team else others  # the seats whose secrets the viewer does not know

    # Suspects: a relabelling pi of the free cards
    protected = set(me.suspects) | set(me.seen) | {card for _, card in me.shown} if me else set()
    if coop:
        protected |= {card for p in state.players for card in p.suspects}
    free = [s for s in SUSPECT_IDS if s not in protected]
    if coop:
        known = [e for e in EVIDENCE_ORDER if knows_trait(state, 0, e)]
    else:
        known = [e for e in EVIDENCE_ORDER if me and knows_trait(state, me.seat, e)]
    murderer = state.murderer
    pi: dict[str, str] = {}
    for _ in range(20):
        images = free[:]
        r.shuffle(images)
        pi = dict(zip(free, images, strict=True))
        if murderer in pi:
            same = [s for s in free if _trait_key(s, known) == _trait_key(murderer, known)]
            target = r.choice(same)
            source = next(k for k, v in pi.items() if v == target)
            pi[source], pi[murderer] = pi[murderer], target
        if any(k != v for k, v in pi.items()):
            break

    def rel(card: str) -> str:
        return pi.get(card, card)

    def rel_opt(card: str | None) -> str | None:
        return None if card is None else rel(card)

    players = list(state.players)
    for p in others:
        players[p.seat] = replace(
            p,
            suspects=tuple(map(rel, p.suspects)),
            seen=tuple(map(rel, p.seen)),
            shown=tuple((looker, rel(card)) for looker, card in p.shown),
            # an accusation is the accuser's secret until all are in (any suspect, or none);
            # in co-op the team's
            accusation=(
                p.accusation
                if team
                else rel_opt(p.accusation)
                if not p.accused
                else r.choice([*SUSPECT_IDS, None])
            ),
        )
    pending = tuple(
        replace(d, slots=tuple(r.sample([rel(x) for x in d.slots], len(d.slots))))
        if isinstance(d, ChooseSlot)
        else d
        for d in state.pending
    )
    new = replace(
        state,
        murderer=rel(murderer),
        suspect_deck=tuple(map(rel, state.suspect_deck)),
        suspects_out=tuple(map(rel, state.suspects_out)),
        pending=pending,
    )
    if (new.murderer, new.suspect_deck, new.suspects_out) != (
        state.murderer,
        state.suspect_deck,
        state.suspects_out,
    ) or any(players[p.seat].suspects != p.suspects for p in others):
        changed.add("suspects")

    # Force: the deck and other seats' hands (a spectator: the shared one), redistributed with
    # the same sizes
    team_hand = list(new.team_force) if me is None else []
    hidden = [
        *new.force_deck,
        *(card for p in hidden_from for card in players[p.seat].force),
        *team_hand,
    ]
    for _ in range(10):
        shuffled = hidden[:]
        r.shuffle(shuffled)
        if shuffled != hidden or len(set(hidden)) < 2:
            break
    if shuffled != hidden:
        changed.add("force")
    deck_size = len(new.force_deck)
    new = replace(new, force_deck=tuple(shuffled[:deck_size]))
    at = deck_size
    for p in hidden_from:
        size = len(players[p.seat].force)
        players[p.seat] = replace(players[p.seat], force=tuple(shuffled[at : at + size]))
        at += size
    new = replace(new, team_force=tuple(shuffled[at:]) if team_hand else new.team_force)

    # Clue tokens: values the viewer has not seen, permuted within each kind
    mine = me.known_tokens if me else frozenset()
    if team:
        mine = frozenset().union(*(p.known_tokens for p in state.players))
    tokens = list(new.tokens)
    for kind in ClueKind:
        spots = [
            i
            for i, t in enumerate(tokens)
            if t.kind is kind and t.place is not Place.MAT and t.block not in mine
        ]
        values = [tokens[i].value for i in spots]
        r.shuffle(values)
        if values != [tokens[i].value for i in spots]:
            changed.add("tokens")
        for i, v in zip(spots, values, strict=True):
            tokens[i] = replace(tokens[i], value=v)
    new = replace(new, tokens=tuple(tokens))
    # Which tokens another seat has looked at stays as it is: rulings 24 makes it public (the
    # Tip Line or `P` block, and a failed Stakeout's block, are public); only values are secret.

    # Event deck order
    deck = list(new.event_deck)
    r.shuffle(deck)
    if tuple(deck) != new.event_deck:
        changed.add("event_deck")
    new = replace(new, event_deck=tuple(deck), players=tuple(players))
    return Perturbation(new, changed)


@props(25)
@given(game_params)
def test_other_seats_secrets_never_change_a_view(params: tuple) -> None:
    game = play_game(*params)
    r = random.Random(game.choices)
    changed: Counter[str] = Counter()
    points = [s for s in sample_points(game, 15, salt=4) if s.status is not Status.OVER]
    accusing = [s for s in game.states() if s.status is Status.ACCUSING]
    points += accusing[-1:]  # some accusations are in, and secret
    for state in points:
        for viewer in (None, *range(game.players)):
            p = perturb_secrets(state, viewer, r)
            changed.update(p.changed)
            where = f"viewer {viewer}, {game.repro()}"
            assert view(p.state, SPECTATOR) == view(state, SPECTATOR), where
            if viewer is not None:
                assert view(p.state, Seat(viewer)) == view(state, Seat(viewer)), where
                # negative control: the viewer's own hand does show in its view
                me = state.players[viewer]
                if me.suspects and state.suspect_deck:
                    players = list(state.players)
                    players[viewer] = replace(
                        me, suspects=(state.suspect_deck[0], *me.suspects[1:])
                    )
                    swapped = replace(
                        state,
                        players=tuple(players),
                        suspect_deck=(me.suspects[0], *state.suspect_deck[1:]),
                    )
                    assert view(swapped, Seat(viewer)) != view(state, Seat(viewer))
                    # in co-op every hand is face up
                    same = view(swapped, SPECTATOR) == view(state, SPECTATOR)
                    assert same is not is_coop(state), where
    # the perturbations really change the state, so the test can fail
    assert changed["suspects"] >= len(points), changed
    assert changed["event_deck"] >= len(points) // 2, changed
    assert changed["force"] >= len(points) // 2, changed
    assert changed["tokens"] >= 1, changed


# --- 5. hidden information is absent from views --------------------------------------------------

SUSPECT_RE = re.compile(r"S\d\d")
TRAIT_VALUES = {v for pair in TRAITS.values() for v in pair}
EVENT_SET = set(EVENT_IDS)


def walk(obj: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from walk(v, (*path, k))
    elif isinstance(obj, list | tuple):
        for i, v in enumerate(obj):
            yield from walk(v, (*path, i))
    else:
        yield path, obj


def _public_force_path(path: tuple) -> bool:
    return path[:2] in (("force", "discard"), ("force", "pool")) or path[:2] == ("turn", "played")


def _event_path(path: tuple) -> bool:
    return (path[:2] == ("events", "slots") and path[-1] == "card") or path[:2] == (
        "events",
        "discard",
    )


def check_view_hides(state: State, viewer: int | None, where: str) -> None:
    v = view(state, Seat(viewer) if viewer is not None else SPECTATOR)
    assert json.loads(json.dumps(v)) == v, where  # plain data, ready for the wire
    assert v["secrets"] is None and v["result"] is None, where
    me = state.players[viewer] if viewer is not None else None
    coop = is_coop(state)
    face_up = {card for p in state.players for card in p.suspects} if coop else set()
    allowed_suspects: set[str] = set(face_up)  # co-op: every hand is face up (§14)
    team_known = frozenset().union(*(p.known_tokens for p in state.players))
    if me is not None:
        allowed_suspects |= set(me.suspects) | set(me.seen) | {card for _, card in me.shown}
        you = v["you"]
        # legal commands only name the seat's own cards, the pool, and (to accuse) every suspect
        accusable = set()
        for cmd in you["legal"]:
            if cmd["type"] in ("play_force", "discard_force"):
                assert cmd["card"] in hand_of(state, me.seat), where
            elif cmd["type"] == "take_from_pool":
                assert cmd["card"] in state.pool, where
            elif cmd["type"] == "accuse":
                accusable.add(cmd["suspect"])
        assert accusable in (set(), set(SUSPECT_IDS)), where
        assert you["suspects"] == list(me.suspects) and you["seen"] == list(me.seen), where
        assert you["force"] == list(hand_of(state, me.seat)), where
        assert set(you["traits"]) == {
            e.value for e in EVIDENCE_ORDER if knows_trait(state, viewer, e)
        }, where
        mine = team_known if coop else me.known_tokens
        assert {tuple(t["block"]) for t in you["known_tokens"]} == set(mine), where
        assert (you["team"] is not None) is coop, where
        v = {**v, "you": {**you, "legal": []}}
    else:
        assert v["you"] is None, where
    known = (team_known if coop else me.known_tokens) if me is not None else frozenset()
    assert (v["coop"] is not None) is coop, where
    for block in v["city"]["blocks"]:
        if block["clue"] is not None:
            seen_value = block["clue"]["value"] is not None
            assert seen_value == (tuple(block["block"]) in known), where
    for key in ("suspects", "force", "events"):
        assert isinstance(v[key]["deck"], int), where  # only the size of a deck
    for path, value in walk(v):
        if not isinstance(value, str):
            continue
        mine = path[:1] == ("you",)
        # co-op: face-up hands and solved traits are public, with their proofs (§14)
        public = coop and (
            (path[:1] == ("players",) and path[2] == "face_up")
            or (path[:1] == ("proofs",) and path[-1] == "value")
        )
        if SUSPECT_RE.fullmatch(value) or value in SUSPECTS:
            assert mine or public, f"suspect {value} at {path} {where}"
            own_accusation = path == ("you", "accusation") or (
                coop and path[:3] == ("you", "team", "accusations")
            )
            assert value in allowed_suspects or own_accusation, f"{value} at {path} {where}"
            assert value != state.murderer or own_accusation, f"murderer at {path} {where}"
        if value in FORCE_CARDS:
            team_hand = coop and path[:3] == ("you", "team", "force")
            assert _public_force_path(path) or path[:2] == ("you", "force") or team_hand, (
                path, where
            )
        if value in EVENT_SET:
            assert _event_path(path), f"event card {value} at {path} {where}"
        if value in TRAIT_VALUES:
            in_proof = path[:2] == ("you", "proofs") and path[-1] == "value"
            shown = coop and ((path[:1] == ("evidence",) and path[-1] == "trait") or public)
            assert path[:2] == ("you", "traits") or in_proof or shown, (
                f"trait {value} at {path} {where}"
            )
    check_proofs(v, where)


def check_proofs(v: dict, where: str) -> None:
    """Every proof in a view (public, or the viewer's own) opens its published commitment."""
    commitments = v["commitments"]
    decision = (v["you"] or {}).get("decision") or {}
    for proof in [*v["proofs"], *((v["you"] or {}).get("proofs") or [])]:
        digest = commit(proof["label"], proof["value"], bytes.fromhex(proof["salt"])).hex()
        if proof["label"].startswith("look/"):
            continue  # committed in the picker's decision when dealt (checked in the engine tests)
        assert commitments[proof["label"]] == digest, f"{proof} does not open {where}"
    for digest_hex in decision.get("commitments", []):
        assert len(bytes.fromhex(digest_hex)) == 32, where


@props(25)
@given(game_params)
def test_hidden_information_is_absent_from_views(params: tuple) -> None:
    game = play_game(*params)
    for state in game.states():
        if state.status is Status.OVER:
            v = view(state, EVERYONE)
            assert v["secrets"]["hands"] == [list(p.suspects) for p in state.players]
            assert view(state, SPECTATOR)["result"]["murderer"] == state.murderer
            continue
        if state.status is Status.NEW:
            continue
        with pytest.raises(RulesError):
            view(state, EVERYONE)
        check_view_hides(state, None, game.repro())
        for seat in range(game.players):
            check_view_hides(state, seat, f"seat {seat}, {game.repro()}")


# --- 6. serialization ---------------------------------------------------------------------------


def _wire(data: Any) -> Any:
    """Through msgpack and back (bytes stay bytes, tuples come back as lists)."""
    return msgpack.unpackb(msgpack.packb(data), raw=False)


@props(20)
@given(game_params)
def test_records_survive_serialization(params: tuple) -> None:
    game = play_game(*params)
    for step in game.steps:
        for record in (step.command, *step.events):
            plain = to_plain(record)
            assert load(plain) == record
            assert load(_wire(plain)) == record
    for state in game.states():
        plain = to_plain(state)
        assert from_plain(State, plain) == state
        back = from_plain(State, _wire(plain))
        assert back == state
        assert digest(back) == digest(state)


# --- 7. seeds -----------------------------------------------------------------------------------


@props(15)
@given(game_params, st.binary(min_size=32, max_size=32))
def test_same_seed_same_game_and_other_seed_other_setup(params: tuple, other: bytes) -> None:
    game = play_game(*params)
    again = replay(game.players, game.seed, game.commands)
    assert digest(fold(e for events in again for e in events)) == digest(game.final)
    assert [digest(list(events)) for events in again] == [
        digest(list(s.events)) for s in game.steps
    ]

    def setup(seed: bytes, table: str = TABLE) -> ev.GameStarted:
        events = decide(State(), game.commands[0], Rng(seed, table))
        return next(e for e in events if isinstance(e, ev.GameStarted))

    assert (
        setup(game.seed)
        == game.steps[0].events[
            next(i for i, e in enumerate(game.steps[0].events) if isinstance(e, ev.GameStarted))
        ]
    )
    if other != game.seed:
        assert setup(other) != setup(game.seed)
    assert setup(game.seed, "another table") != setup(game.seed)


# --- regression: invariants after every command --------------------------------------------------


def check_invariants(before: State, state: State, where: str) -> None:
    n = len(state.players)
    # mobsters: city + bag + mats + holding spots + event cards == 5 of each colour
    for i, color in enumerate(COLORS):
        total = (
            sum(1 for m in state.mobsters if m is color)
            + state.bag[i]
            + sum(p.arrests.count(color) + (p.holding is color) for p in state.players)
            + sum(a.card_mobsters.count(color) for a in state.slots if a is not None)
        )
        out = state.removed[i]  # co-op: out of the game from the start (§14)
        assert total + out == MOBSTERS_PER_COLOR, f"{color.value} mobsters: {total} {where}"
        assert state.bag[i] >= 0, where
    assert len(state.mobsters) == 25 and state.mobsters[index(HQ)] is None, where
    for p in state.players:
        assert len(set(p.arrests)) == len(p.arrests) < 3, where
    # clue tokens: 12, on distinct non-HQ blocks, with the setup's values
    tokens = state.tokens
    assert len(tokens) == 12 and len({t.block for t in tokens}) == 12, where
    assert HQ not in {t.block for t in tokens}, where
    assert sorted(t.value for t in tokens if t.kind is ClueKind.SEARCH) == sorted(
        int(x) for x in SEARCH_TOKENS
    ), where
    assert sorted(t.value for t in tokens if t.kind is ClueKind.STAKEOUT) == sorted(
        STAKEOUT_VALUES
    ), where
    assert all((t.place is Place.MAT) == (t.holder is not None) for t in tokens), where
    # Informant, Witness and Holding tokens
    for attr in ("informants", "witnesses"):
        held = [x for p in state.players for x in getattr(p, attr)]
        assert sorted([*getattr(state, attr), *held]) == [1, 2, 3, 4, 5], where
    held_colors = [x for p in state.players for x in p.holding_tokens]
    assert sorted([*state.hq_holding, *held_colors], key=COLORS.index) == list(COLORS), where
    # Suspect cards: murderer + deck + hands + out of game == the 16, each once
    cards = [
        state.murderer,
        *state.suspect_deck,
        *(s for p in state.players for s in p.suspects),
        *state.suspects_out,
    ]
    assert sorted(cards) == sorted(SUSPECT_IDS), f"suspects {Counter(cards)} {where}"
    for p in state.players:
        others = {s for q in state.players if q.seat != p.seat for s in q.suspects}
        assert set(p.seen) <= others and len(set(p.seen)) == len(p.seen), where
        assert {card for _, card in p.shown} <= set(p.suspects), where
    # Force cards: deck + discard + hands + pool == the 12
    force = [
        *state.force_deck,
        *state.force_discard,
        *(f for p in state.players for f in p.force),
        *state.team_force,
        *state.pool,
    ]
    assert Counter(force) == Counter(FORCE_DECK), f"force {Counter(force)} {where}"
    assert not (state.team_force and not shared(state)), where
    if not state.pending and not state.agenda:
        for p in state.players:
            if shared(state):
                assert not p.force, where
            limited = not p.ended or shared(state)  # §5.10; the team's hand always (§14)
            assert not limited or len(hand_of(state, p.seat)) <= hand_limit(state, p.seat), (
                f"hand of {p.seat} {where}"
            )
    # events: deck + discard + active == the 18; at most 3 active
    active = [a.card for a in state.slots if a is not None]
    assert len(state.slots) == 3, where
    assert sorted([*state.event_deck, *state.event_discard, *active]) == sorted(EVENT_IDS), where
    non_hq = [b for a in state.slots if a is not None for b in a.tokens if b != HQ]
    assert len(non_hq) == len(set(non_hq)), f"event tokens share a block {where}"
    # trackers, badges, stack order
    assert sorted(state.order) == list(range(n)), where
    for p, q in zip(before.players, state.players, strict=False):
        assert 0 <= q.space <= HOURS and q.space >= p.space, f"tracker {q.seat} {where}"
        assert 0 <= q.badge <= BADGE_MAX and q.badge >= p.badge, f"badge {q.seat} {where}"
        assert not (p.ended and not q.ended), where
    assert state.lines >= before.lines and state.lines <= set(EVENT_LINES), where
    assert len({e for e, _ in state.solved}) == len(state.solved), where
    # decisions are answered one at a time, except the accusation
    if len(state.pending) > 1:
        assert all(isinstance(d, ChooseAccusation) for d in state.pending), (
            f"{state.pending} {where}"
        )


def winners_oracle(state: State) -> tuple[int, ...]:
    """§12: the correct accusers, kept by highest badge, then lowest tracker, then most Evidence
    tokens; anyone still tied shares the win."""
    leaders = [p for p in state.players if p.accusation == state.murderer]
    keys = (
        lambda p: p.badge,
        lambda p: -p.space,
        lambda p: sum(1 for _, s in state.solved if s == p.seat),
    )
    for key in keys:
        if len(leaders) > 1:
            best = max(map(key, leaders))
            leaders = [p for p in leaders if key(p) == best]
    return tuple(sorted(p.seat for p in leaders))


def team_winners_oracle(state: State) -> tuple[int, ...]:
    """§14: one joint accusation, the lead's (the Detective's) if the choices differ; the whole
    team wins if it names the murderer."""
    choices = [p.accusation for p in state.players]
    lead = next(p.seat for p in state.players if p.role == "detective")
    named = choices[0] if len(set(choices)) == 1 else choices[lead]
    return tuple(range(len(state.players))) if named == state.murderer else ()


def check_step_events(step: Step, where: str) -> None:
    """Facts checked event by event inside one command: turn order, time of day, hour cap, one
    mobster per block, and the winners of §12."""
    state = step.before
    for e in step.events:
        if isinstance(e, ev.TurnBegan):
            live = [p for p in state.players if not p.ended]
            p = state.players[e.seat]
            assert not p.ended, f"ended seat {e.seat} got a turn {where}"
            assert p.space == min(q.space for q in live), f"not the lowest tracker {where}"
            same = [s for s in state.order if s in {q.seat for q in live if q.space == p.space}]
            assert same[-1] == e.seat, f"not the top of its stack {where}"
            all_night = any(
                isinstance(o, AllNight)
                for a in state.slots
                if a is not None
                for o in EVENTS[a.card].ongoing
            )
            assert e.night == (p.space not in DAY_SPACES or all_night), f"time of day {where}"
        if isinstance(e, ev.TrackerAdvanced):
            turn = state.turn
            assert turn is not None and e.seat == turn.seat, where
            assert e.space == turn.start + turn.hours > turn.start, f"advance {e} {where}"
            assert e.space <= cap_of(state), f"hour cap {e} {where}"
        if isinstance(e, ev.MobsterPlaced):
            assert state.mobsters[index(e.block)] is None, f"{e} on an occupied block {where}"
        if isinstance(e, ev.MobsterApprehended | ev.MobsterArrested | ev.MobsterHeld):
            assert state.mobsters[index(e.block)] is e.color, f"{e} {where}"
        state = evolve(state, e)
        if isinstance(e, ev.GameEnded):
            oracle = team_winners_oracle if is_coop(state) else winners_oracle
            assert tuple(sorted(e.winners)) == oracle(state), f"winners {where}"
        turn = state.turn
        if turn is not None and not is_coop(state):
            assert turn.start + turn.hours <= HOURS, f"hour cap {turn} {where}"
    assert state == step.after
    for p in state.players:
        if p.ended:
            assert not p.arrests and p.holding is None, f"ended seat {p.seat} keeps mobsters"


@pytest.mark.parametrize(
    ("players", "mode"),
    [(1, ""), (2, ""), (3, ""), (4, ""),
     (2, "cooperative"), (3, "cooperative"), (4, "cooperative")],
)
def test_invariants_hold_after_every_command(players: int, mode: str) -> None:
    for g in range(20 if not mode else 12):
        policy = ("uniform", "purposeful")[g % 2]
        seed = bytes([players, g, len(mode)]) * 16 if mode else bytes([players, g]) * 16
        game = play_game(
            players, seed, 1000 * players + g, policy, 0.2 if g % 3 == 0 else 0.0, mode
        )
        prev = game.steps[0].after
        check_invariants(prev, prev, f"after setup of {game.repro()}")
        for i, step in enumerate(game.steps):
            where = f"after command {i} {step.command} of {game.repro()}"
            if i:
                check_invariants(prev, step.after, where)
            check_step_events(step, where)
            prev = step.after
        assert game.final.status is Status.OVER
