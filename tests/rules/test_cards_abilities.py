"""Force cards (rules.md §9), abilities (§10), Interrogate (§6), evidence and Suspect gains (§7),
Rest Your Case (§5.10), the accusation (§12), Solo (§13) and the default answers (§4.5.6).

Expected values come from rules.md and docs/rulings.md.  Every scene crosses all Event Lines in
advance (so no advance draws an event by accident) and scripts every random draw: ``step`` fails
if a command draws more (or fewer) values than the test scripted.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any, TypeVar

import pytest

from echoridge_rules import RuleViolation, State, Status, evolve
from echoridge_rules import commands as c
from echoridge_rules.board import index
from echoridge_rules.data import Color, Evidence
from echoridge_rules.decisions import (
    ChooseAccusation,
    ChooseGain,
    ChooseInterrogate,
    ChooseRest,
    ChooseSlot,
)
from echoridge_rules.events import (
    ActionTaken,
    BackupCalled,
    BadgeRaised,
    CarDriven,
    Drawn,
    Event,
    EventResolved,
    ForceDeckShuffled,
    ForceDiscarded,
    ForceGained,
    ForceGainLost,
    ForcePlayed,
    MobsterApprehended,
    MobsterRolled,
    PlayerEnded,
    PoolCardTaken,
    PoolRevealed,
    SlotsDealt,
    StakeoutFailed,
    StakeoutSucceeded,
    SuspectDrawn,
    SuspectGainLost,
    SuspectSeen,
    TokenPeeked,
    TrackerAdvanced,
    TraitLearned,
    TurnBegan,
)
from echoridge_rules.model import ClueKind, ClueToken, Phase, Place
from echoridge_rules.views import SPECTATOR, Seat, view

from .helpers import CARD_WINDOWS, die, given, player, turn_of, when, with_event

RED, BLUE, GRAY = Color.RED, Color.BLUE, Color.GRAY
HQ = (3, 3)
ALL_LINES = frozenset({8, 16, 24, 32, 40})
REPRIEVE = [die(6), die(6)]  # a Mobster Roll that places nothing and starts no spree
PHASES = ("w1", "w2", "w3", "w4")

# §7.4, copied from rules.md: the code bits are Gang, Rank, Forensics, Getaway, Weapon.
SUSPECT_CODES = {
    "S01": "00000", "S02": "00011", "S03": "00101", "S04": "00110",
    "S05": "01001", "S06": "01010", "S07": "01100", "S08": "01111",
    "S09": "10001", "S10": "10010", "S11": "10100", "S12": "10111",
    "S13": "11000", "S14": "11011", "S15": "11101", "S16": "11110",
}  # fmt: skip
TRAIT_VALUES = {
    "gang": ("Red Rhinos", "Blue Bees"),
    "rank": ("Boss", "Underboss"),
    "forensics": ("Fingerprints", "Shoeprints"),
    "getaway": ("Car", "Motorcycle"),
    "weapon": ("Gun", "Knife"),
}
CODE_ORDER = ("gang", "rank", "forensics", "getaway", "weapon")


def trait(suspect: str, evidence: str) -> str:
    bit = int(SUSPECT_CODES[suspect][CODE_ORDER.index(evidence)])
    return TRAIT_VALUES[evidence][bit]


# --- local helpers --------------------------------------------------------------------------------

E = TypeVar("E")


def of_type(events: Iterable[Event], cls: type[E]) -> list[E]:
    """The events of one kind, typed."""
    return [e for e in events if isinstance(e, cls)]


def scene(players: int = 2, **kw: Any) -> State:
    """``given`` with no clue tokens in the city unless listed, and every Event Line crossed."""
    kw.setdefault("tokens", [])
    state = given(players=players, **kw)
    return replace(state, lines=ALL_LINES)


def force_deck(state: State, deck: Sequence[str], discard: Sequence[str] = ()) -> State:
    return replace(state, force_deck=tuple(deck), force_discard=tuple(discard))


def step(state: State, cmd: c.Command, draws: Sequence[int] = ()) -> tuple[State, list[Event]]:
    """``when``, also checking that the command used exactly the scripted draws."""
    after, events = when(state, cmd, draws)
    used = len(of_type(events, Drawn))
    assert used == len(draws), f"{cmd} made {used} random draws, {len(draws)} scripted"
    return after, events


def refused(state: State, cmd: c.Command) -> str:
    """The rule code of an illegal command."""
    with pytest.raises(RuleViolation) as err:
        when(state, cmd)
    return err.value.code


def you(state: State, seat: int) -> dict[str, Any]:
    out: dict[str, Any] = view(state, Seat(seat))["you"]
    return out


def clue_value_seen(state: State, seat: int | None, block: tuple[int, int]) -> object:
    """The value of the face-down token on a block as this seat (None: a spectator) sees it."""
    v = view(state, SPECTATOR if seat is None else Seat(seat))
    clue = v["city"]["blocks"][index(block)]["clue"]
    assert clue is not None
    return clue["value"]


def pending_kinds(state: State) -> list[tuple[str, int]]:
    return [(type(d).__name__, d.seat) for d in state.pending]


def identity_shuffle(n: int) -> list[int]:
    """Raw draws that leave a Fisher-Yates shuffle of n items in their order (§16 ruling 23)."""
    return list(range(n - 1, 0, -1))


def to_phase(state: State, phase: str) -> State:
    """From the start of a turn (W1) to the given window: W2 by a one-block Drive to (2,3),
    W3 by a Coffee Break, W4 by closing W3 too.  The active player must hold a Force card."""
    assert state.turn is not None
    seat = state.turn.seat
    if phase == "w2":
        state, _ = step(state, c.Drive(seat, ((2, 3),)))
    elif phase in ("w3", "w4"):
        state, _ = step(state, c.CoffeeBreak(seat))
        if phase == "w4":
            state, _ = step(state, c.Proceed(seat))
    assert state.turn is not None and state.turn.phase.value == phase
    return state


def to_phase_w4_from_w3(state: State) -> State:
    assert state.turn is not None and state.turn.phase is Phase.W3
    state, _ = step(state, c.Proceed(state.turn.seat))
    assert state.turn is not None and state.turn.phase is Phase.W4
    return state


def close_windows(state: State, draws: Sequence[int] = REPRIEVE) -> tuple[State, list[Event]]:
    """Proceed through the open W3/W4 windows of the current turn; the Mobster Roll uses draws."""
    events: list[Event] = []
    while state.turn is not None and state.turn.phase in (Phase.W3, Phase.W4):
        assert not state.pending
        seat = state.turn.seat
        rolls_now = state.turn.phase is Phase.W4 or not state.players[seat].force
        state, ev = step(state, c.Proceed(seat), draws if rolls_now else ())
        events += ev
    return state, events


# --- §9 Force cards: windows and playing ----------------------------------------------------------

BLOCK_OF: dict[str, tuple[int, int]] = {
    "radio_car": (5, 5),
    "tip_line": (4, 4),
    "squad_wagon": (2, 3),
}


def window_scene(card: str) -> State:
    """Seat 0's day turn on 2, car on (2,2), a mobster on the adjacent (2,3), a Stakeout token on
    (4,4); seat 0 holds just this card.  Nobody holds a Suspect card."""
    state = scene(
        spaces={0: 2, 1: 5},
        cars={0: (2, 2)},
        mobsters={(2, 3): "red"},
        tokens=[((4, 4), "stakeout", 3)],
        force={0: [card]},
    )
    return turn_of(state, 0)


@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize("card", sorted(CARD_WINDOWS))
def test_each_card_is_played_in_its_windows_only(card: str, phase: str) -> None:
    state = to_phase(window_scene(card), phase)
    cmd = c.PlayForce(0, card, BLOCK_OF.get(card))
    if phase not in CARD_WINDOWS[card]:
        assert refused(state, cmd) == "rules/wrong_window"
        return
    after, events = step(state, cmd)
    assert of_type(events, ForcePlayed) == [ForcePlayed(0, card, BLOCK_OF.get(card))]
    assert after.players[0].force == ()
    # The played card goes face up to the discard pile: everyone sees it there.
    assert after.force_discard[-1] == card
    assert view(after, SPECTATOR)["force"]["discard"][-1] == card
    assert view(after, SPECTATOR)["turn"]["played"] == [card]


@pytest.mark.parametrize(
    ("card", "phase_after"),
    [
        ("judges_signature", "w2"),  # a W2 card at W1 closes the Drive (rulings 2)
        ("rubber_stamp", "w2"),
        ("telephoto", "w2"),
        ("radio_car", "w2"),  # instead of driving (rulings 3)
        ("code_three", "w1"),
        ("squad_wagon", "w1"),
        ("tip_line", "w1"),
        ("jailhouse_deal", "w1"),
    ],
)
def test_playing_at_w1_leaves_the_drive_open_only_for_w1_cards(card: str, phase_after: str) -> None:
    state, _ = step(window_scene(card), c.PlayForce(0, card, BLOCK_OF.get(card)))
    assert state.turn is not None and state.turn.phase.value == phase_after
    drive = c.Drive(0, ((2, 1),))
    if phase_after == "w1":
        step(state, drive)
    else:
        assert refused(state, drive) == "rules/wrong_window"


def test_cards_are_played_only_on_your_own_turn() -> None:
    state = scene(
        spaces={0: 2, 1: 5},
        force={0: ["tip_line"], 1: ["jailhouse_deal"]},
        tokens=[((4, 4), "stakeout", 3)],
    )
    state = turn_of(state, 0)
    assert refused(state, c.PlayForce(1, "jailhouse_deal")) == "rules/not_your_turn"
    # Not even in the active player's W3/W4 windows.
    state = to_phase(state, "w3")
    assert refused(state, c.PlayForce(1, "jailhouse_deal")) == "rules/not_your_turn"
    state = to_phase_w4_from_w3(state)
    assert refused(state, c.PlayForce(1, "jailhouse_deal")) == "rules/not_your_turn"


def test_a_card_not_held_cannot_be_played() -> None:
    state = turn_of(scene(spaces={0: 2, 1: 5}, force={0: ["telephoto"]}), 0)
    assert refused(state, c.PlayForce(0, "rubber_stamp")) == "rules/card_not_in_hand"


def test_an_ended_player_plays_no_force_cards_and_takes_no_turns() -> None:
    # Seat 0 has ended on 44 (the lowest tracker) still holding a card.
    state = scene(spaces={0: 44, 1: 46}, force={0: ["jailhouse_deal"], 1: ["tip_line"]})
    state = player(state, 0, ended=True)
    state = turn_of(state, 1)  # the lowest tracker is ended, so seat 1 plays
    assert refused(state, c.PlayForce(0, "jailhouse_deal")) == "rules/not_your_turn"


def test_no_card_is_played_in_step_5() -> None:
    """At the Rest Your Case choice (Step 5) no Force card may be played."""
    state = scene(
        spaces={0: 42, 1: 46},
        force={0: ["jailhouse_deal", "tip_line"]},
        tokens=[((4, 4), "stakeout", 3)],
    )
    state = turn_of(state, 0)
    state, _ = step(state, c.CoffeeBreak(0))
    state, _ = close_windows(state)
    assert pending_kinds(state) == [("ChooseRest", 0)]
    assert refused(state, c.PlayForce(0, "jailhouse_deal")) == "rules/decision_owed"
    assert refused(state, c.PlayForce(0, "tip_line", (4, 4))) == "rules/decision_owed"


def test_no_force_event_blocks_every_card_and_keeps_w3_w4_shut() -> None:
    state = scene(
        spaces={0: 2, 1: 5},
        force={0: ["jailhouse_deal", "tip_line"]},
        tokens=[((4, 4), "stakeout", 3)],
    )
    state = with_event(state, 1, "E10", tokens=[(5, 5), (1, 5)])  # NO_FORCE
    state = turn_of(state, 0)
    assert refused(state, c.PlayForce(0, "jailhouse_deal")) == "rules/force_blocked"
    # W3 and W4 do not open: the Coffee Break runs straight on through the Mobster Roll.
    state, events = step(state, c.CoffeeBreak(0), REPRIEVE)
    assert of_type(events, MobsterRolled) == [MobsterRolled(6, 6)]
    assert of_type(events, TurnBegan)


def test_a_no_force_event_drawn_at_step_3_keeps_w4_shut() -> None:
    state = scene(spaces={0: 8, 1: 12}, force={0: ["checkpoint"]})
    state = replace(state, lines=ALL_LINES - {8})
    state = replace(state, event_deck=("E10", *(e for e in state.event_deck if e != "E10")))
    state = turn_of(state, 0)
    state, _ = step(state, c.CoffeeBreak(0))
    assert state.turn is not None and state.turn.phase is Phase.W3
    # The advance 8 -> 9 crosses the line after 8: E10 (two tokens) comes out, then the roll
    # follows at once, with no W4 for Checkpoint.
    state, events = step(state, c.Proceed(0), [0, 0, *REPRIEVE])
    assert of_type(events, TrackerAdvanced) == [TrackerAdvanced(0, 9, (8,))]
    assert state.slots[0] is not None and state.slots[0].card == "E10"
    assert of_type(events, MobsterRolled) == [MobsterRolled(6, 6)]
    assert state.players[0].force == ("checkpoint",)


def test_any_number_of_cards_per_turn_each_to_the_discard_pile() -> None:
    state = scene(
        spaces={0: 2, 1: 5},
        tokens=[((4, 4), "stakeout", 3), ((1, 5), "search", 1)],
        force={0: ["tip_line", "tip_line", "jailhouse_deal"]},  # Quartermaster: limit 3
    )
    state = turn_of(state, 0)
    state, _ = step(state, c.PlayForce(0, "tip_line", (4, 4)))
    state, _ = step(state, c.PlayForce(0, "tip_line", (1, 5)))
    state, _ = step(state, c.PlayForce(0, "jailhouse_deal"))  # nobody holds a card: a draw
    assert state.players[0].force == ()
    assert state.force_discard[-3:] == ("tip_line", "tip_line", "jailhouse_deal")
    assert state.turn is not None
    assert state.turn.played == ("tip_line", "tip_line", "jailhouse_deal")
    assert len(state.players[0].suspects) == 1


# --- §9 each card's effect ------------------------------------------------------------------------


def test_code_three_waives_the_base_hour_of_up_to_three_blocks() -> None:
    state = scene(spaces={0: 2, 1: 9}, cars={0: (1, 1)}, force={0: ["code_three"]})
    state = turn_of(state, 0)
    state, _ = step(state, c.PlayForce(0, "code_three"))
    state, events = step(state, c.Drive(0, ((2, 1), (3, 1), (4, 1), (5, 1))))
    assert of_type(events, CarDriven)[0].hours == 1  # 4 blocks, 3 waived
    state, _ = step(state, c.CoffeeBreak(0), REPRIEVE)
    assert state.players[0].space == 2 + 1 + 1


def test_code_three_on_a_short_drive_makes_it_free() -> None:
    state = turn_of(scene(spaces={0: 2, 1: 9}, cars={0: (1, 1)}, force={0: ["code_three"]}), 0)
    state, _ = step(state, c.PlayForce(0, "code_three"))
    state, events = step(state, c.Drive(0, ((2, 1), (3, 1))))
    assert of_type(events, CarDriven)[0].hours == 0


def test_code_three_still_pays_surcharges() -> None:
    state = scene(spaces={0: 2, 1: 9}, cars={0: (1, 1)}, force={0: ["code_three"]})
    state = with_event(state, 1, "E1", tokens=[(3, 1), (5, 5)])  # SURCHARGE_TOKEN
    state = turn_of(state, 0)
    state, _ = step(state, c.PlayForce(0, "code_three"))
    state, events = step(state, c.Drive(0, ((2, 1), (3, 1), (4, 1))))
    assert of_type(events, CarDriven)[0].hours == 1  # base 3 waived, the +1 surcharge stays


def test_code_three_counts_for_the_hour_cap_of_a_drive() -> None:
    state = turn_of(scene(spaces={0: 46, 1: 47}, cars={0: (1, 1)}, force={0: ["code_three"]}), 0)
    path = ((2, 1), (3, 1), (4, 1))
    assert refused(state, c.Drive(0, path)) == "rules/over_hour_cap"  # 46 + 3 > 47
    state, _ = step(state, c.PlayForce(0, "code_three"))
    state, events = step(state, c.Drive(0, path))
    assert of_type(events, CarDriven)[0].hours == 0


def test_radio_car_moves_the_car_anywhere_for_no_hours_instead_of_driving() -> None:
    state = scene(spaces={0: 2, 1: 9}, cars={0: (1, 1)}, force={0: ["radio_car"]})
    state = with_event(state, 1, "E1", tokens=[(5, 5), (4, 5)])  # a surcharge on (5,5)
    state = turn_of(state, 0)
    state, _ = step(state, c.PlayForce(0, "radio_car", (5, 5)))
    assert state.players[0].car == (5, 5)
    assert state.turn is not None and state.turn.drive_hours == 0
    assert refused(state, c.Drive(0, ((4, 5),))) == "rules/wrong_window"  # instead of driving
    state, _ = step(state, c.CoffeeBreak(0), REPRIEVE)
    assert state.players[0].space == 3  # 0 h for the move, 1 h for the Coffee Break


def test_radio_car_not_after_a_w2_card_closed_the_drive() -> None:
    state = turn_of(scene(spaces={0: 2, 1: 9}, force={0: ["telephoto", "radio_car"]}), 0)
    state, _ = step(state, c.PlayForce(0, "telephoto"))
    assert refused(state, c.PlayForce(0, "radio_car", (5, 5))) == "rules/wrong_window"


def test_radio_car_needs_a_block_of_the_city() -> None:
    state = turn_of(scene(spaces={0: 2, 1: 9}, force={0: ["radio_car"]}), 0)
    assert refused(state, c.PlayForce(0, "radio_car")) == "rules/bad_block"
    assert refused(state, c.PlayForce(0, "radio_car", (6, 1))) == "rules/bad_block"


def test_judges_signature_lets_a_night_action_be_taken_by_day() -> None:
    state = scene(
        spaces={0: 2, 1: 9},
        cars={0: (4, 4)},
        tokens=[((4, 4), "stakeout", 2)],
        force={0: ["judges_signature"]},
    )
    state = turn_of(state, 0)
    assert refused(state, c.Stakeout(0, 2)) == "rules/wrong_time_of_day"
    state, _ = step(state, c.PlayForce(0, "judges_signature"))
    state, events = step(state, c.Stakeout(0, 2), REPRIEVE)
    assert of_type(events, StakeoutSucceeded) == [StakeoutSucceeded(0, (4, 4), 2, 2)]
    assert state.players[0].space == 4


def test_judges_signature_lets_a_day_action_be_taken_by_night() -> None:
    state = scene(
        spaces={0: 14, 1: 20},
        cars={0: (4, 4)},
        tokens=[((4, 4), "search", 1)],
        force={0: ["judges_signature"]},
    )
    state = turn_of(state, 0)
    assert refused(state, c.SearchScene(0)) == "rules/wrong_time_of_day"
    state, _ = step(state, c.PlayForce(0, "judges_signature"))
    state, _ = step(state, c.SearchScene(0), REPRIEVE)
    assert state.players[0].badge == 1 and state.players[0].space == 16


def test_judges_signature_is_not_for_bring_in_step_1() -> None:
    state = scene(
        spaces={0: 2, 1: 9},
        cars={0: (2, 2)},
        mobsters={(2, 2): "red"},
        force={0: ["judges_signature"]},
    )
    state = turn_of(state, 0)
    state, _ = step(state, c.PlayForce(0, "judges_signature"))
    assert refused(state, c.HoldMobster(0)) == "rules/wrong_time_of_day"


def test_judges_signature_is_not_for_bring_in_step_2() -> None:
    state = scene(spaces={0: 2, 1: 9}, cars={0: HQ}, force={0: ["judges_signature"]})
    state = player(state, 0, holding=RED)
    state = replace(state, bag=(4, 5, 5))
    state = turn_of(state, 0)
    state, _ = step(state, c.PlayForce(0, "judges_signature"))
    assert refused(state, c.BookMobster(0)) == "rules/wrong_time_of_day"


def test_judges_signature_lifts_the_night_limit_of_e12() -> None:
    state = scene(spaces={0: 2, 1: 9}, cars={0: (2, 2)}, force={0: ["judges_signature"]})
    state = with_event(state, 1, "E12", tokens=[(2, 2)], card_mobsters=["red", "blue", "gray"])
    state = force_deck(state, ["tip_line", "checkpoint", "telephoto"])
    state = turn_of(state, 0)
    assert refused(state, c.ResolveEvent(0, 1)) == "rules/wrong_time_of_day"
    state, _ = step(state, c.PlayForce(0, "judges_signature"))
    state, events = step(state, c.ResolveEvent(0, 1))
    assert of_type(events, EventResolved) == [EventResolved(1, 0, ())]
    assert of_type(events, PoolRevealed) == [PoolRevealed(("tip_line", "checkpoint"))]
    assert pending_kinds(state) == [("ChoosePoolCard", 0)]


def test_tip_line_is_a_private_peek() -> None:
    state = scene(
        spaces={0: 2, 1: 9},
        tokens=[((4, 4), "stakeout", 3), ((1, 5), "search", 0)],
        force={0: ["tip_line", "tip_line"]},
    )
    state = turn_of(state, 0)
    state, events = step(state, c.PlayForce(0, "tip_line", (4, 4)))
    assert of_type(events, TokenPeeked) == [TokenPeeked(0, (4, 4))]
    assert clue_value_seen(state, 0, (4, 4)) == 3
    assert clue_value_seen(state, 1, (4, 4)) is None
    assert clue_value_seen(state, None, (4, 4)) is None
    assert clue_value_seen(state, 0, (1, 5)) is None  # only the token looked at
    assert you(state, 0)["known_tokens"] == [{"block": [4, 4], "kind": "stakeout", "value": 3}]
    assert you(state, 1)["known_tokens"] == []
    # A Search token too; the token itself stays face down where it is.
    state, _ = step(state, c.PlayForce(0, "tip_line", (1, 5)))
    assert clue_value_seen(state, 0, (1, 5)) == 0
    assert clue_value_seen(state, 1, (1, 5)) is None
    assert all(t.place is Place.CITY for t in state.tokens)


def test_tip_line_needs_a_face_down_token() -> None:
    state = turn_of(
        scene(spaces={0: 2, 1: 9}, tokens=[((4, 4), "stakeout", 3)], force={0: ["tip_line"]}), 0
    )
    assert refused(state, c.PlayForce(0, "tip_line", (4, 5))) == "rules/bad_block"
    assert refused(state, c.PlayForce(0, "tip_line")) == "rules/bad_block"


def test_checkpoint_skips_the_mobster_roll() -> None:
    state = turn_of(scene(spaces={0: 2, 1: 9}, force={0: ["checkpoint"]}), 0)
    state = to_phase(state, "w4")
    state, _ = step(state, c.PlayForce(0, "checkpoint"))
    state, events = step(state, c.Proceed(0))  # no draws at all: no roll, so no Crime Spree
    assert of_type(events, MobsterRolled) == []
    assert of_type(events, TurnBegan) == [TurnBegan(0, 2, False)]


def test_without_checkpoint_the_roll_and_its_spree_happen() -> None:
    """The control case: the same turn without Checkpoint rolls 1-1, places a mobster and rolls
    again for the Crime Spree."""
    state = turn_of(scene(spaces={0: 2, 1: 9}, force={0: ["checkpoint"]}), 0)
    state = to_phase(state, "w4")
    state, events = step(state, c.Proceed(0), [die(1), die(1), 0, *REPRIEVE])
    assert of_type(events, MobsterRolled) == [MobsterRolled(1, 1), MobsterRolled(6, 6)]


# Double Shift


def double_shift_scene(space: int, **kw: Any) -> State:
    kw.setdefault("force", {0: ["double_shift"]})
    state = scene(spaces={0: space, 1: 48}, **kw)
    return turn_of(player(state, 1, ended=True), 0)


def test_double_shift_is_playable_with_one_hour_left() -> None:
    state, _ = step(double_shift_scene(46), c.CoffeeBreak(0))
    state, _ = step(state, c.PlayForce(0, "double_shift"))
    assert state.turn is not None and state.turn.phase is Phase.W2
    state, events = step(state, c.CoffeeBreak(0), REPRIEVE)
    assert of_type(events, TrackerAdvanced) == [TrackerAdvanced(0, 48, ())]


def test_double_shift_needs_one_hour_left_after_the_first_action() -> None:
    state, _ = step(double_shift_scene(47), c.CoffeeBreak(0))
    assert state.turn is not None and state.turn.phase is Phase.W3
    assert refused(state, c.PlayForce(0, "double_shift")) == "rules/card_not_playable"


def test_double_shift_counts_the_drive_for_the_hour_left() -> None:
    kw: dict[str, Any] = {"cars": {0: (1, 1)}, "tokens": [((2, 1), "stakeout", 1)]}
    state = double_shift_scene(46, **kw)
    state, _ = step(state, c.Drive(0, ((2, 1),)))
    state, _ = step(state, c.CoffeeBreak(0))  # 46 + 1 + 1 = 48: nothing left
    assert refused(state, c.PlayForce(0, "double_shift")) == "rules/card_not_playable"
    state = double_shift_scene(45, **kw)
    state, _ = step(state, c.Drive(0, ((2, 1),)))
    state, _ = step(state, c.CoffeeBreak(0))  # 45 + 1 + 1 = 47: one hour left
    state, _ = step(state, c.PlayForce(0, "double_shift"))
    # The second action is bound by the cap too: 47 + 2 > 48.
    assert refused(state, c.Stakeout(0, 2)) == "rules/over_hour_cap"
    state, events = step(state, c.Stakeout(0, 1), REPRIEVE)
    assert of_type(events, TrackerAdvanced) == [TrackerAdvanced(0, 48, ())]


def test_double_shift_second_action_keeps_the_turns_time_of_day() -> None:
    # The turn begins on 12 (day); the first action's hour would end on 13 (night).
    state = double_shift_scene(
        12, cars={0: (1, 1)}, mobsters={(1, 1): "red"}, tokens=[((1, 1), "search", 0)]
    )
    state, _ = step(state, c.CoffeeBreak(0))
    state, _ = step(state, c.PlayForce(0, "double_shift"))
    assert refused(state, c.CatchWitness(0)) == "rules/wrong_time_of_day"
    state, events = step(state, c.SearchScene(0), REPRIEVE)  # a day action: legal
    assert of_type(events, TrackerAdvanced) == [TrackerAdvanced(0, 15, ())]


def test_double_shift_allows_no_drive_before_the_second_action() -> None:
    state = double_shift_scene(2, force={0: ["double_shift", "radio_car"]})
    state, _ = step(state, c.CoffeeBreak(0))
    state, _ = step(state, c.PlayForce(0, "double_shift"))
    assert refused(state, c.Drive(0, ((3, 2),))) == "rules/wrong_window"
    assert refused(state, c.PlayForce(0, "radio_car", (1, 1))) == "rules/wrong_window"


def test_double_shift_bring_in_step_2_still_needs_an_earlier_turn() -> None:
    state = double_shift_scene(14, cars={0: HQ}, mobsters={HQ: "gray"})
    state, _ = step(state, c.HoldMobster(0))
    state, _ = step(state, c.PlayForce(0, "double_shift"))
    assert refused(state, c.BookMobster(0)) == "rules/held_this_turn"


def test_double_shift_one_advance_and_steps_3_to_5_once() -> None:
    state = double_shift_scene(2, cars={0: (2, 2)}, tokens=[((2, 2), "search", 1)])
    state, first = step(state, c.CoffeeBreak(0))
    assert of_type(first, TrackerAdvanced) == []
    state, _ = step(state, c.PlayForce(0, "double_shift"))
    state, events = step(state, c.SearchScene(0), REPRIEVE)
    assert of_type(events, ActionTaken)[0].hours == 2
    assert of_type(events, TrackerAdvanced) == [TrackerAdvanced(0, 5, ())]  # 2 + 1 + 2
    assert len(of_type(events, MobsterRolled)) == 1
    assert of_type(events, TurnBegan) == [TurnBegan(0, 2, False)]


def test_double_shift_both_actions_hours_cross_an_event_line_in_one_advance() -> None:
    """From 7, a 1 h and a 2 h action make one advance to 10: the line after 8 is crossed once,
    by that advance, and draws one event (E2, its token on the first valid block)."""
    state = double_shift_scene(7, cars={0: (2, 2)}, tokens=[((2, 2), "search", 1)])
    state = replace(state, lines=ALL_LINES - {8})
    state = replace(state, event_deck=("E2", *(e for e in state.event_deck if e != "E2")))
    state, _ = step(state, c.CoffeeBreak(0))
    state, _ = step(state, c.PlayForce(0, "double_shift"))
    state, events = step(state, c.SearchScene(0), [0, *REPRIEVE])
    assert of_type(events, TrackerAdvanced) == [TrackerAdvanced(0, 10, (8,))]
    assert [a.card if a else None for a in state.slots] == ["E2", None, None]
    assert len(of_type(events, MobsterRolled)) == 1


def test_double_shift_only_after_the_first_action_resolves_completely() -> None:
    state = double_shift_scene(2, cars={0: (2, 2)}, mobsters={(2, 2): "red"}, suspects={1: ["S03"]})
    state = player(state, 0, badge=1)
    state, _ = step(state, c.CatchInformant(0))  # badge 2: an Interrogate is owed
    assert state.turn is not None and state.turn.phase is Phase.ACTION
    assert pending_kinds(state) == [("ChooseInterrogate", 0)]
    assert refused(state, c.PlayForce(0, "double_shift")) == "rules/decision_owed"
    state, _ = step(state, c.Interrogate(0, None))
    assert state.turn is not None and state.turn.phase is Phase.W3
    step(state, c.PlayForce(0, "double_shift"))


def test_judges_signature_applies_only_to_the_action_it_was_played_for() -> None:
    state = double_shift_scene(
        2,
        cars={0: (4, 4)},
        tokens=[((4, 4), "stakeout", 1)],
        force={0: ["judges_signature", "double_shift"]},
    )
    state, _ = step(state, c.PlayForce(0, "judges_signature"))
    state, _ = step(state, c.CoffeeBreak(0))  # uses it up
    state, _ = step(state, c.PlayForce(0, "double_shift"))
    assert refused(state, c.Stakeout(0, 1)) == "rules/wrong_time_of_day"


# Rubber Stamp


def test_rubber_stamp_takes_one_hour_off() -> None:
    state = turn_of(
        scene(
            spaces={0: 2, 1: 9},
            cars={0: (2, 2)},
            tokens=[((2, 2), "search", 0)],
            force={0: ["rubber_stamp"]},
        ),
        0,
    )
    state, _ = step(state, c.PlayForce(0, "rubber_stamp"))
    state, events = step(state, c.SearchScene(0), REPRIEVE)
    assert of_type(events, ActionTaken)[0].hours == 1
    assert state.players[0].space == 3


def test_rubber_stamp_on_a_resolve_event() -> None:
    state = scene(spaces={0: 2, 1: 9}, cars={0: (2, 2)}, force={0: ["rubber_stamp"]})
    state = with_event(state, 1, "E2", tokens=[(2, 2)])  # VISIT 2, resolver B
    state = turn_of(state, 0)
    state, _ = step(state, c.PlayForce(0, "rubber_stamp"))
    state, events = step(state, c.ResolveEvent(0, 1), REPRIEVE)
    assert of_type(events, ActionTaken)[0].hours == 1
    assert state.players[0].badge == 1


def test_rubber_stamp_never_below_one_hour() -> None:
    state = turn_of(scene(spaces={0: 2, 1: 9}, force={0: ["rubber_stamp"]}), 0)
    state, _ = step(state, c.PlayForce(0, "rubber_stamp"))
    state, events = step(state, c.CoffeeBreak(0), REPRIEVE)
    assert of_type(events, ActionTaken)[0].hours == 1
    assert state.players[0].space == 3


def test_rubber_stamp_does_nothing_for_a_risk_action() -> None:
    state = turn_of(
        scene(
            spaces={0: 14, 1: 20},
            cars={0: (4, 4)},
            tokens=[((4, 4), "stakeout", 5)],
            force={0: ["rubber_stamp"]},
        ),
        0,
    )
    state, _ = step(state, c.PlayForce(0, "rubber_stamp"))
    state, events = step(state, c.Stakeout(0, 3), REPRIEVE)
    assert of_type(events, ActionTaken)[0].hours == 3
    assert state.players[0].space == 17


def test_rubber_stamp_counts_for_the_hour_cap() -> None:
    state = turn_of(
        scene(
            spaces={0: 47, 1: 48},
            cars={0: (2, 2)},
            mobsters={(2, 2): "red"},
            force={0: ["rubber_stamp"]},
        ),
        0,
    )
    assert refused(state, c.CatchWitness(0)) == "rules/over_hour_cap"  # 47 + 2 > 48
    state, _ = step(state, c.PlayForce(0, "rubber_stamp"))
    state, events = step(state, c.CatchWitness(0), REPRIEVE)
    assert of_type(events, ActionTaken)[0].hours == 1
    assert state.players[0].space == 48


def test_rubber_stamp_applies_only_to_the_next_action() -> None:
    state = turn_of(
        scene(
            spaces={0: 2, 1: 9},
            cars={0: (2, 2)},
            tokens=[((2, 2), "search", 0)],
            force={0: ["rubber_stamp", "double_shift"]},
        ),
        0,
    )
    state, _ = step(state, c.PlayForce(0, "rubber_stamp"))
    state, _ = step(state, c.CoffeeBreak(0))
    state, _ = step(state, c.PlayForce(0, "double_shift"))
    state, events = step(state, c.SearchScene(0), REPRIEVE)
    assert of_type(events, ActionTaken)[0].hours == 2
    assert state.players[0].space == 2 + 1 + 2


# Telephoto


def test_telephoto_adds_two_to_the_stakeout_success_test_only() -> None:
    state = turn_of(
        scene(
            spaces={0: 14, 1: 20},
            cars={0: (4, 4)},
            tokens=[((4, 4), "stakeout", 3)],
            force={0: ["telephoto"]},
        ),
        0,
    )
    state, _ = step(state, c.PlayForce(0, "telephoto"))
    state, events = step(state, c.Stakeout(0, 1), REPRIEVE)
    assert of_type(events, StakeoutSucceeded) == [StakeoutSucceeded(0, (4, 4), 1, 3)]
    assert of_type(events, ActionTaken)[0].hours == 1
    assert state.players[0].space == 15 and state.players[0].badge == 1


def test_stakeout_without_telephoto_fails_on_the_same_token() -> None:
    state = turn_of(
        scene(
            spaces={0: 14, 1: 20},
            cars={0: (4, 4)},
            tokens=[((4, 4), "stakeout", 3)],
            force={0: ["telephoto"]},
        ),
        0,
    )
    state, events = step(state, c.Stakeout(0, 1))
    assert of_type(events, StakeoutFailed) == [StakeoutFailed(0, (4, 4), 1)]


def test_telephoto_adds_two_to_the_backup_success_test_only() -> None:
    state = scene(
        spaces={0: 2, 1: 9},
        cars={0: (2, 2)},
        mobsters={(2, 2): "red", (2, 1): "blue"},
        force={0: ["telephoto"]},
    )
    state = force_deck(state, ["tip_line"])
    state = turn_of(state, 0)
    state, _ = step(state, c.PlayForce(0, "telephoto"))
    state, events = step(state, c.CallForBackup(0, 1), [die(3)])
    assert of_type(events, BackupCalled) == [BackupCalled(0, 1, (3,), True)]
    assert of_type(events, ActionTaken)[0].hours == 1
    assert state.mobsters[index((2, 1))] is None  # a success takes the adjacent mobster too


def test_telephoto_waits_for_the_next_risk_action_of_the_turn() -> None:
    state = scene(
        spaces={0: 2, 1: 9},
        cars={0: (2, 2)},
        mobsters={(2, 2): "red"},
        force={0: ["telephoto", "double_shift"]},
    )
    state = force_deck(state, ["tip_line"])
    state = turn_of(state, 0)
    state, _ = step(state, c.PlayForce(0, "telephoto"))
    state, _ = step(state, c.CoffeeBreak(0))
    state, _ = step(state, c.PlayForce(0, "double_shift"))
    state, events = step(state, c.CallForBackup(0, 1), [die(3)])
    assert of_type(events, BackupCalled) == [BackupCalled(0, 1, (3,), True)]


def test_telephoto_lasts_only_until_the_end_of_the_turn() -> None:
    state = scene(
        spaces={0: 2, 1: 9}, cars={0: (2, 2)}, mobsters={(2, 2): "red"}, force={0: ["telephoto"]}
    )
    state = turn_of(state, 0)
    state, _ = step(state, c.PlayForce(0, "telephoto"))
    state, _ = step(state, c.CoffeeBreak(0), REPRIEVE)
    assert state.turn is not None and state.turn.seat == 0  # seat 0's next turn
    state, events = step(state, c.CallForBackup(0, 1), [die(3), *REPRIEVE])
    assert of_type(events, BackupCalled) == [BackupCalled(0, 1, (3,), False)]


def test_telephoto_raises_the_test_above_a_risk_cap() -> None:
    state = scene(
        spaces={0: 2, 1: 9}, cars={0: (2, 2)}, mobsters={(2, 2): "red"}, force={0: ["telephoto"]}
    )
    state = with_event(state, 1, "E2", tokens=[(5, 5)])  # RISK_CAP(Backup, 4)
    state = force_deck(state, ["tip_line"])
    state = turn_of(state, 0)
    state, _ = step(state, c.PlayForce(0, "telephoto"))
    assert refused(state, c.CallForBackup(0, 5)) == "rules/risk_out_of_range"
    state, events = step(state, c.CallForBackup(0, 4), [die(6)])
    assert of_type(events, BackupCalled) == [BackupCalled(0, 4, (6,), True)]
    assert of_type(events, ActionTaken)[0].hours == 4


# Squad Wagon


def test_squad_wagon_at_w1_apprehends_an_adjacent_mobster_to_the_bag() -> None:
    state = turn_of(
        scene(
            spaces={0: 2, 1: 9},
            cars={0: (2, 2)},
            mobsters={(2, 3): "red"},
            force={0: ["squad_wagon"]},
        ),
        0,
    )
    bag = state.bag
    state, events = step(state, c.PlayForce(0, "squad_wagon", (2, 3)))
    assert of_type(events, MobsterApprehended) == [MobsterApprehended(0, (2, 3), RED)]
    assert state.mobsters[index((2, 3))] is None
    assert state.bag == (bag[0] + 1, bag[1], bag[2])
    assert state.turn is not None and state.turn.phase is Phase.W1
    step(state, c.Drive(0, ((2, 1),)))  # the Drive is still open


def test_squad_wagon_at_w2_on_your_own_block() -> None:
    state = turn_of(
        scene(
            spaces={0: 2, 1: 9},
            cars={0: (2, 2)},
            mobsters={(2, 3): "blue"},
            force={0: ["squad_wagon"]},
        ),
        0,
    )
    state, _ = step(state, c.Drive(0, ((2, 3),)))
    state, events = step(state, c.PlayForce(0, "squad_wagon", (2, 3)))
    assert of_type(events, MobsterApprehended) == [MobsterApprehended(0, (2, 3), BLUE)]


@pytest.mark.parametrize("block", [(3, 3), (1, 1), (2, 4), (4, 2)])
def test_squad_wagon_not_on_a_diagonal_far_or_empty_block(block: tuple[int, int]) -> None:
    # (3,3) and (1,1) are diagonal, (2,4) is two blocks away, (4,2) is empty and far.
    state = turn_of(
        scene(
            spaces={0: 2, 1: 9},
            cars={0: (2, 2)},
            mobsters={(3, 3): "red", (1, 1): "red", (2, 4): "red"},
            force={0: ["squad_wagon"]},
        ),
        0,
    )
    assert refused(state, c.PlayForce(0, "squad_wagon", block)) == "rules/bad_block"


def test_squad_wagon_on_an_empty_adjacent_block_is_refused() -> None:
    state = turn_of(scene(spaces={0: 2, 1: 9}, cars={0: (2, 2)}, force={0: ["squad_wagon"]}), 0)
    assert refused(state, c.PlayForce(0, "squad_wagon", (2, 3))) == "rules/bad_block"


def test_squad_wagon_removes_a_nab_token_and_resolves_the_event() -> None:
    state = scene(
        spaces={0: 2, 1: 9},
        cars={0: (2, 2), 1: (5, 5)},
        mobsters={(2, 3): "red"},
        force={0: ["squad_wagon"]},
    )
    state = with_event(state, 2, "E11", tokens=[(2, 3)], removed_by=[1])  # NAB, B / S
    state = turn_of(state, 0)
    state, events = step(state, c.PlayForce(0, "squad_wagon", (2, 3)))
    assert of_type(events, EventResolved) == [EventResolved(2, 0, (1,))]
    assert state.slots[1] is None
    assert state.players[0].badge == 1  # resolver: B
    assert len(state.players[1].suspects) == 1  # contributor: S (nobody to look at: a draw)
    assert state.turn is not None and state.turn.phase is Phase.W1


# Jailhouse Deal


def test_jailhouse_deal_gains_one_suspect() -> None:
    state = turn_of(
        scene(spaces={0: 2, 1: 9}, suspects={1: ["S03"]}, force={0: ["jailhouse_deal"]}), 0
    )
    top = state.suspect_deck[0]
    state, _ = step(state, c.PlayForce(0, "jailhouse_deal"))
    assert pending_kinds(state) == [("ChooseGain", 0)]  # draw, or look at seat 1
    state, events = step(state, c.GainSuspect(0, None))
    assert of_type(events, SuspectDrawn) == [SuspectDrawn(0, top)]
    assert state.players[0].suspects == (top,)
    assert state.turn is not None and state.turn.phase is Phase.W1


# --- §9 gaining Force cards -----------------------------------------------------------------------


def backup_scene(hand: Sequence[str] = (), ability: str = "quartermaster", **kw: Any) -> State:
    """Seat 0's day turn on 2 with a mobster on its block (2,2), ready to Call for Backup."""
    state = scene(
        spaces={0: 2, 1: 9},
        abilities=[ability, "quartermaster"],
        cars={0: (2, 2)},
        mobsters={(2, 2): "red"},
        force={0: list(hand)},
    )
    state = force_deck(state, kw.get("deck", ["telephoto", "checkpoint"]), kw.get("discard", ()))
    return state


