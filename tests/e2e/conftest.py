"""Real ``echo-ridge serve`` processes on 127.0.0.1, sharing the session's redis-server."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from echoridge.store.embedded import free_port
from tests.conftest import RedisServer

READY = "echo-ridge: serving on"


@dataclass
class ServerProcess:
    url: str
    port: int
    process: subprocess.Popen[bytes]
    log: Path

    def kill(self) -> None:
        """kill -9."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode

    def output(self) -> str:
        return self.log.read_text(errors="replace")


def start_server(redis_url: str, log: Path, *extra: str) -> ServerProcess:
    extra_port = [extra[i + 1] for i, a in enumerate(extra[:-1]) if a == "--port"]
    if extra_port:  # a given port: a restart
        return _start_server(redis_url, log, int(extra_port[-1]), *extra)
    # free_port() closes the socket it found free, so another test process may bind that port
    # before this server does (CI saw "address already in use" once): try another one then.
    for attempt in range(3):
        try:
            return _start_server(redis_url, log, free_port(), *extra)
        except PortTaken:
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


class PortTaken(RuntimeError):
    """The server could not listen: another process took the port it was given."""


def _start_server(redis_url: str, log: Path, port: int, *extra: str) -> ServerProcess:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("REDIS_URL", None)
    with open(log, "wb") as err:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "echoridge.cli",
                "serve",
                "--port",
                str(port),
                "--redis-url",
                redis_url,
                "--commands-per-second",
                "1000",
                # The tests create many tables from 127.0.0.1, on one Redis for the session:
                # no lobby limits unless a test asks for them (tests/e2e/test_lobby_flood.py).
                "--tables-per-minute-per-ip",
                "0",
                "--max-waiting-tables-per-ip",
                "0",
                # Server-side bots move at once unless a test asks for a delay (a table of bots
                # at the default 0.3 s a move spends half a minute waiting).
                "--bot-delay",
                "0.01",
                *extra,
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=env,
        )
    deadline = time.monotonic() + 30
    while READY not in log.read_text(errors="replace"):
        if process.poll() is not None:
            output = log.read_text(errors="replace")
            if "address already in use" in output and "--port" not in extra:
                raise PortTaken(output[-2000:])
            raise RuntimeError(f"server exited: {output[-2000:]}")
        if time.monotonic() > deadline:
            process.kill()
            raise RuntimeError("server did not start")
        time.sleep(0.05)
    return ServerProcess(f"ws://127.0.0.1:{port}/ws", port, process, log)


@pytest.fixture
def servers(redis_server: RedisServer, tmp_path: Path) -> Iterator[Callable[..., ServerProcess]]:
    """Start game servers on the shared Redis; all stopped after the test."""
    started: list[ServerProcess] = []

    def start(*extra: str) -> ServerProcess:
        server = start_server(redis_server.url, tmp_path / f"server-{len(started)}.log", *extra)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def server(servers: Callable[..., ServerProcess]) -> ServerProcess:
    return servers()


async def http_get(server: ServerProcess, path: str) -> tuple[int, str]:
    """A plain HTTP GET of ``path`` on ``server``: (status, body)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    try:
        writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        await writer.drain()
        async with asyncio.timeout(10):
            data = await reader.read()
    finally:
        writer.close()
        # closed now, not at the loop's next turn: a test that then blocks (a server stopped
        # with SIGTERM) would leave the server waiting for this socket to close
        with contextlib.suppress(OSError):
            await writer.wait_closed()
    head, _, body = data.decode().partition("\r\n\r\n")
    return int(head.split()[1]), body


async def started_game(url: str, seats: int) -> tuple[str, list[str]]:
    """A table of ``seats`` people, started through the SDK's lobby: (table, seat tokens)."""
    from echoridge_client.lobby import Lobby

    lobby = await Lobby.connect(url)
    try:
        created = await lobby.create(seats)
        tokens = [(await lobby.join(created.table, f"p{i}")).token for i in range(seats)]
        await lobby.start(created.table, tokens[0])
    finally:
        await lobby.close()
    return created.table, tokens
