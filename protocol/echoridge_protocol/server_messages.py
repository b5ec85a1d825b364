"""The messages the server sends in protocol v2 (``echoridge.v2``); messages.py has the rules
that apply to every message, the client's messages, and re-exports these."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from echoridge_protocol.kinds import (
    CURSOR_PATTERN,
    MAX_CHAT_LINES,
    MAX_FEATURES,
    MAX_PAGE,
    MAX_REPLAY_STEPS,
    MAX_SEATS,
    MAX_TABLES_LISTED,
    SAFE_INT,
    Blob,
    Bool,
    Choice,
    Code,
    Int,
    Items,
    LogEntries,
    Millis,
    OpList,
    Outcome,
    Reason,
    RequestId,
    SeatNo,
    Sentence,
    SessionKind,
    TableId,
    Text,
    Token,
    Version,
    View,
)
from echoridge_protocol.records import (
    ChatLine,
    GameRecord,
    IdentityInfo,
    Limits,
    ReplayStep,
    RunningClock,
    SeatPresence,
    TableInfo,
)


@dataclass(frozen=True, slots=True)
class Welcome:
    """The answer to ``hello``.  For a seat or spectator: ``table``, ``epoch`` and ``version``,
    ``seat`` for a seat, and ``view`` (the view at ``version``) unless ``resumed``: then the
    client's own view at ``version`` stands and the missing deltas follow."""

    TYPE: ClassVar[str] = "welcome"
    protocol: Annotated[str, Text(1, 64, printable=True)]
    server: Annotated[str, Text(1, 64, printable=True)]
    features: Annotated[
        tuple[str, ...], Items(Text(1, 64, pattern=r"[a-z0-9_.-]+"), MAX_FEATURES)
    ]
    limits: Limits
    session: Annotated[SessionKind, Choice(("lobby", "seat", "spectator"))]
    resumed: Bool
    table: TableId | None = None
    seat: SeatNo | None = None
    epoch: Version | None = None
    version: Version | None = None
    view: View | None = None
    log: LogEntries | None = None
    chat: Annotated[tuple[ChatLine, ...], Items(ChatLine, MAX_CHAT_LINES, 1)] | None = None
    identity: IdentityInfo | None = None  # a signed-in session: its identity


@dataclass(frozen=True, slots=True)
class Delta:
    """The change of this viewer's view from ``version - 1`` to ``version`` at ``table``, and
    ``log``: what happened in that version as this viewer may know it (absent: nothing)."""

    TYPE: ClassVar[str] = "delta"
    table: TableId
    epoch: Version
    version: Version
    ops: Annotated[list[Any], OpList()]
    log: LogEntries | None = None


@dataclass(frozen=True, slots=True)
class Result:
    """The answer to ``command``, ``leave``, ``start`` and ``add_bot``.  ``version``: the version
    an accepted request produced, the original's for a duplicate, the table's current version
    for a stale one; ``code`` and ``message``: why a request was rejected; ``retry_in``: for a
    rejection of a rate, the milliseconds until the same request may be accepted."""

    TYPE: ClassVar[str] = "result"
    id: RequestId
    outcome: Annotated[Outcome, Choice(("accepted", "rejected", "duplicate"))]
    version: Version | None = None
    code: Code | None = None
    message: Sentence | None = None
    retry_in: Millis | None = None  # rejected for a rate: ms until the same may be accepted


@dataclass(frozen=True, slots=True)
class Tables:
    """The answer to ``list_tables``: one page of the listing, newest first; ``next``: the
    ``cursor`` that asks for the page after it (absent: the last page)."""

    TYPE: ClassVar[str] = "tables"
    id: RequestId
    tables: Annotated[tuple[TableInfo, ...], Items(TableInfo, MAX_TABLES_LISTED)]
    next: Annotated[str, Text(1, 128, pattern=CURSOR_PATTERN)] | None = None


@dataclass(frozen=True, slots=True)
class Games:
    """The answer to ``list_games``: one page of finished games' records, newest first;
    ``next``: the ``cursor`` that asks for the page after it (absent: the last page)."""

    TYPE: ClassVar[str] = "games"
    id: RequestId
    games: Annotated[tuple[GameRecord, ...], Items(GameRecord, MAX_PAGE)]
    next: Annotated[str, Text(1, 128, pattern=CURSOR_PATTERN)] | None = None


@dataclass(frozen=True, slots=True)
class Created:
    """The answer to ``create_table``: the new table's id, SHA-256 of its server seed, and the
    secret ``owner`` token with which its creator may remove players and close it."""

    TYPE: ClassVar[str] = "created"
    id: RequestId
    table: TableId
    server_seed_commit: Annotated[bytes, Blob(32, 32)]
    owner: Token | None = None


