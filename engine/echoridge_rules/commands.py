"""What players (and the server, for setup and timeouts) ask the engine to do.

Every command but ``StartGame`` names the seat that sends it.  Turn commands come from the active
seat; answer commands answer a decision that seat owes.
"""

from __future__ import annotations

from dataclasses import dataclass

from echoridge_rules.board import Block
from echoridge_rules.data import RECORDED_RULES, Evidence
from echoridge_rules.serial import tagged

# --- setup and server commands ---------------------------------------------------------------


@tagged("start_game")
@dataclass(frozen=True, slots=True)
class StartGame:
    """Sent by the server at the start.  ``names``: each seat's display name as given at join;
    ``bots``: for each seat the kind of bot the server plays it with, ``""`` for a person (both
    empty in games recorded before names existed); ``clock``: the table's turn clock as the
    rules need it, ``(turn seconds, bank seconds, strikes)`` or ``()`` for none (seats.py);
    ``mode``: ``"cooperative"`` for the co-op game (§14), else ``""`` or ``"competitive"`` (Solo
    with one player); ``roles``: the co-op roles by seat, ``()`` to draw them (R14);
    ``rules``: the rules version the game is played under (the server's: ``RULES_VERSION``;
    left out in games recorded before it existed, which are ``RECORDED_RULES``)."""

    players: int
    names: tuple[str, ...] = ()
    bots: tuple[str, ...] = ()
    clock: tuple[int, ...] = ()
    mode: str = ""
    roles: tuple[str, ...] = ()
    rules: int = RECORDED_RULES


@tagged("apply_default")
@dataclass(frozen=True, slots=True)
class ApplyDefault:
    """Sent by the server when a seat's decision times out: the §4.5.6 default answer."""

    seat: int


@tagged("time_out")
@dataclass(frozen=True, slots=True)
class TimeOut:
    """Sent by the server when the active seat's turn clock runs out: the server's bot plays
    the rest of that turn (a turn has no rules default)."""

    seat: int


@tagged("hand_over")
@dataclass(frozen=True, slots=True)
class HandOver:
    """Sent by the server: it plays ``seat`` until its player takes it back; ``reason``:
    ``away`` (the seat's player was away longer than the table's grace period)."""

    seat: int
    reason: str = "away"


@tagged("stop_game")
@dataclass(frozen=True, slots=True)
class StopGame:
    """Sent by the server: the game ends now, with no winner.  ``reason``: ``operator`` (the
    server's operator closed the table: the admin API, ``echo-ridge admin close``)."""

    reason: str = "operator"


# --- seats and clocks: any seat while the game is on (seats.py) ------------------------------


@tagged("extend_time")
@dataclass(frozen=True, slots=True)
class ExtendTime:
    """"I need more time": once per turn the active seat moves time from its bank to the turn."""

    seat: int


@tagged("play_for_me")
@dataclass(frozen=True, slots=True)
class PlayForMe:
    """The seat's player asks the server to play the seat until they take it back."""

    seat: int


@tagged("auto_pass")
@dataclass(frozen=True, slots=True)
class AutoPass:
    """The seat's "pass when I have nothing to play": while ``on`` (as a seat starts), the
    server answers ``proceed`` for the seat in a W3/W4 window where that is its only legal
    command (tables/servermoves.py)."""

    seat: int
    on: bool


@tagged("take_back")
@dataclass(frozen=True, slots=True)
class TakeBack:
    """A seat the server plays goes back to its player (sent by the player, or by the server
    when the player reconnects)."""

    seat: int


@tagged("vote_handover")
@dataclass(frozen=True, slots=True)
class VoteHandover:
    """``seat`` votes to hand ``target`` to the server early (its player is away); once every
    other seat a person plays has voted this turn, the server plays it."""

    seat: int
    target: int


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
SeatCommand = ExtendTime | PlayForMe | TakeBack | VoteHandover | AutoPass
ServerCommand = StartGame | ApplyDefault | TimeOut | HandOver | StopGame
Command = ServerCommand | SeatCommand | TurnCommand | Answer
