"""The websocket server: one endpoint for the protocol (``/ws`` and ``/``), and on the same port
plain HTTP for ``/healthz`` (the process lives), ``/readyz`` (it serves: Redis answers and it is
not draining), ``/metrics``, the browser client (``/`` and the static files of
``clients/web/``), the documents published beside the protocol under ``/protocol/`` (SPEC.md
§1: net/published.py) and ``/api/spectators/TABLE`` (how many spectators watch a table on this
node, as JSON, for the browser client: the protocol's views do not carry it)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import http
import json
import os
import re
import socket
import sys
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import NegotiationError
from websockets.http11 import Request, Response
from websockets.server import ServerProtocol
from websockets.typing import Subprotocol

from echoridge.logs import get_logger
from echoridge.net.affinity import Handoff, Router, listeners
from echoridge.net.bansweep import BanSweep
from echoridge.net.gate import Admission, Gate, address_key
from echoridge.net.hostcounts import HostCounts
from echoridge.net.limits import Limits
from echoridge.net.metrics import CONTENT_TYPE, ServerMetrics
from echoridge.net.published import (
    CONTENT_TYPES,
    DOCUMENT_TYPES,
    PREFIX,
    StaticFiles,
    find_published,
)
from echoridge.net.session import Session, peer_of
from echoridge.tables import Node
from echoridge.tables.quota import Requester
from echoridge_client import errortext
from echoridge_protocol import messages as m

log = get_logger("echoridge.net")

WS_PATHS = ("/ws", "/")
RESTARTING = 1012  # the close code of a drain (SPEC.md §7.2: reconnect at once, elsewhere)
DRAIN_SECONDS = 10.0  # a drain waits this long for the sessions to finish closing
READY_TIMEOUT = 1.0  # seconds Redis has to answer /readyz's PING
WEB_DIR_ENV = "ECHORIDGE_WEB_DIR"  # overrides where the browser client's files are
_HOST = re.compile(r"(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")
_TABLE = re.compile(r"[A-Za-z0-9_-]{1,64}")


def pick_subprotocol(offered: Sequence[Subprotocol]) -> Subprotocol:
    """The first subprotocol the client offers that we speak (SPEC.md §2.1), else HTTP 400."""
    for name in offered:
        if name in m.SUBPROTOCOLS:
            return name
    raise NegotiationError("offer echoridge.v2.msgpack or echoridge.v2.json")


def select_subprotocol(
    connection: ServerConnection, offered: Sequence[Subprotocol]
) -> Subprotocol | None:
    """``pick_subprotocol`` as ``serve()`` calls it."""
    return pick_subprotocol(offered)


def _protocol_select(
    protocol: ServerProtocol, offered: Sequence[Subprotocol]
) -> Subprotocol | None:
    """``pick_subprotocol`` as a sans-I/O protocol calls it (``_adopt``), with no closure over
    the connection, which would make a cycle of it (see ``Connection``)."""
    return pick_subprotocol(offered)


class Connection(ServerConnection):
    """websockets' connection, freed by reference counting once closed.

    ``serve()`` gives each connection's sans-I/O protocol a closure over the connection for
    ``select_subprotocol``: connection -> protocol -> closure -> connection, a cycle that would
    keep every closed connection (its transport, buffers, request, and the session that ran on
    it) until a full collection, which serve.py makes rare (``collect_fully``): about 10 kB a
    connection.  Once the TCP connection is lost the handshake is long over: drop the closure.
    """

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        vars(self.protocol).pop("select_subprotocol", None)  # (the class's method again)


@dataclass(frozen=True, slots=True)
class Worker:
    """A server's place among ``serve --workers``: its index, how many, where they hand off."""

    index: int
    count: int
    handoff_dir: str


