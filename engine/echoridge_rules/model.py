"""The game state: frozen records, changed only by ``evolve``.

A block is ``(col, row)`` with both in 1..5.  Per-block tables (``State.mobsters``) are tuples of 25
indexed by ``index(block) = (row - 1) * 5 + (col - 1)``, which is also the canonical block order
used by event-setup rolls.  The Time Track stack order is ``State.order``: every seat once, lower
in the stack first, so among trackers on one space the one listed last is on top.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Self

from echoridge_rules.board import Block
from echoridge_rules.coopdata import COOP_REMOVED, LEAD_ROLE, ROLE_ORDER, Mode
from echoridge_rules.data import PEOPLE_LEAD, RECORDED_RULES, Color, Evidence
from echoridge_rules.decisions import Decision
from echoridge_rules.records import fast_replace
from echoridge_rules.serial import tagged
from echoridge_rules.tasks import Task


class Status(StrEnum):
    NEW = "new"
    PLAYING = "playing"
    ACCUSING = "accusing"
    OVER = "over"


class Phase(StrEnum):
    """Where the active player's turn stands; W1-W4 are the Force windows of rules.md §9."""

    W1 = "w1"  # turn begun: Drive, W1 cards, or the action
    W2 = "w2"  # driven (or a W2 card played): W2 cards or the action
    ACTION = "action"  # the action is resolving (its decisions may be owed)
    W3 = "w3"  # after the action(s): W3 cards or proceed
    STEPS = "steps"  # Steps 2 to 5 are running
    W4 = "w4"  # after Step 3: W4 cards or proceed


class ClueKind(StrEnum):
    SEARCH = "search"
    STAKEOUT = "stakeout"


class Place(StrEnum):
    CITY = "city"  # face down on its block
    MAT = "mat"  # face up on a player's mat
    REMOVED = "removed"  # removed unrevealed after a solve


@fast_replace
@tagged("clue_token")
@dataclass(frozen=True, slots=True)
class ClueToken:
    """A Search or Stakeout token, named by the block it was placed on at setup."""

    block: Block
    kind: ClueKind
    value: int  # Search: 1 success, 0 failure; Stakeout: 1..5
    place: Place = Place.CITY
    holder: int | None = None

    def but(self, **changes: Any) -> Self:
        """A copy with these fields changed (made fast by @fast_replace)."""
        return replace(self, **changes)


@fast_replace
@tagged("active_event")
@dataclass(frozen=True, slots=True)
class ActiveEvent:
    card: str
    tokens: tuple[Block, ...] = ()  # event tokens still in the city
    removed_by: tuple[int, ...] = ()  # seats that removed a token earlier, in order
    card_mobsters: tuple[Color, ...] = ()
    deadline: int | None = None

    def but(self, **changes: Any) -> Self:
        """A copy with these fields changed (made fast by @fast_replace)."""
        return replace(self, **changes)


@fast_replace
@tagged("player")
@dataclass(frozen=True)  # no slots: see records.py
class Player:
    seat: int
    ability: str
    car: Block = (3, 3)
    space: int = 0
    ended: bool = False
    badge: int = 0
    arrests: tuple[Color, ...] = ()  # filled arrest spots
    holding: Color | None = None
    held_on_turn: int = 0
    informants: tuple[int, ...] = ()  # rows of Informant tokens taken
    witnesses: tuple[int, ...] = ()  # columns of Witness tokens taken
    holding_tokens: tuple[Color, ...] = ()
    suspects: tuple[str, ...] = ()  # the secret hand, in the order gained
    seen: tuple[str, ...] = ()  # cards seen in other players' hands, in the order seen
    shown: tuple[tuple[int, str], ...] = ()  # (looker, card): which of my cards were seen
    known_tokens: frozenset[Block] = frozenset()  # face-down tokens this player has looked at
    learned: tuple[Evidence, ...] = ()  # traits learned through an `E` reward
    look_proofs: tuple[tuple[str, str, bytes], ...] = ()  # (label, card, salt) of cards seen
    force: tuple[str, ...] = ()  # the secret Force hand, oldest first
    time_waivers: int = 0  # Night Shift uses left
    accused: bool = False
    accusation: str | None = None
    name: str = ""  # display name, as given at join
    bot: str = ""  # the kind of bot the server plays this seat with; "" for a person
    auto: str = ""  # why the server plays this person's seat now ("" : it does not); seats.py
    bank: int = 0  # seconds left in this seat's time bank
    strikes: int = 0  # turns in a row that timed out
    role: str = ""  # the co-op role (coopdata.ROLES); "" outside co-op
    auto_pass: bool = True  # the server proceeds for it in a window with nothing to play

    def but(self, **changes: Any) -> Self:
        """A copy with these fields changed (made fast by @fast_replace)."""
        return replace(self, **changes)


