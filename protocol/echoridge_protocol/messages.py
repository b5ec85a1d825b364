"""Every message of protocol v2 (``echoridge.v2``) as a typed, frozen value.

A message is a map on the wire with a string ``type`` (the class's ``TYPE``) and the fields of its
dataclass, in declaration order.  Each field's wire rules are declared next to it with
``Annotated[..., <kind>]``; the codec (``codec.py``) reads them to decode strictly and to encode.
An optional field (default ``None``) is left out of the map when it is ``None``; ``null`` is never
sent and never accepted for it.  Nested records (``Resume``, ``Limits``, ``TableInfo``) are maps
without a ``type``.

``view``, ``transcript`` and ``ops`` are opaque here: plain maps, lists and scalars (no bytes, no
floats) that the codec only checks against the size limits.  They are not deep-frozen.

Client → server: ``Hello``, ``ListTables``, ``CreateTable``, ``Join``, ``Leave``, ``Start``,
``AddBot``, ``GetTranscript``, ``SendCommand``, ``Ping``, ``ClientBye``.
Server → client: ``Welcome``, ``Delta``, ``Result``, ``Tables``, ``Created``, ``Joined``,
``Transcript``, ``ErrorMessage``, ``Presence``, ``Deadline``, ``Pong``, ``ServerBye``.
Two wire types are used in both directions with different fields (``transcript`` and ``bye``), so
decoding needs to know who sent a frame.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Annotated, Any, ClassVar, Final, Literal

from echoridge_protocol.errors import ProtocolError

PROTOCOL: Final = "echoridge.v2"
"""The protocol version a client names in ``hello`` and the server repeats in ``welcome``."""

SUBPROTOCOL_MSGPACK: Final = "echoridge.v2.msgpack"
SUBPROTOCOL_JSON: Final = "echoridge.v2.json"
SUBPROTOCOLS: Final = (SUBPROTOCOL_MSGPACK, SUBPROTOCOL_JSON)

FEATURES: Final = ("lobby", "resume", "spectate", "bots", "transcripts")
"""The feature names v2 defines (SPEC.md §8); a server lists those it offers in ``welcome``."""

SAFE_INT: Final = 2**53 - 1
"""Every integer on the wire is within ±SAFE_INT, so JavaScript clients read it exactly."""

MAX_SEATS: Final = 4
MAX_SPECTATOR_DELAY: Final = 1000
MAX_TABLES_LISTED: Final = 1000
MAX_FEATURES: Final = 64
MAX_NAME_CHARS: Final = 32
MAX_LOG_ENTRIES: Final = 100_000

TABLE_ID_PATTERN: Final = r"[A-Za-z0-9_-]{1,64}"
CODE_PATTERN: Final = r"[a-z]+/[a-z_]+"


# --- field kinds: the wire rules of one field --------------------------------------------------


@dataclass(frozen=True, slots=True)
class Text:
    """A string of ``min_len``..``max_len`` characters (code points), matching ``pattern`` in
    full when given; ``printable``: no control, format (such as bidirectional overrides) or
    other non-printable characters; ``trimmed``: no whitespace at either end."""

    min_len: int = 1
    max_len: int = 64
    pattern: str | None = None
    printable: bool = False
    trimmed: bool = False  # no whitespace at either end


@dataclass(frozen=True, slots=True)
class Int:
    """An integer (never a boolean) in ``lo``..``hi``."""

    lo: int = 0
    hi: int = SAFE_INT


@dataclass(frozen=True, slots=True)
class Flag:
    """A boolean."""


@dataclass(frozen=True, slots=True)
class Blob:
    """Bytes, ``min_len``..``max_len`` long: msgpack bin, or a lowercase hex string in JSON."""

    min_len: int
    max_len: int


@dataclass(frozen=True, slots=True)
class Choice:
    """One of a few strings."""

    options: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Items:
    """A list of at most ``max_items`` values, each of kind ``item`` (a kind or a record class)."""

    item: Kind | type
    max_items: int


@dataclass(frozen=True, slots=True)
class AnyMap:
    """An opaque map with string keys (a view, a transcript)."""


@dataclass(frozen=True, slots=True)
class CommandMap:
    """An engine command as a map: a string ``type`` (``[a-z][a-z_]*``) and values that are
    nil, booleans, integers, strings or (nested) lists of those."""


@dataclass(frozen=True, slots=True)
class OpList:
    """Delta ops: a list of lists, each starting with the op name (a string)."""


Kind = Text | Int | Flag | Blob | Choice | Items | AnyMap | CommandMap | OpList

# Common field types.
RequestId = Annotated[str, Text(1, 64)]
TableId = Annotated[str, Text(1, 64, pattern=TABLE_ID_PATTERN)]
Token = Annotated[str, Text(1, 128, pattern=r"[!-~]+")]
Version = Annotated[int, Int(0, SAFE_INT)]
SeatNo = Annotated[int, Int(0, MAX_SEATS - 1)]
Code = Annotated[str, Text(3, 64, pattern=CODE_PATTERN)]
Reason = Annotated[str, Text(0, 256, printable=True)]
Sentence = Annotated[str, Text(0, 1024)]
Bool = Annotated[bool, Flag()]
View = Annotated[dict[str, Any], AnyMap()]

Name = Annotated[str, Text(1, MAX_NAME_CHARS, printable=True, trimmed=True)]
LogEntries = Annotated[tuple[dict[str, Any], ...], Items(AnyMap(), MAX_LOG_ENTRIES)]

BotKind = Literal["random", "greedy"]
TableStatus = Literal["waiting", "playing", "over"]
SessionKind = Literal["lobby", "seat", "spectator"]
Outcome = Literal["accepted", "rejected", "duplicate"]


# --- nested records ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Resume:
    """The last point a client saw of its table: the table's ``epoch`` and the ``version``."""

    epoch: Version
    version: Version


