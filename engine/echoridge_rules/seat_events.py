"""The facts of seats and clocks (seats.py): who plays a seat, turn timeouts, time banks.

They are public: every viewer gets the same log entry (rules/log.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from echoridge_rules.serial import tagged


@tagged("turn_timed_out")
@dataclass(frozen=True, slots=True)
class TurnTimedOut:
    """The active seat's turn clock ran out: the server plays the rest of this turn."""

    seat: int


@tagged("seat_handed_over")
@dataclass(frozen=True, slots=True)
class SeatHandedOver:
    """The server plays ``seat`` from now on, until its player takes it back.  ``reason``:
    ``away`` (away past the grace period), ``strikes`` (too many turns in a row timed out),
    ``vote`` (the other players voted) or ``self`` (its player asked)."""

    seat: int
    reason: str


@tagged("seat_taken_back")
@dataclass(frozen=True, slots=True)
class SeatTakenBack:
    seat: int


@tagged("time_extended")
@dataclass(frozen=True, slots=True)
class TimeExtended:
    """``seconds`` moved from ``seat``'s bank to its turn."""

    seat: int
    seconds: int


@tagged("handover_voted")
@dataclass(frozen=True, slots=True)
class HandoverVoted:
    seat: int
    target: int


@tagged("auto_pass_set")
@dataclass(frozen=True, slots=True)
class AutoPassSet:
    """``seat``'s "pass when I have nothing to play" is now ``on`` (or off)."""

    seat: int
    on: bool


SeatEvent = (
    TurnTimedOut | SeatHandedOver | SeatTakenBack | TimeExtended | HandoverVoted | AutoPassSet
)
