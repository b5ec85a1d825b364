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
``AddBot``, ``RemovePlayer``, ``CloseTable``, ``AskRematch``, ``Say``, ``ChatOptions``,
``GetTranscript``, ``SendCommand``, ``Ping``, ``ClientBye``.
Server → client: ``Welcome``, ``Delta``, ``Result``, ``Tables``, ``Created``, ``Joined``,
``Transcript``, ``ErrorMessage``, ``Presence``, ``Deadline``, ``Clocks``, ``Chat``, ``Rematch``,
``Pong``, ``ServerBye``.
Three wire types are used in both directions with different fields (``transcript``, ``rematch``
and ``bye``), so
decoding needs to know who sent a frame.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Annotated, Any, ClassVar, Final

from echoridge_protocol.errors import ProtocolError
from echoridge_protocol.kinds import (
    BOT_KINDS,
    BOT_LEVELS,
    CODE_PATTERN,
    CURSOR_PATTERN,
    GAME_MODES,
    IDENTITY_PATTERN,
    JWT_PATTERN,
    MAX_CHAT_CHARS,
    MAX_CHAT_LINES,
    MAX_FEATURES,
    MAX_GAMES_ASKED,
    MAX_LOG_ENTRIES,
    MAX_NAME_CHARS,
    MAX_PAGE,
    MAX_REPLAY_STEPS,
    MAX_SEATS,
    MAX_SPECTATOR_DELAY,
    MAX_TABLES_LISTED,
    ROLE_PATTERN,
    SAFE_INT,
    SENDER_PATTERN,
    STOP_REASONS,
    SUSPECT_PATTERN,
    TABLE_ID_PATTERN,
    TRANSFER_CODE_PATTERN,
    AnyMap,
    Blob,
    Bool,
    BotKind,
    BotLevel,
    Channel,
    Choice,
    ChosenName,
    ClockKind,
    ClockPreset,
    Code,
    CommandMap,
    Flag,
    GameMode,
    Int,
    Items,
    Kind,
    ListedStatus,
    LogEntries,
    Millis,
    Name,
    OpList,
    Outcome,
    Reason,
    RequestId,
    SeatNo,
    Seconds,
    Sentence,
    SessionKind,
    TableId,
    TableStatus,
    Text,
    Token,
    Version,
    View,
)
from echoridge_protocol.players import (
    Blocked,
    BlockPlayer,
    CreateIdentity,
    GetLeaderboard,
    GetPlayer,
    IdentityMessage,
    Jwt,
    Leaderboard,
    ListBlocked,
    NewTransferCode,
    PlayerPage,
    Ranked,
    RedeemCode,
    RenameIdentity,
    Report,
    TransferCode,
    UnblockPlayer,
)
from echoridge_protocol.records import (
    ChatLine,
    Clock,
    GamePlayer,
    GameRecord,
    IdentityInfo,
    Limits,
    Rating,
    ReplayStep,
    Resume,
    RunningClock,
    SeatInfo,
    SeatPresence,
    TableInfo,
)
from echoridge_protocol.server_messages import (
    Chat,
    Clocks,
    Created,
    Deadline,
    Delta,
    ErrorMessage,
    Games,
    Joined,
    Pong,
    Presence,
    Rematch,
    Replay,
    Result,
    ServerBye,
    Tables,
    Transcript,
    Welcome,
)

# The field kinds, common field types and records (kinds.py, records.py) and the server's
# messages (server_messages.py) are re-exported here: ``m.Text``, ``m.TableInfo``, ``m.Welcome``.
__all__ = [
    "BOT_KINDS", "BOT_LEVELS", "CODE_PATTERN", "CURSOR_PATTERN", "GAME_MODES", "IDENTITY_PATTERN",
    "JWT_PATTERN", "MAX_CHAT_CHARS", "MAX_CHAT_LINES", "MAX_FEATURES", "MAX_LOG_ENTRIES",
    "MAX_NAME_CHARS", "MAX_PAGE", "MAX_REPLAY_STEPS", "MAX_SEATS", "MAX_SPECTATOR_DELAY",
    "MAX_TABLES_LISTED", "ROLE_PATTERN", "SAFE_INT", "SENDER_PATTERN", "STOP_REASONS",
    "SUSPECT_PATTERN", "TABLE_ID_PATTERN", "TRANSFER_CODE_PATTERN", "AnyMap", "Blob", "BlockPlayer",
    "Blocked", "Bool", "BotKind", "BotLevel", "Channel", "Chat", "ChatLine", "Choice", "ChosenName",
    "Clock", "ClockKind", "ClockPreset", "Clocks", "Code", "CommandMap", "CreateIdentity",
    "Created", "Deadline", "Delta", "ErrorMessage", "Flag", "GameMode", "GamePlayer", "GameRecord",
    "Games", "GetLeaderboard", "GetPlayer", "IdentityInfo", "IdentityMessage", "Int", "Items",
    "Joined", "Kind", "Leaderboard", "Limits", "ListBlocked", "ListedStatus", "LogEntries",
    "Millis", "Name", "NewTransferCode", "OpList", "Outcome", "PlayerPage", "Pong", "Presence",
    "Ranked", "Rating", "Reason", "RedeemCode", "Rematch", "RenameIdentity", "Replay", "ReplayStep",
    "Report", "RequestId", "Result", "Resume", "RunningClock", "SeatInfo", "SeatNo", "SeatPresence",
    "Seconds", "Sentence", "ServerBye", "SessionKind", "TableId", "TableInfo", "TableStatus",
    "Tables", "Text", "Token", "Transcript", "TransferCode", "UnblockPlayer", "Version", "View",
    "Welcome",
]

