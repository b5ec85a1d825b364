"""The admin API (issue 28): the operators' tool against abuse, HTTP and JSON on a listener of
its own, never on the game's public port.

**What an operator configures.**  ``serve --admin-port PORT`` opens it (``--admin-host``:
127.0.0.1 by default); the token every request must carry is ``ECHORIDGE_ADMIN_TOKEN``, 32
characters or more, read from the environment (an argument would show in ``ps``).  Nothing
else grants access, so the listener must stay off public networks: bind it to loopback (the
default) or a private interface and reach it through SSH or a VPN, never through the game's
reverse proxy.  ``echo-ridge admin`` (admincli.py) is its command-line client.  Under
``serve --workers N`` only worker 0 serves it (see serve.py).

**Routes** (JSON in and out; times in ms since the Unix epoch; what each does: adminroutes.py):

    GET    /admin/tables               the lobby's listed tables and every table this node runs
    POST   /admin/tables/{table}/close close a table whose game has not started
    GET    /admin/bans                 the bans in force
    POST   /admin/bans                 ban an identity or a network: kind, target, seconds, reason
    DELETE /admin/bans/{id}            lift a ban
    GET    /admin/reports              players' reports, newest first, each with its replay path
    GET    /admin/audit                the audit log of admin actions, newest first

Closing, banning and lifting are written to the audit log (store/moderation.py) with the acting
admin's name (``X-Admin-Name``, printable, at most 64 characters; ``admin`` when absent).  A
ban holds at the next ``hello`` and ``create_table`` on every node (nothing is cached).

**Why its own listener, and h11.**  The public port is the websocket server's, whose HTTP is
a handshake and a few GETs; requests with bodies and a secret in a header have no business
there, and a separate listener can be firewalled apart.  h11 (which comes with httpx) parses
HTTP/1.1 and nothing else: no framework, no threads.

**Bounds.**  A request head is at most 16 KiB (431), a body at most 64 KiB (413), one request
at most 10 s (408); one request per connection (``Connection: close``); at most
``MAX_CONNECTIONS`` at once (503).

**Errors** are JSON, ``{"code": "admin/<name>", "message": "<a sentence>"}``, with the status
that fits: 400 bad_request, 401 unauthorized, 404 not_found, 405 method_not_allowed, 408
timeout, 409 conflict or started, 413 (431 for a head) too_large, 503 unavailable when Redis
does not answer, 500 internal for a bug (the server's log has the traceback; the answer never).
The token is compared in constant time (over SHA-256 digests, so its length does not show
either), kept only as its digest, and never logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import ipaddress
import json
import logging
import re
import time
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qsl, unquote

import h11

from echoridge.logs import get_logger
from echoridge.net.adminroutes import (
    Handler,
    Refusal,
    Reply,
    Request,
    Routes,
    bad,
    refusal_reply,
)
from echoridge.store import StoreError

MAX_HEAD = 16 * 1024  # bytes of a request line and headers
MAX_BODY = 64 * 1024  # bytes of a request body
REQUEST_SECONDS = 10.0  # a request, read and answered
WRITE_SECONDS = 5.0  # writing the answer
LINGER_SECONDS = 1.0  # reading what a refused body still sends, so the refusal is read
LINGER_BYTES = 1 << 20
MAX_CONNECTIONS = 16  # connections served at once; more are answered 503 at once
READ_CHUNK = 8192
MAX_NAME = 64  # characters of X-Admin-Name


log = get_logger("echoridge.admin")


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return host == "localhost"


class AdminApi:
    """The admin API of one server process: ``start(host, port)`` listens (the bound port),
    ``close()`` stops listening and ends the requests in progress."""

    def __init__(self, node: Any, storage: Any, token: str) -> None:
        if len(token) < 32:
            raise ValueError("the admin token has 32 characters or more")
        self.node = node  # tables.Node
        self.storage = storage  # store.Storage
        self._token = _digest(token)  # (only its digest is kept)
        self._server: asyncio.Server | None = None
        self._active: set[asyncio.Task[Any]] = set()
        routes = Routes(node, storage)  # (adminroutes.py: what each route does)
        self._routes: tuple[tuple[re.Pattern[str], dict[str, Handler]], ...] = (
            (re.compile(r"/admin/tables"), {"GET": routes.tables}),
            (re.compile(r"/admin/tables/([^/]+)/close"), {"POST": routes.close}),
            (re.compile(r"/admin/bans"), {"GET": routes.bans, "POST": routes.ban}),
            (re.compile(r"/admin/bans/([^/]+)"), {"DELETE": routes.lift}),
            (re.compile(r"/admin/reports"), {"GET": routes.reports}),
            (re.compile(r"/admin/audit"), {"GET": routes.audit}),
        )

    async def start(self, host: str, port: int) -> int:
        """Listen on ``host:port`` (0: any free port); the port bound."""
        try:
            self._server = await asyncio.start_server(
                self._connection, host, port, reuse_address=True
            )
        except OSError as exc:
            raise OSError(
                exc.errno, f"the admin API cannot listen on {host}:{port}: {exc.strerror}"
            ) from exc
        bound = int(self._server.sockets[0].getsockname()[1])
        log.info("admin API listening", url=f"http://{host}:{bound}/admin/")
        if not _loopback(host):
            log.warning(
                "the admin API listens beyond this host: keep it off public networks", host=host
            )
        return bound

    async def close(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        server.close()
        for task in list(self._active):
            task.cancel()
        await asyncio.gather(*self._active, return_exceptions=True)
        with contextlib.suppress(Exception):
            async with asyncio.timeout(WRITE_SECONDS):
                await server.wait_closed()

    # --- one connection, one request ------------------------------------------------------------

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD)
        if len(self._active) >= MAX_CONNECTIONS:
            busy = Refusal(503, "busy", "The admin API serves other requests: try again soon.")
            with contextlib.suppress(ConnectionError, TimeoutError):
                await self._send(conn, writer, refusal_reply(busy))
            await _close(writer)
            return
        task = asyncio.current_task()
        if task is not None:
            self._active.add(task)
        request = Request()
        began = time.monotonic()
        reply: Reply | None = None
        complete = False  # the whole request was read
        try:
            try:
                async with asyncio.timeout(REQUEST_SECONDS):
                    reply, complete = await self._exchange(conn, reader, writer, request)
            except TimeoutError:
                late = Refusal(
                    408, "timeout", f"The request took longer than {REQUEST_SECONDS:g} seconds."
                )
                reply = refusal_reply(late)
            if reply is not None:
                await self._send(conn, writer, reply)
                if not complete:
                    await _linger(reader, writer)
                log.log(
                    logging.WARNING if reply.status == 401 else logging.INFO,
                    "admin request",
                    method=request.method,
                    path=request.path,
                    status=reply.status,
                    by=request.by or None,
                    peer=_peer(writer),
                    ms=round((time.monotonic() - began) * 1000, 1),
                )
        except (ConnectionError, TimeoutError, h11.LocalProtocolError):
            pass  # (the client went away, or broke HTTP past answering)
        finally:
            if task is not None:
                self._active.discard(task)
            await _close(writer)

    async def _exchange(
        self,
        conn: h11.Connection,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        request: Request,
    ) -> tuple[Reply | None, bool]:
        """Read a request and answer it: the reply (None: the client went away first) and
        whether the whole request was read."""
        try:
            event = await _next_event(conn, reader)
        except h11.RemoteProtocolError as exc:
            if exc.error_status_hint == 431:
                return refusal_reply(
                    Refusal(431, "too_large", f"A request head is at most {MAX_HEAD} bytes.")
                ), False
            return refusal_reply(bad("That is not HTTP/1.1.")), False
        if not isinstance(event, h11.Request):
            return None, False
        if _head_size(event) > MAX_HEAD:  # (h11 bounds a head still incomplete, not one read)
            return refusal_reply(
                Refusal(431, "too_large", f"A request head is at most {MAX_HEAD} bytes.")
            ), False
        try:
            handler, args = self._accept(event, request)
            if conn.they_are_waiting_for_100_continue:  # (Expect: 100-continue: curl's)
                writer.write(
                    conn.send(
                        h11.InformationalResponse(status_code=100, headers=[], reason=b"Continue")
                    )
                    or b""
                )
            request.body = await self._body(conn, reader)
        except Refusal as refusal:
            return refusal_reply(refusal, _refusal_headers(refusal, self._allowed(request))), False
        except h11.RemoteProtocolError:
            return refusal_reply(bad("That is not HTTP/1.1.")), False
        except _Gone:
            return None, False
        return await self._answer(handler, args, request), True

    def _accept(self, event: h11.Request, request: Request) -> tuple[Handler, tuple[str, ...]]:
        """Check the request's head: its token, its admin's name, its route and its size; the
        route's handler and arguments.  Refusal otherwise."""
        headers = {name.lower(): value for name, value in event.headers}
        request.method = event.method.decode("ascii", "replace")
        target = event.target.decode("ascii", "replace")
        path, _, query = target.partition("?")
        request.path = path[:200]
        if not self._authorized(headers.get(b"authorization")):
            raise Refusal(401, "unauthorized", "A valid admin token is needed (Authorization).")
        request.by = _admin_name(headers.get(b"x-admin-name"))
        try:
            pairs = parse_qsl(query, keep_blank_values=True, max_num_fields=20)
        except ValueError:
            raise bad("The query string is not readable.") from None
        request.query = dict(pairs)
        handler, args = self._route(request.method, path)
        length = headers.get(b"content-length")
        if length is not None and length.isdigit() and int(length) > MAX_BODY:
            raise Refusal(413, "too_large", f"A request body is at most {MAX_BODY} bytes.")
        return handler, args

    def _authorized(self, header: bytes | None) -> bool:
        scheme, _, given = (header or b"").partition(b" ")
        if scheme.lower() != b"bearer":
            return False
        return hmac.compare_digest(hashlib.sha256(given.strip()).digest(), self._token)

    def _route(self, method: str, path: str) -> tuple[Handler, tuple[str, ...]]:
        for pattern, methods in self._routes:
            found = pattern.fullmatch(path)
            if found is None:
                continue
            handler = methods.get(method)
            if handler is None:
                raise Refusal(
                    405, "method_not_allowed", f"{path[:100]} answers {', '.join(methods)} only."
                )
            return handler, tuple(unquote(g) for g in found.groups())
        raise Refusal(404, "not_found", "No such route in the admin API.")

    def _allowed(self, request: Request) -> str:
        """The methods the request's path answers (an Allow header), or ''."""
        for pattern, methods in self._routes:
            if pattern.fullmatch(request.path):
                return ", ".join(methods)
        return ""

    async def _body(self, conn: h11.Connection, reader: asyncio.StreamReader) -> bytes:
        body = bytearray()
        while True:
            got = await _next_event(conn, reader)
            if isinstance(got, h11.Data):
                body += got.data
                if len(body) > MAX_BODY:
                    raise Refusal(413, "too_large", f"A request body is at most {MAX_BODY} bytes.")
            elif isinstance(got, h11.EndOfMessage):
                return bytes(body)
            else:
                raise _Gone

    async def _answer(self, handler: Handler, args: tuple[str, ...], request: Request) -> Reply:
        try:
            return await handler(request, args)
        except Refusal as refusal:
            return refusal_reply(refusal)
        except StoreError:
            log.warning("admin request: the store failed", path=request.path)
            down = Refusal(503, "unavailable", "The server cannot reach its store: try again.")
            return refusal_reply(down)
        except Exception:
            log.exception("admin request failed", method=request.method, path=request.path)
            broken = Refusal(500, "internal", "The request failed; the server's log says why.")
            return refusal_reply(broken)

    async def _send(self, conn: h11.Connection, writer: asyncio.StreamWriter, reply: Reply) -> None:
        body = b"" if reply.body is None else json.dumps(reply.body).encode() + b"\n"
        headers = [("connection", "close"), ("cache-control", "no-store"), *reply.headers]
        if reply.status != 204:  # (a 204 has no body, and says no length)
            headers.insert(0, ("content-length", str(len(body))))
        if body:
            headers.insert(0, ("content-type", "application/json"))
        try:
            phrase = HTTPStatus(reply.status).phrase.encode()
        except ValueError:
            phrase = b""
        data = conn.send(h11.Response(status_code=reply.status, headers=headers, reason=phrase))
        if body:
            data = (data or b"") + (conn.send(h11.Data(data=body)) or b"")
        data = (data or b"") + (conn.send(h11.EndOfMessage()) or b"")
        writer.write(data)
        async with asyncio.timeout(WRITE_SECONDS):
            await writer.drain()