def test_a_successful_backup_gains_the_top_force_card() -> None:
    state = turn_of(backup_scene(), 0)
    state, events = step(state, c.CallForBackup(0, 2), [die(2)])
    assert of_type(events, ForceGained) == [ForceGained(0, "telephoto", True)]
    assert state.players[0].force == ("telephoto",)
    assert state.force_deck == ("checkpoint",)
    assert you(state, 0)["force"] == ["telephoto"]
    assert view(state, Seat(1))["players"][0]["force"] == 1  # the size is public, not the card


def test_a_failed_backup_gains_nothing() -> None:
    state = turn_of(backup_scene(), 0)
    state, events = step(state, c.CallForBackup(0, 2), [die(3), *REPRIEVE])
    assert of_type(events, ForceGained) == []
    assert state.players[0].force == ()


def test_no_force_on_backup_while_e12_is_active() -> None:
    state = with_event(backup_scene(), 1, "E12", tokens=[(5, 5), (5, 4), (4, 5)])
    state = turn_of(state, 0)
    state, events = step(state, c.CallForBackup(0, 6), [die(1), *REPRIEVE])
    assert of_type(events, BackupCalled)[0].success
    assert of_type(events, ForceGained) == []


def bring_in_2_scene(tokens_on_hq: tuple[Color, ...]) -> State:
    state = scene(spaces={0: 14, 1: 20}, cars={0: HQ})
    state = player(state, 0, holding=RED, held_on_turn=0)
    state = replace(state, bag=(4, 5, 5), hq_holding=tokens_on_hq)
    return turn_of(force_deck(state, ["tip_line", "checkpoint"]), 0)


