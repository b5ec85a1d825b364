"""Prometheus metrics without a third-party dependency, rendered for ``/metrics``.

    Counter(name, help, labels)      .inc(amount=1, **labels)          only goes up
    Gauge(name, help, labels)        .set(v, **labels) .inc() .dec()   goes up and down
    Histogram(name, help, buckets)   .observe(seconds, **labels)       cumulative buckets
    Registry().register(metric)      .render() -> the text exposition format 0.0.4
    server_metrics()                 a fresh registry holding the server's metrics

Every series of a labelled metric gives every label name (and nothing else); ``declare`` makes a
series appear at zero before it is first touched.  Series are rendered sorted by label values,
so the output does not depend on the order of traffic.  There is no global registry: each
server builds its own with ``server_metrics()``.  Not thread-safe: one event loop updates them.

Metric and label names are checked when a metric is made (``ValueError``); so are label sets,
negative counter increments and NaN observations.
"""

from __future__ import annotations

import bisect
import gc
import itertools
import math
import re
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar, Final, TypeVar

CONTENT_TYPE: Final = "text/plain; version=0.0.4; charset=utf-8"
"""The ``Content-Type`` of ``Registry.render()``'s output."""

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

SESSIONS: Final = ("handshake", "lobby", "seat", "spectator")
REFUSALS: Final = ("origin", "per_ip", "global")
"""Why a websocket handshake was refused before any session (``echoridge_connections_refused``)."""
OUTCOMES: Final = ("accepted", "rejected", "duplicate", "stale")

_METRIC_NAME: Final = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
_LABEL_NAME: Final = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
_RESERVED_LABELS: Final = frozenset({"le", "quantile", "amount", "value", "seconds"})
"""``le``/``quantile`` are Prometheus's; the others are the keyword parameters of the methods."""

LabelValues = tuple[str, ...]
M = TypeVar("M", bound="Metric")


# --- text format helpers -----------------------------------------------------------------------


def format_value(value: float) -> str:
    """A sample value or bucket bound as Prometheus writes it: ``1``, ``0.25``, ``+Inf``."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(float(value))


def escape_help(text: str) -> str:
    """HELP text: backslash and newline escaped."""
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def escape_label(value: str) -> str:
    """A label value: backslash, double quote and newline escaped."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _label_text(names: Sequence[str], values: Sequence[str]) -> str:
    if not names:
        return ""
    pairs = ",".join(f'{n}="{escape_label(v)}"' for n, v in zip(names, values, strict=True))
    return "{" + pairs + "}"


# --- metrics -----------------------------------------------------------------------------------


class Metric:
    """What the three kinds share: a name, a help text, label names and a series per label set."""

    TYPE: ClassVar[str] = "untyped"

    def __init__(self, name: str, help: str, labels: Sequence[str] = ()) -> None:
        if not _METRIC_NAME.fullmatch(name):
            raise ValueError(f"bad metric name {name!r}")
        labels = tuple(labels)
        for label in labels:
            if not _LABEL_NAME.fullmatch(label) or label.startswith("__"):
                raise ValueError(f"{name}: bad label name {label!r}")
            if label in _RESERVED_LABELS:
                raise ValueError(f"{name}: the label name {label!r} is reserved")
        if len(set(labels)) != len(labels):
            raise ValueError(f"{name}: repeated label names")
        self.name = name
        self.help = help
        self.labels = labels

    def key(self, labels: dict[str, str]) -> LabelValues:
        """The label values of one series, in label-name order; exactly the label names."""
        if labels.keys() != set(self.labels):
            want = ", ".join(self.labels) or "no labels"
            got = ", ".join(sorted(labels)) or "no labels"
            raise ValueError(f"{self.name}: takes {want}, not {got}")
        return tuple(str(labels[n]) for n in self.labels)

    def sample_names(self) -> tuple[str, ...]:
        """The sample names this metric writes (to catch clashes in a registry)."""
        return (self.name,)

    def render(self) -> Iterator[str]:
        """The metric's lines: HELP, TYPE and its samples."""
        yield f"# HELP {self.name} {escape_help(self.help)}"
        yield f"# TYPE {self.name} {self.TYPE}"
        yield from self.samples()

    def samples(self) -> Iterator[str]:  # pragma: no cover - each kind has its own
        raise NotImplementedError


class _Scalar(Metric):
    """A metric with one number per series: ``Counter`` and ``Gauge``."""

    def __init__(self, name: str, help: str, labels: Sequence[str] = ()) -> None:
        super().__init__(name, help, labels)
        self._values: dict[LabelValues, float] = {}
        if not self.labels:
            self._values[()] = 0.0

    def declare(self, **labels: str) -> None:
        """Make this series appear (at zero) before it is first changed."""
        self._values.setdefault(self.key(labels), 0.0)

    def value(self, **labels: str) -> float:
        """The series' current value (zero when it was never touched)."""
        return self._values.get(self.key(labels), 0.0)

    def _add(self, amount: float, labels: dict[str, str]) -> None:
        key = self.key(labels)
        self._values[key] = self._values.get(key, 0.0) + amount

    def samples(self) -> Iterator[str]:
        for key in sorted(self._values):
            labels = _label_text(self.labels, key)
            yield f"{self.name}{labels} {format_value(self._values[key])}"


