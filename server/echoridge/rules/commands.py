"""What players (and the server, for setup and timeouts) ask the engine to do.

Every command but ``StartGame`` names the seat that sends it.  Turn commands come from the active
seat; answer commands answer a decision that seat owes.
"""

from __future__ import annotations

from dataclasses import dataclass

from echoridge.rules.board import Block
from echoridge.rules.data import Evidence
from echoridge.rules.serial import tagged

# --- setup and server commands ---------------------------------------------------------------


@tagged("start_game")
@dataclass(frozen=True, slots=True)
class StartGame:
    """Sent by the server at the start.  ``names``: each seat's display name as given at join;
    ``bots``: for each seat the kind of bot the server plays it with, ``""`` for a person (both
    empty in games recorded before names existed)."""

    players: int
    names: tuple[str, ...] = ()
    bots: tuple[str, ...] = ()


@tagged("apply_default")
@dataclass(frozen=True, slots=True)
class ApplyDefault:
    """Sent by the server when a seat's decision times out: the §4.5.6 default answer."""

    seat: int


# --- the turn ---------------------------------------------------------------------------------


@tagged("drive")
@dataclass(frozen=True, slots=True)
class Drive:
    seat: int
    path: tuple[Block, ...]  # the blocks entered, in order; the start block is not listed


@tagged("play_force")
@dataclass(frozen=True, slots=True)
class PlayForce:
    seat: int
    card: str
    block: Block | None = None  # Radio Car, Tip Line and Squad Wagon name a block


@tagged("arrest")
@dataclass(frozen=True, slots=True)
class Arrest:
    seat: int


@tagged("coffee_break")
@dataclass(frozen=True, slots=True)
class CoffeeBreak:
    seat: int


@tagged("call_for_backup")
@dataclass(frozen=True, slots=True)
class CallForBackup:
    seat: int
    risk: int
    night_shift: bool = False


@tagged("catch_informant")
@dataclass(frozen=True, slots=True)
class CatchInformant:
    seat: int
    night_shift: bool = False


@tagged("catch_witness")
@dataclass(frozen=True, slots=True)
class CatchWitness:
    seat: int
    night_shift: bool = False


@tagged("search_scene")
@dataclass(frozen=True, slots=True)
class SearchScene:
    seat: int
    night_shift: bool = False


@tagged("stakeout")
@dataclass(frozen=True, slots=True)
class Stakeout:
    seat: int
    risk: int
    night_shift: bool = False


@tagged("hold_mobster")
@dataclass(frozen=True, slots=True)
class HoldMobster:
    """Bring in for Holding, step 1."""

    seat: int


@tagged("book_mobster")
@dataclass(frozen=True, slots=True)
class BookMobster:
    """Bring in for Holding, step 2."""

    seat: int


@tagged("resolve_event")
@dataclass(frozen=True, slots=True)
class ResolveEvent:
    seat: int
    slot: int  # 1..3
    night_shift: bool = False


@tagged("proceed")
@dataclass(frozen=True, slots=True)
class Proceed:
    """Close an open Force window (W3 or W4) and go on with the turn."""

    seat: int


# --- answers to decisions -----------------------------------------------------------------------


@tagged("gain_suspect")
@dataclass(frozen=True, slots=True)
class GainSuspect:
    seat: int
    look_at: int | None = None  # None: draw the top card


@tagged("interrogate")
@dataclass(frozen=True, slots=True)
class Interrogate:
    seat: int
    target: int | None  # None: skip the bonus


@tagged("pick_slot")
@dataclass(frozen=True, slots=True)
class PickSlot:
    seat: int
    slot: int  # 1-based


@tagged("discard_force")
@dataclass(frozen=True, slots=True)
class DiscardForce:
    seat: int
    card: str


@tagged("take_from_pool")
@dataclass(frozen=True, slots=True)
class TakeFromPool:
    seat: int
    card: str


@tagged("learn_trait")
@dataclass(frozen=True, slots=True)
class LearnTrait:
    seat: int
    evidence: Evidence


@tagged("peek_token")
@dataclass(frozen=True, slots=True)
class PeekToken:
    seat: int
    block: Block


@tagged("rest_case")
@dataclass(frozen=True, slots=True)
class RestCase:
    seat: int
    rest: bool


@tagged("accuse")
@dataclass(frozen=True, slots=True)
class Accuse:
    seat: int
    suspect: str


TurnCommand = (
    Drive | PlayForce | Arrest | CoffeeBreak | CallForBackup | CatchInformant | CatchWitness
    | SearchScene | Stakeout | HoldMobster | BookMobster | ResolveEvent | Proceed
)
ActionCommand = (
    Arrest | CoffeeBreak | CallForBackup | CatchInformant | CatchWitness | SearchScene | Stakeout
    | HoldMobster | BookMobster | ResolveEvent
)
Answer = (
    GainSuspect | Interrogate | PickSlot | DiscardForce | TakeFromPool | LearnTrait | PeekToken
    | RestCase | Accuse
)
Command = StartGame | ApplyDefault | TurnCommand | Answer