def test_bring_in_step_2_with_the_token_gone_gains_a_force_card_and_no_badge() -> None:
    state, events = step(bring_in_2_scene((BLUE, GRAY)), c.BookMobster(0))
    assert of_type(events, ForceGained) == [ForceGained(0, "tip_line", True)]
    assert of_type(events, BadgeRaised) == []
    assert state.players[0].holding is None and state.bag == (5, 5, 5)
    assert state.hq_holding == (BLUE, GRAY)


def test_bring_in_step_2_with_the_token_there_gains_the_token_and_a_badge() -> None:
    state, events = step(bring_in_2_scene((RED, BLUE, GRAY)), c.BookMobster(0), REPRIEVE)
    assert of_type(events, ForceGained) == []
    assert state.players[0].badge == 1
    assert state.players[0].holding_tokens == (RED,)


def test_an_event_reward_f_gains_a_force_card() -> None:
    state = scene(spaces={0: 2, 1: 9}, cars={0: (2, 2)})
    state = with_event(state, 1, "E14", tokens=[(2, 2)])  # VISIT 1, resolver F
    state = turn_of(force_deck(state, ["rubber_stamp"]), 0)
    state, events = step(state, c.ResolveEvent(0, 1))
    assert of_type(events, ForceGained) == [ForceGained(0, "rubber_stamp", True)]
    assert state.players[0].force == ("rubber_stamp",)


