"""``serve --workers N`` (workers.py): N processes on one port and one storage.  Games are played
through the shared port (the kernel spreads the connections, and each table's are passed on to
the worker that serves the table), /metrics of any worker sums all of them, a worker killed
with -9 is started again while the others play on, and SIGTERM stops every worker."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from echoridge.workers import WorkersUnsupported, check_supported, worker_count
from echoridge_client.loadbots import BotOptions, ok, run_tables
from echoridge_client.lobby import Lobby
from echoridge_client.session import TableSession
from tests.conftest import RedisServer
from tests.e2e.conftest import ServerProcess, http_get, start_server
from tests.e2e.hostile import metrics

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
