"""The cooperative mode's data (rules.md §14): modes, roles, the mobsters out of the game."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from echoridge_rules.data import Action

# --- cooperative mode (§14) --------------------------------------------------------------------


class Mode(StrEnum):
    """How a game is played: ``solo`` is the competitive rules with one officer (§13)."""

    COMPETITIVE = "competitive"
    COOPERATIVE = "cooperative"
    SOLO = "solo"


@dataclass(frozen=True, slots=True)
class RoleSpec:
    id: str
    name: str
    actions: frozenset[Action]  # the clue actions this role may take (§14, Allowed actions)


# The clue actions are limited by role; every role may take every other action.
CLUE_ACTIONS: Final = frozenset({
    Action.CATCH_INFORMANT, Action.CATCH_WITNESS, Action.SEARCH_SCENE, Action.STAKEOUT,
    Action.BRING_IN_1, Action.BRING_IN_2,
})
_BRING_IN = (Action.BRING_IN_1, Action.BRING_IN_2)
ROLES: Final[dict[str, RoleSpec]] = {
    r.id: r
    for r in (
        RoleSpec("detective", "Detective",
                 frozenset({Action.CATCH_WITNESS, Action.SEARCH_SCENE})),
        RoleSpec("patrol_cop", "Patrol Cop",
                 frozenset({Action.CATCH_INFORMANT, Action.STAKEOUT, *_BRING_IN})),
        RoleSpec("analyst", "Analyst", frozenset({Action.SEARCH_SCENE, Action.STAKEOUT})),
        RoleSpec("forensic_tech", "Forensic Tech",
                 frozenset({Action.CATCH_INFORMANT, Action.CATCH_WITNESS, *_BRING_IN})),
    )
}
# The roles in play for each player count, in the order §14 adds them.
ROLES_BY_COUNT: Final[dict[int, tuple[str, ...]]] = {
    2: ("detective", "patrol_cop"),
    3: ("detective", "patrol_cop", "analyst"),
    4: ("detective", "patrol_cop", "analyst", "forensic_tech"),
}
LEAD_ROLE: Final = "detective"  # whose accusation stands when the team's choices differ
ROLE_ORDER: Final = ROLES_BY_COUNT[4]  # who leads instead when a bot plays the Detective (v3)
COOP_PLAYERS: Final = frozenset(ROLES_BY_COUNT)
# Mobsters removed from the game before the setup draws (red, blue, gray); one removed gray is
# the Out-of-Time Marker.
COOP_REMOVED: Final[dict[int, tuple[int, int, int]]] = {
    2: (0, 0, 1),
    3: (1, 1, 1),
    4: (2, 2, 2),
}
MARKER_START: Final = 49  # the Out-of-Time Marker's first space, just past 48
COOP_LEFT_OUT: Final = frozenset({"good_cop", "night_shift"})  # not in the co-op ability deal
SHARED_FORCE_PLAYERS: Final = 2  # with this many officers the team shares one Force hand
