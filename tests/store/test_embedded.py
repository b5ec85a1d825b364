"""The embedded Redis: a real redis-server child on a data directory of ours.  Durable settings,
restart on the same files, the data-directory lock (in one process and between two ``echo-ridge
serve`` processes), recovery after the server is killed with SIGKILL, and a missing binary.

Every redis-server these tests start is stopped by them: the ``data_dir`` fixture finally kills a
redis-server still running on its directory (recognised by its pid file *and* its working
directory, so nobody else's server is ever touched).  Data directories are short paths under
/tmp so the unix socket fits in sun_path.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from echoridge.store import (
    Appended,
    DataDirLocked,
    Duplicate,
    NewEntry,
    Storage,
    StoreUnavailable,
)
from echoridge.store.embedded import SOCKET_PATH_MAX, EmbeddedRedis, redis_binary
from echoridge_rules.serial import digest
from tests.store import play_table
from tests.store.conftest import RedisServer

PLAY_TABLE = Path(play_table.__file__).resolve()
SERVE = [sys.executable, "-m", "echoridge.cli", "serve", "--port", "0"]
READY = "echo-ridge: serving on"
WAIT = 20.0  # seconds we give a process to start or stop before failing the test


# --- helpers ---------------------------------------------------------------------------------


def alive(pid: int) -> bool:
    """The process exists and has not exited (a zombie nobody reaped counts as exited)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return fields.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def wait_gone(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def redis_pid(data_dir: Path) -> int | None:
    try:
        return int((data_dir / "redis.pid").read_text().strip())
    except (OSError, ValueError):
        return None


def runs_on(pid: int, data_dir: Path) -> bool:
    """``pid`` is a live redis-server working in ``data_dir`` (the embedded one chdirs there)."""
    try:
        cwd = os.readlink(f"/proc/{pid}/cwd")
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return alive(pid) and b"redis-server" in cmdline and Path(cwd) == data_dir.resolve()


def cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid:
                    found.append(int(entry.name))
    return found


def kill_redis_of(data_dir: Path) -> None:
    pid = redis_pid(data_dir)
    if pid is not None and runs_on(pid, data_dir):
        os.kill(pid, signal.SIGKILL)
        wait_gone(pid, 5)


def sync_client(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, decode_responses=True, socket_timeout=5)


def config(url: str, name: str) -> str:
    with sync_client(url) as r:
        return str(r.config_get(name)[name])


def lock_is_free(data_dir: Path) -> bool:
    with open(data_dir / "server.lock", "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(handle, fcntl.LOCK_UN)
        return True


def clean_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("REDIS_URL", None)  # the embedded Redis, not somebody's REDIS_URL
    return env


def wait_for_text(path: Path, text: str, process: subprocess.Popen[bytes]) -> str:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        content = path.read_text(errors="replace") if path.exists() else ""
        if text in content:
            return content
        if process.poll() is not None:
            pytest.fail(f"exited with {process.returncode} before {text!r}: {content}")
        time.sleep(0.02)
    pytest.fail(f"no {text!r} after {WAIT} s: {path.read_text(errors='replace')}")


def read_line(process: subprocess.Popen[bytes], stderr: Path) -> str:
    """The first line the process prints on stdout (unbuffered pipe), within WAIT seconds."""
    assert process.stdout is not None
    fd = process.stdout.fileno()
    buffer = b""
    deadline = time.monotonic() + WAIT
    while b"\n" not in buffer:
        left = deadline - time.monotonic()
        if left <= 0:
            pytest.fail(f"no line after {WAIT} s: {stderr.read_text(errors='replace')}")
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            chunk = os.read(fd, 4096)
            if not chunk:
                process.wait(5)
                pytest.fail(
                    f"exited with {process.returncode} before its line: "
                    f"{stderr.read_text(errors='replace')}"
                )
            buffer += chunk
    return buffer.split(b"\n", 1)[0].decode()


# --- fixtures --------------------------------------------------------------------------------


@pytest.fixture
def data_dir() -> Iterator[Path]:
    """A fresh, short data directory; any redis-server left running on it is killed after."""
    path = Path(tempfile.mkdtemp(prefix="er-emb-", dir="/tmp")).resolve()
    yield path
    kill_redis_of(path)
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def other_dir() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="er-emb-", dir="/tmp")).resolve()
    yield path
    kill_redis_of(path)
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def embedded(data_dir: Path, other_dir: Path) -> Iterator[Callable[..., EmbeddedRedis]]:
    """Make EmbeddedRedis instances (default: on ``data_dir``); every one is stopped after."""
    made: list[EmbeddedRedis] = []

    def make(path: Path | None = None) -> EmbeddedRedis:
        server = EmbeddedRedis(data_dir if path is None else path)
        made.append(server)
        return server

    yield make
    for server in reversed(made):
        server.stop()


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Subprocesses a test starts; any still running at the end is killed."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
        process.wait(10)
        for pipe in (process.stdout, process.stderr):
            if pipe is not None:
                pipe.close()


