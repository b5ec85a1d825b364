"""Mobster Roll, events and penalties (rules.md §8) and the event cards (rules.md §11).

Every expected value below comes from rules.md and docs/rulings.md.  Random draws are scripted
(``die(d)`` for a die face; a block pick is the index of the block among the valid blocks in
canonical order, ruling 22; a bag draw counts the bag red, blue, gray) and every test checks that
no draw was left unscripted, so the draw order of the engine is checked too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import pytest

from echoridge_rules import State, decide, evolve
from echoridge_rules import commands as c
from echoridge_rules import tasks as t
from echoridge_rules.context import Ctx
from echoridge_rules.data import Color, Evidence
from echoridge_rules.decisions import (
    ChooseDiscard,
    ChooseGain,
    ChooseInterrogate,
    ChoosePeek,
    ChoosePoolCard,
    ChooseTrait,
)
from echoridge_rules.engine import run
from echoridge_rules.errors import RuleViolation
from echoridge_rules.events import (
    ActionTaken,
    BadgeRaised,
    CardMobsterAdded,
    CarDriven,
    Event,
    EventDeckShuffled,
    EventDiscarded,
    EventExpired,
    EventPlaced,
    EventReplaced,
    EventResolved,
    EventTokenPlaced,
    EventTokenRemoved,
    EvidenceSolved,
    ForceDiscarded,
    ForceGained,
    ForceGainLost,
    MobsterApprehended,
    MobsterArrested,
    MobsterPlaced,
    MobsterRolled,
    PlayerEnded,
    PoolCardTaken,
    PoolDiscarded,
    PoolRevealed,
    SuspectDrawn,
    SuspectRemoved,
    TokenPeeked,
    TrackerAdvanced,
    TrackersPushed,
    TraitLearned,
    TurnBegan,
)
from echoridge_rules.model import Phase

from .helpers import (
    Scripted,
    die,
    events_on_top,
    force_on_top,
    given,
    player,
    turn_of,
    with_event,
)

Block = tuple[int, int]
E = TypeVar("E")

# Canonical block order (ruling 22): row by row from the top, left to right.
CANONICAL: list[Block] = [(col, row) for row in range(1, 6) for col in range(1, 6)]
HQ: Block = (3, 3)
NON_HQ: list[Block] = [b for b in CANONICAL if b != HQ]
REPRIEVE = [die(6), die(6)]  # a Mobster Roll that does nothing and starts no spree


# --- local helpers --------------------------------------------------------------------------------


def only(events: Iterable[Event], cls: type[E]) -> list[E]:
    return [e for e in events if isinstance(e, cls)]


@dataclass
class Outcome:
    state: State
    events: list[Event]
    bounds: list[int]  # the bound of every random draw, in order

    def of(self, cls: type[E]) -> list[E]:
        return only(self.events, cls)

    def first(self, cls: type) -> int:
        """Position of the first event of this type."""
        return next(i for i, e in enumerate(self.events) if isinstance(e, cls))


def act(state: State, command: c.Command, draws: Sequence[int] = ()) -> Outcome:
    """Send one command with exactly these random draws (none may come from the fallback)."""
    rng = Scripted(list(draws))
    events = decide(state, command, rng)  # type: ignore[arg-type]
    assert not rng.values, f"scripted draws left unused: {rng.values}"
    assert len(rng.used) == len(draws), f"unscripted draws: {rng.used[len(draws):]}"
    after = state
    for e in events:
        after = evolve(after, e)
    return Outcome(after, events, [bound for bound, _ in rng.used])


def run_tasks(state: State, *tasks: t.Task, draws: Sequence[int] = ()) -> Outcome:
    """Run engine tasks directly (a single step of a turn) with exactly these draws."""
    rng = Scripted(list(draws))
    ctx = Ctx(replace(state, agenda=(*tasks, *state.agenda)), rng)  # type: ignore[arg-type]
    run(ctx)
    assert not rng.values, f"scripted draws left unused: {rng.values}"
    assert len(rng.used) == len(draws), f"unscripted draws: {rng.used[len(draws):]}"
    return Outcome(ctx.state, ctx.events, [bound for bound, _ in rng.used])


def refused(state: State, command: c.Command) -> str:
    """The rule code of an illegal command."""
    with pytest.raises(RuleViolation) as err:
        decide(state, command, Scripted())  # type: ignore[arg-type]
    return err.value.code


def valid(excluded: Iterable[Block] = ()) -> list[Block]:
    """Non-HQ blocks not excluded, in canonical order (event-setup roll candidates)."""
    out = set(excluded)
    return [b for b in NON_HQ if b not in out]


def pick(block: Block, excluded: Iterable[Block] = ()) -> int:
    """The raw draw that picks this block among the valid ones."""
    return valid(excluded).index(block)


def bag_value(bag: tuple[int, int, int], color: str) -> int:
    """The raw bag draw that takes a mobster of this colour (bag counted red, blue, gray)."""
    i = ("red", "blue", "gray").index(color)
    assert bag[i] > 0
    return sum(bag[:i])


def mob(state: State, block: Block) -> Color | None:
    col, row = block
    return state.mobsters[(row - 1) * 5 + (col - 1)]






def stack(state: State, space: int) -> list[int]:
    """The seats on one Time Track space, bottom of the stack first."""
    return [s for s in state.order if state.players[s].space == space]


def city(blocks: Sequence[Block], skip: Iterable[Block] = ()) -> dict[Block, str]:
    """Mobsters on these blocks, colours cycling red, blue, gray (at most 5 of each)."""
    skipped = set(skip)
    chosen = [b for b in blocks if b not in skipped]
    return {b: ("red", "blue", "gray")[i % 3] for i, b in enumerate(chosen)}


def full_city(skip: Iterable[Block] = ()) -> dict[Block, str]:
    """All 15 mobsters in the city (the bag is empty), none on the skipped blocks."""
    mobs = city(NON_HQ, skip)
    return dict(list(mobs.items())[:15])


def two(
    a: int = 10, b: int = 30, car_a: Block = (2, 2), car_b: Block = (5, 5), **kw: Any
) -> State:
    """Ana (seat 0) and Ben (seat 1), Ana to play."""
    return given(players=2, spaces={0: a, 1: b}, cars={0: car_a, 1: car_b}, **kw)


def slots_full(state: State) -> State:
    """Three inert events active (none of them changes the tests that use this)."""
    state = with_event(state, 1, "E2", [(5, 1)])
    state = with_event(state, 2, "E3", [(5, 2)])
    return with_event(state, 3, "E4", [(5, 4)])


# --- §8.1 Mobster Roll ----------------------------------------------------------------------------


def test_roll_on_an_empty_block_places_a_mobster_drawn_from_the_bag() -> None:
    s = turn_of(two(), 0)
    out = act(s, c.CoffeeBreak(0), [die(2), die(4), bag_value((5, 5, 5), "blue") + 2])
    assert out.of(MobsterRolled) == [MobsterRolled(2, 4)]
    assert out.of(MobsterPlaced) == [MobsterPlaced((2, 4), Color.BLUE)]
    assert mob(out.state, (2, 4)) is Color.BLUE
    assert out.state.bag == (5, 4, 5)
    assert out.bounds == [6, 6, 15]  # black die, white die, one draw among the 15 in the bag
    assert not out.of(EventPlaced)


@pytest.mark.parametrize("roll", [(6, 2), (1, 6), (6, 6), (3, 3)])
def test_reprieve_places_nothing_and_starts_no_spree(roll: tuple[int, int]) -> None:
    s = turn_of(two(), 0)
    before = s.mobsters
    out = act(s, c.CoffeeBreak(0), [die(roll[0]), die(roll[1])])
    assert out.of(MobsterRolled) == [MobsterRolled(*roll)]
    assert not out.of(MobsterPlaced)
    assert not out.of(EventPlaced)
    assert not out.of(SuspectRemoved)
    assert out.state.mobsters == before
    assert out.bounds == [6, 6]


def test_roll_on_an_occupied_block_draws_an_event() -> None:
    s = events_on_top(turn_of(two(mobsters={(4, 2): "red"}), 0), "E2")
    out = act(s, c.CoffeeBreak(0), [die(4), die(2), pick((1, 1))])
    assert out.of(EventPlaced) == [EventPlaced("E2", 1, None)]
    assert out.state.slots[0] is not None and out.state.slots[0].tokens == ((1, 1),)
    assert mob(out.state, (4, 2)) is Color.RED  # the mobster stays, nothing is placed
    assert not out.of(MobsterPlaced)
    assert out.bounds == [6, 6, 24]


def test_roll_on_an_empty_block_with_an_empty_bag_takes_the_penalty() -> None:
    s = turn_of(two(mobsters=full_city(skip=[(2, 4)])), 0)
    assert s.bag == (0, 0, 0)
    top = s.suspect_deck[0]
    out = act(s, c.CoffeeBreak(0), [die(2), die(4)])
    assert out.of(SuspectRemoved) == [SuspectRemoved(top)]
    assert mob(out.state, (2, 4)) is None
    assert not out.of(EventPlaced)
    assert out.state.suspects_out == (top,)


def test_crime_spree_chain_of_worked_example_11() -> None:
    s = turn_of(two(mobsters={(4, 4): "red"}), 0)
    s = with_event(s, 1, "E2", [(5, 5)])
    s = events_on_top(s, "E3")
    draws = [
        die(2), die(2), bag_value((4, 5, 5), "gray"),  # 2-2: a mobster on (2,2), roll again
        die(4), die(4), pick((1, 1), [(5, 5)]),  # 4-4: occupied, E3 into slot 2, roll again
        die(6), die(6),  # 6-6: Reprieve, no spree
    ]
    out = act(s, c.CoffeeBreak(0), draws)
    assert out.of(MobsterRolled) == [MobsterRolled(2, 2), MobsterRolled(4, 4), MobsterRolled(6, 6)]
    assert mob(out.state, (2, 2)) is Color.GRAY
    assert out.of(EventPlaced) == [EventPlaced("E3", 2, None)]
    assert out.bounds == [6, 6, 14, 6, 6, 23, 6, 6]
    # the event drawn by the 4-4 is set up completely before the next roll
    assert out.first(EventTokenPlaced) < out.events.index(MobsterRolled(6, 6))


@pytest.mark.parametrize("face", [1, 2, 4, 5])
def test_each_spree_double_rolls_again(face: int) -> None:
    s = turn_of(two(), 0)
    out = act(s, c.CoffeeBreak(0), [die(face), die(face), 0, die(1), die(6)])
    assert out.of(MobsterRolled) == [MobsterRolled(face, face), MobsterRolled(1, 6)]
    assert out.of(MobsterPlaced) == [MobsterPlaced((face, face), Color.RED)]


def test_spree_goes_on_after_a_penalty() -> None:
    # 5-5 on an occupied block with every slot full: penalty instead of an event, then roll again
    s = slots_full(turn_of(two(mobsters={(5, 5): "blue"}), 0))
    top = s.suspect_deck[0]
    out = act(s, c.CoffeeBreak(0), [die(5), die(5), die(1), die(2), 0])
    assert out.of(SuspectRemoved) == [SuspectRemoved(top)]
    assert out.of(MobsterRolled) == [MobsterRolled(5, 5), MobsterRolled(1, 2)]
    assert out.of(MobsterPlaced) == [MobsterPlaced((1, 2), Color.RED)]


def test_3_3_while_e16_is_active_is_a_reprieve_that_starts_a_spree() -> None:
    s = turn_of(two(mobsters={(1, 1): "red"}), 0)
    s = with_event(s, 1, "E16", [(1, 1)])
    out = act(s, c.CoffeeBreak(0), [die(3), die(3), die(1), die(2), 0])
    assert out.of(MobsterRolled) == [MobsterRolled(3, 3), MobsterRolled(1, 2)]
    assert out.of(MobsterPlaced) == [MobsterPlaced((1, 2), Color.RED)]  # nothing for the 3-3


def test_6_6_while_e16_is_active_starts_no_spree() -> None:
    s = with_event(turn_of(two(mobsters={(1, 1): "red"}), 0), 1, "E16", [(1, 1)])
    out = act(s, c.CoffeeBreak(0), [die(6), die(6)])
    assert out.of(MobsterRolled) == [MobsterRolled(6, 6)]


# --- §8.3 Drawing an event ------------------------------------------------------------------------


def test_event_goes_to_the_lowest_empty_slot() -> None:
    s = turn_of(two(), 0)
    s = with_event(s, 1, "E2", [(1, 1)])
    s = with_event(s, 3, "E4", [(2, 1)])
    s = events_on_top(s, "E3")
    out = run_tasks(s, t.DrawEvent(), draws=[pick((5, 5), [(1, 1), (2, 1)])])
    assert out.of(EventPlaced) == [EventPlaced("E3", 2, None)]
    assert out.bounds == [22]
    assert [a.card if a else None for a in out.state.slots] == ["E2", "E3", "E4"]


def test_full_slots_take_the_penalty_and_draw_nothing() -> None:
    s = slots_full(turn_of(two(), 0))
    deck, top = s.event_deck, s.suspect_deck[0]
    out = run_tasks(s, t.DrawEvent())
    assert out.of(SuspectRemoved) == [SuspectRemoved(top)]
    assert not out.of(EventPlaced) and not out.of(EventReplaced)
    assert out.state.event_deck == deck
    assert out.state.slots == s.slots


@pytest.mark.parametrize(
    "ben",
    [
        pytest.param({"space": 39}, id="tracker-on-39"),
        pytest.param({"space": 48, "ended": True}, id="ended-tracker-on-48"),
        pytest.param({"space": 45, "ended": True}, id="rested-tracker-on-45"),
    ],
)
def test_timed_event_is_replaced_while_a_tracker_is_on_39_to_48(ben: dict[str, Any]) -> None:
    s = player(turn_of(two(a=20), 0), 1, **ben)
    s = events_on_top(s, "E8", "E3")
    out = run_tasks(s, t.DrawEvent(), draws=[pick((1, 1))])
    assert out.of(EventReplaced) == [EventReplaced("E8")]
    assert out.of(EventPlaced) == [EventPlaced("E3", 1, None)]
    assert out.state.event_discard[-1] == "E8"


def test_several_timed_events_in_a_row_are_all_replaced() -> None:
    s = turn_of(two(a=20, b=40), 0)
    s = events_on_top(s, "E8", "E17", "E9", "E2")
    out = run_tasks(s, t.DrawEvent(), draws=[pick((1, 1))])
    assert out.of(EventReplaced) == [EventReplaced("E8"), EventReplaced("E17"), EventReplaced("E9")]
    assert out.of(EventPlaced) == [EventPlaced("E2", 1, None)]
    assert out.state.event_discard[-3:] == ("E8", "E17", "E9")


def test_timed_event_is_kept_while_every_tracker_is_below_39() -> None:
    s = events_on_top(turn_of(two(a=20, b=38), 0), "E8")
    out = run_tasks(s, t.DrawEvent(), draws=[pick((1, 1)), 0])
    assert not out.of(EventReplaced)
    assert out.of(EventPlaced) == [EventPlaced("E8", 1, 28)]  # deadline: 20 + D 8


def test_worked_example_15_the_active_tracker_after_its_advance_counts() -> None:
    # Cara advances 38 -> 39; her roll then reveals E8, which is replaced by E3
    s = given(players=3, spaces={0: 40, 1: 41, 2: 38}, mobsters={(2, 4): "red"})
    s = events_on_top(turn_of(s, 2), "E8", "E3")
    out = act(s, c.CoffeeBreak(2), [die(2), die(4), pick((1, 1))])
    assert out.of(EventReplaced) == [EventReplaced("E8")]
    assert out.of(EventPlaced) == [EventPlaced("E3", 1, None)]


def test_empty_event_deck_reshuffles_the_discard_pile() -> None:
    s = turn_of(two(), 0)
    s = replace(s, event_deck=(), event_discard=("E2", "E3", "E4"))
    # Fisher-Yates from the last position down (ruling 23): swap 2<->0, then 1<->0
    out = run_tasks(s, t.DrawEvent(), draws=[0, 0, pick((1, 1))])
    assert out.of(EventDeckShuffled) == [EventDeckShuffled(("E3", "E4", "E2"))]
    assert out.of(EventPlaced) == [EventPlaced("E3", 1, None)]
    assert out.state.event_deck == ("E4", "E2")
    assert out.state.event_discard == ()
    assert out.bounds == [3, 2, 24]


def test_deck_running_out_while_replacing_reshuffles_the_discard_pile() -> None:
    s = turn_of(two(a=20, b=40), 0)
    s = replace(s, event_deck=("E8",), event_discard=("E3",))
    out = run_tasks(s, t.DrawEvent(), draws=[1, pick((1, 1))])  # [E3, E8] stays as it is
    assert out.of(EventReplaced) == [EventReplaced("E8")]
    assert out.of(EventDeckShuffled) == [EventDeckShuffled(("E3", "E8"))]
    assert out.of(EventPlaced) == [EventPlaced("E3", 1, None)]
    assert out.state.event_deck == ("E8",)


def test_deadline_is_the_active_tracker_after_the_advance_plus_d() -> None:
    s = events_on_top(turn_of(two(a=20, mobsters={(4, 4): "red"}), 0), "E9")
    s = act(s, c.Drive(0, ((2, 3), (2, 4)))).state  # 2 h
    out = act(s, c.CoffeeBreak(0), [die(4), die(4), 0, 0, 0, die(6), die(6)])
    assert out.of(TrackerAdvanced)[0].space == 23
    assert out.of(EventPlaced) == [EventPlaced("E9", 1, 33)]
    assert out.state.slots[0] is not None and out.state.slots[0].deadline == 33


def test_deadline_counts_from_where_the_advance_landed_not_from_a_later_penalty_move() -> None:
    # Ana advances 20 -> 21; her 1-1 needs a mobster from an empty bag and the Suspect deck is
    # empty, so every tracker moves 1 (Ana to 22); the spree's 4-4 hits a mobster and reveals E9.
    # §11.4: deadline = the space after that turn's advance (21) + 10.
    mobsters = city([(4, 4), *NON_HQ], skip=[(1, 1)])
    mobsters = dict(list(mobsters.items())[:15])
    assert (4, 4) in mobsters and sum(1 for _ in mobsters) == 15
    s = events_on_top(turn_of(two(a=20, mobsters=mobsters), 0), "E9")
    s = replace(s, suspect_deck=())
    out = act(s, c.CoffeeBreak(0), [die(1), die(1), die(4), die(4), 0, 0, 0, *REPRIEVE])
    assert out.of(TrackerAdvanced)[0].space == 21
    assert out.state.players[0].space == 22
    assert out.of(EventPlaced) == [EventPlaced("E9", 1, 31)]


def test_deadline_of_an_event_drawn_at_an_event_line() -> None:
    s = events_on_top(turn_of(two(a=30, b=35), 0), "E15")
    s = act(s, c.Drive(0, ((2, 3), (2, 4)))).state
    out = act(s, c.CoffeeBreak(0), [pick((1, 1)), *REPRIEVE])  # 30 -> 33 crosses the line after 32
    assert out.of(EventPlaced) == [EventPlaced("E15", 1, 43)]


# --- §4.3 Step 3 / §8.3 Event Lines ---------------------------------------------------------------


def test_an_advance_past_a_line_draws_one_event() -> None:
    s = events_on_top(turn_of(two(a=8, b=12), 0), "E2")
    out = act(s, c.CoffeeBreak(0), [pick((1, 1)), *REPRIEVE])
    assert out.of(TrackerAdvanced) == [TrackerAdvanced(0, 9, (8,))]
    assert out.of(EventPlaced) == [EventPlaced("E2", 1, None)]
    assert out.state.lines == frozenset({8})
    # the line is drawn at Step 3, before the Mobster Roll of Step 4
    assert out.first(EventPlaced) < out.first(MobsterRolled)


def test_landing_on_the_line_hour_does_not_cross_it() -> None:
    s = turn_of(two(a=6, b=12), 0)
    s = act(s, c.Drive(0, ((2, 3),))).state
    out = act(s, c.CoffeeBreak(0), REPRIEVE)  # 6 -> 8: still on <= 8
    assert out.of(TrackerAdvanced) == [TrackerAdvanced(0, 8, ())]
    assert not out.of(EventPlaced)
    assert out.state.lines == frozenset()


def test_a_line_already_crossed_draws_nothing() -> None:
    s = replace(turn_of(two(a=8, b=12), 0), lines=frozenset({8}))
    out = act(s, c.CoffeeBreak(0), REPRIEVE)
    assert out.of(TrackerAdvanced) == [TrackerAdvanced(0, 9, ())]
    assert not out.of(EventPlaced)


NINE_BLOCKS: tuple[Block, ...] = (
    (3, 2), (3, 1), (2, 1), (1, 1), (1, 2), (1, 3), (1, 4), (1, 5), (2, 5),
)


def test_two_lines_in_one_advance_draw_in_ascending_order() -> None:
    s = events_on_top(turn_of(two(a=7, b=20, car_a=HQ), 0), "E2", "E3")
    s = act(s, c.Drive(0, NINE_BLOCKS)).state
    draws = [pick((5, 5)), pick((5, 4), [(5, 5)]), *REPRIEVE]
    out = act(s, c.CoffeeBreak(0), draws)  # 7 -> 17
    assert out.of(TrackerAdvanced) == [TrackerAdvanced(0, 17, (8, 16))]
    assert out.of(EventPlaced) == [EventPlaced("E2", 1, None), EventPlaced("E3", 2, None)]
    assert out.state.lines == frozenset({8, 16})


def test_worked_example_13_second_line_with_full_slots_is_a_penalty() -> None:
    s = turn_of(two(a=7, b=20, car_a=HQ), 0)
    s = with_event(s, 1, "E2", [(5, 1)])
    s = with_event(s, 2, "E4", [(5, 2)])
    s = events_on_top(s, "E3")
    top = s.suspect_deck[0]
    s = act(s, c.Drive(0, NINE_BLOCKS)).state
    out = act(s, c.CoffeeBreak(0), [pick((1, 1), [(5, 1), (5, 2)]), *REPRIEVE])
    assert out.of(EventPlaced) == [EventPlaced("E3", 3, None)]
    assert out.of(SuspectRemoved) == [SuspectRemoved(top)]
    assert out.state.lines == frozenset({8, 16})


def test_each_line_with_full_slots_takes_its_own_penalty() -> None:
    s = slots_full(turn_of(two(a=7, b=20, car_a=HQ), 0))
    deck = s.suspect_deck
    s = act(s, c.Drive(0, NINE_BLOCKS)).state
    out = act(s, c.CoffeeBreak(0), REPRIEVE)
    assert out.of(SuspectRemoved) == [SuspectRemoved(deck[0]), SuspectRemoved(deck[1])]


def test_a_line_is_drawn_only_for_the_first_tracker_to_cross_it() -> None:
    # Ana crosses the line after 8 first; Ben's later advance across it draws nothing
    s = events_on_top(turn_of(two(a=8, b=8, car_b=(4, 4)), 1), "E2")
    out = act(s, c.CoffeeBreak(1), [pick((1, 1)), *REPRIEVE])
    assert out.of(EventPlaced) == [EventPlaced("E2", 1, None)]
    assert out.state.turn is not None and out.state.turn.seat == 0
    out = act(out.state, c.CoffeeBreak(0), REPRIEVE)
    assert out.of(TrackerAdvanced) == [TrackerAdvanced(0, 9, ())]
    assert not out.of(EventPlaced)


def test_penalty_moves_never_cross_a_line_nor_use_it_up() -> None:
    # Ana 10 -> 16; her roll needs a mobster from an empty bag and the Suspect deck is empty,
    # so every tracker moves 1: Ana 16 -> 17 passes the line after 16 without drawing.
    s = turn_of(two(a=10, b=12, car_a=HQ, car_b=HQ, mobsters=full_city(skip=[(1, 2)])), 0)
    s = replace(s, suspect_deck=())
    s = events_on_top(s, "E2")
    s = act(s, c.Drive(0, ((3, 2), (3, 1), (2, 1), (1, 1), (1, 2)))).state
    out = act(s, c.CoffeeBreak(0), [die(1), die(2)])
    assert out.of(TrackersPushed) == [TrackersPushed()]
    assert (out.state.players[0].space, out.state.players[1].space) == (17, 13)
    assert not out.of(EventPlaced)
    assert out.state.lines == frozenset()
    # Ben (13) then crosses the line after 16 with a Step 2 advance: it is still there to draw
    assert out.state.turn is not None and out.state.turn.seat == 1
    s = act(out.state, c.Drive(1, ((3, 2), (3, 1), (2, 1)))).state
    out = act(s, c.CoffeeBreak(1), [pick((1, 1)), *REPRIEVE])  # 13 -> 17
    assert out.of(TrackerAdvanced) == [TrackerAdvanced(1, 17, (16,))]
    assert out.of(EventPlaced) == [EventPlaced("E2", 1, None)]


# --- §11.1 / §8.2 Event setups --------------------------------------------------------------------

# rules.md §11.5: (tokens by roll, token on HQ, mobster on each token, mobsters on the card, D)
SETUPS: dict[str, tuple[int, bool, bool, int, int | None]] = {
    "E1": (2, False, False, 0, None),
    "E2": (1, False, False, 0, None),
    "E3": (1, False, False, 0, None),
    "E4": (1, False, False, 0, None),
    "E5": (2, False, False, 0, None),
    "E6": (2, False, False, 0, None),
    "E7": (0, True, False, 0, None),
    "E8": (1, False, True, 0, 8),
    "E9": (3, False, False, 0, 10),
    "E10": (2, False, False, 0, None),
    "E11": (2, False, True, 0, None),
    "E12": (3, False, False, 3, None),
    "E13": (1, False, False, 0, None),
    "E14": (1, False, False, 0, None),
    "E15": (1, False, False, 0, 10),
    "E16": (1, False, True, 0, None),
    "E17": (2, False, False, 0, 8),
    "E18": (0, True, False, 0, 6),
}


@pytest.mark.parametrize("card", list(SETUPS))
def test_every_event_setup(card: str) -> None:
    rolled, on_hq, on_tokens, on_card, deadline = SETUPS[card]
    s = events_on_top(turn_of(two(a=20, b=25), 0), card)
    # each pick takes the first valid block; each bag draw takes a red mobster
    draws = [0] * (rolled + (rolled if on_tokens else 0) + on_card)
    out = run_tasks(s, t.DrawEvent(), draws=draws)
    expected_tokens = tuple(NON_HQ[:rolled]) + ((HQ,) if on_hq else ())
    due = None if deadline is None else 20 + deadline
    assert out.of(EventPlaced) == [EventPlaced(card, 1, due)]
    active = out.state.slots[0]
    assert active is not None
    assert active.tokens == expected_tokens
    placed = [(e.block, e.color) for e in out.of(MobsterPlaced)]
    assert placed == ([(b, Color.RED) for b in expected_tokens] if on_tokens else [])
    assert active.card_mobsters == (Color.RED,) * on_card
    assert sum(out.state.bag) == 15 - len(placed) - on_card
    picks = [24 - i for i in range(rolled)]
    bags = [15 - i for i in range(len(placed) + on_card)]
    assert out.bounds == picks + bags  # every token pick first, then the bag draws


def test_token_roll_skips_hq_and_blocks_with_an_event_token_but_not_mobsters() -> None:
    s = turn_of(two(mobsters={(5, 5): "red"}), 0)
    s = with_event(s, 2, "E1", [(1, 1), (2, 1)])
    s = events_on_top(s, "E2")
    taken = [(1, 1), (2, 1)]
    out = run_tasks(s, t.DrawEvent(), draws=[pick((5, 5), taken)])
    assert out.bounds == [22]
    assert out.of(EventTokenPlaced) == [EventTokenPlaced(1, (5, 5))]


def test_second_token_of_a_setup_skips_the_first() -> None:
    s = events_on_top(turn_of(two(), 0), "E5")
    out = run_tasks(s, t.DrawEvent(), draws=[pick((4, 2)), pick((4, 4), [(4, 2)])])
    assert out.bounds == [24, 23]
    assert out.state.slots[0] is not None and out.state.slots[0].tokens == ((4, 2), (4, 4))


def test_thq_token_goes_on_hq_even_if_hq_holds_another_event_token() -> None:
    s = events_on_top(turn_of(two(a=20), 0), "E7", "E18")
    out = run_tasks(s, t.DrawEvent(), t.DrawEvent())
    assert out.bounds == []
    assert [a.tokens for a in out.state.slots if a] == [(HQ,), (HQ,)]
    assert out.of(EventPlaced) == [EventPlaced("E7", 1, None), EventPlaced("E18", 2, 26)]


@pytest.mark.parametrize("card", ["E8", "E16"])
def test_mobster_on_token_skips_blocks_with_a_mobster_or_an_event_token(card: str) -> None:
    s = turn_of(two(mobsters={(1, 1): "red", (2, 1): "blue"}), 0)
    s = with_event(s, 2, "E2", [(3, 1)])
    s = events_on_top(s, card)
    excluded = [(1, 1), (2, 1), (3, 1)]
    out = run_tasks(s, t.DrawEvent(), draws=[pick((4, 1), excluded), bag_value((4, 4, 5), "gray")])
    assert out.bounds == [21, 13]
    assert out.of(EventTokenPlaced) == [EventTokenPlaced(1, (4, 1))]
    assert out.of(MobsterPlaced) == [MobsterPlaced((4, 1), Color.GRAY)]


def test_e11_places_both_tokens_then_a_mobster_on_each() -> None:
    s = events_on_top(turn_of(two(), 0), "E11")
    draws = [pick((2, 4)), pick((4, 2), [(2, 4)]), bag_value((5, 5, 5), "blue"),
             bag_value((5, 4, 5), "gray")]
    out = run_tasks(s, t.DrawEvent(), draws=draws)
    assert out.bounds == [24, 23, 15, 14]
    assert out.of(MobsterPlaced) == [MobsterPlaced((2, 4), Color.BLUE),
                                     MobsterPlaced((4, 2), Color.GRAY)]


def test_mobster_on_token_with_no_valid_block_falls_back_and_places_no_mobster() -> None:
    # 10 blocks hold an event token and the other 14 non-HQ blocks hold a mobster
    tokened = NON_HQ[:10]
    mobs = city(NON_HQ[10:])
    s = turn_of(two(mobsters=mobs), 0)
    s = with_event(s, 2, "E1", tokened)
    s = events_on_top(s, "E8")
    assert sum(s.bag) == 1
    out = run_tasks(s, t.DrawEvent(), draws=[pick((5, 5), tokened)])
    assert out.bounds == [14]  # among the blocks with no event token, mobsters allowed
    assert out.of(EventTokenPlaced) == [EventTokenPlaced(1, (5, 5))]
    assert not out.of(MobsterPlaced)
    assert not out.of(SuspectRemoved)
    assert sum(out.state.bag) == 1


def test_e11_second_token_falls_back_when_no_valid_block_is_left() -> None:
    tokened = NON_HQ[:9]
    free = NON_HQ[9]
    mobs = city(NON_HQ[10:])  # 14 mobsters, one in the bag
    s = turn_of(two(mobsters=mobs), 0)
    s = with_event(s, 2, "E1", tokened)
    s = events_on_top(s, "E11")
    draws = [0, pick((5, 5), [*tokened, free]), 0]
    out = run_tasks(s, t.DrawEvent(), draws=draws)
    assert out.bounds == [1, 14, 1]
    assert out.state.slots[0] is not None and out.state.slots[0].tokens == (free, (5, 5))
    assert [e.block for e in out.of(MobsterPlaced)] == [free]
    assert not out.of(SuspectRemoved)


def test_mobster_on_token_with_an_empty_bag_takes_the_penalty_after_the_setup() -> None:
    mobs = full_city(skip=[(5, 5)])
    s = events_on_top(turn_of(two(mobsters=mobs), 0), "E8")
    top = s.suspect_deck[0]
    free = [b for b in NON_HQ if b not in mobs]
    out = run_tasks(s, t.DrawEvent(), draws=[free.index((5, 5))])
    assert out.bounds == [len(free)]
    assert out.of(EventTokenPlaced) == [EventTokenPlaced(1, (5, 5))]
    assert out.of(SuspectRemoved) == [SuspectRemoved(top)]
    assert out.first(EventTokenPlaced) < out.first(SuspectRemoved)  # ruling 18
    assert mob(out.state, (5, 5)) is None


def test_c3_puts_three_bag_mobsters_on_the_card() -> None:
    s = events_on_top(turn_of(two(), 0), "E12")
    draws = [0, 0, 0, bag_value((5, 5, 5), "gray"), bag_value((5, 5, 4), "blue"),
             bag_value((5, 4, 4), "blue")]
    out = run_tasks(s, t.DrawEvent(), draws=draws)
    assert out.bounds == [24, 23, 22, 15, 14, 13]
    assert out.of(CardMobsterAdded) == [
        CardMobsterAdded(1, Color.GRAY), CardMobsterAdded(1, Color.BLUE),
        CardMobsterAdded(1, Color.BLUE),
    ]
    assert out.state.bag == (5, 3, 4)
    assert not out.of(MobsterPlaced)


@pytest.mark.parametrize("in_bag", [2, 0])
def test_c3_with_a_short_bag_places_fewer_and_takes_no_penalty(in_bag: int) -> None:
    mobs = dict(list(full_city().items())[: 15 - in_bag])
    s = events_on_top(turn_of(two(mobsters=mobs), 0), "E12")
    out = run_tasks(s, t.DrawEvent(), draws=[0, 0, 0] + [0] * in_bag)
    assert out.bounds == [24, 23, 22, *range(in_bag, 0, -1)]
    active = out.state.slots[0]
    assert active is not None and len(active.card_mobsters) == in_bag
    assert not out.of(SuspectRemoved) and not out.of(TrackersPushed)
    assert out.state.bag == (0, 0, 0)


# --- §11.3 Ongoing effects ------------------------------------------------------------------------


def drive_hours(state: State, seat: int, path: Sequence[Block]) -> int:
    out = act(state, c.Drive(seat, tuple(path)))
    (driven,) = out.of(CarDriven)
    return driven.hours


def test_e1_surcharge_token_costs_one_more_per_token_block_entered() -> None:
    s = with_event(turn_of(two(car_a=HQ), 0), 1, "E1", [(3, 2), (2, 1)])
    assert drive_hours(s, 0, [(3, 2), (3, 1), (2, 1)]) == 3 + 2
    assert drive_hours(s, 0, [(2, 3), (2, 2), (1, 2)]) == 3  # no token block entered


def test_e1_block_entered_twice_is_paid_twice_and_the_start_block_is_not_entered() -> None:
    s = with_event(turn_of(two(car_a=(3, 2)), 0), 1, "E1", [(3, 2), (2, 1)])
    assert drive_hours(s, 0, [(3, 1)]) == 1  # leaving a token block costs nothing extra
    assert drive_hours(s, 0, [(3, 1), (3, 2), (3, 1), (3, 2)]) == 4 + 2


def test_e1_surcharge_is_still_paid_when_code_three_waives_the_base() -> None:
    s = two(car_a=HQ, force={0: ["code_three"]})
    s = with_event(turn_of(s, 0), 1, "E1", [(3, 2), (3, 1)])
    s = act(s, c.PlayForce(0, "code_three")).state
    assert drive_hours(s, 0, [(3, 2), (3, 1)]) == 0 + 2


def test_e14_surcharge_row_costs_one_more_in_the_token_row_hq_included() -> None:
    s = with_event(turn_of(two(car_a=(3, 2)), 0), 1, "E14", [(1, 3)])
    assert drive_hours(s, 0, [HQ]) == 2
    assert drive_hours(s, 0, [HQ, (2, 3), (2, 2)]) == 2 + 2 + 1
    assert drive_hours(s, 0, [HQ, (3, 2), HQ]) == 2 + 1 + 2  # entered twice, paid twice
    assert drive_hours(s, 0, [(2, 2), (1, 2)]) == 2  # row 2 is free of surcharge


def test_surcharge_token_and_row_add_up() -> None:
    s = turn_of(two(car_a=(2, 2)), 0)
    s = with_event(s, 1, "E14", [(1, 3)])
    s = with_event(s, 2, "E1", [(2, 3), (5, 5)])
    assert drive_hours(s, 0, [(2, 3)]) == 1 + 1 + 1


COSTS = [
    pytest.param("E3", 20, {"mobsters": {(2, 2): "red"}}, c.CatchWitness(0), 3, id="E3-witness"),
    pytest.param("E4", 10, {"mobsters": {(2, 2): "red"}}, c.CatchInformant(0), 3,
                 id="E4-informant"),
    pytest.param("E6", 20, {"tokens": [((2, 2), "stakeout", 1)]}, c.Stakeout(0, 2), 3,
                 id="E6-stakeout-risk-2"),
    pytest.param("E11", 10, {"mobsters": {(2, 2): "red"}}, c.Arrest(0), 2, id="E11-arrest"),
    pytest.param("E15", 10, {"tokens": [((2, 2), "search", 1)]}, c.SearchScene(0), 3,
                 id="E15-search"),
]


@pytest.mark.parametrize(("card", "start", "scene", "command", "hours"), COSTS)
def test_cost_surcharge_adds_one_hour(
    card: str, start: int, scene: dict[str, Any], command: c.Command, hours: int
) -> None:
    s = turn_of(two(a=start, **scene), 0)
    s = with_event(s, 1, card, [(5, 1), (5, 2)] if card in ("E6", "E11") else [(5, 1)])
    out = act(s, command, REPRIEVE)
    assert [e.hours for e in out.of(ActionTaken)] == [hours]
    assert out.state.players[0].space == start + hours


def test_e7_makes_bring_in_step_2_cost_one_more() -> None:
    s = player(two(a=20, car_a=HQ), 0, holding=Color.RED, held_on_turn=0)
    s = with_event(turn_of(s, 0), 1, "E7", [HQ])
    out = act(s, c.BookMobster(0), REPRIEVE)
    assert [e.hours for e in out.of(ActionTaken)] == [3]


def test_cost_surcharge_touches_only_its_own_action() -> None:
    s = turn_of(two(a=10, mobsters={(2, 2): "red"}), 0)
    s = with_event(s, 1, "E3", [(5, 1)])  # Catch Witness +1, not Catch Informant
    out = act(s, c.CatchInformant(0), REPRIEVE)
    assert [e.hours for e in out.of(ActionTaken)] == [2]


@pytest.mark.parametrize(
    ("ability", "card", "start", "scene", "command"),
    [
        ("street_contacts", "E4", 10, {"mobsters": {(2, 2): "red"}}, c.CatchInformant(0)),
        ("lab_partner", "E15", 10, {"tokens": [((2, 2), "search", 1)]}, c.SearchScene(0)),
    ],
)
def test_surcharge_is_added_after_an_ability_sets_the_cost(
    ability: str, card: str, start: int, scene: dict[str, Any], command: c.Command
) -> None:
    s = given(players=2, abilities=[ability, "quartermaster"], spaces={0: start, 1: 30},
              cars={0: (2, 2)}, **scene)
    s = with_event(turn_of(s, 0), 1, card, [(5, 1)])
    out = act(s, command, REPRIEVE)
    assert [e.hours for e in out.of(ActionTaken)] == [2]


def test_e6_surcharge_counts_toward_the_hour_cap() -> None:
    s = turn_of(two(a=43, b=45, tokens=[((2, 2), "stakeout", 5)]), 0)
    assert act(s, c.Stakeout(0, 5), REPRIEVE).state.players[0].space == 48
    s = with_event(s, 1, "E6", [(5, 1), (5, 2)])
    assert refused(s, c.Stakeout(0, 5)) == "rules/over_hour_cap"
    assert act(s, c.Stakeout(0, 4), REPRIEVE).state.players[0].space == 48


def test_e2_caps_the_backup_risk_at_4() -> None:
    s = turn_of(two(a=10, mobsters={(2, 2): "red"}), 0)
    s = with_event(s, 1, "E2", [(5, 1)])
    assert refused(s, c.CallForBackup(0, 5)) == "rules/risk_out_of_range"
    assert refused(s, c.CallForBackup(0, 6)) == "rules/risk_out_of_range"
    out = act(s, c.CallForBackup(0, 4), [die(4)])
    assert [e.hours for e in out.of(ActionTaken)] == [4]


def test_e2_does_not_cap_a_stakeout() -> None:
    s = turn_of(two(a=17, tokens=[((2, 2), "stakeout", 5)]), 0)
    s = with_event(s, 1, "E2", [(5, 1)])
    out = act(s, c.Stakeout(0, 5), REPRIEVE)
    assert [e.hours for e in out.of(ActionTaken)] == [5]


def test_e5_makes_a_day_turn_a_night_turn() -> None:
    s = two(a=10, mobsters={(2, 2): "red"}, tokens=[((2, 2), "search", 1)])
    s = with_event(s, 1, "E5", [(5, 1), (5, 2)])
    s = turn_of(s, 0)
    assert s.turn is not None and s.turn.night
    assert refused(s, c.SearchScene(0)) == "rules/wrong_time_of_day"
    out = act(s, c.CatchWitness(0), REPRIEVE)
    assert out.of(ActionTaken)


def test_e5_revealed_during_a_day_turn_makes_the_next_turn_night() -> None:
    s = events_on_top(turn_of(two(a=10, b=12, mobsters={(2, 4): "red"}), 0), "E5")
    assert s.turn is not None and not s.turn.night
    out = act(s, c.CoffeeBreak(0), [die(2), die(4), 0, 0])
    assert out.of(EventPlaced) == [EventPlaced("E5", 1, None)]
    # Ana (11, a day space) plays again, and her new turn is a night turn
    assert out.of(TurnBegan) == [TurnBegan(0, 2, True)]


def test_e5_resolved_mid_turn_leaves_the_turn_a_night_turn() -> None:
    """Time of day is fixed when the turn begins: after E5 is resolved, the Double Shift
    action of the same turn is still a night action."""
    s = two(a=10, b=12, car_b=(4, 4), force={0: ["double_shift"]},
            mobsters={(2, 2): "red"}, tokens=[((2, 2), "search", 1)])
    s = with_event(s, 1, "E5", [(2, 2), (4, 4)])
    s = turn_of(s, 0)
    out = act(s, c.ResolveEvent(0, 1))
    assert out.state.slots[0] is None
    assert out.state.turn is not None and out.state.turn.phase is Phase.W3
    s = act(out.state, c.PlayForce(0, "double_shift")).state
    assert refused(s, c.SearchScene(0)) == "rules/wrong_time_of_day"
    out = act(s, c.CatchWitness(0), REPRIEVE)
    assert out.of(TrackerAdvanced) == [TrackerAdvanced(0, 13, ())]


def test_e10_forbids_playing_force_cards() -> None:
    s = two(a=10, force={0: ["tip_line", "telephoto"]}, tokens=[((1, 1), "search", 1)])
    s = with_event(turn_of(s, 0), 1, "E10", [(5, 1), (5, 2)])
    assert refused(s, c.PlayForce(0, "tip_line", (1, 1))) == "rules/force_blocked"
    assert refused(s, c.PlayForce(0, "telephoto")) == "rules/force_blocked"


def test_e10_keeps_the_w3_and_w4_windows_shut() -> None:
    s = two(a=10, force={0: ["checkpoint"]})
    s = with_event(turn_of(s, 0), 1, "E10", [(5, 1), (5, 2)])
    out = act(s, c.CoffeeBreak(0), REPRIEVE)  # straight through to the Mobster Roll
    assert out.of(MobsterRolled) == [MobsterRolled(6, 6)]
    assert out.of(TurnBegan)


def test_without_e10_a_force_card_opens_w3() -> None:
    s = turn_of(two(a=10, force={0: ["checkpoint"]}), 0)
    out = act(s, c.CoffeeBreak(0))
    assert out.state.turn is not None and out.state.turn.phase is Phase.W3


def test_e13_revealed_makes_players_discard_down_in_time_track_order() -> None:
    s = given(
        players=4,
        abilities=["quartermaster", "sharp_eyes", "quartermaster", "quartermaster"],
        spaces={0: 10, 1: 12, 2: 11, 3: 13},
        mobsters={(4, 2): "red"},
        force={
            1: ["tip_line", "checkpoint", "telephoto"],  # limit 2, now 1
            2: ["judges_signature", "rubber_stamp", "radio_car"],  # limit 3, now 2
            3: ["code_three", "squad_wagon"],  # limit 3, now 2: keeps both
        },
    )
    s = events_on_top(turn_of(s, 0), "E13")
    out = act(s, c.CoffeeBreak(0), [die(4), die(2), pick((1, 1))])
    # Ana moves onto 11 on top of Cara: Time Track order Ana, Cara, Ben, Dan
    assert stack(out.state, 11) == [2, 0]
    assert out.state.pending == (ChooseDiscard(2, "hand_limit"),)
    out = act(out.state, c.DiscardForce(2, "rubber_stamp"))
    assert out.state.pending == (ChooseDiscard(1, "hand_limit"),)
    out = act(out.state, c.DiscardForce(1, "telephoto"))
    assert out.state.pending == (ChooseDiscard(1, "hand_limit"),)
    out = act(out.state, c.DiscardForce(1, "tip_line"))
    assert out.state.pending == ()
    hands = [p.force for p in out.state.players]
    assert hands == [(), ("checkpoint",), ("judges_signature", "radio_car"),
                     ("code_three", "squad_wagon")]
    assert out.of(TurnBegan)  # the turn went on once every discard was made


def test_e13_lowers_the_limit_for_a_later_gain() -> None:
    s = two(a=10, mobsters={(2, 2): "red"}, force={0: ["tip_line", "checkpoint"]})
    s = with_event(turn_of(s, 0), 1, "E13", [(5, 1)])
    out = act(s, c.CallForBackup(0, 6), [die(1)])
    assert len(out.of(ForceGained)) == 1
    assert out.state.pending == (ChooseDiscard(0, "hand_limit"),)  # 3 cards, limit 3 - 1


def test_e12_successful_backup_gives_no_force_card() -> None:
    s = turn_of(two(a=10, mobsters={(2, 1): "red"}), 0)
    s = with_event(s, 1, "E12", [(5, 1), (5, 2), (5, 3)])
    out = act(s, c.CallForBackup(0, 6), [die(1), *REPRIEVE])
    assert out.of(MobsterApprehended) == [MobsterApprehended(0, (2, 1), Color.RED)]
    assert not out.of(ForceGained)
    assert out.state.players[0].force == ()


def test_e18_blocks_bring_in_step_1_only() -> None:
    s = two(a=20, car_a=HQ, mobsters={(3, 2): "red"})
    s = with_event(turn_of(s, 0), 1, "E18", [HQ], deadline=40)
    s2 = act(s, c.Drive(0, ((3, 2),))).state
    assert refused(s2, c.HoldMobster(0)) == "rules/action_blocked"
    s3 = player(s, 0, holding=Color.GRAY)
    out = act(s3, c.BookMobster(0), REPRIEVE)  # step 2 stays legal
    assert [e.hours for e in out.of(ActionTaken)] == [2]


# --- §11.2 Resolving ------------------------------------------------------------------------------


def test_visit_removes_the_token_and_the_last_token_resolves() -> None:
    s = with_event(turn_of(two(a=10), 0), 1, "E2", [(2, 2)])
    out = act(s, c.ResolveEvent(0, 1), REPRIEVE)
    assert out.of(EventTokenRemoved) == [EventTokenRemoved(1, (2, 2), 0)]
    assert out.of(EventResolved) == [EventResolved(1, 0, ())]
    assert out.of(BadgeRaised) == [BadgeRaised(0, 1)]
    assert out.of(EventDiscarded) == [EventDiscarded(1)]
    assert out.state.slots[0] is None and out.state.event_discard[-1] == "E2"
    assert [e.hours for e in out.of(ActionTaken)] == [2]
    assert out.state.players[0].space == 12


def test_visit_of_one_token_of_two_does_not_resolve() -> None:
    s = with_event(turn_of(two(a=10), 0), 1, "E1", [(2, 2), (4, 4)])
    out = act(s, c.ResolveEvent(0, 1), REPRIEVE)
    assert out.of(EventTokenRemoved) == [EventTokenRemoved(1, (2, 2), 0)]
    assert not out.of(EventResolved) and not out.of(ForceGained)
    active = out.state.slots[0]
    assert active is not None and active.tokens == ((4, 4),) and active.removed_by == (0,)


def test_resolve_event_needs_the_car_on_one_of_the_events_tokens() -> None:
    s = with_event(turn_of(two(a=10), 0), 1, "E2", [(2, 3)])
    assert refused(s, c.ResolveEvent(0, 1)) == "rules/not_on_event_token"
    assert refused(s, c.ResolveEvent(0, 2)) == "rules/no_such_event"


def test_resolve_event_names_one_event_and_removes_only_its_token() -> None:
    s = turn_of(two(a=10, car_a=HQ), 0)
    s = with_event(s, 1, "E7", [HQ])
    s = with_event(s, 2, "E18", [HQ], deadline=40)
    out = act(s, c.ResolveEvent(0, 2), REPRIEVE)
    assert out.of(EventTokenRemoved) == [EventTokenRemoved(2, HQ, 0)]
    assert out.state.slots[1] is None
    assert out.state.slots[0] is not None and out.state.slots[0].tokens == (HQ,)


def test_meet_removes_the_other_token_under_another_officers_car() -> None:
    s = with_event(turn_of(two(a=10, car_b=(4, 4)), 0), 1, "E5", [(2, 2), (4, 4)])
    out = act(s, c.ResolveEvent(0, 1), REPRIEVE)
    assert {(e.block, e.seat) for e in out.of(EventTokenRemoved)} == {
        ((2, 2), 0), ((4, 4), 0)
    }
    assert out.of(EventResolved) == [EventResolved(1, 0, (1,))]
    assert out.of(BadgeRaised) == [BadgeRaised(0, 1), BadgeRaised(1, 1)]  # B and B


def test_meet_counts_a_rested_officers_car_on_the_other_token_under_rules_v3() -> None:
    """§11.2 (rules v3): "another officer (ended or not)" on the other token's block removes
    it too and is a contributor; Ben rested on 45 with his car on (4, 4)."""
    s = with_event(turn_of(two(a=10, b=45, car_b=(4, 4)), 0), 1, "E5", [(2, 2), (4, 4)])
    s = player(s, 1, ended=True)
    out = act(s, c.ResolveEvent(0, 1), REPRIEVE)
    assert out.of(EventTokenRemoved) == [
        EventTokenRemoved(1, (2, 2), 0), EventTokenRemoved(1, (4, 4), 0),
    ]
    assert out.of(EventResolved) == [EventResolved(1, 0, (1,))]
    assert out.of(BadgeRaised) == [BadgeRaised(0, 1), BadgeRaised(1, 1)]  # B and B
    assert out.state.slots[0] is None


def test_meet_ignored_an_ended_officer_on_the_other_token_under_rules_v2() -> None:
    """Games recorded under rules v2 replay as they were played: an ended car counted for
    nothing, so the other token stayed."""
    s = two(a=10, b=45, car_b=(4, 4), rules=2)
    s = with_event(turn_of(s, 0), 1, "E5", [(2, 2), (4, 4)])
    s = player(s, 1, ended=True)
    out = act(s, c.ResolveEvent(0, 1), REPRIEVE)
    assert out.of(EventTokenRemoved) == [EventTokenRemoved(1, (2, 2), 0)]
    assert not out.of(EventResolved)
    assert out.state.slots[0] is not None and out.state.slots[0].tokens == ((4, 4),)


def test_meet_with_the_other_officer_on_the_same_block_removes_one_token() -> None:
    s = with_event(turn_of(two(a=10, car_b=(2, 2)), 0), 1, "E10", [(2, 2), (4, 4)])
    out = act(s, c.ResolveEvent(0, 1), REPRIEVE)
    assert out.of(EventTokenRemoved) == [EventTokenRemoved(1, (2, 2), 0)]
    assert not out.of(EventResolved)


def test_meet_in_solo_removes_only_the_visited_token() -> None:
    s = given(players=1, spaces={0: 10}, cars={0: (2, 2)})
    s = with_event(turn_of(s, 0), 1, "E17", [(2, 2), (4, 4)], deadline=40)
    out = act(s, c.ResolveEvent(0, 1), REPRIEVE)
    assert out.of(EventTokenRemoved) == [EventTokenRemoved(1, (2, 2), 0)]
    assert not out.of(EventResolved)


# NAB: any apprehension of the mobster on a token block removes the token.
NabCase = Callable[[], tuple[State, c.Command, list[int], Block]]


def nab_scene(start: int, mobs: dict[Block, str], token: Block, **kw: Any) -> State:
    s = two(a=start, mobsters=mobs, **kw)
    return with_event(turn_of(s, 0), 1, "E8", [token], deadline=40)


NAB_CASES: dict[str, NabCase] = {
    "arrest-to-empty-spot": lambda: (
        nab_scene(10, {(2, 2): "red"}, (2, 2)), c.Arrest(0), REPRIEVE, (2, 2)),
    "arrest-to-full-spot": lambda: (
        player(nab_scene(10, {(2, 2): "red"}, (2, 2)), 0, arrests=(Color.RED,)),
        c.Arrest(0), REPRIEVE, (2, 2)),
    "backup-success-adjacent": lambda: (
        nab_scene(10, {(2, 1): "blue"}, (2, 1)), c.CallForBackup(0, 6), [die(1)], (2, 1)),
    "backup-failure-own-block": lambda: (
        nab_scene(10, {(2, 2): "red", (2, 1): "blue"}, (2, 2)), c.CallForBackup(0, 1),
        [die(6), *REPRIEVE], (2, 2)),
    "catch-informant": lambda: (
        nab_scene(10, {(2, 2): "red"}, (2, 2)), c.CatchInformant(0), REPRIEVE, (2, 2)),
    "catch-witness": lambda: (
        nab_scene(14, {(2, 2): "red"}, (2, 2)), c.CatchWitness(0), REPRIEVE, (2, 2)),
    "bring-in-step-1": lambda: (
        nab_scene(14, {(2, 2): "red"}, (2, 2)), c.HoldMobster(0), REPRIEVE, (2, 2)),
    "squad-wagon": lambda: (
        nab_scene(10, {(2, 1): "blue"}, (2, 1), force={0: ["squad_wagon"]}),
        c.PlayForce(0, "squad_wagon", (2, 1)), [], (2, 1)),
}


@pytest.mark.parametrize("case", list(NAB_CASES))
def test_nab_token_is_removed_by_any_apprehension_on_its_block(case: str) -> None:
    s, command, draws, token = NAB_CASES[case]()
    out = act(s, command, draws)
    assert mob(out.state, token) is None
    assert out.of(EventTokenRemoved) == [EventTokenRemoved(1, token, 0)]
    assert out.of(EventResolved) == [EventResolved(1, 0, ())]
    assert out.state.slots[0] is None
    assert out.first(EventResolved) < out.first(EventDiscarded)


def test_nab_apprehension_off_the_token_block_removes_nothing() -> None:
    s = nab_scene(10, {(2, 2): "red", (4, 4): "blue"}, (4, 4))
    out = act(s, c.Arrest(0), REPRIEVE)
    assert out.of(MobsterArrested)
    assert not out.of(EventTokenRemoved)
    assert out.state.slots[0] is not None and out.state.slots[0].tokens == ((4, 4),)


def test_nab_by_resolve_event_costs_1_h_on_a_token_block_with_no_mobster() -> None:
    s = nab_scene(10, {}, (2, 2))
    out = act(s, c.ResolveEvent(0, 1), REPRIEVE)
    assert [e.hours for e in out.of(ActionTaken)] == [1]
    assert out.of(EventResolved) == [EventResolved(1, 0, ())]


def test_nab_by_resolve_event_is_refused_while_a_mobster_stands_on_the_token() -> None:
    s = nab_scene(10, {(2, 2): "red"}, (2, 2))
    assert refused(s, c.ResolveEvent(0, 1)) == "rules/mobster_on_token"  # ruling 17


def test_e11_last_token_arrest_costs_2_h_and_rewards_the_earlier_remover() -> None:
    s = turn_of(two(a=10, mobsters={(2, 2): "red"}), 0)
    s = with_event(s, 1, "E11", [(2, 2)], removed_by=[1])
    out = act(s, c.Arrest(0), REPRIEVE)
    assert [e.hours for e in out.of(ActionTaken)] == [2]
    assert out.of(EventResolved) == [EventResolved(1, 0, (1,))]
    assert out.of(BadgeRaised) == [BadgeRaised(0, 1)]
    assert [e.seat for e in out.of(SuspectDrawn)] == [1]


def test_nab_by_backup_counts_an_officer_present_on_an_apprehended_token_block() -> None:
    s = given(players=3, spaces={0: 10, 1: 30, 2: 20},
              cars={0: (2, 2), 1: (5, 5), 2: (1, 2)},
              mobsters={(2, 1): "red", (1, 2): "blue"})
    s = with_event(turn_of(s, 0), 1, "E11", [(2, 1), (1, 2)])
    out = act(s, c.CallForBackup(0, 6), [die(2)])
    assert len(out.of(EventTokenRemoved)) == 2
    assert out.of(EventResolved) == [EventResolved(1, 0, (2,))]
    assert [e.seat for e in out.of(SuspectDrawn)] == [2]


def test_e12_resolve_is_night_only() -> None:
    s = with_event(turn_of(two(a=10), 0), 1, "E12", [(2, 2)])
    assert refused(s, c.ResolveEvent(0, 1)) == "rules/wrong_time_of_day"
    s = with_event(turn_of(two(a=14), 0), 1, "E12", [(2, 2)])
    assert act(s, c.ResolveEvent(0, 1)).of(EventResolved)


def test_e12_resolve_on_a_day_space_is_allowed_under_e5() -> None:
    s = two(a=10)
    s = with_event(s, 1, "E12", [(2, 2)])
    s = with_event(s, 2, "E5", [(5, 1), (5, 2)])
    s = turn_of(s, 0)
    assert act(s, c.ResolveEvent(0, 1)).of(EventResolved)


def test_e12_resolve_on_a_day_turn_with_judges_signature() -> None:
    s = with_event(turn_of(two(a=10, force={0: ["judges_signature"]}), 0), 1, "E12", [(2, 2)])
    s = act(s, c.PlayForce(0, "judges_signature")).state
    assert act(s, c.ResolveEvent(0, 1)).of(EventResolved)


def test_contributors_are_earlier_removers_and_present_officers_in_time_track_order() -> None:
    # Ben and Dan removed E9 tokens earlier; Cara's car is on the last token with Ana's.
    s = given(
        players=4,
        spaces={0: 20, 1: 25, 2: 30, 3: 25},
        order=[0, 1, 3, 2],  # on 25 Dan is above Ben
        cars={0: (2, 2), 1: (5, 5), 2: (2, 2), 3: (1, 1)},
    )
    s = with_event(turn_of(s, 0), 1, "E9", [(2, 2)], removed_by=[1, 3], deadline=45)
    out = act(s, c.ResolveEvent(0, 1), REPRIEVE)
    assert out.of(EventResolved) == [EventResolved(1, 0, (1, 2, 3))]
    assert out.of(BadgeRaised) == [BadgeRaised(0, 1)]
    # F to each contributor in Time Track order: Dan (25, top), Ben (25), Cara (30)
    assert [e.seat for e in out.of(ForceGained)] == [3, 1, 2]


def test_an_officer_elsewhere_is_not_a_contributor() -> None:
    s = given(players=3, spaces={0: 20, 1: 25, 2: 30}, cars={0: (2, 2), 1: (2, 3), 2: (1, 1)})
    s = with_event(turn_of(s, 0), 1, "E3", [(2, 2)])
    out = act(s, c.ResolveEvent(0, 1), REPRIEVE)
    assert out.of(EventResolved) == [EventResolved(1, 0, ())]
    assert not out.of(SuspectDrawn)


@pytest.mark.parametrize("rules", [3, 2])
def test_a_rested_officers_car_on_the_resolved_block_counts_from_rules_v3(rules: int) -> None:
    """§5.10/§11.2: an ended player "still … gain[s] rewards from Events you contributed to",
    and a car on a block needed to resolve the Event makes a contributor, "ended or not" from
    rules v3.  Ben (ended) removed a token earlier; Cy rested on 44 with his car on (2, 2),
    where Ana resolves.  Under rules v2 (games recorded before) Cy's car counted for nothing."""
    s = given(players=3, spaces={0: 20, 1: 45, 2: 44}, cars={0: (2, 2), 1: (5, 5), 2: (2, 2)},
              rules=rules)
    s = player(player(s, 1, ended=True), 2, ended=True)
    s = with_event(turn_of(s, 0), 1, "E9", [(2, 2)], removed_by=[1], deadline=45)
    first, second = s.force_deck[:2]
    out = act(s, c.ResolveEvent(0, 1), REPRIEVE)
    if rules >= 3:  # Time Track order: Cy (44) before Ben (45)
        assert out.of(EventResolved) == [EventResolved(1, 0, (1, 2))]
        assert out.of(ForceGained) == [ForceGained(2, first, True), ForceGained(1, second, True)]
        assert out.state.players[2].force[-1] == first  # §5.10: kept in hand
    else:
        assert out.of(EventResolved) == [EventResolved(1, 0, (1,))]
        assert out.of(ForceGained) == [ForceGained(1, first, True)]  # §5.10: kept in hand
        assert out.state.players[2].force == ()
    assert out.state.players[1].force[-1] == out.of(ForceGained)[-1].card