PROTOCOL: Final = "echoridge.v2"
"""The protocol version a client names in ``hello`` and the server repeats in ``welcome``."""

SUBPROTOCOL_MSGPACK: Final = "echoridge.v2.msgpack"
SUBPROTOCOL_JSON: Final = "echoridge.v2.json"
SUBPROTOCOLS: Final = (SUBPROTOCOL_MSGPACK, SUBPROTOCOL_JSON)

FEATURES: Final = (
    "lobby", "resume", "spectate", "bots", "transcripts", "clocks", "handover", "chat", "modes",
    "lobby_pages", "rematch", "replay", "games", "identity", "jwt", "ratings", "moderation",
    "bot_levels",
)
"""The feature names v2 defines (SPEC.md §8); a server lists those it offers in ``welcome``."""




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
    name: ChosenName | None = None  # a spectator's display name in the spectators' chat
    identity: Token | None = None  # an identity's secret: the session is signed in as it
    jwt: Jwt | None = None  # a token signed by the operator's login system (feature jwt)

    def session_kind(self) -> SessionKind:
        """The session this hello asks for, or a ``ProtocolError`` with the code the server
        refuses it with (the codec checks each field; this checks them together)."""
        if self.identity is not None and self.jwt is not None:
            raise ProtocolError("hello: identity or jwt, not both", "protocol/bad_field")
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
    """List the public tables waiting for players or open to spectators, newest first, one page
    at a time: ``limit`` tables at most (absent: the server's page, 50 here), only those of
    ``status`` and of ``mode`` when given, after ``cursor`` (a previous reply's ``next``).
    With ``table``, that one table only, public or not (whoever has a table's id may see who
    sits at it); the other fields do not apply to it."""

    TYPE: ClassVar[str] = "list_tables"
    id: RequestId
    table: TableId | None = None
    status: Annotated[ListedStatus, Choice(("waiting", "playing"))] | None = None
    mode: Annotated[GameMode, Choice(GAME_MODES)] | None = None
    limit: Annotated[int, Int(1, MAX_PAGE)] | None = None
    cursor: Annotated[str, Text(1, 128, pattern=CURSOR_PATTERN)] | None = None


_TABLE = Text(1, 64, pattern=TABLE_ID_PATTERN)


@dataclass(frozen=True, slots=True)
class ListGames:
    """List finished games, newest first, one page at a time (the record of games): the public
    ones, or only those a player of that ``player`` name sat at (case and width ignored), after
    ``cursor`` (a previous reply's ``next``); or, with ``tables``, those of these tables that
    are finished games, public or not (whoever has a table's id may see its record)."""

    TYPE: ClassVar[str] = "list_games"
    id: RequestId
    player: Name | None = None
    tables: Annotated[tuple[str, ...], Items(_TABLE, MAX_GAMES_ASKED, 1)] | None = None
    limit: Annotated[int, Int(1, MAX_PAGE)] | None = None
    cursor: Annotated[str, Text(1, 128, pattern=CURSOR_PATTERN)] | None = None


@dataclass(frozen=True, slots=True)
class CreateTable:
    """Create a table.  ``spectator_delay``: how many versions spectators are kept behind;
    ``clock``: its clocks (absent: the ``casual`` preset); ``mode``: the game, ``competitive``
    (absent; with one seat the solo game), ``cooperative`` (2 to 4 seats) or ``solo`` (1 seat);
    ``handover_bot``: the level of the bot that plays a seat handed over (absent: ``normal``);
    ``rate_bots``: true, its finished game is rated with its server bots as players, each at its
    level's own rating (absent, false: bots are left out of the rating, SPEC.md §4.10)."""

    TYPE: ClassVar[str] = "create_table"
    id: RequestId
    seats: Annotated[int, Int(1, MAX_SEATS)]
    public: Bool
    spectators: Bool
    spectator_delay: Annotated[int, Int(0, MAX_SPECTATOR_DELAY)]
    clock: Clock | None = None
    mode: Annotated[GameMode, Choice(GAME_MODES)] | None = None
    handover_bot: Annotated[BotLevel, Choice(BOT_LEVELS)] | None = None
    rate_bots: Bool | None = None


