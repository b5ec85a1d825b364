"""Steps still to run: the engine's agenda (a stack, next task first).

A command's effects are carried out as tasks.  When a task needs a player's decision the engine
stops, records the decision as owed and keeps the rest of the agenda in the state, so a decision
triggered in the middle of an effect is answered before that effect continues (rules.md §4.5).
"""

from __future__ import annotations

from dataclasses import dataclass

from echoridge_rules.board import Block
from echoridge_rules.carddata import Reward
from echoridge_rules.serial import tagged


@tagged("next_turn")
@dataclass(frozen=True, slots=True)
class NextTurn:
    """Begin the next player's turn, or the accusation when everyone has ended."""


@tagged("after_action")
@dataclass(frozen=True, slots=True)
class AfterAction:
    """The action and its decisions are done: open W3, or go on to the advance."""


@tagged("advance")
@dataclass(frozen=True, slots=True)
class Advance:
    """Step 2's advance, then Step 3 (Event Lines)."""


@tagged("enter_w4")
@dataclass(frozen=True, slots=True)
class EnterW4:
    """After Step 3: open W4, or go on to the Mobster Roll."""


@tagged("mobster_roll")
@dataclass(frozen=True, slots=True)
class MobsterRoll:
    pass


@tagged("end_turn")
@dataclass(frozen=True, slots=True)
class EndTurn:
    """Step 5: expiry, Rest Your Case, ending on 48, then the next turn."""


@tagged("expiry_check")
@dataclass(frozen=True, slots=True)
class ExpiryCheck:
    slot: int


@tagged("offer_rest")
@dataclass(frozen=True, slots=True)
class OfferRest:
    pass


@tagged("end_on_48")
@dataclass(frozen=True, slots=True)
class EndOn48:
    pass


@tagged("draw_event")
@dataclass(frozen=True, slots=True)
class DrawEvent:
    pass


@tagged("penalty")
@dataclass(frozen=True, slots=True)
class Penalty:
    """The Too-Many-Events Penalty, once."""


@tagged("place_mobsters")
@dataclass(frozen=True, slots=True)
class PlaceMobsters:
    """MOB(n): n bag mobsters placed with event-setup rolls."""

    count: int


@tagged("gain_badge")
@dataclass(frozen=True, slots=True)
class GainBadge:
    seat: int


@tagged("interrogate_bonus")
@dataclass(frozen=True, slots=True)
class InterrogateBonus:
    seat: int


@tagged("suspect_gain")
@dataclass(frozen=True, slots=True)
class SuspectGain:
    seat: int


@tagged("look")
@dataclass(frozen=True, slots=True)
class Look:
    seat: int
    target: int
    slot_one: bool = False  # a timed-out gain's default: take slot 1 without asking


@tagged("force_gain")
@dataclass(frozen=True, slots=True)
class ForceGain:
    seat: int


@tagged("discard_down")
@dataclass(frozen=True, slots=True)
class DiscardDown:
    """Discard down to the hand limit, one card at a time."""

    seat: int


@tagged("discard_one")
@dataclass(frozen=True, slots=True)
class DiscardOne:
    """DISCARD_F: discard 1 Force card, if the player has one."""

    seat: int


@tagged("remove_tokens")
@dataclass(frozen=True, slots=True)
class RemoveTokens:
    """Effect step (2): remove event tokens, then resolve each emptied event by slot."""

    seat: int
    removals: tuple[tuple[int, Block], ...]  # (slot, block)


@tagged("reward_event")
@dataclass(frozen=True, slots=True)
class RewardEvent:
    slot: int
    resolver: int
    contributors: tuple[int, ...]


@tagged("give_reward")
@dataclass(frozen=True, slots=True)
class GiveReward:
    seat: int
    reward: Reward


@tagged("discard_event")
@dataclass(frozen=True, slots=True)
class DiscardEvent:
    slot: int


@tagged("discard_pool")
@dataclass(frozen=True, slots=True)
class DiscardPool:
    pass


@tagged("solve_evidence")
@dataclass(frozen=True, slots=True)
class SolveEvidence:
    """Effect step (3): solve every evidence whose clue count is reached."""

    seat: int


Task = (
    NextTurn | AfterAction | Advance | EnterW4 | MobsterRoll | EndTurn | ExpiryCheck | OfferRest
    | EndOn48 | DrawEvent | Penalty | PlaceMobsters | GainBadge | InterrogateBonus | SuspectGain
    | Look | ForceGain | DiscardDown | DiscardOne | RemoveTokens | RewardEvent | GiveReward
    | DiscardEvent | DiscardPool | SolveEvidence
)
