"""Seats and clocks in the engine (rules/seats.py): turn timeouts and strikes, time banks,
handing a seat to the server and taking it back, handover votes."""

from __future__ import annotations

from dataclasses import replace

import pytest

from echoridge_rules import Rng, RuleViolation, State, Status, decide, evolve, fold
from echoridge_rules import commands as c
from echoridge_rules.context import Ctx
from echoridge_rules.data import RULES_VERSION
from echoridge_rules.engine import run
from echoridge_rules.flow import next_turn
from echoridge_rules.legal import legal_actions, seat_controls
from echoridge_rules.log import entries_for, told
from echoridge_rules.seat_events import SeatHandedOver, TimeExtended, TurnTimedOut
from echoridge_rules.seats import played_by_server
from echoridge_rules.viewcache import ViewCache
from echoridge_rules.views import Seat, Spectator, view

RNG = Rng(b"\x09" * 32, "seats")


def start(
    players: int = 3,
    clock: tuple[int, ...] = (90, 600, 2),
    bots: tuple[str, ...] = (),
    rules: int = RULES_VERSION,
) -> State:
    start = c.StartGame(players, bots=bots, clock=clock, rules=rules)
    return fold(decide(State(), start, RNG))


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
    assert [type(x) for x in seat_controls(state, seat)] == [c.TakeBack, c.AutoPass]
    state, _ = step(state, c.TakeBack(seat))
    assert not played_by_server(state, seat) and state.players[seat].auto == ""


def toggle(state: State, seat: int, times: int) -> tuple[State, list[str]]:
    """Send play_for_me and take_back ``times`` times each, in turn: the state and every
    outcome ("ok" or the refusal's code)."""
    outcomes = []
    for _ in range(times):
        for command in (c.PlayForMe(seat), c.TakeBack(seat)):
            try:
                state, _ = step(state, command)
                outcomes.append("ok")
            except RuleViolation as exc:
                outcomes.append(exc.code)
    return state, outcomes


def test_a_seat_hands_itself_over_once_a_turn_from_rules_v3() -> None:
    """Ruling 43: toggling play_for_me/take_back makes at most two log entries a turn; the
    controls stop offering play_for_me once it was used, and a new turn offers it again."""
    state = start()
    seat = (state.turn.seat + 1) % 3
    state, outcomes = toggle(state, seat, 10)
    assert outcomes[:2] == ["ok", "ok"]
    assert set(outcomes[2::2]) == {"rules/handover_used"}
    assert set(outcomes[3::2]) == {"rules/not_handed_over"}
    assert c.PlayForMe(seat) not in seat_controls(state, seat)
    cache = ViewCache()
    assert {x["type"] for x in view(state, Seat(seat), cache)["you"]["controls"]} == {
        "vote_handover", "auto_pass"
    }
    # the server's own take back (a player who returns) is never limited
    state, _ = step(state, c.HandOver(seat, "away"))
    assert [type(x) for x in seat_controls(state, seat)] == [c.TakeBack, c.AutoPass]
    state, _ = step(state, c.TakeBack(seat))
    state = end_turn(state)
    assert c.PlayForMe(seat) in seat_controls(state, seat)
    assert "play_for_me" in {x["type"] for x in view(state, Seat(seat), cache)["you"]["controls"]}
    state, outcomes = toggle(state, seat, 2)
    assert outcomes == ["ok", "ok", "rules/handover_used", "rules/not_handed_over"]


def test_the_accusation_is_one_turn_for_handing_over() -> None:
    state = start()
    seat = (state.turn.seat + 1) % 3
    state, _ = toggle(state, seat, 1)
    for p in state.players:  # every player has ended: the next turn opens the accusation
        state = replace(state, players=tuple(q.but(ended=True) if q is p else q
                                             for q in state.players))
    state = replace(state, agenda=(), pending=())
    ctx = Ctx(state, RNG)
    next_turn(ctx)
    run(ctx)
    state = ctx.state
    assert state.status is Status.ACCUSING
    state, outcomes = toggle(state, seat, 3)
    assert outcomes == ["ok", "ok"] + ["rules/handover_used", "rules/not_handed_over"] * 2


def test_games_under_rules_v2_toggle_as_they_did() -> None:
    """Games recorded before rules v3 replay: their toggles were all accepted."""
    state = start(rules=2)
    seat = (state.turn.seat + 1) % 3
    state, outcomes = toggle(state, seat, 5)
    assert outcomes == ["ok"] * 10
    assert c.PlayForMe(seat) in seat_controls(state, seat)


