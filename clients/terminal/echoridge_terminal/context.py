"""What the screens of ``echo-ridge play`` share: the app's ``Context`` (its connections, the
table and seat it is at, the player's identity and the players they block) and how a table's
players, their ratings and its game are put in words."""

from __future__ import annotations

import getpass
from dataclasses import dataclass, field

from echoridge_client.lobby import Lobby
from echoridge_client.session import TableSession
from echoridge_protocol import messages as m
from echoridge_terminal.i18n import t
from echoridge_terminal.idstore import IdentityStore


def rating_words(rating: m.Rating | None) -> str:
    """A rating as shown next to a name: ``1012``, ``1012?`` while provisional; "" for none."""
    if rating is None:
        return ""
    return f"{rating.rating}?" if rating.provisional else str(rating.rating)


def bot_level(kind: str) -> str:
    """A bot's level in one word: ``greedy`` is the old name of ``normal``; ``random`` (uniform
    moves, for tests) stays ``random``."""
    return "normal" if kind == "greedy" else kind


def bot_name(name: str, kind: str) -> str:
    """A server bot's name with its level: ``Strong 2 (strong bot)``."""
    return t("player.bot", name=name, level=bot_level(kind))


def player_name(p: m.SeatInfo) -> str:
    """A seat's player: the name, a bot's level (``Strong 2 (strong bot)``), a signed-in
    player's rating (``Ada 1012?``)."""
    if p.bot:
        return bot_name(p.name, p.bot)
    rating = rating_words(p.rating)
    return f"{p.name} {rating}" if rating else p.name


MODE_WORDS = {"competitive": "competitive", "solo": "solo", "cooperative": "co-op"}


def mode_words(mode: str | None, seats: int | None = None) -> str:
    """A table's game in a word: ``co-op``, ``competitive`` or ``solo`` (a listing without a
    mode: competitive, solo with one seat), the key of its ``mode.*`` message."""
    if mode is None:
        return "solo" if seats == 1 else "competitive"
    return MODE_WORDS.get(mode, mode)


def default_name() -> str:
    try:
        name = getpass.getuser()
    except Exception:
        name = ""
    return (name or t("player.default_name"))[:32]


@dataclass
class Context:
    """What the screens of one app share."""

    url: str
    name: str = field(default_factory=default_name)
    lobby: Lobby | None = None
    session: TableSession | None = None
    table: str | None = None
    token: str | None = None
    seat: int | None = None
    seats: int | None = None  # the table's seat count, when known
    mode: str | None = None  # the table's game in words (``mode_words``), when known
    guest: bool = False  # play without an identity (``play --guest``)
    claim: str | None = None  # a transfer code to redeem at the start (``play --claim``)
    store: IdentityStore = field(default_factory=IdentityStore)  # the identities kept
    blocked: dict[str, str] = field(default_factory=dict)  # the players blocked: id -> handle
    notice: str = ""  # what signing in has to tell the player (shown in the lobby)

    @property
    def me(self) -> m.IdentityInfo | None:
        """Who the player is signed in as (None: a guest, or no identity yet)."""
        return self.lobby.identity if self.lobby is not None else None

    async def close(self) -> None:
        if self.session is not None:
            self.session.on_update = None
            await self.session.close()
            self.session = None
        if self.lobby is not None:
            await self.lobby.close()
            self.lobby = None
