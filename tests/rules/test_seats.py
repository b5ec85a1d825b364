"""Seats and clocks in the engine (rules/seats.py): turn timeouts and strikes, time banks,
handing a seat to the server and taking it back, handover votes."""

from __future__ import annotations

import pytest

from echoridge.rules import Rng, RuleViolation, State, decide, evolve, fold
from echoridge.rules import commands as c
from echoridge.rules.legal import seat_controls
from echoridge.rules.log import entries_for, told
from echoridge.rules.seat_events import SeatHandedOver, TimeExtended, TurnTimedOut
from echoridge.rules.seats import played_by_server
from echoridge.rules.views import Spectator, view

RNG = Rng(b"\x09" * 32, "seats")


def start(players: int = 3, clock: tuple[int, ...] = (90, 600, 2), bots: tuple[str, ...] = ()):
    return fold(decide(State(), c.StartGame(players, bots=bots, clock=clock), RNG))


def step(state: State, command: c.Command) -> tuple[State, list]:
    events = decide(state, command, RNG)
    for e in events:
        state = evolve(state, e)
    return state, events


def refused(state: State, command: c.Command) -> str:
    with pytest.raises(RuleViolation) as info:
        decide(state, command, RNG)
    return info.value.code


def end_turn(state: State) -> State:
    """Play the active seat's turn to its end with the first legal command each time (the
    decisions owed on the way, by anyone, answered by their defaults)."""
    assert state.turn is not None
    number = state.turn.number
    while state.turn is not None and state.turn.number == number:
        if state.pending:
            state, _ = step(state, c.ApplyDefault(state.pending[0].seat))
            continue
        seat = state.turn.seat
        phase = state.turn.phase.value
        if phase in ("w3", "w4"):
            state, _ = step(state, c.Proceed(seat))
        else:
            state, _ = step(state, c.CoffeeBreak(seat))
    return state


def test_the_clock_and_banks_are_in_the_public_view() -> None:
    state = start()
    seen = view(state, Spectator())
    assert [p["bank"] for p in seen["players"]] == [600, 600, 600]
    assert seen["turn"]["timed_out"] is False and seen["turn"]["extended"] == 0
    assert all(p["auto"] is None and p["strikes"] == 0 for p in seen["players"])


def test_a_turn_time_out_marks_the_turn_and_counts_a_strike() -> None:
    state = start()
    seat = state.turn.seat
    state, events = step(state, c.TimeOut(seat))
    assert events == [TurnTimedOut(seat)]
    assert state.turn.timed_out and state.players[seat].strikes == 1
    assert played_by_server(state, seat)
    assert refused(state, c.TimeOut(seat)) == "rules/turn_timed_out"
    # the log tells everyone
    entries = entries_for(told(state, c.TimeOut(seat), events), Spectator())
    assert entries == [{"kind": "turn_timed_out", "seat": seat}]


def test_a_time_out_is_only_for_the_active_seat_of_a_clocked_table() -> None:
    state = start()
    other = (state.turn.seat + 1) % 3
    assert refused(state, c.TimeOut(other)) == "rules/not_your_turn"
    assert refused(start(clock=()), c.TimeOut(start(clock=()).turn.seat)) == "rules/no_clock"


def test_strikes_in_a_row_hand_the_seat_over_and_a_turn_played_clears_them() -> None:
    state = start(clock=(90, 600, 2))
    first = state.turn.seat
    state, _ = step(state, c.TimeOut(first))
    state = end_turn(state)
    while state.turn.seat != first:
        state = end_turn(state)
    state = end_turn(state)  # played by its player: no time out
    assert state.players[first].strikes == 0
    while state.turn.seat != first:
        state = end_turn(state)
    state, _ = step(state, c.TimeOut(first))
    state = end_turn(state)
    while state.turn.seat != first:
        state = end_turn(state)
    state, events = step(state, c.TimeOut(first))
    assert events == [TurnTimedOut(first), SeatHandedOver(first, "strikes")]
    assert state.players[first].auto == "strikes"