def test_an_empty_force_deck_is_refilled_by_shuffling_the_discard_pile() -> None:
    discard = ["checkpoint", "telephoto", "tip_line"]
    state = turn_of(backup_scene(deck=[], discard=discard), 0)
    # Backup die, then the reshuffle: i=2 swaps with draw 0, i=1 swaps with draw 0.
    state, events = step(state, c.CallForBackup(0, 2), [die(1), 0, 0])
    assert of_type(events, ForceDeckShuffled) == [
        ForceDeckShuffled(("telephoto", "tip_line", "checkpoint"))
    ]
    assert state.players[0].force == ("telephoto",)
    assert state.force_deck == ("tip_line", "checkpoint")
    assert state.force_discard == ()


def test_with_deck_and_discard_pile_both_empty_the_gain_is_lost() -> None:
    state = turn_of(backup_scene(deck=[], discard=[]), 0)
    state, events = step(state, c.CallForBackup(0, 2), [die(1), *REPRIEVE])
    assert of_type(events, ForceGainLost) == [ForceGainLost(0)]
    assert state.players[0].force == ()


def test_hand_limit_two_discard_down_at_once_and_the_new_card_may_go() -> None:
    state = turn_of(backup_scene(["tip_line", "squad_wagon"], ability="sharp_eyes"), 0)
    state, events = step(state, c.CallForBackup(0, 2), [die(1)])
    assert of_type(events, ForceGained) == [ForceGained(0, "telephoto", True)]
    assert state.players[0].force == ("tip_line", "squad_wagon", "telephoto")
    # At once: before the action's later steps and before W3.
    assert pending_kinds(state) == [("ChooseDiscard", 0)]
    assert state.turn is not None and state.turn.phase is Phase.ACTION
    assert you(state, 0)["decision"] == {"seat": 0, "kind": "discard", "reason": "hand_limit"}
    assert refused(state, c.DiscardForce(0, "checkpoint")) == "rules/not_an_option"
    state, _ = step(state, c.DiscardForce(0, "telephoto"))
    assert state.players[0].force == ("tip_line", "squad_wagon")
    assert state.force_discard[-1] == "telephoto"
    assert state.turn is not None and state.turn.phase is Phase.W3


def test_hand_limit_discard_may_be_an_old_card() -> None:
    state = turn_of(backup_scene(["tip_line", "squad_wagon"], ability="sharp_eyes"), 0)
    state, _ = step(state, c.CallForBackup(0, 2), [die(1)])
    state, _ = step(state, c.DiscardForce(0, "tip_line"))
    assert state.players[0].force == ("squad_wagon", "telephoto")


def test_quartermaster_hand_limit_is_three() -> None:
    state = turn_of(backup_scene(["tip_line", "squad_wagon"]), 0)
    state, _ = step(state, c.CallForBackup(0, 2), [die(1)])
    assert state.pending == ()
    assert state.players[0].force == ("tip_line", "squad_wagon", "telephoto")
    state = turn_of(backup_scene(["tip_line", "squad_wagon", "radio_car"]), 0)
    state, _ = step(state, c.CallForBackup(0, 2), [die(1)])
    assert pending_kinds(state) == [("ChooseDiscard", 0)]


@pytest.mark.parametrize(("ability", "limit"), [("sharp_eyes", 1), ("quartermaster", 2)])
def test_e13_lowers_the_hand_limit_by_one(ability: str, limit: int) -> None:
    hand = ["tip_line", "squad_wagon", "radio_car"][:limit]
    state = with_event(backup_scene(hand, ability=ability), 1, "E13", tokens=[(5, 5)])
    state = turn_of(state, 0)
    state, _ = step(state, c.CallForBackup(0, 2), [die(1)])
    assert pending_kinds(state) == [("ChooseDiscard", 0)]
    state, _ = step(state, c.DiscardForce(0, "telephoto"))
    assert len(state.players[0].force) == limit


def test_e13_revealed_makes_players_discard_down_in_time_track_order() -> None:
    """HAND_LIMIT(-1) on reveal (rulings 18): seat 0 (on 3 after its turn), seat 2 (on 4) and
    seat 1 (on 9) discard down one at a time in that order; seat 2 (Quartermaster) keeps 2."""
    state = scene(
        players=3,
        spaces={0: 2, 1: 9, 2: 4},
        abilities=["sharp_eyes", "sharp_eyes", "quartermaster"],
        mobsters={(1, 2): "red"},
        force={
            0: ["tip_line", "checkpoint"],
            1: ["telephoto", "radio_car"],
            2: ["squad_wagon", "rubber_stamp"],
        },
    )
    state = replace(state, event_deck=("E13", *(e for e in state.event_deck if e != "E13")))
    state = turn_of(state, 0)
    state, _ = step(state, c.CoffeeBreak(0))
    state, _ = step(state, c.Proceed(0))
    # The roll 1/2 hits the occupied (1,2): E13 is drawn; its token goes on (1,1).
    state, _ = step(state, c.Proceed(0), [die(1), die(2), 0])
    assert state.slots[0] is not None and state.slots[0].card == "E13"
    assert pending_kinds(state) == [("ChooseDiscard", 0)]
    state, _ = step(state, c.DiscardForce(0, "checkpoint"))
    assert pending_kinds(state) == [("ChooseDiscard", 1)]
    state, _ = step(state, c.DiscardForce(1, "radio_car"))
    assert state.pending == ()
    assert [len(p.force) for p in state.players] == [1, 1, 2]


def test_an_ended_player_keeps_a_force_card_they_gain_over_the_hand_limit() -> None:
    """§5.10 (rules v2): an ended player's Force gain goes to their hand, with no hand limit."""
    state = scene(spaces={0: 10, 1: 45}, cars={0: (2, 2)}, force={1: ["tip_line", "radio_car"]})
    state = player(state, 1, ended=True)
    state = with_event(state, 1, "E9", tokens=[(2, 2)], removed_by=[1])  # B / contributors F
    state = turn_of(force_deck(state, ["checkpoint", "telephoto"]), 0)
    state, events = step(state, c.ResolveEvent(0, 1), REPRIEVE)
    assert of_type(events, ForceGained) == [ForceGained(1, "checkpoint", True)]
    assert state.players[1].force == ("tip_line", "radio_car", "checkpoint")  # 3 > limit 2
    assert "checkpoint" not in state.force_discard
    assert state.pending == ()  # no hand-limit discard is owed
    assert state.players[0].badge == 1


def test_an_ended_players_force_gain_of_a_recorded_v1_game_still_replays() -> None:
    """Games recorded under rules v1 hold ``kept=False`` gains: the card went to the discard."""
    state = player(scene(spaces={0: 10, 1: 45}), 1, ended=True)
    state = force_deck(state, ["checkpoint", "telephoto"])
    state = evolve(state, ForceGained(1, "checkpoint", False))
    assert state.players[1].force == () and state.force_discard[-1] == "checkpoint"


def test_an_ended_player_still_takes_a_place_in_a_pool_and_keeps_it() -> None:
    state = scene(spaces={0: 14, 1: 45}, cars={0: (2, 2)})
    state = player(state, 1, ended=True)
    state = with_event(
        state, 1, "E12", tokens=[(2, 2)], removed_by=[1], card_mobsters=["red", "red", "red"]
    )
    state = turn_of(force_deck(state, ["checkpoint", "telephoto", "tip_line"]), 0)
    state, _ = step(state, c.ResolveEvent(0, 1))
    assert pending_kinds(state) == [("ChoosePoolCard", 0)]
    state, events = step(state, c.TakeFromPool(0, "telephoto"))
    assert of_type(events, PoolCardTaken) == [
        PoolCardTaken(0, "telephoto", True),
        PoolCardTaken(1, "checkpoint", True),
    ]
    assert state.players[0].force == ("telephoto",)
    assert state.players[1].force == ("checkpoint",)
    assert "checkpoint" not in state.force_discard and state.pool == ()


