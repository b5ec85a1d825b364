"""The server's metrics (net/metrics.py, on prometheus_client): every name /metrics has had, with
its type and help; registries that count apart; the values after traffic; the garbage
collector's counts; and, in multiprocess mode, every worker's samples summed in one output.
The text is read back with prometheus_client's own parser, so it is valid exposition format."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry
from prometheus_client.parser import text_string_to_metric_families

from echoridge.net.metrics import (
    CONTENT_TYPE,
    MULTIPROCESS_ENV,
    OUTCOMES,
    REFUSALS,
    SESSIONS,
    loop_lag_metrics,
    server_metrics,
    watch_gc,
)

# Every family /metrics had before prometheus_client, with its type (the names must not change:
# dashboards and the benches read them).
FAMILIES = {
    "echoridge_connections": "gauge",
    "echoridge_tables": "gauge",
    "echoridge_commands": "counter",
    "echoridge_rejections": "counter",
    "echoridge_append_conflicts": "counter",
    "echoridge_command_seconds": "histogram",
    "echoridge_frames_in": "counter",
    "echoridge_frames_out": "counter",
    "echoridge_outbox_overflows": "counter",
    "echoridge_sessions_aborted": "counter",
    "echoridge_connections_refused": "counter",
    "echoridge_connections_handed_off": "counter",  # (serve --workers: net/affinity.py)
}


def samples(text: bytes) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """{(sample name, sorted labels): value} of a /metrics text."""
    out = {}
    for family in text_string_to_metric_families(text.decode()):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def value(text: bytes, name: str, **labels: str) -> float:
    return samples(text)[(name, tuple(sorted(labels.items())))]


def test_fresh_server_metrics_have_every_name_and_the_known_labels_at_zero() -> None:
    text = server_metrics().render()
    families = {f.name: f for f in text_string_to_metric_families(text.decode())}
    assert {name: f.type for name, f in families.items()} == FAMILIES
    assert all(f.documentation for f in families.values())
    for session in SESSIONS:
        assert value(text, "echoridge_connections", session=session) == 0
    for outcome in OUTCOMES:
        assert value(text, "echoridge_commands_total", outcome=outcome) == 0
    for reason in REFUSALS:
        assert value(text, "echoridge_connections_refused_total", reason=reason) == 0
    for outcome in ("passed", "kept"):
        assert value(text, "echoridge_connections_handed_off_total", outcome=outcome) == 0
    assert value(text, "echoridge_command_seconds_bucket", le="+Inf") == 0
    assert CONTENT_TYPE.startswith("text/plain; version=0.0.4")


def test_server_metrics_are_independent() -> None:
    a, b = server_metrics(), server_metrics()
    fresh = samples(b.render())
    a.tables.inc()
    a.commands.labels(outcome="accepted").inc()
    assert samples(b.render()) == fresh
    assert samples(a.render()) != fresh


def test_server_metrics_after_traffic() -> None:
    m = server_metrics()
    m.connections.labels(session="handshake").inc()
    m.connections.labels(session="handshake").dec()
    m.connections.labels(session="seat").inc()
    m.connections.labels(session="spectator").inc(2)
    m.tables.set(3)
    m.commands.labels(outcome="accepted").inc()
    m.rejections.labels(code="rules/not_your_turn").inc()
    m.append_conflicts.inc()
    for seconds in (0.0004, 0.0005, 0.003, 0.2, 6.0):
        m.command_seconds.observe(seconds)
    m.frames_in.inc(5)
    m.frames_out.inc(9)
    m.outbox_overflows.inc()
    text = m.render()
    assert value(text, "echoridge_connections", session="handshake") == 0
    assert value(text, "echoridge_connections", session="seat") == 1
    assert value(text, "echoridge_connections", session="spectator") == 2
    assert value(text, "echoridge_tables") == 3
    assert value(text, "echoridge_commands_total", outcome="accepted") == 1
    assert value(text, "echoridge_commands_total", outcome="duplicate") == 0
    assert value(text, "echoridge_rejections_total", code="rules/not_your_turn") == 1
    assert value(text, "echoridge_append_conflicts_total") == 1
    bucket = "echoridge_command_seconds_bucket"
    assert value(text, bucket, le="0.0005") == 2
    assert value(text, bucket, le="0.005") == 3
    assert value(text, bucket, le="0.25") == 4
    assert value(text, bucket, le="5.0") == 4
    assert value(text, bucket, le="+Inf") == 5
    assert value(text, "echoridge_command_seconds_count") == 5
    assert value(text, "echoridge_command_seconds_sum") == pytest.approx(6.2039)
    assert value(text, "echoridge_frames_in_total") == 5
    assert value(text, "echoridge_frames_out_total") == 9
    assert value(text, "echoridge_outbox_overflows_total") == 1


def test_loop_lag_keeps_the_largest() -> None:
    m = server_metrics()
    lag = loop_lag_metrics(m.registry)
    for late in (0.002, 0.3, 0.01):
        lag.observe(late)
    text = m.render()
    assert value(text, "echoridge_loop_lag_max_seconds") == 0.3
    assert value(text, "echoridge_loop_lag_seconds_count") == 3


def test_gc_metrics_count_collections() -> None:
    registry = CollectorRegistry()
    stop = watch_gc(registry)
    try:
        gc.collect(0)
        gc.collect(2)
    finally:
        stop()
    from prometheus_client import generate_latest

    text = generate_latest(registry)
    assert value(text, "echoridge_gc_collections_total", generation="0") >= 1
    assert value(text, "echoridge_gc_collections_total", generation="2") >= 1
    assert value(text, "echoridge_gc_pause_seconds_count") >= 2
    longest = value(text, "echoridge_gc_pause_max_seconds")
    assert 0 < longest <= value(text, "echoridge_gc_pause_seconds_sum")
    gc.collect()  # no longer counted
    assert generate_latest(registry) == text


WORKER = """
import sys
from echoridge.net.metrics import server_metrics, loop_lag_metrics
m = server_metrics()
n = int(sys.argv[1])
m.commands.labels(outcome="accepted").inc(n)
m.connections.labels(session="seat").inc(n)
m.command_seconds.observe(0.001 * n)
loop_lag_metrics(m.registry).observe(0.01 * n)
sys.stdout.buffer.write(m.render())
"""


def test_workers_metrics_are_summed_in_multiprocess_mode(tmp_path: Path) -> None:
    """Two worker processes count into one directory; any process's render sums them (gauges
    of live workers only, once the dead one is marked), the lag's maximum over all."""
    env = {**os.environ, MULTIPROCESS_ENV: str(tmp_path)}
    outputs = [
        subprocess.run(
            [sys.executable, "-c", WORKER, str(n)], env=env, capture_output=True, check=True
        ).stdout
        for n in (2, 3)
    ]
    text = outputs[-1]  # the second worker's /metrics shows both
    assert value(text, "echoridge_commands_total", outcome="accepted") == 5
    assert value(text, "echoridge_command_seconds_count") == 2
    assert value(text, "echoridge_loop_lag_max_seconds") == pytest.approx(0.03)
    # Both processes have exited; gauges count live workers only once the supervisor marks them.
    assert value(text, "echoridge_connections", session="seat") == 5
    from prometheus_client import multiprocess

    for pid_file in tmp_path.glob("gauge_livesum_*.db"):
        multiprocess.mark_process_dead(int(pid_file.stem.rsplit("_", 1)[1]), str(tmp_path))
    after = subprocess.run(
        [sys.executable, "-c", WORKER, "1"], env=env, capture_output=True, check=True
    ).stdout
    assert value(after, "echoridge_connections", session="seat") == 1
    assert value(after, "echoridge_commands_total", outcome="accepted") == 6  # counters stay
