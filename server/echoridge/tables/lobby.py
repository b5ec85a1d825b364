"""The lobby: creating (within the client's limits, tables/quota.py), listing (newest first, in
pages), joining and leaving tables, and seat tokens.

A table's metadata (store ``meta``): ``status`` (open → playing → over, or damaged, or open →
closed by its creator or by expiry: tables/expiry.py; ``closed_by``: ``owner`` or ``expiry``),
``rematch`` (a finished game's rematch: the new table's id, set once),
``idle_since`` (open with no seated person since, ms), ``seats``, ``taken``, ``public``,
``spectators``, ``spectator_delay``,
``epoch``, ``created``, ``commit`` (SHA-256 of the server seed, hex), ``clock`` (its clock
settings, JSON: tables/clocks.py), ``mode`` (``competitive`` or ``cooperative``; absent from
tables made before modes existed: competitive), ``handover_bot`` (the level of the bot that plays a
seat handed over: ``easy``, ``normal`` or ``strong``; absent from tables made before bot levels:
``normal``, tables/botmoves.py), ``rate_bots`` (``1``: its game is rated with its bots as
players, ratings.py; else absent), and per seat ``name:N``, ``bot:N`` (a seat the
server plays), ``identity:N`` (the signed-in player's identity: store/identities.py) and
``cseed:N`` (the client seed, hex: public, it goes into the transcript).  Its secrets:
``server_seed``, ``owner`` (a hash of the creator's token) and ``token:N`` (a hash of the
seat's token).
"""

from __future__ import annotations

import os
import secrets as random_ids
from collections.abc import Sequence
from dataclasses import dataclass
from hmac import compare_digest as secrets_equal
from typing import Any, cast

from echoridge.logs import get_logger
from echoridge.store import Storage, TableExists, TableNotFound
from echoridge.store.lobbyindex import mode_of
from echoridge.tables.archiving import listed
from echoridge.tables.botmoves import HANDOVER_BOT
from echoridge.tables.clocks import CASUAL, ClockSettings, from_meta
from echoridge.tables.errors import TableError
from echoridge.tables.quota import LobbyLimits, Requester, reserve
from echoridge.tables.tokens import new_token, seat_of, token_hash
from echoridge_protocol import messages as m
from echoridge_protocol.fairness import server_seed_commit

MAX_SPECTATOR_DELAY = 100
PAGE = 50  # tables in a page of the listing when the client names no limit
_STATUS: dict[str, m.TableStatus] = {"open": "waiting", "playing": "playing", "over": "over"}
_GONE = {"damaged": "table/damaged", "closed": "table/closed"}  # statuses nobody may enter

# The settings a rematch keeps (Lobby.rematch); everything else is the new table's own.
_KEPT = (
    "seats", "public", "spectators", "spectator_delay", "clock", "mode", "handover_bot",
    "rate_bots",
)

_REFUSALS = {
    "missing": "table/not_found",
    "started": "table/started",
    "closed": "table/closed",
    "damaged": "table/damaged",
    "full": "table/full",
    "not_full": "table/not_full",
    "bad_token": "auth/bad_token",
    "seated": "table/already_seated",
}

log = get_logger("echoridge.tables")


@dataclass(frozen=True)
class Settings:
    seats: int
    public: bool
    spectators: bool
    spectator_delay: int
    clock: ClockSettings = CASUAL
    mode: str = "competitive"  # or "cooperative", or "solo" (one seat; kept as competitive)
    handover_bot: str = HANDOVER_BOT  # the level of the bot that plays a seat handed over
    rate_bots: bool = False  # its game is rated with its server bots as players (ratings.py)


@dataclass(frozen=True)
class Seeds:
    """What the game seed is made of (secret until the game is over)."""

    server_seed: bytes
    client_seeds: tuple[bytes, ...]


def _flag(value: bool) -> str:
    return "1" if value else "0"


def _stored_mode(settings: Settings) -> str:
    """The mode a new table keeps in its meta, or the refusal: ``cooperative`` needs 2 to 4
    seats and ``solo`` 1 (``table/bad_mode``); ``solo`` is kept as ``competitive``, which with
    one seat is the solo game."""
    if settings.mode not in m.GAME_MODES:
        raise TableError("protocol/bad_field", "A mode is competitive, cooperative or solo.")
    solo = settings.seats == 1
    if (settings.mode == "cooperative" and solo) or (settings.mode == "solo" and not solo):
        raise TableError("table/bad_mode")
    return "competitive" if settings.mode == "solo" else settings.mode


