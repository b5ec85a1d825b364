"""What the attack tests share: raw HTTP handshakes, a client that stops reading, /metrics.

Everything goes to 127.0.0.1 and is bounded in count and time.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import re
import socket
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass

from websockets.asyncio.client import ClientConnection, connect
from websockets.typing import Subprotocol

from echoridge_protocol import codec
from echoridge_protocol import messages as m
from tests.e2e.conftest import ServerProcess, http_get


@dataclass
class Handshake:
    """The answer to a raw upgrade request: the status and the headers (lowercase names)."""

    status: int
    headers: dict[str, str]
    body: bytes


def _upgrade_request(
    server: ServerProcess, headers: Mapping[str, str], path: str, subprotocol: str
) -> bytes:
    fields = {
        "Host": f"127.0.0.1:{server.port}",
        "Upgrade": "websocket",
        "Connection": "Upgrade",
        "Sec-WebSocket-Key": base64.b64encode(os.urandom(16)).decode(),
        "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Protocol": subprotocol,
        **headers,
    }
    head = f"GET {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in fields.items())
    return (head + "\r\n").encode("latin-1")


@contextlib.asynccontextmanager
async def raw_upgrade(
    server: ServerProcess,
    headers: Mapping[str, str] = {},
    path: str = "/ws",
    subprotocol: str = m.SUBPROTOCOL_MSGPACK,
) -> AsyncIterator[tuple[Handshake, asyncio.StreamReader]]:
    """Send one websocket upgrade request with these extra headers (``Host`` among them when
    given); the answer's head, and the connection, held open (never read from) until the block
    ends."""
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    try:
        writer.write(_upgrade_request(server, headers, path, subprotocol))
        await writer.drain()
        async with asyncio.timeout(10):
            head = await reader.readuntil(b"\r\n\r\n")
            status_line, *lines = head.decode("latin-1").split("\r\n")
            found = {}
            for line in lines:
                if ":" in line:
                    name, _, value = line.partition(":")
                    found[name.strip().lower()] = value.strip()
            length = int(found.get("content-length", "0") or 0)
            body = await reader.readexactly(length) if length else b""
        yield Handshake(int(status_line.split()[1]), found, body), reader
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()


async def upgrade(server: ServerProcess, headers: Mapping[str, str] = {}, **kw: str) -> Handshake:
    """The answer to a raw upgrade request; the connection is then dropped."""
    async with raw_upgrade(server, headers, **kw) as (answer, _):
        return answer


@contextlib.asynccontextmanager
async def stuck_reader(
    server: ServerProcess, subprotocol: str = m.SUBPROTOCOL_JSON
) -> AsyncIterator[ClientConnection]:
    """A websocket whose client stops reading: a 4 KiB receive buffer and a one-message
    queue, so once the client holds a message its TCP window closes.  It can still send."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", server.port))
    sock.setblocking(False)
    async with connect(
        f"ws://127.0.0.1:{server.port}/ws",
        sock=sock,
        subprotocols=[Subprotocol(subprotocol)],
        max_queue=1,
        ping_interval=None,
        close_timeout=1,
        max_size=None,
    ) as ws:
        yield ws


async def send_all(ws: ClientConnection, messages: list[m.ClientMessage]) -> None:
    """Send messages without reading anything (a send that cannot be written waits at most
    a few seconds: the server may have cut the connection by then)."""
    with contextlib.suppress(Exception):
        for message in messages:
            async with asyncio.timeout(5):
                await ws.send(codec.encode(message, ws.subprotocol or m.SUBPROTOCOL_JSON))


async def metrics(server: ServerProcess) -> dict[str, float]:
    """/metrics as {series: value} (series as written, labels included)."""
    _, body = await http_get(server, "/metrics")
    out = {}
    for line in body.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            out[name] = float(value)
    return out


async def wait_for_metric(
    server: ServerProcess, series: str, at_least: float, seconds: float
) -> float:
    """Poll /metrics until ``series`` reaches ``at_least`` (or ``seconds`` pass); its value."""
    loop = asyncio.get_running_loop()
    give_up = loop.time() + seconds
    while True:
        value = (await metrics(server)).get(series, 0.0)
        if value >= at_least or loop.time() > give_up:
            return value
        await asyncio.sleep(0.2)


def log_lines(server: ServerProcess, event: str) -> list[str]:
    """The server's log lines of one event (JSON lines: ``"event": "..."``)."""
    pattern = re.compile(rf'"event": "{re.escape(event)}"')
    return [line for line in server.output().splitlines() if pattern.search(line)]
