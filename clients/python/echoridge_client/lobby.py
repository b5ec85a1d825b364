"""The lobby: list tables (newest first, a page at a time: ``tables``, ``page``; or look one up
by id), create (with a clock and a mode), join, leave and start tables, add bots, remove players
and close tables (the creator's), fetch transcripts.

``create`` returns ``created`` with its ``owner`` token (the creator's secret, SPEC.md §4.2),
also kept in ``owners`` by table for this lobby's life; ``remove_player`` and ``close_table``
need it.

A request refused with ``server/unavailable`` (the server's store is away for a moment) is sent
again after a jittered backoff when sending it twice cannot do harm: listing, transcripts,
creating a table (a second, unused table at worst) and starting (the server completes a start
that failed half-way).  ``join``, ``leave``, ``add_bot``, ``remove_player`` and ``close_table``
are not: a lost answer may hide a seat taken or given up, so their refusal is the caller's to
judge.

Connecting is tried again, after the server's ``Retry-After``, while the server refuses the
upgrade for now (HTTP 429 or 503, ``Busy``), for up to ``busy_for`` seconds; ``on_busy`` is told
of each such refusal.
"""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import AsyncIterator, Callable, Mapping

from echoridge_client.connection import Connection, hello, welcome_of
from echoridge_client.errors import Busy, ClientError, Refused
from echoridge_client.replay import ReplayedVersion, replayed
from echoridge_client.retry import RETRY_SECONDS, Backoff, busy_delay, retryable
from echoridge_protocol import messages as m