def test_a_seat_the_server_plays_has_nothing_in_legal_but_keeps_its_controls() -> None:
    """SPEC §6.1: ``you.legal`` is what the seat may send now; while the server plays it (handed
    over, its turn timed out, a bot's seat) that is nothing, and the server's bot takes the
    engine's ``legal_actions`` instead."""
    active = start(players=3).turn.seat
    bot = (active + 1) % 3
    state = start(players=3, bots=tuple("greedy" if s == bot else "" for s in range(3)))
    assert state.turn.seat == active
    cache = ViewCache()
    assert view(state, Seat(active), cache)["you"]["legal"] != []
    state, _ = step(state, c.PlayForMe(active))
    for cached in (cache, None):
        you = view(state, Seat(active), cached)["you"]
        assert you["legal"] == []
        assert {x["type"] for x in you["controls"]} == {"take_back", "auto_pass"}
    assert legal_actions(state, active)  # what the server's bot chooses from
    state, _ = step(state, c.TakeBack(active))
    assert view(state, Seat(active), cache)["you"]["legal"] != []
    state, _ = step(state, c.TimeOut(active))
    assert view(state, Seat(active), cache)["you"]["legal"] == []
    bots = start(players=3, bots=tuple("greedy" if s == active else "" for s in range(3)))
    assert view(bots, Seat(active))["you"]["legal"] == [] and legal_actions(bots, active)
    assert {x["type"] for x in view(state, Seat(active), cache)["you"]["controls"]} <= {
        "vote_handover", "auto_pass"
    }


def test_the_server_hands_over_an_away_seat_with_a_known_reason_only() -> None:
    state = start()
    state, events = step(state, c.HandOver(1, "away"))
    assert events == [SeatHandedOver(1, "away")]
    assert refused(state, c.HandOver(1, "away")) == "rules/already_handed_over"
    assert refused(state, c.HandOver(2, "boredom")) == "rules/not_an_option"


def test_auto_pass_is_on_until_its_player_turns_it_off() -> None:
    """Issue 25: "pass when I have nothing to play" (SPEC.md §6.6), a logged seat command."""
    state = start()
    seat = 1
    assert state.players[seat].auto_pass and view(state, Seat(seat))["you"]["auto_pass"]
    assert c.AutoPass(seat, False) in seat_controls(state, seat)
    assert refused(state, c.AutoPass(seat, True)) == "rules/not_an_option"  # it is on already
    state, events = step(state, c.AutoPass(seat, False))
    said = told(state, c.AutoPass(seat, False), events)
    assert entries_for(said, Seat(seat)) == [
        {"kind": "auto_pass_set", "seat": seat, "on": False, "to": [seat]}
    ]
    assert entries_for(said, Spectator()) == entries_for(said, Seat(0)) == []  # its own affair
    assert view(state, Seat(seat))["you"]["auto_pass"] is False
    assert c.AutoPass(seat, True) in seat_controls(state, seat)
    assert c.AutoPass(seat, True) not in legal_actions(state, seat)  # (a control, no move)
    assert refused(start(bots=("", "greedy", "")), c.AutoPass(1, False)) == "rules/bot_seat"


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
    for missing in (4, 9, -1):
        assert refused(state, c.VoteHandover(voters[0], missing)) == "rules/unknown_seat"
    assert refused(state, c.VoteHandover(voters[0], 3)) == "rules/bot_seat"
    state, events = step(state, c.VoteHandover(voters[1], target))  # the bot seat does not vote
    assert events[-1] == SeatHandedOver(target, "vote")
    assert state.votes == ()

    fresh = start(players=3)
    fresh, _ = step(fresh, c.VoteHandover(0, 2))
    fresh = end_turn(fresh)
    assert fresh.votes == ()  # a new turn: the vote is gone


def test_server_commands_are_refused_after_the_game_and_before_it() -> None:
    assert refused(State(), c.PlayForMe(0)) == "rules/game_not_started"


def test_a_bad_rules_version_is_refused_at_the_start() -> None:
    for rules in (0, 1, RULES_VERSION + 1):
        assert refused(State(), c.StartGame(2, rules=rules)) == "rules/unknown_rules"


def test_a_bad_clock_is_refused_at_the_start() -> None:
    for clock in ((90,), (-1, 0, 0), (90, 600, 11)):
        assert refused(State(), c.StartGame(2, clock=clock)) == "rules/bad_clock"
    assert refused(State(), c.StartGame(2, clock=(True, 0, 0))) == "rules/bad_command"


# --- the server stops a game (an operator closed its table: StopGame) -------------------------


def test_a_stopped_game_is_over_with_no_winner_and_says_why_to_everyone() -> None:
    from echoridge_rules.events import GameStopped

    state = end_turn(start())
    state, events = step(state, c.StopGame())
    assert GameStopped("operator") in events
    assert state.status is Status.OVER and state.winners == () and state.stopped == "operator"
    assert not state.pending and not state.agenda
    assert all(not legal_actions(state, seat) for seat in range(3))
    for viewer in (Seat(0), Seat(2), Spectator()):
        result = view(state, viewer)["result"]
        assert result["winners"] == [] and result["decided_by"] == "stopped"
        assert result["murderer"] == state.murderer  # the secrets are open, as at any end
    for viewer in (Seat(1), Spectator()):
        told_ = told(state, c.StopGame(), events)
        assert entries_for(told_, viewer) == [{"kind": "game_stopped", "reason": "operator"}]


def test_only_a_game_that_is_on_can_be_stopped_and_only_for_a_known_reason() -> None:
    assert refused(State(), c.StopGame()) == "rules/game_not_started"
    state = start()
    assert refused(state, c.StopGame("boredom")) == "rules/not_an_option"
    state, _ = step(state, c.StopGame())
    assert refused(state, c.StopGame()) == "rules/game_over"
    assert refused(state, c.TimeOut(0)) == "rules/game_over"

