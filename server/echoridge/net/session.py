"""One websocket connection: its session (lobby, seat or spectator; the handshake that opens it
is handshake.py), the messages it sends, and its bounded outbox.

Fan-out never awaits a connection (``deliver``).  A connection that keeps up is written to at
once, as websockets' ``broadcast()`` does: the frame goes to the transport's buffer, which the
event loop sends as the socket allows, with no task switch.  A connection that falls behind (a
frame already queued or being sent, or more than ``DIRECT_BUFFER`` bytes in the transport's
buffer) gets its frames queued in the outbox instead, and a writer task sends them in order,
waiting for the client's window.  A connection whose outbox overflows is closed with 4011
(resync): its client reconnects and resumes, and gets exactly the missing deltas or a fresh view.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections import deque
from collections.abc import Iterable
from typing import Any, cast

from websockets.asyncio.server import ServerConnection, broadcast
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

from echoridge.logs import get_logger
from echoridge.net.handshake import Handshake
from echoridge.net.limits import REFUSALS_ALLOWED, Bucket, Limits
from echoridge.net.outbox import Outbox
from echoridge.store import StoreError
from echoridge.tables import SPECTATORS, Node, Outcome, Settings, TableError
from echoridge.tables.botmoves import HANDOVER_BOT
from echoridge.tables.clocks import settings as clock_settings
from echoridge.tables.players import SignedIn
from echoridge.tables.quota import Requester
from echoridge.tables.runner import TableRunner, command_name
from echoridge.tables.tokens import token_hash
from echoridge_protocol import codec
from echoridge_protocol import messages as m
from echoridge_protocol.errors import DecodeError

log = get_logger("echoridge.net")

DIRECT_BUFFER = 64 * 1024  # bytes waiting in the transport up to which frames skip the outbox


class Session(Handshake):
    """A connection; to a table runner it is a ``Sink``."""

    def __init__(
        self,
        ws: ServerConnection,
        node: Node,
        limits: Limits,
        metrics: Any,
        peer: str | None = None,
        requester: Requester | None = None,
    ) -> None:
        self.ws = ws
        self.node = node
        self.limits = limits
        self.metrics = metrics
        self.subprotocol = str(ws.subprotocol)
        self.outbox = Outbox(limits.outbox)
        self.kind = "handshake"
        self.table: str | None = None
        self.seat: int | None = None
        self.credential: str | None = None  # a seat session: the hash of its token
        self.runner: TableRunner | None = None
        self.name: str | None = None  # a spectator's display name in the spectators' chat
        self.identity: SignedIn | None = None  # who the session is signed in as (players.py)
        self.bucket = Bucket(limits.commands_per_second)
        self.refusals: deque[float] = deque()
        self.last_heard = time.monotonic()
        self.peer = peer or peer_of(ws)
        self.requester = requester  # who the lobby's limits count (tables/quota.py)
        self._sending_since: float | None = None  # a frame waits for the client's window
        self._abort_timer: asyncio.TimerHandle | None = None

    # --- Sink ---------------------------------------------------------------------------------

    def deliver(self, frame: bytes | str) -> None:
        """Write ``frame`` now if the connection keeps up, else queue it (never waits)."""
        Session.deliver_all((self,), frame)

    @staticmethod
    def deliver_all(sessions: Iterable[Session], frame: bytes | str) -> None:
        """``deliver`` to each of ``sessions``, with one ``broadcast()`` for all of those that
        keep up (the fan-out of one frame to a group of viewers)."""
        now: list[ServerConnection] = []
        metrics = None
        for session in sessions:
            outbox = session.outbox
            ws = session.ws
            if (
                not outbox.items
                and outbox.closing is None
                and session._sending_since is None
                and ws.transport.get_write_buffer_size() <= DIRECT_BUFFER
            ):  # (broadcast() skips a connection that is no longer open)
                now.append(ws)
                metrics = session.metrics
            elif outbox.put(frame):
                session._overflowed()
        if now:
            broadcast(now, frame)
            if metrics is not None:
                metrics.frames_out.inc(len(now))

    def close(self, code: int, reason: str, *, drop: bool = False, announce: bool = True) -> None:
        """Close after the frames already queued (or, with ``drop``, instead of them) and a
        ``bye`` (unless not ``announce``: the answer to the client's own ``bye``); a close that
        cannot finish within ``close_seconds`` (a client that reads nothing) is cut short at
        the transport."""
        self.outbox.close(code, reason, drop=drop, announce=announce)
        self._abort_later()

    def refuse(self, error: TableError) -> None:
        """End the session for ``error`` (an ``auth/…`` code: a ban made since its ``hello``,
        net/bansweep.py): the ``error``, then close code 4001."""
        self._refuse_handshake(error.code, error.message, 4001, error.retry_in)

    def _abort_later(self) -> None:
        if self._abort_timer is None:
            self._abort_timer = asyncio.get_running_loop().call_later(
                self.limits.close_seconds, self._abort, "the close did not finish"
            )

    def _abort(self, why: str) -> None:
        """Drop the TCP connection without waiting for the client (its window is shut)."""
        if self.ws.state is not State.CLOSED:
            log.info("session aborted", peer=self.peer, table=self.table, seat=self.seat, why=why)
            if self.metrics is not None:
                self.metrics.aborted.inc()
            self.ws.transport.abort()

    @property
    def closing(self) -> bool:
        return self.outbox.closing is not None

    # --- the connection -----------------------------------------------------------------------

    async def run(self) -> None:
        writer = asyncio.create_task(self._write())
        keepalive = asyncio.create_task(self._keepalive())
        started = time.monotonic()
        try:
            await self._handshake()
            if not self.closing:
                log.info(
                    "session opened",
                    peer=self.peer,
                    session=self.kind,
                    table=self.table,
                    seat=self.seat,
                    subprotocol=self.subprotocol,
                )
                await self._read()
        except ConnectionClosed:
            pass
        except Exception:
            log.exception("session failed", peer=self.peer, table=self.table, seat=self.seat)
            self.close(1011, "internal error")
        finally:
            if self.runner is not None:
                self.runner.detach(self)
            self.node_sessions_forget()
            keepalive.cancel()
            if not self.closing:
                writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, ConnectionClosed, TimeoutError):
                await asyncio.wait_for(writer, self.limits.close_seconds)
            self._abort("the session ended")  # (only if the close could not finish)
            if self._abort_timer is not None:
                self._abort_timer.cancel()
            log.info(
                "session closed",
                peer=self.peer,
                session=self.kind,
                table=self.table,
                seat=self.seat,
                seconds=round(time.monotonic() - started, 1),
                code=self.ws.close_code,
            )

    def _overflowed(self) -> None:
        if self.metrics is not None:
            self.metrics.outbox_overflows.inc()
        log.info("outbox overflow", peer=self.peer, table=self.table, seat=self.seat)
        self._abort_later()  # the outbox closes itself with 4011

    async def _write(self) -> None:
        while True:
            item = await self.outbox.get()
            if isinstance(item, tuple):
                code, reason, announce = item
                if announce:
                    with contextlib.suppress(ConnectionClosed):
                        await self.ws.send(
                            codec.encode(m.ServerBye(code, reason), self.subprotocol)
                        )
                await self.ws.close(code, reason[:120])
                return
            self._sending_since = time.monotonic()
            await self.ws.send(item)
            self._sending_since = None
            if self.metrics is not None:
                self.metrics.frames_out.inc()

    async def _keepalive(self) -> None:
        """Every ``ping_seconds``: ping; close with 4008 after ``idle_seconds`` without a frame
        or pong; abort the connection when a frame has waited ``idle_seconds`` for the
        client's receive window, or a ping cannot even be written (SPEC.md §2.4)."""
        limits = self.limits
        while True:
            await asyncio.sleep(limits.ping_seconds)
            now = time.monotonic()
            since = self._sending_since
            if since is not None and now - since > limits.idle_seconds:
                self._abort("the client reads nothing")
                return
            if now - self.last_heard > limits.idle_seconds:
                self.close(4008, "timeout: nothing from the client")
                return
            try:
                pong = await asyncio.wait_for(self.ws.ping(), limits.ping_seconds)
            except TimeoutError:
                self._abort("a ping could not be written")
                return
            except ConnectionClosed:
                return
            pong.add_done_callback(self._ponged)

    def _ponged(self, pong: asyncio.Future[float]) -> None:
        if not pong.cancelled() and pong.exception() is None:
            self.last_heard = time.monotonic()

    def _send(self, message: m.Message) -> None:
        self.deliver(codec.encode(message, self.subprotocol))

    def _error(
        self, code: str, message: str, request_id: str | None = None, retry_in: int | None = None
    ) -> None:
        self._send(m.ErrorMessage(code, message[:1024], request_id, retry_in))

    # --- messages -----------------------------------------------------------------------------

    async def _read(self) -> None:
        async for frame in self.ws:
            self.last_heard = time.monotonic()
            if self.metrics is not None:
                self.metrics.frames_in.inc()
            if self.closing:
                continue  # keep reading (and dropping) so the close handshake can complete
            try:
                message = codec.decode_client(frame, self.subprotocol)
            except DecodeError as exc:
                self._refused(exc.code, exc.message, exc.request_id)
                continue
            if not self.bucket.take():
                self._refused(
                    "protocol/rate_limited",
                    "Too many messages; slow down.",
                    getattr(message, "id", None),
                    self.bucket.wait_ms(),
                )
                continue
            try:
                await self._handle(message)
            except TableError as exc:
                self._answer_refusal(message, exc.code, exc.message, exc.retry_in)
            except StoreError:
                self._answer_refusal(
                    message, "server/unavailable", "The server cannot reach its store."
                )

    def _refused(
        self, code: str, message: str, request_id: str | None, retry_in: int | None = None
    ) -> None:
        self._error(code, message, request_id, retry_in)
        now = time.monotonic()
        self.refusals.append(now)
        while self.refusals and now - self.refusals[0] > 60:
            self.refusals.popleft()
        if len(self.refusals) > REFUSALS_ALLOWED:
            self.close(4029 if code == "protocol/rate_limited" else 1008, code)

    def _answer_refusal(
        self, message: m.Message, code: str, text: str, retry_in: int | None = None
    ) -> None:
        request_id = getattr(message, "id", None)
        answered = (
            m.Leave | m.Start | m.AddBot | m.RemovePlayer | m.CloseTable | m.SendCommand | m.Say
            | m.ChatOptions | m.Report | m.BlockPlayer | m.UnblockPlayer
        )
        if isinstance(message, answered):
            self._send(
                m.Result(message.id, "rejected", code=code, message=text, retry_in=retry_in)
            )
        else:
            self._error(code, text, request_id, retry_in)

    async def _handle(self, message: m.Message) -> None:
        match message:
            case m.SendCommand():
                await self._command(message)
            case m.ListTables(id=rid, table=str() as table):
                one = await self.node.players.rate_listing([await self.node.lobby.one(table)])
                self._send(m.Tables(id=rid, tables=tuple(one)))
            case m.ListTables(id=rid):
                tables, after = await self.node.lobby.list(
                    message.limit, message.status, message.mode, message.cursor
                )
                tables = await self.node.players.rate_listing(tables)
                self._send(m.Tables(id=rid, tables=tuple(tables), next=after))
            case m.ListGames():
                self._send(await self.node.lobby.games(message))  # (the record of games)
            case m.CreateTable(id=rid):
                ip = self.requester.ip if self.requester is not None else None
                await self.node.players.refuse_banned(self.identity, ip)
                clock = clock_settings(
                    message.clock, self.node.decision_seconds, self.node.clock_floor
                )
                settings = Settings(
                    message.seats,
                    message.public,
                    message.spectators,
                    message.spectator_delay,
                    clock,
                    message.mode or "competitive",
                    message.handover_bot or HANDOVER_BOT,
                    bool(message.rate_bots),
                )
                who = self.requester
                if who is not None and self.identity is not None:  # (its limits too)
                    who = dataclasses.replace(who, identity=self.identity.id)
                table, commit, owner = await self.node.create(settings, who)
                self._send(m.Created(id=rid, table=table, server_seed_commit=commit, owner=owner))
            case m.AskRematch(id=rid, table=table, token=token):
                new, commit, owner = await self.node.rematch(table, token)
                self._send(m.Created(id=rid, table=new, server_seed_commit=commit, owner=owner))
            case m.RemovePlayer(id=rid, table=table, owner=owner, seat=seat):
                await self.node.remove(table, owner, seat)
                self._send(m.Result(id=rid, outcome="accepted"))
            case m.CloseTable(id=rid, table=table, owner=owner):
                await self.node.close_table(table, owner)
                self._send(m.Result(id=rid, outcome="accepted"))
            case m.Join(id=rid, table=table):
                me = self.identity  # (a signed-in player's seat is its identity's, by handle)
                seat, token = await self.node.lobby.join(
                    table,
                    me.handle if me is not None else message.name,
                    message.client_seed,
                    identity=me.id if me is not None else "",
                )
                log.info("seat joined", table=table, seat=seat)
                self._send(m.Joined(id=rid, table=table, seat=seat, token=token))
            case m.Leave(id=rid, table=table, token=token):
                await self.node.leave(table, token, self)
                self._send(m.Result(id=rid, outcome="accepted"))
                if self.credential == token_hash(token):  # this session's own seat
                    self.close(4001, "auth/bad_token: the seat was given up")
            case m.Start(id=rid, table=table, token=token):
                version = await self.node.start(table, token)
                self._send(m.Result(id=rid, outcome="accepted", version=version))
            case m.AddBot(id=rid, table=table, token=token, kind=kind):
                seat = await self.node.lobby.add_bot(table, token, kind)
                log.info("bot seated", table=table, seat=seat, kind=kind)
                self._send(m.Result(id=rid, outcome="accepted"))
            case m.GetTranscript(id=rid, table=table):
                prepared = await self.node.transcript(table)  # (kept, encoded: transcripts.py)
                self.deliver(prepared.frame(rid, self.subprotocol))
            case m.GetReplay():
                self._send(await self.node.replays.page(message))  # (tables/replays.py)
            case (
                m.CreateIdentity() | m.RedeemCode() | m.NewTransferCode() | m.RenameIdentity()
                | m.GetLeaderboard() | m.GetPlayer() | m.Report() | m.BlockPlayer()
                | m.UnblockPlayer() | m.ListBlocked()
            ):
                await self._players(message)
            case m.Say() | m.ChatOptions():
                await self._chat(message)
            case m.Ping(id=rid):
                self._send(m.Pong(id=rid))
            case m.ClientBye():
                self.close(1000, "bye", announce=False)  # nothing more after a bye (§3.4)
            case m.Hello():
                self._refused("protocol/wrong_session", "This session already said hello.", None)
            case _:
                self._refused("protocol/wrong_session", "Not a message for the server.", None)

    async def _command(self, message: m.SendCommand) -> None:
        if self.kind != "seat" or self.table is None or self.seat is None:
            self._refused(
                "protocol/wrong_session", "Commands are sent from a seat session.", message.id
            )
            return
        started = time.perf_counter()
        outcome: Outcome = await self.node.command(
            self.table, self.seat, message.id, message.expected, dict(message.command)
        )
        seconds = time.perf_counter() - started
        self._send(
            m.Result(
                id=message.id,
                outcome=cast(
                    m.Outcome, "rejected" if outcome.outcome == "stale" else outcome.outcome
                ),
                version=outcome.version,
                code=outcome.code,
                message=outcome.message,
            )
        )
        if self.metrics is not None:
            self.metrics.commands.labels(outcome=outcome.outcome).inc()
            self.metrics.command_seconds.observe(seconds)
            if outcome.code is not None:
                self.metrics.rejections.labels(code=outcome.code).inc()
        log.log(  # one line per command: at --move-log-level (debug unless asked for)
            self.node.move_log_level,
            "command",
            table=self.table,
            seat=self.seat,
            command=command_name(dict(message.command)),
            outcome=outcome.outcome,
            code=outcome.code,
            version=outcome.version,
            ms=round(seconds * 1000, 2),
        )


    async def _players(
        self,
        message: m.CreateIdentity | m.RedeemCode | m.NewTransferCode | m.RenameIdentity
        | m.GetLeaderboard | m.GetPlayer | m.Report | m.BlockPlayer | m.UnblockPlayer
        | m.ListBlocked,
    ) -> None:
        """Identities, ratings, reports and blocks (tables/players.py); the session signs in
        by ``create_identity`` and ``redeem_code``."""
        players = self.node.players
        match message:
            case m.CreateIdentity(id=rid, handle=handle):
                self.identity, secret = await players.create(self.identity, handle)
                self._send(m.IdentityMessage(rid, self.identity.wire(), secret))
            case m.RedeemCode(id=rid, transfer_code=code):
                self.identity, secret = await players.redeem(code)
                self._send(m.IdentityMessage(rid, self.identity.wire(), secret))
            case m.NewTransferCode(id=rid):
                code, expires = await players.transfer_code(self.identity)
                self._send(m.TransferCode(rid, code, expires))
            case m.RenameIdentity(id=rid, handle=handle):
                self.identity = await players.rename(self.identity, handle)
                self._send(m.IdentityMessage(rid, self.identity.wire()))
            case m.GetLeaderboard():
                self._send(await players.leaderboard(message))
            case m.GetPlayer():
                self._send(await players.page(message, self.identity))
            case m.Report(id=rid):
                await players.report(self.identity, message)
                self._send(m.Result(id=rid, outcome="accepted"))
            case m.BlockPlayer(id=rid, identity=whom) | m.UnblockPlayer(id=rid, identity=whom):
                await players.block(self.identity, whom, isinstance(message, m.BlockPlayer))
                self._send(m.Result(id=rid, outcome="accepted"))
            case m.ListBlocked(id=rid):
                self._send(m.Blocked(rid, await players.blocks(self.identity)))

    async def _chat(self, message: m.Say | m.ChatOptions) -> None:
        """``say`` and ``chat_options`` (tables/chat.py), answered with a ``result``."""
        if self.runner is None or self.kind not in ("seat", "spectator"):
            self._refused("protocol/wrong_session", "Chat is for seats and spectators.", message.id)
            return
        key = SPECTATORS if self.seat is None else self.seat
        if isinstance(message, m.Say):
            # A spectator's limit counts its client address (the gate's key: IPv6 by its /64).
            address = self.requester.address if self.requester is not None else None
            await self.runner.chat.say(
                self,
                key,
                message.channel,
                message.text,
                self.name,
                address or self.peer,
                self.identity.id if self.identity is not None else None,
            )
        else:
            self.runner.chat.options(self, key, message.spectators)
        self._send(m.Result(id=message.id, outcome="accepted"))


def peer_of(ws: ServerConnection) -> str:
    address = ws.remote_address
    if isinstance(address, tuple) and len(address) >= 2:
        return f"{address[0]}:{address[1]}"
    return str(address)
