"""The game's components and tables as data (rules.md sections 2, 5, 7.4, 9, 10 and 11).

The engine interprets these records through a small effect vocabulary (the ``effects`` types
below), so a ruling that changes a card, an event or a number changes this module only.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final


class Color(StrEnum):
    RED = "red"
    BLUE = "blue"
    GRAY = "gray"


COLORS: Final = (Color.RED, Color.BLUE, Color.GRAY)


class Evidence(StrEnum):
    """The five evidence kinds, in §7.1 order (also the default order of the `E` reward)."""

    RANK = "rank"
    GANG = "gang"
    FORENSICS = "forensics"
    GETAWAY = "getaway"
    WEAPON = "weapon"


EVIDENCE_ORDER: Final = tuple(Evidence)


class Action(StrEnum):
    ARREST = "arrest"
    COFFEE_BREAK = "coffee_break"
    CALL_FOR_BACKUP = "call_for_backup"
    CATCH_INFORMANT = "catch_informant"
    CATCH_WITNESS = "catch_witness"
    SEARCH_SCENE = "search_scene"
    STAKEOUT = "stakeout"
    BRING_IN_1 = "bring_in_1"
    BRING_IN_2 = "bring_in_2"
    RESOLVE_EVENT = "resolve_event"


class TimeOfDay(StrEnum):
    DAY = "day"
    NIGHT = "night"


@dataclass(frozen=True, slots=True)
class ActionSpec:
    hours: int  # base cost; for a risk action, the cost is the declared risk instead
    time: TimeOfDay | None  # None: day or night
    risk: tuple[int, int] | None = None  # inclusive range of a declared risk


ACTIONS: Final[dict[Action, ActionSpec]] = {
    Action.ARREST: ActionSpec(1, None),
    Action.COFFEE_BREAK: ActionSpec(1, None),
    Action.CALL_FOR_BACKUP: ActionSpec(0, TimeOfDay.DAY, risk=(1, 6)),
    Action.CATCH_INFORMANT: ActionSpec(2, TimeOfDay.DAY),
    Action.CATCH_WITNESS: ActionSpec(2, TimeOfDay.NIGHT),
    Action.SEARCH_SCENE: ActionSpec(2, TimeOfDay.DAY),
    Action.STAKEOUT: ActionSpec(0, TimeOfDay.NIGHT, risk=(1, 5)),
    Action.BRING_IN_1: ActionSpec(2, TimeOfDay.NIGHT),
    Action.BRING_IN_2: ActionSpec(2, TimeOfDay.NIGHT),
    Action.RESOLVE_EVENT: ActionSpec(0, None),  # hours and time come from the event card
}

# Actions that time-of-day waivers (Judge's Signature, Night Shift) may never help.
NO_TIME_WAIVER: Final = frozenset({Action.BRING_IN_1, Action.BRING_IN_2})

# --- the city and the clocks ------------------------------------------------------------------

GRID: Final = 5
HQ: Final = (3, 3)
HOURS: Final = 48  # the last space of the Time Track
DAY_SPACES: Final = frozenset(range(0, 13)) | frozenset(range(25, 37))
EVENT_LINES: Final = (8, 16, 24, 32, 40)  # a line after hour k
CLOCK_MARK: Final = frozenset(range(39, 49))  # Timed events are replaced while a tracker is here
END_ZONE: Final = frozenset(range(43, 49))  # Rest Your Case is allowed here
BADGE_MAX: Final = 10
INTERROGATE_LEVELS: Final = frozenset({2, 4, 6, 8, 10})
HAND_LIMIT: Final = 2
EVENT_SLOTS: Final = 3
MOBSTERS_PER_COLOR: Final = 5
STARTING_MOBSTERS: Final = 3
SEARCH_TOKENS: Final = (True, True, True, True, False, False)  # success sides
STAKEOUT_VALUES: Final = (1, 2, 3, 3, 4, 5)
CLUES_NEEDED: Final[dict[Evidence, int]] = {
    Evidence.RANK: 5,
    Evidence.GANG: 5,
    Evidence.FORENSICS: 3,
    Evidence.GETAWAY: 3,
    Evidence.WEAPON: 3,
}
# Mobster Roll doubles that start a Crime Spree (3-3 only while SPREE_ON_33 is active).
SPREE_DOUBLES: Final = frozenset({1, 2, 4, 5})
MIN_PLAYERS: Final = 1
MAX_PLAYERS: Final = 4

# Rules versions (docs/rulings.md 42): the server starts every new game under RULES_VERSION
# (``StartGame.rules``); a game recorded before StartGame named one is RECORDED_RULES (v1 and v2
# differ only in what their events record, so the engine plays them alike), and replays so.
RULES_VERSION: Final = 3
RECORDED_RULES: Final = 2
ENDED_CARS_COUNT: Final = 3  # from v3 a resting car on a needed block counts (ruling 44)
HANDOVER_ONCE_PER_TURN: Final = 3  # from v3 a seat hands itself over once a turn (ruling 43)
RESULT_EXPLAINED: Final = 3  # from v3 the result says why the winners won (result.decided_by)
PEOPLE_LEAD: Final = 3  # from v3 a bot never leads the co-op accusation over a person (ruling 45)

BLOCK_NAMES: Final = (
    "Harbor Docks", "Cannery Row", "Union Station", "Old Mill", "Chinatown Gate",
    "Riverside Park", "Ferris Wharf", "Saint Agnes", "Lamplight Club", "Foundry Yard",
    "Gaslight Alley", "Printers Lane", "City Hall", "Grand Hotel", "Fish Market",
    "Tenement Block", "Rail Yard", "Palace Theater", "Sawmill Flats", "Bishop Bridge",
    "Pawnbrokers", "Crown Casino", "Elm Street", "Cemetery Hill",
)
HQ_NAME: Final = "Police HQ"

# --- Suspects (§7.4) ----------------------------------------------------------------------------

# Trait values per evidence: index 0 is the 0 bit, index 1 the 1 bit.
TRAITS: Final[dict[Evidence, tuple[str, str]]] = {
    Evidence.GANG: ("Red Rhinos", "Blue Bees"),
    Evidence.RANK: ("Boss", "Underboss"),
    Evidence.FORENSICS: ("Fingerprints", "Shoeprints"),
    Evidence.GETAWAY: ("Car", "Motorcycle"),
    Evidence.WEAPON: ("Gun", "Knife"),
}
# Bit order of a suspect code, most significant first.
CODE_ORDER: Final = (
    Evidence.GANG, Evidence.RANK, Evidence.FORENSICS, Evidence.GETAWAY, Evidence.WEAPON,
)


@dataclass(frozen=True, slots=True)
class SuspectSpec:
    id: str
    name: str
    code: str

    def trait(self, evidence: Evidence) -> str:
        return TRAITS[evidence][int(self.code[CODE_ORDER.index(evidence)])]


SUSPECTS: Final[dict[str, SuspectSpec]] = {
    s.id: s
    for s in (
        SuspectSpec("S01", 'Lou "Needles" Caruso', "00000"),
        SuspectSpec("S02", "Dolores Vane", "00011"),
        SuspectSpec("S03", "Sal Moretti", "00101"),
        SuspectSpec("S04", "Ginger Malloy", "00110"),
        SuspectSpec("S05", "Eddie Two-Tone", "01001"),
        SuspectSpec("S06", "Rita Blackwood", "01010"),
        SuspectSpec("S07", "Frankie Bellows", "01100"),
        SuspectSpec("S08", "Mae Calloway", "01111"),
        SuspectSpec("S09", "Tommy Grit", "10001"),
        SuspectSpec("S10", "Iris Shade", "10010"),
        SuspectSpec("S11", "Nicky Lark", "10100"),
        SuspectSpec("S12", "Hattie Crowe", "10111"),
        SuspectSpec("S13", "Gus Pennington", "11000"),
        SuspectSpec("S14", "Lola Ferrante", "11011"),
        SuspectSpec("S15", "Benny Ashgrove", "11101"),
        SuspectSpec("S16", "Cora Dunmore", "11110"),
    )
}
SUSPECT_IDS: Final = tuple(SUSPECTS)
