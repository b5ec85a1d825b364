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

# --- Effect vocabulary --------------------------------------------------------------------------


class Window(StrEnum):
    W1 = "w1"  # before the Drive
    W2 = "w2"  # after the Drive, before the action command
    W3 = "w3"  # after the action and all its decisions
    W4 = "w4"  # after Step 3, before Step 4


ANY_WINDOW: Final = frozenset(Window)


# Force card effects (§9)
@dataclass(frozen=True, slots=True)
class DriveWaive:
    blocks: int


@dataclass(frozen=True, slots=True)
class MoveCar:
    pass


@dataclass(frozen=True, slots=True)
class IgnoreTimeOfDay:
    pass


@dataclass(frozen=True, slots=True)
class PeekToken:
    pass


@dataclass(frozen=True, slots=True)
class SkipRoll:
    pass


@dataclass(frozen=True, slots=True)
class ExtraAction:
    pass


@dataclass(frozen=True, slots=True)
class CostReduction:
    hours: int


@dataclass(frozen=True, slots=True)
class RiskBonus:
    bonus: int


@dataclass(frozen=True, slots=True)
class ApprehendNear:
    pass


@dataclass(frozen=True, slots=True)
class GainSuspect:
    pass


ForceEffect = (
    DriveWaive | MoveCar | IgnoreTimeOfDay | PeekToken | SkipRoll | ExtraAction
    | CostReduction | RiskBonus | ApprehendNear | GainSuspect
)


@dataclass(frozen=True, slots=True)
class ForceSpec:
    id: str
    name: str
    copies: int
    windows: frozenset[Window]
    effect: ForceEffect
    needs_block: bool = False  # the play names a block (Radio Car, Tip Line, Squad Wagon)


FORCE_CARDS: Final[dict[str, ForceSpec]] = {
    f.id: f
    for f in (
        ForceSpec("code_three", "Code Three", 1, frozenset({Window.W1}), DriveWaive(3)),
        ForceSpec("radio_car", "Radio Car", 1, frozenset({Window.W1}), MoveCar(), True),
        ForceSpec("judges_signature", "Judge's Signature", 2, frozenset({Window.W2}),
                  IgnoreTimeOfDay()),
        ForceSpec("tip_line", "Tip Line", 2, ANY_WINDOW, PeekToken(), True),
        ForceSpec("checkpoint", "Checkpoint", 1, frozenset({Window.W4}), SkipRoll()),
        ForceSpec("double_shift", "Double Shift", 1, frozenset({Window.W3}), ExtraAction()),
        ForceSpec("rubber_stamp", "Rubber Stamp", 1, frozenset({Window.W2}), CostReduction(1)),
        ForceSpec("telephoto", "Telephoto", 1, frozenset({Window.W2}), RiskBonus(2)),
        ForceSpec("squad_wagon", "Squad Wagon", 1, frozenset({Window.W1, Window.W2}),
                  ApprehendNear(), True),
        ForceSpec("jailhouse_deal", "Jailhouse Deal", 1, ANY_WINDOW, GainSuspect()),
    )
}
FORCE_DECK: Final = tuple(f.id for f in FORCE_CARDS.values() for _ in range(f.copies))


# Ability effects (§10)
@dataclass(frozen=True, slots=True)
class LongDriveWaiver:
    blocks: int  # base hours waived, once per turn
    min_drive: int  # on a Drive of at least this many blocks


@dataclass(frozen=True, slots=True)
class TimeWaivers:
    uses: int  # per game, declared with the action


@dataclass(frozen=True, slots=True)
class StakeoutMargin:
    margin: int


@dataclass(frozen=True, slots=True)
class TwoDiceLow:
    pass


@dataclass(frozen=True, slots=True)
class SetCost:
    actions: frozenset[Action]
    hours: int


@dataclass(frozen=True, slots=True)
class HandLimitDelta:
    delta: int


@dataclass(frozen=True, slots=True)
class LookUnseen:
    pass


AbilityEffect = (
    LongDriveWaiver | TimeWaivers | StakeoutMargin | TwoDiceLow | SetCost | HandLimitDelta
    | LookUnseen
)


