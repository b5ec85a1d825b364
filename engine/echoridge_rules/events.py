"""What happened: the facts ``decide`` emits and ``evolve`` applies.

Every random outcome is drawn in ``decide`` and stored here, so replaying events never draws.
Each draw itself is recorded as ``Drawn`` (index, bound, value) for verification.
"""

from __future__ import annotations

from dataclasses import dataclass

from echoridge_rules.board import Block
from echoridge_rules.data import RECORDED_RULES, Color, Evidence
from echoridge_rules.decisions import Decision
from echoridge_rules.model import ClueKind, ClueToken, Phase
from echoridge_rules.seat_events import AutoPassSet as AutoPassSet
from echoridge_rules.seat_events import HandoverVoted as HandoverVoted
from echoridge_rules.seat_events import SeatHandedOver as SeatHandedOver
from echoridge_rules.seat_events import SeatTakenBack as SeatTakenBack
from echoridge_rules.seat_events import TimeExtended as TimeExtended
from echoridge_rules.seat_events import TurnTimedOut as TurnTimedOut
from echoridge_rules.serial import tagged
from echoridge_rules.tasks import Task


@tagged("drawn")
@dataclass(frozen=True, slots=True)
class Drawn:
    index: int
    bound: int
    value: int


@tagged("game_started")
@dataclass(frozen=True, slots=True)
class GameStarted:
    players: int
    layout: tuple[str, ...]
    tokens: tuple[ClueToken, ...]
    murderer: str
    suspect_deck: tuple[str, ...]
    event_deck: tuple[str, ...]
    force_deck: tuple[str, ...]
    abilities: tuple[str, ...]
    order: tuple[int, ...]
    commitments: tuple[tuple[str, bytes], ...] = ()
    salts: tuple[tuple[str, bytes], ...] = ()
    names: tuple[str, ...] = ()  # per seat, as in StartGame
    bots: tuple[str, ...] = ()
    clock: tuple[int, ...] = ()  # as in StartGame
    mode: str = ""  # "cooperative" for co-op, "" otherwise (competitive, or Solo with one player)
    roles: tuple[str, ...] = ()  # co-op: each seat's role
    rules: int = RECORDED_RULES  # the rules version, as in StartGame


@tagged("continued")
@dataclass(frozen=True, slots=True)
class Continued:
    """The engine's control state after a command: the agenda and the decisions owed."""

    agenda: tuple[Task, ...]
    pending: tuple[Decision, ...]


# --- turn flow ----------------------------------------------------------------------------------


@tagged("turn_began")
@dataclass(frozen=True, slots=True)
class TurnBegan:
    seat: int
    number: int
    night: bool


@tagged("phase_entered")
@dataclass(frozen=True, slots=True)
class PhaseEntered:
    phase: Phase


@tagged("car_driven")
@dataclass(frozen=True, slots=True)
class CarDriven:
    seat: int
    path: tuple[Block, ...]
    hours: int


@tagged("force_played")
@dataclass(frozen=True, slots=True)
class ForcePlayed:
    seat: int
    card: str
    block: Block | None


@tagged("car_moved")
@dataclass(frozen=True, slots=True)
class CarMoved:
    seat: int
    block: Block


@tagged("action_taken")
@dataclass(frozen=True, slots=True)
class ActionTaken:
    seat: int
    action: str
    hours: int
    risk: int | None = None
    slot: int | None = None
    night_shift: bool = False


@tagged("tracker_advanced")
@dataclass(frozen=True, slots=True)
class TrackerAdvanced:
    seat: int
    space: int
    lines: tuple[int, ...]  # Event Lines this advance crossed first


@tagged("trackers_pushed")
@dataclass(frozen=True, slots=True)
class TrackersPushed:
    """A penalty move: every tracker not on 48 moves forward 1 space."""


@tagged("mobster_rolled")
@dataclass(frozen=True, slots=True)
class MobsterRolled:
    black: int
    white: int


@tagged("marker_moved")
@dataclass(frozen=True, slots=True)
class MarkerMoved:
    """Co-op: the Too-Many-Events Penalty moves the Out-of-Time Marker back to ``space``."""

    space: int


@tagged("player_ended")
@dataclass(frozen=True, slots=True)
class PlayerEnded:
    seat: int
    rested: bool


# --- mobsters -----------------------------------------------------------------------------------


