"""The game's random generator, keyed by the game seed (primitives in echoridge_protocol)."""

from __future__ import annotations

from dataclasses import dataclass

from echoridge_protocol.fairness import draw_below, salt


@dataclass(frozen=True, slots=True)
class Rng:
    """Draw n of a game is ``draw_below(seed, table, n, bound)``; the state counts draws used."""

    seed: bytes
    table: str

    def below(self, index: int, bound: int) -> int:
        return draw_below(self.seed, self.table, index, bound)

    def salt(self, label: str) -> bytes:
        """The salt of the committed item ``label`` (derived, not drawn: it uses no index)."""
        return salt(self.seed, self.table, label)