@pytest.mark.parametrize("rules", [3, 2])
def test_a_nab_counts_a_rested_officers_car_on_the_token_from_rules_v3(rules: int) -> None:
    """NAB (E11, contributors S): Ana arrests the mobster on the token block where Ben, who
    rested, left his car: a contributor from rules v3, nobody under v2."""
    s = two(a=10, b=45, car_b=(2, 2), mobsters={(2, 2): "red"}, rules=rules)
    s = with_event(turn_of(player(s, 1, ended=True), 0), 1, "E11", [(2, 2)])
    out = act(s, c.Arrest(0), REPRIEVE)
    assert out.of(EventTokenRemoved) == [EventTokenRemoved(1, (2, 2), 0)]
    assert out.of(EventResolved) == [EventResolved(1, 0, (1,) if rules >= 3 else ())]
    assert [e.seat for e in out.of(SuspectDrawn)] == ([1] if rules >= 3 else [])


# rules.md §11.5: resolver reward, contributor reward, resolve hours
REWARDS: dict[str, tuple[str, str | None, int]] = {
    "E1": ("F", "P", 1), "E2": ("B", None, 2), "E3": ("B", "S", 2), "E4": ("B", "S", 2),
    "E5": ("B", "B", 1), "E6": ("F", "S", 1), "E7": ("E", None, 1), "E8": ("B", None, 1),
    "E9": ("B", "F", 1), "E10": ("I", "S", 2), "E11": ("B", "S", 1), "E12": ("POOL", "POOL", 1),
    "E13": ("E", None, 3), "E14": ("F", None, 1), "E15": ("B", "S", 2), "E16": ("B", "S", 1),
    "E17": ("E", "E", 2), "E18": ("B", None, 2),
}


