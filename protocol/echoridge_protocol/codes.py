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
    "rules/bad_names": "One display name and one bot kind per seat.",
    "rules/bad_mode": "A game is competitive (1 to 4 players) or cooperative (2 to 4).",
    "rules/bad_roles": "Give each seat one of the co-op roles for this player count.",
    "rules/unknown_seat": "There is no such seat at this table.",
    "rules/not_your_turn": "It is another player's turn.",
    "rules/decision_owed": "A decision is owed before the game can go on.",
    "rules/no_decision_owed": "You owe no decision of this kind now.",
    "rules/wrong_window": "That cannot be done at this point of the turn.",
    "rules/wrong_time_of_day": "That action is not allowed at this time of day.",
    "rules/over_hour_cap": (
        "That would take your tracker past the hour cap (or leave no hour after a Drive)."
    ),
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
    "rules/role_lacks_action": "Your co-op role may not take that action.",
    "rules/not_an_option": "That is not one of the choices.",
    "rules/unknown_suspect": "There is no such suspect.",
    "rules/bad_clock": "A clock is (turn seconds, bank seconds, strikes).",
    "rules/no_clock": "This table has no turn clock.",
    "rules/no_time_bank": "Your time bank is empty.",
    "rules/already_extended": "This turn already has more time.",
    "rules/turn_timed_out": "That turn has timed out: the server plays the rest of it.",
    "rules/bot_seat": "The server plays that seat with a bot.",
    "rules/already_handed_over": "The server plays that seat now.",
    "rules/not_handed_over": "You play that seat yourself.",
    "rules/bad_vote": "Vote for another player's seat.",
    "rules/already_voted": "You have voted for that already.",
    "rules/handover_used": (
        "You handed this seat to the server once this turn already; play it until the next turn."
    ),
    "rules/unknown_rules": "This engine does not play that rules version.",
}

# Protocol errors: a frame, message or delta that cannot be accepted.
PROTOCOL_CODES: Final[dict[str, str]] = {
    "protocol/bad_delta": "That delta is malformed or does not apply to the view.",
    "protocol/malformed": (
        "That frame is not one well-formed message: msgpack or JSON, a single map, no trailing"
        " bytes, no duplicate keys."
    ),
    "protocol/too_large": (
        "That frame, or a string, list, map or nesting level in it, is over the limits."
    ),
    "protocol/unknown_type": "There is no message of that type.",
    "protocol/missing_field": "A required field is missing.",
    "protocol/bad_field": "A field has the wrong type or is out of range.",
    "protocol/unknown_field": "That message has a field protocol v2 does not define.",
    "protocol/wrong_frame": (
        "Binary frames carry msgpack and text frames carry JSON; this frame is the other kind."
    ),
    "protocol/hello_first": "The first message must be hello.",
    "protocol/unsupported_version": "The server does not speak that protocol version.",
    "protocol/wrong_session": "That message is not allowed in this session or at this point.",
    "protocol/rate_limited": "Too many messages; slow down.",
}

# Refusals of the session layer: authentication, tables, commands, the server itself.
SESSION_CODES: Final[dict[str, str]] = {
    "auth/bad_token": "That token holds no seat at this table.",
    "auth/seat_and_spectate": "A connection cannot both hold a seat and spectate.",
    "auth/bad_identity": "That identity secret signs nobody in on this server.",
    "auth/banned": "You are banned from this server for now.",
    "auth/jwt_not_accepted": "This server does not accept signed tokens (jwt).",
    "auth/jwt_invalid": (
        "That signed token is not valid here: its signature, algorithm, subject or form."
    ),
    "auth/jwt_expired": "That signed token has expired; sign in again.",
    "auth/jwt_audience": "That signed token was issued for another server or by another issuer.",
    "identity/handle_taken": "That handle belongs to another player; choose another.",
    "identity/bad_code": "That transfer code is unknown, used already or expired.",
    "identity/signed_in": "This session is signed in already.",
    "identity/required": "Sign in first: that needs an identity.",
    "identity/not_found": "There is no such player.",
    "identity/already_reported": "You have reported that player at that table already.",
    "identity/too_many_blocks": "You block as many players as one may; unblock one first.",
    "table/not_found": "There is no such table.",
    "table/full": "Every seat at that table is taken.",
    "table/not_full": "Every seat must be taken before the game can start.",
    "table/started": "The game at that table has already started.",
    "table/not_started": "The game at that table has not started yet.",
    "table/not_finished": "The game at that table is not over yet.",
    "table/no_spectators": "That table does not allow spectators.",
    "table/damaged": "That table's history cannot be read; the table is closed.",
    "table/closed": (
        "That table was closed: by its creator, or because its game did not start in time."
    ),
    "table/archived": (
        "That game is over and archived: its transcript remains, the table can no longer be"
        " joined or watched."
    ),
    "table/bad_clock": "That clock is outside the server's limits.",
    "table/seat_free": "Nobody holds that seat.",
    "table/bad_mode": "Cooperative needs 2 to 4 seats, solo 1 seat.",
    "table/too_many": (
        "Too many tables from your address are waiting to start; start or close one first."
    ),
    "table/rate_limited": "Too many tables created from your address lately; wait a minute.",
    "table/already_seated": "You hold a seat at that table already.",
    "command/stale_version": (
        "The table has moved on from the version you expected; look at the new view and retry."
    ),
    "command/wrong_seat": "That command names a seat other than yours.",
    "command/played_by_server": "The server plays this seat now; take it back first.",
    "command/player_present": "That seat's player is here: it cannot be voted over.",
    "server/unavailable": "The server cannot serve that now; try again later.",
    "server/internal": "The server failed while handling that request.",
    "chat/empty": "A chat line needs some visible text.",
    "chat/too_long": "A chat line has at most 500 characters.",
    "chat/bad_text": (
        "A chat line is plain text: no control or formatting characters, and at most 4 "
        "combining marks on a character."
    ),
    "chat/rate_limited": "At most 5 chat lines every 10 seconds; wait a moment.",
    "chat/not_allowed": "Seats say on the table's chat, spectators on the spectators' chat.",
}

# Findings of transcript verification (echoridge_protocol.verify, echo-ridge verify).
VERIFY_CODES: Final[dict[str, str]] = {
    "verify/failed": "The transcript does not verify.",
    "verify/malformed": "The transcript is not a well-formed echoridge.transcript.v1 map.",
    "verify/seed": "The server seed does not open the commitment published for it.",
    "verify/draw": "A recorded random draw is not the generator's value, or one is missing.",
    "verify/version": "The entries are not numbered 1, 2, 3, and so on.",
    "verify/delta": "A public delta does not apply to the public view.",
    "verify/commitment": (
        "A commitment changed, or a revealed item does not open its commitment."
    ),
    "verify/salt": "A revealed salt is not the one the game seed gives.",
    "verify/result": "The result names another murderer than the one revealed.",
    "verify/replay": "Replayed through the rules engine, the game comes out differently.",
}

ALL_CODES: Final[dict[str, str]] = {
    **RULE_CODES,
    **PROTOCOL_CODES,
    **SESSION_CODES,
    **VERIFY_CODES,
}