class Counter(_Scalar):
    """A count that only goes up (name it ``..._total``)."""

    TYPE: ClassVar[str] = "counter"

    def inc(self, amount: float = 1, **labels: str) -> None:
        if not amount >= 0:
            raise ValueError(f"{self.name}: a counter cannot go down (inc by {amount})")
        self._add(amount, labels)


class Gauge(_Scalar):
    """A value that goes up and down."""

    TYPE: ClassVar[str] = "gauge"

    def set(self, value: float, **labels: str) -> None:
        self._values[self.key(labels)] = float(value)

    def inc(self, amount: float = 1, **labels: str) -> None:
        self._add(amount, labels)

    def dec(self, amount: float = 1, **labels: str) -> None:
        self._add(-amount, labels)


@dataclass(slots=True)
class _Buckets:
    counts: list[int]  # per bucket, not cumulative; the last is +Inf
    sum: float = 0.0
    count: int = 0


class Histogram(Metric):
    """Observations counted into fixed buckets; rendered cumulatively with ``_sum``/``_count``."""

    TYPE: ClassVar[str] = "histogram"

    def __init__(
        self, name: str, help: str, buckets: Sequence[float], labels: Sequence[str] = ()
    ) -> None:
        super().__init__(name, help, labels)
        bounds = [float(b) for b in buckets]
        if bounds and bounds[-1] == math.inf:
            bounds.pop()
        if not bounds:
            raise ValueError(f"{name}: a histogram needs at least one finite bucket")
        if any(math.isnan(b) or math.isinf(b) for b in bounds):
            raise ValueError(f"{name}: bucket bounds are finite numbers")
        if any(a >= b for a, b in itertools.pairwise(bounds)):
            raise ValueError(f"{name}: bucket bounds must increase")
        self.buckets: tuple[float, ...] = tuple(bounds)
        self._series: dict[LabelValues, _Buckets] = {}
        if not self.labels:
            self.declare()

    def declare(self, **labels: str) -> None:
        """Make this series appear (all zero) before its first observation."""
        key = self.key(labels)
        if key not in self._series:
            self._series[key] = _Buckets([0] * (len(self.buckets) + 1))

    def observe(self, seconds: float, **labels: str) -> None:
        """Count one observation (``le`` is inclusive: a value on a bound falls in its bucket)."""
        if math.isnan(seconds):
            raise ValueError(f"{self.name}: cannot observe NaN")
        self.declare(**labels)
        series = self._series[self.key(labels)]
        series.counts[bisect.bisect_left(self.buckets, seconds)] += 1
        series.sum += seconds
        series.count += 1

    @contextmanager
    def time(self, **labels: str) -> Iterator[None]:
        """Observe the wall-clock duration of the ``with`` block (also when it raises)."""
        start = time.perf_counter()
        try:
            yield
        finally:
            self.observe(time.perf_counter() - start, **labels)

    def count(self, **labels: str) -> int:
        series = self._series.get(self.key(labels))
        return 0 if series is None else series.count

    def total(self, **labels: str) -> float:
        """The sum of the observations."""
        series = self._series.get(self.key(labels))
        return 0.0 if series is None else series.sum

    def sample_names(self) -> tuple[str, ...]:
        return (f"{self.name}_bucket", f"{self.name}_sum", f"{self.name}_count")

    def samples(self) -> Iterator[str]:
        bounds = [*(format_value(b) for b in self.buckets), "+Inf"]
        for key in sorted(self._series):
            series = self._series[key]
            running = 0
            for bound, n in zip(bounds, series.counts, strict=True):
                running += n
                labels = _label_text((*self.labels, "le"), (*key, bound))
                yield f"{self.name}_bucket{labels} {running}"
            labels = _label_text(self.labels, key)
            yield f"{self.name}_sum{labels} {format_value(series.sum)}"
            yield f"{self.name}_count{labels} {series.count}"


# --- registry ----------------------------------------------------------------------------------


class Registry:
    """Metrics in registration order, rendered together."""

    def __init__(self) -> None:
        self._metrics: list[Metric] = []
        self._names: set[str] = set()

    def register(self, metric: M) -> M:
        """Add ``metric`` (its name and sample names must be new here) and return it."""
        names = {metric.name, *metric.sample_names()}
        clash = names & self._names
        if clash:
            raise ValueError(f"metric name already registered: {', '.join(sorted(clash))}")
        self._names |= names
        self._metrics.append(metric)
        return metric

    def __iter__(self) -> Iterator[Metric]:
        return iter(self._metrics)

    def render(self) -> str:
        """The text exposition format 0.0.4: every metric's lines, ending with a newline."""
        lines = [line for metric in self._metrics for line in metric.render()]
        return "\n".join(lines) + "\n" if lines else ""