def reward_seen(kind: str, seat: int, events: list[Event]) -> bool:
    """Whether the events show this reward going to this seat (in this scene: nobody holds a
    Suspect, so S and I draw; one face-down token, so P peeks it; one solved evidence that
    neither Ana nor Ben knows, so E learns it)."""
    match kind:
        case "B":
            return BadgeRaised(seat, 1) in events
        case "F":
            return any(isinstance(e, ForceGained) and e.seat == seat for e in events)
        case "S" | "I":
            return any(isinstance(e, SuspectDrawn) and e.seat == seat for e in events)
        case "P":
            return TokenPeeked(seat, (5, 5)) in events
        case "E":
            return TraitLearned(seat, Evidence.RANK) in events
        case "POOL":
            return any(isinstance(e, PoolCardTaken) and e.seat == seat for e in events)
    raise AssertionError(kind)


REWARD_TYPES = (BadgeRaised, ForceGained, SuspectDrawn, TokenPeeked, TraitLearned, PoolCardTaken)


@pytest.mark.parametrize("card", list(REWARDS))
def test_every_event_rewards_its_resolver_and_its_contributor(card: str) -> None:
    resolver, contributor, hours = REWARDS[card]
    car = HQ if card in ("E7", "E18") else (2, 2)
    s = given(players=3, spaces={0: 17, 1: 30, 2: 40}, cars={0: car, 1: (5, 4), 2: (1, 5)},
              tokens=[((5, 5), "search", 1)], force={0: ["checkpoint"]})
    s = replace(s, solved=((Evidence.RANK, 2),))
    s = force_on_top(s, "tip_line", "tip_line")
    s = with_event(s, 1, card, [car], removed_by=[1], deadline=48,
                   card_mobsters=["red", "blue", "gray"] if card == "E12" else [])
    s = turn_of(s, 0)
    out = act(s, c.ResolveEvent(0, 1))
    events = list(out.events)
    state = out.state
    while state.pending:  # a contributor's S may be a choice once Ana holds a Suspect: draw
        (decision,) = state.pending
        assert isinstance(decision, ChooseGain)
        more = act(state, c.GainSuspect(decision.seat, None))
        events += more.events
        state = more.state
    assert [e.hours for e in only(events, ActionTaken)] == [hours]
    assert only(events, EventResolved) == [EventResolved(1, 0, (1,))]
    assert reward_seen(resolver, 0, events)
    if contributor is None:
        assert not [e for e in events if isinstance(e, REWARD_TYPES) and e.seat == 1]
    else:
        assert reward_seen(contributor, 1, events)
    assert state.slots[0] is None
    assert state.bag == (5, 5, 5)  # E12's card mobsters went back to the bag
    assert state.turn is not None and state.turn.phase is Phase.W3