@dataclass(frozen=True, slots=True)
class Joined:
    """The answer to ``join``: the seat taken and its secret ``token``."""

    TYPE: ClassVar[str] = "joined"
    id: RequestId
    table: TableId
    seat: SeatNo
    token: Token


@dataclass(frozen=True, slots=True)
class Transcript:
    """The answer to a ``transcript`` request: the finished game's public transcript."""

    TYPE: ClassVar[str] = "transcript"
    id: RequestId
    table: TableId
    transcript: View


@dataclass(frozen=True, slots=True)
class Replay:
    """One page of the answer to a ``replay`` request: a finished game as one viewer saw it.
    ``seat`` (absent: a spectator) or ``everyone`` says whose; ``view`` is that viewer's view
    at version ``start``, ``log`` what happened in that version as it knew it, and ``steps``
    the versions after it, in order; ``last``: the game's last version; ``next``: the
    ``start`` of the next page (absent: this page ends at ``last``)."""

    TYPE: ClassVar[str] = "replay"
    id: RequestId
    table: TableId
    everyone: Bool
    start: Version
    last: Version
    view: View
    steps: Annotated[tuple[ReplayStep, ...], Items(ReplayStep, MAX_REPLAY_STEPS)]
    seat: SeatNo | None = None
    log: LogEntries | None = None
    next: Version | None = None


@dataclass(frozen=True, slots=True)
class ErrorMessage:
    """A refusal that no other reply carries (wire type ``error``); ``id`` when the request's id
    was readable; ``retry_in``: for a refusal of a rate, the milliseconds until the same request
    may be accepted."""

    TYPE: ClassVar[str] = "error"
    code: Code
    message: Sentence
    id: RequestId | None = None
    retry_in: Millis | None = None  # refused for a rate: ms until the same may be accepted


@dataclass(frozen=True, slots=True)
class Presence:
    """Who is at a table now, outside its versions: each seat connected or away, and how many
    spectators watch.  Sent to every session of the table after its ``welcome`` and whenever
    it changes."""

    TYPE: ClassVar[str] = "presence"
    table: TableId
    seats: Annotated[tuple[SeatPresence, ...], Items(SeatPresence, MAX_SEATS)]
    spectators: Annotated[int, Int(0, SAFE_INT)]


@dataclass(frozen=True, slots=True)
class Deadline:
    """The game waits on ``seats`` at ``version`` (a decision, or an open Force window): unless
    the table moves on first, the server answers for them with the default answers at ``at``
    (milliseconds since the Unix epoch, UTC).  Sent to the table's sessions when such a wait
    begins, and after a ``welcome`` while one runs; a deadline of an older version is over."""

    TYPE: ClassVar[str] = "deadline"
    table: TableId
    version: Version
    seats: Annotated[tuple[int, ...], Items(Int(0, MAX_SEATS - 1), MAX_SEATS)]
    at: Version


@dataclass(frozen=True, slots=True)
class Clocks:
    """Every clock that runs at ``table`` at ``version`` (none: an empty list).  Sent after a
    ``welcome`` and whenever the running clocks change; the newest replaces the ones before."""

    TYPE: ClassVar[str] = "clocks"
    table: TableId
    version: Version
    clocks: Annotated[tuple[RunningClock, ...], Items(RunningClock, 3 * MAX_SEATS)]


@dataclass(frozen=True, slots=True)
class Chat:
    """New chat lines at ``table``, for this session (its channels, its spectator delay)."""

    TYPE: ClassVar[str] = "chat"
    table: TableId
    lines: Annotated[tuple[ChatLine, ...], Items(ChatLine, MAX_CHAT_LINES)]


@dataclass(frozen=True, slots=True)
class Rematch:
    """The rematch of ``table`` is ``next``: a new table with the same settings (SPEC.md §4.6).
    Sent to every session of ``table`` when it is made, and after a ``welcome`` to a session
    that opens later."""

    TYPE: ClassVar[str] = "rematch"
    table: TableId
    next: TableId


@dataclass(frozen=True, slots=True)
class Pong:
    """The answer to ``ping``."""

    TYPE: ClassVar[str] = "pong"
    id: RequestId


@dataclass(frozen=True, slots=True)
class ServerBye:
    """Sent just before the server closes the connection (wire type ``bye``); ``code`` is the
    websocket close code it is about to use."""

    TYPE: ClassVar[str] = "bye"
    code: Annotated[int, Int(1000, 4999)]
    reason: Reason
