"""``bench/compare.py --quick`` (issue 26) runs its three windows end to end with tiny settings
and ends with a ``compare {json}`` line holding every figure the issue names.  Nothing about the
figures' sizes is asserted (speed is measured by the bench, never in tests); only that ours ran.
The boardgame.io peer runs if its Node packages are installed, else is reported as skipped
(``--no-install``: a test never downloads).  About 15-25 s."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KEYS = {"ours_cpu_ms", "peer_cpu_ms", "floor_cpu_ms", "ours_p99_ms", "peer_p99_ms",
        "floor_p99_ms", "gc_share", "max_gc_pause_ms", "bytes_per_update",
        "redis_calls_per_command", "disturbed"}  # fmt: skip


def test_quick_compare_ends_with_every_figure() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "compare.py"), "--quick", "--tables", "2",
         "--seconds", "1.5", "--warmup", "1", "--think", "0.1", "--no-install"],
        capture_output=True, text=True, timeout=180, env={**os.environ}, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    last = done.stdout.strip().splitlines()[-1]
    word, _, text = last.partition(" ")
    assert word == "compare", last
    figures = json.loads(text)
    assert figures.keys() >= KEYS
    assert isinstance(figures["disturbed"], bool)
    assert figures["ours_cpu_ms"] is not None and figures["bytes_per_update"] is not None
    assert figures["floor_cpu_ms"] is not None
    assert 0 <= figures["gc_share"] <= 1
    if figures["peer_cpu_ms"] is None:
        assert "peer" in figures["skipped"]