def test_resolver_and_contributors_are_rewarded_in_time_track_order() -> None:
    # Ben ended on 44 after removing an E9 token; Ana (45) resolves: Ben is further back,
    # so his F comes before Ana's B.
    s = given(players=2, spaces={0: 45, 1: 44}, cars={0: (2, 2), 1: (5, 5)})
    s = player(s, 1, ended=True)
    s = with_event(turn_of(s, 0), 1, "E9", [(2, 2)], removed_by=[1], deadline=48)
    out = act(s, c.ResolveEvent(0, 1), REPRIEVE)
    assert out.of(EventResolved) == [EventResolved(1, 0, (1,))]
    assert out.first(ForceGained) < out.first(BadgeRaised)


def test_p_reward_asks_which_token_when_several_remain() -> None:
    s = two(a=10, b=30, tokens=[((5, 5), "search", 1), ((1, 5), "stakeout", 3)])
    s = with_event(turn_of(s, 0), 1, "E1", [(2, 2)], removed_by=[1])
    out = act(s, c.ResolveEvent(0, 1))
    assert [e.seat for e in out.of(ForceGained)] == [0]
    assert out.state.pending == (ChoosePeek(1),)
    out = act(out.state, c.PeekToken(1, (1, 5)))
    assert out.of(TokenPeeked) == [TokenPeeked(1, (1, 5))]
    assert (1, 5) in out.state.players[1].known_tokens


