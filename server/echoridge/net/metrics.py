"""The server's Prometheus metrics (``/metrics``), kept by ``prometheus_client``.

    server_metrics()        a fresh registry holding the server's metrics (``ServerMetrics``)
    ServerMetrics.render()  the text exposition format: this process's metrics, or, in
                            multiprocess mode, every worker's summed (``serve --workers N``)
    loop_lag_metrics(...)   the event loop's lag (serve.py measures it)
    watch_gc(...)           the cyclic garbage collector's runs and time

Each server builds its own ``CollectorRegistry``: there is no global one, so several servers in
one process (the tests) count apart.  With ``PROMETHEUS_MULTIPROC_DIR`` set in the environment
before ``prometheus_client`` is first imported (``serve --workers`` sets it for its workers),
every worker writes its samples to files there and any worker's ``/metrics`` renders them all:
counters and histograms summed over every worker that ever ran (so they never go down when one
is restarted), gauges summed over the live ones (``livesum``; the lag's maximum over all).
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
    multiprocess,
)

CONTENT_TYPE: Final = "text/plain; version=0.0.4; charset=utf-8"
"""The ``Content-Type`` of ``ServerMetrics.render()``'s output: ``generate_latest`` writes the
plain text format, the same as version 0.0.4 for names like ours."""

COMMAND_BUCKETS: Final = (
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
)
"""Bucket bounds of ``echoridge_command_seconds``, in seconds (+Inf is implied)."""

LOOP_LAG_BUCKETS: Final = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
"""Bucket bounds of ``echoridge_loop_lag_seconds``, in seconds (+Inf is implied)."""

GC_PAUSE_BUCKETS: Final = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1.0)
"""Bucket bounds of ``echoridge_gc_pause_seconds``, in seconds (+Inf is implied): issue 26 wants
no pause over 10 ms."""

SESSIONS: Final = ("handshake", "lobby", "seat", "spectator")
REFUSALS: Final = ("origin", "per_ip", "global")
"""Why a websocket handshake was refused before any session (``echoridge_connections_refused``)."""
OUTCOMES: Final = ("accepted", "rejected", "duplicate", "stale")

MULTIPROCESS_ENV: Final = "PROMETHEUS_MULTIPROC_DIR"


def multiprocess_dir() -> str | None:
    """Where the workers' samples are written, in multiprocess mode; else None."""
    return os.environ.get(MULTIPROCESS_ENV) or None


@dataclass(frozen=True, slots=True)
class ServerMetrics:
    """The metrics of one server process, and the registry they are registered in."""

    registry: CollectorRegistry
    connections: Gauge
    tables: Gauge
    commands: Counter
    rejections: Counter
    append_conflicts: Counter
    command_seconds: Histogram
    frames_in: Counter
    frames_out: Counter
    outbox_overflows: Counter
    aborted: Counter
    refused: Counter
    handoffs: Counter

    def handed_off(self, passed: bool) -> None:
        """A connection for another worker's table (net/affinity.py): passed to that worker, or
        kept because it could not take it."""
        self.handoffs.labels(outcome="passed" if passed else "kept").inc()

    def render(self) -> bytes:
        """``/metrics``: this registry's samples, or every worker's (multiprocess mode)."""
        path = multiprocess_dir()
        if path is None:
            return generate_latest(self.registry)
        merged = CollectorRegistry()
        multiprocess.MultiProcessCollector(merged, path)
        return generate_latest(merged)


def _counter(
    registry: CollectorRegistry, name: str, doc: str, label: str, values: tuple[str, ...]
) -> Counter:
    """A counter by ``label`` whose known ``values`` are present at zero from the start."""
    counter = Counter(name, doc, (label,), registry=registry)
    for value in values:
        counter.labels(value)
    return counter


