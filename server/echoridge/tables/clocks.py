"""A table's clocks: the settings chosen at creation, and what runs when.

Settings (``ClockSettings``, kept in the table's metadata as ``clock`` = JSON) come from a preset
(``PRESETS``, a house rule in data) with any field overridden, each within ``LIMITS``:

- ``turn``: seconds a turn may take (0: turns never time out).  The clock counts only while the
  game waits on the turn's seat (its turn commands, its own decisions and Force windows); time
  spent waiting on another seat's decision does not count against it.  ``bank``: each seat's
  reserve; "I need more time" (``extend_time``) moves up to one ``turn`` from it, once per turn.
- ``decision``: seconds for a decision owed (the default answer follows, rules.md §4.5.6).
- ``grace``: seconds a seat's player may be away during the game before the server plays the
  seat (0: never); ``strikes``: turns in a row timed out before the server plays the seat.

The engine knows the bank and the strikes (rules/seats.py); the times are here.  Every entry of
the log carries the time it was appended (the Redis server's clock, store/entries.py), so every
node computes the same deadlines from the same log, and a node that starts late (or opens the
table only because a deadline came due, clockwork.py) computes them too.  ``Timing`` follows a
table's versions and says which clocks run (``running``), for the ``clocks`` message and the
timers of servermoves.py.  When one runs out, what happens is appended as an ordinary command
(``TimeOut``, ``ApplyDefault``, ``HandOver``) with a command id that makes a second node's copy a
duplicate, so a replay never needs a clock.
"""

from __future__ import annotations

import json
import math
import time as wall_clock
from dataclasses import asdict, dataclass, replace
from typing import Any, cast

from echoridge.tables.errors import TableError
from echoridge_protocol import messages as m
from echoridge_rules import State, Status
from echoridge_rules.seats import played_by_server

DAY = 86400