@dataclass(frozen=True, slots=True)
class Limits:
    """The server's limits for this connection (SPEC.md §2.4)."""

    max_frame_bytes: Annotated[int, Int(1, SAFE_INT)]
    commands_per_second: Annotated[int, Int(1, SAFE_INT)]
    handshake_seconds: Annotated[int, Int(1, SAFE_INT)]
    idle_seconds: Annotated[int, Int(1, SAFE_INT)]


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """A taken seat in a ``tables`` listing: its player's display ``name`` and, for a seat the
    server plays, the ``bot`` kind."""

    seat: SeatNo
    name: Name
    bot: Annotated[BotKind, Choice(("random", "greedy"))] | None = None


@dataclass(frozen=True, slots=True)
class SeatPresence:
    """Whether a seat's player is connected, and ``since`` when (milliseconds since the Unix
    epoch, UTC): connected since, or away since."""

    seat: SeatNo
    connected: Bool
    since: Version


@dataclass(frozen=True, slots=True)
class TableInfo:
    """One table of a ``tables`` listing.  ``taken``: seats already joined (``players``: who);
    ``status``: ``waiting`` for players, ``playing`` (listed when it may be watched) or
    ``over`` (only when asked for by id);
    ``created``: creation time in milliseconds since the Unix epoch (UTC);
    ``server_seed_commit``: SHA-256 of the table's server seed (§9.1)."""

    table: TableId
    status: Annotated[TableStatus, Choice(("waiting", "playing", "over"))]
    seats: Annotated[int, Int(1, MAX_SEATS)]
    taken: Annotated[int, Int(0, MAX_SEATS)]
    players: Annotated[tuple[SeatInfo, ...], Items(SeatInfo, MAX_SEATS)]
    public: Bool
    spectators: Bool
    spectator_delay: Annotated[int, Int(0, MAX_SPECTATOR_DELAY)]
    created: Version
    server_seed_commit: Annotated[bytes, Blob(32, 32)]


# --- client -> server ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hello:
    """The first message of every connection.  No ``table``: a lobby session; ``table`` and
    ``token``: that seat; ``table`` and ``spectate``: a spectator.  ``resume``: the point the
    client last saw of that table, to get only the missing deltas."""

    TYPE: ClassVar[str] = "hello"
    protocol: Annotated[str, Text(1, 64, printable=True)]
    client: Annotated[str, Text(1, 64, printable=True)]
    table: TableId | None = None
    token: Token | None = None
    spectate: Bool | None = None
    resume: Resume | None = None

    def session_kind(self) -> SessionKind:
        """The session this hello asks for, or a ``ProtocolError`` with the code the server
        refuses it with (the codec checks each field; this checks them together)."""
        if self.token is not None and self.spectate:
            raise ProtocolError(
                "a hello cannot both present a seat token and spectate", "auth/seat_and_spectate"
            )
        if self.table is None:
            if self.token is not None or self.spectate or self.resume is not None:
                raise ProtocolError(
                    "hello: token, spectate and resume need a table", "protocol/bad_field"
                )
            return "lobby"
        if self.token is not None:
            return "seat"
        if self.spectate:
            return "spectator"
        raise ProtocolError(
            "hello: a table needs a token (to take a seat) or spectate: true", "protocol/bad_field"
        )


@dataclass(frozen=True, slots=True)
class ListTables:
    """List the public tables waiting for players or open to spectators; with ``table``, that
    one table only, public or not (whoever has a table's id may see who sits at it)."""

    TYPE: ClassVar[str] = "list_tables"
    id: RequestId
    table: TableId | None = None


