"""The registry of stable error codes: every code the server may send, listed once.

A code is ``<area>/<name>``.  Codes are never reused or renamed; SPEC.md documents each one.
"""

from __future__ import annotations

from typing import Final

# Refusals of the rules engine: a command that the rules do not allow now.
RULE_CODES: Final[dict[str, str]] = {
    "rules/bad_command": "That command's fields have the wrong types.",
    "rules/game_not_started": "The game has not started yet.",
    "rules/game_already_started": "The game has already started.",
    "rules/game_over": "The game is over.",
    "rules/bad_player_count": "A game has 1 to 4 players.",
    "rules/unknown_seat": "There is no such seat at this table.",
    "rules/not_your_turn": "It is another player's turn.",
    "rules/decision_owed": "A decision is owed before the game can go on.",
    "rules/no_decision_owed": "You owe no decision of this kind now.",
    "rules/wrong_window": "That cannot be done at this point of the turn.",
    "rules/wrong_time_of_day": "That action is not allowed at this time of day.",
    "rules/over_hour_cap": "That would take your tracker past 48 (or leave no hour after a Drive).",
    "rules/bad_path": "A Drive must go from block to adjacent block, starting from your car.",
    "rules/no_mobster_here": "There is no mobster on your block.",
    "rules/no_mobster_nearby": "There is no mobster on your block or an adjacent block.",
    "rules/no_informant": "The Informant token of your row has already been taken.",
    "rules/no_witness": "The Witness token of your column has already been taken.",
    "rules/no_search_token": "There is no face-down Search token on your block.",
    "rules/no_stakeout_token": "There is no face-down Stakeout token on your block.",
    "rules/holding_full": "Your Holding spot is already full.",
    "rules/nothing_held": "There is no mobster on your Holding spot.",
    "rules/held_this_turn": (
        "Step 2 of Bring in for Holding needs a mobster held on an earlier turn."
    ),
    "rules/not_at_hq": "Your car must be at HQ.",
    "rules/risk_out_of_range": "That risk is outside the allowed range.",
    "rules/action_blocked": "An active event forbids that action.",
    "rules/no_such_event": "There is no active event in that slot.",
    "rules/not_on_event_token": "Your car is not on a block holding one of that event's tokens.",
    "rules/mobster_on_token": "The mobster on that token must be apprehended instead.",
    "rules/unknown_card": "There is no such Force card.",
    "rules/card_not_in_hand": "You do not hold that Force card.",
    "rules/force_blocked": "No Force card may be played now.",
    "rules/card_not_playable": "That Force card cannot be played now.",
    "rules/bad_block": "That block cannot be chosen.",
    "rules/night_shift_unavailable": "Night Shift cannot be declared for this action.",
    "rules/not_an_option": "That is not one of the choices.",
    "rules/unknown_suspect": "There is no such suspect.",
}

ALL_CODES: Final[dict[str, str]] = {**RULE_CODES}
