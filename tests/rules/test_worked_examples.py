"""The worked examples of rules.md §17, one test each (variants as their own tests).

Conventions of §17 applied to every scene: each tracker is alone on its space unless a stack is
stated; every Event Line before the trackers' positions has been crossed unless stated (so
``state.lines`` holds the lines a tracker is already past); nobody holds Force cards and no event
is active unless stated.  Seats: Ana 0, Ben 1, Cara 2, Dan 3, unless a test needs fewer players
(then the seats are named in the test).  Players the example does not mention stand on free
spaces ahead of the active player, where they change nothing.

Expected values come from rules.md and docs/rulings.md.  Every Mobster Roll that the example does
not describe is scripted as a 6-6 Reprieve, so it changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest

from echoridge_rules import Rng, RuleViolation, Seat, State, Status, decide, legal_actions, view
from echoridge_rules import commands as c
from echoridge_rules.board import index
from echoridge_rules.data import EVENT_LINES, SUSPECTS, Color, Evidence
from echoridge_rules.decisions import (
    ChooseAccusation,
    ChooseDiscard,
    ChooseGain,
    ChooseInterrogate,
    ChoosePoolCard,
    ChooseSlot,
)
from echoridge_rules.events import (
    BackupCalled,
    CityTokensRemoved,
    Drawn,
    Event,
    EventDiscarded,
    EventExpired,
    EventPlaced,
    EventReplaced,
    EventResolved,
    EventTokenPlaced,
    EvidenceSolved,
    ForceGained,
    GameEnded,
    MobsterPlaced,
    MobsterRolled,
    PlayerEnded,
    PoolCardTaken,
    PoolRevealed,
    StakeoutFailed,
    StakeoutSucceeded,
    SuspectDrawn,
    SuspectRemoved,
    SuspectSeen,
    TrackerAdvanced,
    TrackersPushed,
    TurnBegan,
)
from echoridge_rules.model import ClueKind, ClueToken, Phase, Place
from echoridge_rules.queries import clues, event_token_blocks

from .helpers import (
    SEED,
    die,
    events_on_top,
    force_on_top,
    given,
    kinds,
    of_type,
    player,
    turn_of,
    when,
    with_event,
)

ANA, BEN, CARA, DAN = 0, 1, 2, 3
RED, BLUE, GRAY = Color.RED, Color.BLUE, Color.GRAY
REPRIEVE = (die(6), die(6))  # a 6-6 Mobster Roll: nothing placed, no Crime Spree


# --- local helpers -------------------------------------------------------------------------------


def act(state: State, command: c.Command, draws: Sequence[int] = ()) -> tuple[State, list[Event]]:
    """``when``, also checking that the command used exactly the scripted draws (no fallback)."""
    after, events = when(state, command, draws)
    assert len(of_type(events, Drawn)) == len(draws), "unexpected extra random draws"
    return after, events


def code_of(state: State, command: c.Command) -> str:
    """The RuleViolation code ``decide`` raises for this command."""
    with pytest.raises(RuleViolation) as info:
        decide(state, command, Rng(SEED, "test"))
    return info.value.code


def with_lines(state: State, lines: Sequence[int] | None = None) -> State:
    """The Event Lines already crossed: by default every line some tracker is already past."""
    if lines is None:
        furthest = max(p.space for p in state.players)
        lines = [k for k in EVENT_LINES if k < furthest]
    return replace(state, lines=frozenset(lines))






def with_murderer(state: State, suspect: str) -> State:
    deck = [s for s in state.suspect_deck if s != suspect]
    if state.murderer != suspect:
        deck.append(state.murderer)
    return replace(state, murderer=suspect, suspect_deck=tuple(deck))


def mobster(state: State, block: tuple[int, int]) -> Color | None:
    return state.mobsters[index(block)]


def stack(state: State, space: int) -> list[int]:
    """The seats on a space, bottom to top."""
    return [s for s in state.order if state.players[s].space == space]


def space(state: State, seat: int) -> int:
    return state.players[seat].space


def proceed(state: State, seat: int, draws: Sequence[int] = ()) -> tuple[State, list[Event]]:
    """Close the open W3 or W4 window."""
    assert state.turn is not None and state.turn.seat == seat
    assert state.turn.phase in (Phase.W3, Phase.W4)
    return act(state, c.Proceed(seat), draws)


def token(state: State, block: tuple[int, int]) -> ClueToken:
    return next(t for t in state.tokens if t.block == block)


def city_clue(state: State, viewer: int, block: tuple[int, int]) -> Any:
    """The face-down clue token on a block as this seat's view shows it."""
    return view_of(state, viewer)["city"]["blocks"][index(block)]["clue"]


def view_of(state: State, seat: int) -> dict[str, Any]:
    return view(state, Seat(seat))


def turns_begun(events: Sequence[Event]) -> list[int]:
    """The seats whose turns began, in order."""
    return [e.seat for e in events if isinstance(e, TurnBegan)]


# --- 1-2: Call for Backup ------------------------------------------------------------------------


def test_ex01_call_for_backup_success() -> None:
    state = given(
        spaces={ANA: 10, BEN: 11, CARA: 12, DAN: 13},
        cars={ANA: (2, 3)},
        mobsters={(2, 3): "red", (1, 3): "blue", (2, 2): "gray", (2, 4): "blue", (4, 4): "gray"},
        tokens=[],
    )
    state = turn_of(with_lines(state), ANA)
    assert state.bag == (4, 3, 3)
    top = state.force_deck[0]

    state, events = act(state, c.CallForBackup(ANA, 4), [die(3)])
    assert of_type(events, BackupCalled) == [BackupCalled(ANA, 4, (3,), True)]
    for block in ((2, 3), (1, 3), (2, 2), (2, 4)):
        assert mobster(state, block) is None
    assert mobster(state, (4, 4)) is GRAY  # not adjacent
    assert state.bag == (5, 5, 4)
    assert state.players[ANA].force == (top,)  # 1 Force card drawn
    # Ana now holds a Force card, so W3 and then W4 open.
    state, _ = proceed(state, ANA)
    state, _ = proceed(state, ANA, REPRIEVE)
    assert space(state, ANA) == 14
    assert state.players[ANA].force == (top,)


