"""Bot policies: given a seat's view and its legal commands, choose one command to send.

A policy sees only what its seat may see: the view map of SPEC.md §6.1 (``view["you"]`` holds
its hand, what it has seen, its known traits and tokens, the decision it owes and ``legal``, the
exact command maps it may send now).  ``choose`` always returns one member of ``legal``, the very
map it was given, unchanged.

* ``RandomPolicy``: uniform among the legal commands.
* ``GreedyPolicy``: a simple heuristic.  It reasons over known innocents (its hand and the cards
  it has seen) and known traits, accuses a suspect consistent with all of them, answers
  decisions sensibly, and on its turns takes the action, or the drive to a block and the action
  there, with the best estimated value per hour: clue actions first, then useful arrests and
  event rewards; a Coffee Break only when nothing useful can be done.  In a co-op game (§14)
  it reasons with the team's knowledge (every officer's face-up Suspect cards, the traits shown
  to everyone, the tokens any teammate has looked at), plans with its role's actions and the
  hour cap under the Out-of-Time Marker, and every seat of the team accuses the same suspect.

This module and the bot's parts depend on nothing but the standard library (the client package
must not import the server): the game data the bot needs is in ``botdata`` (and ``gamedata``),
the turn logic in ``greedy``, its value estimates in ``botvalues``.
"""

from __future__ import annotations

import random
from typing import Protocol

from echoridge_client.botdata import (
    EVENT_REWARDS,
    NAB_EVENTS,
    Command,
    View,
    candidates,
    innocents,
    suspect_trait,
)
from echoridge_client.gamedata import SUSPECT_CODES, TRAITS
from echoridge_client.greedy import Turn

__all__ = [  # the policies, and the names this module has always offered
    "EVENT_REWARDS",
    "NAB_EVENTS",
    "SUSPECT_CODES",
    "TRAITS",
    "GreedyPolicy",
    "Policy",
    "RandomPolicy",
    "candidates",
    "innocents",
    "suspect_trait",
]

# --- the policies -------------------------------------------------------------------------------


class Policy(Protocol):
    def choose(self, view: View, legal: list[Command]) -> Command:
        """Return one member of ``legal`` (the map itself, unchanged)."""
        ...


class RandomPolicy:
    """Uniform among the legal commands; the same seed gives the same choices."""

    def __init__(self, seed: int | bytes | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: View, legal: list[Command]) -> Command:
        if not legal:
            raise ValueError("no legal command to choose from")
        return self._rng.choice(legal)


class GreedyPolicy:
    """A simple heuristic player (see the module docstring); deterministic for a seed.

    Should the view lack something the heuristic expects (a server newer than this client), it
    falls back to a safe legal command and counts the miss in ``fallbacks``.
    """

    def __init__(self, seed: int | bytes | None = None) -> None:
        self._rng = random.Random(seed)
        self.fallbacks = 0

    def choose(self, view: View, legal: list[Command]) -> Command:
        if not legal:
            raise ValueError("no legal command to choose from")
        if len(legal) == 1:
            return legal[0]
        try:
            pick = Turn(view, legal, self._rng).choose()
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            pick = None
        if pick is None or not any(pick is c for c in legal):
            self.fallbacks += 1
            return _fallback(legal, self._rng)
        return pick


def _fallback(legal: list[Command], rng: random.Random) -> Command:
    for kind in ("coffee_break", "proceed"):
        for c in legal:
            if c.get("type") == kind:
                return c
    return rng.choice(legal)
