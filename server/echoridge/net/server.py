"""The websocket server: one endpoint for the protocol (``/ws`` and ``/``), and on the same port
plain HTTP for ``/healthz`` and ``/metrics``."""

from __future__ import annotations

import asyncio
import contextlib
import http
from collections.abc import Sequence

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import NegotiationError
from websockets.http11 import Request, Response
from websockets.typing import Subprotocol

from echoridge.logs import get_logger
from echoridge.net.metrics import ServerMetrics
from echoridge.net.session import Limits, Session
from echoridge.tables import Node
from echoridge_protocol import messages as m

log = get_logger("echoridge.net")

WS_PATHS = ("/ws", "/")


def select_subprotocol(
    connection: ServerConnection, offered: Sequence[Subprotocol]
) -> Subprotocol | None:
    """The first subprotocol the client offers that we speak (SPEC.md §2.1), else HTTP 400."""
    for name in offered:
        if name in m.SUBPROTOCOLS:
            return name
    raise NegotiationError("offer echoridge.v1.msgpack or echoridge.v1.json")


class GameServer:
    """The running server of one node."""

    def __init__(self, node: Node, metrics: ServerMetrics, limits: Limits | None = None) -> None:
        self.node = node
        self.metrics = metrics
        self.limits = limits or Limits()
        self.sessions: set[Session] = set()
        self._server: Server | None = None

    async def start(self, host: str, port: int) -> int:
        """Listen; returns the port (useful with port 0)."""
        self._server = await serve(
            self._handle,
            host,
            port,
            subprotocols=[Subprotocol(s) for s in m.SUBPROTOCOLS],
            select_subprotocol=select_subprotocol,
            process_request=self._http,
            max_size=self.limits.max_frame_bytes,
            ping_interval=None,  # the session's own keepalive (SPEC.md §2.4)
            compression=None,
        )
        sockets = list(self._server.sockets)
        return int(sockets[0].getsockname()[1])

    async def stop(self) -> None:
        """Close every session with 1001 (going away), then stop listening."""
        for session in list(self.sessions):
            session.close(1001, "server shutting down")
        if self._server is not None:
            self._server.close(close_connections=False)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 10)

    async def _handle(self, ws: ServerConnection) -> None:
        session = Session(ws, self.node, self.limits, self.metrics)
        self.sessions.add(session)
        try:
            await session.run()
        finally:
            self.sessions.discard(session)

    def _http(self, connection: ServerConnection, request: Request) -> Response | None:
        path = request.path.split("?", 1)[0]
        if path == "/healthz":
            return connection.respond(http.HTTPStatus.OK, "ok\n")
        if path == "/metrics":
            response = connection.respond(http.HTTPStatus.OK, self.metrics.registry.render())
            response.headers["Content-Type"] = "text/plain; version=0.0.4; charset=utf-8"
            return response
        upgrade = request.headers.get("Upgrade", "").lower() == "websocket"
        if path in WS_PATHS and upgrade:
            return None
        if path == "/" and not upgrade:
            return _page(connection)
        return connection.respond(http.HTTPStatus.NOT_FOUND, "not found\n")


def _page(connection: ServerConnection) -> Response:
    body = (
        "Echo Ridge game server.\n"
        "Connect a client to ws://HOST:PORT/ws with the subprotocol echoridge.v1.msgpack or "
        "echoridge.v1.json (protocol/SPEC.md).\n"
    )
    return connection.respond(http.HTTPStatus.OK, body)