def test_ex02_call_for_backup_failure() -> None:
    state = given(
        spaces={BEN: 30, ANA: 31, CARA: 33, DAN: 34},
        cars={BEN: (5, 5)},
        mobsters={(5, 5): "red", (4, 5): "blue"},
        tokens=[],
    )
    state = turn_of(with_lines(state), BEN)
    force_deck = state.force_deck

    state, events = act(state, c.CallForBackup(BEN, 2), [die(5), *REPRIEVE])
    assert of_type(events, BackupCalled) == [BackupCalled(BEN, 2, (5,), False)]
    assert mobster(state, (5, 5)) is None
    assert mobster(state, (4, 5)) is BLUE
    assert state.bag == (5, 4, 5)
    assert state.players[BEN].force == ()
    assert state.force_deck == force_deck
    assert not of_type(events, ForceGained)
    assert space(state, BEN) == 32
    assert state.turn is not None and state.turn.seat == ANA  # Ben's turn is over


# --- 3-4: Stakeout -------------------------------------------------------------------------------


def test_ex03_stakeout_success() -> None:
    state = given(
        spaces={CARA: 14, ANA: 15, BEN: 17, DAN: 18},
        cars={CARA: (4, 2)},
        tokens=[((4, 2), "stakeout", 1)],
    )
    state = turn_of(with_lines(state), CARA)
    assert state.turn is not None and state.turn.night
    assert state.players[CARA].badge == 0

    state, events = act(state, c.Stakeout(CARA, 2), REPRIEVE)
    assert of_type(events, StakeoutSucceeded) == [StakeoutSucceeded(CARA, (4, 2), 2, 1)]
    tok = token(state, (4, 2))
    assert (tok.place, tok.holder) == (Place.MAT, CARA)
    # The value is shown to all: it is on Cara's mat in everybody's view.
    for viewer in (ANA, BEN, CARA, DAN):
        v = view_of(state, viewer)
        assert v["players"][CARA]["stakeout"] == [1]
        getaway = next(e for e in v["evidence"] if e["evidence"] == "getaway")
        assert getaway["clues"] == 1
    assert clues(state, state.players[CARA], Evidence.GETAWAY) == 1
    assert state.players[CARA].badge == 1
    assert space(state, CARA) == 16


def test_ex04_stakeout_failure() -> None:
    # Dan is on 38 and nobody has crossed the line after 40, so the other officers (each alone
    # on a space, ahead of Dan) can only be on 39 and 40: a three-player game.
    ana, ben, dan = 0, 1, 2
    state = given(
        players=3,
        spaces={ana: 39, ben: 40, dan: 38},
        cars={dan: (1, 4)},
        tokens=[((1, 4), "stakeout", 4)],
    )
    state = with_lines(state, [8, 16, 24, 32])
    state = events_on_top(state, "E2")
    state = turn_of(state, dan)

    state, events = act(state, c.Stakeout(dan, 3), [0, *REPRIEVE])  # 0: E2's token block
    assert of_type(events, StakeoutFailed) == [StakeoutFailed(dan, (1, 4), 3)]
    tok = token(state, (1, 4))
    assert (tok.place, tok.holder) == (Place.CITY, None)  # back face down on (1,4)
    assert (1, 4) in state.players[dan].known_tokens
    assert city_clue(state, dan, (1, 4)) == {"kind": "stakeout", "value": 4}
    for other in (ana, ben):
        assert (1, 4) not in state.players[other].known_tokens
        assert city_clue(state, other, (1, 4)) == {"kind": "stakeout", "value": None}
    assert state.players[dan].badge == 0
    assert space(state, dan) == 41
    # Dan is the first to cross the line after 40: one event at Step 3.
    assert of_type(events, TrackerAdvanced) == [TrackerAdvanced(dan, 41, (40,))]
    assert of_type(events, EventPlaced) == [EventPlaced("E2", 1, None)]
    assert 40 in state.lines
    assert kinds(events).index("EventPlaced") < kinds(events).index("MobsterRolled")


# --- 5: arrest spots and the Interrogate bonus ---------------------------------------------------


