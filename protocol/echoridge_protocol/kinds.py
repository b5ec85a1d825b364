"""The field kinds of protocol v2: the wire rules of one field of a message, declared next to
it with ``Annotated[..., <kind>]`` (messages.py) and read by the codec and the schema generator."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal

SAFE_INT: Final = 2**53 - 1
"""Every integer on the wire is within ±SAFE_INT, so JavaScript clients read it exactly."""


@dataclass(frozen=True, slots=True)
class Text:
    """A string of ``min_len``..``max_len`` characters (code points), matching ``pattern`` in
    full when given; ``printable``: no control, format (such as bidirectional overrides) or
    other non-printable characters; ``trimmed``: no whitespace at either end; ``visible``: text
    that shows something, with at most ``text.MAX_MARKS`` combining marks on a character
    (text.py)."""

    min_len: int = 1
    max_len: int = 64
    pattern: str | None = None
    printable: bool = False
    trimmed: bool = False  # no whitespace at either end
    visible: bool = False  # a visible character; marks bounded (text.py)


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
    """A list of ``min_items`` to ``max_items`` values, each of kind ``item`` (a kind or a
    record class).  A list that must not be empty is left out instead (SPEC.md §3.2)."""

    item: Kind | type
    max_items: int
    min_items: int = 0


@dataclass(frozen=True, slots=True)
class AnyMap:
    """An opaque map with string keys (a view, a transcript)."""


@dataclass(frozen=True, slots=True)
class CommandMap:
    """A game command a client sends: a map that is exactly one of the commands of
    ``commands.CLIENT_COMMANDS`` (SPEC.md §5.4), checked like every other map a client sends."""


@dataclass(frozen=True, slots=True)
class OpList:
    """Delta ops: a list of lists, each starting with the op name (a string)."""


Kind = Text | Int | Flag | Blob | Choice | Items | AnyMap | CommandMap | OpList


# --- limits and common field types ---------------------------------------------------------

MAX_SEATS: Final = 4
MAX_SPECTATOR_DELAY: Final = 1000
MAX_TABLES_LISTED: Final = 1000
MAX_PAGE: Final = 100  # list_tables.limit: tables in one page of the listing, at most
MAX_FEATURES: Final = 64
MAX_NAME_CHARS: Final = 32
MAX_LOG_ENTRIES: Final = 100_000
MAX_CLOCK_SECONDS: Final = 90 * 86400
MAX_CHAT_CHARS: Final = 2000  # the codec's bound (a client string's); the chat's is lower (§6.7)
MAX_CHAT_LINES: Final = 200
MAX_REPLAY_STEPS: Final = 200  # replay.limit: versions in one page of a replay, at most
MAX_GAMES_ASKED: Final = 50  # list_games.tables: the tables one request may name, at most

TABLE_ID_PATTERN: Final = r"[A-Za-z0-9_-]{1,64}"
CODE_PATTERN: Final = r"[a-z]+/[a-z_]+"
SENDER_PATTERN: Final = r"(seat|spectator):[0-9a-f]{1,32}"
CURSOR_PATTERN: Final = r"[A-Za-z0-9_.:-]{1,128}"  # list_tables.cursor: opaque to clients
SUSPECT_PATTERN: Final = r"S[0-9]{2}"
ROLE_PATTERN: Final = r"[a-z_]{1,32}"


IDENTITY_PATTERN: Final = r"[pj]-[0-9a-f]{16}"  # a player identity's id (SPEC.md §4.9)
JWT_PATTERN: Final = r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*"  # RFC 7519's compact form
TRANSFER_CODE_PATTERN: Final = r"[A-Za-z0-9_-]+"
RATED_MODES: Final = ("competitive",)  # the modes with ratings (SPEC.md §4.10)
MAX_RATING: Final = 100_000
GAME_MODES: Final = ("competitive", "cooperative", "solo")
"""A table's game (SPEC.md §4.2): ``solo`` is the competitive game with one seat."""
BOT_LEVELS: Final = ("easy", "normal", "strong")
"""The bot levels (SPEC.md §4.4, "Bot levels"): ``create_table.handover_bot`` is one."""
BOT_KINDS: Final = ("random", "greedy", *BOT_LEVELS)
"""The kinds of server bot (``add_bot.kind``): the levels, ``random`` (uniform among the legal
commands: tests and load) and ``greedy`` (the same policy as ``normal``, its name before levels)."""
STOP_REASONS: Final = ("operator",)
"""Why the server stopped a game before its end (a game record's ``stopped``, SPEC.md §4.8)."""

# Common field types.
RequestId = Annotated[str, Text(1, 64)]
TableId = Annotated[str, Text(1, 64, pattern=TABLE_ID_PATTERN)]
Token = Annotated[str, Text(1, 128, pattern=r"[!-~]+")]
IdentityId = Annotated[str, Text(18, 18, pattern=IDENTITY_PATTERN)]
ShownRating = Annotated[int, Int(0, MAX_RATING)]  # a rating as players see it
Version = Annotated[int, Int(0, SAFE_INT)]
SeatNo = Annotated[int, Int(0, MAX_SEATS - 1)]
Code = Annotated[str, Text(3, 64, pattern=CODE_PATTERN)]
Reason = Annotated[str, Text(0, 256, printable=True)]
Sentence = Annotated[str, Text(0, 1024)]
Bool = Annotated[bool, Flag()]
View = Annotated[dict[str, Any], AnyMap()]

Name = Annotated[str, Text(1, MAX_NAME_CHARS, printable=True, trimmed=True)]
# A name a client gives (join, hello): a ``Name`` that shows something.  What the server sends
# stays ``Name``, so that names kept from before this rule still decode.
ChosenName = Annotated[str, Text(1, MAX_NAME_CHARS, printable=True, trimmed=True, visible=True)]
LogEntries = Annotated[tuple[dict[str, Any], ...], Items(AnyMap(), MAX_LOG_ENTRIES, 1)]

Seconds = Annotated[int, Int(0, MAX_CLOCK_SECONDS)]
Millis = Annotated[int, Int(0, SAFE_INT)]  # a time: milliseconds since the Unix epoch (UTC)

BotKind = Literal["random", "greedy", "easy", "normal", "strong"]
BotLevel = Literal["easy", "normal", "strong"]
ClockPreset = Literal["casual", "live", "correspondence", "custom"]
ClockKind = Literal["turn", "decision", "handover"]
Channel = Literal["table", "spectators"]
TableStatus = Literal["waiting", "playing", "over"]
ListedStatus = Literal["waiting", "playing"]  # list_tables.status: the listing's filter
GameMode = Literal["competitive", "cooperative", "solo"]
RatedMode = Literal["competitive"]
SessionKind = Literal["lobby", "seat", "spectator"]
Outcome = Literal["accepted", "rejected", "duplicate"]