@dataclass(frozen=True, slots=True)
class AbilitySpec:
    id: str
    name: str
    effect: AbilityEffect


ABILITIES: Final[dict[str, AbilitySpec]] = {
    a.id: a
    for a in (
        AbilitySpec("wheelman", "Wheelman", LongDriveWaiver(1, 3)),
        AbilitySpec("night_shift", "Night Shift", TimeWaivers(2)),
        AbilitySpec("sharp_eyes", "Sharp Eyes", StakeoutMargin(1)),
        AbilitySpec("radio_ace", "Radio Ace", TwoDiceLow()),
        AbilitySpec("street_contacts", "Street Contacts",
                    SetCost(frozenset({Action.CATCH_INFORMANT, Action.CATCH_WITNESS}), 1)),
        AbilitySpec("lab_partner", "Lab Partner", SetCost(frozenset({Action.SEARCH_SCENE}), 1)),
        AbilitySpec("quartermaster", "Quartermaster", HandLimitDelta(1)),
        AbilitySpec("good_cop", "Good Cop", LookUnseen()),
    )
}
ABILITY_IDS: Final = tuple(ABILITIES)


# Event setups (§11.1)
@dataclass(frozen=True, slots=True)
class Tokens:
    count: int


@dataclass(frozen=True, slots=True)
class TokenOnHQ:
    pass


@dataclass(frozen=True, slots=True)
class MobsterOnTokens:
    pass


@dataclass(frozen=True, slots=True)
class MobstersOnCard:
    count: int


# Ongoing effects (§11.3)
@dataclass(frozen=True, slots=True)
class SurchargeToken:
    pass


@dataclass(frozen=True, slots=True)
class SurchargeRow:
    pass


@dataclass(frozen=True, slots=True)
class ActionSurcharge:
    action: Action
    hours: int


@dataclass(frozen=True, slots=True)
class RiskCap:
    action: Action
    cap: int


@dataclass(frozen=True, slots=True)
class AllNight:
    pass


@dataclass(frozen=True, slots=True)
class NoForce:
    pass


@dataclass(frozen=True, slots=True)
class EventHandLimit:
    delta: int


@dataclass(frozen=True, slots=True)
class NoForceOnBackup:
    pass


@dataclass(frozen=True, slots=True)
class SpreeOn33:
    pass


@dataclass(frozen=True, slots=True)
class BlockAction:
    action: Action


Ongoing = (
    SurchargeToken | SurchargeRow | ActionSurcharge | RiskCap | AllNight | NoForce
    | EventHandLimit | NoForceOnBackup | SpreeOn33 | BlockAction
)


class ResolveKind(StrEnum):
    VISIT = "visit"
    MEET = "meet"
    NAB = "nab"


@dataclass(frozen=True, slots=True)
class Resolve:
    kind: ResolveKind
    hours: int  # NAB: the hours of a Resolve Event on a token block with no mobster
    time: TimeOfDay | None = None


class Reward(StrEnum):
    BADGE = "B"
    FORCE = "F"
    SUSPECT = "S"
    PEEK = "P"
    INTERROGATE = "I"
    TRAIT = "E"
    POOL = "POOL"


class Penalty(StrEnum):
    PENALTY = "PEN"
    DISCARD_FORCE = "DISCARD_F"
    MOBSTERS = "MOB"


@dataclass(frozen=True, slots=True)
class Timed:
    deadline: int  # D
    penalty: Penalty
    count: int = 1  # PEN×n, MOB(n)


@dataclass(frozen=True, slots=True)
class EventSpec:
    id: str
    name: str
    setup: tuple[Tokens | TokenOnHQ | MobsterOnTokens | MobstersOnCard, ...]
    ongoing: tuple[Ongoing, ...]
    resolve: Resolve
    resolver: Reward
    contributors: Reward | None
    timed: Timed | None = None
    pool: int = 0  # k of a POOL(k) reward; one shared pool when both rewards are POOL

    @property
    def token_count(self) -> int:
        n = 0
        for s in self.setup:
            if isinstance(s, Tokens):
                n += s.count
            elif isinstance(s, TokenOnHQ):
                n += 1
        return n