def listed_mode(meta: dict[str, str]) -> m.GameMode:
    """A table's mode as its listing and its game's view name it: ``solo`` for one seat of the
    competitive game."""
    return cast(m.GameMode, mode_of(meta))


def _listed(
    records: list[dict[str, Any]], changes: dict[str, dict[str, tuple[int, int]]]
) -> tuple[m.GameRecord, ...]:
    """The records as listed (with their players' rating changes), leaving out any the server
    cannot read (a damaged record)."""
    out = []
    for record in records:
        try:
            out.append(listed(record, changes.get(str(record["table"]))))
        except (KeyError, TypeError, ValueError, IndexError):
            log.warning("unreadable game record", table=str(record.get("table", "")))
    return tuple(out)


def _refuse_gone(meta: dict[str, str]) -> None:
    """A closed or damaged table refuses every lobby request with its own code."""
    if meta["status"] in _GONE:
        raise TableError(_GONE[meta["status"]])


class Lobby:
    def __init__(self, storage: Storage, limits: LobbyLimits | None = None) -> None:
        self.storage = storage
        self.directory = storage.directory
        self.limits = limits or LobbyLimits()
        self.directory.expiry = self.limits.expiry()

    async def create(
        self, settings: Settings, who: Requester | None = None
    ) -> tuple[str, bytes, str]:
        """A new table; returns its id, the commitment to its server seed and its creator's
        ``owner`` token.  ``who`` asks: the table counts against its limits (tables/quota.py;
        ``table/rate_limited``, ``table/too_many``)."""
        if not 1 <= settings.seats <= 4:
            raise TableError("protocol/bad_field", "A table has 1 to 4 seats.")
        if not 0 <= settings.spectator_delay <= MAX_SPECTATOR_DELAY:
            raise TableError(
                "protocol/bad_field", f"The spectator delay is 0 to {MAX_SPECTATOR_DELAY}."
            )
        mode = _stored_mode(settings)
        if settings.handover_bot not in m.BOT_LEVELS:
            raise TableError("protocol/bad_field", "A bot level is easy, normal or strong.")
        server_seed = os.urandom(32)
        owner = new_token()
        table = "t-" + random_ids.token_hex(5)
        await reserve(self.storage.quotas, self.limits, who, table)
        await self.directory.create(
            table,
            {
                "status": "open",
                "seats": str(settings.seats),
                "taken": "0",
                "public": _flag(settings.public),
                "spectators": _flag(settings.spectators),
                "spectator_delay": str(settings.spectator_delay),
                "epoch": "1",
                "commit": server_seed_commit(server_seed).hex(),
                "clock": settings.clock.to_meta(),
                "mode": mode,
                "handover_bot": settings.handover_bot,
                **({"rate_bots": "1"} if settings.rate_bots else {}),
            },
            {"server_seed": server_seed, "owner": token_hash(owner).encode()},
        )
        return table, server_seed_commit(server_seed), owner

    async def meta(self, table: str) -> dict[str, str]:
        """A table's metadata: table/not_found if there is none, table/archived for a finished
        game whose live keys were released (store/archive.py: only its archive remains)."""
        try:
            return await self.directory.meta(table)
        except TableNotFound:
            raise TableError(await self._missing(table)) from None

    async def _missing(self, table: str) -> str:
        """The code for a table with no metadata."""
        archived = await self.storage.archive.archived(table)
        return "table/archived" if archived else "table/not_found"

    async def list(
        self,
        limit: int | None = None,
        status: str | None = None,
        mode: str | None = None,
        cursor: str | None = None,
    ) -> tuple[list[m.TableInfo], str | None]:
        """One page of the public tables waiting for players (not full) and of those playing
        that may be watched, of ``status`` and ``mode``, newest first, after ``cursor``; and
        the cursor of the next page (None: the last).  Its cost is bounded by the page."""
        try:
            page = await self.directory.page(limit or PAGE, status, mode, cursor)
        except ValueError:
            raise TableError(
                "protocol/bad_field", "list_tables.cursor: not a cursor of this server"
            ) from None
        return [await self._info(table, meta) for table, meta in page.tables], page.next

    async def games(self, request: m.ListGames) -> m.Games:
        """A page of the record of games (SPEC 4.8): the public finished games, newest first,
        or a player's; or the finished games of the tables named, public or not."""
        if request.tables is not None:
            if request.player is not None or request.cursor is not None:
                raise TableError(
                    "protocol/bad_field", "list_games: tables goes without player and cursor"
                )
            found = await self.storage.archive.records(list(dict.fromkeys(request.tables)))
            kept = sorted(found.values(), key=lambda r: (-int(r.get("ended") or 0), r["table"]))
            kept = kept[: request.limit or PAGE]
            return m.Games(id=request.id, games=_listed(kept, await self._changes(kept)))
        try:
            page, after = await self.storage.archive.listing(
                request.limit or PAGE, request.player, request.cursor
            )
        except ValueError:
            raise TableError(
                "protocol/bad_field", "list_games.cursor: not a cursor of this server"
            ) from None
        return m.Games(id=request.id, games=_listed(page, await self._changes(page)), next=after)

    async def _changes(self, records: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """The rating changes of the rated ones of these games (store/ratingstore.py); a
        damaged record (no players) has none."""
        rated = [
            str(r.get("table"))
            for r in records
            if any(isinstance(p, dict) and p.get("identity") for p in r.get("players") or ())
        ]
        return await self.storage.ratings.changes(rated)

    async def _info(self, table: str, meta: dict[str, str]) -> m.TableInfo:
        if "commit" not in meta:  # a table created before its commitment was kept in meta
            seed = await self.directory.secret(table, "server_seed")
            meta["commit"] = server_seed_commit(seed or b"").hex()
        return info(table, meta)

    async def one(self, table: str) -> m.TableInfo:
        """One table's listing entry, public or not (table/not_found if there is none)."""
        meta = await self.meta(table)
        _refuse_gone(meta)
        return await self._info(table, meta)

    async def check_owner(self, table: str, owner: str) -> None:
        """Unless ``owner`` is the table's creator's token: table/not_found, auth/bad_token;
        table/closed, table/damaged for a table closed or damaged."""
        _refuse_gone(await self.meta(table))
        stored = await self.directory.secret(table, "owner")
        if stored is None or not secrets_equal(stored.decode(), token_hash(owner)):
            raise TableError("auth/bad_token")

    async def remove(self, table: str, owner: str, seat: int) -> str:
        """The creator frees ``seat`` before the start; returns the removed seat's token hash."""
        await self.check_owner(table, owner)
        held = (await self.token_hashes(table)).get(seat)
        if held is None:
            raise TableError("table/seat_free")
        outcome = await self.directory.leave(table, seat, held)
        if outcome != "ok":
            raise TableError(_REFUSALS[outcome])
        return held

    async def close(self, table: str, owner: str) -> None:
        """The creator closes a table whose game never started."""
        await self.check_owner(table, owner)
        outcome = await self.directory.close(table)
        if outcome != "ok":
            raise TableError(_REFUSALS[outcome])

    async def join(
        self, table: str, name: str, client_seed: bytes, bot: str = "", identity: str = ""
    ) -> tuple[int, str]:
        """Take a seat (for a signed-in ``identity``: it belongs to it); the seat and its
        token."""
        token = new_token()
        outcome = await self.directory.join(
            table, name, client_seed, token_hash(token), bot, identity
        )
        if isinstance(outcome, str):
            raise TableError(_REFUSALS[outcome])
        return outcome, token

    async def add_bot(self, table: str, token: str, kind: str) -> int:
        """Seat a server-side bot (only a seated player may); the bot's seat.  Its token is not
        kept: the server plays the seat itself (tables/botmoves.py).  ``kind``: a bot kind
        (SPEC.md §4.4: a level, ``random`` or ``greedy``), else ``protocol/bad_field``."""
        if kind not in m.BOT_KINDS:
            raise TableError("protocol/bad_field", "add_bot.kind: not a kind of bot")
        await self.authenticate(table, token)
        meta = await self.meta(table)
        # "Greedy 2": the kind and (most likely) the seat it takes; clients mark bots themselves
        name = f"{kind.capitalize()} {int(meta.get('taken', '0')) + 1}"
        seat, _ = await self.join(table, name, os.urandom(32), bot=kind)
        return seat

    async def rematch(self, table: str, token: str) -> tuple[str, bytes, str | None]:
        """The rematch of a finished game, asked for by one of its seats: a new table with the
        same settings and the same bots in the same seats; its id, commitment and ``owner``
        token (None when another request made it).  Made once per table whoever asks, on
        whatever node: the new id is claimed in the old table's metadata first (HSETNX), then
        every request creates the table of that id, and only one creation succeeds.  Not counted
        against the asker's limits (tables/quota.py): each needs a finished game."""
        await self.authenticate(table, token)
        meta = await self.meta(table)
        if meta["status"] == "open":
            raise TableError("table/not_started")
        if meta["status"] != "over":
            raise TableError("table/not_finished")
        try:
            new = meta.get("rematch") or await self.directory.claim(
                table, "rematch", "t-" + random_ids.token_hex(5)
            )
        except TableNotFound:
            raise TableError(await self._missing(table)) from None
        server_seed, owner = os.urandom(32), new_token()
        settings = {k: meta[k] for k in _KEPT if k in meta}
        bots = {int(k[len("bot:") :]): v for k, v in meta.items() if k.startswith("bot:")}
        seated: dict[str, str] = {}
        for seat, kind in bots.items():
            seated |= {f"name:{seat}": meta[f"name:{seat}"], f"bot:{seat}": kind}
            seated[f"cseed:{seat}"] = os.urandom(32).hex()
        secrets = {f"token:{seat}": token_hash(new_token()).encode() for seat in bots}
        try:
            await self.directory.create(
                new,
                {
                    **settings,
                    **seated,
                    "status": "open",
                    "taken": str(len(bots)),
                    "epoch": "1",
                    "commit": server_seed_commit(server_seed).hex(),
                },
                {"server_seed": server_seed, "owner": token_hash(owner).encode(), **secrets},
            )
        except TableExists:
            return new, bytes.fromhex((await self.meta(new))["commit"]), None
        return new, server_seed_commit(server_seed), owner

    async def authenticate(self, table: str, token: str) -> int:
        """The seat a token holds at a table (auth/bad_token if none; table/closed,
        table/damaged for a table closed or damaged, whatever the token)."""
        _refuse_gone(await self.meta(table))
        seat = seat_of(token, await self.directory.secrets(table))
        if seat is None:
            raise TableError("auth/bad_token")
        return seat

    async def leave(self, table: str, token: str) -> int:
        """Give up the token's seat before the start; the seat given up."""
        seat = await self.authenticate(table, token)
        outcome = await self.directory.leave(table, seat, token_hash(token))
        if outcome != "ok":
            raise TableError(_REFUSALS[outcome])
        return seat

    async def token_hashes(self, table: str) -> dict[int, str]:
        """The hash of each taken seat's token (final once the game has started)."""
        prefix = "token:"
        return {
            int(k[len(prefix) :]): v.decode()
            for k, v in (await self.directory.secrets(table)).items()
            if k.startswith(prefix)
        }

    async def mark_started(self, table: str) -> None:
        outcome = await self.directory.start(table)
        if outcome != "ok":
            raise TableError(_REFUSALS[outcome])

    async def seeds(self, table: str) -> Seeds:
        meta = await self.meta(table)
        stored = await self.directory.secrets(table)
        seats = int(meta["seats"])
        return Seeds(
            stored["server_seed"],
            tuple(bytes.fromhex(meta[f"cseed:{i}"]) for i in range(seats)),
        )


def info(table: str, meta: dict[str, str]) -> m.TableInfo:
    seats = int(meta["seats"])
    return m.TableInfo(
        table=table,
        status=_STATUS[meta["status"]],
        seats=seats,
        taken=int(meta["taken"]),
        players=tuple(
            m.SeatInfo(
                i,
                meta[f"name:{i}"],
                cast(m.BotKind, meta.get(f"bot:{i}")) or None,
                identity=meta.get(f"identity:{i}"),
            )
            for i in range(seats)
            if f"name:{i}" in meta
        ),
        public=meta["public"] == "1",
        spectators=meta["spectators"] == "1",
        spectator_delay=int(meta["spectator_delay"]),
        created=int(meta["created"]),
        server_seed_commit=bytes.fromhex(meta["commit"]),
        clock=from_meta(meta, 0).wire() if "clock" in meta else None,
        mode=listed_mode(meta),
        rematch=meta.get("rematch"),
        handover_bot=listed_level(meta),
        rate_bots=True if meta.get("rate_bots") == "1" else None,
    )


def listed_level(meta: dict[str, str]) -> m.BotLevel:
    """A table's ``handover_bot`` level as its listing gives it (``normal`` for a table made
    before bot levels)."""
    level = meta.get("handover_bot", HANDOVER_BOT)
    return cast(m.BotLevel, level if level in m.BOT_LEVELS else HANDOVER_BOT)