def test_p_reward_gives_nothing_with_no_face_down_token_left() -> None:
    s = two(a=10, b=30, tokens=[])
    s = with_event(turn_of(s, 0), 1, "E1", [(2, 2)], removed_by=[1])
    out = act(s, c.ResolveEvent(0, 1))
    assert out.of(EventResolved) == [EventResolved(1, 0, (1,))]
    assert not out.of(TokenPeeked) and out.state.pending == ()
    assert out.state.slots[0] is None


def test_e_reward_asks_which_evidence_when_several_are_unknown() -> None:
    s = with_event(turn_of(two(a=10, car_a=HQ), 0), 1, "E7", [HQ])
    s = replace(s, solved=((Evidence.RANK, 1), (Evidence.GETAWAY, 1)))
    out = act(s, c.ResolveEvent(0, 1))
    assert out.state.pending == (ChooseTrait(0),)
    out = act(out.state, c.LearnTrait(0, Evidence.GETAWAY), REPRIEVE)
    assert out.of(TraitLearned) == [TraitLearned(0, Evidence.GETAWAY)]


def test_e_reward_skips_evidence_the_player_already_holds() -> None:
    s = with_event(turn_of(two(a=10, car_a=HQ), 0), 1, "E7", [HQ])
    s = replace(s, solved=((Evidence.RANK, 0), (Evidence.GETAWAY, 1)))
    out = act(s, c.ResolveEvent(0, 1), REPRIEVE)
    assert out.of(TraitLearned) == [TraitLearned(0, Evidence.GETAWAY)]