@dataclass(frozen=True, slots=True)
class Join:
    """Take a seat: a display ``name`` and this seat's ``client_seed`` for the game seed."""

    TYPE: ClassVar[str] = "join"
    id: RequestId
    table: TableId
    name: ChosenName
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
    kind: Annotated[BotKind, Choice(BOT_KINDS)]


@dataclass(frozen=True, slots=True)
class RemovePlayer:
    """The table's creator (``owner``: the token of ``created``) frees a seat before the start;
    the removed player's sessions are closed (4001)."""

    TYPE: ClassVar[str] = "remove_player"
    id: RequestId
    table: TableId
    owner: Token
    seat: SeatNo


@dataclass(frozen=True, slots=True)
class CloseTable:
    """The table's creator closes a table whose game never started: it leaves the listing and
    every session there is closed (4004, ``table/closed``)."""

    TYPE: ClassVar[str] = "close_table"
    id: RequestId
    table: TableId
    owner: Token


@dataclass(frozen=True, slots=True)
class AskRematch:
    """A seat of a finished game (``token``) asks for the rematch (wire type ``rematch``): a new
    table with the same settings and the same bots in the same seats, made once per finished
    table; answered ``created``."""

    TYPE: ClassVar[str] = "rematch"
    id: RequestId
    table: TableId
    token: Token


@dataclass(frozen=True, slots=True)
class Say:
    """A chat message from a seat (channel ``table``) or a spectator (``spectators``)."""

    TYPE: ClassVar[str] = "say"
    id: RequestId
    channel: Annotated[Channel, Choice(("table", "spectators"))]
    text: Annotated[str, Text(1, MAX_CHAT_CHARS)]


@dataclass(frozen=True, slots=True)
class ChatOptions:
    """A seat asks to read the spectators' chat too (``spectators``: true) or no longer."""

    TYPE: ClassVar[str] = "chat_options"
    id: RequestId
    spectators: Bool


@dataclass(frozen=True, slots=True)
class GetTranscript:
    """Ask for the public transcript of a finished game (wire type ``transcript``)."""

    TYPE: ClassVar[str] = "transcript"
    id: RequestId
    table: TableId


@dataclass(frozen=True, slots=True)
class GetReplay:
    """Ask for a finished game as one viewer saw it, a page of versions at a time (wire type
    ``replay``): as ``seat`` saw it, as a spectator (no ``seat``), or with ``everyone``'s every
    secret; from version ``start`` (default 0), ``limit`` versions after it (default and at
    most ``MAX_REPLAY_STEPS``)."""

    TYPE: ClassVar[str] = "replay"
    id: RequestId
    table: TableId
    seat: SeatNo | None = None
    everyone: Bool | None = None
    start: Version | None = None
    limit: Annotated[int, Int(1, MAX_REPLAY_STEPS)] | None = None


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


ClientMessage = (
    Hello | ListTables | ListGames | CreateTable | Join | Leave | Start | AddBot | RemovePlayer
    | CloseTable | AskRematch | Say | ChatOptions | GetTranscript | GetReplay | SendCommand | Ping
    | ClientBye | CreateIdentity | RedeemCode | NewTransferCode | RenameIdentity | GetLeaderboard
    | GetPlayer | Report | BlockPlayer | UnblockPlayer | ListBlocked
)
ServerMessage = (
    Welcome | Delta | Result | Tables | Games | Created | Joined | Transcript | Replay
    | ErrorMessage | Presence | Deadline | Clocks | Chat | Rematch | Pong | ServerBye
    | IdentityMessage | TransferCode | Leaderboard | PlayerPage | Blocked
)
Message = ClientMessage | ServerMessage

CLIENT_MESSAGES: Final[Mapping[str, type[ClientMessage]]] = MappingProxyType(
    {
        c.TYPE: c
        for c in (
            Hello, ListTables, ListGames, CreateTable, Join, Leave, Start, AddBot, RemovePlayer,
            CloseTable, AskRematch, Say, ChatOptions, GetTranscript, GetReplay, SendCommand,
            Ping, ClientBye, CreateIdentity, RedeemCode, NewTransferCode, RenameIdentity,
            GetLeaderboard, GetPlayer, Report, BlockPlayer, UnblockPlayer, ListBlocked,
        )
    }
)
SERVER_MESSAGES: Final[Mapping[str, type[ServerMessage]]] = MappingProxyType(
    {
        c.TYPE: c
        for c in (
            Welcome, Delta, Result, Tables, Games, Created, Joined, Transcript, Replay,
            ErrorMessage, Presence, Deadline, Clocks, Chat, Rematch, Pong, ServerBye,
            IdentityMessage, TransferCode, Leaderboard, PlayerPage, Blocked,
        )
    }
)
RECORDS: Final = (
    Resume, Limits, IdentityInfo, Rating, SeatInfo, SeatPresence, Clock, RunningClock, ChatLine,
    TableInfo, ReplayStep, GamePlayer, GameRecord, Ranked,
)