class GameServer:
    """The running server of one node."""

    def __init__(
        self,
        node: Node,
        metrics: ServerMetrics,
        limits: Limits | None = None,
        web_root: Path | None = None,
        admission: Admission | None = None,
        host: HostCounts | None = None,
        room: int = 0,
    ) -> None:
        self.node = node
        self.metrics = metrics
        self.limits = limits or Limits()
        self.gate = Gate(admission or Admission(), metrics, host, room)
        self.sessions: set[Session] = set()
        self.web = StaticFiles(web_root if web_root is not None else find_web_root())
        # the JavaScript SDK's modules (clients/js/src), which the browser client imports
        self.sdk = StaticFiles(find_sdk_root(), SDK_TYPES, index=None)
        self.published = find_published()
        self._server: Server | None = None
        self._router: Router | None = None
        # websockets' settings of a connection (``serve`` and ``_adopt`` use the same):
        self._ws: dict[str, Any] = {
            "subprotocols": [Subprotocol(s) for s in m.SUBPROTOCOLS],
            "select_subprotocol": select_subprotocol,
            "max_size": self.limits.max_frame_bytes,
            "ping_interval": None,  # the session's own keepalive (SPEC.md §2.4)
            "compression": None,
            "create_connection": Connection,
        }
        self.draining = False  # stopping: /readyz says 503, sessions are being closed
        self.bans = BanSweep(node.storage.moderation, self.sessions)  # bans cut sessions
        self._adopting: set[asyncio.Task[None]] = set()

    async def start(
        self, host: str, port: int, *, reuse_port: bool = False, worker: Worker | None = None
    ) -> int:
        """Listen; returns the port (useful with port 0).  ``reuse_port``: in a group of
        ``SO_REUSEPORT`` sockets, one per worker (workers.py).  ``worker``: this process's
        place among the workers, to serve each table's connections in one (net/affinity.py):
        then this server accepts on the port itself and routes every connection."""
        self.bans.start()
        if worker is None:
            self._server = await serve(
                self._handle,
                host,
                port,
                process_request=self._http,
                reuse_port=reuse_port or None,
                **self._ws,
            )
            return int(self._server.sockets[0].getsockname()[1])
        tcp = listeners(host, port)
        # The websockets server listens on a unix socket of the run's own directory, which
        # nobody connects to: the router hands it every connection (``_adopt``).
        self._server = await serve(
            self._handle,
            unix=True,
            path=str(Path(worker.handoff_dir) / f"worker-{worker.index}.ws"),
            process_request=self._http,
            **self._ws,
        )
        self._router = Router(
            tcp,
            Handoff(worker.handoff_dir, worker.index),
            worker.index,
            worker.count,
            self._adopt,
            self.metrics.handed_off,
        )
        self._router.start()
        return int(tcp[0].getsockname()[1])

    def _adopt(self, sock: socket.socket) -> None:
        """Serve a connection this worker accepted itself or was passed (net/affinity.py) as
        the websockets server would have: the same protocol settings, the same handler."""
        server = self._server
        if server is None:
            sock.close()
            return
        options = self._ws

        def connection() -> ServerConnection:
            protocol = ServerProtocol(
                subprotocols=options["subprotocols"],
                select_subprotocol=_protocol_select,
                max_size=options["max_size"],
                logger=server.logger,
            )
            return Connection(protocol, server, ping_interval=options["ping_interval"])

        async def adopt() -> None:
            loop = asyncio.get_running_loop()
            try:
                await loop.connect_accepted_socket(connection, sock)
            except Exception:
                sock.close()

        task = asyncio.get_running_loop().create_task(adopt())
        self._adopting.add(task)
        task.add_done_callback(self._adopting.discard)

    async def stop(self) -> None:
        """Drain: ``/readyz`` says not ready, no new connection is accepted, and every session
        is closed with 1012 (restarting: reconnect at once, to another server; SPEC.md §7.2);
        then wait up to ``DRAIN_SECONDS`` for them to finish closing."""
        self.draining = True
        await self.bans.stop()
        if self._router is not None:
            self._router.stop()
        if self._server is not None:
            self._server.close(close_connections=False)  # (stops listening at once)
        for session in list(self.sessions):
            session.close(RESTARTING, "server restarting; reconnect to resume")
        if self._server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), DRAIN_SECONDS)

    async def _handle(self, ws: ServerConnection) -> None:
        address = self.gate.address(ws)
        peer = peer_of(ws)
        if address is not None and not peer.startswith(f"{address}:"):
            peer = address  # (a client behind a trusted proxy)
        # The lobby's limits count the client's address (and a signed-in session's identity).
        ip = address or peer.rpartition(":")[0] or peer
        requester = Requester(address_key(ip), ip=ip)
        session = Session(ws, self.node, self.limits, self.metrics, peer, requester)
        self.sessions.add(session)
        try:
            await session.run()
        finally:
            self.sessions.discard(session)

    def _http(
        self, connection: ServerConnection, request: Request
    ) -> Response | Awaitable[Response] | None:
        path = request.path.split("?", 1)[0]
        if path == "/healthz":
            return connection.respond(http.HTTPStatus.OK, "ok\n")
        if path == "/readyz":
            return self._ready(connection)
        if path == "/metrics":
            return _respond(connection, self.metrics.render(), CONTENT_TYPE)
        upgrade = request.headers.get("Upgrade", "").lower() == "websocket"
        if upgrade:  # the protocol's endpoint, and only there
            if path not in WS_PATHS:
                return _not_found(connection)
            return self.gate.admit(connection, request)
        if path.startswith("/api/spectators/"):
            return self._spectators(connection, path.removeprefix("/api/spectators/"))
        if path.startswith(PREFIX):  # SPEC.md, the schema, the rules, ... (SPEC.md §1)
            return self._published(connection, path)
        language = LOG_TEXT_PATHS.get(path)
        if language is not None:  # the log's wording, shared with the terminal client
            response = _respond(connection, log_text(language), "application/json")
            response.headers["Cache-Control"] = "no-cache"
            return response
        language = ERROR_TEXT_PATHS.get(path)
        if language is not None:  # the error codes' sentences (English: the code registry)
            response = _respond(connection, errortext.published(language), "application/json")
            response.headers["Cache-Control"] = "no-cache"
            return response
        if self.web.root is None and path == "/":
            return _page(connection)
        if path.startswith(SDK_PREFIX):
            file = self.sdk.resolve(path.removeprefix(SDK_PREFIX[:-1]))
        else:
            file = self.web.resolve(path)
        if file is None:
            return _not_found(connection)
        try:
            body = file.read_bytes()
        except OSError:
            return _not_found(connection)
        response = _respond(connection, body, CONTENT_TYPES[file.suffix])
        response.headers["Content-Security-Policy"] = content_security_policy(
            request.headers.get("Host")
        )
        response.headers["Cache-Control"] = "no-cache"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Frame-Options"] = "DENY"
        return response

    def _published(self, connection: ServerConnection, path: str) -> Response:
        """A published document: public, so any web page may read it (CORS)."""
        file = self.published.resolve(path)
        try:
            body = file.read_bytes() if file is not None else None
        except OSError:
            body = None
        if file is None or body is None:
            return _not_found(connection)
        response = _respond(connection, body, DOCUMENT_TYPES[file.suffix])
        response.headers["Cache-Control"] = "no-cache"
        response.headers["Access-Control-Allow-Origin"] = "*"
        return response

    async def _ready(self, connection: ServerConnection) -> Response:
        """``/readyz``: 200 while Redis answers and the server is not draining, else 503."""
        if self.draining:
            response = connection.respond(http.HTTPStatus.SERVICE_UNAVAILABLE, "draining\n")
        elif not await self.node.storage.answers(READY_TIMEOUT):
            response = connection.respond(http.HTTPStatus.SERVICE_UNAVAILABLE, "no redis\n")
        else:
            response = connection.respond(http.HTTPStatus.OK, "ready\n")
        response.headers["Cache-Control"] = "no-store"
        return response

    def _spectators(self, connection: ServerConnection, table: str) -> Response:
        """How many spectator sessions this node has at ``table`` (other nodes not counted)."""
        if not _TABLE.fullmatch(table):
            return _not_found(connection)
        count = sum(
            1
            for s in self.sessions
            if s.kind == "spectator" and s.table == table and not s.closing
        )
        body = json.dumps({"table": table, "spectators": count}).encode()
        response = _respond(connection, body, "application/json")
        response.headers["Cache-Control"] = "no-store"
        return response


