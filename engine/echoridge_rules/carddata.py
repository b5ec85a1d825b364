"""The cards as data: the effect vocabulary, the Force cards, the abilities and the Event
cards (rules.md sections 9, 10 and 11), read by the engine through the ``effects`` types."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from echoridge_rules.data import Action, TimeOfDay

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
