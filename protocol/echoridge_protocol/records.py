"""The nested records of protocol v2: maps without a ``type`` inside messages (messages.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from echoridge_protocol.kinds import (
    BOT_KINDS,
    BOT_LEVELS,
    GAME_MODES,
    MAX_CHAT_CHARS,
    MAX_RATING,
    MAX_SEATS,
    MAX_SPECTATOR_DELAY,
    RATED_MODES,
    ROLE_PATTERN,
    SAFE_INT,
    SENDER_PATTERN,
    STOP_REASONS,
    SUSPECT_PATTERN,
    Blob,
    Bool,
    BotKind,
    BotLevel,
    Channel,
    Choice,
    ClockKind,
    ClockPreset,
    GameMode,
    IdentityId,
    Int,
    Items,
    LogEntries,
    Millis,
    Name,
    OpList,
    RatedMode,
    SeatNo,
    Seconds,
    ShownRating,
    TableId,
    TableStatus,
    Text,
    Version,
)


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
class IdentityInfo:
    """A player identity: its ``id`` (stable) and ``handle`` (unique, case and width ignored;
    its owner may change it)."""

    id: IdentityId
    handle: Name


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's rating in one ``mode``: ``rating`` is the number shown (new players start at
    1000; it rises with wins and as the server grows sure of the player's skill),
    ``provisional`` while the server is not sure yet, ``games`` the rated games counted."""

    mode: Annotated[RatedMode, Choice(RATED_MODES)]
    rating: ShownRating
    provisional: Bool
    games: Annotated[int, Int(0, SAFE_INT)]


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """A taken seat in a ``tables`` listing: its player's display ``name`` and, for a seat the
    server plays, the ``bot`` kind; for a seat taken by a signed-in player, its ``identity``
    and ``rating`` in the table's mode (when that mode is rated and the player has one)."""

    seat: SeatNo
    name: Name
    bot: Annotated[BotKind, Choice(BOT_KINDS)] | None = None
    identity: IdentityId | None = None
    rating: Rating | None = None


@dataclass(frozen=True, slots=True)
class SeatPresence:
    """Whether a seat's player is connected, and ``since`` when (milliseconds since the Unix
    epoch, UTC): connected since, or away since."""

    seat: SeatNo
    connected: Bool
    since: Version


@dataclass(frozen=True, slots=True)
class Clock:
    """A table's clocks, in seconds (0: none).  ``turn``: a turn's own time; ``bank``: each seat's
    reserve, moved to a turn by ``extend_time``; ``decision``: the time for a decision owed;
    ``grace``: how long a seat's player may be away during the game before the server plays the
    seat; ``strikes``: after this many turns in a row timed out the server plays the seat (0:
    never).  In ``create_table`` only ``preset`` is needed: a field left out takes the preset's
    value (``custom`` starts from ``live``); a ``tables`` listing gives them all (SPEC.md §4.2)."""

    preset: Annotated[ClockPreset, Choice(("casual", "live", "correspondence", "custom"))]
    turn: Seconds | None = None
    bank: Seconds | None = None
    decision: Seconds | None = None
    grace: Seconds | None = None
    strikes: Annotated[int, Int(0, 10)] | None = None


@dataclass(frozen=True, slots=True)
class RunningClock:
    """One clock that runs now: unless the table moves on first, at ``at`` the server plays
    ``seat``'s turn (``turn``), answers its decision with the default (``decision``) or plays
    the seat until its player is back (``handover``: the seat's player is away)."""

    kind: Annotated[ClockKind, Choice(("turn", "decision", "handover"))]
    seat: SeatNo
    at: Millis