@tagged("mobster_placed")
@dataclass(frozen=True, slots=True)
class MobsterPlaced:
    block: Block
    color: Color


@tagged("mobster_apprehended")
@dataclass(frozen=True, slots=True)
class MobsterApprehended:
    """A mobster taken off a block and returned to the bag."""

    seat: int
    block: Block
    color: Color


@tagged("mobster_arrested")
@dataclass(frozen=True, slots=True)
class MobsterArrested:
    """A mobster taken off a block onto its empty arrest spot."""

    seat: int
    block: Block
    color: Color


@tagged("arrest_set_completed")
@dataclass(frozen=True, slots=True)
class ArrestSetCompleted:
    seat: int


@tagged("mobster_held")
@dataclass(frozen=True, slots=True)
class MobsterHeld:
    seat: int
    block: Block
    color: Color


@tagged("held_mobster_released")
@dataclass(frozen=True, slots=True)
class HeldMobsterReleased:
    seat: int


# --- clues, badge and evidence ------------------------------------------------------------------


@tagged("badge_raised")
@dataclass(frozen=True, slots=True)
class BadgeRaised:
    seat: int
    level: int


@tagged("backup_called")
@dataclass(frozen=True, slots=True)
class BackupCalled:
    seat: int
    risk: int
    dice: tuple[int, ...]
    success: bool


@tagged("informant_taken")
@dataclass(frozen=True, slots=True)
class InformantTaken:
    seat: int
    row: int


@tagged("witness_taken")
@dataclass(frozen=True, slots=True)
class WitnessTaken:
    seat: int
    col: int


@tagged("search_token_flipped")
@dataclass(frozen=True, slots=True)
class SearchTokenFlipped:
    seat: int
    block: Block
    success: bool


@tagged("token_peeked")
@dataclass(frozen=True, slots=True)
class TokenPeeked:
    """A player privately looked at a face-down token (Stakeout, Tip Line, `P` reward)."""

    seat: int
    block: Block


@tagged("stakeout_succeeded")
@dataclass(frozen=True, slots=True)
class StakeoutSucceeded:
    seat: int
    block: Block
    risk: int
    value: int


@tagged("stakeout_failed")
@dataclass(frozen=True, slots=True)
class StakeoutFailed:
    seat: int
    block: Block
    risk: int


@tagged("holding_token_taken")
@dataclass(frozen=True, slots=True)
class HoldingTokenTaken:
    seat: int
    color: Color


@tagged("evidence_solved")
@dataclass(frozen=True, slots=True)
class EvidenceSolved:
    evidence: Evidence
    seat: int


@tagged("city_tokens_removed")
@dataclass(frozen=True, slots=True)
class CityTokensRemoved:
    kind: ClueKind


@tagged("trait_learned")
@dataclass(frozen=True, slots=True)
class TraitLearned:
    seat: int
    evidence: Evidence


# --- Suspects -----------------------------------------------------------------------------------


@tagged("suspect_drawn")
@dataclass(frozen=True, slots=True)
class SuspectDrawn:
    seat: int
    card: str


@tagged("suspect_gain_lost")
@dataclass(frozen=True, slots=True)
class SuspectGainLost:
    seat: int


@tagged("slots_dealt")
@dataclass(frozen=True, slots=True)
class SlotsDealt:
    """The target's cards (Good Cop: the unseen ones) shuffled into face-down slots."""

    seat: int
    target: int
    slots: tuple[str, ...]
    salts: tuple[bytes, ...] = ()  # one per slot; the slots are committed as look/K/S


@tagged("suspect_seen")
@dataclass(frozen=True, slots=True)
class SuspectSeen:
    """A look took place; ``card`` is None when there was nothing to pick (Good Cop)."""

    seat: int
    target: int
    card: str | None
    label: str | None = None  # the look/K/S proof of the card for the looker
    salt: bytes | None = None


@tagged("suspect_removed")
@dataclass(frozen=True, slots=True)
class SuspectRemoved:
    """A penalty: the top Suspect card leaves the game unseen."""

    card: str


# --- Force cards --------------------------------------------------------------------------------


@tagged("force_deck_shuffled")
@dataclass(frozen=True, slots=True)
class ForceDeckShuffled:
    cards: tuple[str, ...]


