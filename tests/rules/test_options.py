"""What a seat's view says beside its legal commands (issue 25): each command's hours, as the
engine then charges them, and why each action the seat could take on its turn is missing, as
the engine would refuse it."""

from __future__ import annotations

from echoridge.simulate import game_seed, play_random
from echoridge_rules import Rng, Seat, State, decide, view
from echoridge_rules import commands as c
from echoridge_rules import events as ev
from echoridge_rules.errors import RuleViolation
from echoridge_rules.legal import ACTION_TYPES, legal_actions, options
from echoridge_rules.model import Phase
from echoridge_rules.serial import tag_of
from tests.rules.helpers import given, turn_of

SIMPLEST = {  # the first candidate of each action: its lowest risk, no Night Shift
    "arrest": c.Arrest, "coffee_break": c.CoffeeBreak, "hold_mobster": c.HoldMobster,
    "book_mobster": c.BookMobster, "catch_informant": c.CatchInformant,
    "catch_witness": c.CatchWitness, "search_scene": c.SearchScene,
}  # fmt: skip


def simplest(kind: str, seat: int) -> c.Command:
    if kind == "call_for_backup":
        return c.CallForBackup(seat, 1)
    if kind == "stakeout":
        return c.Stakeout(seat, 1)
    if kind == "resolve_event":
        return c.ResolveEvent(seat, 1)
    return SIMPLEST[kind](seat)  # type: ignore[no-any-return]


def turn_states(games: int = 3) -> list[State]:
    """States of random games where the active seat may still drive or act."""
    out = []
    for game in range(games):
        for _, _, state in play_random(3, game_seed(31, game)):
            turn = state.turn
            if turn is not None and not state.pending and turn.phase in (Phase.W1, Phase.W2):
                out.append(state)
    return out


def test_each_legal_command_costs_the_hours_its_view_says() -> None:
    checked = 0
    for state in turn_states():
        seat = state.turn.seat  # type: ignore[union-attr]
        now = options(state, seat)
        assert now.legal == legal_actions(state, seat) and len(now.hours) == len(now.legal)
        for cmd, hours in zip(now.legal, now.hours, strict=True):
            if isinstance(cmd, c.PlayForce):
                assert hours == 0
                continue
            events = decide(state, cmd, Rng(b"\x00" * 32, "t"))
            charged = [e.hours for e in events if isinstance(e, ev.CarDriven | ev.ActionTaken)]
            assert charged[:1] == [hours], (cmd, hours, charged)
            checked += 1
    assert checked > 200


def test_an_action_missing_on_the_turn_says_the_rule_that_forbids_it() -> None:
    said = set()
    for state in turn_states():
        seat = state.turn.seat  # type: ignore[union-attr]
        now = options(state, seat)
        kinds = {tag_of(cmd) for cmd in now.legal}
        listed = [kind for kind, _ in now.unavailable]
        assert listed == [k for k in ACTION_TYPES if k in listed]  # in the table's order
        assert set(listed) | (kinds & set(ACTION_TYPES)) == set(ACTION_TYPES)
        for kind, code in now.unavailable:
            assert kind not in kinds
            try:
                decide(state, simplest(kind, seat), Rng(b"\x00" * 32, "t"))
            except RuleViolation as exc:
                said.add(code)
                if code not in ("rules/no_such_event", "rules/not_on_event_token"):
                    assert exc.code == code, (kind, code, exc.code)
            else:
                raise AssertionError(f"{kind} is listed as unavailable but was accepted")
    assert {"rules/wrong_time_of_day", "rules/no_mobster_here"} <= said


def test_a_stakeout_by_day_says_it_is_a_night_action() -> None:
    """Item 3 of the issue: a car on a Stakeout token by day sees why Stakeout is missing."""
    state = turn_of(
        given(players=2, spaces={0: 2, 1: 3}, cars={0: (2, 2)}, tokens=[((2, 2), "stakeout", 3)]),
        0,
    )
    you = view(state, Seat(0))["you"]
    assert {"type": "stakeout", "code": "rules/wrong_time_of_day"} in you["unavailable"]
    assert len(you["hours"]) == len(you["legal"])
    assert view(state, Seat(1))["you"]["unavailable"] == []  # not its turn
    night = turn_of(
        given(players=2, spaces={0: 14, 1: 15}, cars={0: (2, 2)}, tokens=[((2, 2), "stakeout", 3)]),
        0,
    )
    assert not any(u["type"] == "stakeout" for u in view(night, Seat(0))["you"]["unavailable"])


def checked_one_by_one(state: State, seat: int) -> tuple[list[c.Command], dict[str, list[str]]]:
    """``options`` without its shortcut: every candidate checked, each refusal's codes kept."""
    from echoridge_rules import legal
    from echoridge_rules.engine import check

    accepted: list[c.Command] = []
    refused: dict[str, list[str]] = {}
    for cmd in legal._candidates(state, seat):
        try:
            check(state, cmd)
        except RuleViolation as exc:
            codes = refused.setdefault(tag_of(cmd), [])
            if exc.code not in codes:
                codes.append(exc.code)
            continue
        accepted.append(cmd)
    return accepted, refused


def test_options_skips_no_risk_that_a_check_would_accept() -> None:
    """A risk action refused at its lowest risk by a rule checked before the risk is not
    checked at its other risks (legal._RISKY): the commands and the first refusal of each
    action are those of checking every candidate, in co-op and competitive games alike."""
    from echoridge_rules.legal import _VAGUE, _options

    seen = 0
    for mode, players in (("competitive", 3), ("cooperative", 2), ("competitive", 4)):
        for game in range(4):
            for _, _, state in play_random(players, game_seed(57, game), mode=mode):
                for seat in range(len(state.players)):
                    made = _options(state, seat)
                    accepted, refused = checked_one_by_one(state, seat)
                    assert list(made.legal) == accepted
                    kinds = {tag_of(cmd) for cmd in accepted}
                    first = {k: codes for k, codes in refused.items() if k not in kinds}
                    assert made.unavailable == tuple(
                        (k, next((x for x in first[k] if x not in _VAGUE), first[k][0]))
                        for k in ACTION_TYPES
                        if k in first
                    )
                    seen += bool(accepted)
    assert seen > 500