LOG_TEXT_PATH = "/logtext.en.json"
LOG_TEXT_PATHS = {LOG_TEXT_PATH: "en", "/logtext.es.json": "es"}  # path -> language
# The error codes' sentences per language (echoridge_client.errortext: English from the
# protocol's registry, made on request so that no file repeats it; Spanish from the SDK's
# errors.es.json, which the terminal client reads too).
ERROR_TEXT_PATHS = {f"/errors.{lang}.json": lang for lang in errortext.LANGUAGES}


@functools.cache
def log_text(language: str = "en") -> bytes:
    """How the clients word the log (echoridge_client/logtext.LANGUAGE.json): one copy for
    both clients, per language."""
    name = f"logtext.{language}.json"
    return resources.files("echoridge_client").joinpath(name).read_bytes()


SDK_PREFIX = "/sdk/"  # the JavaScript SDK's modules, as the browser client imports them
SDK_TYPES = {".js": CONTENT_TYPES[".js"]}


def find_sdk_root() -> Path | None:
    """Where the JavaScript SDK's modules are (served at ``/sdk/``): ``clients/js/src`` beside
    the ``server`` folder this package was loaded from (a source checkout, or an editable
    install); else ``echoridge/sdk`` inside the package (a wheel carries it there: setup.py).
    None: not found."""
    import echoridge

    package = Path(echoridge.__file__).resolve().parent
    for candidate in (package.parents[1] / "clients" / "js" / "src", package / "sdk"):
        if (candidate / "index.js").is_file():
            return candidate.resolve()
    return None


