"""A session's handshake (the ``Handshake`` side of ``Session``, session.py): the ``hello`` that
opens a lobby, seat or spectator session, or its refusal with a stable code and close code, the
``welcome``, and the one seat session per seat on a node (a newer one replaces the older, 4009).
"""

from __future__ import annotations

import asyncio
import time
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _dist_version
from typing import TYPE_CHECKING, Any, cast

from echoridge.net.jwtauth import JwtRefused
from echoridge.store import StoreError
from echoridge.tables import SPECTATORS, Node, TableError
from echoridge.tables.players import SignedIn
from echoridge.tables.quota import Requester
from echoridge.tables.tokens import token_hash
from echoridge_protocol import codec
from echoridge_protocol import messages as m
from echoridge_protocol.errors import DecodeError, ProtocolError

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection

    from echoridge.net.limits import Limits
    from echoridge.tables.runner import TableRunner


def package_version() -> str:
    try:
        return _dist_version("echo-ridge")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0"


SERVER_NAME = f"echo-ridge/{package_version()}"  # welcome.server, as in SPEC.md §3.2
FEATURES = m.FEATURES  # lobby, resume, spectate, bots, transcripts, clocks, handover, chat, modes
UNSIGNED = tuple(f for f in FEATURES if f != "jwt")  # a server without --auth-jwt-key


class Handshake:
    """What ``Session`` (session.py) does before its first message and for its welcomes."""

    ws: ServerConnection
    node: Node
    limits: Limits
    metrics: Any
    subprotocol: str
    kind: str
    table: str | None
    seat: int | None
    credential: str | None
    runner: TableRunner | None
    name: str | None
    identity: SignedIn | None
    requester: Requester | None
    last_heard: float

    if TYPE_CHECKING:

        @property
        def closing(self) -> bool: ...

        def close(self, code: int, reason: str, *, drop: bool = False) -> None: ...

        def _send(self, message: m.Message) -> None: ...

        def _error(
            self,
            code: str,
            message: str,
            request_id: str | None = None,
            retry_in: int | None = None,
        ) -> None: ...

    async def _handshake(self) -> None:
        try:
            frame = await asyncio.wait_for(self.ws.recv(), self.limits.handshake_seconds)
        except TimeoutError:
            self.close(4008, "timeout: no hello")
            return
        self.last_heard = time.monotonic()
        try:
            hello = codec.decode_client(frame, self.subprotocol)
            if not isinstance(hello, m.Hello):
                raise DecodeError("the first message must be hello", "protocol/hello_first")
            if hello.protocol != m.PROTOCOL:
                raise DecodeError(
                    f"this server speaks {m.PROTOCOL}", "protocol/unsupported_version"
                )
            kind = hello.session_kind()
            await self._sign_in(hello)
            if kind == "lobby":
                self.kind = "lobby"
                self._send(self._welcome(None, None, None, False, None))
            else:
                await self._open_table_session(hello, kind)
        except ProtocolError as exc:
            close = 4001 if exc.code.startswith("auth/") else 4000
            self._refuse_handshake(exc.code, exc.message, close)
        except TableError as exc:
            close = 4001 if exc.code.startswith("auth/") else 4004
            self._refuse_handshake(exc.code, exc.message, close, exc.retry_in)
        except StoreError:
            self._refuse_handshake("server/unavailable", "The server cannot reach its store.", 1011)
        if self.metrics is not None and not self.closing:
            self.metrics.connections.labels(session=self.kind).inc()

    async def _sign_in(self, hello: m.Hello) -> None:
        """Sign the session in with ``hello.identity`` or ``hello.jwt`` (tables/players.py);
        refuse a banned identity or client address."""
        players = self.node.players
        if hello.identity is not None:
            self.identity = await players.sign_in(hello.identity)
        elif hello.jwt is not None:
            verifier = self.node.jwt
            if verifier is None:
                raise TableError("auth/jwt_not_accepted")
            try:
                claims = verifier.verify(hello.jwt)
            except JwtRefused as exc:
                raise TableError(exc.code) from None
            issuer = verifier.issuer or ""
            self.identity = await players.vouched(issuer, claims.subject, claims.name)
        ip = self.requester.ip if self.requester is not None else None
        await players.refuse_banned(self.identity, ip)

    def _refuse_handshake(
        self, code: str, message: str, close: int, retry_in: int | None = None
    ) -> None:
        self._error(code, message, None, retry_in)
        self.close(close, code)

    async def _open_table_session(self, hello: m.Hello, kind: str) -> None:
        assert hello.table is not None
        table = hello.table
        meta = await self.node.lobby.meta(table)
        if kind == "seat":
            assert hello.token is not None
            self.seat = await self.node.lobby.authenticate(table, hello.token)
            self.credential = token_hash(hello.token)
            key = self.seat
        else:
            if meta["spectators"] != "1" or meta["public"] != "1":
                raise TableError("table/no_spectators")
            key = SPECTATORS
            self.name = hello.name
        self.kind, self.table = kind, table
        if kind == "seat":
            self.node_sessions_claim()
        self.runner = await self.node.attach(
            table,
            self,
            key,
            hello.resume,
            self._welcome,
            self.credential,
        )

    def _welcome(
        self,
        epoch: int | None,
        version: int | None,
        view: dict[str, Any] | None,
        resumed: bool,
        log: tuple[dict[str, Any], ...] | None,
    ) -> m.Welcome:
        return m.Welcome(
            protocol=m.PROTOCOL,
            server=SERVER_NAME,
            features=FEATURES if self.node.jwt is not None else UNSIGNED,
            limits=self.limits.wire(),
            session=cast(m.SessionKind, self.kind),
            table=self.table,
            seat=self.seat,
            epoch=epoch,
            version=version,
            view=view,
            log=log,
            resumed=resumed,
            identity=self.identity.wire() if self.identity is not None else None,
        )

    # One seat session per seat on this node: a newer one replaces the older (4009).
    def node_sessions_claim(self) -> None:
        sessions = self.node.seat_sessions
        assert self.table is not None and self.seat is not None
        old = sessions.get((self.table, self.seat))
        if old is not None and old is not self:
            old.close(4009, "replaced by a newer session of this seat")
        sessions[(self.table, self.seat)] = self

    def node_sessions_forget(self) -> None:
        sessions = self.node.seat_sessions
        if self.table is not None and self.seat is not None:
            key = (self.table, self.seat)
            if sessions.get(key) is self:
                del sessions[key]
        if self.metrics is not None and self.kind != "handshake":
            self.metrics.connections.labels(session=self.kind).dec()
