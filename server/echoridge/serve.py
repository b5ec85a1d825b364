"""``echo-ridge serve``: storage (the embedded Redis, or REDIS_URL), the table service and the
websocket server, until SIGTERM or SIGINT (then a graceful shutdown).  With ``--workers N``
(``workers.py``) this runs in each of N processes sharing the port and the storage.

With ``--admin-port`` the admin API (net/admin.py) listens too, on its own port: in the one
process without ``--workers``, and in worker 0 only with them (its table list then shows the
lobby's tables and those worker 0 runs)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import logging
import resource
import signal
import sys
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from echoridge.logs import LEVELS, configure_logging, get_logger
from echoridge.net.admin import AdminApi
from echoridge.net.gate import Admission
from echoridge.net.hostcounts import HostCounts
from echoridge.net.limits import Limits
from echoridge.net.metrics import LoopLag, loop_lag_metrics, server_metrics, watch_gc
from echoridge.net.server import GameServer, Worker
from echoridge.store import Storage, StoreError
from echoridge.store.connection import POOL_CONNECTIONS, is_cluster
from echoridge.store.embedded import EmbeddedRedis
from echoridge.tables import Node
from echoridge.tables.archiving import GRACE_SECONDS
from echoridge.tables.botmoves import StrongBots
from echoridge.tables.notices import Notices
from echoridge.tables.notify import Notifier
from echoridge.tables.quota import LobbyLimits

log = get_logger("echoridge.serve")

# gc.set_threshold: the youngest generation as CPython's default, the middle one all but never
# (its survivors are frozen: freeze_survivors), no automatic full collection (collect_fully;
# docs/server.md, "Garbage collection")
GC_THRESHOLDS = (700, 1_000, 1_000_000)
FREEZE_SECONDS = 1.0  # seconds between two moves of the young collection's survivors out of it
LOOP_LAG_TICK = 0.1  # seconds between two measurements of the event loop's lag
FULL_GC_SECONDS = 900.0  # seconds between two full collections (see collect_fully)


SHUTDOWN_SECONDS = 20.0  # a drain and close after SIGTERM takes at most this long


@dataclass(frozen=True)
class Options:
    host: str = "127.0.0.1"
    port: int = 8765
    redis_url: str | None = None
    data_dir: str = "var/redis"
    check_redis: bool = True
    log_json: bool | None = None
    limits: Limits = dataclasses.field(default_factory=Limits)
    decision_seconds: float = 120.0
    bot_delay: float = 0.3
    bot_processes: int = 1  # the strong bots' search processes (0: a thread; tables/botmoves.py)
    bot_budget: float = 0.5  # seconds a strong bot searches per decision
    pass_delay: float = 2.0  # the mean pause before the server passes a window for a seat
    clock_floor: int | None = None  # lower the shortest clock times allowed (tests, demos)
    notify_url: str | None = None  # play by notification: the webhook (tables/notices.py)
    notify_secret: bytes = b""
    event_loop: str = "uvloop"  # or "asyncio": the standard library's loop
    admission: Admission = dataclasses.field(default_factory=Admission)
    lobby: LobbyLimits = dataclasses.field(default_factory=LobbyLimits)  # tables/quota.py
    workers: int = 1  # server processes on the port (workers.py)
    worker: int | None = None  # set in a worker of ``serve --workers``: its index
    table_affinity: bool = True  # workers route each table's connections to one (net/affinity.py)
    handoff_dir: str | None = None  # set by the supervisor: the workers' hand-off sockets
    host_counts: str | None = None  # set by the supervisor: the workers' shared connection counts
    replica_acks: int = 0  # appends acknowledged once on this many replicas (WAIT)
    archive_grace: float = GRACE_SECONDS  # finished games' live keys released after (archiving)
    keep_finished: float | None = None  # archived games dropped after this long (None: kept)
    move_log_level: str = "debug"  # the per-command log lines' level (or "info")
    # --auth-jwt-key, --auth-jwt-audience, --auth-jwt-issuer: signed tokens in hello (each
    # worker process loads the key: net/jwtauth.py)
    jwt: tuple[str, str, str | None] | None = None
    # --admin-port, --admin-host, $ECHORIDGE_ADMIN_TOKEN: the admin API (net/admin.py; None: off)
    admin_port: int | None = None
    admin_host: str = "127.0.0.1"
    admin_token: str | None = dataclasses.field(default=None, repr=False)


async def _shut_down(server: GameServer, node: Node, notifier: Any, storage: Storage) -> None:
    """Drain and close, in at most ``SHUTDOWN_SECONDS`` (below the workers' and a container's
    grace period): what is still waiting then (a Redis that went away first, say) is left, and
    the process exits all the same."""
    began = time.monotonic()
    try:
        async with asyncio.timeout(SHUTDOWN_SECONDS):
            await server.stop()
            await node.close()
            if notifier is not None:
                await notifier.close()
            await storage.close()
    except TimeoutError:
        log.warning("shutdown cut short", seconds=SHUTDOWN_SECONDS)
    else:
        log.info("drained", seconds=round(time.monotonic() - began, 2))


async def serve(options: Options, ready: asyncio.Event | None = None) -> int:
    embedded = None
    redis_url = options.redis_url
    if not redis_url:
        embedded = EmbeddedRedis(options.data_dir)
        redis_url = embedded.start()
        where = f"embedded Redis in {embedded.data_dir}"
    else:
        where = "the Redis Cluster at REDIS_URL" if is_cluster(redis_url) else "Redis at REDIS_URL"
    try:
        storage = await Storage.open(
            redis_url, check=options.check_redis, replica_acks=options.replica_acks
        )
        metrics = server_metrics()
        node = Node(storage, metrics, options.decision_seconds, options.lobby)
        node.bot_delay = options.bot_delay
        node.strong_bots = StrongBots(options.bot_processes, options.bot_budget)
        node.pass_delay = options.pass_delay
        node.move_log_level = LEVELS[options.move_log_level]
        node.clock_floor = options.clock_floor
        node.archiver.grace_seconds = options.archive_grace
        node.archiver.keep_seconds = options.keep_finished
        if options.jwt is not None:
            from echoridge.net import jwtauth

            key, audience, issuer = options.jwt
            node.jwt = jwtauth.load(key, audience=audience, issuer=issuer)
        notifier = None
        if options.notify_url:
            notifier = Notifier(options.notify_url, options.notify_secret)
            await notifier.start()
            node.notices = Notices(storage.redis, notifier)
        node.start_tasks()
        host = None
        if options.host_counts and options.worker is not None:  # the caps are the host's
            host = HostCounts(options.host_counts, options.workers, options.worker)
            admission, room = options.admission, open_file_room() or 0
        else:
            admission, room = fit_open_files(options.admission), 0
        server = GameServer(
            node, metrics, options.limits, admission=admission, host=host, room=room
        )
        lag = asyncio.create_task(watch_loop_lag(loop_lag_metrics(metrics.registry)))
        collector = asyncio.create_task(collect_fully())
        freezer = asyncio.create_task(freeze_survivors())
        unwatch_gc = watch_gc(metrics.registry)
        stop = _stop_on_signals()  # before the ready line: a SIGTERM right after it must stop us
        admin: AdminApi | None = None
        try:
            await storage.directory.reindex()
            worker = options.worker
            placed = None
            if worker is not None and options.table_affinity and options.handoff_dir:
                placed = Worker(worker, options.workers, options.handoff_dir)
            port = await server.start(
                options.host, options.port, reuse_port=worker is not None, worker=placed
            )
            if options.admin_port is not None and not worker:
                admin = AdminApi(node, storage, options.admin_token or "")  # (worker 0 only)
                await admin.start(options.admin_host, options.admin_port)
            log.info(
                "serving", url=f"ws://{options.host}:{port}/ws", storage=where, worker=worker
            )
            if worker is None:  # (the supervisor of workers says it once for all)
                print(
                    f"echo-ridge: serving on ws://{options.host}:{port}/ws; play in a browser "
                    f"at http://{options.host}:{port}/ ; {where}. Ctrl-C stops.",
                    file=sys.stderr,
                    flush=True,
                )
            # What exists now (modules, the engine's tables) lives as long as the process: keep it
            # out of the cyclic collector's passes, which stop the event loop; and never let a
            # pass walk the whole heap on its own (see collect_fully).
            gc.freeze()
            gc.set_threshold(*GC_THRESHOLDS)
            if ready is not None:
                ready.set()
            await stop.wait()
            log.info("stopping")
        finally:
            lag.cancel()
            collector.cancel()
            freezer.cancel()
            unwatch_gc()
            if admin is not None:
                await admin.close()
            await _shut_down(server, node, notifier, storage)
    finally:
        if embedded is not None:
            embedded.stop()
    log.info("stopped", worker=options.worker)
    if options.worker is None:
        print("echo-ridge: stopped", file=sys.stderr, flush=True)
    return 0


FILES_RESERVED = POOL_CONNECTIONS + 100  # descriptors for Redis, the follower, files, logs


def open_file_room() -> int | None:
    """Raise the soft limit of open files to the hard one; the connections it leaves room for
    (None: no limit).  A connection is a descriptor; accept() failing with EMFILE helps nobody."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and (hard == resource.RLIM_INFINITY or soft < hard):
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
    if soft == resource.RLIM_INFINITY:
        return None
    return max(1, soft - FILES_RESERVED)


