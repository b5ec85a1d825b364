"""``echo-ridge serve --workers N``: one server process per core, on one port.

The supervisor (this module, in the process the operator started) owns what the workers share
and none of the game:

1. Storage: it starts the embedded Redis (unless ``--redis-url`` names one), and every worker
   connects to it.  Workers are ordinary nodes: any of them serves any table through its log.
2. The port: every worker listens on it with its own ``SO_REUSEPORT`` socket, and the kernel
   spreads new connections over them.  Linux balances such sockets; elsewhere the option means
   something else or nothing, so ``--workers`` above 1 is refused there.  With ``--port 0`` the
   supervisor picks a free port and holds it (a socket bound, never listening) while it runs.
   A connection that names its table (``/ws?table=ID``) is passed on to the worker that serves
   that table, over unix sockets in a directory the supervisor makes for the run
   (net/affinity.py; ``--no-table-affinity`` turns it off).
3. The metrics: ``PROMETHEUS_MULTIPROC_DIR`` (a fresh directory, removed at the end) is set for
   the workers, so each one's ``/metrics`` gives the sum of all (net/metrics.py); the files of
   a worker that died are marked dead so its gauges stop counting.
4. Their lives: a worker that dies is started again (after a pause that doubles, up to
   ``RESTART_MAX`` seconds, while workers keep dying young); SIGTERM or SIGINT is passed to
   every worker, which drains as a single server does, and whatever still runs after
   ``STOP_GRACE`` seconds is killed.  The supervisor prints the ``serving on`` line once every
   worker is listening, and ``stopped`` once all are gone.
5. The caps: ``--max-connections`` and ``--max-connections-per-ip`` are the host's.  The
   supervisor makes a file of counts in the run's directory that every worker maps (one slot
   each, net/hostcounts.py); a worker admits a connection against the sum of all slots, and the
   slot of a worker that died is zeroed before it is started again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing
import multiprocessing.connection
import os
import shutil
import signal
import socket
import sys
import tempfile
import time
from dataclasses import dataclass
from multiprocessing.process import BaseProcess
from typing import TYPE_CHECKING, Any

from echoridge.logs import configure_logging, get_logger
from echoridge.net.hostcounts import HostCounts
from echoridge.net.metrics import MULTIPROCESS_ENV

if TYPE_CHECKING:
    from collections.abc import Callable

    from echoridge.serve import OnReady, Options

    Serve = Callable[[Options, OnReady | None], int]  # echoridge.serve.main_with

log = get_logger("echoridge.workers")

START_TIMEOUT = 60.0  # seconds for every worker to listen (the first start)
STOP_GRACE = 30.0  # seconds the workers have to drain after SIGTERM
RESTART_MIN = 0.1  # seconds before restarting a dead worker; doubles while they die young
RESTART_MAX = 10.0
YOUNG = 10.0  # a worker that dies within this many seconds of its start died young
POLL = 0.5  # seconds between two looks at the workers (a death wakes the supervisor at once)


class WorkersUnsupported(Exception):
    """``--workers`` above 1 on a system whose ``SO_REUSEPORT`` does not balance."""


def worker_count(text: str) -> int:
    """``--workers``: a positive number, or ``auto`` (the cores this process may run on)."""
    if text == "auto":
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except AttributeError:  # pragma: no cover - not Linux
            return max(1, os.cpu_count() or 1)
    count = int(text)
    if count < 1:
        raise ValueError("--workers is a positive number or auto")
    return count


def check_supported() -> None:
    if not sys.platform.startswith("linux") or not hasattr(socket, "SO_REUSEPORT"):
        raise WorkersUnsupported(
            "--workers above 1 needs Linux: the workers share the port through SO_REUSEPORT, "
            f"which only Linux balances across processes (this is {sys.platform}); run one "
            "server per port behind a proxy instead"
        )


@dataclass
class _Worker:
    index: int
    process: BaseProcess | None = None
    started: float = 0.0
    failures: int = 0  # deaths in a row, each young
    due: float = 0.0  # when to start it again (after a death)


def supervise(options: Options, workers: int, serve: Serve) -> int:
    """Run ``workers`` server processes until SIGTERM or SIGINT; the exit status.  Each worker
    runs ``serve`` (``echoridge.serve.main_with``, passed in so that this module does not import
    the one that calls it; a module-level function, as a spawned process needs)."""
    from echoridge.store.embedded import EmbeddedRedis
    from echoridge.store.errors import StoreError

    check_supported()
    configure_logging(json=options.log_json)
    stopping = False

    def stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, stop)
    metrics_dir = tempfile.mkdtemp(prefix="echoridge-metrics-")
    handoff_dir = _handoff_dir()
    os.environ[MULTIPROCESS_ENV] = metrics_dir  # inherited by the workers (spawned below)
    embedded = None
    holder = None
    counts_path = os.path.join(handoff_dir, "connections.counts")
    counts: HostCounts | None = None
    pool: list[_Worker] = []
    try:
        HostCounts.create(counts_path, workers)
        counts = HostCounts(counts_path, workers)
        redis_url = options.redis_url
        if not redis_url:
            embedded = EmbeddedRedis(options.data_dir)
            try:
                redis_url = embedded.start()
            except StoreError as exc:
                print(f"echo-ridge: {exc}", file=sys.stderr)
                return 1
            where = f"embedded Redis in {embedded.data_dir}"
        else:
            where = "Redis at REDIS_URL"
        holder, port = _hold_port(options.host, options.port)
        base = dataclasses.replace(
            options,
            redis_url=redis_url,
            port=port,
            worker=0,
            workers=workers,
            handoff_dir=handoff_dir,
            host_counts=counts_path,
        )
        context = multiprocessing.get_context("spawn")  # fresh interpreters: no forked loop
        pool = [_Worker(i) for i in range(workers)]
        ready: list[Any] = []
        for w in pool:
            ready.append(_start(context, w, dataclasses.replace(base, worker=w.index), serve))
        if not _all_ready(pool, ready):
            print("echo-ridge: a worker did not start (its error is above)", file=sys.stderr)
            return 1
        log.info("serving", workers=workers, port=port, storage=where)
        print(
            f"echo-ridge: serving on ws://{options.host}:{port}/ws with {workers} workers; play "
            f"in a browser at http://{options.host}:{port}/ ; {where}. Ctrl-C stops.",
            file=sys.stderr,
            flush=True,
        )
        while not stopping:
            _watch(context, pool, base, lambda: stopping, counts, serve)
        log.info("stopping", workers=workers)
        return 0
    finally:
        _stop_all(pool)
        if counts is not None:
            counts.close()
        if holder is not None:
            holder.close()
        if embedded is not None:
            embedded.stop()
        shutil.rmtree(metrics_dir, ignore_errors=True)
        shutil.rmtree(handoff_dir, ignore_errors=True)
        os.environ.pop(MULTIPROCESS_ENV, None)
        if pool:
            log.info("stopped")
            print("echo-ridge: stopped", file=sys.stderr, flush=True)


def _handoff_dir() -> str:
    """A fresh directory (mode 0700: ours alone) for the workers' hand-off sockets, whose paths
    must fit in a unix socket address (108 bytes): in /tmp if the temp directory is deep."""
    base = tempfile.gettempdir()
    if len(base) > 60 and os.path.isdir("/tmp"):
        base = "/tmp"
    return tempfile.mkdtemp(prefix="echoridge-handoff-", dir=base)


def _hold_port(host: str, port: int) -> tuple[socket.socket | None, int]:
    """The port the workers share; for port 0 a free one, held by a bound socket of ours (in
    the same ``SO_REUSEPORT`` group, never listening, so it takes no connection)."""
    if port:
        return None, port
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    holder = socket.socket(family, socket.SOCK_STREAM)
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    holder.bind((host, 0))
    return holder, int(holder.getsockname()[1])


def _start(context: Any, w: _Worker, options: Options, serve: Serve) -> Any:
    """Start worker ``w``; the end of a pipe that says ``ready`` once it listens."""
    receive, send = context.Pipe(duplex=False)
    w.process = context.Process(
        target=run_worker, args=(options, send, serve), name=f"echo-ridge worker {w.index}"
    )
    w.process.start()
    w.started = time.monotonic()
    send.close()
    return receive


def _all_ready(pool: list[_Worker], pipes: list[Any]) -> bool:
    deadline = time.monotonic() + START_TIMEOUT
    for w, pipe in zip(pool, pipes, strict=True):
        left = deadline - time.monotonic()
        try:
            if not pipe.poll(max(0.0, left)) or pipe.recv() != "ready":
                return False
        except EOFError:  # it died first
            return False
        finally:
            pipe.close()
        log.info("worker ready", worker=w.index, pid=w.process.pid if w.process else None)
    return True


def _watch(
    context: Any,
    pool: list[_Worker],
    base: Options,
    stopping: Any,
    counts: HostCounts,
    serve: Serve,
) -> None:
    """Wait for a worker to die (or ``POLL``), then start again those that are due.  A dead
    worker's connections are gone: its counts are zeroed at once."""
    sentinels = [w.process.sentinel for w in pool if w.process is not None]
    multiprocessing.connection.wait(sentinels, timeout=POLL)
    now = time.monotonic()
    for w in pool:
        if stopping():
            return
        if w.process is not None and not w.process.is_alive():
            w.process.join()
            young = now - w.started < YOUNG
            w.failures = w.failures + 1 if young else 0
            delay = min(RESTART_MAX, RESTART_MIN * 2 ** max(0, w.failures - 1))
            log.warning(
                "worker died",
                worker=w.index,
                pid=w.process.pid,
                exit_code=w.process.exitcode,
                restart_in=round(delay, 2),
            )
            _mark_dead(w.process.pid)
            counts.clear(w.index)
            w.process = None
            w.due = now + delay
        if w.process is None and now >= w.due:
            pipe = _start(context, w, dataclasses.replace(base, worker=w.index), serve)
            pipe.close()  # a restart is not waited for: its log says when it listens
            log.info("worker restarted", worker=w.index, pid=w.process.pid if w.process else None)


