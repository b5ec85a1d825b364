"""Players who come back (issue 28): identities, ratings, leaderboard and player pages.

**Signing in.**  A session is signed in by ``hello.identity`` (an identity's secret: the store
keeps only its SHA-256, store/identities.py) or ``hello.jwt`` (a token the operator's login
system signed: net/jwtauth.py, with ``--auth-jwt-key``), or later by ``create_identity`` and
``redeem_code``.  A seat taken by a signed-in session (``join``) belongs to its identity: the
seat's name is the identity's handle, and one identity holds at most one seat at a table.

**Ratings** are a projection of the archive (store/ratingstore.py): when a finished game is
archived, ``settle`` rates it, once, whichever node does it and however often; the leaderboard
and the ratings next to names in the lobby read the projection.

**Pages.**  ``leaderboard`` pages the ratings of a mode best first (the cursor is the rank to go
on from); ``player`` gives an identity's ratings and the finished games it sat at, newest first
(public ones, or all for the identity itself), each with the rating changes of its players.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, replace

from echoridge.logs import get_logger
from echoridge.ratings import RATED_MODES, Rating
from echoridge.store import Storage, TableNotFound
from echoridge.store.identities import CODE_SECONDS, HandleTaken, Identity
from echoridge.store.moderation import Ban
from echoridge.store.moderation import TooMany as TooManyBlocks
from echoridge.tables.archiving import listed
from echoridge.tables.errors import TableError
from echoridge_client.words import duration
from echoridge_protocol import messages as m

PAGE = 50
_RANK_CURSOR = re.compile(r"r([0-9]{1,9})")

log = get_logger("echoridge.tables")


@dataclass(frozen=True)
class SignedIn:
    """Who a session is signed in as."""

    id: str
    handle: str

    def wire(self) -> m.IdentityInfo:
        return m.IdentityInfo(self.id, self.handle)


def _signed(identity: Identity) -> SignedIn:
    return SignedIn(identity.id, identity.handle)


def rating(mode: str, r: Rating) -> m.Rating:
    return m.Rating(mode=mode, rating=r.shown, provisional=r.provisional, games=r.games)  # type: ignore[arg-type]


class Players:
    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.identities = storage.identities
        self.ratings = storage.ratings

    # --- signing in -----------------------------------------------------------------------

    async def sign_in(self, secret: str) -> SignedIn:
        """The identity whose secret ``hello.identity`` gave (``auth/bad_identity``)."""
        found = await self.identities.by_secret(secret)
        if found is None:
            raise TableError("auth/bad_identity")
        return _signed(found)

    async def vouched(self, issuer: str, subject: str, name: str | None) -> SignedIn:
        """The identity a signed token names (net/jwtauth.py checked it), made if new."""
        handle = _handle_from(name or subject)
        return _signed(await self.identities.external(issuer, subject, handle, _now()))

    async def create(self, signed: SignedIn | None, handle: str) -> tuple[SignedIn, str]:
        if signed is not None:
            raise TableError("identity/signed_in")
        try:
            made, secret = await self.identities.create(handle, _now())
        except HandleTaken:
            raise TableError("identity/handle_taken") from None
        log.info("identity created", identity=made.id)
        return _signed(made), secret

    async def redeem(self, code: str) -> tuple[SignedIn, str]:
        moved = await self.identities.redeem(code)
        if moved is None:
            raise TableError("identity/bad_code")
        log.info("identity moved to a new device", identity=moved[0].id)
        return _signed(moved[0]), moved[1]

    async def transfer_code(self, signed: SignedIn | None) -> tuple[str, int]:
        """A one-time code and when it expires (ms)."""
        if signed is None:
            raise TableError("identity/required")
        code = await self.identities.transfer_code(signed.id)
        return code, _now() + CODE_SECONDS * 1000

    async def rename(self, signed: SignedIn | None, handle: str) -> SignedIn:
        if signed is None:
            raise TableError("identity/required")
        try:
            renamed = await self.identities.rename(signed.id, handle)
        except HandleTaken:
            raise TableError("identity/handle_taken") from None
        except LookupError:
            raise TableError("identity/not_found") from None
        return _signed(renamed)

    # --- against abuse (store/moderation.py) --------------------------------------------------

    async def refuse_banned(self, signed: SignedIn | None, ip: str | None) -> None:
        """``auth/banned`` for a banned identity or client address (at hello, create_table)."""
        ban = await self.storage.moderation.banned(signed.id if signed else None, ip, _now())
        if ban is not None:
            raise banned(ban)

    async def report(self, signed: SignedIn | None, request: m.Report) -> None:
        if signed is None:
            raise TableError("identity/required")
        target = await self._seated(request.table, request.seat)
        if target is None:
            raise TableError("identity/not_found", "Nobody signed in sat at that seat.")
        if target == signed.id:
            raise TableError("protocol/bad_field", "report: that seat is your own")
        made = await self.storage.moderation.report(
            signed.id, target, request.table, request.version, request.reason, request.text,
            _now(),
        )  # fmt: skip
        if made is None:
            raise TableError("identity/already_reported")
        log.info("player reported", table=request.table, reason=request.reason)

    async def _seated(self, table: str, seat: int) -> str | None:
        """The identity that sat at ``seat`` of ``table``: live, or as the archive recorded."""
        record = await self.storage.archive.record(table)
        if record is not None:
            for p in record.get("players") or ():
                if p.get("seat") == seat:
                    return str(p["identity"]) if p.get("identity") else None
            return None
        try:
            meta = await self.storage.directory.meta(table)
        except TableNotFound:
            raise TableError("table/not_found") from None
        return meta.get(f"identity:{seat}") or None

    async def block(self, signed: SignedIn | None, whom: str, on: bool) -> None:
        if signed is None:
            raise TableError("identity/required")
        moderation = self.storage.moderation
        if not on:
            await moderation.unblock(signed.id, whom)
            return
        if whom == signed.id:
            raise TableError("protocol/bad_field", "block: that is your own identity")
        if await self.identities.get(whom) is None:
            raise TableError("identity/not_found")
        try:
            await moderation.block(signed.id, whom)
        except TooManyBlocks:
            raise TableError("identity/too_many_blocks") from None

    async def blocks(self, signed: SignedIn | None) -> tuple[m.IdentityInfo, ...]:
        if signed is None:
            raise TableError("identity/required")
        whom = sorted(await self.storage.moderation.blocked(signed.id))
        handles = await self.identities.handles(whom)
        return tuple(m.IdentityInfo(i, handles[i]) for i in whom if i in handles)

    # --- ratings --------------------------------------------------------------------------

    async def settle(self, table: str) -> None:
        """Rate an archived game, once (every node may call this for every finished game)."""
        if await self.ratings.counted(table):
            return
        record = await self.storage.archive.record(table)
        if record is None:
            return
        outcome = await self.ratings.apply(record, self.storage.archive.every_record())
        if outcome in ("ok", "rebuilt"):
            log.info("game rated", table=table, how=outcome)

    async def rate_listing(self, tables: list[m.TableInfo]) -> list[m.TableInfo]:
        """The listing with each signed-in seat's rating in its table's mode."""
        wanted = {
            p.identity for t in tables if t.mode in RATED_MODES for p in t.players if p.identity
        }
        if not wanted:
            return tables
        found = await self.ratings.get("competitive", sorted(wanted))
        out = []
        for t in tables:
            if t.mode in RATED_MODES and any(p.identity in found for p in t.players):
                seats = tuple(
                    replace(p, rating=rating(t.mode, found[p.identity]))
                    if p.identity in found
                    else p
                    for p in t.players
                )
                t = replace(t, players=seats)
            out.append(t)
        return out

    async def leaderboard(self, request: m.GetLeaderboard) -> m.Leaderboard:
        mode = request.mode or "competitive"
        start = 0
        if request.cursor is not None:
            match = _RANK_CURSOR.fullmatch(request.cursor)
            if match is None:
                raise TableError("protocol/bad_field", "leaderboard.cursor: not a cursor")
            start = int(match[1])
        limit = request.limit or PAGE
        rows = await self.ratings.top(mode, start, limit + 1)
        handles = await self.identities.handles([who for who, _ in rows[:limit]])
        players = tuple(
            m.Ranked(
                rank=start + n + 1,
                identity=who,
                handle=handles.get(who, who),
                rating=r.shown,
                provisional=r.provisional,
                games=r.games,
            )
            for n, (who, r) in enumerate(rows[:limit])
        )
        after = f"r{start + limit}" if len(rows) > limit else None
        return m.Leaderboard(id=request.id, mode=mode, players=players, next=after)

    async def page(self, request: m.GetPlayer, asker: SignedIn | None) -> m.PlayerPage:
        if (request.identity is None) == (request.handle is None):
            raise TableError("protocol/bad_field", "player: identity or handle, one of them")
        if request.identity is not None:
            found = await self.identities.get(request.identity)
        else:
            assert request.handle is not None
            found = await self.identities.by_handle(request.handle)
        if found is None:
            raise TableError("identity/not_found")
        own = asker is not None and asker.id == found.id
        try:
            records, after = await self.storage.archive.listing(
                request.limit or PAGE, cursor=request.cursor, identity=found.id
            )
        except ValueError:
            raise TableError("protocol/bad_field", "player.cursor: not a cursor") from None
        records = [r for r in records if own or r.get("public")]
        changes = await self.ratings.changes([str(r["table"]) for r in records])
        games = []
        for record in records:
            try:
                games.append(listed(record, changes.get(str(record["table"]))))
            except (KeyError, TypeError, ValueError, IndexError):
                log.warning("unreadable game record", table=str(record.get("table", "")))
        ratings = []
        for mode in RATED_MODES:
            mine = (await self.ratings.get(mode, [found.id])).get(found.id)
            if mine is not None:
                ratings.append(rating(mode, mine))
        return m.PlayerPage(
            id=request.id,
            identity=m.IdentityInfo(found.id, found.handle),
            ratings=tuple(ratings),
            games=tuple(games),
            next=after,
        )


def _now() -> int:
    return int(time.time() * 1000)


def banned(ban: Ban) -> TableError:
    """``auth/banned`` for ``ban``: ``retry_in``, the milliseconds until it ends (none: until
    lifted), and the same in words."""
    if ban.until is None:
        return TableError("auth/banned", "You are banned from this server until lifted.")
    left = max(1, ban.until - _now())
    return TableError(
        "auth/banned", f"You are banned from this server for {duration(left)}.", retry_in=left
    )


def _handle_from(name: str) -> str:
    """A handle from a signed token's name: printable, trimmed, 1 to 32 characters."""
    kept = "".join(c for c in name if c.isprintable()).strip()[:32].strip()
    return kept or "player"