def fit_open_files(admission: Admission) -> Admission:
    """``open_file_room``, and ``max_connections`` lowered to the room it leaves.  (A worker of
    ``serve --workers`` keeps the host's cap and gives its room to its gate apart.)"""
    room = open_file_room()
    if room is None:
        return admission
    if admission.max_connections == 0 or admission.max_connections > room:
        log.warning(
            "connections capped by the open-file limit",
            max_connections=room,
            asked=admission.max_connections,
        )
        return dataclasses.replace(admission, max_connections=room)
    return admission


async def watch_loop_lag(lag: LoopLag, tick: float = LOOP_LAG_TICK) -> None:
    """Every ``tick`` seconds, record how late the event loop woke this task."""
    loop = asyncio.get_running_loop()
    while True:
        before = loop.time()
        await asyncio.sleep(tick)
        lag.observe(max(0.0, loop.time() - before - tick))


async def freeze_survivors(every: float = FREEZE_SECONDS) -> None:
    """Every ``every`` seconds, move what survived the youngest generation's collections out
    of the collector's reach (``gc.freeze()``: a splice of its lists, no walk).  Without it a
    survivor (a new state, the parts of a view that changed) is walked twice while young, in
    the youngest collection and again in the middle one, whose pauses reached 30 ms at 200
    tables; with it, once.  What is frozen is still freed by reference counting as soon as it
    dies; only a cycle that outlived a young collection waits for ``collect_fully``, as it
    waited in the oldest generation before."""
    while True:
        await asyncio.sleep(every)
        gc.freeze()