def test_ex05_arrest_into_a_full_spot_then_completing_a_set() -> None:
    state = given(
        spaces={ANA: 5, BEN: 20, CARA: 21, DAN: 22},
        cars={ANA: (1, 2)},
        mobsters={(1, 2): "blue"},
        suspects={BEN: ["S03", "S07", "S12"]},
        tokens=[],
    )
    state = player(state, ANA, arrests=(BLUE, GRAY), badge=1, seen=("S07",))
    state = replace(state, bag=(5, 3, 4))  # the two arrested mobsters are on her mat
    state = turn_of(with_lines(state), ANA)

    # Arrest (1 h): the blue spot is full, so the blue mobster goes to the bag.
    state, events = act(state, c.Arrest(ANA), [die(1), die(2), 0])  # roll 1/2 places a red
    assert state.players[ANA].arrests == (BLUE, GRAY)
    assert state.players[ANA].badge == 1
    assert of_type(events, MobsterPlaced) == [MobsterPlaced((1, 2), RED)]
    assert state.bag == (4, 4, 4)
    assert space(state, ANA) == 6

    # A later turn: she arrests the red mobster; the set is complete.
    assert state.turn is not None and state.turn.seat == ANA
    state, events = act(state, c.Arrest(ANA))
    assert state.players[ANA].arrests == ()
    assert state.bag == (5, 5, 5)  # all three to the bag (+3)
    assert state.players[ANA].badge == 2
    # Level 2: the Interrogate bonus; Ben is the only one holding cards.
    assert state.pending == (ChooseInterrogate(ANA),)
    assert set(legal_actions(state, ANA)) == {c.Interrogate(ANA, None), c.Interrogate(ANA, BEN)}

    state, _ = act(state, c.Interrogate(ANA, BEN), [2, 1])  # shuffle leaves S03, S07, S12
    (decision,) = state.pending
    assert isinstance(decision, ChooseSlot) and decision.slots == ("S03", "S07", "S12")
    state, events = act(state, c.PickSlot(ANA, 2), REPRIEVE)  # the server picks S07
    assert [(e.seat, e.target, e.card) for e in of_type(events, SuspectSeen)] == [(ANA, BEN, "S07")]
    # Ana had seen S07 already: she learns nothing and does not pick again.
    assert state.players[ANA].seen == ("S07",)
    assert not any(d.seat == ANA for d in state.pending)
    assert not of_type(events, SuspectDrawn)
    # Ben is told that Ana saw S07.
    assert state.players[BEN].shown == ((ANA, "S07"),)
    assert state.looks == ((ANA, BEN),)  # that Ana looked at Ben is public
    assert view_of(state, BEN)["you"]["shown"] == [[ANA, "S07"]]
    assert state.players[BEN].suspects == ("S03", "S07", "S12")
    assert space(state, ANA) == 7


# --- 6: row and column ---------------------------------------------------------------------------


def test_ex06_row_and_column() -> None:
    state = given(
        spaces={CARA: 6, ANA: 7, BEN: 9, DAN: 10},
        cars={CARA: (4, 2)},
        mobsters={(4, 2): "gray"},
        tokens=[],
    )
    state = turn_of(with_lines(state), CARA)
    assert 2 in state.informants and 4 in state.witnesses
    legal = legal_actions(state, CARA)
    assert c.CatchInformant(CARA) in legal
    assert c.CatchWitness(CARA) not in legal  # a day turn
    assert code_of(state, c.CatchWitness(CARA)) == "rules/wrong_time_of_day"

    state, _ = act(state, c.CatchInformant(CARA), REPRIEVE)
    assert mobster(state, (4, 2)) is None
    assert state.bag == (5, 5, 5)
    assert state.players[CARA].informants == (2,)
    assert 2 not in state.informants
    assert 4 in state.witnesses and state.players[CARA].witnesses == ()
    assert state.players[CARA].badge == 1
    assert space(state, CARA) == 8


@pytest.mark.parametrize("start", [13, 24, 37])
def test_ex06_variant_night_turn_only_catch_witness(start: int) -> None:
    state = given(
        spaces={CARA: start, ANA: start + 1, BEN: start + 2, DAN: start + 3},
        cars={CARA: (4, 2)},
        mobsters={(4, 2): "gray"},
        tokens=[],
    )
    state = turn_of(with_lines(state), CARA)
    legal = legal_actions(state, CARA)
    assert c.CatchWitness(CARA) in legal
    assert c.CatchInformant(CARA) not in legal
    assert code_of(state, c.CatchInformant(CARA)) == "rules/wrong_time_of_day"

    state, _ = act(state, c.CatchWitness(CARA), REPRIEVE)
    assert mobster(state, (4, 2)) is None
    assert state.players[CARA].witnesses == (4,)  # column 4's token
    assert 4 not in state.witnesses
    assert 2 in state.informants and state.players[CARA].informants == ()
    assert state.players[CARA].badge == 1
    assert space(state, CARA) == start + 2


# --- 7: Search solves Forensics ------------------------------------------------------------------


def test_ex07_search_solves_forensics() -> None:
    state = given(
        spaces={DAN: 26, ANA: 27, BEN: 29, CARA: 30},
        cars={DAN: (1, 1)},
    )
    search = ClueKind.SEARCH
    state = replace(
        state,
        tokens=(
            ClueToken((1, 1), search, 1),
            ClueToken((5, 2), search, 1),
            ClueToken((2, 4), search, 0),
            ClueToken((2, 1), search, 1, Place.MAT, ANA),
            ClueToken((4, 1), search, 1, Place.MAT, BEN),
            ClueToken((5, 1), search, 0, Place.MAT, CARA),
        ),
    )
    state = turn_of(with_lines(state), DAN)
    deck = state.suspect_deck
    trait = SUSPECTS[state.murderer].trait(Evidence.FORENSICS)

    state, events = act(state, c.SearchScene(DAN))
    assert state.players[DAN].badge == 1
    assert of_type(events, EvidenceSolved) == [EvidenceSolved(Evidence.FORENSICS, DAN)]
    assert state.solved == ((Evidence.FORENSICS, DAN),)
    assert of_type(events, CityTokensRemoved) == [CityTokensRemoved(search)]
    for block in ((5, 2), (2, 4)):
        tok = token(state, block)
        assert (tok.place, tok.holder) == (Place.REMOVED, None)
    # Suspect gains in Time Track order: Dan (26), Ana (27), Ben (29).  Dan's is forced (a draw:
    # nobody else holds a card yet), then Ana and Ben choose.
    assert of_type(events, SuspectDrawn) == [SuspectDrawn(DAN, deck[0])]
    assert state.pending == (ChooseGain(ANA),)
    state, _ = act(state, c.GainSuspect(ANA))
    assert state.pending == (ChooseGain(BEN),)
    state, events = act(state, c.GainSuspect(BEN), REPRIEVE)
    assert state.players[DAN].suspects == (deck[0],)
    assert state.players[ANA].suspects == (deck[1],)
    assert state.players[BEN].suspects == (deck[2],)
    assert state.players[CARA].suspects == ()  # she holds only a failure token
    assert state.players[CARA].seen == ()
    assert state.suspect_deck == deck[3:]
    # Dan privately sees the Forensics trait; the removed tokens are revealed to nobody.
    assert view_of(state, DAN)["you"]["traits"] == {"forensics": trait}
    for seat in (ANA, BEN, CARA):
        assert view_of(state, seat)["you"]["traits"] == {}
        assert view_of(state, seat)["evidence"][2]["holder"] == DAN
        assert city_clue(state, seat, (5, 2)) is None and city_clue(state, seat, (2, 4)) is None
    assert space(state, DAN) == 28