def test_more_time_moves_one_turn_from_the_bank_once_per_turn() -> None:
    state = start(clock=(90, 100, 2))
    seat = state.turn.seat
    assert c.ExtendTime(seat) in seat_controls(state, seat)
    state, events = step(state, c.ExtendTime(seat))
    assert events == [TimeExtended(seat, 90)]
    assert state.players[seat].bank == 10 and state.turn.extended == 90
    assert refused(state, c.ExtendTime(seat)) == "rules/already_extended"
    assert c.ExtendTime(seat) not in seat_controls(state, seat)
    state = end_turn(state)
    while state.turn.seat != seat:
        state = end_turn(state)
    state, events = step(state, c.ExtendTime(seat))
    assert events == [TimeExtended(seat, 10)]  # what is left
    state = end_turn(state)
    while state.turn.seat != seat:
        state = end_turn(state)
    assert refused(state, c.ExtendTime(seat)) == "rules/no_time_bank"


def test_more_time_is_refused_off_turn_without_a_clock_and_after_a_time_out() -> None:
    state = start()
    seat = state.turn.seat
    assert refused(state, c.ExtendTime((seat + 1) % 3)) == "rules/not_your_turn"
    unclocked = start(clock=())
    assert refused(unclocked, c.ExtendTime(unclocked.turn.seat)) == "rules/no_clock"
    state, _ = step(state, c.TimeOut(seat))
    assert refused(state, c.ExtendTime(seat)) == "rules/turn_timed_out"


def test_play_for_me_and_take_back() -> None:
    state = start()
    seat = (state.turn.seat + 1) % 3
    assert refused(state, c.TakeBack(seat)) == "rules/not_handed_over"
    state, events = step(state, c.PlayForMe(seat))
    assert events == [SeatHandedOver(seat, "self")]
    assert played_by_server(state, seat)
    assert view(state, Spectator())["players"][seat]["auto"] == "self"
    assert refused(state, c.PlayForMe(seat)) == "rules/already_handed_over"
    assert [type(x) for x in seat_controls(state, seat)] == [c.TakeBack]
    state, _ = step(state, c.TakeBack(seat))
    assert not played_by_server(state, seat) and state.players[seat].auto == ""


def test_the_server_hands_over_an_away_seat_with_a_known_reason_only() -> None:
    state = start()
    state, events = step(state, c.HandOver(1, "away"))
    assert events == [SeatHandedOver(1, "away")]
    assert refused(state, c.HandOver(1, "away")) == "rules/already_handed_over"
    assert refused(state, c.HandOver(2, "boredom")) == "rules/not_an_option"


def test_bot_seats_take_no_part() -> None:
    state = start(bots=("", "greedy", ""))
    assert played_by_server(state, 1)
    for command in (c.PlayForMe(1), c.HandOver(1, "away"), c.VoteHandover(0, 1)):
        assert refused(state, command) == "rules/bot_seat"


def test_every_other_person_must_vote_and_votes_last_one_turn() -> None:
    state = start(players=4, bots=("", "", "", "random"))
    active = state.turn.seat
    target = next(s for s in range(3) if s != active)
    voters = [s for s in range(3) if s != target]
    state, events = step(state, c.VoteHandover(voters[0], target))
    assert [type(e).__name__ for e in events] == ["HandoverVoted"]
    assert view(state, Spectator())["players"][target]["votes"] == [voters[0]]
    assert refused(state, c.VoteHandover(voters[0], target)) == "rules/already_voted"
    assert refused(state, c.VoteHandover(target, target)) == "rules/bad_vote"
    state, events = step(state, c.VoteHandover(voters[1], target))  # the bot seat does not vote
    assert events[-1] == SeatHandedOver(target, "vote")
    assert state.votes == ()

    fresh = start(players=3)
    fresh, _ = step(fresh, c.VoteHandover(0, 2))
    fresh = end_turn(fresh)
    assert fresh.votes == ()  # a new turn: the vote is gone


def test_server_commands_are_refused_after_the_game_and_before_it() -> None:
    assert refused(State(), c.PlayForMe(0)) == "rules/game_not_started"


def test_a_bad_clock_is_refused_at_the_start() -> None:
    for clock in ((90,), (-1, 0, 0), (90, 600, 11)):
        assert refused(State(), c.StartGame(2, clock=clock)) == "rules/bad_clock"
    assert refused(State(), c.StartGame(2, clock=(True, 0, 0))) == "rules/bad_command"