async def collect_fully(every: float = FULL_GC_SECONDS) -> None:
    """A full collection every ``every`` seconds, and no other.  A full pass walks every object
    a node keeps (about 0.9 M at 200 live tables: states, logs, views) and stops the event loop
    for as long (0.5 s there), so ``GC_THRESHOLDS`` never starts one: the youngest generation
    is collected as CPython does by default (pauses of about a ms), and what survives it is
    frozen (``freeze_survivors``).  The frozen objects are unfrozen for this pass, which is the
    only one that sees them.  What dies in a cycle waits for it, up to ``every`` seconds, and
    the memory it frees then is not given back (issue 24.12), so nothing a game leaves may be
    a cycle: a closed connection, its session and a reaped runner are freed by reference
    counting (tests/net/test_freed.py; docs/server.md, "Memory over time")."""
    while True:
        await asyncio.sleep(every)
        gc.unfreeze()
        gc.collect()
        gc.freeze()


def _stop_on_signals() -> asyncio.Event:
    """An event that SIGINT or SIGTERM sets from now on."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    return stop


def loop_factory(name: str) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The event loop to serve with: uvloop (libuv; about a tenth less CPU per command than
    the standard loop, docs/server.md) where it is installed, else the standard library's."""
    if name == "uvloop":
        try:
            import uvloop
        except ImportError:
            log.warning("uvloop is not installed: serving on the standard asyncio loop")
            return None
        return uvloop.new_event_loop  # type: ignore[no-any-return]
    return None


def main(options: Options) -> int:
    """``echo-ridge serve``: one server, or the supervisor of ``options.workers``."""
    if options.workers > 1:
        from echoridge.workers import WorkersUnsupported, supervise

        try:
            return supervise(options, options.workers, main_with)
        except WorkersUnsupported as exc:
            print(f"echo-ridge: {exc}", file=sys.stderr)
            return 2
    return main_with(options)


OnReady = Callable[[asyncio.Event], Coroutine[Any, Any, None]]


def main_with(options: Options, on_ready: OnReady | None = None) -> int:
    """Serve until stopped; ``on_ready(event)`` runs alongside, ``event`` set once listening."""
    configure_logging(json=options.log_json)
    logging.getLogger("websockets").setLevel(logging.WARNING)  # our own lines say more

    async def run() -> int:
        ready = asyncio.Event()
        waiter = asyncio.create_task(on_ready(ready)) if on_ready is not None else None
        try:
            return await serve(options, ready)
        finally:
            if waiter is not None:
                waiter.cancel()

    try:
        with asyncio.Runner(loop_factory=loop_factory(options.event_loop)) as runner:
            return runner.run(run())
    except StoreError as exc:
        print(f"echo-ridge: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"echo-ridge: cannot listen on {options.host}:{options.port}: {exc}", file=sys.stderr)
        return 1
