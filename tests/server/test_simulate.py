"""`echo-ridge simulate`: its report, its exit status and its determinism across processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from echoridge.cli import main
from echoridge.simulate import simulate


def run_cli(*args: str, hashseed: str = "0") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONHASHSEED": hashseed}
    return subprocess.run(
        [sys.executable, "-m", "echoridge.cli", "simulate", *args],
        capture_output=True, text=True, env=env, check=False, timeout=300,
    )


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_every_game_finishes_without_errors(players: int) -> None:
    report = simulate(15, players, seed=11)
    assert report["errors"] == 0, report.get("first_error")
    assert report["finished"] == 15
    assert sum(report["winners"].values()) == 15
    assert report["commands"] > 15 and report["events"] > report["commands"]


def test_report_fields_and_exit_status(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--games", "3", "--players", "2", "--seed", "5"]) == 0
    report = json.loads(capsys.readouterr().out)
    keys = ("games", "finished", "errors", "commands", "events", "winners", "seconds", "digest")
    assert all(key in report for key in keys)
    assert report["games"] == 3 and report["errors"] == 0


def test_same_arguments_same_digest_in_other_processes() -> None:
    """The digest does not depend on the process (string hashing, dict order, the clock)."""
    a = run_cli("--games", "4", "--players", "3", "--seed", "9", hashseed="1")
    b = run_cli("--games", "4", "--players", "3", "--seed", "9", hashseed="12345")
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    da, db = json.loads(a.stdout), json.loads(b.stdout)
    assert da["digest"] == db["digest"]
    assert da["digest"] == simulate(4, 3, 9)["digest"]


def test_other_seed_other_digest() -> None:
    assert simulate(2, 4, 1)["digest"] != simulate(2, 4, 2)["digest"]
