"""The Echo Ridge rules engine: pure functions over frozen records (rules.md).

    decide(state, command, rng) -> [events]     check a command and say what happens
    evolve(state, event) -> state               apply one event; fold(events) rebuilds a game
    legal_actions(state, seat) -> [commands]    what a seat may send now
    view(state, viewer) -> plain map            what a Seat, a Spectator or Everyone may see

No I/O, no clock, no global state and no ``random``: every random value comes from ``Rng`` in
``decide`` and is recorded in the events.
"""

from echoridge_rules.engine import decide
from echoridge_rules.errors import RulesError, RuleViolation
from echoridge_rules.evolve import evolve, fold
from echoridge_rules.legal import legal_actions
from echoridge_rules.model import State, Status
from echoridge_rules.rng import Rng
from echoridge_rules.viewcache import ViewCache
from echoridge_rules.views import (
    EVERYONE,
    SPECTATOR,
    Everyone,
    Seat,
    Spectator,
    Viewer,
    view,
)

__all__ = [
    "EVERYONE",
    "SPECTATOR",
    "Everyone",
    "Rng",
    "RuleViolation",
    "RulesError",
    "Seat",
    "Spectator",
    "State",
    "Status",
    "ViewCache",
    "Viewer",
    "decide",
    "evolve",
    "fold",
    "legal_actions",
    "view",
]