def test_a_pool_that_runs_out_of_deck_reshuffles_and_keeps_the_cards_revealed() -> None:
    """§11.2 POOL(k): reveal cards one at a time, reshuffling the discard pile (not the cards
    just revealed) if the deck runs out; §9: a reward gain from the reshuffled deck.  (The
    engine at commit 6176cd2 replaced the first revealed card by the second, losing it.)"""
    state = scene(spaces={0: 14, 1: 20}, cars={0: (2, 2)})
    state = with_event(state, 1, "E12", tokens=[(2, 2)], card_mobsters=["red", "red", "red"])
    state = turn_of(force_deck(state, ["tip_line"], discard=["checkpoint", "telephoto"]), 0)
    state, _ = step(state, c.ResolveEvent(0, 1), [1])  # reshuffle: i=1 keeps its place
    # Two cards were revealed, tip_line then checkpoint: the resolver chooses between them.
    assert pending_kinds(state) == [("ChoosePoolCard", 0)]
    assert state.pool == ("tip_line", "checkpoint")
    state, _ = step(state, c.TakeFromPool(0, "checkpoint"))
    assert state.players[0].force == ("checkpoint",)
    assert state.pool == () and state.force_discard == ("tip_line",)
    assert state.force_deck == ("telephoto",)


# --- §10 abilities --------------------------------------------------------------------------------


def drive_hours(
    ability: str,
    path: Sequence[tuple[int, int]],
    code_three: bool = False,
    surcharge_on: tuple[int, int] | None = None,
) -> int:
    state = scene(
        spaces={0: 2, 1: 20},
        abilities=[ability, "quartermaster"],
        cars={0: (1, 1)},
        force={0: ["code_three"] if code_three else []},
    )
    if surcharge_on is not None:
        state = with_event(state, 1, "E1", tokens=[surcharge_on, (5, 5)])
    state = turn_of(state, 0)
    if code_three:
        state, _ = step(state, c.PlayForce(0, "code_three"))
    state, events = step(state, c.Drive(0, tuple(path)))
    return of_type(events, CarDriven)[0].hours


ROW1 = [(2, 1), (3, 1), (4, 1), (5, 1), (5, 2), (4, 2)]


@pytest.mark.parametrize(("blocks", "hours"), [(1, 1), (2, 2), (3, 2), (4, 3), (6, 5)])
def test_wheelman_waives_one_block_once_on_a_drive_of_three_or_more(
    blocks: int, hours: int
) -> None:
    assert drive_hours("wheelman", ROW1[:blocks]) == hours


@pytest.mark.parametrize(("blocks", "hours"), [(2, 0), (3, 0), (4, 0), (5, 1), (6, 2)])
def test_wheelman_and_code_three_waivers_add_up(blocks: int, hours: int) -> None:
    assert drive_hours("wheelman", ROW1[:blocks], code_three=True) == hours


def test_wheelman_still_pays_surcharges() -> None:
    assert drive_hours("wheelman", ROW1[:3], surcharge_on=(3, 1)) == 3
    assert drive_hours("wheelman", ROW1[:4], code_three=True, surcharge_on=(3, 1)) == 1


def test_other_abilities_waive_no_drive_hours() -> None:
    assert drive_hours("quartermaster", ROW1[:3]) == 3


def night_shift_scene(space: int, **kw: Any) -> State:
    kw.setdefault("cars", {0: (4, 4)})
    kw.setdefault("tokens", [((4, 4), "stakeout", 5)])
    return scene(spaces={0: space, 1: 30}, abilities=["night_shift", "quartermaster"], **kw)


def test_night_shift_lets_a_night_action_be_taken_by_day_twice_per_game() -> None:
    state = turn_of(night_shift_scene(2), 0)
    assert refused(state, c.Stakeout(0, 1)) == "rules/wrong_time_of_day"
    state, events = step(state, c.Stakeout(0, 1, night_shift=True), REPRIEVE)  # fails: V=5
    assert of_type(events, StakeoutFailed)
    assert state.players[0].time_waivers == 1
    assert view(state, SPECTATOR)["players"][0]["night_shift_left"] == 1
    state, _ = step(state, c.Stakeout(0, 1, night_shift=True), REPRIEVE)  # its next turn
    assert state.players[0].time_waivers == 0
    assert state.turn is not None and state.turn.seat == 0
    assert refused(state, c.Stakeout(0, 1, night_shift=True)) == "rules/night_shift_unavailable"


def test_night_shift_lets_a_day_action_be_taken_by_night() -> None:
    state = turn_of(night_shift_scene(14, tokens=[((4, 4), "search", 1)]), 0)
    state, _ = step(state, c.SearchScene(0, night_shift=True), REPRIEVE)
    assert state.players[0].badge == 1 and state.players[0].time_waivers == 1


def test_night_shift_only_for_an_action_that_breaks_its_time_limit() -> None:
    state = turn_of(night_shift_scene(14), 0)
    assert refused(state, c.Stakeout(0, 1, night_shift=True)) == "rules/night_shift_unavailable"
    assert state.players[0].time_waivers == 2


def test_night_shift_is_not_for_bring_in() -> None:
    state = turn_of(night_shift_scene(2, cars={0: (2, 2)}, mobsters={(2, 2): "red"}), 0)
    # Bring in takes no Night Shift declaration, and by day it stays illegal.
    assert refused(state, c.HoldMobster(0)) == "rules/wrong_time_of_day"


def test_night_shift_lifts_the_night_limit_of_e12() -> None:
    state = night_shift_scene(2, cars={0: (2, 2)}, tokens=[])
    state = with_event(state, 1, "E12", tokens=[(2, 2)], card_mobsters=["red", "red", "red"])
    state = turn_of(force_deck(state, ["tip_line", "tip_line"]), 0)
    state, events = step(state, c.ResolveEvent(0, 1, night_shift=True))
    assert of_type(events, EventResolved) == [EventResolved(1, 0, ())]
    assert state.players[0].force == ("tip_line",)
    assert state.players[0].time_waivers == 1


@pytest.mark.parametrize(
    ("value", "risk", "ok"),
    [(3, 2, True), (4, 2, False), (1, 1, True), (5, 4, True), (5, 3, False)],
)
def test_sharp_eyes_stakeout_succeeds_up_to_risk_plus_one(value: int, risk: int, ok: bool) -> None:
    state = scene(
        spaces={0: 14, 1: 30},
        abilities=["sharp_eyes", "quartermaster"],
        cars={0: (4, 4)},
        tokens=[((4, 4), "stakeout", value)],
    )
    state, events = step(turn_of(state, 0), c.Stakeout(0, risk), REPRIEVE)
    assert bool(of_type(events, StakeoutSucceeded)) is ok
    assert of_type(events, ActionTaken)[0].hours == risk


@pytest.mark.parametrize(("dice", "ok"), [((5, 2), True), ((2, 5), True), ((5, 3), False)])
def test_radio_ace_rolls_two_dice_for_backup_and_uses_the_lower(
    dice: tuple[int, int], ok: bool
) -> None:
    state = turn_of(backup_scene(ability="radio_ace"), 0)
    draws = [die(dice[0]), die(dice[1])] + ([] if ok else REPRIEVE)
    state, events = step(state, c.CallForBackup(0, 2), draws)
    assert of_type(events, BackupCalled) == [BackupCalled(0, 2, dice, ok)]


def test_without_radio_ace_backup_rolls_one_die() -> None:
    state = turn_of(backup_scene(ability="sharp_eyes"), 0)
    state, events = step(state, c.CallForBackup(0, 2), [die(5), *REPRIEVE])
    assert of_type(events, BackupCalled) == [BackupCalled(0, 2, (5,), False)]


def cost_of(
    ability: str, cmd: c.Command, space: int, event: str | None = None, rubber_stamp: bool = False
) -> int:
    state = scene(
        spaces={0: space, 1: 30},
        abilities=[ability, "quartermaster"],
        cars={0: (2, 2)},
        mobsters={(2, 2): "red"},
        tokens=[((2, 2), "search", 0)],
        force={0: ["rubber_stamp"] if rubber_stamp else []},
    )
    if event is not None:
        state = with_event(state, 1, event, tokens=[(5, 5)])
    state = turn_of(state, 0)
    if rubber_stamp:
        state, _ = step(state, c.PlayForce(0, "rubber_stamp"))
    _, events = step(state, cmd, REPRIEVE)
    return of_type(events, ActionTaken)[0].hours


def test_street_contacts_catch_informant_and_witness_cost_one_hour() -> None:
    assert cost_of("street_contacts", c.CatchInformant(0), 2) == 1
    assert cost_of("street_contacts", c.CatchWitness(0), 14) == 1
    assert cost_of("quartermaster", c.CatchInformant(0), 2) == 2
    # Cost order: set cost 1, then the +1 surcharge, then Force reductions, never below 1.
    assert cost_of("street_contacts", c.CatchInformant(0), 2, event="E4") == 2
    assert cost_of("street_contacts", c.CatchWitness(0), 14, event="E3") == 2
    assert cost_of("street_contacts", c.CatchInformant(0), 2, event="E4", rubber_stamp=True) == 1
    assert cost_of("street_contacts", c.SearchScene(0), 2) == 2


def test_lab_partner_search_scene_costs_one_hour() -> None:
    assert cost_of("lab_partner", c.SearchScene(0), 2) == 1
    assert cost_of("lab_partner", c.SearchScene(0), 2, event="E15") == 2
    assert cost_of("lab_partner", c.SearchScene(0), 2, rubber_stamp=True) == 1
    assert cost_of("lab_partner", c.CatchInformant(0), 2) == 2


def good_cop_scene(seen: Sequence[str]) -> State:
    state = scene(
        spaces={0: 2, 1: 9},
        abilities=["good_cop", "quartermaster"],
        cars={0: (2, 2)},
        mobsters={(2, 2): "red"},
        suspects={1: ["S03", "S07", "S12"]},
    )
    state = player(state, 0, badge=1, seen=tuple(seen))
    state, _ = step(turn_of(state, 0), c.CatchInformant(0))
    assert pending_kinds(state) == [("ChooseInterrogate", 0)]
    return state


def test_good_cop_picks_only_among_unseen_cards() -> None:
    state = good_cop_scene(["S07"])
    state, events = step(state, c.Interrogate(0, 1), identity_shuffle(2))
    dealt = [(e.seat, e.target, e.slots) for e in of_type(events, SlotsDealt)]
    assert dealt == [(0, 1, ("S03", "S12"))]
    state, events = step(state, c.PickSlot(0, 2), REPRIEVE)
    assert [(e.seat, e.target, e.card) for e in of_type(events, SuspectSeen)] == [(0, 1, "S12")]
    assert state.players[0].seen == ("S07", "S12")


def test_good_cop_with_one_unseen_card_sees_it() -> None:
    state = good_cop_scene(["S03", "S12"])
    state, events = step(state, c.Interrogate(0, 1), REPRIEVE)
    assert [(e.seat, e.target, e.card) for e in of_type(events, SuspectSeen)] == [(0, 1, "S07")]


def test_good_cop_learns_nothing_when_every_card_is_seen() -> None:
    state = good_cop_scene(["S03", "S07", "S12"])
    state, events = step(state, c.Interrogate(0, 1), REPRIEVE)
    assert [(e.seat, e.target, e.card) for e in of_type(events, SuspectSeen)] == [(0, 1, None)]
    assert state.players[0].seen == ("S03", "S07", "S12")
    assert state.players[1].shown == ()


def test_good_cop_suspect_gain_look_is_among_unseen_cards_too() -> None:
    state = scene(
        spaces={0: 2, 1: 9},
        abilities=["good_cop", "quartermaster"],
        suspects={1: ["S03", "S07"]},
        force={0: ["jailhouse_deal"]},
    )
    state = turn_of(player(state, 0, seen=("S03",)), 0)
    state, _ = step(state, c.PlayForce(0, "jailhouse_deal"))
    state, events = step(state, c.GainSuspect(0, 1))  # one unseen card: no pick to make
    assert [(e.seat, e.target, e.card) for e in of_type(events, SuspectSeen)] == [(0, 1, "S07")]


# --- §6 Interrogate -------------------------------------------------------------------------------


def interrogate_scene(
    badge: int, hands: dict[int, list[str]] | None = None, seen: Sequence[str] = ()
) -> State:
    """Seat 0's day turn on 2 with a mobster on its block, about to Catch Informant for +1 Badge.
    Seat 1 (on 9) holds S03, S07, S12; seat 2 has ended on 45 holding S05; seat 3 (on 12) holds
    nothing."""
    if hands is None:
        hands = {1: ["S03", "S07", "S12"], 2: ["S05"]}
    state = scene(
        players=4,
        spaces={0: 2, 1: 9, 2: 45, 3: 12},
        cars={0: (2, 2)},
        mobsters={(2, 2): "red"},
        suspects=hands,
    )
    state = player(state, 2, ended=True)
    state = player(state, 0, badge=badge, seen=tuple(seen))
    return turn_of(state, 0)