# --- 8: Bring in for Holding ---------------------------------------------------------------------


def _ex08_first_turn(
    hq_holding: tuple[Color, ...] = (RED, BLUE, GRAY), line_24_crossed: bool = False
) -> State:
    """Step 1 from 21.  Ben is seat 1.  With the line after 24 not crossed yet, the only other
    officer is Ana on 24 (a two-player game); otherwise Ana, Cara and Dan are on 25, 26, 28."""
    ana, ben = 0, 1
    spaces = {ben: 21, ana: 25, 2: 26, 3: 28} if line_24_crossed else {ben: 21, ana: 24}
    state = given(
        players=len(spaces),
        spaces=spaces,
        cars={ben: (5, 3)},
        mobsters={(5, 3): "gray"},
        tokens=[],
    )
    state = replace(with_lines(state), hq_holding=hq_holding)
    assert (24 in state.lines) == line_24_crossed
    if GRAY not in hq_holding:
        state = player(state, ana, holding_tokens=(GRAY,))
    state = events_on_top(state, "E2")
    state = turn_of(state, ben)
    assert state.turn is not None and state.turn.night
    assert state.bag == (5, 5, 4)

    state, _ = act(state, c.HoldMobster(ben), REPRIEVE)
    assert state.players[ben].holding is GRAY
    assert state.players[ben].arrests == ()
    assert mobster(state, (5, 3)) is None
    assert state.bag == (5, 5, 4)  # neither in the city nor in the bag
    assert space(state, ben) == 23
    assert state.turn is not None and state.turn.seat == ben and state.turn.night
    return state


def test_ex08_bring_in_for_holding_across_day_and_night() -> None:
    ben = 1
    state = _ex08_first_turn()
    assert c.BookMobster(ben) not in legal_actions(state, ben)  # the car is not at HQ
    state, _ = act(state, c.Drive(ben, ((4, 3), (3, 3))))
    assert state.turn is not None and state.turn.drive_hours == 2
    assert c.BookMobster(ben) in legal_actions(state, ben)

    state, events = act(state, c.BookMobster(ben), [0, *REPRIEVE])  # 0: E2's token block
    assert state.players[ben].holding is None
    assert state.bag == (5, 5, 5)
    assert state.players[ben].holding_tokens == (GRAY,)
    assert GRAY not in state.hq_holding
    assert state.players[ben].badge == 1
    assert state.players[ben].force == ()
    assert space(state, ben) == 27
    # Ben is the first to cross the line after 24: he draws an event.
    assert of_type(events, TrackerAdvanced) == [TrackerAdvanced(ben, 27, (24,))]
    assert of_type(events, EventPlaced) == [EventPlaced("E2", 1, None)]


def test_ex08_variant_line_after_24_already_crossed() -> None:
    ben = 1
    state = _ex08_first_turn(line_24_crossed=True)
    state, _ = act(state, c.Drive(ben, ((4, 3), (3, 3))))
    state, events = act(state, c.BookMobster(ben), REPRIEVE)
    assert state.players[ben].holding_tokens == (GRAY,)
    assert state.players[ben].badge == 1
    assert space(state, ben) == 27
    assert of_type(events, TrackerAdvanced) == [TrackerAdvanced(ben, 27, ())]
    assert not of_type(events, EventPlaced)  # not the first to cross: no event


def test_ex08_variant_step_one_from_23_waits_for_a_night_turn() -> None:
    ana, ben = 0, 1
    state = given(
        players=2,
        spaces={ben: 23, ana: 40},
        cars={ben: (5, 3)},
        mobsters={(5, 3): "gray"},
        tokens=[],
    )
    state = turn_of(with_lines(state), ben)
    state, _ = act(state, c.HoldMobster(ben), REPRIEVE)
    assert space(state, ben) == 25 and state.players[ben].holding is GRAY

    # Turn beginning on 25 (day): drive to HQ, but step 2 is illegal.
    assert state.turn is not None and state.turn.seat == ben and not state.turn.night
    state, _ = act(state, c.Drive(ben, ((4, 3), (3, 3))))
    assert c.BookMobster(ben) not in legal_actions(state, ben)
    assert code_of(state, c.BookMobster(ben)) == "rules/wrong_time_of_day"
    state, _ = act(state, c.CoffeeBreak(ben), REPRIEVE)

    # Every turn beginning on 28..36 is a day turn: still illegal.
    while space(state, ben) < 37:
        assert state.turn is not None and state.turn.seat == ben and not state.turn.night
        assert c.BookMobster(ben) not in legal_actions(state, ben)
        assert code_of(state, c.BookMobster(ben)) == "rules/wrong_time_of_day"
        state, _ = act(state, c.CoffeeBreak(ben), REPRIEVE)

    # A turn beginning on 37 (night): step 2 is legal.
    assert state.turn is not None and state.turn.seat == ben and state.turn.night
    assert state.turn.start == 37
    assert c.BookMobster(ben) in legal_actions(state, ben)
    state, _ = act(state, c.BookMobster(ben), REPRIEVE)
    assert state.players[ben].holding_tokens == (GRAY,)
    assert state.players[ben].badge == 1
    assert state.bag == (5, 5, 5)
    assert space(state, ben) == 39