class Lobby:
    def __init__(
        self,
        connection: Connection,
        retry_for: float = RETRY_SECONDS,
        on_limited: Callable[[str, int], None] | None = None,
    ) -> None:
        self.connection = connection
        self.retry_for = retry_for
        self.on_limited = on_limited  # told (code, ms) of each wait a rate limit asks for
        self.owners: dict[str, str] = {}  # table -> the owner token of a table created here
        self.identity: m.IdentityInfo | None = None  # who this session is signed in as
        self.secret: str | None = None  # the identity's secret, once made or moved here

    @classmethod
    async def connect(
        cls,
        url: str,
        subprotocol: str = m.SUBPROTOCOL_MSGPACK,
        headers: Mapping[str, str] | None = None,
        busy_for: float = RETRY_SECONDS,
        on_busy: Callable[[Busy], None] | None = None,
        on_limited: Callable[[str, int], None] | None = None,
        identity: str | None = None,
        jwt: str | None = None,
    ) -> Lobby:
        """``headers``: more HTTP headers for the upgrade request (a deployment's own);
        ``busy_for``, ``on_busy``: how long to wait while the server refuses the upgrade for
        now (HTTP 429, 503), and who is told of each refusal; ``on_limited``: who is told of
        each wait a rate limit asks for (its code and milliseconds); ``identity`` (an
        identity's secret) or ``jwt`` (a signed token): sign in (SPEC.md §4.9)."""
        first: list[m.ServerMessage] = []
        welcomed = asyncio.Event()

        def on_message(message: m.ServerMessage) -> None:
            if not first:
                first.append(message)
                welcomed.set()

        loop = asyncio.get_running_loop()
        give_up = loop.time() + busy_for
        backoff = Backoff()
        while True:
            try:
                connection = await Connection.open(url, subprotocol, on_message, headers=headers)
                break
            except Busy as exc:
                delay = busy_delay(exc, backoff)
                if loop.time() + delay > give_up:
                    raise
                if on_busy is not None:
                    on_busy(exc)
                await asyncio.sleep(delay)
        await connection.send(hello(identity=identity, jwt=jwt))
        try:
            async with asyncio.timeout(10):
                await welcomed.wait()
            welcome = welcome_of(first[0])
        except BaseException:
            await connection.close()
            raise
        lobby = cls(connection, on_limited=on_limited)
        lobby.identity, lobby.secret = welcome.identity, identity
        return lobby

    async def _reply(
        self, message: m.ClientMessage, kind: type[m.ServerMessage], retry: bool = False
    ) -> m.ServerMessage:
        """The reply to ``message``; with ``retry``, sent again while it is refused with a
        retryable code (after a backoff) or for a rate (after the ``retry_in`` the server
        asks, jittered up to a quarter more), for up to ``retry_for`` seconds."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + self.retry_for
        backoff = Backoff()
        while True:
            code: str | None
            try:
                reply = await self.connection.request(message)
            except Refused as exc:
                code, wait = exc.code, exc.retry_in
                delay = self._delay(code, wait, backoff) if retry else None
                if delay is None or loop.time() + delay > give_up:
                    raise
            else:
                code = reply.code if isinstance(reply, m.Result) else None
                wait = reply.retry_in if isinstance(reply, m.Result) else None
                delay = self._delay(code, wait, backoff) if retry else None
                if delay is None or loop.time() + delay > give_up:
                    break
            if wait and self.on_limited is not None and code is not None:
                self.on_limited(code, wait)
            await asyncio.sleep(delay)
        if not isinstance(reply, kind):
            raise ClientError(f"expected {kind.TYPE}, got {reply.TYPE}")
        return reply

    @staticmethod
    def _delay(code: str | None, retry_in: int | None, backoff: Backoff) -> float | None:
        """Seconds before a refused request is sent again: the ``retry_in`` a rate refusal
        names (jittered up to a quarter more), a backoff for a retryable code; None: never
        (an ``auth/…`` refusal: a ban's ``retry_in`` says when it ends, for the player)."""
        if code is not None and code.startswith("auth/"):
            return None
        if retry_in:
            return retry_in / 1000 * random.uniform(1.0, 1.25)
        return backoff.next() if retryable(code) else None

    def _id(self) -> str:
        return self.connection.next_id()

    async def tables(
        self, status: m.ListedStatus | None = None, mode: m.GameMode | None = None
    ) -> tuple[m.TableInfo, ...]:
        """The first page of the listed tables (of ``status`` and ``mode``), newest first:
        the server's page size (``page`` for the pages after it)."""
        return (await self.page(status=status, mode=mode)).tables

    async def page(
        self,
        cursor: str | None = None,
        *,
        status: m.ListedStatus | None = None,
        mode: m.GameMode | None = None,
        limit: int | None = None,
    ) -> m.Tables:
        """One page of the listing, newest first (SPEC.md §4.1): ``reply.tables``, and
        ``reply.next``, the ``cursor`` of the page after it (None: the last page).  Pass the
        same ``status`` and ``mode`` with a cursor."""
        request = m.ListTables(
            id=self._id(), status=status, mode=mode, limit=limit, cursor=cursor
        )
        reply = await self._reply(request, m.Tables, retry=True)
        assert isinstance(reply, m.Tables)
        return reply

    async def table(self, table: str) -> m.TableInfo | None:
        """One table by its id, whatever its status (public or not): its seats and who sits
        there; None when the server knows no such table."""
        try:
            request = m.ListTables(id=self._id(), table=table)
            reply = await self._reply(request, m.Tables, retry=True)
        except Refused as exc:
            if exc.code.startswith("table/"):
                return None
            raise
        assert isinstance(reply, m.Tables)
        return next((t for t in reply.tables if t.table == table), None)

    async def create(
        self,
        seats: int,
        *,
        public: bool = True,
        spectators: bool = True,
        spectator_delay: int = 0,
        clock: m.Clock | None = None,
        mode: m.GameMode | None = None,
        handover_bot: m.BotLevel | None = None,
        rate_bots: bool | None = None,
    ) -> m.Created:
        """A new table; ``clock``: its clocks (None: the server's ``casual`` preset); ``mode``:
        ``"cooperative"`` (2 to 4 seats), ``"solo"`` (1 seat) or ``"competitive"`` (None: the
        same, solo with one seat); ``handover_bot``: the level of the bot that plays a seat
        handed over (None: the server's, ``normal``; feature ``bot_levels``); ``rate_bots``: rate
        the game with its bots as players (SPEC.md §4.10; feature ``ratings``).  A clock outside
        the server's limits is refused (``Refused``, ``table/bad_clock``), a mode with a number
        of seats it is not played with too (``table/bad_mode``)."""
        request = m.CreateTable(
            self._id(), seats, public, spectators, spectator_delay, clock, mode, handover_bot,
            rate_bots,
        )
        reply = await self._reply(request, m.Created, retry=True)
        assert isinstance(reply, m.Created)
        if reply.owner is not None:
            self.owners[reply.table] = reply.owner
        return reply

    async def join(self, table: str, name: str, client_seed: bytes | None = None) -> m.Joined:
        """Take a seat; keep ``client_seed`` to check the game afterwards."""
        seed = os.urandom(32) if client_seed is None else client_seed
        reply = await self._reply(m.Join(self._id(), table, name, seed), m.Joined)
        assert isinstance(reply, m.Joined)
        return reply

    async def _result(self, message: m.ClientMessage, retry: bool = False) -> m.Result:
        reply = await self._reply(message, m.Result, retry)
        assert isinstance(reply, m.Result)
        return reply

    async def leave(self, table: str, token: str) -> m.Result:
        return await self._result(m.Leave(self._id(), table, token))

    async def start(self, table: str, token: str) -> m.Result:
        return await self._result(m.Start(self._id(), table, token), retry=True)

    async def add_bot(self, table: str, token: str, kind: str = "random") -> m.Result:
        """Seat a server-side bot: ``kind`` a level (``easy``, ``normal``, ``strong``; feature
        ``bot_levels``) or ``random`` or ``greedy`` (the same as ``normal``)."""
        if kind not in m.BOT_KINDS:
            raise ValueError("a bot is easy, normal, strong, random or greedy")
        return await self._result(m.AddBot(self._id(), table, token, kind))  # type: ignore[arg-type]

    async def remove_player(self, table: str, owner: str, seat: int) -> m.Result:
        """The creator frees ``seat`` before the start (its player's sessions are closed)."""
        return await self._result(m.RemovePlayer(self._id(), table, owner, seat))

    async def close_table(self, table: str, owner: str) -> m.Result:
        """The creator closes a table whose game never started (every session there is
        closed, 4004; the table answers ``table/closed`` from then on)."""
        result = await self._result(m.CloseTable(self._id(), table, owner))
        if result.outcome == "accepted":
            self.owners.pop(table, None)
        return result

    async def rematch(self, table: str, token: str) -> m.Created:
        """The rematch of a finished game (SPEC.md §4.6), asked for with a seat ``token`` of
        ``table``: a new table with its settings and its bots in their seats.  The first request
        makes it and gets its ``owner`` token; every later one (from any seat) gets the same
        table, without ``owner``.  Safe to send again.  ``Refused`` with ``table/not_finished``
        (or ``table/not_started``) before the game is over, ``auth/bad_token`` for a token that
        is not a seat of that table."""
        reply = await self._reply(m.AskRematch(self._id(), table, token), m.Created, retry=True)
        assert isinstance(reply, m.Created)
        if reply.owner is not None:
            self.owners[reply.table] = reply.owner
        return reply

    async def transcript(self, table: str) -> dict[str, object]:
        reply = await self._reply(m.GetTranscript(self._id(), table), m.Transcript, retry=True)
        assert isinstance(reply, m.Transcript)
        return dict(reply.transcript)

    async def games(
        self,
        *,
        player: str | None = None,
        tables: list[str] | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> m.Games:
        """One page of the record of games (SPEC.md §4.8), newest first: the public finished
        games, or those a player of ``player``'s name sat at; or the finished games among
        ``tables`` (public or not).  ``reply.next``: the cursor of the next page."""
        request = m.ListGames(
            self._id(), player, tuple(tables) if tables else None, limit, cursor
        )
        reply = await self._reply(request, m.Games, retry=True)
        assert isinstance(reply, m.Games)
        return reply

    async def replay_page(
        self,
        table: str,
        seat: int | None = None,
        *,
        everyone: bool = False,
        start: int = 0,
        limit: int | None = None,
    ) -> m.Replay:
        """One page of a finished game's replay (SPEC.md §4.7): as ``seat`` saw it, as a
        spectator (no seat), or with ``everyone``'s secrets; ``replay()`` reads them all."""
        request = m.GetReplay(self._id(), table, seat, everyone or None, start or None, limit)
        reply = await self._reply(request, m.Replay, retry=True)
        assert isinstance(reply, m.Replay)
        return reply

    async def replay(
        self, table: str, seat: int | None = None, *, everyone: bool = False, start: int = 0
    ) -> AsyncIterator[ReplayedVersion]:
        """Every version of a finished game from ``start`` as one viewer saw it, in order:
        page after page, each delta applied (replay.py)."""
        async for version in replayed(self, table, seat, everyone=everyone, start=start):
            yield version

    # --- identities and ratings (SPEC.md §4.9, §4.10) ------------------------------------------

    async def _identity(self, message: m.ClientMessage) -> m.IdentityMessage:
        reply = await self._reply(message, m.IdentityMessage)
        assert isinstance(reply, m.IdentityMessage)
        self.identity = reply.identity
        if reply.secret is not None:
            self.secret = reply.secret
        return reply

    async def create_identity(self, handle: str) -> m.IdentityMessage:
        """Make an identity and sign in as it: keep ``reply.secret`` (also ``self.secret``) to
        sign in with later (``connect(identity=...)``)."""
        return await self._identity(m.CreateIdentity(self._id(), handle))

    async def redeem_code(self, code: str) -> m.IdentityMessage:
        """Move an identity here with a transfer code; a secret of this device's own."""
        return await self._identity(m.RedeemCode(self._id(), code))

    async def rename_identity(self, handle: str) -> m.IdentityMessage:
        return await self._identity(m.RenameIdentity(self._id(), handle))

    async def transfer_code(self) -> m.TransferCode:
        """A one-time code that moves this session's identity to another device."""
        reply = await self._reply(m.NewTransferCode(self._id()), m.TransferCode)
        assert isinstance(reply, m.TransferCode)
        return reply

    async def leaderboard(
        self, mode: str | None = None, limit: int | None = None, cursor: str | None = None
    ) -> m.Leaderboard:
        """One page of a mode's ratings, best first; ``reply.next``: the next page's cursor."""
        request = m.GetLeaderboard(self._id(), mode, limit, cursor)  # type: ignore[arg-type]
        reply = await self._reply(request, m.Leaderboard, retry=True)
        assert isinstance(reply, m.Leaderboard)
        return reply

    async def player(
        self,
        *,
        identity: str | None = None,
        handle: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> m.PlayerPage:
        """A player's page: ratings, and finished games newest first (one page)."""
        request = m.GetPlayer(self._id(), identity, handle, limit, cursor)
        reply = await self._reply(request, m.PlayerPage, retry=True)
        assert isinstance(reply, m.PlayerPage)
        return reply

    # --- against abuse (SPEC.md §4.11) ---------------------------------------------------------

    async def report(
        self, table: str, seat: int, version: int, reason: str, text: str | None = None
    ) -> m.Result:
        """Report the player of ``seat`` at ``table`` as of ``version`` (a live table or a
        replay) for ``reason`` (``players.REPORT_REASONS``); once per player and table
        (``identity/already_reported``).  Needs a signed-in session."""
        return await self._result(m.Report(self._id(), table, seat, version, reason, text))

    async def block(self, identity: str) -> m.Result:
        """Block a player: clients hide their chat and mark the tables they sit at."""
        return await self._result(m.BlockPlayer(self._id(), identity))

    async def unblock(self, identity: str) -> m.Result:
        return await self._result(m.UnblockPlayer(self._id(), identity))

    async def blocked(self) -> tuple[m.IdentityInfo, ...]:
        """The players this signed-in player blocks."""
        reply = await self._reply(m.ListBlocked(self._id()), m.Blocked, retry=True)
        assert isinstance(reply, m.Blocked)
        return reply.players

    async def close(self) -> None:
        await self.connection.close()
