"""Public transcripts: every finished game's verifies, and any tampering is caught."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from echoridge.cli import main
from echoridge.simulate import simulate
from echoridge.transcript import replay
from echoridge_protocol.delta import apply
from echoridge_protocol.verify import verify_transcript

Transcript = dict[str, Any]
GAMES = 100  # random 4-seat games (200 took ~35 s of make test's time for the same paths)


@pytest.fixture(scope="module")
def transcripts(tmp_path_factory: pytest.TempPathFactory) -> list[Transcript]:
    out = tmp_path_factory.mktemp("transcripts")
    report = simulate(GAMES, 4, seed=2026, transcripts=out)
    assert report["finished"] == GAMES and report["errors"] == 0
    files = sorted(out.glob("*.json"))
    assert len(files) == GAMES
    return [json.loads(f.read_text()) for f in files]


def test_every_transcript_of_many_games_verifies(transcripts: list[Transcript]) -> None:
    for t in transcripts:
        protocol_only = verify_transcript(t)
        assert protocol_only.ok, (t["table"], protocol_only.problem)
        assert protocol_only.commitments == 33 and protocol_only.draws > 100
        full = replay(t)
        assert full.ok, (t["table"], full.problem)


def test_a_delta_saying_the_same_change_with_other_ops_replays(
    transcripts: list[Transcript],
) -> None:
    """Which ops say a change is the server's choice (SPEC.md 6.2): a transcript whose deltas
    each set the whole public view still replays; what is checked is the view they give."""
    t = copy.deepcopy(transcripts[0])
    view = t["initial"]
    for entry in t["entries"]:
        view = apply(view, entry["delta"])
        entry["delta"] = [["set", [], view]]
    assert replay(t).ok


COOP_KEYS = {"coop", "role", "face_up", "trait", "team", "team_accusation"}


def _before_coop(value: Any) -> Any:
    """A view as the server recorded it before co-op: without the keys it added."""
    if isinstance(value, dict):
        return {k: _before_coop(v) for k, v in value.items() if k not in COOP_KEYS}
    if isinstance(value, list):
        return [_before_coop(v) for v in value]
    return value


def test_a_transcript_recorded_before_the_coop_keys_still_replays(
    transcripts: list[Transcript],
) -> None:
    """Keys added to the view later (SPEC.md §8) are nil or empty in a competitive game; a
    transcript recorded without them still replays, and still fails when it is tampered with."""
    t = copy.deepcopy(transcripts[1])
    view = t["initial"]
    for entry in t["entries"]:
        view = apply(view, entry["delta"])
        entry["delta"] = [["set", [], _before_coop(view)]]
    t["initial"], t["final"] = _before_coop(t["initial"]), _before_coop(t["final"])
    assert "coop" not in t["final"] and "role" not in t["final"]["players"][0]
    report = replay(t)
    assert report.ok, report.problem
    t["final"]["result"]["winners"] = [9]
    assert replay(t).problem == "the final reveal is not the engine's"


def _flip_token(t: Transcript) -> None:
    proof = next(p for p in t["final"]["secrets"]["proofs"] if p["label"].startswith("token/"))
    other = {"success": "failure", "failure": "success", "1": "5", "2": "4", "3": "1"}
    proof["value"] = other.get(proof["value"], "2")


def _change_a_die(t: Transcript) -> None:
    for entry in t["entries"]:
        for draw in entry["draws"]:
            if draw[1] == 6:
                draw[2] = (draw[2] + 1) % 6
                return


def _change_a_salt(t: Transcript) -> None:
    proof = t["final"]["secrets"]["proofs"][3]
    proof["salt"] = ("00" if proof["salt"][:2] != "00" else "11") + proof["salt"][2:]


def _change_the_murderer(t: Transcript) -> None:
    proof = next(p for p in t["final"]["secrets"]["proofs"] if p["label"] == "murderer")
    proof["value"] = "S01" if proof["value"] != "S01" else "S02"


def _change_the_server_seed(t: Transcript) -> None:
    t["server_seed"] = "00" * 32


def _change_a_client_seed(t: Transcript) -> None:
    t["client_seeds"][1] = "ff" * 16


def _change_a_command(t: Transcript) -> None:
    for entry in t["entries"]:
        if entry["command"]["type"] == "coffee_break":
            entry["command"] = {"type": "proceed", "seat": entry["command"]["seat"]}
            return
    raise LookupError("no coffee break")


def _drop_an_entry(t: Transcript) -> None:
    del t["entries"][5]


def _change_a_delta(t: Transcript) -> None:
    for entry in t["entries"][3:]:
        for op in entry["delta"]:
            if op[0] == "set" and isinstance(op[2], int) and not isinstance(op[2], bool):
                op[2] += 1
                return


def _change_a_commitment(t: Transcript) -> None:
    for entry in t["entries"]:
        for op in entry["delta"]:
            if op[0] == "set" and op[1][:1] == ["commitments"] and len(op[1]) == 2:
                op[2] = "00" * 32
                return
    raise LookupError("no commitments op")


TAMPERING: dict[str, Callable[[Transcript], None]] = {
    "a token value": _flip_token,
    "a die": _change_a_die,
    "a salt": _change_a_salt,
    "the murderer": _change_the_murderer,
    "the server seed": _change_the_server_seed,
    "a client seed": _change_a_client_seed,
    "a command": _change_a_command,
    "a dropped entry": _drop_an_entry,
    "a public delta": _change_a_delta,
    "a commitment": _change_a_commitment,
}


@pytest.mark.parametrize("what", TAMPERING)
def test_tampering_fails_verification(transcripts: list[Transcript], what: str) -> None:
    failures = 0
    for t in transcripts[:10]:
        bad = copy.deepcopy(t)
        try:
            TAMPERING[what](bad)
        except LookupError:
            continue
        assert bad != t
        report = replay(bad)
        assert not report.ok, (what, t["table"])
        assert report.problem and report.code and report.code.startswith("verify/")
        failures += 1
    assert failures >= 5, f"tampering with {what} was tried on too few games"


def test_cli_verifies_and_reports_the_first_discrepancy(
    tmp_path: Path, transcripts: list[Transcript], capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(transcripts[0]))
    bad_t = copy.deepcopy(transcripts[0])
    _change_a_die(bad_t)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(bad_t))
    assert main(["verify", str(good)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"verified {good}") and "commitments" in out
    assert main(["verify", str(good), str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"FAILED {bad}: [verify/draw]" in out