def test_ex08_variant_holding_token_already_taken_gives_force() -> None:
    ben = 1
    state = _ex08_first_turn(hq_holding=(RED, BLUE))
    top = state.force_deck[0]
    state, _ = act(state, c.Drive(ben, ((4, 3), (3, 3))))
    state, events = act(state, c.BookMobster(ben))
    assert of_type(events, ForceGained) == [ForceGained(ben, top, True)]
    assert state.players[ben].force == (top,)
    assert state.players[ben].badge == 0  # no badge
    assert state.players[ben].holding_tokens == ()
    assert state.hq_holding == (RED, BLUE)
    assert state.players[ben].holding is None
    assert state.bag == (5, 5, 5)
    # Ben now holds a Force card: W3, then Step 3 (the line after 24), then W4.
    state, events = proceed(state, ben, [0])
    assert of_type(events, EventPlaced) == [EventPlaced("E2", 1, None)]
    state, _ = proceed(state, ben, REPRIEVE)
    assert space(state, ben) == 27


# --- 9: tracker at 47 ----------------------------------------------------------------------------


def _ex09_scene() -> State:
    """Dan on 47 (night); the others rested earlier on 44, 45 and 46 (each alone)."""
    state = given(
        spaces={ANA: 44, BEN: 45, CARA: 46, DAN: 47},
        cars={DAN: (2, 4)},
        mobsters={(2, 4): "red"},
        tokens=[((2, 4), "stakeout", 2)],
    )
    for seat in (ANA, BEN, CARA):
        state = player(state, seat, ended=True)
    state = turn_of(with_lines(state), DAN)
    assert state.turn is not None and state.turn.night
    assert 2 in state.witnesses and state.players[DAN].holding is None
    return state


def test_ex09_tracker_at_47() -> None:
    state = _ex09_scene()
    assert set(legal_actions(state, DAN)) == {
        c.CoffeeBreak(DAN),
        c.Arrest(DAN),
        c.Stakeout(DAN, 1),
    }
    for block in ((1, 4), (3, 4), (2, 3), (2, 5)):
        assert code_of(state, c.Drive(DAN, (block,))) == "rules/over_hour_cap"
    assert code_of(state, c.CatchWitness(DAN)) == "rules/over_hour_cap"
    assert code_of(state, c.HoldMobster(DAN)) == "rules/over_hour_cap"
    for risk in (2, 3, 4, 5):
        assert code_of(state, c.Stakeout(DAN, risk)) == "rules/over_hour_cap"


@pytest.mark.parametrize(
    "command", [c.CoffeeBreak(DAN), c.Arrest(DAN), c.Stakeout(DAN, 1)], ids=repr
)
def test_ex09_tracker_at_47_any_legal_action_ends_the_game(command: c.Command) -> None:
    state = _ex09_scene()
    state, events = act(state, command, REPRIEVE)
    assert space(state, DAN) == 48
    assert state.players[DAN].ended
    # He has ended at the end of the turn, after Step 4.
    assert PlayerEnded(DAN, rested=False) in events
    assert kinds(events).index("MobsterRolled") < kinds(events).index("PlayerEnded")
    assert state.status is Status.ACCUSING


# --- 10: stack order -----------------------------------------------------------------------------


def test_ex10_stack_order() -> None:
    ana, ben, cara = 0, 1, 2
    state = given(players=3, spaces={ana: 10, ben: 12, cara: 15}, tokens=[])
    state = turn_of(with_lines(state), ana)  # Ana is lowest

    state, _ = act(state, c.Drive(ana, ((3, 2),)))
    state, events = act(state, c.CoffeeBreak(ana), REPRIEVE)  # 1 h + 1 h
    assert space(state, ana) == 12
    assert stack(state, 12) == [ben, ana]
    assert turns_begun(events) == [ana]  # Ana again: she is on top
    assert state.turn is not None and state.turn.seat == ana

    state, events = act(state, c.CoffeeBreak(ana), REPRIEVE)
    assert space(state, ana) == 13
    assert turns_begun(events) == [ben]
    assert state.turn is not None and state.turn.seat == ben


# --- 11: Crime Spree -----------------------------------------------------------------------------