Embedded = Callable[..., EmbeddedRedis]


# --- start, stop, settings, restart ----------------------------------------------------------


async def test_start_gives_a_durable_private_redis_and_stop_ends_it(
    embedded: Embedded, data_dir: Path
) -> None:
    server = embedded()
    url = server.start()
    assert url == f"unix://{data_dir}/redis.sock"
    assert server.process is not None
    process = server.process
    assert redis_pid(data_dir) == process.pid
    assert runs_on(process.pid, data_dir)
    assert (data_dir / "server.lock").read_text().strip() == str(os.getpid())
    assert stat.S_IMODE((data_dir / "redis.sock").stat().st_mode) == 0o700

    # What the running Redis says, not what the config file says.
    assert config(url, "appendonly") == "yes"
    assert config(url, "appendfsync") == "always"
    assert config(url, "maxmemory-policy") == "noeviction"
    assert config(url, "save") == ""
    assert config(url, "dir") == str(data_dir)
    assert config(url, "port") == "0"  # nothing on TCP
    storage = await Storage.open(url)  # passes the store's own checks
    await storage.close()

    server.stop()
    assert server.process is None
    assert process.returncode == 0  # a clean shutdown, not a kill
    assert not alive(process.pid)
    assert not (data_dir / "redis.sock").exists()
    assert redis_pid(data_dir) is None
    assert lock_is_free(data_dir)
    with pytest.raises(redis.ConnectionError), sync_client(url) as r:
        r.ping()
    server.stop()  # stopping twice is harmless


async def test_data_survives_stop_and_start(embedded: Embedded, data_dir: Path) -> None:
    first = embedded()
    storage = await Storage.open(first.start())
    try:
        head, state = await play_table.play(storage, "survivor", 20)
        await storage.directory.set_secret("survivor", "token:1", b"\x00secret")
        meta = await storage.directory.meta("survivor")
    finally:
        await storage.close()
    first.stop()
    assert (data_dir / "appendonly.aof").stat().st_size > 0

    for again in (embedded(), first):  # a new instance, and the same one restarted
        storage = await Storage.open(again.start())
        try:
            rebuilt = await storage.log.rebuild("survivor")
            assert rebuilt.head == head
            assert digest(rebuilt.state) == digest(state)
            assert await storage.directory.meta("survivor") == meta
            assert await storage.directory.secret("survivor", "token:1") == b"\x00secret"
        finally:
            await storage.close()
        again.stop()


def test_a_long_data_dir_listens_on_localhost_tcp(embedded: Embedded, data_dir: Path) -> None:
    deep = data_dir / ("d" * (SOCKET_PATH_MAX - len(str(data_dir))))
    server = embedded(deep)
    try:
        url = server.start()
        assert url.startswith("redis://127.0.0.1:")
        assert config(url, "appendfsync") == "always"
        assert config(url, "bind") == "127.0.0.1"
        assert not (deep / "redis.sock").exists()
    finally:
        server.stop()
        kill_redis_of(deep)


# --- the data directory lock -----------------------------------------------------------------


def test_a_second_server_on_the_same_data_dir_is_refused(
    embedded: Embedded, data_dir: Path
) -> None:
    first = embedded()
    url = first.start()
    assert first.process is not None
    first_pid = first.process.pid

    second = embedded()
    with pytest.raises(DataDirLocked) as caught:
        second.start()
    message = str(caught.value)
    assert str(data_dir) in message
    assert f"pid {os.getpid()}" in message
    assert "--data-dir" in message
    assert "--redis-url" in message
    assert second.process is None

    # The refusal left the first server alone: same redis-server, still answering.
    assert first.process is not None and first.process.pid == first_pid
    assert redis_pid(data_dir) == first_pid
    with sync_client(url) as r:
        assert r.ping()

    first.stop()
    url = second.start()
    with sync_client(url) as r:
        assert r.ping()