@dataclass(frozen=True, slots=True)
class CreateTable:
    """Create a table.  ``spectator_delay``: how many versions spectators are kept behind."""

    TYPE: ClassVar[str] = "create_table"
    id: RequestId
    seats: Annotated[int, Int(1, MAX_SEATS)]
    public: Bool
    spectators: Bool
    spectator_delay: Annotated[int, Int(0, MAX_SPECTATOR_DELAY)]


@dataclass(frozen=True, slots=True)
class Join:
    """Take a seat: a display ``name`` and this seat's ``client_seed`` for the game seed."""

    TYPE: ClassVar[str] = "join"
    id: RequestId
    table: TableId
    name: Name
    client_seed: Annotated[bytes, Blob(16, 64)]


@dataclass(frozen=True, slots=True)
class Leave:
    """Give a seat up before the game starts."""

    TYPE: ClassVar[str] = "leave"
    id: RequestId
    table: TableId
    token: Token


@dataclass(frozen=True, slots=True)
class Start:
    """Start the game once every seat is taken; any seated token may ask."""

    TYPE: ClassVar[str] = "start"
    id: RequestId
    table: TableId
    token: Token


@dataclass(frozen=True, slots=True)
class AddBot:
    """Seat a server-side bot of the given ``kind`` at a table that has a free seat; only a
    player already seated there (``token``) may do it."""

    TYPE: ClassVar[str] = "add_bot"
    id: RequestId
    table: TableId
    token: Token
    kind: Annotated[BotKind, Choice(("random", "greedy"))]


@dataclass(frozen=True, slots=True)
class GetTranscript:
    """Ask for the public transcript of a finished game (wire type ``transcript``)."""

    TYPE: ClassVar[str] = "transcript"
    id: RequestId
    table: TableId


@dataclass(frozen=True, slots=True)
class SendCommand:
    """A game command from a seat (wire type ``command``).  ``id``: the client command id, which
    makes retries safe; ``expected``: the version the client has seen; ``command``: one of the
    maps of the seat's ``you.legal``."""

    TYPE: ClassVar[str] = "command"
    id: RequestId
    expected: Version
    command: Annotated[dict[str, Any], CommandMap()]


@dataclass(frozen=True, slots=True)
class Ping:
    """Any session, any time: the server answers ``pong`` with the same ``id`` (an application
    level keep-alive for clients that cannot see websocket pings, such as browsers)."""

    TYPE: ClassVar[str] = "ping"
    id: RequestId


@dataclass(frozen=True, slots=True)
class ClientBye:
    """The client is closing the connection (wire type ``bye``); it keeps its seat."""

    TYPE: ClassVar[str] = "bye"
    reason: Reason | None = None


# --- server -> client ------------------------------------------------------------------------


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
    for a stale one; ``code`` and ``message``: why a request was rejected."""

    TYPE: ClassVar[str] = "result"
    id: RequestId
    outcome: Annotated[Outcome, Choice(("accepted", "rejected", "duplicate"))]
    version: Version | None = None
    code: Code | None = None
    message: Sentence | None = None


@dataclass(frozen=True, slots=True)
class Tables:
    """The answer to ``list_tables``."""

    TYPE: ClassVar[str] = "tables"
    id: RequestId
    tables: Annotated[tuple[TableInfo, ...], Items(TableInfo, MAX_TABLES_LISTED)]


@dataclass(frozen=True, slots=True)
class Created:
    """The answer to ``create_table``: the new table's id and SHA-256 of its server seed."""

    TYPE: ClassVar[str] = "created"
    id: RequestId
    table: TableId
    server_seed_commit: Annotated[bytes, Blob(32, 32)]


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
class ErrorMessage:
    """A refusal that no other reply carries (wire type ``error``); ``id`` when the request's id
    was readable."""

    TYPE: ClassVar[str] = "error"
    code: Code
    message: Sentence
    id: RequestId | None = None


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


ClientMessage = (
    Hello | ListTables | CreateTable | Join | Leave | Start | AddBot | GetTranscript
    | SendCommand | Ping | ClientBye
)
ServerMessage = (
    Welcome | Delta | Result | Tables | Created | Joined | Transcript | ErrorMessage | Presence
    | Deadline | Pong | ServerBye
)
Message = ClientMessage | ServerMessage

CLIENT_MESSAGES: Final[Mapping[str, type[ClientMessage]]] = MappingProxyType(
    {
        c.TYPE: c
        for c in (
            Hello, ListTables, CreateTable, Join, Leave, Start, AddBot, GetTranscript,
            SendCommand, Ping, ClientBye,
        )
    }
)
SERVER_MESSAGES: Final[Mapping[str, type[ServerMessage]]] = MappingProxyType(
    {
        c.TYPE: c
        for c in (
            Welcome, Delta, Result, Tables, Created, Joined, Transcript, ErrorMessage, Presence,
            Deadline, Pong, ServerBye,
        )
    }
)
RECORDS: Final = (Resume, Limits, SeatInfo, SeatPresence, TableInfo)