def test_ex11_crime_spree_chain() -> None:
    state = given(
        spaces={ANA: 3, BEN: 5, CARA: 6, DAN: 7},
        mobsters={(4, 4): "blue"},
        tokens=[],
    )
    state = with_event(state, 1, "E2", tokens=[(5, 5)])
    state = events_on_top(with_lines(state), "E3")
    state = turn_of(state, ANA)
    assert mobster(state, (2, 2)) is None
    bag = state.bag

    draws = [
        die(2),
        die(2),
        0,  # 2/2: a bag mobster (the first in the bag: red) on (2,2)
        die(4),
        die(4),
        0,  # 4/4: (4,4) is occupied: an event (E3; its token on (1,1))
        die(6),
        die(6),  # 6/6: Reprieve, no Crime Spree
    ]
    state, events = act(state, c.CoffeeBreak(ANA), draws)
    assert of_type(events, MobsterRolled) == [
        MobsterRolled(2, 2),
        MobsterRolled(4, 4),
        MobsterRolled(6, 6),
    ]
    assert of_type(events, MobsterPlaced) == [MobsterPlaced((2, 2), RED)]
    assert mobster(state, (2, 2)) is RED and mobster(state, (4, 4)) is BLUE
    assert state.bag == (bag[0] - 1, bag[1], bag[2])
    assert of_type(events, EventPlaced) == [EventPlaced("E3", 2, None)]
    assert of_type(events, EventTokenPlaced) == [EventTokenPlaced(2, (1, 1))]
    assert state.slots[1] is not None and state.slots[1].card == "E3"
    assert state.slots[2] is None
    # Step 4 ends after the Reprieve: the turn ends and the next one begins.
    steps = [k for k in kinds(events) if k in ("MobsterRolled", "MobsterPlaced", "EventPlaced")]
    assert steps == [
        "MobsterRolled",
        "MobsterPlaced",
        "MobsterRolled",
        "EventPlaced",
        "MobsterRolled",
    ]
    assert state.turn is not None and state.turn.seat == ANA and space(state, ANA) == 4


# --- 12: penalty with an empty Suspect deck ------------------------------------------------------


def test_ex12_penalty_with_an_empty_suspect_deck() -> None:
    state = given(
        spaces={CARA: 30, BEN: 31, ANA: 32, DAN: 47},
        mobsters={(1, 5): "red"},
        tokens=[],
    )
    state = with_event(state, 1, "E2", tokens=[(5, 5)])
    state = with_event(state, 2, "E3", tokens=[(5, 4)])
    state = with_event(state, 3, "E4", tokens=[(5, 3)])
    state = replace(state, suspect_deck=(), suspects_out=state.suspect_deck)
    # Nobody has crossed the line after 32 yet (the example says so).
    state = with_lines(state, [8, 16, 24])
    state = turn_of(state, CARA)

    # Cara advances onto 31, on top of Ben; her Mobster Roll is black 1, white 5.
    before = state
    state, events = act(state, c.CoffeeBreak(CARA), [die(1), die(5)])
    assert of_type(events, TrackerAdvanced) == [TrackerAdvanced(CARA, 31, ())]
    assert of_type(events, MobsterRolled) == [MobsterRolled(1, 5)]
    assert of_type(events, TrackersPushed) == [TrackersPushed()]
    assert not of_type(events, EventPlaced)
    assert space(state, BEN) == 32 and space(state, CARA) == 32
    assert stack(state, 32) == [BEN, CARA]
    assert space(state, ANA) == 33
    assert state.lines == frozenset({8, 16, 24})  # the penalty move drew no event, used no line
    assert space(state, DAN) == 48
    assert state.players[DAN].ended
    assert kinds(events).index("TrackersPushed") < kinds(events).index("PlayerEnded")
    # Nothing else changes.
    assert state.slots == before.slots
    assert state.event_deck == before.event_deck
    assert state.mobsters == before.mobsters and state.bag == before.bag
    assert state.suspect_deck == () and state.suspects_out == before.suspects_out
    for seat in (ANA, BEN, CARA, DAN):
        assert state.players[seat].suspects == before.players[seat].suspects
        assert state.players[seat].badge == before.players[seat].badge
        assert state.players[seat].force == ()
    assert [p.ended for p in state.players] == [False, False, False, True]


# --- 13: two Event Lines in one advance ----------------------------------------------------------


def test_ex13_two_event_lines_in_one_advance() -> None:
    # No line has been crossed, so the other officer is on 8: a two-player game.
    ana, ben = 0, 1
    state = given(
        players=2,
        spaces={ana: 7, ben: 8},
        cars={ana: (3, 3)},
        mobsters={(1, 1): "red"},
        tokens=[],
    )
    state = with_event(state, 1, "E3", tokens=[(5, 5)])
    state = with_event(state, 2, "E4", tokens=[(5, 4)])
    state = events_on_top(with_lines(state, []), "E2")
    state = turn_of(state, ana)
    assert state.turn is not None and not state.turn.night
    suspects = state.suspect_deck

    state, _ = act(state, c.Drive(ana, ((2, 3), (1, 3), (1, 2), (1, 1))))
    assert state.turn is not None and state.turn.drive_hours == 4
    state, events = act(state, c.CallForBackup(ana, 6), [die(6)])  # risk 6 always succeeds
    assert of_type(events, BackupCalled) == [BackupCalled(ana, 6, (6,), True)]
    # Ana gained a Force card, so W3 opens before the advance.
    state, events = proceed(state, ana, [0])  # 0: the token block of the new event
    assert of_type(events, TrackerAdvanced) == [TrackerAdvanced(ana, 17, (8, 16))]
    # The line after 8: an event into slot 3.  The line after 16: a 4th event -> the penalty.
    assert of_type(events, EventPlaced) == [EventPlaced("E2", 3, None)]
    assert of_type(events, SuspectRemoved) == [SuspectRemoved(suspects[0])]
    assert state.suspect_deck == suspects[1:]
    assert state.suspects_out == (suspects[0],)
    assert [a.card if a else None for a in state.slots] == ["E3", "E4", "E2"]
    assert state.lines == frozenset({8, 16})
    assert space(state, ana) == 17
    state, _ = proceed(state, ana, REPRIEVE)
    assert state.turn is not None and state.turn.seat == ben


# --- 14: limited reward --------------------------------------------------------------------------