def find_web_root() -> Path | None:
    """Where the browser client is: ``$ECHORIDGE_WEB_DIR``; else ``clients/web`` beside the
    ``server`` folder this package was loaded from (a source checkout, or an editable install);
    else ``echoridge/web`` inside the package (a wheel carries it there: setup.py); else
    ``PREFIX/share/echo-ridge/web`` (where a packager may put it).  None: not found."""
    import echoridge

    candidates = []
    if os.environ.get(WEB_DIR_ENV):
        candidates.append(Path(os.environ[WEB_DIR_ENV]))
    package = Path(echoridge.__file__).resolve().parent
    candidates.append(package.parents[1] / "clients" / "web")
    candidates.append(package / "web")
    candidates.append(Path(sys.prefix) / "share" / "echo-ridge" / "web")
    for candidate in candidates:
        if (candidate / "index.html").is_file():
            return candidate.resolve()
    return None


def content_security_policy(host: str | None) -> str:
    """Only this origin, and websockets to the same host (ws: and wss:, for TLS proxies)."""
    connect = "'self'"
    if host and _HOST.fullmatch(host):
        connect += f" ws://{host} wss://{host}"
    return (
        f"default-src 'self'; connect-src {connect}; img-src 'self' data:; "
        "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    )


def _respond(connection: ServerConnection, body: bytes, content_type: str) -> Response:
    """A 200 response with ``body``.  (``Headers`` is a multi-map: assigning a name adds a
    header, so the headers of ``respond`` are rebuilt rather than overwritten.)"""
    response = connection.respond(http.HTTPStatus.OK, "")
    replaced = ("content-length", "content-type")
    response.headers = Headers(
        [(k, v) for k, v in response.headers.raw_items() if k.lower() not in replaced]
    )
    response.headers["Content-Length"] = str(len(body))
    response.headers["Content-Type"] = content_type
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.body = body
    return response


def _not_found(connection: ServerConnection) -> Response:
    response = connection.respond(http.HTTPStatus.NOT_FOUND, "not found\n")
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


def _page(connection: ServerConnection) -> Response:
    body = (
        "Echo Ridge game server.\n"
        "Connect a client to ws://HOST:PORT/ws with the subprotocol echoridge.v2.msgpack or "
        "echoridge.v2.json (protocol/SPEC.md).\n"
        f"The browser client was not found: set {WEB_DIR_ENV} to the clients/web folder of a "
        "source checkout.\n"
    )
    return connection.respond(http.HTTPStatus.OK, body)
