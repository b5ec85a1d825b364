"""The metrics registry: exact text output, escaping, cumulative histograms, and a parser that
checks the output is valid text exposition format 0.0.4."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, fields

import pytest

from echoridge.net.metrics import (
    CONTENT_TYPE,
    Counter,
    Gauge,
    Histogram,
    Registry,
    ServerMetrics,
    format_value,
    server_metrics,
    watch_gc,
)

# --- a small parser of the text format ---------------------------------------------------------

_NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
_SAMPLE = re.compile(rf"({_NAME})(\{{.*\}})? (\S+)")
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"')
_ESCAPES = {"\\\\": "\\", '\\"': '"', "\\n": "\n"}


@dataclass
class Family:
    name: str
    type: str = "untyped"
    help: str | None = None
    samples: list[tuple[str, dict[str, str], float]] = field(default_factory=list)


def _unescape(text: str, escapes: dict[str, str]) -> str:
    return re.sub(r"\\.", lambda m: escapes[m.group(0)], text)


def _labels(text: str) -> dict[str, str]:
    body = text[1:-1]
    out: dict[str, str] = {}
    pos = 0
    while pos < len(body):
        m = _LABEL.match(body, pos)
        assert m, f"bad labels {text!r} at {pos}"
        name, value = m.group(1), _unescape(m.group(2), _ESCAPES)
        assert name not in out, f"repeated label {name}"
        out[name] = value
        pos = m.end()
        if pos < len(body):
            assert body[pos] == ",", f"bad labels {text!r}"
            pos += 1
    return out


def _value(text: str) -> float:
    specials = {"+Inf": math.inf, "-Inf": -math.inf, "NaN": math.nan}
    if text in specials:
        return specials[text]
    assert re.fullmatch(r"-?[0-9]+(\.[0-9]+)?(e[+-]?[0-9]+)?", text), text
    return float(text)


def _family_of(sample: str, families: dict[str, Family]) -> Family:
    if sample in families:
        return families[sample]
    for suffix in ("_bucket", "_sum", "_count"):
        base = sample.removesuffix(suffix)
        if base != sample and base in families and families[base].type == "histogram":
            return families[base]
    raise AssertionError(f"sample {sample} has no TYPE line before it")


def parse(text: str) -> dict[str, Family]:
    """Parse (and check) the text exposition format; families by name."""
    assert text.endswith("\n")
    families: dict[str, Family] = {}
    current: Family | None = None
    for line in text[:-1].split("\n"):
        assert line, "empty line"
        if line.startswith("# HELP "):
            name, _, help = line[7:].partition(" ")
            assert re.fullmatch(_NAME, name)
            fam = families.setdefault(name, Family(name))
            assert fam.help is None and not fam.samples, f"HELP for {name} out of place"
            fam.help = _unescape(help, {"\\\\": "\\", "\\n": "\n"})
            current = fam
        elif line.startswith("# TYPE "):
            name, kind = line[7:].split(" ")
            assert kind in ("counter", "gauge", "histogram", "summary", "untyped")
            fam = families.setdefault(name, Family(name))
            assert not fam.samples, f"TYPE for {name} after its samples"
            fam.type = kind
            current = fam
        else:
            assert not line.startswith("#"), line
            m = _SAMPLE.fullmatch(line)
            assert m, f"bad sample line {line!r}"
            fam = _family_of(m.group(1), families)
            assert fam is current, f"{m.group(1)}: samples of a family must be together"
            labels = _labels(m.group(2)) if m.group(2) else {}
            fam.samples.append((m.group(1), labels, _value(m.group(3))))
    for fam in families.values():
        if fam.type == "histogram":
            _check_histogram(fam)
        if fam.type == "counter":
            assert all(v >= 0 for _, _, v in fam.samples), fam.name
    return families


def _check_histogram(fam: Family) -> None:
    series: dict[tuple[tuple[str, str], ...], dict[str, list[tuple[float, float]]]] = {}
    for name, sample_labels, value in fam.samples:
        labels = dict(sample_labels)
        le = labels.pop("le", None)
        kind = name.removeprefix(fam.name)
        entry = series.setdefault(tuple(sorted(labels.items())), {})
        if kind == "_bucket":
            assert le is not None
            entry.setdefault("buckets", []).append((_value(le), value))
        else:
            assert le is None
            assert kind not in entry
            entry[kind] = [(0.0, value)]
    for entry in series.values():
        buckets = entry["buckets"]
        bounds = [b for b, _ in buckets]
        counts = [c for _, c in buckets]
        assert bounds == sorted(bounds) and len(set(bounds)) == len(bounds)
        assert bounds[-1] == math.inf, "a histogram ends with le=+Inf"
        assert counts == sorted(counts), "buckets are cumulative"
        assert entry["_count"][0][1] == counts[-1]
        assert "_sum" in entry


def value(families: dict[str, Family], sample: str, **labels: str) -> float:
    fam = _family_of(sample, families)
    found = [v for n, ls, v in fam.samples if n == sample and ls == labels]
    assert len(found) == 1, (sample, labels, fam.samples)
    return found[0]


# --- exact output ------------------------------------------------------------------------------


def test_exact_text_of_a_small_registry() -> None:
    r = Registry()
    c = r.register(Counter("jobs_total", "Jobs done.", ("kind",)))
    g = r.register(Gauge("temperature", "Degrees."))
    h = r.register(Histogram("latency_seconds", "Latency.", (0.1, 1.0)))
    c.inc(kind="b")
    c.inc(2, kind="a")
    c.inc(kind="a")
    g.set(21.5)
    g.dec(0.5)
    h.observe(0.05)
    h.observe(0.1)  # on a bound: counts in that bucket (le is inclusive)
    h.observe(0.5)
    h.observe(7)
    assert r.render() == (
        "# HELP jobs_total Jobs done.\n"
        "# TYPE jobs_total counter\n"
        'jobs_total{kind="a"} 3\n'
        'jobs_total{kind="b"} 1\n'
        "# HELP temperature Degrees.\n"
        "# TYPE temperature gauge\n"
        "temperature 21\n"
        "# HELP latency_seconds Latency.\n"
        "# TYPE latency_seconds histogram\n"
        'latency_seconds_bucket{le="0.1"} 2\n'
        'latency_seconds_bucket{le="1"} 3\n'
        'latency_seconds_bucket{le="+Inf"} 4\n'
        "latency_seconds_sum 7.65\n"
        "latency_seconds_count 4\n"
    )
    assert c.value(kind="a") == 3 and c.value(kind="zzz") == 0
    assert g.value() == 21
    assert h.count() == 4 and h.total() == pytest.approx(7.65)
    parse(r.render())


def test_empty_registry_renders_nothing() -> None:
    assert Registry().render() == ""


def test_labelled_metric_without_series_has_only_help_and_type() -> None:
    r = Registry()
    r.register(Counter("errors_total", "Errors.", ("code",)))
    assert r.render() == "# HELP errors_total Errors.\n# TYPE errors_total counter\n"
    parse(r.render())


def test_series_are_sorted_whatever_the_order_of_traffic() -> None:
    a, b = Gauge("g", "G.", ("x", "y")), Gauge("g", "G.", ("x", "y"))
    for x, y in [("2", "a"), ("1", "b"), ("1", "a")]:
        a.set(1, x=x, y=y)
    for x, y in [("1", "a"), ("2", "a"), ("1", "b")]:
        b.set(1, x=x, y=y)
    assert list(a.render()) == list(b.render())
    assert list(a.samples()) == ['g{x="1",y="a"} 1', 'g{x="1",y="b"} 1', 'g{x="2",y="a"} 1']


def test_escaping_of_label_values_and_help() -> None:
    r = Registry()
    c = r.register(Counter("odd_total", 'Back\\slash and\nnewline, "quotes" kept.', ("v",)))
    c.inc(v='a "quoted" back\\slash\nnewline')
    text = r.render()
    assert text == (
        '# HELP odd_total Back\\\\slash and\\nnewline, "quotes" kept.\n'
        "# TYPE odd_total counter\n"
        'odd_total{v="a \\"quoted\\" back\\\\slash\\nnewline"} 1\n'
    )
    fam = parse(text)["odd_total"]
    assert fam.help == 'Back\\slash and\nnewline, "quotes" kept.'
    assert fam.samples == [("odd_total", {"v": 'a "quoted" back\\slash\nnewline'}, 1.0)]


def test_label_values_are_free_text() -> None:
    c = Counter("c_total", "C.", ("code",))
    c.inc(code="rules/not_your_turn")
    c.inc(code="ünïcödé {},=")
    fams = parse("".join(line + "\n" for line in c.render()))
    assert value(fams, "c_total", code="ünïcödé {},=") == 1
    assert value(fams, "c_total", code="rules/not_your_turn") == 1


def test_format_value() -> None:
    assert format_value(0) == "0"
    assert format_value(3.0) == "3"
    assert format_value(-2) == "-2"
    assert format_value(0.0005) == "0.0005"
    assert format_value(2.5) == "2.5"
    assert format_value(math.inf) == "+Inf"
    assert format_value(-math.inf) == "-Inf"
    assert format_value(math.nan) == "NaN"
    assert format_value(1e20) == "1e+20"


# --- histograms --------------------------------------------------------------------------------


def test_histogram_buckets_are_cumulative_per_series() -> None:
    h = Histogram("h_seconds", "H.", (1, 2, 3), labels=("op",))
    for v in (0.5, 1.5, 1.5, 2.5, 9):
        h.observe(v, op="x")
    h.observe(2, op="y")
    lines = list(h.samples())
    assert lines == [
        'h_seconds_bucket{op="x",le="1"} 1',
        'h_seconds_bucket{op="x",le="2"} 3',
        'h_seconds_bucket{op="x",le="3"} 4',
        'h_seconds_bucket{op="x",le="+Inf"} 5',
        'h_seconds_sum{op="x"} 15',
        'h_seconds_count{op="x"} 5',
        'h_seconds_bucket{op="y",le="1"} 0',
        'h_seconds_bucket{op="y",le="2"} 1',
        'h_seconds_bucket{op="y",le="3"} 1',
        'h_seconds_bucket{op="y",le="+Inf"} 1',
        'h_seconds_sum{op="y"} 2',
        'h_seconds_count{op="y"} 1',
    ]
    parse("\n".join(h.render()) + "\n")


def test_histogram_with_no_observations_renders_zeros() -> None:
    h = Histogram("h", "H.", (0.5, math.inf))  # a trailing +Inf bound is implied anyway
    assert h.buckets == (0.5,)
    assert list(h.samples()) == [
        'h_bucket{le="0.5"} 0',
        'h_bucket{le="+Inf"} 0',
        "h_sum 0",
        "h_count 0",
    ]


def test_histogram_time_observes_a_duration() -> None:
    h = Histogram("t", "T.", (10.0,))
    with h.time():
        pass
    with pytest.raises(RuntimeError), h.time():
        raise RuntimeError("still timed")
    assert h.count() == 2
    assert 0 <= h.total() < 10


@pytest.mark.parametrize("buckets", [(), (2, 1), (1, 1), (math.nan,), (-math.inf, 1)])
def test_bad_buckets(buckets: tuple[float, ...]) -> None:
    with pytest.raises(ValueError):
        Histogram("h", "H.", buckets)


def test_histogram_refuses_nan() -> None:
    with pytest.raises(ValueError):
        Histogram("h", "H.", (1,)).observe(math.nan)


# --- checks ------------------------------------------------------------------------------------


def test_labels_must_match_exactly() -> None:
    c = Counter("c_total", "C.", ("a", "b"))
    with pytest.raises(ValueError, match="takes a, b"):
        c.inc(a="1")
    with pytest.raises(ValueError):
        c.inc(a="1", b="2", c="3")
    with pytest.raises(ValueError):
        Gauge("g", "G.").set(1, extra="x")
    c.inc(a="1", b="2")
    assert c.value(b="2", a="1") == 1


def test_counters_only_go_up() -> None:
    c = Counter("c_total", "C.")
    with pytest.raises(ValueError):
        c.inc(-1)
    with pytest.raises(ValueError):
        c.inc(math.nan)
    c.inc(0)
    assert c.value() == 0


@pytest.mark.parametrize("name", ["", "1abc", "a-b", "a b", "é"])
def test_bad_metric_names(name: str) -> None:
    with pytest.raises(ValueError):
        Counter(name, "x")


@pytest.mark.parametrize(
    "labels", [("le",), ("__x",), ("a-b",), ("a", "a"), ("amount",), ("value",), ("seconds",)]
)
def test_bad_label_names(labels: tuple[str, ...]) -> None:
    with pytest.raises(ValueError):
        Histogram("h", "x", (1,), labels)


def test_registry_refuses_clashing_names() -> None:
    r = Registry()
    r.register(Histogram("x", "X.", (1,)))
    with pytest.raises(ValueError):
        r.register(Counter("x", "again"))
    with pytest.raises(ValueError):
        r.register(Gauge("x_count", "clashes with the histogram's count"))
    r.register(Gauge("y", "Y."))
    assert [m.name for m in r] == ["x", "y"]


def test_content_type() -> None:
    assert CONTENT_TYPE == "text/plain; version=0.0.4; charset=utf-8"


# --- the server's metrics ----------------------------------------------------------------------

SERVER_TEXT = """\
# HELP echoridge_connections Open websocket connections by session (handshake: no welcome yet).
# TYPE echoridge_connections gauge
echoridge_connections{session="handshake"} 0
echoridge_connections{session="lobby"} 0
echoridge_connections{session="seat"} 0
echoridge_connections{session="spectator"} 0
# HELP echoridge_tables Live tables on this node.
# TYPE echoridge_tables gauge
echoridge_tables 0
# HELP echoridge_commands_total Game commands handled, by outcome.
# TYPE echoridge_commands_total counter
echoridge_commands_total{outcome="accepted"} 0
echoridge_commands_total{outcome="duplicate"} 0
echoridge_commands_total{outcome="rejected"} 0
echoridge_commands_total{outcome="stale"} 0
# HELP echoridge_rejections_total Requests rejected, by error code.
# TYPE echoridge_rejections_total counter
# HELP echoridge_append_conflicts_total Appends that lost the race for a table's next version.
# TYPE echoridge_append_conflicts_total counter
echoridge_append_conflicts_total 0
# HELP echoridge_command_seconds Command handling time in seconds, from frame to result.
# TYPE echoridge_command_seconds histogram
echoridge_command_seconds_bucket{le="0.0005"} 0
echoridge_command_seconds_bucket{le="0.001"} 0
echoridge_command_seconds_bucket{le="0.0025"} 0
echoridge_command_seconds_bucket{le="0.005"} 0
echoridge_command_seconds_bucket{le="0.01"} 0
echoridge_command_seconds_bucket{le="0.025"} 0
echoridge_command_seconds_bucket{le="0.05"} 0
echoridge_command_seconds_bucket{le="0.1"} 0
echoridge_command_seconds_bucket{le="0.25"} 0
echoridge_command_seconds_bucket{le="0.5"} 0
echoridge_command_seconds_bucket{le="1"} 0
echoridge_command_seconds_bucket{le="2.5"} 0
echoridge_command_seconds_bucket{le="5"} 0
echoridge_command_seconds_bucket{le="+Inf"} 0
echoridge_command_seconds_sum 0
echoridge_command_seconds_count 0
# HELP echoridge_frames_in_total Websocket frames received from clients.
# TYPE echoridge_frames_in_total counter
echoridge_frames_in_total 0
# HELP echoridge_frames_out_total Websocket frames sent to clients.
# TYPE echoridge_frames_out_total counter
echoridge_frames_out_total 0
# HELP echoridge_outbox_overflows_total Connections whose outbox overflowed (a slow reader).
# TYPE echoridge_outbox_overflows_total counter
echoridge_outbox_overflows_total 0
# HELP echoridge_sessions_aborted_total Connections cut at the transport: the client read nothing.
# TYPE echoridge_sessions_aborted_total counter
echoridge_sessions_aborted_total 0
# HELP echoridge_connections_refused_total Handshakes refused: origin 403, per_ip 429, global 503.
# TYPE echoridge_connections_refused_total counter
echoridge_connections_refused_total{reason="global"} 0
echoridge_connections_refused_total{reason="origin"} 0
echoridge_connections_refused_total{reason="per_ip"} 0
"""


def test_server_metrics_fresh() -> None:
    m = server_metrics()
    assert m.render() == SERVER_TEXT
    fams = parse(m.render())
    assert {name: f.type for name, f in fams.items()} == {
        "echoridge_connections": "gauge",
        "echoridge_tables": "gauge",
        "echoridge_commands_total": "counter",
        "echoridge_rejections_total": "counter",
        "echoridge_append_conflicts_total": "counter",
        "echoridge_command_seconds": "histogram",
        "echoridge_frames_in_total": "counter",
        "echoridge_frames_out_total": "counter",
        "echoridge_outbox_overflows_total": "counter",
        "echoridge_sessions_aborted_total": "counter",
        "echoridge_connections_refused_total": "counter",
    }
    assert fields(ServerMetrics)[0].name == "registry"
    assert len(list(m.registry)) == len(fields(ServerMetrics)) - 1


def test_server_metrics_are_independent() -> None:
    a, b = server_metrics(), server_metrics()
    a.tables.inc()
    a.commands.inc(outcome="accepted")
    assert b.render() == SERVER_TEXT
    assert a.render() != SERVER_TEXT


def test_server_metrics_after_traffic() -> None:
    m = server_metrics()
    m.connections.inc(session="handshake")
    m.connections.dec(session="handshake")
    m.connections.inc(session="seat")
    m.connections.inc(session="spectator")
    m.connections.inc(session="spectator")
    m.tables.set(3)
    m.commands.inc(outcome="accepted")
    m.commands.inc(outcome="rejected")
    m.rejections.inc(code="rules/not_your_turn")
    m.rejections.inc(code="command/stale_version")
    m.commands.inc(outcome="stale")
    m.append_conflicts.inc()
    for seconds in (0.0004, 0.0005, 0.003, 0.2, 6.0):
        m.command_seconds.observe(seconds)
    m.frames_in.inc(5)
    m.frames_out.inc(9)
    m.outbox_overflows.inc()
    fams = parse(m.render())
    assert value(fams, "echoridge_connections", session="handshake") == 0
    assert value(fams, "echoridge_connections", session="seat") == 1
    assert value(fams, "echoridge_connections", session="spectator") == 2
    assert value(fams, "echoridge_tables") == 3
    assert value(fams, "echoridge_commands_total", outcome="accepted") == 1
    assert value(fams, "echoridge_commands_total", outcome="duplicate") == 0
    assert value(fams, "echoridge_rejections_total", code="rules/not_your_turn") == 1
    assert value(fams, "echoridge_append_conflicts_total") == 1
    bucket = "echoridge_command_seconds_bucket"
    assert value(fams, bucket, le="0.0005") == 2
    assert value(fams, bucket, le="0.005") == 3
    assert value(fams, bucket, le="0.25") == 4
    assert value(fams, bucket, le="5") == 4
    assert value(fams, bucket, le="+Inf") == 5
    assert value(fams, "echoridge_command_seconds_count") == 5
    assert value(fams, "echoridge_command_seconds_sum") == pytest.approx(6.2039)
    assert value(fams, "echoridge_frames_in_total") == 5
    assert value(fams, "echoridge_frames_out_total") == 9
    assert value(fams, "echoridge_outbox_overflows_total") == 1


def test_the_parser_catches_bad_text() -> None:
    """The parser is strict enough to be worth trusting."""
    bad = [
        "x 1",  # no trailing newline
        "# TYPE x counter\nx{a=\"1\"} nope\n",
        "# TYPE x counter\nx{a=1} 1\n",
        "# TYPE x counter\nx -1\n",
        "y 1\n",  # no TYPE
        '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 0\nh_count 1\n',
        '# TYPE h histogram\nh_bucket{le="1"} 1\nh_sum 0\nh_count 1\n',  # no +Inf
        '# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_sum 0\nh_count 1\n',
        '# TYPE x gauge\nx{a="\\q"} 1\n',
    ]
    for text in bad:
        with pytest.raises((AssertionError, KeyError)):
            parse(text)


def test_gc_metrics_count_collections() -> None:
    import gc

    registry = Registry()
    stop = watch_gc(registry)
    try:
        gc.collect(0)
        gc.collect(2)
    finally:
        stop()
    text = registry.render()
    assert 'echoridge_gc_collections_total{generation="0"}' in text
    assert 'echoridge_gc_collections_total{generation="2"}' in text
    gc.collect()  # no longer counted
    assert registry.render() == text
