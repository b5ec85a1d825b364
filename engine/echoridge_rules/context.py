"""The working context of one ``decide`` call: the state as it evolves, the events so far, and
the random draws (each recorded as a ``Drawn`` event)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from echoridge_rules.data import COLORS, Color
from echoridge_rules.decisions import Decision
from echoridge_rules.events import Drawn, Event
from echoridge_rules.evolve import evolve
from echoridge_rules.model import State
from echoridge_rules.rng import Rng
from echoridge_rules.tasks import Task

T = TypeVar("T")


class Ctx:
    __slots__ = ("events", "rng", "state")

    def __init__(self, state: State, rng: Rng) -> None:
        self.state = state
        self.rng = rng
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.state = evolve(self.state, event)
        self.events.append(event)

    # --- randomness -------------------------------------------------------------------------

    def below(self, bound: int) -> int:
        """One draw: a uniform integer in range(bound)."""
        index = self.state.draws
        value = self.rng.below(index, bound)
        self.emit(Drawn(index, bound, value))
        return value

    def salt(self, label: str) -> bytes:
        """The salt of a committed item (derived from the seed; no draw is used)."""
        return self.rng.salt(label)

    def pick(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def shuffle(self, items: Sequence[T]) -> tuple[T, ...]:
        """Fisher-Yates from the last position down: for i = n-1..1, swap i with draw(i+1)."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return tuple(out)

    def sample(self, items: Sequence[T], k: int) -> tuple[T, ...]:
        """k distinct items in random order: for i = 0..k-1, swap i with i + draw(n-i)."""
        out = list(items)
        for i in range(k):
            j = i + self.below(len(out) - i)
            out[i], out[j] = out[j], out[i]
        return tuple(out[:k])

    def bag_draw(self) -> Color:
        """A uniform mobster from the bag (the bag must not be empty), by colour order."""
        value = self.below(sum(self.state.bag))
        for color, count in zip(COLORS, self.state.bag, strict=True):
            if value < count:
                return color
            value -= count
        raise AssertionError("bag draw out of range")

    # --- control ----------------------------------------------------------------------------

    def push(self, *tasks: Task) -> None:
        """Run these tasks next, in the order given."""
        if tasks:
            self.state = self.state.but(agenda=(*tasks, *self.state.agenda))

    def ask(self, decision: Decision) -> None:
        self.state = self.state.but(pending=(*self.state.pending, decision))