@dataclass(frozen=True, slots=True)
class ClockSettings:
    preset: str = "casual"
    turn: int = 0
    bank: int = 0
    decision: float = 0  # (the server's --decision-timeout may be a fraction of a second)
    grace: int = 0
    strikes: int = 0

    def wire(self) -> m.Clock:
        preset = cast(m.ClockPreset, self.preset)
        decision = math.ceil(self.decision)
        return m.Clock(preset, self.turn, self.bank, decision, self.grace, self.strikes)

    def to_meta(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    def for_rules(self) -> tuple[int, ...]:
        """``StartGame.clock``: what the engine needs (none without a turn clock)."""
        return (self.turn, self.bank, self.strikes) if self.turn else ()


CASUAL = ClockSettings()  # (a table made with no clock in code: no grace, decisions never end)

# The presets (house rules).  ``decision`` None: the server's --decision-timeout.
PRESETS: dict[str, dict[str, int | None]] = {
    "casual": {"turn": 0, "bank": 0, "decision": None, "grace": 300, "strikes": 0},
    "live": {"turn": 90, "bank": 600, "decision": None, "grace": 120, "strikes": 2},
    "correspondence": {
        "turn": DAY, "bank": 3 * DAY, "decision": DAY, "grace": 2 * DAY, "strikes": 2,
    },
}
# (lowest non-zero, highest) seconds per field; 0 is always allowed but for none of these.
LIMITS: dict[str, tuple[int, int]] = {
    "turn": (10, 7 * DAY),
    "bank": (0, 30 * DAY),
    "decision": (10, 7 * DAY),
    "grace": (30, 30 * DAY),
    "strikes": (0, 10),
}


def settings(
    chosen: m.Clock | None, decision_default: float, floor: int | None = None
) -> ClockSettings:
    """The settings of a new table from its ``create_table`` clock (None: casual).  ``floor``
    lowers the shortest times allowed (tests, demos); raises TableError(table/bad_clock)."""
    chosen = chosen or m.Clock("casual")
    base = PRESETS["live" if chosen.preset == "custom" else chosen.preset]
    out: dict[str, Any] = {}
    for name in LIMITS:
        given = getattr(chosen, name)
        value = base[name] if given is None else given
        if value is None:  # the server's decision timeout, whatever it is
            out[name] = decision_default
            continue
        lo, hi = LIMITS[name]
        if floor is not None and name != "strikes":
            lo = min(lo, floor)
        if value and not lo <= value <= hi:
            raise TableError(
                "table/bad_clock", f"The clock's {name} is 0 or {lo} to {hi} seconds."
            )
        out[name] = value
    return ClockSettings(chosen.preset, **out)


def from_meta(meta: dict[str, str], decision_default: float) -> ClockSettings:
    """A table's settings (tables made before clocks existed: casual, no grace)."""
    raw = meta.get("clock")
    if raw is None:
        return ClockSettings(decision=decision_default)
    return ClockSettings(**json.loads(raw))


# --- what runs -----------------------------------------------------------------------------------


def waiting_on(state: State) -> list[int]:
    """The seats the game waits on for a decision (or an open W3/W4 window)."""
    if state.pending:
        if state.status is Status.ACCUSING:
            return [d.seat for d in state.pending]
        return [state.pending[0].seat]
    turn = state.turn
    if turn is not None and turn.phase.value in ("w3", "w4"):
        return [turn.seat]
    return []


@dataclass(frozen=True, slots=True)
class TurnClock:
    """Where the current turn's clock stands: ``number`` of the turn, ``began`` (ms), the time
    ``paused`` (ms) while the game waited on other seats, and since when it is paused."""

    number: int = 0
    began: int = 0
    paused: int = 0
    paused_since: int | None = None


class Timing:
    """The clocks of one table as its versions go by (``advance`` with each entry's time)."""

    def __init__(self, clock: ClockSettings) -> None:
        self.clock = clock
        self.turn = TurnClock()
        self.time = 0  # ms: when the current version was appended
        self.started = 0  # ms: when the game started
        self.autos: tuple[str, ...] = ()  # each seat's ``auto`` at the current version
        self.returned: dict[int, int] = {}  # seat -> when it was last taken back (ms)

    def advance(self, state: State, time: int) -> None:
        """The table reached a new version, appended at ``time`` (ms; 0: unknown, taken as
        the time before; entries from before clocks existed have none: then now)."""
        time = time or self.time or int(wall_clock.time() * 1000)
        if not self.started and state.status is not Status.NEW:
            self.started = time
        autos = tuple(p.auto for p in state.players)
        for seat, (before, now) in enumerate(zip(self.autos, autos, strict=False)):
            if before and not now:
                self.returned[seat] = time  # its grace starts again (presence may lag)
        self.autos = autos
        turn = state.turn
        t = self.turn
        if turn is None:
            t = TurnClock()
        elif turn.number != t.number:
            t = TurnClock(turn.number, time)
        owed = waiting_on(state)
        others = bool(owed) and turn is not None and owed != [turn.seat]
        if others and t.paused_since is None:
            t = replace(t, paused_since=time)
        elif not others and t.paused_since is not None:
            t = replace(t, paused=t.paused + time - t.paused_since, paused_since=None)
        self.turn, self.time = t, time

    def running(
        self, state: State, away: dict[int, int] | None = None
    ) -> list[m.RunningClock]:
        """The clocks that run now.  ``away``: seat -> away since (ms) for seats whose player
        is not connected (None: presence not known yet: no handover clock)."""
        clock, out = self.clock, []
        if state.status not in (Status.PLAYING, Status.ACCUSING):
            return []
        turn = state.turn
        if (
            clock.turn
            and turn is not None
            and state.status is Status.PLAYING
            and self.turn.paused_since is None
            and not played_by_server(state, turn.seat)
        ):
            at = self.turn.began + self.turn.paused + (clock.turn + turn.extended) * 1000
            out.append(m.RunningClock("turn", turn.seat, at))
        if clock.decision:
            for seat in waiting_on(state):
                if not played_by_server(state, seat):
                    at = self.time + int(clock.decision * 1000)
                    out.append(m.RunningClock("decision", seat, at))
        if clock.grace and away is not None:
            for seat, since in sorted(away.items()):
                p = state.players[seat]
                if not p.bot and not p.auto:
                    start = max(since, self.started, self.returned.get(seat, 0))
                    at = start + clock.grace * 1000
                    out.append(m.RunningClock("handover", seat, at))
        return out