def test_ex14_limited_reward() -> None:
    state = given(
        spaces={BEN: 20, ANA: 22, CARA: 23, DAN: 25},
        cars={BEN: (4, 4)},
        tokens=[],
    )
    state = with_event(
        state,
        1,
        "E12",
        tokens=[(4, 4)],
        removed_by=[ANA, DAN],
        card_mobsters=["red", "blue", "gray"],
    )
    state = force_on_top(state, "tip_line", "checkpoint")
    state = turn_of(with_lines(state), BEN)
    assert state.turn is not None and state.turn.night
    assert state.bag == (4, 4, 4)

    state, events = act(state, c.ResolveEvent(BEN, 1))
    assert of_type(events, EventResolved) == [EventResolved(1, BEN, (ANA, DAN))]
    assert of_type(events, PoolRevealed) == [PoolRevealed(("tip_line", "checkpoint"))]
    # Time Track order: Ben (20) chooses first.
    assert state.pending == (ChoosePoolCard(BEN),)
    assert set(legal_actions(state, BEN)) == {
        c.TakeFromPool(BEN, "tip_line"),
        c.TakeFromPool(BEN, "checkpoint"),
    }
    state, events = act(state, c.TakeFromPool(BEN, "checkpoint"))
    assert of_type(events, PoolCardTaken) == [
        PoolCardTaken(BEN, "checkpoint", True),
        PoolCardTaken(ANA, "tip_line", True),
    ]
    assert state.players[BEN].force == ("checkpoint",)
    assert state.players[ANA].force == ("tip_line",)  # Ana (22) takes the other
    assert state.players[DAN].force == ()  # Dan (25) gets nothing
    assert state.players[CARA].force == ()  # not a contributor
    assert state.pool == ()
    assert state.slots[0] is None and "E12" in state.event_discard
    assert state.bag == (5, 5, 5)  # the card's 3 mobsters
    # Ben holds a Force card now: W3 and W4 open.
    state, _ = proceed(state, BEN)
    state, _ = proceed(state, BEN, REPRIEVE)
    assert space(state, BEN) == 21


# --- 15-16: Timed events -------------------------------------------------------------------------


def test_ex15_timed_event_replaced() -> None:
    state = given(
        spaces={CARA: 30, ANA: 31, BEN: 33, DAN: 39},
        mobsters={(2, 1): "red"},
        tokens=[],
    )
    state = events_on_top(with_lines(state), "E8", "E3")
    state = turn_of(state, CARA)
    bag, deck = state.bag, state.event_deck

    state, events = act(state, c.CoffeeBreak(CARA), [die(2), die(1), 0])  # roll 2/1: occupied
    assert of_type(events, EventReplaced) == [EventReplaced("E8")]
    assert of_type(events, EventPlaced) == [EventPlaced("E3", 1, None)]
    assert of_type(events, EventTokenPlaced) == [EventTokenPlaced(1, (1, 1))]
    assert state.event_discard == ("E8",)
    assert [a.card if a else None for a in state.slots] == ["E3", None, None]
    assert state.bag == bag  # E8's setup never happened
    assert state.event_deck == deck[2:]


def test_ex16_timed_event_expires() -> None:
    ana, ben, cara = 0, 1, 2
    # How the deadline arises: Ben advances to 22 and his Mobster Roll draws E9 (D 10).
    earlier = given(players=3, spaces={ben: 20, ana: 21, cara: 23}, mobsters={(1, 2): "red"})
    earlier = events_on_top(with_lines(earlier), "E9")
    earlier = turn_of(earlier, ben)
    earlier, _ = act(earlier, c.Drive(ben, ((3, 2),)))
    earlier, events = act(earlier, c.CoffeeBreak(ben), [die(1), die(2), 0, 0, 0])
    assert space(earlier, ben) == 22
    assert of_type(events, EventPlaced) == [EventPlaced("E9", 1, 32)]

    # The example: Ana on 31, Ben on 34, Cara on 33; E9's deadline is 32.
    state = given(
        players=3,
        spaces={ana: 31, ben: 34, cara: 33},
        force={ben: ["tip_line", "checkpoint"], cara: ["telephoto"]},
        tokens=[],
    )
    state = with_event(state, 1, "E9", tokens=[(1, 1), (5, 5), (1, 5)], deadline=32)
    state = turn_of(with_lines(state), ana)
    badges = [p.badge for p in state.players]

    state, _ = act(state, c.Drive(ana, ((3, 2),)))
    state, events = act(state, c.CoffeeBreak(ana), REPRIEVE)
    assert space(state, ana) == 33
    assert of_type(events, EventExpired) == [EventExpired(1)]
    assert kinds(events).index("MobsterRolled") < kinds(events).index("EventExpired")
    # Each player discards 1 Force card if they have one (Ana has none).
    choices = {cara: "telephoto", ben: "checkpoint"}
    while any(isinstance(d, ChooseDiscard) for d in state.pending):
        (d,) = state.pending
        assert isinstance(d, ChooseDiscard) and d.reason == "expiry"
        state, events = act(state, c.DiscardForce(d.seat, choices.pop(d.seat)))
    assert choices == {}
    assert state.players[ana].force == ()
    assert state.players[ben].force == ("tip_line",)
    assert state.players[cara].force == ()
    assert state.slots == (None, None, None)
    assert event_token_blocks(state) == set()
    assert "E9" in state.event_discard
    assert of_type(events, EventDiscarded) == [EventDiscarded(1)]
    assert [p.badge for p in state.players] == badges  # no rewards
    assert state.turn is not None and state.turn.seat == ana


# --- 17: time of day -----------------------------------------------------------------------------


def _ex17_scene(others: tuple[int, int, int]) -> State:
    state = given(
        spaces={CARA: 12, ANA: others[0], BEN: others[1], DAN: others[2]},
        cars={CARA: (1, 2)},
        tokens=[((4, 2), "search", 1)],
    )
    state = events_on_top(with_lines(state), "E2")
    state = turn_of(state, CARA)
    assert state.turn is not None and not state.turn.night
    state, _ = act(state, c.Drive(CARA, ((2, 2), (3, 2), (4, 2))))  # 3 blocks, 3 h
    assert state.turn is not None and not state.turn.night and state.turn.drive_hours == 3
    assert c.SearchScene(CARA) in legal_actions(state, CARA)
    return state


