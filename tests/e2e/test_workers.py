"""``serve --workers N`` (workers.py): N processes on one port and one storage.  Games are played
through the shared port (the kernel spreads the connections, and each table's are passed on to
the worker that serves the table), /metrics of any worker sums all of them, a worker killed
with -9 is started again while the others play on, and SIGTERM stops every worker.  The chat's
rate limits and the connection caps hold for the host, not per worker."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from echoridge.net.affinity import owner_of
from echoridge.workers import WorkersUnsupported, check_supported, worker_count
from echoridge_client.loadbots import BotOptions, ok, run_tables
from echoridge_client.lobby import Lobby
from echoridge_client.session import TableSession
from tests.conftest import RedisServer
from tests.e2e.conftest import ServerProcess, http_get, start_server
from tests.e2e.hostile import metrics, raw_upgrade, upgrade
from tests.e2e.test_chat import refused, said
from tests.net.wsclient import Client

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SO_REUSEPORT")


def children(pid: int) -> list[int]:
    """The processes ``pid`` started that are still running (Linux /proc)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        found += [int(c) for c in text]
    return found


def workers_of(server: ServerProcess) -> list[int]:
    """The supervisor's workers (among its children: multiprocessing's resource tracker)."""
    return [c for c in children(server.process.pid) if b"spawn_main" in _cmdline(c)]


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