@pytest.mark.parametrize("before", range(0, 11))
def test_interrogate_on_reaching_2_4_6_8_10_each_once_badge_capped(before: int) -> None:
    state = interrogate_scene(before)
    bonus = before + 1 in (2, 4, 6, 8, 10)
    state, events = step(state, c.CatchInformant(0), [] if bonus else REPRIEVE)
    assert state.players[0].badge == min(before + 1, 10)
    if before == 10:
        assert of_type(events, BadgeRaised) == []  # gains above 10 are lost
    if bonus:
        assert pending_kinds(state) == [("ChooseInterrogate", 0)]
        assert you(state, 0)["decision"] == {"seat": 0, "kind": "interrogate"}
    else:
        assert state.pending == ()
        assert of_type(events, TurnBegan)


def test_interrogate_is_optional() -> None:
    state, _ = step(interrogate_scene(1), c.CatchInformant(0))
    state, events = step(state, c.Interrogate(0, None), REPRIEVE)
    assert of_type(events, SlotsDealt) == [] and of_type(events, SuspectSeen) == []
    assert state.players[0].seen == () and state.players[0].suspects == ()


def test_interrogate_targets_another_player_holding_a_card() -> None:
    state, _ = step(interrogate_scene(1), c.CatchInformant(0))
    assert refused(state, c.Interrogate(0, 3)) == "rules/not_an_option"  # holds nothing
    assert refused(state, c.Interrogate(0, 0)) == "rules/not_an_option"  # yourself


def test_interrogate_picks_from_freshly_shuffled_slots_and_tells_the_owner() -> None:
    state, _ = step(interrogate_scene(1), c.CatchInformant(0))
    state, events = step(state, c.Interrogate(0, 1), identity_shuffle(3))
    dealt = [(e.seat, e.target, e.slots) for e in of_type(events, SlotsDealt)]
    assert dealt == [(0, 1, ("S03", "S07", "S12"))]
    assert pending_kinds(state) == [("ChooseSlot", 0)]
    decision = you(state, 0)["decision"]
    assert len(decision.pop("commitments")) == 3  # one per slot, checked in test_fairness
    assert decision.pop("deal") == 0  # the first look of the game: labels look/0/1..3
    assert decision == {"seat": 0, "kind": "slot", "target": 1, "slots": 3}
    assert refused(state, c.PickSlot(0, 4)) == "rules/not_an_option"
    state, events = step(state, c.PickSlot(0, 2), REPRIEVE)
    assert [(e.seat, e.target, e.card) for e in of_type(events, SuspectSeen)] == [(0, 1, "S07")]
    assert you(state, 0)["seen"] == ["S07"]
    assert you(state, 1)["shown"] == [[0, "S07"]]  # the owner is told which card
    assert you(state, 3)["seen"] == [] and you(state, 3)["shown"] == []
    assert view(state, SPECTATOR)["looks"] == [[0, 1]]  # who looked at whom is public


def test_interrogate_a_shuffle_really_moves_the_cards() -> None:
    state, _ = step(interrogate_scene(1), c.CatchInformant(0))
    # Fisher-Yates, i=2 swaps with 0, then i=1 swaps with 0: S03 S07 S12 -> S12 S07 S03
    # -> S07 S12 S03.
    state, events = step(state, c.Interrogate(0, 1), [0, 0])
    dealt = [(e.seat, e.target, e.slots) for e in of_type(events, SlotsDealt)]
    assert dealt == [(0, 1, ("S07", "S12", "S03"))]
    state, events = step(state, c.PickSlot(0, 3), REPRIEVE)
    assert [(e.seat, e.target, e.card) for e in of_type(events, SuspectSeen)] == [(0, 1, "S03")]


def test_interrogate_an_ended_player() -> None:
    state, _ = step(interrogate_scene(1), c.CatchInformant(0))
    state, events = step(state, c.Interrogate(0, 2), REPRIEVE)  # one card: no pick to make
    assert [(e.seat, e.target, e.card) for e in of_type(events, SuspectSeen)] == [(0, 2, "S05")]
    assert state.players[2].shown == ((0, "S05"),)


def test_interrogate_an_already_seen_card_learns_nothing_and_no_repick() -> None:
    state, _ = step(interrogate_scene(1, seen=["S07"]), c.CatchInformant(0))
    state, _ = step(state, c.Interrogate(0, 1), identity_shuffle(3))
    state, events = step(state, c.PickSlot(0, 2), REPRIEVE)
    assert [(e.seat, e.target, e.card) for e in of_type(events, SuspectSeen)] == [(0, 1, "S07")]
    assert state.players[0].seen == ("S07",)
    assert you(state, 1)["shown"] == [[0, "S07"]]
    assert of_type(events, TurnBegan)  # no second pick: the turn went on


def test_interrogate_with_nobody_holding_a_card_draws_instead() -> None:
    state = interrogate_scene(1, hands={})
    top = state.suspect_deck[0]
    state, events = step(state, c.CatchInformant(0), REPRIEVE)
    assert of_type(events, SuspectDrawn) == [SuspectDrawn(0, top)]
    assert state.players[0].suspects == (top,)


def test_interrogate_with_nobody_holding_a_card_and_no_deck_is_lost() -> None:
    state = replace(interrogate_scene(1, hands={}), suspect_deck=())
    state, events = step(state, c.CatchInformant(0), REPRIEVE)
    assert of_type(events, SuspectGainLost) == [SuspectGainLost(0)]
    assert state.players[0].suspects == ()


def test_interrogate_only_others_count_as_holders() -> None:
    state = interrogate_scene(1, hands={0: ["S09"]})
    top = state.suspect_deck[0]
    state, events = step(state, c.CatchInformant(0), REPRIEVE)
    assert of_type(events, SuspectDrawn) == [SuspectDrawn(0, top)]


def test_interrogate_is_taken_at_once_during_another_players_turn() -> None:
    """E5 (MEET 1, B / B): seat 1's car on the other token makes it a contributor; its badge
    reaches 2 during seat 0's turn and it owes the Interrogate at once."""
    state = scene(spaces={0: 2, 1: 9}, cars={0: (2, 2), 1: (4, 4)}, suspects={0: ["S01"]})
    state = player(state, 1, badge=1)
    state = with_event(state, 1, "E5", tokens=[(2, 2), (4, 4)])
    state = turn_of(state, 0)
    state, events = step(state, c.ResolveEvent(0, 1))
    assert of_type(events, EventResolved) == [EventResolved(1, 0, (1,))]
    assert state.players[0].badge == 1 and state.players[1].badge == 2
    assert pending_kinds(state) == [("ChooseInterrogate", 1)]
    state, events = step(state, c.Interrogate(1, 0), REPRIEVE)
    assert [(e.seat, e.target, e.card) for e in of_type(events, SuspectSeen)] == [(1, 0, "S01")]
    assert you(state, 0)["shown"] == [[1, "S01"]]


def test_an_ended_contributor_reaching_badge_2_owes_its_interrogate() -> None:
    """§5.10: an ended player still receives contributor rewards and any Interrogate bonus they
    trigger; §4.5.5: ended players answer decisions like anyone else."""
    state = scene(spaces={0: 2, 1: 45}, cars={0: (2, 2)}, suspects={0: ["S01", "S02"]})
    state = player(state, 1, badge=1, ended=True)
    state = with_event(state, 1, "E5", tokens=[(2, 2)], removed_by=[1])  # MEET 1, B / B
    state = turn_of(state, 0)
    state, events = step(state, c.ResolveEvent(0, 1))
    assert of_type(events, EventResolved) == [EventResolved(1, 0, (1,))]
    assert state.players[1].badge == 2
    assert pending_kinds(state) == [("ChooseInterrogate", 1)]
    state, _ = step(state, c.Interrogate(1, 0), identity_shuffle(2))
    state, events = step(state, c.PickSlot(1, 2), REPRIEVE)
    assert [(e.seat, e.target, e.card) for e in of_type(events, SuspectSeen)] == [(1, 0, "S02")]


# --- §7.3 Suspect gains ---------------------------------------------------------------------------


def gain_scene(hands: dict[int, list[str]], deck: bool = True, players: int = 4) -> State:
    """Seat 0 (on 2) holds Jailhouse Deal; seats 1-3 are on 9, 6 and 12 (Time Track order
    0, 2, 1, 3)."""
    spaces = {0: 2, 1: 9, 2: 6, 3: 12}
    state = scene(
        players=players,
        spaces={s: spaces[s] for s in range(players)},
        suspects=hands,
        force={0: ["jailhouse_deal"]},
    )
    if not deck:
        state = replace(state, suspect_deck=())
    return turn_of(state, 0)


def test_suspect_gain_draw_or_look() -> None:
    state = gain_scene({1: ["S03", "S07"]})
    state, _ = step(state, c.PlayForce(0, "jailhouse_deal"))
    assert pending_kinds(state) == [("ChooseGain", 0)]
    assert refused(state, c.GainSuspect(0, 3)) == "rules/not_an_option"  # holds no card
    assert refused(state, c.GainSuspect(0, 0)) == "rules/not_an_option"
    state, events = step(state, c.GainSuspect(0, 1), identity_shuffle(2))
    dealt = [(e.seat, e.target, e.slots) for e in of_type(events, SlotsDealt)]
    assert dealt == [(0, 1, ("S03", "S07"))]
    state, events = step(state, c.PickSlot(0, 1))
    assert [(e.seat, e.target, e.card) for e in of_type(events, SuspectSeen)] == [(0, 1, "S03")]
    assert state.players[0].seen == ("S03",) and state.players[0].suspects == ()
    assert you(state, 1)["shown"] == [[0, "S03"]]


def test_suspect_gain_look_at_an_already_seen_card_no_repick() -> None:
    state = gain_scene({1: ["S03"]})
    state = player(state, 0, seen=("S03",))
    state, _ = step(state, c.PlayForce(0, "jailhouse_deal"))
    state, events = step(state, c.GainSuspect(0, 1))
    assert [(e.seat, e.target, e.card) for e in of_type(events, SuspectSeen)] == [(0, 1, "S03")]
    assert state.players[0].seen == ("S03",) and state.pending == ()
    assert state.players[1].shown == ((0, "S03"),)


def test_suspect_gain_with_an_empty_deck_must_look() -> None:
    state = gain_scene({1: ["S03", "S07"], 2: ["S05"]}, deck=False)
    state, _ = step(state, c.PlayForce(0, "jailhouse_deal"))
    assert pending_kinds(state) == [("ChooseGain", 0)]
    assert refused(state, c.GainSuspect(0, None)) == "rules/not_an_option"
    state, events = step(state, c.GainSuspect(0, 2))
    assert [(e.seat, e.target, e.card) for e in of_type(events, SuspectSeen)] == [(0, 2, "S05")]


def test_suspect_gain_with_an_empty_deck_and_one_holder_looks_at_once() -> None:
    state = gain_scene({1: ["S03", "S07"]}, deck=False)
    state, events = step(state, c.PlayForce(0, "jailhouse_deal"), identity_shuffle(2))
    dealt = [(e.seat, e.target, e.slots) for e in of_type(events, SlotsDealt)]
    assert dealt == [(0, 1, ("S03", "S07"))]
    assert pending_kinds(state) == [("ChooseSlot", 0)]


def test_suspect_gain_with_an_empty_deck_and_nobody_to_look_at_is_lost() -> None:
    state = gain_scene({0: ["S03"]}, deck=False)
    state, events = step(state, c.PlayForce(0, "jailhouse_deal"))
    assert of_type(events, SuspectGainLost) == [SuspectGainLost(0)]
    assert state.pending == () and state.players[0].suspects == ("S03",)


def test_suspect_gain_with_nobody_to_look_at_draws() -> None:
    state = gain_scene({})
    top = state.suspect_deck[0]
    state, events = step(state, c.PlayForce(0, "jailhouse_deal"))
    assert of_type(events, SuspectDrawn) == [SuspectDrawn(0, top)]
    assert you(state, 0)["suspects"] == [top]
    assert view(state, Seat(1))["players"][0]["suspects"] == 1  # the card stays secret


def test_solo_suspect_gain_is_always_a_draw() -> None:
    state = gain_scene({}, players=1)
    top = state.suspect_deck[0]
    state, events = step(state, c.PlayForce(0, "jailhouse_deal"))
    assert state.pending == ()
    assert of_type(events, SuspectDrawn) == [SuspectDrawn(0, top)]


def test_solo_suspect_gain_with_an_empty_deck_is_lost() -> None:
    state = gain_scene({}, deck=False, players=1)
    state, events = step(state, c.PlayForce(0, "jailhouse_deal"))
    assert of_type(events, SuspectGainLost) == [SuspectGainLost(0)]


# --- §7.2 solving evidence ------------------------------------------------------------------------


def mat(block: tuple[int, int], kind: str, value: int, holder: int) -> ClueToken:
    return ClueToken(block, ClueKind(kind), value, Place.MAT, holder)


def city(block: tuple[int, int], kind: str, value: int) -> ClueToken:
    return ClueToken(block, ClueKind(kind), value)