@tagged("force_gained")
@dataclass(frozen=True, slots=True)
class ForceGained:
    """The top Force card to a hand, or straight to the discard pile for an ended player."""

    seat: int
    card: str
    kept: bool


@tagged("force_gain_lost")
@dataclass(frozen=True, slots=True)
class ForceGainLost:
    seat: int


@tagged("force_discarded")
@dataclass(frozen=True, slots=True)
class ForceDiscarded:
    seat: int
    card: str
    position: int  # index in the hand, oldest first


@tagged("pool_revealed")
@dataclass(frozen=True, slots=True)
class PoolRevealed:
    cards: tuple[str, ...]


@tagged("pool_card_taken")
@dataclass(frozen=True, slots=True)
class PoolCardTaken:
    seat: int
    card: str
    kept: bool


@tagged("pool_discarded")
@dataclass(frozen=True, slots=True)
class PoolDiscarded:
    pass


# --- events (the event cards) -------------------------------------------------------------------


@tagged("event_deck_shuffled")
@dataclass(frozen=True, slots=True)
class EventDeckShuffled:
    cards: tuple[str, ...]


@tagged("event_replaced")
@dataclass(frozen=True, slots=True)
class EventReplaced:
    """A Timed event revealed while a tracker is on 39-48: discarded at once."""

    card: str


@tagged("event_placed")
@dataclass(frozen=True, slots=True)
class EventPlaced:
    card: str
    slot: int
    deadline: int | None


@tagged("event_token_placed")
@dataclass(frozen=True, slots=True)
class EventTokenPlaced:
    slot: int
    block: Block


@tagged("card_mobster_added")
@dataclass(frozen=True, slots=True)
class CardMobsterAdded:
    slot: int
    color: Color


@tagged("event_token_removed")
@dataclass(frozen=True, slots=True)
class EventTokenRemoved:
    slot: int
    block: Block
    seat: int


@tagged("event_resolved")
@dataclass(frozen=True, slots=True)
class EventResolved:
    slot: int
    resolver: int
    contributors: tuple[int, ...]


@tagged("event_expired")
@dataclass(frozen=True, slots=True)
class EventExpired:
    slot: int


@tagged("event_discarded")
@dataclass(frozen=True, slots=True)
class EventDiscarded:
    slot: int


# --- the end ------------------------------------------------------------------------------------


@tagged("accusation_opened")
@dataclass(frozen=True, slots=True)
class AccusationOpened:
    pass


@tagged("accused")
@dataclass(frozen=True, slots=True)
class Accused:
    seat: int
    suspect: str | None  # None: no accusation (a timed-out decision), which counts as wrong


@tagged("game_ended")
@dataclass(frozen=True, slots=True)
class GameEnded:
    winners: tuple[int, ...]
    team_accusation: str | None = None  # co-op: the joint accusation


@tagged("game_stopped")
@dataclass(frozen=True, slots=True)
class GameStopped:
    """The game ended before its end, with no winner (``StopGame``): ``reason`` as there."""

    reason: str


Event = (
    Drawn | GameStarted | Continued | TurnBegan | PhaseEntered | CarDriven | ForcePlayed
    | CarMoved | ActionTaken | TrackerAdvanced | TrackersPushed | MarkerMoved | MobsterRolled
    | PlayerEnded
    | MobsterPlaced | MobsterApprehended | MobsterArrested | ArrestSetCompleted | MobsterHeld
    | HeldMobsterReleased | BadgeRaised | BackupCalled | InformantTaken | WitnessTaken
    | SearchTokenFlipped | TokenPeeked | StakeoutSucceeded | StakeoutFailed | HoldingTokenTaken
    | EvidenceSolved | CityTokensRemoved | TraitLearned | SuspectDrawn | SuspectGainLost
    | SlotsDealt | SuspectSeen | SuspectRemoved | ForceDeckShuffled | ForceGained | ForceGainLost
    | ForceDiscarded | PoolRevealed | PoolCardTaken | PoolDiscarded | EventDeckShuffled
    | EventReplaced | EventPlaced | EventTokenPlaced | CardMobsterAdded | EventTokenRemoved
    | EventResolved | EventExpired | EventDiscarded | AccusationOpened | Accused | GameEnded
    | GameStopped
    | TurnTimedOut | SeatHandedOver | SeatTakenBack | TimeExtended | HandoverVoted
    | AutoPassSet
)
