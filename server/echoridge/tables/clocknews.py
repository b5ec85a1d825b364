"""What a table's sessions are told of its clocks (SPEC.md §6.5, §6.6), and when.

The runner works out the running clocks after each version and each change of presence
(servermoves.py).  A viewer at the table's version gets each new ``clocks`` message (and the
``deadline`` of a decision clock) at once.  Spectators kept behind by the table's spectator
delay get them as everything else they get: with their view.  When the spectators' view reaches
version *v*, they are told the clocks as they stood while the table was at *v* (the last
message of that version or before it), and the deadline of a wait that began at *v*; a
delayed spectator never learns who owes a decision, or when the server will act, before its
view shows the version that asks for it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from echoridge.tables.viewers import HISTORY, Encoded, Sink
from echoridge_protocol import messages as m

KEPT = 2 * HISTORY  # clocks messages remembered for delayed spectators (a few per version)


class ClockNews:
    def __init__(self, table: str) -> None:
        self.table = table
        self.clocks: Encoded | None = None  # the running clocks, as last sent
        self.deadline: m.Deadline | None = None  # the running decision clock, as last sent
        self.sent: deque[tuple[int, Encoded, m.Deadline | None]] = deque(maxlen=KEPT)
        self.spectators: Encoded | None = None  # the clocks the spectators were last told

    def running(self, version: int, running: list[m.RunningClock]) -> bool:
        """Note the clocks running at ``version``; whether that is news (it differs from the
        clocks last sent)."""
        message = m.Clocks(self.table, version, tuple(running))
        old = self.clocks.message if self.clocks is not None else None
        if old is None and not running:
            return False  # nothing ran and nothing runs: no news
        if isinstance(old, m.Clocks) and old.clocks == message.clocks:
            return False
        self.clocks = Encoded(message)
        decisions = [c for c in running if c.kind == "decision"]
        self.deadline = None
        if decisions:
            seats = tuple(c.seat for c in decisions)
            self.deadline = m.Deadline(self.table, version, seats, decisions[0].at)
        self.sent.append((version, self.clocks, self.deadline))
        return True

    def send(self, sinks: Iterable[Sink], *, spectators: bool) -> None:
        """Send the news to ``sinks`` (with ``spectators``: the spectators are among them)."""
        if self.clocks is None:
            return
        sinks = list(sinks)
        self.clocks.send(sinks)
        if self.deadline is not None:
            Encoded(self.deadline).send(sinks)
        if spectators:
            self.spectators = self.clocks

    def at(self, version: int) -> tuple[Encoded | None, m.Deadline | None]:
        """The clocks as they stood while the table was at ``version`` (None: none ran, or so
        long ago they are forgotten) and the deadline of a wait that began there."""
        for v, clocks, deadline in reversed(self.sent):
            if v <= version:
                if deadline is not None and deadline.version != version:
                    deadline = None
                return clocks, deadline
        return None, None

    def greet(self, sink: Sink, version: int, *, live: bool) -> None:
        """A new session whose view is at ``version`` (``live``: the table's own version)."""
        clocks, deadline = (self.clocks, self.deadline) if live else self.at(version)
        if deadline is not None and deadline.version == version:
            sink.deliver(Encoded(deadline)(sink.subprotocol))
        if clocks is not None:
            sink.deliver(clocks(sink.subprotocol))

    def trail(self, sinks: Iterable[Sink], version: int) -> None:
        """The delayed spectators' view reached ``version``: tell them the clocks of then."""
        clocks, deadline = self.at(version)
        told = self.spectators.message if self.spectators is not None else None
        then = clocks.message if clocks is not None else None
        if _running(told) == _running(then):
            return
        if clocks is None:  # the clocks they were told ran no more
            clocks = Encoded(m.Clocks(self.table, version, ()))
        sinks = list(sinks)
        clocks.send(sinks)
        self.spectators = clocks
        if deadline is not None:
            Encoded(deadline).send(sinks)


def _running(message: m.ServerMessage | None) -> tuple[m.RunningClock, ...]:
    return message.clocks if isinstance(message, m.Clocks) else ()
