"""The clock settings and ``Timing`` (tables/clocks.py): presets and limits, which clocks run,
and the turn clock that stops while the game waits on another seat."""

from __future__ import annotations

import pytest

from echoridge.tables.clocks import ClockSettings, Timing, from_meta, settings
from echoridge.tables.errors import TableError
from echoridge_protocol import messages as m
from echoridge_rules import Rng, State, decide, evolve, fold
from echoridge_rules import commands as c
from echoridge_rules.decisions import ChooseGain

RNG = Rng(b"\x05" * 32, "timing")
T0 = 1_767_225_600_000  # ms: the entries' times
LIVE = ClockSettings("custom", turn=60, bank=100, decision=20, grace=30, strikes=2)


def started(players: int = 2) -> State:
    return fold(decide(State(), c.StartGame(players, clock=LIVE.for_rules()), RNG))


def step(state: State, command: c.Command) -> State:
    for e in decide(state, command, RNG):
        state = evolve(state, e)
    return state


def test_presets_fill_what_is_left_out_and_limits_refuse_the_rest() -> None:
    live = settings(m.Clock("live"), 120)
    assert (live.turn, live.bank, live.decision, live.grace, live.strikes) == (90, 600, 120, 120, 2)
    corr = settings(m.Clock("correspondence", grace=3600), 120)
    assert (corr.turn, corr.decision, corr.grace) == (86400, 86400, 3600)
    assert settings(None, 7).preset == "casual" and settings(None, 7).decision == 7
    assert settings(m.Clock("custom", turn=15), 120).bank == 600  # custom starts from live
    bad_clocks = (
        m.Clock("custom", turn=5), m.Clock("live", grace=10), m.Clock("live", bank=31 * 86400),
    )  # fmt: skip
    for bad in bad_clocks:
        with pytest.raises(TableError) as info:
            settings(bad, 120)
        assert info.value.code == "table/bad_clock"
    assert settings(m.Clock("custom", turn=2, grace=1), 120, floor=1).turn == 2
    assert from_meta({"clock": live.to_meta()}, 0) == live
    assert from_meta({}, 9) == ClockSettings(decision=9)  # a table from before clocks


def test_the_turn_clock_runs_for_the_active_seat_from_when_its_turn_began() -> None:
    state = started()
    timing = Timing(LIVE)
    timing.advance(state, 1_000_000)
    seat = state.turn.seat
    [turn] = [x for x in timing.running(state) if x.kind == "turn"]
    assert (turn.seat, turn.at) == (seat, 1_000_000 + 60_000)
    state = step(state, c.ExtendTime(seat))
    timing.advance(state, 1_010_000)
    [turn] = [x for x in timing.running(state) if x.kind == "turn"]
    assert turn.at == 1_000_000 + 120_000  # one more turn's time from the bank


def test_the_turn_clock_stops_while_the_game_waits_on_another_seat() -> None:
    timing = Timing(LIVE)
    state = started(3)
    seat = state.turn.seat
    other = (seat + 1) % 3
    timing.advance(state, T0)
    # (the states the engine reaches when another seat owes a decision during this turn)
    waiting = state.but(pending=(ChooseGain(other),))
    timing.advance(waiting, T0 + 10_000)  # 10 s of the turn used, then the wait begins
    assert [x.kind for x in timing.running(waiting)] == ["decision"]  # no turn clock
    timing.advance(state.but(pending=(ChooseGain(seat),)), T0 + 40_000)  # 30 s later: back to it
    [turn] = [x for x in timing.running(state) if x.kind == "turn"]
    assert turn.at == T0 + 60_000 + 30_000  # the 30 s spent on the other seat did not count
    timing.advance(state, T0 + 45_000)
    [turn] = [x for x in timing.running(state) if x.kind == "turn"]
    assert turn.at == T0 + 90_000


def test_decision_and_handover_clocks() -> None:
    state = started()
    timing = Timing(LIVE)
    timing.advance(state, 5_000)
    away = {1 - state.turn.seat: 2_000}
    kinds = {(x.kind, x.seat, x.at) for x in timing.running(state, away)}
    assert ("handover", 1 - state.turn.seat, 5_000 + 30_000) in kinds  # from the game's start
    late = {1 - state.turn.seat: 9_000}
    assert ("handover", 1 - state.turn.seat, 9_000 + 30_000) in {
        (x.kind, x.seat, x.at) for x in timing.running(state, late)
    }
    state = step(state, c.PlayForMe(1 - state.turn.seat))
    assert not [x for x in timing.running(state, away) if x.kind == "handover"]  # already


def test_nothing_runs_before_or_after_the_game_or_for_a_timed_out_turn() -> None:
    timing = Timing(LIVE)
    assert timing.running(State()) == []
    state = started()
    timing.advance(state, T0)
    state = step(state, c.TimeOut(state.turn.seat))
    timing.advance(state, T0 + 1)
    assert not [x for x in timing.running(state) if x.kind == "turn"]