def test_ex17_time_of_day_is_fixed_at_the_start() -> None:
    # Nobody has crossed the line after 16 yet: the others are on 13, 14 and 15.
    state = _ex17_scene((13, 14, 15))
    assert 16 not in state.lines
    state, events = act(state, c.SearchScene(CARA), [0, *REPRIEVE])  # 0: E2's token block
    assert token(state, (4, 2)).holder == CARA
    assert state.players[CARA].badge == 1
    assert space(state, CARA) == 17
    assert of_type(events, TrackerAdvanced) == [TrackerAdvanced(CARA, 17, (16,))]
    assert of_type(events, EventPlaced) == [EventPlaced("E2", 1, None)]


def test_ex17_variant_line_after_16_already_crossed() -> None:
    state = _ex17_scene((18, 20, 22))
    assert 16 in state.lines
    state, events = act(state, c.SearchScene(CARA), REPRIEVE)
    assert space(state, CARA) == 17
    assert of_type(events, TrackerAdvanced) == [TrackerAdvanced(CARA, 17, ())]
    assert not of_type(events, EventPlaced)
    assert state.slots == (None, None, None)


# --- 18: accusation tie-break --------------------------------------------------------------------


def _ex18_result(
    spaces: dict[int, int], evidence: dict[int, int], names: dict[int, str]
) -> tuple[State, tuple[int, ...]]:
    """Ana, Ben and Cara have ended; Dan ends from 47; then everyone accuses."""
    state = given(spaces={**spaces, DAN: 47}, tokens=[])
    state = with_murderer(state, "S12")
    badges = {ANA: 6, BEN: 6, CARA: 4}
    for seat in (ANA, BEN, CARA):
        state = player(state, seat, ended=True, badge=badges[seat])
    kinds_left = list(Evidence)
    solved = tuple((kinds_left.pop(0), seat) for seat, n in evidence.items() for _ in range(n))
    state = replace(with_lines(state), solved=solved)
    state = turn_of(state, DAN)
    state, _ = act(state, c.CoffeeBreak(DAN), REPRIEVE)
    assert state.status is Status.ACCUSING
    assert set(state.pending) == {ChooseAccusation(s) for s in (ANA, BEN, CARA, DAN)}
    events: list[Event] = []
    for seat in (DAN, CARA, BEN, ANA):  # any order
        state, events = act(state, c.Accuse(seat, names[seat]))
    assert state.status is Status.OVER
    assert [e for e in events if isinstance(e, GameEnded)] == [GameEnded(state.winners)]
    assert view_of(state, ANA)["result"]["winners"] == list(state.winners)
    return state, state.winners


NAMES = {ANA: "S12", BEN: "S12", CARA: "S12", DAN: "S05"}


def test_ex18_accusation_tie_break() -> None:
    # Cara (badge 4) drops out on badge even though her tracker is lowest; Ben (44) beats Ana
    # (45) on the lower tracker, before Evidence tokens are compared.
    state, winners = _ex18_result({ANA: 45, BEN: 44, CARA: 43}, {ANA: 2, BEN: 1}, NAMES)
    assert winners == (BEN,)
    assert view_of(state, ANA)["result"]["decided_by"] == "tracker"  # why Ben won (issue 25)


def test_ex18_variant_same_tracker_evidence_tokens_decide() -> None:
    state, winners = _ex18_result({ANA: 45, BEN: 45, CARA: 43}, {ANA: 2, BEN: 1}, NAMES)
    assert winners == (ANA,)
    assert view_of(state, ANA)["result"]["decided_by"] == "evidence"


def test_ex18_variant_still_tied_share_the_win() -> None:
    state, winners = _ex18_result({ANA: 45, BEN: 45, CARA: 43}, {ANA: 1, BEN: 1}, NAMES)
    assert set(winners) == {ANA, BEN}
    assert view_of(state, ANA)["result"]["decided_by"] == "tie"


def test_ex18_variant_nobody_named_the_murderer() -> None:
    names = {ANA: "S01", BEN: "S02", CARA: "S03", DAN: "S05"}
    state, winners = _ex18_result({ANA: 45, BEN: 44, CARA: 43}, {ANA: 2, BEN: 1}, names)
    assert winners == ()
    assert view_of(state, ANA)["result"]["murderer"] == "S12"
    assert view_of(state, ANA)["result"]["decided_by"] == "nobody"


def test_ex18_variants_a_badge_or_one_accuser_decides() -> None:
    names = {ANA: "S12", BEN: "S12", CARA: "S01", DAN: "S05"}
    state, winners = _ex18_result({ANA: 45, BEN: 44, CARA: 43}, {}, names)
    assert winners == (BEN,) and view_of(state, BEN)["result"]["decided_by"] == "tracker"
    names = {ANA: "S01", BEN: "S02", CARA: "S12", DAN: "S05"}
    state, winners = _ex18_result({ANA: 45, BEN: 44, CARA: 43}, {}, names)
    assert winners == (CARA,) and view_of(state, CARA)["result"]["decided_by"] == "accusation"
    names = {ANA: "S12", BEN: "S01", CARA: "S12", DAN: "S05"}
    state, winners = _ex18_result({ANA: 45, BEN: 44, CARA: 43}, {}, names)
    assert winners == (ANA,) and view_of(state, ANA)["result"]["decided_by"] == "badge"