def test_e_reward_with_nothing_to_learn_gains_a_suspect() -> None:
    s = with_event(turn_of(two(a=10, car_a=HQ), 0), 1, "E7", [HQ])
    top = s.suspect_deck[0]
    out = act(s, c.ResolveEvent(0, 1), REPRIEVE)
    assert not out.of(TraitLearned)
    assert out.of(SuspectDrawn) == [SuspectDrawn(0, top)]


def test_i_reward_is_an_interrogate_taken_before_the_next_recipient() -> None:
    s = given(players=3, spaces={0: 10, 1: 12, 2: 30},
              cars={0: (2, 2), 1: (4, 4), 2: (5, 5)}, suspects={2: ["S01", "S02"]})
    s = with_event(turn_of(s, 0), 1, "E10", [(2, 2), (4, 4)])
    out = act(s, c.ResolveEvent(0, 1))
    assert out.of(EventResolved) == [EventResolved(1, 0, (1,))]
    assert out.state.pending == (ChooseInterrogate(0),)
    out = act(out.state, c.Interrogate(0, None))
    assert out.state.pending == (ChooseGain(1),)  # Ben's S comes after Ana's I


def test_f_reward_with_empty_force_deck_and_discard_is_lost() -> None:
    s = with_event(turn_of(two(a=10), 0), 1, "E14", [(2, 2)])
    s = replace(s, force_deck=(), force_discard=())
    out = act(s, c.ResolveEvent(0, 1), REPRIEVE)
    assert out.of(ForceGainLost) == [ForceGainLost(0)]
    assert out.state.slots[0] is None


def pool_scene(
    spaces: dict[int, int], cars: dict[int, Block], removed_by: Sequence[int], resolver: int,
    ended: Sequence[int] = (),
) -> State:
    s = given(players=len(spaces), spaces=spaces, cars=cars)
    for seat in ended:
        s = player(s, seat, ended=True)
    s = with_event(s, 1, "E12", [cars[resolver]], removed_by=removed_by,
                   card_mobsters=["red", "blue", "gray"])
    return turn_of(s, resolver)


def test_worked_example_14_pool_shared_in_time_track_order() -> None:
    s = pool_scene({0: 22, 1: 20, 2: 30, 3: 25},
                   {0: (1, 1), 1: (4, 4), 2: (5, 1), 3: (1, 5)}, [0, 3], 1)
    s = force_on_top(s, "telephoto", "checkpoint")
    assert s.bag == (4, 4, 4)
    out = act(s, c.ResolveEvent(1, 1))
    assert out.of(EventResolved) == [EventResolved(1, 1, (0, 3))]
    assert out.of(PoolRevealed) == [PoolRevealed(("telephoto", "checkpoint"))]
    assert out.state.pending == (ChoosePoolCard(1),)
    out = act(out.state, c.TakeFromPool(1, "checkpoint"))
    assert out.of(PoolCardTaken) == [
        PoolCardTaken(1, "checkpoint", True),
        PoolCardTaken(0, "telephoto", True),  # Ana takes the one left, with no choice
    ]
    assert out.state.players[1].force == ("checkpoint",)
    assert out.state.players[0].force == ("telephoto",)
    assert out.state.players[3].force == ()  # Dan finds nothing
    assert out.state.slots[0] is None
    assert out.state.bag == (5, 5, 5)  # the card's 3 mobsters go back to the bag
    assert out.state.turn is not None and out.state.turn.phase is Phase.W3
    out = act(out.state, c.Proceed(1))
    assert out.state.players[1].space == 21