async def wait_for(predicate: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


@pytest.fixture
def workers(redis_server: RedisServer, tmp_path: Path) -> Iterator[ServerProcess]:
    server = start_server(redis_server.url, tmp_path / "workers.log", "--workers", "2",
                          "--bot-delay", "0")  # fmt: skip
    yield server
    server.stop()


async def test_games_through_two_workers_and_metrics_of_both(workers: ServerProcess) -> None:
    assert len(workers_of(workers)) == 2
    options = BotOptions(workers.url, tables=4, players=3, spectators=1, rate=0, seed=11)
    report, _ = await run_tables(options)
    assert ok(report), report
    # Every worker's /metrics is the sum of both: whichever answers, it counts every command.
    # (A connection lands on either worker; ask a few times.)
    for _ in range(4):
        seen = await metrics(workers)
        assert seen['echoridge_commands_total{outcome="accepted"}'] >= report["accepted"]
    per_worker = [line for line in workers.output().splitlines() if '"worker ready"' in line
                  or "worker ready" in line]  # fmt: skip
    assert len(per_worker) == 2


async def test_the_connections_of_a_table_are_served_by_one_worker(workers: ServerProcess) -> None:
    """Sessions name their table in the URL (SPEC.md §2.1), and whichever worker the kernel
    gave a connection to, the table's own worker serves it (net/affinity.py): that worker alone
    counts every spectator of the table (/api/spectators is routed the same way).  Without the
    routing, 16 spectators would all land on one worker once in 2^15 runs."""
    lobby = await Lobby.connect(workers.url)
    try:
        created = await lobby.create(2)
    finally:
        await lobby.close()
    watching = [TableSession(workers.url, created.table) for _ in range(16)]
    try:
        for session in watching:
            await session.start()
        for _ in range(6):
            assert await spectators(workers, created.table) == 16
        seen = await metrics(workers)
        assert seen['echoridge_connections_handed_off_total{outcome="passed"}'] >= 1
        assert seen['echoridge_connections_handed_off_total{outcome="kept"}'] == 0
    finally:
        for session in watching:
            await session.close()


async def spectators(server: ServerProcess, table: str) -> int:
    status, body = await http_get(server, f"/api/spectators/{table}")
    assert status == 200
    return int(json.loads(body)["spectators"])


async def test_a_killed_worker_is_started_again_while_games_go_on(
    workers: ServerProcess,
) -> None:
    first = workers_of(workers)
    options = BotOptions(workers.url, tables=4, players=2, spectators=0, rate=0, think=0.02,
                         seed=12)  # fmt: skip
    games = asyncio.create_task(run_tables(options))
    await asyncio.sleep(1.0)
    os.kill(first[0], signal.SIGKILL)
    await wait_for(lambda: len(workers_of(workers)) == 2 and first[0] not in workers_of(workers),
                   20, "a new worker")  # fmt: skip
    async with asyncio.timeout(240):
        report, _ = await games
    assert ok(report), report  # the players of the killed worker reconnected to the other
    assert "worker died" in workers.output() and "worker restarted" in workers.output()
    assert workers.process.poll() is None


def test_sigterm_stops_every_worker(redis_server: RedisServer, tmp_path: Path) -> None:
    server = start_server(redis_server.url, tmp_path / "stop.log", "--workers", "2")
    pids = workers_of(server)
    assert len(pids) == 2
    assert server.stop() == 0
    for pid in pids:
        assert not _cmdline(pid)
    assert "echo-ridge: stopped" in server.output()


def test_a_killed_supervisor_takes_its_workers_with_it(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    server = start_server(redis_server.url, tmp_path / "kill.log", "--workers", "2")
    pids = workers_of(server)
    server.kill()
    deadline = time.monotonic() + 20
    while any(Path(f"/proc/{pid}").exists() for pid in pids):
        assert time.monotonic() < deadline, "workers outlived their supervisor"
        time.sleep(0.05)


def test_worker_count_and_the_refusal_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    assert worker_count("3") == 3
    assert worker_count("auto") == len(os.sched_getaffinity(0))
    for bad in ("0", "-1", "many"):
        with pytest.raises(ValueError):
            worker_count(bad)
    check_supported()  # Linux
    monkeypatch.setattr(sys, "platform", "darwin")
    with pytest.raises(WorkersUnsupported, match="SO_REUSEPORT"):
        check_supported()


# --- limits that hold for the host, not for each worker ------------------------------------


def table_of_worker(index: int, workers: int = 2) -> str:
    """A table id whose connections (``/ws?table=ID``) worker ``index`` serves."""
    for n in range(1000):
        if owner_of(table := f"w{index}-{n}", workers) == index:
            return table
    raise AssertionError("no such table id")


def hinted(server: ServerProcess, table: str) -> str:
    return f"{server.url}?table={table}"


async def status_of(server: ServerProcess, table: str) -> int | None:
    """The status of an upgrade hinted at ``table``; None when the connection was reset (it
    was queued on a worker that was just killed)."""
    try:
        return (await upgrade(server, path=f"/ws?table={table}")).status
    except (OSError, asyncio.IncompleteReadError):
        return None


def pid_of_worker(server: ServerProcess, index: int) -> int:
    """The process of worker ``index``, by the supervisor's ``worker ready`` line."""
    for line in server.output().splitlines():
        if '"worker ready"' in line:
            record = json.loads(line)
            if record["worker"] == index:
                return int(record["pid"])
    raise AssertionError(f"worker {index} is not in the log")


async def test_chat_limits_hold_across_workers(workers: ServerProcess) -> None:
    """A seat that reconnects with another table's hint (served by the other worker) and a
    spectator address that churns connections over both workers are held to 5 lines in 10 s:
    the limits are kept in Redis (before, each worker counted its own)."""
    async with Client.connect(workers.url) as lobby:
        await lobby.hello()
        created = await lobby.create_table(2)
        table = created.table
        tokens = [(await lobby.join(table, name)).token for name in ("Ana", "Ben")]
    mine = owner_of(table, 2)
    away = table_of_worker(1 - mine)
    async with Client.connect(hinted(workers, table)) as ana:
        await ana.hello(table=table, token=tokens[0])
        for i in range(5):
            await said(ana, f"line {i}")
    async with Client.connect(hinted(workers, away)) as ana:  # the other worker
        await ana.hello(table=table, token=tokens[0])
        await refused(ana, "one too many", "table", "chat/rate_limited")
    for hint, lines in ((table, 3), (away, 2), (table, 0), (away, 0)):
        async with Client.connect(hinted(workers, hint)) as fan:
            await fan.hello(table=table, spectate=True)
            for i in range(lines):
                await said(fan, f"fan {i}", "spectators")
            if not lines:
                await refused(fan, "more", "spectators", "chat/rate_limited")
    async with Client.connect(hinted(workers, away)) as ben:  # another seat: not held back
        await ben.hello(table=table, token=tokens[1])
        await said(ben, "ben here")


async def test_the_per_address_cap_is_the_host_s_and_a_dead_worker_s_connections_go(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    """``--workers 2 --max-connections-per-ip 4`` admits 4 connections from one address in all,
    whichever worker serves them (before: 4 per worker); when a worker is killed with -9, the
    connections it served stop counting at once."""
    server = start_server(redis_server.url, tmp_path / "caps.log", "--workers", "2",
                          "--max-connections-per-ip", "4")  # fmt: skip
    try:
        on = [table_of_worker(0), table_of_worker(1)]
        async with contextlib.AsyncExitStack() as held, contextlib.AsyncExitStack() as doomed:
            for index in (0, 1):
                for _ in range(2):
                    stack = doomed if index == 0 else held
                    client = await stack.enter_async_context(
                        Client.connect(hinted(server, on[index]))
                    )
                    await client.hello()
            for index in (0, 1):
                answer = await upgrade(server, path=f"/ws?table={on[index]}")
                assert answer.status == 429, index
            os.kill(pid_of_worker(server, 0), signal.SIGKILL)  # with its 2 connections
            deadline = time.monotonic() + 20
            while await status_of(server, on[1]) != 101:
                assert time.monotonic() < deadline, "the dead worker's connections still count"
                await asyncio.sleep(0.1)
            for _ in range(2):
                client = await held.enter_async_context(Client.connect(hinted(server, on[1])))
                await client.hello()
            assert (await upgrade(server, path=f"/ws?table={on[1]}")).status == 429
            with contextlib.suppress(Exception):
                await doomed.aclose()
        assert '"worker died"' in server.output()
    finally:
        server.stop()


async def test_the_connection_cap_is_the_host_s(redis_server: RedisServer, tmp_path: Path) -> None:
    """``--workers 2 --max-connections 3`` admits 3 connections in all, however they are spread
    over the workers (before: each worker took 2, its share, so one table's connections, all
    on its worker, were refused at 2)."""
    server = start_server(redis_server.url, tmp_path / "full.log", "--workers", "2",
                          "--max-connections", "3", "--max-connections-per-ip", "0")  # fmt: skip
    try:
        on = [table_of_worker(0), table_of_worker(1)]
        async with contextlib.AsyncExitStack() as held:
            for _ in range(3):
                answer, _ = await held.enter_async_context(
                    raw_upgrade(server, path=f"/ws?table={on[0]}")
                )
                assert answer.status == 101
            full = await upgrade(server, path=f"/ws?table={on[1]}")
            assert full.status == 503
        deadline = time.monotonic() + 10  # (the server learns of the closes a moment later)
        while await status_of(server, on[1]) != 101:
            assert time.monotonic() < deadline, "closed connections still count"
            await asyncio.sleep(0.05)
    finally:
        server.stop()