def _mark_dead(pid: int | None) -> None:
    if pid is None:
        return
    from prometheus_client import multiprocess

    with contextlib.suppress(OSError):
        multiprocess.mark_process_dead(pid, os.environ[MULTIPROCESS_ENV])


def _stop_all(pool: list[_Worker]) -> None:
    """SIGTERM to every worker; kill those still running after ``STOP_GRACE``."""
    running = [w.process for w in pool if w.process is not None and w.process.is_alive()]
    for p in running:
        with contextlib.suppress(OSError):
            p.terminate()
    deadline = time.monotonic() + STOP_GRACE
    for p in running:
        p.join(max(0.0, deadline - time.monotonic()))
        if p.is_alive():
            log.warning("worker killed: it did not stop in time", pid=p.pid)
            p.kill()
            p.join()


def run_worker(options: Options, ready: Any, serve: Serve) -> None:
    """A worker's process: ``serve`` on the shared port, saying ``ready`` once it listens."""
    import asyncio

    from echoridge.store.embedded import die_with_parent

    die_with_parent()  # a supervisor killed with -9 takes its workers with it
    os.setpgid(0, 0)  # Ctrl-C at a terminal reaches the supervisor, who stops them in order

    async def said_ready(event: asyncio.Event) -> None:
        await event.wait()
        with contextlib.suppress(OSError):
            ready.send("ready")
            ready.close()

    sys.exit(serve(options, said_ready))