class _Gone(Exception):
    """The client closed the connection before its request was complete."""


async def _next_event(conn: h11.Connection, reader: asyncio.StreamReader) -> Any:
    while True:
        event = conn.next_event()
        if event is not h11.NEED_DATA:
            return event
        conn.receive_data(await reader.read(READ_CHUNK))


def _peer(writer: asyncio.StreamWriter) -> str | None:
    peer = writer.get_extra_info("peername")
    return str(peer[0]) if isinstance(peer, tuple) and peer else None


def _head_size(event: h11.Request) -> int:
    """The bytes of a request's head, about (its request line and headers)."""
    line = len(event.method) + len(event.target) + len(b"  HTTP/1.1\r\n\r\n")
    return line + sum(len(name) + len(value) + 4 for name, value in event.headers)


async def _linger(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """After refusing a request whose body was not read: say that nothing more comes, and read
    (a while, a bounded amount) what the client still sends, so that closing does not reset
    the connection before the client reads the refusal."""
    with contextlib.suppress(Exception):
        if writer.can_write_eof():
            writer.write_eof()
        async with asyncio.timeout(LINGER_SECONDS):
            seen = 0
            while seen < LINGER_BYTES:
                chunk = await reader.read(READ_CHUNK)
                if not chunk:
                    break
                seen += len(chunk)


async def _close(writer: asyncio.StreamWriter) -> None:
    writer.close()
    with contextlib.suppress(Exception):
        async with asyncio.timeout(WRITE_SECONDS):
            await writer.wait_closed()


def _refusal_headers(refusal: Refusal, allowed: str) -> tuple[tuple[str, str], ...]:
    if refusal.status == 401:
        return (("www-authenticate", "Bearer"),)
    if refusal.status == 405 and allowed:
        return (("allow", allowed),)
    return ()


def _admin_name(header: bytes | None) -> str:
    """The acting admin's name (``X-Admin-Name``), for the audit log."""
    if header is None:
        return "admin"
    try:
        name = header.decode().strip()
    except UnicodeDecodeError:
        name = "\x00"
    if not name:
        return "admin"
    if len(name) > MAX_NAME or not name.isprintable():
        raise Refusal(
            400,
            "bad_request",
            f"X-Admin-Name is a printable name of at most {MAX_NAME} characters.",
        )
    return name