_V, _M, _N = ResolveKind.VISIT, ResolveKind.MEET, ResolveKind.NAB
R = Reward
EVENTS: Final[dict[str, EventSpec]] = {
    e.id: e
    for e in (
        EventSpec("E1", "Burst Water Main", (Tokens(2),), (SurchargeToken(),),
                  Resolve(_V, 1), R.FORCE, R.PEEK),
        EventSpec("E2", "Dead Phone Lines", (Tokens(1),),
                  (RiskCap(Action.CALL_FOR_BACKUP, 4),), Resolve(_V, 2), R.BADGE, None),
        EventSpec("E3", "Scared Silent", (Tokens(1),),
                  (ActionSurcharge(Action.CATCH_WITNESS, 1),), Resolve(_V, 2), R.BADGE,
                  R.SUSPECT),
        EventSpec("E4", "Lips Sealed", (Tokens(1),),
                  (ActionSurcharge(Action.CATCH_INFORMANT, 1),), Resolve(_V, 2), R.BADGE,
                  R.SUSPECT),
        EventSpec("E5", "Citywide Blackout", (Tokens(2),), (AllNight(),), Resolve(_M, 1),
                  R.BADGE, R.BADGE),
        EventSpec("E6", "Harbor Fog", (Tokens(2),), (ActionSurcharge(Action.STAKEOUT, 1),),
                  Resolve(_V, 1), R.FORCE, R.SUSPECT),
        EventSpec("E7", "Evidence Locker Leak", (TokenOnHQ(),),
                  (ActionSurcharge(Action.BRING_IN_2, 1),), Resolve(_V, 1), R.TRAIT, None),
        EventSpec("E8", "Hostage at the Diner", (Tokens(1), MobsterOnTokens()), (),
                  Resolve(_N, 1), R.BADGE, None, Timed(8, Penalty.PENALTY)),
        EventSpec("E9", "Armored Car Heist", (Tokens(3),), (), Resolve(_V, 1), R.BADGE,
                  R.FORCE, Timed(10, Penalty.DISCARD_FORCE)),
        EventSpec("E10", "City Hall Protest", (Tokens(2),), (NoForce(),), Resolve(_M, 2),
                  R.INTERROGATE, R.SUSPECT),
        EventSpec("E11", "Gang Summit", (Tokens(2), MobsterOnTokens()),
                  (ActionSurcharge(Action.ARREST, 1),), Resolve(_N, 1), R.BADGE, R.SUSPECT),
        EventSpec("E12", "Protection Racket", (Tokens(3), MobstersOnCard(3)),
                  (NoForceOnBackup(),), Resolve(_V, 1, TimeOfDay.NIGHT), R.POOL, R.POOL,
                  pool=2),
        EventSpec("E13", "Crooked Alderman", (Tokens(1),), (EventHandLimit(-1),),
                  Resolve(_V, 3), R.TRAIT, None),
        EventSpec("E14", "Crosstown Gridlock", (Tokens(1),), (SurchargeRow(),),
                  Resolve(_V, 1), R.FORCE, None),
        EventSpec("E15", "Courthouse Fire", (Tokens(1),),
                  (ActionSurcharge(Action.SEARCH_SCENE, 1),), Resolve(_V, 2), R.BADGE,
                  R.SUSPECT, Timed(10, Penalty.PENALTY)),
        EventSpec("E16", "Numbers Racket", (Tokens(1), MobsterOnTokens()), (SpreeOn33(),),
                  Resolve(_N, 1), R.BADGE, R.SUSPECT),
        EventSpec("E17", "Missing Bookkeeper", (Tokens(2),), (), Resolve(_M, 2), R.TRAIT,
                  R.TRAIT, Timed(8, Penalty.PENALTY, 2)),
        EventSpec("E18", "Jailhouse Riot", (TokenOnHQ(),), (BlockAction(Action.BRING_IN_1),),
                  Resolve(_V, 2), R.BADGE, None, Timed(6, Penalty.MOBSTERS, 2)),
    )
}
EVENT_IDS: Final = tuple(EVENTS)


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
