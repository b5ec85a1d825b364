"""What the screens of ``echo-ridge play`` share: the app's ``Context`` (its connections, the
table and seat it is at) and how a table's players and game are put in words."""

from __future__ import annotations

import getpass
from dataclasses import dataclass, field

from echoridge_client.lobby import Lobby
from echoridge_client.session import TableSession
from echoridge_protocol import messages as m


def player_name(p: m.SeatInfo) -> str:
    return f"{p.name} ({p.bot} bot)" if p.bot else p.name


MODE_WORDS = {"competitive": "competitive", "solo": "solo", "cooperative": "co-op"}


def mode_words(mode: str | None, seats: int | None = None) -> str:
    """A table's game in a word: ``co-op``, ``competitive`` or ``solo`` (a listing without a
    mode: competitive, solo with one seat)."""
    if mode is None:
        return "solo" if seats == 1 else "competitive"
    return MODE_WORDS.get(mode, mode)


def default_name() -> str:
    try:
        name = getpass.getuser()
    except Exception:
        name = ""
    return (name or "Officer")[:32]


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

    async def close(self) -> None:
        if self.session is not None:
            self.session.on_update = None
            await self.session.close()
            self.session = None
        if self.lobby is not None:
            await self.lobby.close()
            self.lobby = None