def test_pool_leftover_goes_to_the_discard_pile_after_the_event() -> None:
    s = pool_scene({0: 14, 1: 30}, {0: (2, 2), 1: (5, 5)}, [], 0)
    s = force_on_top(s, "telephoto", "checkpoint")
    out = act(s, c.ResolveEvent(0, 1))
    out = act(out.state, c.TakeFromPool(0, "telephoto"))
    assert out.first(EventDiscarded) < out.first(PoolDiscarded)  # ruling 16
    assert out.state.pool == ()
    assert out.state.force_discard[-1] == "checkpoint"
    assert out.state.players[0].force == ("telephoto",)


def test_pool_of_identical_cards_needs_no_choice() -> None:
    s = pool_scene({0: 14, 1: 30}, {0: (2, 2), 1: (5, 5)}, [1], 0)
    s = force_on_top(s, "tip_line", "tip_line")
    out = act(s, c.ResolveEvent(0, 1))
    assert out.of(PoolCardTaken) == [PoolCardTaken(0, "tip_line", True),
                                     PoolCardTaken(1, "tip_line", True)]
    assert out.state.pending == ()


def test_pool_with_empty_force_deck_and_discard_gives_nothing() -> None:
    s = pool_scene({0: 14, 1: 30}, {0: (2, 2), 1: (5, 5)}, [1], 0)
    s = replace(s, force_deck=(), force_discard=())
    out = act(s, c.ResolveEvent(0, 1), REPRIEVE)
    assert not out.of(PoolCardTaken) and out.state.pending == ()
    assert out.state.slots[0] is None


def test_pool_reshuffles_the_discard_pile_when_the_deck_runs_out() -> None:
    s = pool_scene({0: 14, 1: 30}, {0: (2, 2), 1: (5, 5)}, [1], 0)
    s = replace(s, force_deck=("checkpoint",), force_discard=("telephoto",))
    out = act(s, c.ResolveEvent(0, 1))  # a one-card discard pile shuffles with no draw
    assert out.state.pool == ("checkpoint", "telephoto")
    assert out.state.pending == (ChoosePoolCard(0),)
    out = act(out.state, c.TakeFromPool(0, "checkpoint"))
    assert out.state.players[0].force == ("checkpoint",)
    assert out.state.players[1].force == ("telephoto",)


def test_pool_reshuffle_never_takes_back_the_cards_just_revealed() -> None:
    s = pool_scene({0: 14, 1: 30}, {0: (2, 2), 1: (5, 5)}, [1], 0)
    s = replace(s, force_deck=("checkpoint",), force_discard=())
    out = act(s, c.ResolveEvent(0, 1))
    # one card only: the resolver takes it, the contributor finds nothing
    assert out.of(PoolCardTaken) == [PoolCardTaken(0, "checkpoint", True)]
    assert out.state.players[1].force == ()


def test_card_mobsters_go_to_the_bag_and_city_mobsters_stay() -> None:
    s = given(players=2, spaces={0: 14, 1: 30}, cars={0: (2, 2)},
              mobsters={(1, 1): "red", (5, 5): "blue"})
    s = with_event(s, 1, "E12", [(2, 2)], card_mobsters=["red", "red", "gray"])
    s = force_on_top(turn_of(s, 0), "tip_line", "tip_line")
    assert s.bag == (2, 4, 4)
    out = act(s, c.ResolveEvent(0, 1))
    assert out.state.bag == (4, 4, 5)
    assert mob(out.state, (1, 1)) is Color.RED and mob(out.state, (5, 5)) is Color.BLUE


def test_several_events_resolve_in_slot_order_each_rewarded_and_discarded_first() -> None:
    # Backup apprehends (2,1) (E8, slot 2) before (2,3) (E16, slot 1) in block order
    s = two(a=10, car_b=(2, 3), mobsters={(2, 1): "red", (2, 3): "blue"})
    s = with_event(s, 1, "E16", [(2, 3)])
    s = with_event(s, 2, "E8", [(2, 1)], deadline=40)
    s = turn_of(s, 0)
    out = act(s, c.CallForBackup(0, 6), [die(3)])
    resolved = out.of(EventResolved)
    assert resolved == [EventResolved(1, 0, (1,)), EventResolved(2, 0, ())]
    order = [e for e in out.events
             if isinstance(e, EventResolved | EventDiscarded | BadgeRaised | SuspectDrawn)]
    assert order[0] == EventResolved(1, 0, (1,))
    assert order.index(EventDiscarded(1)) < order.index(EventResolved(2, 0, ()))
    # E16's rewards (B to Ana, S to Ben who stood on its token) come before E8 resolves
    assert order.index(BadgeRaised(0, 1)) < order.index(EventDiscarded(1))
    assert [e.seat for e in out.of(SuspectDrawn)][:1] == [1]
    assert order.index(BadgeRaised(0, 2)) > order.index(EventResolved(2, 0, ()))
    # the Force card of the Backup (effect step 1) comes before any token removal
    assert out.first(ForceGained) < out.first(EventTokenRemoved)


def test_effect_order_action_then_event_resolution_then_evidence_solving() -> None:
    s = two(a=20, car_a=(5, 2), mobsters={(5, 2): "red"})
    s = player(s, 1, witnesses=(1, 2, 3, 4))
    s = replace(s, witnesses=frozenset({5}))
    s = with_event(s, 1, "E8", [(5, 2)], deadline=40)
    s = turn_of(s, 0)
    out = act(s, c.CatchWitness(0))
    ev = out.events
    steps = [
        out.first(MobsterApprehended),
        ev.index(BadgeRaised(0, 1)),  # the action's own Badge step
        out.first(EventTokenRemoved),
        out.first(EventResolved),
        ev.index(BadgeRaised(0, 2)),  # the event's B reward
        out.first(EventDiscarded),
        out.first(EvidenceSolved),
    ]
    assert steps == sorted(steps)
    assert out.of(EvidenceSolved) == [EvidenceSolved(Evidence.GANG, 0)]


# --- §11.4 Timed expiry ---------------------------------------------------------------------------


def test_worked_example_16_e9_expires_and_everyone_discards_a_force_card() -> None:
    s = given(
        players=3,
        spaces={0: 31, 1: 34, 2: 33},
        cars={0: (2, 2)},
        force={1: ["tip_line", "checkpoint"], 2: ["telephoto"]},
    )
    s = with_event(s, 1, "E9", [(1, 1), (5, 1), (5, 5)], deadline=32)
    s = replace(turn_of(s, 0), lines=frozenset({8, 16, 24, 32}))  # Ben is already past 32
    s = act(s, c.Drive(0, ((2, 3),))).state
    out = act(s, c.CoffeeBreak(0), REPRIEVE)  # 31 -> 33
    assert out.of(EventExpired) == [EventExpired(1)]
    # Time Track order: Ana (33, top, no card), Cara (33), Ben (34); each chooses
    assert out.state.pending == (ChooseDiscard(2, "expiry"),)
    out = act(out.state, c.DiscardForce(2, "telephoto"))
    assert out.state.pending == (ChooseDiscard(1, "expiry"),)
    out = act(out.state, c.DiscardForce(1, "checkpoint"))  # his choice, not his oldest card
    assert out.of(ForceDiscarded) == [ForceDiscarded(1, "checkpoint", 1)]
    assert [p.force for p in out.state.players] == [(), ("tip_line",), ()]
    assert out.of(EventDiscarded) == [EventDiscarded(1)]
    assert out.state.slots[0] is None and out.state.event_discard[-1] == "E9"
    assert not out.of(EventResolved) and not out.of(BadgeRaised)


def test_an_ended_player_does_not_discard_on_an_expiry() -> None:
    """Ruling 27: an ended player's Force cards stay out of play until the game ends (§5.10),
    so an expiry's DISCARD_F skips them."""
    s = given(
        players=3,
        spaces={0: 31, 1: 45, 2: 33},
        cars={0: (2, 2)},
        force={1: ["tip_line", "checkpoint"], 2: ["telephoto"]},
    )
    s = player(s, 1, ended=True)
    s = with_event(s, 1, "E9", [(1, 1), (5, 1), (5, 5)], deadline=32)
    s = replace(turn_of(s, 0), lines=frozenset({8, 16, 24, 32}))
    s = act(s, c.Drive(0, ((2, 3),))).state
    out = act(s, c.CoffeeBreak(0), REPRIEVE)  # 31 -> 33
    assert out.of(EventExpired) == [EventExpired(1)]
    assert out.state.pending == (ChooseDiscard(2, "expiry"),)
    out = act(out.state, c.DiscardForce(2, "telephoto"))
    assert out.state.pending == ()
    assert out.state.players[1].force == ("tip_line", "checkpoint")


def test_no_expiry_while_the_lowest_tracker_is_before_the_deadline() -> None:
    s = given(players=2, spaces={0: 30, 1: 31})
    s = with_event(s, 1, "E9", [(1, 1), (5, 1), (5, 5)], deadline=32)
    s = replace(turn_of(s, 0), lines=frozenset({8, 16, 24, 32}))
    s = act(s, c.Drive(0, ((3, 2), (3, 1)))).state
    out = act(s, c.CoffeeBreak(0), REPRIEVE)  # Ana 30 -> 33, Ben still on 31
    assert not out.of(EventExpired)
    assert out.state.slots[0] is not None


def test_expiry_checks_only_the_players_who_have_not_ended() -> None:
    s = given(players=3, spaces={0: 44, 1: 46, 2: 44}, order=[2, 0, 1])
    s = player(s, 2, ended=True)
    s = with_event(s, 1, "E8", [(1, 1)], deadline=45)
    s = turn_of(s, 0)
    top = s.suspect_deck[0]
    out = act(s, c.CoffeeBreak(0), REPRIEVE)  # Ana 44 -> 45; Cara (ended) stays on 44
    assert out.of(EventExpired) == [EventExpired(1)]
    assert out.of(SuspectRemoved) == [SuspectRemoved(top)]


def test_expiry_is_checked_at_the_end_of_the_turn_after_the_mobster_roll() -> None:
    s = given(players=2, spaces={0: 29, 1: 35})
    s = with_event(s, 1, "E8", [(1, 1)], deadline=30)
    s = turn_of(s, 0)
    out = act(s, c.CoffeeBreak(0), REPRIEVE)
    assert out.first(MobsterRolled) < out.first(EventExpired) < out.first(TurnBegan)


@pytest.mark.parametrize(("card", "penalties"), [("E8", 1), ("E15", 1), ("E17", 2)])
def test_pen_expiry_takes_the_penalty_n_times(card: str, penalties: int) -> None:
    s = given(players=2, spaces={0: 29, 1: 35})
    s = with_event(s, 1, card, [(1, 1), (2, 1)][: 2 if card == "E17" else 1], deadline=30)
    s = turn_of(s, 0)
    deck = s.suspect_deck
    out = act(s, c.CoffeeBreak(0), REPRIEVE)
    assert out.of(EventExpired) == [EventExpired(1)]
    assert out.of(SuspectRemoved) == [SuspectRemoved(card) for card in deck[:penalties]]
    assert out.state.suspects_out == deck[:penalties]
    assert out.first(SuspectRemoved) < out.first(EventDiscarded)
    assert not out.of(EventResolved)


def test_e18_expiry_places_two_bag_mobsters_with_event_setup_rolls() -> None:
    s = given(players=2, spaces={0: 19, 1: 25}, mobsters={(1, 1): "gray"})
    s = with_event(s, 1, "E18", [HQ], deadline=20)
    s = turn_of(s, 0)
    draws = [
        *REPRIEVE,
        bag_value((5, 5, 4), "red"), pick((2, 1), [(1, 1)]),
        bag_value((4, 5, 4), "blue"), pick((5, 5), [(1, 1), (2, 1)]),
    ]
    out = act(s, c.CoffeeBreak(0), draws)
    assert out.of(EventExpired) == [EventExpired(1)]
    assert out.of(MobsterPlaced) == [MobsterPlaced((2, 1), Color.RED),
                                     MobsterPlaced((5, 5), Color.BLUE)]
    assert out.bounds == [6, 6, 14, 23, 13, 22]
    assert out.state.slots[0] is None and not out.of(EventResolved)


