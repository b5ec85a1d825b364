"""The cooperative game (rules.md §14): one test per bullet of §14, named after it, and the
refusals of role-limited actions.  Property tests over whole co-op games are in
test_properties.py and test_log_properties.py (``mode`` in ``game_params``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest

from echoridge_rules import SPECTATOR, Rng, RuleViolation, Seat, State, decide, legal_actions, view
from echoridge_rules import commands as c
from echoridge_rules.context import Ctx
from echoridge_rules.coopdata import ROLES
from echoridge_rules.data import SUSPECTS, Color, Evidence
from echoridge_rules.decisions import ChooseAccusation, ChooseDiscard, ChooseRest
from echoridge_rules.engine import run
from echoridge_rules.events import (
    Event,
    GameEnded,
    MarkerMoved,
    MobsterApprehended,
    MobsterArrested,
    MobsterRolled,
    PlayerEnded,
    SuspectDrawn,
    SuspectGainLost,
    SuspectRemoved,
    TrackersPushed,
)
from echoridge_rules.flow import next_turn
from echoridge_rules.log import entries_for, told
from echoridge_rules.model import Status
from echoridge_rules.proofs import token_label
from tests.rules.helpers import (
    SEED,
    die,
    given,
    of_type,
    player,
    started,
    turn_of,
    when,
    with_event,
)

COOP = "cooperative"
DETECTIVE, PATROL = 0, 1  # seats of the two-player games below
TWO = ("detective", "patrol_cop")
FOUR = ("detective", "patrol_cop", "analyst", "forensic_tech")
PLAIN = ["wheelman"] * 4  # an ability that changes none of these tests


def coop(players: int = 2, roles: Sequence[str] = TWO, **scene: Any) -> State:
    """A started co-op game with an empty city and this scene (see ``helpers.given``)."""
    scene.setdefault("abilities", PLAIN[:players])
    return given(players, mode=COOP, roles=roles, **scene)


def code_of(state: State, command: c.Command) -> str:
    with pytest.raises(RuleViolation) as info:
        decide(state, command, Rng(SEED, "test"))
    return info.value.code


def coffee(state: State, seat: int, roll: tuple[int, int] = (6, 6)) -> tuple[State, list[Event]]:
    """A Coffee Break with this Mobster Roll (6-6: a Reprieve, no Crime Spree)."""
    return when(state, c.CoffeeBreak(seat), [die(roll[0]), die(roll[1])])


def full_slots(state: State) -> State:
    for slot, card, block in ((1, "E2", (5, 5)), (2, "E3", (5, 4)), (3, "E4", (5, 3))):
        state = with_event(state, slot, card, tokens=[block])
    return state


def begin_accusation(state: State) -> State:
    for p in state.players:
        state = player(state, p.seat, ended=True)
    ctx = Ctx(state, Rng(SEED, "test"))
    next_turn(ctx)
    run(ctx)
    assert all(isinstance(d, ChooseAccusation) for d in ctx.state.pending)
    return ctx.state


# --- Roles ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "roles"),
    [(2, {"detective", "patrol_cop"}), (3, {"detective", "patrol_cop", "analyst"}),
     (4, set(FOUR))],
)
def test_roles(players: int, roles: set[str]) -> None:
    """2 players: Detective and Patrol Cop; 3: add the Analyst; 4: add the Forensic Tech.
    Drawn at setup (R14) unless given; the lead is the Detective; roles are public."""
    drawn = [tuple(p.role for p in started(players, bytes([g]) * 32, COOP).players)
             for g in range(12)]
    assert all(set(r) == roles for r in drawn)
    assert len(set(drawn)) > 1  # R14: the seats' roles are drawn
    given_roles = sorted(roles)
    state = started(players, mode=COOP, roles=given_roles)
    assert [p.role for p in state.players] == given_roles
    assert state.lead == given_roles.index("detective")
    spectator = view(state, SPECTATOR)
    assert [p["role"] for p in spectator["players"]] == given_roles
    assert spectator["mode"] == COOP and spectator["coop"]["lead"] == state.lead
    # a competitive game has no roles
    assert all(p.role == "" for p in started(players).players)
    assert all(p["role"] is None for p in view(started(players), SPECTATOR)["players"])


def test_roles_and_modes_that_do_not_fit_are_refused() -> None:
    assert code_of(State(), c.StartGame(1, mode=COOP)) == "rules/bad_mode"
    assert code_of(State(), c.StartGame(2, mode="coop")) == "rules/bad_mode"
    assert code_of(State(), c.StartGame(2, mode=COOP, roles=("analyst", "detective"))) == (
        "rules/bad_roles"
    )
    assert code_of(State(), c.StartGame(2, mode=COOP, roles=("detective",))) == "rules/bad_roles"
    assert code_of(State(), c.StartGame(2, roles=TWO)) == "rules/bad_roles"


# --- Allowed actions -----------------------------------------------------------------------------

CLUE_COMMANDS: dict[str, Any] = {
    "catch_informant": lambda s: c.CatchInformant(s),
    "catch_witness": lambda s: c.CatchWitness(s),
    "search_scene": lambda s: c.SearchScene(s),
    "stakeout": lambda s: c.Stakeout(s, 5),
    "bring_in_1": lambda s: c.HoldMobster(s),
    "bring_in_2": lambda s: c.BookMobster(s),
}
# §14, written out here so the test does not read data.py.
MAY = {
    "patrol_cop": {"catch_informant", "stakeout", "bring_in_1", "bring_in_2"},
    "detective": {"catch_witness", "search_scene"},
    "analyst": {"search_scene", "stakeout"},
    "forensic_tech": {"catch_informant", "catch_witness", "bring_in_1", "bring_in_2"},
}


def _scene_for(action: str, role_seat: int) -> State:
    """A four-player co-op turn of ``role_seat`` where ``action`` meets its requirement."""
    block = (3, 3) if action == "bring_in_2" else (2, 2)
    kind = {"search_scene": "search", "stakeout": "stakeout"}.get(action)
    state = coop(
        4, FOUR,
        spaces={s: (10 if s == role_seat else 20) for s in range(4)},
        cars={role_seat: block},
        mobsters={} if kind or action == "bring_in_2" else {block: "red"},
        tokens=[(block, kind, 1)] if kind else [],
    )
    if action == "bring_in_2":
        state = player(state, role_seat, holding=Color.GRAY, held_on_turn=0)
        state = replace(state, bag=(state.bag[0], state.bag[1], state.bag[2] - 1))
    return turn_of(state, role_seat)


@pytest.mark.parametrize("role", FOUR)
def test_allowed_actions(role: str) -> None:
    """Every role may Drive, Arrest, Call for Backup, Coffee Break, Resolve Event and Rest Your
    Case; the clue actions are limited by role."""
    seat = FOUR.index(role)
    for action, make in CLUE_COMMANDS.items():
        state = _scene_for(action, seat)
        cmd = make(seat)
        legal = legal_actions(state, seat)
        if action in MAY[role]:
            assert cmd in legal, (role, action)
            when(state, cmd)  # accepted
        else:
            assert code_of(state, cmd) == "rules/role_lacks_action", (role, action)
            assert not any(isinstance(x, type(cmd)) for x in legal), (role, action)
    # the actions every role has
    state = coop(4, FOUR, spaces={s: (10 if s == seat else 20) for s in range(4)},
                 cars={seat: (2, 2)}, mobsters={(2, 2): "red"}, tokens=[])
    state = with_event(state, 1, "E1", tokens=[(4, 4), (2, 2)])
    state = turn_of(state, seat)
    for cmd in (c.Arrest(seat), c.CoffeeBreak(seat), c.CallForBackup(seat, 3),
                c.Drive(seat, ((2, 3),)), c.ResolveEvent(seat, 1)):
        assert cmd in legal_actions(state, seat) or isinstance(cmd, c.Drive), cmd
        when(state, cmd)  # accepted


def test_role_data_matches_the_rules() -> None:
    assert {r: {a.value for a in spec.actions} for r, spec in ROLES.items()} == MAY


# --- Mobsters ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "removed"), [(2, (0, 0, 1)), (3, (1, 1, 1)), (4, (2, 2, 2))])
def test_mobsters(players: int, removed: tuple[int, int, int]) -> None:
    """Before the setup draws: 1 gray out with 2 players, 1 of each color with 3, 2 of each
    with 4; one removed gray is the Out-of-Time Marker, on space 49."""
    state = started(players, mode=COOP)
    assert state.removed == removed and state.marker == 49
    in_city = sum(1 for m in state.mobsters if m is not None)
    assert in_city == 3 and sum(state.bag) + in_city == 15 - sum(removed)
    for i, color in enumerate(Color):
        on_blocks = sum(1 for m in state.mobsters if m is color)
        assert state.bag[i] + on_blocks == 5 - removed[i]
    v = view(state, SPECTATOR)
    assert v["coop"]["marker"] == 49 and v["coop"]["cap"] == 48
    assert v["coop"]["removed"] == dict(zip(("red", "blue", "gray"), removed, strict=True))
    assert view(started(players), SPECTATOR)["coop"] is None


# --- No day/night restrictions -------------------------------------------------------------------


def test_no_day_night_restrictions() -> None:
    """Any effect that mentions day or night does nothing; a resolve limited to day or night
    loses only that limit."""
    # A day turn: the Detective catches a Witness, the Patrol Cop brings in for Holding.
    day = coop(spaces={DETECTIVE: 2, PATROL: 5}, cars={DETECTIVE: (2, 2), PATROL: (4, 4)},
               mobsters={(2, 2): "red", (4, 4): "blue"}, tokens=[])
    state = turn_of(day, DETECTIVE)
    assert not state.turn.night
    after, _ = when(state, c.CatchWitness(DETECTIVE))
    assert after.players[DETECTIVE].witnesses == (2,)
    state = turn_of(coop(spaces={DETECTIVE: 9, PATROL: 5}, cars={PATROL: (4, 4)},
                         mobsters={(4, 4): "blue"}, tokens=[]), PATROL)
    after, _ = when(state, c.HoldMobster(PATROL))
    assert after.players[PATROL].holding is Color.BLUE
    # A night turn: Call for Backup and Search Scene.
    night = coop(spaces={DETECTIVE: 14, PATROL: 20}, cars={DETECTIVE: (2, 2)},
                 mobsters={(2, 2): "red"}, tokens=[((2, 2), "search", 1)])
    state = turn_of(night, DETECTIVE)
    assert state.turn.night
    when(state, c.CallForBackup(DETECTIVE, 2))
    when(state, c.SearchScene(DETECTIVE))
    # E12's resolve is night only; in co-op it is resolved on a day turn too.
    state = coop(spaces={DETECTIVE: 2, PATROL: 5}, cars={DETECTIVE: (2, 2)}, tokens=[])
    state = turn_of(with_event(state, 1, "E12", tokens=[(2, 2), (4, 4), (1, 5)]), DETECTIVE)
    after, _ = when(state, c.ResolveEvent(DETECTIVE, 1))
    assert after.slots[0] is not None and after.slots[0].tokens == ((4, 4), (1, 5))
    # There is nothing for Night Shift to lift.
    assert code_of(state, c.CatchInformant(DETECTIVE, night_shift=True)) in (
        "rules/night_shift_unavailable",
    )
    # ...and in a competitive game the same E12 resolve is refused by day.
    comp = given(2, abilities=PLAIN[:2], spaces={0: 2, 1: 5}, cars={0: (2, 2)}, tokens=[])
    comp = turn_of(with_event(comp, 1, "E12", tokens=[(2, 2), (4, 4), (1, 5)]), 0)
    assert code_of(comp, c.ResolveEvent(0, 1)) == "rules/wrong_time_of_day"


# --- No arrest spots -----------------------------------------------------------------------------


def test_no_arrest_spots() -> None:
    """Arrested mobsters go straight back to the bag, so there are no arrest sets."""
    state = coop(spaces={DETECTIVE: 2, PATROL: 5}, cars={DETECTIVE: (2, 2)},
                 mobsters={(2, 2): "red"}, tokens=[])
    state = turn_of(state, DETECTIVE)
    bag = state.bag
    after, events = when(state, c.Arrest(DETECTIVE))
    assert of_type(events, MobsterApprehended) == [MobsterApprehended(DETECTIVE, (2, 2), Color.RED)]
    assert not of_type(events, MobsterArrested)
    assert after.players[DETECTIVE].arrests == () and after.bag == (bag[0] + 1, bag[1], bag[2])
    assert view(after, SPECTATOR)["players"][DETECTIVE]["arrests"] == []


# --- Sharing -------------------------------------------------------------------------------------


def test_sharing() -> None:
    """All Suspect gains are draws, face up and shown to everyone (an empty deck loses the
    gain); solved evidence is shown to everyone; what a player learns privately (peeks, failed
    Stakeout values) is shown to the team."""
    # A Suspect gain with other hands to look at is still a draw, face up.
    state = coop(spaces={DETECTIVE: 2, PATROL: 5}, cars={DETECTIVE: (2, 2)}, tokens=[],
                 suspects={PATROL: ["S03"]})
    deck = (*(s for s in state.suspect_deck if s != "S05"), state.murderer)
    state = replace(state, suspect_deck=("S05", *deck[:-1]), murderer=deck[-1]) if (
        state.murderer != "S05") else state
    state = _give_shared(turn_of(state, DETECTIVE), "jailhouse_deal")
    after, events = when(state, c.PlayForce(DETECTIVE, "jailhouse_deal"))
    assert of_type(events, SuspectDrawn) == [SuspectDrawn(DETECTIVE, "S05")]
    assert not after.pending  # no choice of a look
    for who in (SPECTATOR, Seat(PATROL)):
        v = view(after, who)
        assert v["players"][DETECTIVE]["face_up"] == ["S05"]
        assert v["players"][PATROL]["face_up"] == ["S03"]
    drawn = [x for x in entries_for(told(after, None, events), SPECTATOR)
             if x["kind"] == "suspect_drawn"]
    assert drawn == [{"kind": "suspect_drawn", "seat": DETECTIVE, "card": "S05"}]
    assert any(p["value"] == "S05" and p["label"].startswith("deck/")
               for p in view(after, SPECTATOR)["proofs"])
    # An empty deck: the gain is lost (no look at the Patrol Cop's card).
    empty = replace(state, suspect_deck=())
    _, events = when(empty, c.PlayForce(DETECTIVE, "jailhouse_deal"))
    assert of_type(events, SuspectGainLost) == [SuspectGainLost(DETECTIVE)]

    # A failed Stakeout: the value is the team's, not the spectators'.
    state = coop(spaces={DETECTIVE: 20, PATROL: 14}, cars={PATROL: (2, 2)},
                 tokens=[((2, 2), "stakeout", 4), ((4, 4), "search", 1)])
    state = turn_of(state, PATROL)
    after, events = when(state, c.Stakeout(PATROL, 1))
    for seat in (DETECTIVE, PATROL):
        v = view(after, Seat(seat))
        block = next(b for b in v["city"]["blocks"] if b["block"] == [2, 2])
        assert block["clue"]["value"] == 4
        assert {"block": [2, 2], "kind": "stakeout", "value": 4} in v["you"]["known_tokens"]
        assert {"label": token_label((2, 2)), "value": "4"} in [
            {"label": p["label"], "value": p["value"]} for p in v["you"]["proofs"]
        ]
    spectator = view(after, SPECTATOR)
    assert next(b for b in spectator["city"]["blocks"] if b["block"] == [2, 2])["clue"][
        "value"] is None
    peeked = [t for t in told(after, None, events) if t.whole["kind"] == "token_peeked"]
    assert peeked and peeked[0].to == (DETECTIVE, PATROL)
    assert "value" not in entries_for(peeked, SPECTATOR)[0]
    assert entries_for(peeked, Seat(DETECTIVE))[0]["value"] == 4

    # Solved evidence: the trait is shown to everyone.
    state = coop(spaces={DETECTIVE: 2, PATROL: 5}, cars={DETECTIVE: (2, 2)},
                 tokens=[((2, 2), "search", 1)])
    state = replace(state, tokens=(*state.tokens, *_mat_searches(PATROL)))
    state = turn_of(state, DETECTIVE)
    after, events = when(state, c.SearchScene(DETECTIVE))
    trait = SUSPECTS[after.murderer].trait(Evidence.FORENSICS)
    for who in (SPECTATOR, Seat(PATROL), Seat(DETECTIVE)):
        v = view(after, who)
        forensics = next(e for e in v["evidence"] if e["evidence"] == "forensics")
        assert forensics["holder"] == DETECTIVE and forensics["trait"] == trait
    assert view(after, Seat(PATROL))["you"]["traits"] == {"forensics": trait}
    solved = [x for x in entries_for(told(after, None, events), SPECTATOR)
              if x["kind"] == "evidence_solved"]
    assert solved and solved[0]["trait"] == trait
    assert any(p["label"] == "trait/forensics" for p in view(after, SPECTATOR)["proofs"])


def _mat_searches(seat: int) -> list[Any]:
    from echoridge_rules.model import ClueKind, ClueToken, Place
    return [ClueToken((1, 1), ClueKind.SEARCH, 1, Place.MAT, seat),
            ClueToken((1, 2), ClueKind.SEARCH, 1, Place.MAT, seat)]


def _give_shared(state: State, *cards: str) -> State:
    deck = list(state.force_deck)
    for card in cards:
        deck.remove(card)
    return replace(state, team_force=(*state.team_force, *cards), force_deck=tuple(deck))


# --- Badge ---------------------------------------------------------------------------------------


def test_badge() -> None:
    """Reaching 2, 4, 6, 8 or 10, and the `I` reward, each give "the team draws 1 Suspect";
    Good Cop and Night Shift are left out of the ability deal; Judge's Signature lets your
    action be one that your role lacks."""
    state = coop(spaces={DETECTIVE: 2, PATROL: 5}, cars={DETECTIVE: (2, 2)},
                 tokens=[((2, 2), "search", 0)], suspects={PATROL: ["S03"]})
    state = turn_of(player(state, DETECTIVE, badge=1), DETECTIVE)
    top = state.suspect_deck[0]
    after, events = when(state, c.SearchScene(DETECTIVE))
    assert after.players[DETECTIVE].badge == 2
    assert of_type(events, SuspectDrawn) == [SuspectDrawn(DETECTIVE, top)]
    assert not after.pending
    # The `I` reward of E10 (MEET 2), and its contributor's `S`: two draws, face up.
    state = coop(spaces={DETECTIVE: 2, PATROL: 5}, cars={DETECTIVE: (2, 2)}, tokens=[],
                 suspects={PATROL: ["S03"]})
    state = turn_of(with_event(state, 1, "E10", tokens=[(2, 2)], removed_by=[PATROL]), DETECTIVE)
    deck = state.suspect_deck
    after, events = when(state, c.ResolveEvent(DETECTIVE, 1))
    assert of_type(events, SuspectDrawn) == [SuspectDrawn(DETECTIVE, deck[0]),
                                             SuspectDrawn(PATROL, deck[1])]
    assert not after.pending
    # An `E` reward (E7) with every solved trait already shown: a draw instead.
    state = coop(spaces={DETECTIVE: 2, PATROL: 5}, cars={DETECTIVE: (3, 3)}, tokens=[])
    state = turn_of(with_event(state, 1, "E7", tokens=[(3, 3)]), DETECTIVE)
    _, events = when(state, c.ResolveEvent(DETECTIVE, 1))
    assert of_type(events, SuspectDrawn) == [SuspectDrawn(DETECTIVE, state.suspect_deck[0])]
    # The ability deal.
    dealt = {a for g in range(60) for a in (p.ability for p in
                                            started(4, bytes([g, 1]) * 16, COOP).players)}
    assert not dealt & {"good_cop", "night_shift"} and len(dealt) == 6
    competitive = {a for g in range(60) for a in (p.ability for p in
                                                  started(4, bytes([g, 1]) * 16).players)}
    assert {"good_cop", "night_shift"} <= competitive
    # Judge's Signature: the Patrol Cop searches a scene.
    state = coop(spaces={DETECTIVE: 9, PATROL: 5}, cars={PATROL: (2, 2)},
                 tokens=[((2, 2), "search", 1)])
    state = _give_shared(turn_of(state, PATROL), "judges_signature")
    assert code_of(state, c.SearchScene(PATROL)) == "rules/role_lacks_action"
    signed, _ = when(state, c.PlayForce(PATROL, "judges_signature"))
    after, _ = when(signed, c.SearchScene(PATROL))
    assert after.players[PATROL].badge == 1
    # ...for that one action only
    assert not after.turn.ignore_time


# --- Force hand ----------------------------------------------------------------------------------


def test_force_hand() -> None:
    """With 2 players the officers share one Force hand with limit 2: the active officer plays;
    discards are chosen by the officer who gained the card."""
    state = coop(spaces={DETECTIVE: 2, PATROL: 5}, cars={DETECTIVE: (2, 2)},
                 mobsters={(2, 2): "red"}, tokens=[])
    state = _give_shared(turn_of(state, DETECTIVE), "tip_line", "squad_wagon")
    top = state.force_deck[0]
    after, _ = when(state, c.CallForBackup(DETECTIVE, 6), [die(1)])
    assert after.team_force == ("tip_line", "squad_wagon", top)
    assert after.pending == (ChooseDiscard(DETECTIVE, "hand_limit"),)  # the gainer chooses
    assert all(p.force == () for p in after.players)
    for seat in (DETECTIVE, PATROL):
        v = view(after, Seat(seat))
        assert v["you"]["force"] == ["tip_line", "squad_wagon", top]
        assert v["coop"]["shared_force"] is True
        assert v["players"][seat]["force"] == 3
    assert code_of(after, c.DiscardForce(PATROL, "tip_line")) == "rules/no_decision_owed"
    after, _ = when(after, c.DiscardForce(DETECTIVE, "tip_line"))  # a card the gainer had not
    assert after.team_force == ("squad_wagon", top)
    # The other officer plays the shared hand on their own turn.
    state = coop(spaces={DETECTIVE: 9, PATROL: 5}, cars={PATROL: (2, 2)},
                 mobsters={(2, 3): "blue"}, tokens=[])
    state = _give_shared(turn_of(state, PATROL), "squad_wagon")
    after, _ = when(state, c.PlayForce(PATROL, "squad_wagon", (2, 3)))
    assert after.team_force == () and "squad_wagon" in after.force_discard
    # Three players keep their own hands, and a teammate sees them.
    three = coop(3, ("detective", "patrol_cop", "analyst"), spaces={0: 2, 1: 5, 2: 6},
                 force={1: ["tip_line"]})
    assert three.team_force == () and three.players[1].force == ("tip_line",)
    v = view(three, Seat(0))
    assert v["coop"]["shared_force"] is False and v["you"]["force"] == []
    assert v["you"]["team"]["force"] == [[], ["tip_line"], []]
    assert view(three, SPECTATOR)["you"] is None


# --- Penalty -------------------------------------------------------------------------------------


def test_penalty() -> None:
    """The Too-Many-Events Penalty moves the Out-of-Time Marker back 1 space, from M to M-1,
    instead of its usual effect."""
    state = full_slots(coop(spaces={DETECTIVE: 2, PATROL: 5}, mobsters={(1, 5): "red"},
                            tokens=[]))
    state = turn_of(state, DETECTIVE)
    deck = state.suspect_deck
    after, events = coffee(state, DETECTIVE, (1, 5))
    assert of_type(events, MarkerMoved) == [MarkerMoved(48)]
    assert not of_type(events, SuspectRemoved) and not of_type(events, TrackersPushed)
    assert after.marker == 48 and after.suspect_deck == deck
    assert view(after, SPECTATOR)["coop"]["cap"] == 47
    moved = [x for x in entries_for(told(after, None, events), SPECTATOR)
             if x["kind"] == "marker_moved"]
    assert moved == [{"kind": "marker_moved", "space": 48}]


# --- Out-of-Time Marker --------------------------------------------------------------------------


def test_out_of_time_marker() -> None:
    """The hour cap is M-1; a tracker on M-1 has ended at Step 5(c); a marker that moves onto or
    below a tracker ends that player at once, and the rest of the turn's Steps 3-5 still
    happen; Rest Your Case is allowed on 43 to M-1."""
    # The hour cap M-1 = 44.
    state = coop(spaces={DETECTIVE: 42, PATROL: 30}, cars={DETECTIVE: (2, 2)},
                 mobsters={(2, 2): "red"}, tokens=[])
    state = turn_of(replace(state, marker=45), PATROL)
    state = turn_of(player(state, PATROL, space=43), DETECTIVE)
    assert code_of(state, c.CallForBackup(DETECTIVE, 3)) == "rules/over_hour_cap"
    assert code_of(state, c.Drive(DETECTIVE, ((2, 3), (2, 4)))) == "rules/over_hour_cap"
    after, events = when(state, c.CallForBackup(DETECTIVE, 2), [die(6)])
    # on 44 = M-1: ended at Step 5(c), as on 48, with no offer to rest
    assert after.players[DETECTIVE].space == 44 and after.players[DETECTIVE].ended
    assert of_type(events, PlayerEnded) == [PlayerEnded(DETECTIVE, rested=False)]
    # Rest Your Case on 43 (43 to M-1).
    state = coop(spaces={DETECTIVE: 42, PATROL: 30}, tokens=[])
    state = turn_of(replace(player(state, PATROL, space=44), marker=45), DETECTIVE)
    after, _ = coffee(state, DETECTIVE)
    assert after.pending == (ChooseRest(DETECTIVE),)
    # The marker moves onto two trackers at Step 3: both end at once; Step 4 still happens.
    state = full_slots(coop(spaces={DETECTIVE: 40, PATROL: 41}, tokens=[]))
    state = replace(state, lines=frozenset({8, 16, 24, 32}), marker=42)
    state = turn_of(state, DETECTIVE)
    after, events = coffee(state, DETECTIVE, (6, 2))  # crosses the line after 40: a penalty
    kinds = [type(e).__name__ for e in events]
    assert of_type(events, MarkerMoved) == [MarkerMoved(41)]
    # in Time Track order: the Detective arrived on top of the Patrol Cop
    assert of_type(events, PlayerEnded) == [PlayerEnded(DETECTIVE, rested=False),
                                            PlayerEnded(PATROL, rested=False)]
    assert kinds.index("MarkerMoved") < kinds.index("PlayerEnded") < kinds.index("MobsterRolled")
    assert of_type(events, MobsterRolled) == [MobsterRolled(6, 2)]
    assert after.status is Status.ACCUSING
    # A marker that stops below a tracker it did not reach leaves it playing.
    state = full_slots(coop(spaces={DETECTIVE: 30, PATROL: 35}, mobsters={(1, 5): "red"},
                            tokens=[]))
    state = turn_of(replace(state, marker=40), DETECTIVE)
    after, _ = coffee(state, DETECTIVE, (1, 5))
    assert after.marker == 39 and not any(p.ended for p in after.players)


# --- Accusation ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("choices", "named"),
    [(("murderer", "murderer"), "murderer"), (("other", "other"), "other"),
     (("murderer", "other"), "murderer"), (("other", "murderer"), "other")],
)
def test_accusation(choices: tuple[str, str], named: str) -> None:
    """The team makes one joint accusation: each officer submits a choice; if they differ, the
    lead's (the Detective's) stands; the team wins only if it names the murderer."""
    state = begin_accusation(coop(spaces={DETECTIVE: 48, PATROL: 48}))
    murderer = state.murderer
    other = next(s for s in SUSPECTS if s != murderer)
    pick = {"murderer": murderer, "other": other}
    state, events = when(state, c.Accuse(DETECTIVE, pick[choices[0]]))
    # the Patrol Cop sees the Detective's choice; a spectator does not
    assert view(state, Seat(PATROL))["you"]["team"]["accusations"] == [pick[choices[0]], None]
    entry = entries_for(told(state, None, events), Seat(PATROL))
    assert [x.get("suspect") for x in entry if x["kind"] == "accused"] == [pick[choices[0]]]
    assert "suspect" not in entries_for(told(state, None, events), SPECTATOR)[0]
    state, events = when(state, c.Accuse(PATROL, pick[choices[1]]))
    ended = of_type(events, GameEnded)
    won = named == "murderer"
    assert ended == [GameEnded((DETECTIVE, PATROL) if won else (), pick[named])]
    result = view(state, SPECTATOR)["result"]
    assert result["team_accusation"] == pick[named]
    assert result["winners"] == ([DETECTIVE, PATROL] if won else [])


@pytest.mark.parametrize("rules", [2, 3])
def test_a_bot_never_overrules_a_person(rules: int) -> None:
    """Ruling 45 (rules v3): when a server bot holds the Detective, the first person in role
    order leads the joint accusation; under v2 the bot did."""
    state = coop(spaces={DETECTIVE: 48, PATROL: 48}, rules=rules)
    state = player(state, DETECTIVE, bot="greedy")
    assert view(state, SPECTATOR)["coop"]["lead"] == (PATROL if rules >= 3 else DETECTIVE)
    state = begin_accusation(state)
    murderer = state.murderer
    other = next(s for s in SUSPECTS if s != murderer)
    state, _ = when(state, c.Accuse(DETECTIVE, other))  # the bot's choice
    state, events = when(state, c.Accuse(PATROL, murderer))  # the person's
    named = murderer if rules >= 3 else other
    assert of_type(events, GameEnded)[0].team_accusation == named
    # with people only, the Detective leads as before
    people = begin_accusation(coop(spaces={DETECTIVE: 48, PATROL: 48}, rules=rules))
    assert people.lead == DETECTIVE


def test_the_lead_is_whoever_holds_the_detective() -> None:
    state = begin_accusation(coop(spaces={0: 48, 1: 48}, roles=("patrol_cop", "detective")))
    murderer = state.murderer
    other = next(s for s in SUSPECTS if s != murderer)
    state, _ = when(state, c.Accuse(0, murderer))
    state, events = when(state, c.Accuse(1, other))
    assert of_type(events, GameEnded) == [GameEnded((), other)]