def evidence_scene(night: bool, **kw: Any) -> State:
    """Four players; seat 0 is to collect the last clue.  Time Track order is 0, 3, 2, 1.
    Seat 0 holds a Force card, so its turn waits at W3 once the action is done."""
    base = 14 if night else 10
    spaces = {0: base, 3: base + 2, 2: base + 5, 1: base + 10}
    return scene(players=4, spaces=spaces, force={0: ["tip_line"]}, **kw)


def collect_gains(state: State, events: list[Event]) -> tuple[State, list[int]]:
    """Answer every owed Suspect gain with a draw; return who drew, in order."""
    order = [e.seat for e in of_type(events, SuspectDrawn)]
    while state.pending:
        (decision,) = state.pending
        assert isinstance(decision, ChooseGain)
        state, more = step(state, c.GainSuspect(decision.seat, None))
        order += [e.seat for e in of_type(more, SuspectDrawn)]
    assert state.turn is not None and state.turn.phase is Phase.W3
    return state, order


def check_solved(state: State, evidence: Evidence, order: list[int], gainers: list[int]) -> None:
    assert state.solved == ((evidence, 0),)
    public = {e["evidence"]: e for e in view(state, SPECTATOR)["evidence"]}
    assert public[evidence.value]["holder"] == 0
    assert view(state, SPECTATOR)["players"][0]["evidence"] == [evidence.value]
    # The solver alone learns the murderer's trait, and can look at it again any time.
    assert you(state, 0)["traits"] == {evidence.value: trait(state.murderer, evidence.value)}
    for seat in (1, 2, 3):
        assert you(state, seat)["traits"] == {}
    # Each player with a clue of that kind gains exactly 1 Suspect, in Time Track order.
    assert order == gainers
    for seat in range(4):
        assert len(state.players[seat].suspects) == (1 if seat in gainers else 0)


def test_solving_rank_with_the_fifth_informant() -> None:
    state = evidence_scene(False, cars={0: (2, 5)}, mobsters={(2, 5): "red"})
    state = replace(state, informants=frozenset({5}))
    state = player(state, 1, informants=(1, 2, 3))
    state = player(state, 2, informants=(4,))
    state, events = step(turn_of(state, 0), c.CatchInformant(0))
    state, order = collect_gains(state, events)
    check_solved(state, Evidence.RANK, order, [0, 2, 1])


def test_solving_gang_with_the_fifth_witness() -> None:
    state = evidence_scene(True, cars={0: (5, 2)}, mobsters={(5, 2): "blue"})
    state = replace(state, witnesses=frozenset({5}))
    state = player(state, 1, witnesses=(1, 2, 3))
    state = player(state, 2, witnesses=(4,))
    state, events = step(turn_of(state, 0), c.CatchWitness(0))
    state, order = collect_gains(state, events)
    check_solved(state, Evidence.GANG, order, [0, 2, 1])


def test_solving_forensics_with_the_third_success_only_success_tokens_count() -> None:
    state = evidence_scene(False, cars={0: (1, 1)})
    state = replace(
        state,
        tokens=(
            city((1, 1), "search", 1),
            mat((1, 2), "search", 1, 1),
            mat((1, 3), "search", 1, 2),
            mat((1, 4), "search", 0, 3),  # a failure: no clue, no contribution
            city((5, 2), "search", 1),
            city((2, 4), "search", 0),
            city((4, 4), "stakeout", 3),
        ),
    )
    state, events = step(turn_of(state, 0), c.SearchScene(0))
    state, order = collect_gains(state, events)
    check_solved(state, Evidence.FORENSICS, order, [0, 2, 1])
    places = {t.block: t.place for t in state.tokens}
    assert places[(1, 1)] is Place.MAT
    # Every Search token still in the city is removed unrevealed; Stakeout tokens stay.
    assert places[(5, 2)] is Place.REMOVED and places[(2, 4)] is Place.REMOVED
    assert places[(4, 4)] is Place.CITY
    assert view(state, SPECTATOR)["city"]["blocks"][index((5, 2))]["clue"] is None


def test_a_failure_search_token_does_not_solve_forensics() -> None:
    state = evidence_scene(False, cars={0: (1, 1)})
    state = replace(
        state,
        tokens=(
            city((1, 1), "search", 0),
            mat((1, 2), "search", 1, 1),
            mat((1, 3), "search", 1, 2),
            city((5, 2), "search", 1),
        ),
    )
    state, events = step(turn_of(state, 0), c.SearchScene(0))
    assert state.solved == () and state.pending == ()
    assert of_type(events, SuspectDrawn) == []
    assert {t.block: t.place for t in state.tokens}[(5, 2)] is Place.CITY


def test_solving_getaway_with_the_third_stakeout_success() -> None:
    state = evidence_scene(True, cars={0: (4, 4)})
    state = replace(
        state,
        tokens=(
            city((4, 4), "stakeout", 1),
            mat((1, 2), "stakeout", 2, 1),
            mat((1, 3), "stakeout", 3, 2),
            mat((1, 4), "search", 1, 3),  # a clue of another kind
            city((5, 5), "stakeout", 5),
            city((2, 4), "search", 1),
        ),
    )
    state, events = step(turn_of(state, 0), c.Stakeout(0, 1))
    state, order = collect_gains(state, events)
    check_solved(state, Evidence.GETAWAY, order, [0, 2, 1])
    places = {t.block: t.place for t in state.tokens}
    assert places[(5, 5)] is Place.REMOVED
    assert places[(2, 4)] is Place.CITY


def test_solving_weapon_with_the_third_holding_token_ended_players_gain_too() -> None:
    state = evidence_scene(True, cars={0: HQ})
    state = player(state, 0, holding=RED, held_on_turn=0)
    state = player(state, 1, holding_tokens=(BLUE,), space=45, ended=True)
    state = player(state, 2, holding_tokens=(GRAY,))
    state = replace(state, hq_holding=(RED,), bag=(4, 5, 5))
    state, events = step(turn_of(state, 0), c.BookMobster(0))
    state, order = collect_gains(state, events)
    check_solved(state, Evidence.WEAPON, order, [0, 2, 1])
    assert state.players[0].holding_tokens == (RED,) and state.players[0].badge == 1


# --- §5.10 Rest Your Case and ending on 48 --------------------------------------------------------


def end_scene(space: int, other: int = 46, other_ended: bool = False) -> State:
    """Seat 0's turn on ``space`` with a full mat: red and blue arrests and a gray held mobster."""
    state = scene(spaces={0: space, 1: other})
    state = player(state, 1, ended=other_ended)
    state = player(state, 0, arrests=(RED, BLUE), holding=GRAY, held_on_turn=0)
    state = replace(state, bag=(4, 4, 4))
    return turn_of(state, 0)


@pytest.mark.parametrize("start", [42, 43, 44, 45, 46])
def test_rest_your_case_is_offered_at_the_end_of_a_turn_on_43_to_47(start: int) -> None:
    state, events = step(end_scene(start, other=47), c.CoffeeBreak(0), REPRIEVE)
    assert state.players[0].space == start + 1
    assert pending_kinds(state) == [("ChooseRest", 0)]
    assert you(state, 0)["decision"] == {"seat": 0, "kind": "rest"}
    assert of_type(events, MobsterRolled)  # Step 4 comes first


@pytest.mark.parametrize("start", [30, 41])
def test_rest_your_case_is_not_offered_below_43(start: int) -> None:
    state, events = step(end_scene(start), c.CoffeeBreak(0), REPRIEVE)
    assert state.pending == ()
    assert of_type(events, TurnBegan) == [TurnBegan(0, 2, start + 1 not in range(25, 37))]


def test_resting_ends_the_game_mat_mobsters_to_the_bag_no_more_turns() -> None:
    state, _ = step(end_scene(42), c.CoffeeBreak(0), REPRIEVE)
    state, events = step(state, c.RestCase(0, True))
    assert of_type(events, PlayerEnded) == [PlayerEnded(0, rested=True)]
    p = state.players[0]
    assert p.ended and p.arrests == () and p.holding is None
    assert state.bag == (5, 5, 5)
    # Seat 0 (on 43) is lowest, but an ended player takes no turns: seat 1 (on 46) plays.
    assert of_type(events, TurnBegan) == [TurnBegan(1, 2, True)]
    assert view(state, SPECTATOR)["players"][0]["ended"] is True


def test_an_ended_tracker_on_top_of_a_stack_is_skipped() -> None:
    state = scene(spaces={0: 44, 1: 44}, order=[1, 0])  # seat 0 on top, but it has ended
    state = player(state, 0, ended=True)
    state = turn_of(state, 1)
    assert state.turn is not None and state.turn.seat == 1


def test_not_resting_plays_on() -> None:
    state, _ = step(end_scene(42), c.CoffeeBreak(0), REPRIEVE)
    state, events = step(state, c.RestCase(0, False))
    assert not state.players[0].ended
    assert of_type(events, TurnBegan) == [TurnBegan(0, 2, True)]


def test_reaching_48_ends_the_game_automatically() -> None:
    state = end_scene(47, other=46, other_ended=True)
    state, events = step(state, c.CoffeeBreak(0), REPRIEVE)
    assert of_type(events, PlayerEnded) == [PlayerEnded(0, rested=False)]
    assert state.players[0].arrests == () and state.players[0].holding is None
    assert state.bag == (5, 5, 5)
    assert all(not isinstance(d, ChooseRest) for d in state.pending)


# --- §12 accusation -------------------------------------------------------------------------------


def other_suspect(murderer: str) -> str:
    return "S01" if murderer != "S01" else "S02"


def accusation_scene(
    badges: dict[int, int], spaces: dict[int, int], evidence: Sequence[int] = ()
) -> State:
    """Seats 0-2 have ended on ``spaces``; seat 3 plays its last turn from 47 to 48.  ``evidence``
    lists the holder of each solved Evidence token."""
    state = scene(players=4, spaces={**spaces, 3: 47})
    for seat in (0, 1, 2, 3):
        state = player(state, seat, badge=badges.get(seat, 0), ended=seat != 3)
    state = replace(state, solved=tuple(zip(Evidence, evidence, strict=False)))
    state, events = step(turn_of(state, 3), c.CoffeeBreak(3), REPRIEVE)
    assert of_type(events, PlayerEnded) == [PlayerEnded(3, rested=False)]
    return state


def test_accusations_are_owed_by_everyone_at_once_and_revealed_together() -> None:
    state = accusation_scene({}, {0: 45, 1: 44, 2: 43})
    assert state.status is Status.ACCUSING and state.turn is None
    assert sorted(pending_kinds(state)) == [("ChooseAccusation", s) for s in range(4)]
    murderer = state.murderer
    wrong = other_suspect(murderer)
    # Any order: seat 2 first.
    state, _ = step(state, c.Accuse(2, wrong))
    assert refused(state, c.Accuse(2, murderer)) == "rules/no_decision_owed"  # locked in
    assert you(state, 2)["accusation"] == wrong
    assert you(state, 0)["accusation"] is None
    assert view(state, SPECTATOR)["players"][2]["accused"] is True
    assert view(state, Seat(0))["result"] is None
    # Nobody else can see the accusation yet (a seat's own legal commands name every suspect,
    # so its "you" part is left out of the search).
    other = {k: v for k, v in view(state, Seat(1)).items() if k != "you"}
    assert wrong not in str(view(state, SPECTATOR)) and wrong not in str(other)
    state, _ = step(state, c.Accuse(0, murderer))
    state, _ = step(state, c.Accuse(3, wrong))
    assert state.status is Status.ACCUSING
    state, _ = step(state, c.Accuse(1, wrong))
    assert state.status is Status.OVER
    result = view(state, SPECTATOR)["result"]
    assert result == {
        "murderer": murderer,
        "accusations": [murderer, wrong, wrong, wrong],
        "winners": [0],
        "team_accusation": None,
        "decided_by": "accusation",
    }


def test_an_unknown_suspect_cannot_be_accused() -> None:
    state = accusation_scene({}, {0: 45, 1: 44, 2: 43})
    assert refused(state, c.Accuse(0, "S17")) in ("rules/unknown_suspect", "rules/not_an_option")


TIE_BREAKS = [
    # (badges, spaces, evidence holders, correct accusers, winners)
    # rules.md §17 example 18: Cara drops out on badge, Ben wins on the lower tracker.
    ({0: 6, 1: 6, 2: 4, 3: 9}, {0: 45, 1: 44, 2: 43}, (0, 0), {0, 1, 2}, [1]),
    # Variant: both on 45, Evidence tokens decide: Ana 2, Ben 1.
    ({0: 6, 1: 6, 2: 4}, {0: 45, 1: 45, 2: 43}, (0, 1, 0), {0, 1, 2}, [0]),
    # Equal there too: Ana and Ben share the win.
    ({0: 6, 1: 6, 2: 4}, {0: 45, 1: 45, 2: 43}, (0, 1), {0, 1, 2}, [0, 1]),
    # The highest badge wins outright, whatever the trackers and Evidence tokens.
    ({0: 6, 1: 6, 2: 7}, {0: 43, 1: 44, 2: 45}, (0, 0, 1), {0, 1, 2}, [2]),
    # Exactly one correct accuser wins, however low their badge.
    ({0: 6, 1: 6, 2: 0}, {0: 43, 1: 44, 2: 45}, (0, 1), {2}, [2]),
    # Only the correct accusers are compared: the wrong seat 3 has the best badge.
    ({0: 2, 1: 2, 3: 10}, {0: 44, 1: 45, 2: 43}, (), {0, 1}, [0]),
    # Nobody correct: everyone loses.
    ({0: 6, 1: 6, 2: 4}, {0: 45, 1: 44, 2: 43}, (0,), set(), []),
]