# --- the server's metrics ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ServerMetrics:
    """The metrics of one server process, and the registry that renders them."""

    registry: Registry
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

    def render(self) -> str:
        return self.registry.render()


def server_metrics() -> ServerMetrics:
    """A fresh registry with the server's metrics, the known label values declared at zero."""
    r = Registry()
    connections = r.register(
        Gauge(
            "echoridge_connections",
            "Open websocket connections by session (handshake: no welcome yet).",
            ("session",),
        )
    )
    for session in SESSIONS:
        connections.declare(session=session)
    tables = r.register(Gauge("echoridge_tables", "Live tables on this node."))
    commands = r.register(
        Counter(
            "echoridge_commands_total",
            "Game commands handled, by outcome.",
            ("outcome",),
        )
    )
    for outcome in OUTCOMES:
        commands.declare(outcome=outcome)
    rejections = r.register(
        Counter("echoridge_rejections_total", "Requests rejected, by error code.", ("code",))
    )
    append_conflicts = r.register(
        Counter(
            "echoridge_append_conflicts_total",
            "Appends that lost the race for a table's next version.",
        )
    )
    command_seconds = r.register(
        Histogram(
            "echoridge_command_seconds",
            "Command handling time in seconds, from frame to result.",
            COMMAND_BUCKETS,
        )
    )
    frames_in = r.register(
        Counter("echoridge_frames_in_total", "Websocket frames received from clients.")
    )
    frames_out = r.register(
        Counter("echoridge_frames_out_total", "Websocket frames sent to clients.")
    )
    outbox_overflows = r.register(
        Counter(
            "echoridge_outbox_overflows_total",
            "Connections whose outbox overflowed (a slow reader).",
        )
    )
    aborted = r.register(
        Counter(
            "echoridge_sessions_aborted_total",
            "Connections cut at the transport: the client read nothing.",
        )
    )
    refused = r.register(
        Counter(
            "echoridge_connections_refused_total",
            "Handshakes refused: origin 403, per_ip 429, global 503.",
            ("reason",),
        )
    )
    for reason in REFUSALS:
        refused.declare(reason=reason)
    return ServerMetrics(
        registry=r,
        connections=connections,
        tables=tables,
        commands=commands,
        rejections=rejections,
        append_conflicts=append_conflicts,
        command_seconds=command_seconds,
        frames_in=frames_in,
        frames_out=frames_out,
        outbox_overflows=outbox_overflows,
        aborted=aborted,
        refused=refused,
    )


# --- event-loop lag ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LoopLag:
    """How late the event loop runs a periodic timer: the time a ready callback waits while the
    loop is busy with others.  ``observe`` records one measurement in both metrics."""

    seconds: Histogram
    max: Gauge

    def observe(self, late: float) -> None:
        self.seconds.observe(late)
        if late > self.max.value():
            self.max.set(late)


def loop_lag_metrics(registry: Registry) -> LoopLag:
    """Register the event-loop lag metrics (``echoridge_loop_lag_seconds``, a histogram, and
    ``echoridge_loop_lag_max_seconds``) in ``registry``; ``serve`` adds them to the server's."""
    seconds = registry.register(
        Histogram(
            "echoridge_loop_lag_seconds",
            "How late the event loop woke a periodic timer (every 100 ms), in seconds.",
            LOOP_LAG_BUCKETS,
        )
    )
    worst = registry.register(
        Gauge(
            "echoridge_loop_lag_max_seconds",
            "The largest event-loop lag measured since the server started, in seconds.",
        )
    )
    return LoopLag(seconds, worst)


# --- garbage collection ------------------------------------------------------------------------


def watch_gc(registry: Registry) -> Callable[[], None]:
    """Count the cyclic garbage collector's runs and the time they take, by generation
    (``echoridge_gc_seconds_total``, ``echoridge_gc_collections_total``): a collection stops
    the event loop, and its cost grows with the objects a node keeps (views, histories).
    Returns the function that stops the counting."""
    seconds = registry.register(
        Counter(
            "echoridge_gc_seconds_total",
            "Time the event loop spent in the cyclic garbage collector, in seconds.",
            ("generation",),
        )
    )
    runs = registry.register(
        Counter(
            "echoridge_gc_collections_total",
            "Collections of the cyclic garbage collector.",
            ("generation",),
        )
    )
    started = [0.0]

    def callback(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
            return
        generation = str(info.get("generation", "?"))
        seconds.inc(time.perf_counter() - started[0], generation=generation)
        runs.inc(generation=generation)

    gc.callbacks.append(callback)
    return lambda: gc.callbacks.remove(callback)
