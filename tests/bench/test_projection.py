"""``bench/projection_bench.py`` (issue 26) projects random games' versions for five viewers and
ends with a ``projection {json}`` line; nothing about the times is asserted, only that every
version was projected and that viewers with the same delta shared its encoding."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_projection_bench_reports_each_part() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "projection_bench.py"), "--games", "1",
         "--repeats", "1"],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    word, _, text = done.stdout.strip().splitlines()[-1].partition(" ")
    assert word == "projection"
    figures = json.loads(text)
    assert figures["versions"] > 20
    assert {"view_ms", "diff_ms", "encode_ms", "auto_pass_ms"} <= figures.keys()
    # five viewers a version, but the seats that did not act share the spectators' delta
    assert 1 <= figures["encodings_per_version"] < 4
    assert figures["mean_delta_bytes"] > 0