def test_a_second_serve_process_is_refused_and_the_first_stops_on_sigterm(
    data_dir: Path, tmp_path: Path, processes: list[subprocess.Popen[bytes]]
) -> None:
    log = tmp_path / "first.err"
    with open(log, "wb") as err:
        first = subprocess.Popen(
            [*SERVE, "--data-dir", str(data_dir)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            cwd=tmp_path,
            env=clean_env(),
        )
    processes.append(first)
    wait_for_text(log, READY, first)
    pid = redis_pid(data_dir)
    assert pid is not None and runs_on(pid, data_dir)
    assert pid in children(first.pid)

    second = subprocess.run(
        [*SERVE, "--data-dir", str(data_dir)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        cwd=tmp_path,
        env=clean_env(),
        timeout=WAIT,
    )
    stderr = second.stderr.decode()
    assert second.returncode != 0
    assert str(data_dir) in stderr
    assert f"pid {first.pid}" in stderr
    assert "--data-dir" in stderr and "--redis-url" in stderr
    assert "Traceback" not in stderr
    assert first.poll() is None and runs_on(pid, data_dir)  # the first one is untouched

    first.send_signal(signal.SIGTERM)
    assert first.wait(WAIT) == 0
    assert "echo-ridge: stopped" in log.read_text()
    assert wait_gone(pid, 5)
    assert redis_pid(data_dir) is None
    assert lock_is_free(data_dir)


def test_serve_with_a_redis_url_starts_no_redis(
    start_redis: Callable[..., RedisServer],
    tmp_path: Path,
    processes: list[subprocess.Popen[bytes]],
) -> None:
    server = start_redis()
    unused = tmp_path / "unused-data-dir"
    log = tmp_path / "serve.err"
    with open(log, "wb") as err:
        serve = subprocess.Popen(
            [*SERVE, "--redis-url", server.url, "--data-dir", str(unused)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            cwd=tmp_path,
            env=clean_env(),
        )
    processes.append(serve)
    assert "Redis at REDIS_URL" in wait_for_text(log, READY, serve)
    assert not unused.exists()
    assert not [p for p in children(serve.pid) if b"redis-server" in cmdline(p)]
    serve.send_signal(signal.SIGTERM)
    assert serve.wait(WAIT) == 0


def test_serve_refuses_an_unsafe_redis_url_unless_told_to_skip_the_checks(
    start_redis: Callable[..., RedisServer],
    tmp_path: Path,
    processes: list[subprocess.Popen[bytes]],
) -> None:
    server = start_redis("--appendonly", "no")
    refused = subprocess.run(
        [*SERVE, "--redis-url", server.url],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        cwd=tmp_path,
        env=clean_env(),
        timeout=WAIT,
    )
    assert refused.returncode == 1
    stderr = refused.stderr.decode()
    assert stderr.startswith("echo-ridge: unsafe Redis settings")
    assert "set appendonly yes" in stderr and "Traceback" not in stderr

    log = tmp_path / "serve.err"
    with open(log, "wb") as err:
        serve = subprocess.Popen(
            [*SERVE, "--redis-url", server.url, "--skip-redis-checks"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            cwd=tmp_path,
            env=clean_env(),
        )
    processes.append(serve)
    wait_for_text(log, READY, serve)
    serve.send_signal(signal.SIGTERM)
    assert serve.wait(WAIT) == 0


# --- recovery after SIGKILL ------------------------------------------------------------------


async def test_recovery_after_the_server_is_killed(
    embedded: Embedded,
    data_dir: Path,
    tmp_path: Path,
    processes: list[subprocess.Popen[bytes]],
) -> None:
    err = tmp_path / "play.err"
    with open(err, "wb") as stderr:
        server = subprocess.Popen(
            [sys.executable, str(PLAY_TABLE), str(data_dir), "--commands", "50"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr,
            bufsize=0,
            cwd=tmp_path,
            env=clean_env(),
        )
    processes.append(server)
    played: dict[str, Any] = json.loads(read_line(server, err))
    table = played["table"]
    assert played["version"] == 50
    orphan = played["redis_pid"]
    assert redis_pid(data_dir) == orphan and runs_on(orphan, data_dir)

    server.send_signal(signal.SIGKILL)
    server.wait(WAIT)
    assert server.returncode == -signal.SIGKILL
    # The kernel tells the orphaned redis-server (PR_SET_PDEATHSIG) and it exits by itself.
    assert wait_gone(orphan, 5), "the killed server's redis-server is still running"

    restarted = embedded()
    storage = await Storage.open(restarted.start())
    try:
        rebuilt = await storage.log.rebuild(table)
        assert rebuilt.head.version == played["version"]
        assert rebuilt.head.hash.hex() == played["hash"]
        assert digest(rebuilt.state) == played["digest"]
        assert rebuilt.entries == 50

        # The same game computed here, to be sure the script played what we think it did.
        game = play_table.game(table)
        steps = [next(game) for _ in range(51)]
        assert digest(steps[49][3]) == played["digest"]

        # The chain goes on from the rebuilt head ...
        seat, command, events, after = steps[50]
        result = await storage.log.append(
            table, rebuilt.head, play_table.command_id(50), NewEntry(seat, command, tuple(events))
        )
        assert isinstance(result, Appended) and result.head.version == 51
        again = await storage.log.rebuild(table)
        assert again.head == result.head
        assert digest(again.state) == digest(after)
        # ... and a command appended before the kill is still known as a duplicate.
        seat, command, events, _ = steps[49]
        dup = await storage.log.append(
            table, result.head, play_table.command_id(49), NewEntry(seat, command, tuple(events))
        )
        assert isinstance(dup, Duplicate) and dup.entry.version == 50
        assert (await storage.directory.meta(table))["status"] == "playing"
    finally:
        await storage.close()
    restarted.stop()


def test_a_leftover_redis_of_a_dead_server_is_stopped_before_starting(
    embedded: Embedded, data_dir: Path
) -> None:
    # As when PR_SET_PDEATHSIG did not reach the child: the server is gone (its lock released)
    # but its redis-server still runs on the directory.
    dead = embedded()
    url = dead.start()
    with sync_client(url) as r:
        r.set("before", "kept")
    leftover, dead.process = dead.process, None
    dead.stop()  # releases the lock only
    assert leftover is not None and leftover.poll() is None

    url = embedded().start()
    assert leftover.wait(5) == 0  # stopped with SIGTERM: a clean shutdown
    with sync_client(url) as r:
        assert r.get("before") == "kept"


def test_a_stale_pid_file_does_not_stop_another_servers_redis(
    embedded: Embedded, data_dir: Path, other_dir: Path
) -> None:
    other = embedded(other_dir)
    other.start()
    assert other.process is not None
    # redis.pid left by a redis-server that died without cleaning up (SIGKILL, power cut); its
    # pid now belongs to another server's Redis.
    (data_dir / "redis.pid").write_text(f"{other.process.pid}\n")
    embedded().start()
    assert other.process.poll() is None, "starting on data_dir stopped another server's Redis"


def test_started_from_a_worker_thread_it_outlives_the_thread(embedded: Embedded) -> None:
    server = embedded()
    worker = threading.Thread(target=server.start)
    worker.start()
    worker.join()
    assert server.process is not None
    with contextlib.suppress(subprocess.TimeoutExpired):
        server.process.wait(2)
    assert server.process.poll() is None, "redis-server stopped when the starting thread ended"


# --- the binary ------------------------------------------------------------------------------


def test_a_missing_binary_is_store_unavailable(
    embedded: Embedded, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = str(data_dir / "no-such-redis-server")
    monkeypatch.setenv("REDIS_SERVER_BIN", missing)
    with pytest.raises(StoreUnavailable) as caught:
        embedded().start()
    assert missing in str(caught.value)
    assert "REDIS_SERVER_BIN" in str(caught.value)


def test_serve_with_a_missing_binary_says_so(data_dir: Path, tmp_path: Path) -> None:
    env = clean_env()
    env["REDIS_SERVER_BIN"] = str(data_dir / "no-such-redis-server")
    done = subprocess.run(
        [*SERVE, "--data-dir", str(data_dir)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        cwd=tmp_path,
        env=env,
        timeout=WAIT,
    )
    stderr = done.stderr.decode()
    assert done.returncode == 1
    assert "Traceback" not in stderr
    assert stderr.startswith("echo-ridge: ") and "no-such-redis-server" in stderr


def test_a_binary_that_fails_is_store_unavailable_and_frees_the_data_dir(
    embedded: Embedded, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    false = shutil.which("false")
    assert false is not None
    monkeypatch.setenv("REDIS_SERVER_BIN", false)
    server = embedded()
    with pytest.raises(StoreUnavailable, match="redis-server exited with status 1"):
        server.start()
    assert server.process is None
    assert lock_is_free(data_dir)

    monkeypatch.delenv("REDIS_SERVER_BIN")
    url = server.start()
    with sync_client(url) as r:
        assert r.ping()


def test_redis_server_bin_is_the_binary_started(
    embedded: Embedded, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    marker = tmp_path / "started-with"
    wrapper = tmp_path / "redis-server"  # keeps "redis-server" in the process's command line
    wrapper.write_text(f'#!/bin/sh\necho "$@" > {marker}\nexec {redis_binary()} "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("REDIS_SERVER_BIN", str(wrapper))
    server = embedded()
    url = server.start()
    assert marker.read_text().strip() == str(server.data_dir / "redis.conf")
    with sync_client(url) as r:
        assert r.ping()
