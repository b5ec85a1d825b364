"""Players who come back (protocol v2, features ``identity`` and ``ratings``; SPEC.md §4.9 and
§4.10): identities without passwords, and ratings computed from finished games.

An identity is an ``id`` (``p-`` and hex for one made here, ``j-`` and hex for one an
operator's login system vouches for with a signed token), a unique ``handle`` and a secret that
only its client holds.  A session signs in with ``hello.identity`` (the secret) or ``hello.jwt``;
``create_identity`` and ``redeem_code`` sign the session in and answer ``identity`` with the
secret, which the client keeps.  A rating is a number shown to players (``Rating.rating``), with
how sure the server is of it (``provisional``) and how many games it counts.

Messages here, both directions: ``CreateIdentity``, ``RedeemCode``, ``NewTransferCode``,
``RenameIdentity``, ``GetLeaderboard``, ``GetPlayer`` (client); ``IdentityMessage``,
``TransferCode``, ``Leaderboard``, ``PlayerPage`` (server); records ``IdentityInfo``,
``Rating``, ``Ranked``; against abuse, ``Report``, ``BlockPlayer``, ``UnblockPlayer``,
``ListBlocked`` (client) and ``Blocked`` (server; SPEC.md §4.11).  ``leaderboard`` and
``player`` are wire types of both directions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, ClassVar, Final

from echoridge_protocol.kinds import (
    CURSOR_PATTERN,
    JWT_PATTERN,
    MAX_PAGE,
    RATED_MODES,
    SAFE_INT,
    TRANSFER_CODE_PATTERN,
    Bool,
    Choice,
    ChosenName,
    IdentityId,
    Int,
    Items,
    Millis,
    Name,
    RatedMode,
    RequestId,
    SeatNo,
    ShownRating,
    TableId,
    Text,
    Token,
    Version,
)
from echoridge_protocol.records import GameRecord, IdentityInfo, Rating

Cursor = Annotated[str, Text(1, 128, pattern=CURSOR_PATTERN)]
# A signed token (JWT, RFC 7519) in its compact form: three base64url parts.
Jwt = Annotated[str, Text(5, 4096, pattern=JWT_PATTERN)]
TransferCodeText = Annotated[str, Text(8, 64, pattern=TRANSFER_CODE_PATTERN)]


# --- records ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ranked:
    """A line of the leaderboard: its ``rank`` (1: the best), who, and the rating."""

    rank: Annotated[int, Int(1, SAFE_INT)]
    identity: IdentityId
    handle: Name
    rating: ShownRating
    provisional: Bool
    games: Annotated[int, Int(0, SAFE_INT)]


# --- client -> server ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CreateIdentity:
    """Make a new identity with this ``handle`` and sign this session in as it; answered
    ``identity`` with its secret (``identity/handle_taken`` when the handle is another's)."""

    TYPE: ClassVar[str] = "create_identity"
    id: RequestId
    handle: ChosenName


@dataclass(frozen=True, slots=True)
class RedeemCode:
    """Move an identity to this device with a one-time ``transfer_code`` its owner made elsewhere
    (``new_transfer_code``), and sign this session in as it; answered ``identity`` with a
    secret of this device's own."""

    TYPE: ClassVar[str] = "redeem_code"
    id: RequestId
    transfer_code: TransferCodeText


@dataclass(frozen=True, slots=True)
class NewTransferCode:
    """A signed-in session asks for a one-time code that moves its identity to another device;
    answered ``transfer_code``."""

    TYPE: ClassVar[str] = "new_transfer_code"
    id: RequestId


@dataclass(frozen=True, slots=True)
class RenameIdentity:
    """A signed-in session changes its identity's handle; answered ``identity`` (no secret)."""

    TYPE: ClassVar[str] = "rename_identity"
    id: RequestId
    handle: ChosenName


@dataclass(frozen=True, slots=True)
class GetLeaderboard:
    """The ratings of ``mode`` (default ``competitive``), best first, a page at a time (wire
    type ``leaderboard``)."""

    TYPE: ClassVar[str] = "leaderboard"
    id: RequestId
    mode: Annotated[RatedMode, Choice(RATED_MODES)] | None = None
    limit: Annotated[int, Int(1, MAX_PAGE)] | None = None
    cursor: Cursor | None = None


@dataclass(frozen=True, slots=True)
class GetPlayer:
    """A player's page (wire type ``player``): by ``identity`` or by ``handle`` (exactly one),
    with its ratings and its finished games newest first, a page at a time."""

    TYPE: ClassVar[str] = "player"
    id: RequestId
    identity: IdentityId | None = None
    handle: Name | None = None
    limit: Annotated[int, Int(1, MAX_PAGE)] | None = None
    cursor: Cursor | None = None


REPORT_REASONS: Final = ("abuse", "cheating", "spam", "name", "other")
MAX_BLOCKS: Final = 500


@dataclass(frozen=True, slots=True)
class Report:
    """A signed-in player reports the player of ``seat`` at ``table`` (a live table or a
    finished game's replay) as of ``version``, for ``reason`` with an optional ``text``;
    answered ``result``.  Once per reporter, player and table."""

    TYPE: ClassVar[str] = "report"
    id: RequestId
    table: TableId
    seat: SeatNo
    version: Version
    reason: Annotated[str, Choice(REPORT_REASONS)]
    text: Annotated[str, Text(1, 500, printable=True, trimmed=True, visible=True)] | None = None


@dataclass(frozen=True, slots=True)
class BlockPlayer:
    """A signed-in player blocks another identity (their chat is hidden from this player, and
    the tables they sit at are marked, by the client); answered ``result``."""

    TYPE: ClassVar[str] = "block_player"
    id: RequestId
    identity: IdentityId


@dataclass(frozen=True, slots=True)
class UnblockPlayer:
    """Undo a ``block_player``; answered ``result``."""

    TYPE: ClassVar[str] = "unblock_player"
    id: RequestId
    identity: IdentityId


@dataclass(frozen=True, slots=True)
class ListBlocked:
    """The identities this signed-in player blocks; answered ``blocks``."""

    TYPE: ClassVar[str] = "list_blocked"
    id: RequestId


# --- server -> client ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Blocked:
    """The answer to ``list_blocked``: the players this player blocks."""

    TYPE: ClassVar[str] = "blocked"
    id: RequestId
    players: Annotated[tuple[IdentityInfo, ...], Items(IdentityInfo, MAX_BLOCKS)]


@dataclass(frozen=True, slots=True)
class IdentityMessage:
    """The answer to ``create_identity``, ``redeem_code`` and ``rename_identity`` (wire type
    ``identity``): the session's identity, and (not for a rename) the ``secret`` with which
    this device signs in from now on.  The server keeps only a hash of it: a client that loses
    it loses the identity, unless another device makes a transfer code."""

    TYPE: ClassVar[str] = "identity"
    id: RequestId
    identity: IdentityInfo
    secret: Token | None = None


@dataclass(frozen=True, slots=True)
class TransferCode:
    """The answer to ``new_transfer_code``: a ``transfer_code`` good for one ``redeem_code``
    until ``expires`` (ms since the Unix epoch, UTC)."""

    TYPE: ClassVar[str] = "transfer_code"
    id: RequestId
    transfer_code: TransferCodeText
    expires: Millis


@dataclass(frozen=True, slots=True)
class Leaderboard:
    """The answer to ``leaderboard``: one page of ``mode``'s ratings, best first; ``next``: the
    ``cursor`` of the page after it (absent: the last page)."""

    TYPE: ClassVar[str] = "leaderboard"
    id: RequestId
    mode: Annotated[RatedMode, Choice(RATED_MODES)]
    players: Annotated[tuple[Ranked, ...], Items(Ranked, MAX_PAGE)]
    next: Cursor | None = None


@dataclass(frozen=True, slots=True)
class PlayerPage:
    """The answer to ``player``: who, the ``ratings`` (one per rated mode played), and a page
    of the finished games this identity sat at, newest first (public ones only, unless the
    asker is this identity); ``next``: the ``cursor`` of the page after it."""

    TYPE: ClassVar[str] = "player"
    id: RequestId
    identity: IdentityInfo
    ratings: Annotated[tuple[Rating, ...], Items(Rating, len(RATED_MODES))]
    games: Annotated[tuple[GameRecord, ...], Items(GameRecord, MAX_PAGE)]
    next: Cursor | None = None