def server_metrics() -> ServerMetrics:
    """A fresh registry with the server's metrics, the known label values present at zero.

    It turns off prometheus_client's ``*_created`` series for the process (a setting of the
    library, not of a registry): multiprocess mode has none, so the output of one server and of
    N workers have the same series, those /metrics always had."""
    disable_created_metrics()
    r = CollectorRegistry(auto_describe=True)
    connections = Gauge(
        "echoridge_connections",
        "Open websocket connections by session (handshake: no welcome yet).",
        ("session",),
        registry=r,
        multiprocess_mode="livesum",
    )
    for session in SESSIONS:
        connections.labels(session=session)
    tables = Gauge(
        "echoridge_tables", "Live tables on this node.", registry=r, multiprocess_mode="livesum"
    )
    commands = _counter(
        r, "echoridge_commands_total", "Game commands handled, by outcome.", "outcome", OUTCOMES
    )
    refused = _counter(
        r,
        "echoridge_connections_refused_total",
        "Handshakes refused: origin 403, per_ip 429, global 503.",
        "reason",
        REFUSALS,
    )
    handoffs = _counter(
        r,
        "echoridge_connections_handed_off_total",
        "Connections for a table another worker runs (serve --workers): passed or kept.",
        "outcome",
        ("passed", "kept"),
    )
    return ServerMetrics(
        registry=r,
        connections=connections,
        tables=tables,
        commands=commands,
        rejections=Counter(
            "echoridge_rejections_total", "Requests rejected, by error code.", ("code",), registry=r
        ),
        append_conflicts=Counter(
            "echoridge_append_conflicts_total",
            "Appends that lost the race for a table's next version.",
            registry=r,
        ),
        command_seconds=Histogram(
            "echoridge_command_seconds",
            "Command handling time in seconds, from frame to result.",
            buckets=COMMAND_BUCKETS,
            registry=r,
        ),
        frames_in=Counter(
            "echoridge_frames_in_total", "Websocket frames received from clients.", registry=r
        ),
        frames_out=Counter(
            "echoridge_frames_out_total", "Websocket frames sent to clients.", registry=r
        ),
        outbox_overflows=Counter(
            "echoridge_outbox_overflows_total",
            "Connections whose outbox overflowed (a slow reader).",
            registry=r,
        ),
        aborted=Counter(
            "echoridge_sessions_aborted_total",
            "Connections cut at the transport: the client read nothing.",
            registry=r,
        ),
        refused=refused,
        handoffs=handoffs,
    )


# --- event-loop lag ----------------------------------------------------------------------------


@dataclass(slots=True)
class LoopLag:
    """How late the event loop runs a periodic timer: the time a ready callback waits while the
    loop is busy with others.  ``observe`` records one measurement in both metrics."""

    seconds: Histogram
    max: Gauge
    worst: float = 0.0

    def observe(self, late: float) -> None:
        self.seconds.observe(late)
        if late > self.worst:
            self.worst = late
            self.max.set(late)


def loop_lag_metrics(registry: CollectorRegistry) -> LoopLag:
    """Register the event-loop lag metrics (``echoridge_loop_lag_seconds``, a histogram, and
    ``echoridge_loop_lag_max_seconds``) in ``registry``; ``serve`` adds them to the server's."""
    seconds = Histogram(
        "echoridge_loop_lag_seconds",
        "How late the event loop woke a periodic timer (every 100 ms), in seconds.",
        buckets=LOOP_LAG_BUCKETS,
        registry=registry,
    )
    worst = Gauge(
        "echoridge_loop_lag_max_seconds",
        "The largest event-loop lag measured since the server started, in seconds.",
        registry=registry,
        multiprocess_mode="max",
    )
    return LoopLag(seconds, worst)


# --- garbage collection ------------------------------------------------------------------------


def watch_gc(registry: CollectorRegistry) -> Callable[[], None]:
    """Count the cyclic garbage collector's runs and the time they take, by generation
    (``echoridge_gc_seconds_total``, ``echoridge_gc_collections_total``), and each pause
    (``echoridge_gc_pause_seconds``, a histogram, and ``echoridge_gc_pause_max_seconds``): a
    collection stops the event loop, and its cost grows with the objects a node keeps (views,
    histories).  Returns the function that stops the counting."""
    seconds = Counter(
        "echoridge_gc_seconds_total",
        "Time the event loop spent in the cyclic garbage collector, in seconds.",
        ("generation",),
        registry=registry,
    )
    runs = Counter(
        "echoridge_gc_collections_total",
        "Collections of the cyclic garbage collector.",
        ("generation",),
        registry=registry,
    )
    pauses = Histogram(
        "echoridge_gc_pause_seconds",
        "How long each collection of the cyclic garbage collector stopped the event loop.",
        buckets=GC_PAUSE_BUCKETS,
        registry=registry,
    )
    longest = Gauge(
        "echoridge_gc_pause_max_seconds",
        "The longest pause of the cyclic garbage collector since the server started, in seconds.",
        registry=registry,
        multiprocess_mode="max",
    )
    started = [0.0]
    worst = [0.0]

    def callback(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
            return
        pause = time.perf_counter() - started[0]
        generation = str(info.get("generation", "?"))
        seconds.labels(generation=generation).inc(pause)
        runs.labels(generation=generation).inc()
        pauses.observe(pause)
        if pause > worst[0]:
            worst[0] = pause
            longest.set(pause)

    gc.callbacks.append(callback)
    return lambda: gc.callbacks.remove(callback)
