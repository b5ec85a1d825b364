"""One websocket connection to an Echo Ridge server, speaking protocol v2 (protocol/SPEC.md).

A reader task decodes every frame; replies are matched to requests by ``id``; everything else
(welcome, deltas, errors without an id, bye) goes to ``on_message``.  Connections are cheap:
sessions (seat.py) open a new one to reconnect.  An upgrade the server refuses for now (HTTP 429
or 503, SPEC.md §2.1) raises ``Busy``, with the server's ``Retry-After``; the lobby and the
sessions wait and try again (retry.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
from collections.abc import Awaitable, Callable, Mapping
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.typing import Subprotocol

from echoridge_client.errors import Busy, ClientError, Refused
from echoridge_protocol import __version__, codec
from echoridge_protocol import messages as m
from echoridge_protocol.errors import DecodeError

TIMEOUT = 10.0
CLIENT_NAME = f"echoridge-client/{__version__}"  # (released with the protocol package)
BUSY_STATUSES = (429, 503)  # refused for now: too many connections (from this address, in all)
MAX_RETRY_AFTER = 300.0  # seconds: a longer Retry-After is taken as this

OnMessage = Callable[[m.ServerMessage], Awaitable[None] | None]


def for_table(url: str, table: str) -> str:
    """``url`` with the table it connects for as a hint (SPEC.md §2.1: ``/ws?table=ID``), so a
    server of several processes serves the connection in the one that runs the table."""
    split = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(split.query) if k != "table"] + [("table", table)]
    return urlunsplit(split._replace(query=urlencode(query)))


class Connection:
    def __init__(
        self, ws: ClientConnection, subprotocol: str, on_message: OnMessage | None
    ) -> None:
        self.ws = ws
        self.subprotocol = subprotocol
        self.on_message = on_message
        self._waiting: dict[str, asyncio.Future[m.ServerMessage]] = {}
        self._ids = itertools.count(1)
        self._prefix = os.urandom(4).hex()
        self._reader = asyncio.create_task(self._read(), name="echoridge reader")
        self.closed = asyncio.Event()
        self.close_code: int | None = None

    @classmethod
    async def open(
        cls,
        url: str,
        subprotocol: str = m.SUBPROTOCOL_MSGPACK,
        on_message: OnMessage | None = None,
        timeout: float = TIMEOUT,
        headers: Mapping[str, str] | None = None,
    ) -> Connection:
        """``headers``: more HTTP headers for the upgrade request (a deployment's own)."""
        try:
            ws = await connect(
                url,
                additional_headers=headers,
                subprotocols=[Subprotocol(subprotocol)],
                open_timeout=timeout,
                max_size=codec.SERVER_LIMITS.frame_bytes,
                close_timeout=2,
            )
        except InvalidStatus as exc:
            status = exc.response.status_code
            if status in BUSY_STATUSES:
                wait = retry_after(exc.response.headers.get("Retry-After"))
                raise Busy(url, status, wait) from None
            raise ClientError(f"cannot connect to {url}: {exc}") from exc
        except (OSError, TimeoutError) as exc:
            raise ClientError(f"cannot connect to {url}: {exc}") from exc
        except Exception as exc:  # websockets' handshake errors
            raise ClientError(f"cannot connect to {url}: {exc}") from exc
        return cls(ws, subprotocol, on_message)

    def next_id(self, prefix: str = "r") -> str:
        """A request or command id unique to this process and connection."""
        return f"{prefix}-{self._prefix}-{next(self._ids)}"

    async def send(self, message: m.ClientMessage) -> None:
        try:
            await self.ws.send(codec.encode(message, self.subprotocol))
        except ConnectionClosed as exc:
            raise ClientError("the connection is closed") from exc

    async def request(self, message: m.ClientMessage, timeout: float = TIMEOUT) -> m.ServerMessage:
        """Send a request and return its reply (``Refused`` for an ``error``)."""
        rid = getattr(message, "id", None)
        if not isinstance(rid, str):
            raise TypeError(f"{message.TYPE} has no request id")
        future: asyncio.Future[m.ServerMessage] = asyncio.get_running_loop().create_future()
        self._waiting[rid] = future
        try:
            await self.send(message)
            async with asyncio.timeout(timeout):
                reply = await future
        finally:
            self._waiting.pop(rid, None)
        if isinstance(reply, m.ErrorMessage):
            raise Refused(reply.code, reply.message, reply.retry_in)
        return reply

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                try:
                    message = codec.decode_server(frame, self.subprotocol)
                except DecodeError as exc:
                    if exc.code == "protocol/unknown_type":
                        continue  # a later server's message (SPEC.md §8): ignored
                    raise
                rid = getattr(message, "id", None)
                future = self._waiting.get(rid) if isinstance(rid, str) else None
                if future is not None and not future.done():
                    future.set_result(message)
                    continue
                if self.on_message is not None:
                    outcome = self.on_message(message)
                    if outcome is not None:
                        await outcome
        except ConnectionClosed:
            pass
        finally:
            self.close_code = self.ws.close_code
            for future in self._waiting.values():
                if not future.done():
                    future.set_exception(ClientError("the connection closed"))
            self.closed.set()

    async def close(self) -> None:
        with contextlib.suppress(ConnectionClosed, Exception):
            await self.send(m.ClientBye())
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(), 3)
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await asyncio.wait_for(self._reader, 3)


def retry_after(value: str | None) -> float | None:
    """A ``Retry-After`` in seconds (RFC 9110 also allows an HTTP date: taken as none)."""
    try:
        seconds = float(value) if value is not None else None
    except ValueError:
        return None
    if seconds is None or not seconds >= 0:  # (NaN too)
        return None
    return min(seconds, MAX_RETRY_AFTER)


def welcome_of(message: m.ServerMessage) -> m.Welcome:
    if isinstance(message, m.Welcome):
        return message
    if isinstance(message, m.ErrorMessage):
        raise Refused(message.code, message.message, message.retry_in)
    raise ClientError(f"expected welcome, got {message.TYPE}")


def hello(
    table: str | None = None,
    token: str | None = None,
    spectate: bool | None = None,
    resume: m.Resume | None = None,
    name: str | None = None,
    identity: str | None = None,
    jwt: str | None = None,
) -> m.Hello:
    """A ``hello``; ``identity`` (an identity's secret) or ``jwt`` (a signed token) signs the
    session in (SPEC.md §4.9)."""
    return m.Hello(
        protocol=m.PROTOCOL,
        client=CLIENT_NAME,
        table=table,
        token=token,
        spectate=spectate,
        resume=resume,
        name=name,
        identity=identity,
        jwt=jwt,
    )
