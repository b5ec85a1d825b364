"""`echo-ridge simulate`: its report, its exit status and its determinism across processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from echoridge.cli import main
from echoridge.simulate import simulate, start_command
from echoridge.transcript import replay
from echoridge_protocol.verify import verify_transcript
from echoridge_rules.commands import StartGame


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


# --- co-op (rules.md §14, issue 16) -------------------------------------------------------------

COOP_GAMES = 20


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_coop_game_finishes_without_errors(players: int) -> None:
    report = simulate(COOP_GAMES, players, seed=11, mode="cooperative")
    assert report["errors"] == 0, report.get("first_error")
    assert report["finished"] == COOP_GAMES and report["mode"] == "cooperative"
    team = ",".join(str(s) for s in range(players))
    # the team wins or loses as one: winners is every seat, or nobody
    assert set(report["winners"]) <= {team, "none"}, report["winners"]
    assert sum(report["winners"].values()) == COOP_GAMES
    assert report["win_rate"] == report["winners"].get(team, 0) / COOP_GAMES
    assert report["commands"] > COOP_GAMES and report["events"] > report["commands"]


def test_coop_is_not_the_competitive_game() -> None:
    coop, competitive = simulate(3, 3, 4, mode="cooperative"), simulate(3, 3, 4)
    assert competitive["mode"] == "competitive"
    assert coop["digest"] != competitive["digest"]
    assert coop["digest"] == simulate(3, 3, 4, mode="cooperative")["digest"]


def test_a_competitive_game_starts_as_before_coop() -> None:
    """``--mode competitive`` (the default) sends the very StartGame of the games before co-op,
    so its events, states and digests are those games'."""
    for players in range(1, 5):
        assert start_command(players) == StartGame(players)
        assert start_command(players, "competitive") == StartGame(players)
    assert start_command(2, "cooperative") == StartGame(2, mode="cooperative")
    assert simulate(3, 2, 6)["digest"] == simulate(3, 2, 6, mode="competitive")["digest"]
    with pytest.raises(ValueError, match="unknown mode"):
        simulate(1, 2, 0, mode="solo")


def test_win_rate_of_competitive_games() -> None:
    report = simulate(COOP_GAMES, 2, seed=11)
    won = sum(n for key, n in report["winners"].items() if key != "none")
    assert report["win_rate"] == won / COOP_GAMES


def test_cli_coop_report_and_its_player_counts(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["simulate", "--games", "2", "--players", "3", "--mode", "coop", "--seed", "5"]
    assert main(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["mode"] == "cooperative" and report["finished"] == 2
    assert 0.0 <= report["win_rate"] <= 1.0
    assert report["digest"] == simulate(2, 3, 5, mode="cooperative")["digest"]
    with pytest.raises(SystemExit) as exit_:
        main(["simulate", "--games", "1", "--players", "1", "--mode", "coop"])
    assert exit_.value.code == 2
    assert "2 to 4" in capsys.readouterr().err


def test_coop_digest_is_the_same_in_other_processes() -> None:
    a = run_cli("--games", "3", "--players", "4", "--mode", "coop", "--seed", "9", hashseed="7")
    assert a.returncode == 0, a.stderr
    assert json.loads(a.stdout)["digest"] == simulate(3, 4, 9, mode="cooperative")["digest"]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_coop_transcripts_verify(tmp_path: Path, players: int) -> None:
    report = simulate(2, players, 3, transcripts=tmp_path, mode="cooperative")
    assert report["finished"] == 2 and report["errors"] == 0, report.get("first_error")
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == 2
    for f in files:
        t = json.loads(f.read_text())
        assert verify_transcript(t).ok
        result = replay(t)
        assert result.ok, (f.name, result.problem)