@pytest.mark.parametrize(("badges", "spaces", "evidence", "correct", "winners"), TIE_BREAKS)
def test_accusation_tie_breaks(
    badges: dict[int, int],
    spaces: dict[int, int],
    evidence: tuple[int, ...],
    correct: set[int],
    winners: list[int],
) -> None:
    state = accusation_scene(badges, spaces, evidence)
    murderer = state.murderer
    for seat in (3, 1, 0, 2):
        state, _ = step(
            state, c.Accuse(seat, murderer if seat in correct else other_suspect(murderer))
        )
    assert state.status is Status.OVER
    assert list(state.winners) == winners
    assert view(state, SPECTATOR)["result"]["winners"] == winners


# --- §13 Solo -------------------------------------------------------------------------------------


def solo_scene(space: int, badge: int = 0, **kw: Any) -> State:
    state = scene(players=1, spaces={0: space}, **kw)
    return turn_of(player(state, 0, badge=badge), 0)


def test_solo_interrogate_is_a_draw() -> None:
    state = solo_scene(2, badge=1, cars={0: (2, 2)}, mobsters={(2, 2): "red"})
    top = state.suspect_deck[0]
    state, events = step(state, c.CatchInformant(0), REPRIEVE)
    assert state.players[0].badge == 2
    assert of_type(events, SuspectDrawn) == [SuspectDrawn(0, top)]
    assert all(not isinstance(d, ChooseInterrogate) for d in state.pending)


def test_solo_interrogate_with_an_empty_deck_is_lost() -> None:
    state = solo_scene(2, badge=1, cars={0: (2, 2)}, mobsters={(2, 2): "red"})
    state = replace(state, suspect_deck=())
    state, events = step(state, c.CatchInformant(0), REPRIEVE)
    assert of_type(events, SuspectGainLost) == [SuspectGainLost(0)]


def test_solo_evidence_gain_is_a_draw() -> None:
    state = solo_scene(10, cars={0: (2, 5)}, mobsters={(2, 5): "red"})
    state = replace(state, informants=frozenset({5}))
    state = player(state, 0, informants=(1, 2, 3, 4))
    top = state.suspect_deck[0]
    state, events = step(state, c.CatchInformant(0), REPRIEVE)
    assert state.solved == ((Evidence.RANK, 0),)
    assert of_type(events, SuspectDrawn) == [SuspectDrawn(0, top)]


def test_solo_takes_every_turn_and_wins_only_by_naming_the_murderer() -> None:
    state = solo_scene(20)
    state, events = step(state, c.CoffeeBreak(0), REPRIEVE)
    assert of_type(events, TurnBegan) == [TurnBegan(0, 2, True)]
    for correct in (True, False):
        end = solo_scene(47)
        end, events = step(end, c.CoffeeBreak(0), REPRIEVE)
        assert of_type(events, PlayerEnded) == [PlayerEnded(0, rested=False)]
        assert pending_kinds(end) == [("ChooseAccusation", 0)]
        name = end.murderer if correct else other_suspect(end.murderer)
        end, _ = step(end, c.Accuse(0, name))
        assert end.status is Status.OVER
        assert list(end.winners) == ([0] if correct else [])


def test_solo_rest_your_case_then_the_accusation() -> None:
    state, _ = step(solo_scene(42), c.CoffeeBreak(0), REPRIEVE)
    assert pending_kinds(state) == [("ChooseRest", 0)]
    state, _ = step(state, c.RestCase(0, True))
    assert pending_kinds(state) == [("ChooseAccusation", 0)]


# --- §4.5.6 default answers (ApplyDefault) --------------------------------------------------------


def test_default_interrogate_is_skipped() -> None:
    state, _ = step(interrogate_scene(1), c.CatchInformant(0))
    state, events = step(state, c.ApplyDefault(0), REPRIEVE)
    assert of_type(events, SlotsDealt) == [] and of_type(events, SuspectSeen) == []
    assert state.players[0].seen == () and state.players[0].suspects == ()
    assert of_type(events, TurnBegan)


def test_default_slot_pick_is_skipped() -> None:
    state, _ = step(interrogate_scene(1), c.CatchInformant(0))
    state, _ = step(state, c.Interrogate(0, 1), identity_shuffle(3))
    assert isinstance(state.pending[0], ChooseSlot)
    state, events = step(state, c.ApplyDefault(0), REPRIEVE)
    assert of_type(events, SuspectSeen) == []
    assert state.players[0].seen == () and state.players[1].shown == ()


def test_default_suspect_gain_draws_when_the_deck_has_a_card() -> None:
    state = gain_scene({1: ["S03", "S07"]})
    top = state.suspect_deck[0]
    state, _ = step(state, c.PlayForce(0, "jailhouse_deal"))
    assert isinstance(state.pending[0], ChooseGain)
    state, events = step(state, c.ApplyDefault(0))
    assert of_type(events, SuspectDrawn) == [SuspectDrawn(0, top)]


def test_default_suspect_gain_with_an_empty_deck_looks_at_the_first_in_time_track_order() -> None:
    # Time Track order 0 (2), 2 (6), 1 (9), 3 (12): seat 2 is the first eligible player.
    state = gain_scene({1: ["S03", "S07"], 2: ["S05", "S09"]}, deck=False)
    state, _ = step(state, c.PlayForce(0, "jailhouse_deal"))
    assert isinstance(state.pending[0], ChooseGain)
    # Seat 2's cards are shuffled (i=1 swaps with 0: S09, S05) and slot 1 is taken.
    state, events = step(state, c.ApplyDefault(0), [0])
    dealt = [(e.seat, e.target, e.slots) for e in of_type(events, SlotsDealt)]
    assert dealt == [(0, 2, ("S09", "S05"))]
    assert [(e.seat, e.target, e.card) for e in of_type(events, SuspectSeen)] == [(0, 2, "S09")]
    assert state.pending == ()
    assert you(state, 2)["shown"] == [[0, "S09"]]


def test_default_hand_limit_discard_is_the_newest_card() -> None:
    state = turn_of(backup_scene(["tip_line", "squad_wagon"], ability="sharp_eyes"), 0)
    state, _ = step(state, c.CallForBackup(0, 2), [die(1)])
    state, events = step(state, c.ApplyDefault(0))
    assert of_type(events, ForceDiscarded) == [ForceDiscarded(0, "telephoto", 2)]
    assert state.players[0].force == ("tip_line", "squad_wagon")


def test_default_hand_limit_discard_of_two_copies_drops_the_newest() -> None:
    state = turn_of(
        backup_scene(["tip_line", "squad_wagon"], ability="sharp_eyes", deck=["tip_line"]), 0
    )
    state, _ = step(state, c.CallForBackup(0, 2), [die(1)])
    state, events = step(state, c.ApplyDefault(0))
    assert of_type(events, ForceDiscarded) == [ForceDiscarded(0, "tip_line", 2)]


def test_default_discard_f_is_the_card_held_longest() -> None:
    state = scene(
        spaces={0: 2, 1: 5},
        force={0: ["tip_line", "checkpoint"], 1: ["telephoto"]},
        tokens=[((4, 4), "stakeout", 3)],
    )
    state = with_event(state, 1, "E9", tokens=[(5, 5)], deadline=3)  # expiry: DISCARD_F
    state = turn_of(state, 0)
    state, _ = step(state, c.CoffeeBreak(0))
    state, events = close_windows(state)
    # At the end of the turn the lowest tracker (3) reached the deadline: E9 expires.
    assert pending_kinds(state) == [("ChooseDiscard", 0)]
    assert you(state, 0)["decision"] == {"seat": 0, "kind": "discard", "reason": "expiry"}
    state, events = step(state, c.ApplyDefault(0))
    assert of_type(events, ForceDiscarded) == [ForceDiscarded(0, "tip_line", 0)]
    assert pending_kinds(state) == [("ChooseDiscard", 1)]  # then seat 1, a Time Track order
    state, events = step(state, c.ApplyDefault(1))
    assert of_type(events, ForceDiscarded) == [ForceDiscarded(1, "telephoto", 0)]
    assert state.players[0].force == ("checkpoint",) and state.players[1].force == ()
    assert state.slots[0] is None


def test_default_pool_pick_is_the_first_card_left() -> None:
    state = scene(spaces={0: 14, 1: 20}, cars={0: (2, 2)})
    state = with_event(state, 1, "E12", tokens=[(2, 2)], card_mobsters=["red", "red", "red"])
    state = turn_of(force_deck(state, ["tip_line", "checkpoint", "telephoto"]), 0)
    state, _ = step(state, c.ResolveEvent(0, 1))
    assert pending_kinds(state) == [("ChoosePoolCard", 0)]
    state, events = step(state, c.ApplyDefault(0))
    assert of_type(events, PoolCardTaken) == [PoolCardTaken(0, "tip_line", True)]
    assert state.force_discard[-1] == "checkpoint"  # the leftover


def test_default_trait_is_the_first_unknown_evidence_in_7_1_order() -> None:
    state = scene(spaces={0: 2, 1: 9, 2: 12}, players=3, cars={0: HQ})
    state = with_event(state, 1, "E7", tokens=[HQ])  # VISIT 1, resolver E
    state = replace(state, solved=((Evidence.WEAPON, 1), (Evidence.GETAWAY, 2), (Evidence.GANG, 1)))
    state = turn_of(state, 0)
    state, _ = step(state, c.ResolveEvent(0, 1))
    assert pending_kinds(state) == [("ChooseTrait", 0)]
    state, events = step(state, c.ApplyDefault(0), REPRIEVE)
    assert of_type(events, TraitLearned) == [TraitLearned(0, Evidence.GANG)]
    assert you(state, 0)["traits"] == {"gang": trait(state.murderer, "gang")}


def test_default_peek_is_skipped() -> None:
    state = scene(
        spaces={0: 2, 1: 9},
        cars={0: (2, 2)},
        tokens=[((4, 4), "stakeout", 3), ((1, 5), "search", 1)],
    )
    state = with_event(state, 1, "E1", tokens=[(2, 2)], removed_by=[1])  # F / contributors P
    state = turn_of(force_deck(state, ["telephoto"]), 0)
    state, _ = step(state, c.ResolveEvent(0, 1))
    assert pending_kinds(state) == [("ChoosePeek", 1)]
    state, events = step(state, c.ApplyDefault(1))
    assert of_type(events, TokenPeeked) == []
    assert state.players[1].known_tokens == frozenset()


def test_default_rest_your_case_is_no() -> None:
    state, _ = step(end_scene(44), c.CoffeeBreak(0), REPRIEVE)
    state, events = step(state, c.ApplyDefault(0))
    assert of_type(events, PlayerEnded) == []
    assert not state.players[0].ended
    assert of_type(events, TurnBegan) == [TurnBegan(0, 2, True)]


def test_default_accusation_is_none_and_counts_as_wrong() -> None:
    state = accusation_scene({0: 5}, {0: 45, 1: 44, 2: 43})
    for seat in (1, 2, 3):
        state, _ = step(state, c.Accuse(seat, other_suspect(state.murderer)))
    state, _ = step(state, c.ApplyDefault(0))
    assert state.status is Status.OVER
    assert state.players[0].accused and state.players[0].accusation is None
    assert state.winners == ()


def test_default_accusation_while_others_still_choose() -> None:
    state = accusation_scene({}, {0: 45, 1: 44, 2: 43})
    state, _ = step(state, c.ApplyDefault(2))
    assert state.status is Status.ACCUSING
    assert sorted(d.seat for d in state.pending if isinstance(d, ChooseAccusation)) == [0, 1, 3]
    state, _ = step(state, c.Accuse(0, state.murderer))
    state, _ = step(state, c.Accuse(1, state.murderer))
    state, _ = step(state, c.Accuse(3, state.murderer))
    # Badges all 0; seat 1 has the lowest tracker (44; seat 0 is on 45, seat 3 on 48).
    assert state.status is Status.OVER and state.winners == (1,)


def test_default_open_w3_and_w4_windows_proceed() -> None:
    state = turn_of(scene(spaces={0: 2, 1: 9}, force={0: ["checkpoint"]}), 0)
    state, _ = step(state, c.CoffeeBreak(0))
    assert state.turn is not None and state.turn.phase is Phase.W3
    state, events = step(state, c.ApplyDefault(0))
    assert of_type(events, TrackerAdvanced) == [TrackerAdvanced(0, 3, ())]
    assert state.turn is not None and state.turn.phase is Phase.W4
    state, events = step(state, c.ApplyDefault(0), REPRIEVE)
    assert of_type(events, MobsterRolled) == [MobsterRolled(6, 6)]
    assert of_type(events, TurnBegan) == [TurnBegan(0, 2, False)]


def test_default_with_nothing_owed_is_refused() -> None:
    state = turn_of(scene(spaces={0: 2, 1: 9}, force={0: ["checkpoint"]}), 0)
    assert refused(state, c.ApplyDefault(0)) == "rules/no_decision_owed"  # W1 is no window
    assert refused(state, c.ApplyDefault(1)) == "rules/no_decision_owed"
    state, _ = step(interrogate_scene(1), c.CatchInformant(0))
    assert refused(state, c.ApplyDefault(1)) == "rules/no_decision_owed"
