"""The game log per viewer (rules/log.py): public facts reach everybody, private ones only their
seats, with what the others may know of them; hidden ones nobody until the end."""

from __future__ import annotations

from echoridge_rules import EVERYONE, SPECTATOR, Rng, Seat, State, decide, fold
from echoridge_rules import commands as c
from echoridge_rules.log import entries_for, told
from tests.rules.helpers import SEED, die, given, turn_of, when

REPRIEVE = [die(6), die(6)]  # a Mobster Roll that places nothing


def two(a: int = 10, **kw: object) -> State:
    return given(players=2, spaces={0: a, 1: 30}, cars={0: (2, 2), 1: (5, 5)}, **kw)  # type: ignore[arg-type]


def log_of(state: State, command: c.Command, draws: list[int]) -> tuple[State, list[object]]:
    after, events = when(state, command, draws)
    return after, list(told(after, command, events))


def test_a_failed_call_for_backup_shows_everyone_the_seat_risk_die_and_failure() -> None:
    state = turn_of(two(mobsters={(2, 1): "red"}), 0)
    _, t = log_of(state, c.CallForBackup(0, 1), [die(6)])
    for viewer in (Seat(0), Seat(1), SPECTATOR, EVERYONE):
        backup = [e for e in entries_for(t, viewer) if e["kind"] == "backup_called"]  # type: ignore[arg-type]
        assert backup == [{"kind": "backup_called", "seat": 0, "risk": 1, "dice": [6],
                           "success": False}], viewer
        action = [e for e in entries_for(t, viewer) if e["kind"] == "action_taken"]  # type: ignore[arg-type]
        assert action[0]["action"] == "call_for_backup" and action[0]["risk"] == 1


def test_a_failed_stakeout_shows_others_the_risk_and_failure_and_the_peeker_the_value() -> None:
    state = turn_of(two(a=17, tokens=[((2, 2), "stakeout", 4)]), 0)
    _, t = log_of(state, c.Stakeout(0, 2), REPRIEVE)
    mine = entries_for(t, Seat(0))  # type: ignore[arg-type]
    theirs = entries_for(t, Seat(1))  # type: ignore[arg-type]
    watching = entries_for(t, SPECTATOR)  # type: ignore[arg-type]
    assert theirs == watching
    peek = next(e for e in mine if e["kind"] == "token_peeked")
    assert peek == {"kind": "token_peeked", "seat": 0, "block": [2, 2], "token": "stakeout",
                    "value": 4, "proof": "token/2,2", "to": [0]}
    assert next(e for e in theirs if e["kind"] == "token_peeked") == {
        "kind": "token_peeked", "seat": 0, "block": [2, 2], "token": "stakeout", "to": [0]}
    for entries in (mine, theirs):
        assert {"kind": "stakeout_failed", "seat": 0, "block": [2, 2], "risk": 2} in entries
        assert any(e["kind"] == "action_taken" and e["risk"] == 2 for e in entries)
    assert not any("value" in e for e in theirs if e["kind"] != "mobster_rolled")


def test_the_mobster_roll_dice_are_public() -> None:
    state = turn_of(two(a=17, tokens=[((2, 2), "stakeout", 1)]), 0)
    _, t = log_of(state, c.Stakeout(0, 2), REPRIEVE)
    for viewer in (Seat(1), SPECTATOR):
        assert {"kind": "mobster_rolled", "black": 6, "white": 6} in entries_for(t, viewer)  # type: ignore[arg-type]


def test_a_drawn_suspect_is_told_to_its_drawer_alone() -> None:
    state = fold(decide(State(), c.StartGame(2), Rng(SEED, "test")))
    from echoridge_rules.events import SuspectDrawn

    t = told(state, None, [SuspectDrawn(1, "S05")])
    assert entries_for(t, Seat(1)) == [{"kind": "suspect_drawn", "seat": 1, "card": "S05",
                                        "to": [1]}]
    assert entries_for(t, Seat(0)) == [{"kind": "suspect_drawn", "seat": 1, "to": [1]}]
    assert entries_for(t, SPECTATOR) == entries_for(t, Seat(0))
    assert entries_for(t, EVERYONE) == entries_for(t, Seat(1))


def test_the_start_names_the_seats_and_hides_the_murderer_and_the_draws() -> None:
    command = c.StartGame(2, ("Ana", "Ben"), ("", "greedy"))
    events = decide(State(), command, Rng(SEED, "test"))
    t = told(fold(events), command, events)
    for viewer in (Seat(0), SPECTATOR):
        entries = entries_for(t, viewer)
        started = next(e for e in entries if e["kind"] == "game_started")
        assert started["kind"] == "game_started" and "murderer" not in started
        assert started["names"] == ["Ana", "Ben"] and started["bots"] == ["", "greedy"]
        assert not any(e["kind"] == "drawn" for e in entries)
    everything = entries_for(t, EVERYONE)
    started = next(e for e in everything if e["kind"] == "game_started")
    assert started["murderer"] == fold(events).murderer
    assert any(e["kind"] == "drawn" for e in everything)


def test_a_timed_out_decision_is_logged_as_such() -> None:
    assert entries_for(told(State(), c.ApplyDefault(1), []), SPECTATOR) == [
        {"kind": "timed_out", "seat": 1}]