@dataclass(frozen=True, slots=True)
class ChatLine:
    """One chat message.  ``seq``: its number in its channel (1, 2, ...); ``sender``: who sent
    it, stable for a seat (``seat:N``) and for one spectator's connection (``spectator:<hex>``),
    the key to mute by; ``seat``: the sender's seat; ``identity``: the sender's identity when it
    is signed in (SPEC.md §4.9; the key a client hides a blocked player's lines by);
    ``version``: the table's version when it was said; ``at``: when.  ``text`` is plain text,
    never markup."""

    seq: Annotated[int, Int(1, SAFE_INT)]
    channel: Annotated[Channel, Choice(("table", "spectators"))]
    sender: Annotated[str, Text(1, 48, pattern=SENDER_PATTERN)]
    name: Name
    text: Annotated[str, Text(1, MAX_CHAT_CHARS)]
    version: Version
    at: Millis
    seat: SeatNo | None = None
    identity: IdentityId | None = None


@dataclass(frozen=True, slots=True)
class TableInfo:
    """One table of a ``tables`` listing.  ``taken``: seats already joined (``players``: who);
    ``status``: ``waiting`` for players, ``playing`` (listed when it may be watched) or
    ``over`` (only when asked for by id);
    ``created``: creation time in milliseconds since the Unix epoch (UTC);
    ``server_seed_commit``: SHA-256 of the table's server seed (§9.1);
    ``mode``: the game played there, as its view's ``mode`` says (``solo``: one seat of the
    competitive game); absent from servers before modes existed;
    ``rematch``: the table of this finished game's rematch, once one was asked for;
    ``handover_bot``: the level of the bot that plays a seat handed over (``create_table``);
    ``rate_bots``: true when its game is rated with its bots as players (``create_table``),
    else absent."""

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
    clock: Clock | None = None
    mode: Annotated[GameMode, Choice(GAME_MODES)] | None = None
    rematch: TableId | None = None
    handover_bot: Annotated[BotLevel, Choice(BOT_LEVELS)] | None = None
    rate_bots: Bool | None = None


@dataclass(frozen=True, slots=True)
class ReplayStep:
    """One version of a ``replay`` page: the ops that bring the viewer's view from the version
    before to ``version`` (SPEC.md §6.2), and ``log``: what happened in it as that viewer knew
    it (absent: nothing), as a ``delta`` of the game carried them."""

    version: Version
    ops: Annotated[list[Any], OpList()]
    log: LogEntries | None = None


Suspect = Annotated[str, Text(3, 3, pattern=SUSPECT_PATTERN)]


@dataclass(frozen=True, slots=True)
class GamePlayer:
    """A seat of a finished game in a ``games`` listing: its player's ``name``, the ``bot``
    kind for a seat the server played, the co-op ``role``, and its ``accusation`` (a suspect;
    absent: none).  For a signed-in player: its ``identity``; ``absent`` when the server played
    the seat at the end for the player's absence (ranked last); once the game is rated, the
    player's ``rating`` after it and its change (``rating_change``)."""

    seat: SeatNo
    name: Name
    bot: Annotated[BotKind, Choice(BOT_KINDS)] | None = None
    role: Annotated[str, Text(1, 32, pattern=ROLE_PATTERN)] | None = None
    accusation: Suspect | None = None
    identity: IdentityId | None = None
    absent: Bool | None = None
    rating: ShownRating | None = None
    rating_change: Annotated[int, Int(-MAX_RATING, MAX_RATING)] | None = None


@dataclass(frozen=True, slots=True)
class GameRecord:
    """The record of a finished game (a ``games`` listing): who played, the ``murderer``, the
    ``winners`` (seats), when it was created, started and ended (ms since the Unix epoch, UTC),
    its ``turns`` and its last ``version``; ``stopped``: ``operator`` when the server's operator
    stopped the game before its end (no winners, not rated), else absent."""

    table: TableId
    mode: Annotated[GameMode, Choice(GAME_MODES)]
    public: Bool
    seats: Annotated[int, Int(1, MAX_SEATS)]
    players: Annotated[tuple[GamePlayer, ...], Items(GamePlayer, MAX_SEATS)]
    murderer: Suspect
    winners: Annotated[tuple[int, ...], Items(Int(0, MAX_SEATS - 1), MAX_SEATS)]
    created: Millis
    started: Millis
    ended: Millis
    turns: Annotated[int, Int(0, SAFE_INT)]
    version: Version
    stopped: Annotated[str, Choice(STOP_REASONS)] | None = None