@fast_replace
@tagged("turn")
@dataclass(frozen=True)  # no slots: see records.py
class Turn:
    seat: int
    number: int
    start: int
    night: bool
    phase: Phase = Phase.W1
    path: tuple[Block, ...] = ()
    drive_hours: int = 0
    actions: tuple[str, ...] = ()  # Action values taken this turn
    action_hours: int = 0
    played: tuple[str, ...] = ()  # Force cards played this turn
    extra_action: bool = False  # Double Shift played: one more action
    ignore_time: bool = False  # Judge's Signature waiting for the next action
    cost_reduction: int = 0  # Rubber Stamp waiting for the next action
    risk_bonus: int = 0  # Telephoto waiting for the next risk action
    skip_roll: bool = False  # Checkpoint
    landed: int | None = None  # where this turn's advance put the tracker (Timed deadlines)
    timed_out: bool = False  # the turn clock ran out: the server plays the rest of the turn
    extended: int = 0  # seconds moved from the bank to this turn

    @property
    def hours(self) -> int:
        return self.drive_hours + self.action_hours

    def but(self, **changes: Any) -> Self:
        """A copy with these fields changed (made fast by @fast_replace)."""
        return replace(self, **changes)


@fast_replace
@dataclass(frozen=True)  # no slots: see records.py
class State:
    status: Status = Status.NEW
    players: tuple[Player, ...] = ()
    layout: tuple[str, ...] = ()  # block names by index; HQ at the center
    mobsters: tuple[Color | None, ...] = (None,) * 25
    bag: tuple[int, int, int] = (5, 5, 5)  # red, blue, gray
    informants: frozenset[int] = frozenset()  # rows whose Informant is still beside the city
    witnesses: frozenset[int] = frozenset()  # columns whose Witness is still beside the city
    hq_holding: tuple[Color, ...] = ()  # Holding tokens still on HQ
    tokens: tuple[ClueToken, ...] = ()
    murderer: str = ""
    suspect_deck: tuple[str, ...] = ()  # top first
    suspects_out: tuple[str, ...] = ()  # penalty discards, seen by nobody
    event_deck: tuple[str, ...] = ()
    event_discard: tuple[str, ...] = ()
    slots: tuple[ActiveEvent | None, ...] = (None, None, None)
    force_deck: tuple[str, ...] = ()
    force_discard: tuple[str, ...] = ()
    pool: tuple[str, ...] = ()  # revealed POOL cards not yet taken
    solved: tuple[tuple[Evidence, int], ...] = ()  # (evidence, holder) in solve order
    order: tuple[int, ...] = ()  # stack order: lower first
    lines: frozenset[int] = frozenset()  # Event Lines already crossed
    turn: Turn | None = None
    turns: int = 0  # turns begun so far
    looks: tuple[tuple[int, int], ...] = ()  # (looker, target), public
    winners: tuple[int, ...] = ()
    stopped: str | None = None  # why the game was stopped before its end (StopGame), if it was
    draws: int = 0  # random draws used so far
    deck_order: tuple[str, ...] = ()  # the Suspect deck at setup, top first (deck/N labels)
    commitments: tuple[tuple[str, bytes], ...] = ()  # (label, commitment), public from setup
    salts: tuple[tuple[str, bytes], ...] = ()  # (label, salt) of the setup items: secret
    deals: int = 0  # looks dealt so far (look/K labels)
    dealt: tuple[tuple[str, str, bytes], ...] = ()  # (look/K/S, card, salt) of every slot: secret
    agenda: tuple[Task, ...] = ()  # tasks still to run, next first
    pending: tuple[Decision, ...] = ()  # decisions owed now
    clock: tuple[int, ...] = ()  # (turn seconds, bank seconds, strikes); () for no turn clock
    votes: tuple[tuple[int, int], ...] = ()  # (voter, target) handover votes of this turn
    handed_self: tuple[int, ...] = ()  # seats handed over by play_for_me this turn (or accusation)
    mode: Mode = Mode.COMPETITIVE
    marker: int | None = None  # co-op: the Out-of-Time Marker's space (§14)
    team_force: tuple[str, ...] = ()  # co-op with 2 officers: the shared Force hand, oldest first
    team_accusation: str | None = None  # co-op: the joint accusation, once every officer chose
    rules: int = RECORDED_RULES  # the rules version the game is played under (StartGame.rules)

    @property
    def lead(self) -> int | None:
        """Co-op: the seat whose accusation stands if the team's differ: the Detective's; from
        rules v3, when a server bot plays the Detective, the first person's in role order, so
        a bot never overrules a person (ruling 45)."""
        seats = {p.role: p for p in self.players if p.role}
        order = [seats[r] for r in ROLE_ORDER if r in seats]
        if self.rules >= PEOPLE_LEAD and order and order[0].bot:
            person = next((p for p in order if not p.bot), None)
            if person is not None:
                return person.seat
        return next((p.seat for p in order if p.role == LEAD_ROLE), None)

    @property
    def removed(self) -> tuple[int, int, int]:
        """The mobsters out of the game (red, blue, gray): in co-op, §14's for the player count."""
        if self.mode is Mode.COOPERATIVE:
            return COOP_REMOVED[len(self.players)]
        return (0, 0, 0)

    def but(self, **changes: Any) -> Self:
        """A copy with these fields changed (made fast by @fast_replace)."""
        return replace(self, **changes)
