"""Table affinity (net/affinity.py) on real sockets: two routers of one ``SO_REUSEPORT`` group in
this process stand for two workers.  Every connection that names a table ends at its owner
whichever router accepted it, a request line that comes in pieces is waited for, a client that
says nothing is served where it landed, and a connection whose owner is gone is kept."""

from __future__ import annotations

import asyncio
import socket
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from echoridge.net import affinity
from echoridge.net.affinity import Handoff, Router, listeners, owner_of, table_hint

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SO_REUSEPORT")


def test_the_hint_is_read_from_the_request_line() -> None:
    assert table_hint(b"GET /ws?table=t-1 HTTP/1.1\r\nHost: x\r\n") == "t-1"
    assert table_hint(b"GET /?x=1&table=abc HTTP/1.1\r\n") == "abc"
    assert table_hint(b"GET /api/spectators/abc HTTP/1.1\r\n") == "abc"
    assert table_hint(b"GET /ws HTTP/1.1\r\n") is None
    assert table_hint(b"POST /ws?table=abc HTTP/1.1\r\n") is None
    assert table_hint(b"\x16\x03\x01\x02\x00") is None  # (TLS: not ours to read)
    assert table_hint(b"") is None


def test_the_owner_is_the_same_in_every_process() -> None:
    # crc32, not hash(): the workers are separate interpreters with their own hash seeds.
    assert [owner_of(t, 2) for t in ("a", "b", "c", "d")] == [1, 1, 1, 0]
    assert {owner_of(f"t{i}", 3) for i in range(30)} == {0, 1, 2}


@dataclass
class Worker:
    router: Router
    served: list[socket.socket] = field(default_factory=list)


@pytest.fixture
async def pair(tmp_path: Path) -> AsyncIterator[tuple[list[Worker], int]]:
    first = listeners("127.0.0.1", 0)
    port = first[0].getsockname()[1]
    workers: list[Worker] = []
    for index, tcp in enumerate((first, listeners("127.0.0.1", port))):
        served: list[socket.socket] = []
        router = Router(tcp, Handoff(str(tmp_path), index), index, 2, served.append)
        router.start()
        workers.append(Worker(router, served))
    yield workers, port
    for w in workers:
        w.router.stop()
        for s in w.served:
            s.close()


async def connect(port: int, data: bytes) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    if data:
        writer.write(data)
        await writer.drain()
    return reader, writer


async def until(test: object, seconds: float = 5.0) -> None:
    async with asyncio.timeout(seconds):
        while not test():  # type: ignore[operator]
            await asyncio.sleep(0.01)


def request(table: str) -> bytes:
    return f"GET /ws?table={table} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()


async def test_every_connection_of_a_table_ends_at_its_owner(
    pair: tuple[list[Worker], int],
) -> None:
    workers, port = pair
    tables = {owner_of(t, 2): t for t in ("a", "d")}  # one table per worker
    clients = [await connect(port, request(tables[i % 2])) for i in range(40)]
    await until(lambda: sum(len(w.served) for w in workers) == 40)
    for index, w in enumerate(workers):
        assert len(w.served) == 20
        for s in w.served:  # the bytes were only peeked at: the whole request is still there
            head = s.recv(4096, socket.MSG_PEEK)
            assert head.startswith(b"GET /ws?table=" + tables[index].encode())
    # The kernel spread them: each router accepted some for the other.
    assert all(w.router.passed > 0 for w in workers)
    for _, writer in clients:
        writer.close()


async def test_a_request_line_in_pieces_and_a_silent_client(
    pair: tuple[list[Worker], int], monkeypatch: pytest.MonkeyPatch
) -> None:
    workers, port = pair
    monkeypatch.setattr(affinity, "PEEK_TIMEOUT", 0.3)
    table = next(t for t in ("a", "d") if owner_of(t, 2) == 1)
    pieces = []
    for _ in range(12):
        pieces.append(await connect(port, b"GET /ws?tab"))
    await asyncio.sleep(0.05)
    for _, writer in pieces:
        writer.write(f"le={table} HTTP/1.1\r\n\r\n".encode())
    await until(lambda: len(workers[1].served) == 12)
    assert not workers[0].served
    silent = [await connect(port, b"") for _ in range(12)]
    await until(lambda: sum(len(w.served) for w in workers) == 24)  # after PEEK_TIMEOUT
    assert len(workers[0].served) > 0  # served where they landed, not all at one worker
    for _, writer in pieces + silent:
        writer.close()


async def test_a_connection_whose_owner_is_gone_is_kept(pair: tuple[list[Worker], int]) -> None:
    workers, port = pair
    workers[1].router.stop()  # (its inbox is gone: nothing can be passed to it)
    table = next(t for t in ("a", "d") if owner_of(t, 2) == 1)
    clients = []
    while not workers[0].served:  # until the kernel gives one to the worker still there
        clients.append(await connect(port, request(table)))
        await asyncio.sleep(0.02)
        assert len(clients) < 200
    assert workers[0].router.kept >= 1
    for _, writer in clients:
        writer.close()
