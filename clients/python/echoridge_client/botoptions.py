"""What ``echo-ridge bots`` is asked to do (``BotOptions``) and what it keeps per table
(``TableRun``); seeds, policies and subprotocols per table and connection (loadbots.py runs it)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from echoridge_client.botsessions import Ack
from echoridge_protocol import messages as m

SUBPROTOCOL_NAMES = {"msgpack": m.SUBPROTOCOL_MSGPACK, "json": m.SUBPROTOCOL_JSON}
SUBPROTOCOL_CHOICES = ("msgpack", "json", "mixed")
BOT_KINDS = m.BOT_KINDS  # the levels easy, normal, strong; random; greedy (= normal)
SETUP_AT_ONCE = 32  # tables being created, joined and started at the same time


@dataclass(frozen=True)
class BotOptions:
    url: str
    tables: int = 1
    players: int = 4
    mode: str = "competitive"  # or "cooperative" (2 to 4 players): the tables' mode
    spectators: int = 0
    bot: str = "random"
    # Server-side bots of this kind (``add_bot``) in ``server_bot_seats`` more seats of each
    # table, after the ``players`` seats this client plays (None: none).
    server_bots: str | None = None
    server_bot_seats: int = 1
    subprotocol: str = "msgpack"  # msgpack, json or mixed (alternating per connection)
    concurrency: int = 0  # tables in play at once (0: all of them)
    rate: float = 9.0  # messages per second per connection (0: unpaced)
    think: float = 0.0  # mean seconds a seat thinks before each command (exponential; 0: none)
    ramp: float = 0.0  # seconds over which the tables' creations are spread evenly
    timeout: float = 600.0  # seconds per table, from its creation to the end of its game
    seed: int | None = None  # fixes client seeds and policies (default: random)
    verify: bool = True
    # The transcripts' check: an engine replay (the server's tools give echoridge.transcript's
    # ``replay``); None: the protocol checks (echoridge_protocol.verify), with the SDK alone.
    replay: Callable[[dict[str, Any]], Any] | None = None

    @property
    def seats(self) -> int:
        """Seats per table: this client's, then the server's bots'."""
        return self.players + (self.server_bot_seats if self.server_bots is not None else 0)

    def check(self) -> None:
        if self.tables < 0:
            raise ValueError("--tables must not be negative")
        if not 1 <= self.players <= 4:
            raise ValueError("--players must be 1 to 4")
        if self.mode not in ("competitive", "cooperative"):
            raise ValueError("--mode is competitive or coop")
        if self.mode == "cooperative" and self.players == 1:
            raise ValueError("--mode coop needs 2 to 4 --players")
        if self.spectators < 0:
            raise ValueError("--spectators must not be negative")
        if self.bot not in BOT_KINDS:
            raise ValueError("--bot is easy, normal, strong, random or greedy")
        if self.server_bots is not None:
            if self.server_bots not in BOT_KINDS:
                raise ValueError("--server-bots is easy, normal, strong, random or greedy")
            if not 1 <= self.server_bot_seats <= 4 - self.players:
                raise ValueError("--players and --server-bot-seats make 2 to 4 seats")
        if self.subprotocol not in SUBPROTOCOL_CHOICES:
            raise ValueError("--subprotocol is msgpack, json or mixed")
        if self.concurrency < 0 or self.rate < 0 or self.think < 0 or self.ramp < 0:
            raise ValueError("--concurrency, --rate, --think and --ramp must not be negative")
        if self.timeout <= 0:
            raise ValueError("--timeout must be positive")
        if not self.url.startswith(("ws://", "wss://")):
            raise ValueError("the URL is ws://HOST:PORT/ws or wss://...")


@dataclass
class TableRun:
    """One table of the run."""

    index: int
    table: str = ""
    commit: str = ""  # hex of the server seed commitment given at creation
    seeds: list[bytes] = field(default_factory=list)  # the client seed of each seat
    version: int = 0  # the last version the seats saw
    acks: list[Ack] = field(default_factory=list)  # what the server acknowledged to the seats
    lost: int = 0  # acknowledged commands missing from the transcript
    finished: bool = False
    verified: bool = False
    error: str | None = None


# --- seeds and policies -------------------------------------------------------------------------


def derive(seed: int | None, *parts: object) -> bytes:
    if seed is None:
        return os.urandom(32)
    text = "/".join(str(p) for p in (seed, *parts))
    return hashlib.sha256(text.encode()).digest()


def subprotocol_of(options: BotOptions, table: int, connection: int) -> str:
    """The subprotocol of a table's n-th connection (seats first, then spectators)."""
    if options.subprotocol == "mixed":
        return m.SUBPROTOCOLS[(table + connection) % 2]
    return SUBPROTOCOL_NAMES[options.subprotocol]