def test_e18_expiry_with_one_mobster_in_the_bag_places_it_then_takes_one_penalty() -> None:
    mobs = dict(list(full_city().items())[:14])
    s = given(players=2, spaces={0: 19, 1: 25}, mobsters=mobs)
    s = with_event(s, 1, "E18", [HQ], deadline=20)
    s = turn_of(s, 0)
    top = s.suspect_deck[0]
    free = [b for b in NON_HQ if b not in mobs]
    out = act(s, c.CoffeeBreak(0), [*REPRIEVE, 0, 0])
    assert out.bounds == [6, 6, 1, len(free)]
    assert [e.block for e in out.of(MobsterPlaced)] == [free[0]]
    assert out.of(SuspectRemoved) == [SuspectRemoved(top)]


def test_e18_expiry_with_an_empty_bag_takes_two_penalties() -> None:
    s = given(players=2, spaces={0: 19, 1: 25}, mobsters=full_city())
    s = with_event(s, 1, "E18", [HQ], deadline=20)
    s = turn_of(s, 0)
    deck = s.suspect_deck
    out = act(s, c.CoffeeBreak(0), REPRIEVE)
    assert out.of(SuspectRemoved) == [SuspectRemoved(deck[0]), SuspectRemoved(deck[1])]
    assert not out.of(MobsterPlaced)


def test_expiry_penalty_move_can_make_the_next_slot_expire() -> None:
    # ruling 15: slot 1 expires, its penalty moves every tracker, then slot 2 is checked
    s = given(players=2, spaces={0: 29, 1: 40})
    s = replace(s, suspect_deck=())
    s = with_event(s, 1, "E8", [(1, 1)], deadline=30)
    s = with_event(s, 2, "E15", [(2, 1)], deadline=31)
    s = turn_of(s, 0)
    out = act(s, c.CoffeeBreak(0), REPRIEVE)
    assert out.of(EventExpired) == [EventExpired(1), EventExpired(2)]
    assert out.of(TrackersPushed) == [TrackersPushed(), TrackersPushed()]
    assert [p.space for p in out.state.players] == [32, 42]
    assert out.state.slots == (None, None, None)


# --- §8.4 Too-Many-Events Penalty -----------------------------------------------------------------


def test_penalty_puts_the_top_suspect_out_of_the_game_unseen() -> None:
    s = turn_of(given(players=2, spaces={0: 10, 1: 12}, suspects={1: ["S01"]}), 0)
    deck = s.suspect_deck
    out = run_tasks(s, t.Penalty())
    assert out.of(SuspectRemoved) == [SuspectRemoved(deck[0])]
    assert out.state.suspect_deck == deck[1:]
    assert out.state.suspects_out == (deck[0],)
    assert [p.suspects for p in out.state.players] == [(), ("S01",)]
    assert [p.seen for p in out.state.players] == [(), ()]
    assert [p.space for p in out.state.players] == [10, 12]


def test_worked_example_12_penalty_with_an_empty_suspect_deck() -> None:
    # Ana 32, Ben 31, Cara 30 -> 31 on top of Ben, Dan 47; slots full; Cara rolls 1/5
    s = given(players=4, spaces={0: 32, 1: 31, 2: 30, 3: 47}, order=[3, 0, 1, 2],
              mobsters={(1, 5): "red"})
    s = slots_full(replace(s, suspect_deck=()))
    s = turn_of(s, 2)
    out = act(s, c.CoffeeBreak(2), [die(1), die(5)])
    assert out.of(TrackersPushed) == [TrackersPushed()]
    assert [p.space for p in out.state.players] == [33, 32, 32, 48]
    assert stack(out.state, 32) == [1, 2]
    assert out.state.lines == frozenset()  # Ana 32 -> 33 crossed no line
    assert not out.of(EventPlaced)
    assert out.of(PlayerEnded) == [PlayerEnded(3, rested=False)]  # Dan on 48 at Step 5(c)


def test_penalty_moves_ended_trackers_and_stacks_movers_on_top_of_trackers_on_48() -> None:
    s = given(players=4, spaces={0: 48, 1: 45, 2: 47, 3: 20}, order=[0, 1, 2, 3])
    s = player(player(s, 0, ended=True), 1, ended=True)
    s = replace(turn_of(s, 3), suspect_deck=())
    out = run_tasks(s, t.Penalty())
    assert [p.space for p in out.state.players] == [48, 46, 48, 21]
    assert stack(out.state, 48) == [0, 2]  # Cara lands on top of Ana, who did not move


def test_penalty_keeps_each_moving_stack_in_order() -> None:
    s = given(players=4, spaces={0: 47, 1: 48, 2: 47, 3: 10}, order=[2, 0, 1, 3])
    s = player(s, 1, ended=True)
    s = replace(turn_of(s, 3), suspect_deck=())
    out = run_tasks(s, t.Penalty())
    assert stack(out.state, 48) == [1, 2, 0]


# --- more edges -----------------------------------------------------------------------------------


def test_roll_on_an_occupied_block_with_an_empty_bag_still_draws_an_event() -> None:
    s = events_on_top(turn_of(two(mobsters=full_city()), 0), "E2")
    target = next(iter(full_city()))
    assert s.bag == (0, 0, 0) and target == (1, 1)
    out = act(s, c.CoffeeBreak(0), [die(1), die(1), 0, *REPRIEVE])  # 1-1: a spree too
    assert out.of(EventPlaced) == [EventPlaced("E2", 1, None)]
    assert not out.of(SuspectRemoved)


def test_spree_roll_waits_for_the_discards_of_an_e13_it_revealed() -> None:
    s = two(a=10, b=12, mobsters={(4, 4): "red"},
            force={1: ["tip_line", "checkpoint", "telephoto"]})
    s = events_on_top(turn_of(s, 0), "E13")
    out = act(s, c.CoffeeBreak(0), [die(4), die(4), pick((1, 1))])
    assert out.state.pending == (ChooseDiscard(1, "hand_limit"),)
    assert out.of(MobsterRolled) == [MobsterRolled(4, 4)]
    out = act(out.state, c.DiscardForce(1, "tip_line"), REPRIEVE)  # the 4-4 spree roll now
    assert out.of(MobsterRolled) == [MobsterRolled(6, 6)]
    assert out.first(ForceDiscarded) < out.first(MobsterRolled)


def test_line_after_40_reveals_a_timed_event_that_is_replaced() -> None:
    # worked example 4: Dan 38 -> 41 draws at the line after 40; he is now on 39-48
    s = given(players=2, spaces={0: 38, 1: 42}, cars={0: (1, 4)},
              tokens=[((1, 4), "stakeout", 4)])
    s = replace(turn_of(s, 0), lines=frozenset({8, 16, 24, 32}))
    s = events_on_top(s, "E9", "E2")
    out = act(s, c.Stakeout(0, 3), [pick((1, 1)), *REPRIEVE])
    assert out.of(TrackerAdvanced) == [TrackerAdvanced(0, 41, (40,))]
    assert out.of(EventReplaced) == [EventReplaced("E9")]
    assert out.of(EventPlaced) == [EventPlaced("E2", 1, None)]


def test_e10_revealed_at_step_3_keeps_w4_shut() -> None:
    s = events_on_top(turn_of(two(a=8, b=12, force={0: ["checkpoint"]}), 0), "E10")
    out = act(s, c.CoffeeBreak(0))
    assert out.state.turn is not None and out.state.turn.phase is Phase.W3
    out = act(out.state, c.Proceed(0), [pick((1, 1)), pick((2, 1), [(1, 1)]), *REPRIEVE])
    assert out.of(EventPlaced) == [EventPlaced("E10", 1, None)]
    assert out.of(MobsterRolled) == [MobsterRolled(6, 6)]  # no W4: Checkpoint could not be played


def test_e12_resolve_on_a_day_turn_with_night_shift() -> None:
    s = given(players=2, abilities=["night_shift", "quartermaster"], spaces={0: 10, 1: 30},
              cars={0: (2, 2)})
    s = with_event(turn_of(s, 0), 1, "E12", [(2, 2)])
    assert act(s, c.ResolveEvent(0, 1, night_shift=True)).of(EventResolved)


def test_visit_counts_an_officer_on_the_resolved_block_as_a_contributor() -> None:
    s = with_event(turn_of(two(a=10, car_b=(2, 2)), 0), 1, "E3", [(2, 2)])
    out = act(s, c.ResolveEvent(0, 1), REPRIEVE)
    assert out.of(EventResolved) == [EventResolved(1, 0, (1,))]
    assert [e.seat for e in out.of(SuspectDrawn)] == [1]


def test_ended_contributor_takes_its_place_in_the_pool_and_keeps_the_card() -> None:
    s = pool_scene({0: 44, 1: 43}, {0: (2, 2), 1: (5, 5)}, [1], 0, ended=[1])
    s = force_on_top(s, "telephoto", "checkpoint")
    out = act(s, c.ResolveEvent(0, 1))
    # Ben (43) is first in Time Track order: he picks, and keeps the card (§5.10, rules v2)
    assert out.state.pending == (ChoosePoolCard(1),)
    out = act(out.state, c.TakeFromPool(1, "telephoto"))
    assert out.of(PoolCardTaken) == [PoolCardTaken(1, "telephoto", True),
                                     PoolCardTaken(0, "checkpoint", True)]
    assert "telephoto" not in out.state.force_discard
    assert out.state.players[1].force == ("telephoto",)


def test_a_drive_with_surcharges_must_leave_one_hour() -> None:
    s = with_event(turn_of(two(a=45, b=46, car_a=HQ), 0), 1, "E1", [(3, 2), (5, 5)])
    assert drive_hours(s, 0, [(3, 2)]) == 2  # 45 + 2 = 47: 1 h left
    assert refused(s, c.Drive(0, ((3, 2), (3, 1)))) == "rules/over_hour_cap"


def test_penalty_discard_appears_in_no_view() -> None:
    from echoridge_rules import SPECTATOR, Seat, view

    s = turn_of(given(players=2, spaces={0: 10, 1: 12}), 0)
    card = s.suspect_deck[0]
    out = run_tasks(s, t.Penalty())
    for viewer in (Seat(0), Seat(1), SPECTATOR):
        seen = view(out.state, viewer)
        assert card not in repr(seen)
        assert seen["suspects"]["out_of_game"] == 1


def test_expired_event_leaves_the_mobster_on_its_token_block_in_the_city() -> None:
    s = given(players=2, spaces={0: 29, 1: 35}, mobsters={(1, 1): "red"})
    s = with_event(s, 1, "E8", [(1, 1)], deadline=30)
    out = act(turn_of(s, 0), c.CoffeeBreak(0), REPRIEVE)
    assert out.of(EventExpired) == [EventExpired(1)]
    assert mob(out.state, (1, 1)) is Color.RED
    assert out.state.bag == (4, 5, 5)


def test_expiry_counts_a_tracker_that_reached_48_this_turn_before_it_ends() -> None:
    # Step 5(a) expiry comes before 5(c): Ana, on 48 but not yet ended, is the lowest
    s = given(players=2, spaces={0: 47, 1: 45})
    s = player(s, 1, ended=True)
    s = with_event(s, 1, "E8", [(1, 1)], deadline=48)
    s = turn_of(s, 0)
    out = act(s, c.CoffeeBreak(0), REPRIEVE)
    assert out.of(EventExpired) == [EventExpired(1)]
    assert out.first(EventExpired) < out.first(PlayerEnded)


def test_force_rewards_are_limited_and_handed_out_in_time_track_order() -> None:
    # E9: two contributors each gain F, but only one Force card is left anywhere
    s = given(players=3, spaces={0: 20, 1: 30, 2: 25}, cars={0: (2, 2), 1: (5, 5), 2: (1, 1)})
    s = with_event(turn_of(s, 0), 1, "E9", [(2, 2)], removed_by=[1, 2], deadline=45)
    s = replace(s, force_deck=("telephoto",), force_discard=())
    out = act(s, c.ResolveEvent(0, 1), REPRIEVE)
    assert out.of(ForceGained) == [ForceGained(2, "telephoto", True)]  # Cara (25) first
    assert out.of(ForceGainLost) == [ForceGainLost(1)]  # Ben (30) finds nothing
