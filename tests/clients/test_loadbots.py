"""``echo-ridge bots`` and ``echo-ridge verify URL TABLE`` against real server processes."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest

from echoridge.cli import main
from echoridge_client.botsessions import Ack
from echoridge_client.loadbots import BotOptions, ok, percentile, run_tables
from echoridge_client.lobby import Lobby
from echoridge_client.transcripts import unacknowledged
from tests.e2e.conftest import ServerProcess, server, servers  # noqa: F401


def bots(*args: str, timeout: float = 300) -> tuple[int, dict[str, Any], str]:
    """Run ``echo-ridge bots`` as a command: exit status, its JSON line, stderr."""
    done = subprocess.run(
        [sys.executable, "-m", "echoridge.cli", "bots", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1, done.stdout + done.stderr
    return done.returncode, json.loads(lines[0]), done.stderr


@pytest.mark.parametrize("subprotocol", ["msgpack", "json"])
def test_bots_play_verify_and_report(server: ServerProcess, subprotocol: str) -> None:  # noqa: F811
    status, report, err = bots(
        server.url,
        *("--tables", "3", "--players", "2", "--spectators", "1"),
        *("--subprotocol", subprotocol, "--rate", "0", "--concurrency", "2"),
    )
    assert status == 0, (report, err)
    assert report["tables"] == report["finished"] == report["verified"] == 3
    assert report["errors"] == 0 and "error_samples" not in report
    assert report["verify"] == "replay"
    assert report["connections"] == 3 * 3
    accepted = report["accepted"]
    assert accepted > 0 and report["rejected"] == 0
    assert report["commands"] == accepted + report["stale"]
    assert report["acknowledged"] == accepted and report["lost"] == 0  # all in the transcripts
    # Each of the 3 sessions of a table gets a delta per version (commands and the start).
    assert report["deliveries"] >= 3 * accepted
    assert 0 < report["p50_ms"] <= report["p99_ms"] <= report["max_ms"]
    assert report["seconds"] > 0
    sub = {"msgpack": "echoridge.v2.msgpack", "json": "echoridge.v2.json"}[subprotocol]
    assert set(report["delta_bytes"]) == {sub}


async def test_mixed_subprotocols_greedy_bots_and_verify_url(
    server: ServerProcess,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    options = BotOptions(
        server.url, tables=2, players=3, spectators=2, bot="greedy", subprotocol="mixed",
        rate=0, seed=7,
    )  # fmt: skip
    report, runs = await run_tables(options)
    assert report["finished"] == report["verified"] == 2 and report["errors"] == 0
    assert set(report["delta_bytes"]) == {"echoridge.v2.msgpack", "echoridge.v2.json"}
    assert report["greedy_fallbacks"] == 0

    # `echo-ridge verify URL TABLE` on one of them.
    table = runs[0].table
    capsys.readouterr()
    assert await _verify(server.url, table) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"verified {table}: ") and " commands, " in out
    assert await _verify(server.url, runs[0].table, runs[1].table) == 0


def test_an_acknowledged_command_missing_from_the_transcript_is_counted_lost() -> None:
    drive = {"type": "drive", "seat": 1, "path": [[3, 3], [3, 4]]}
    transcript = {"entries": [{"version": 1, "seat": None, "command": {"type": "start_game"}},
                              {"version": 2, "seat": 1, "command": drive}]}  # fmt: skip
    assert unacknowledged(transcript, [Ack(1, 2, drive)]) == []
    lost = [Ack(1, 3, drive), Ack(0, 2, {**drive, "seat": 0}), Ack(1, 2, {**drive, "path": []})]
    assert unacknowledged(transcript, lost) == lost


async def _verify(url: str, *tables: str) -> int:
    """``echo-ridge verify URL TABLE...`` (it runs its own event loop: in a thread)."""
    return await asyncio.to_thread(main, ["verify", url, *tables])


async def test_verify_url_reports_a_table_that_is_not_started_or_unknown(
    server: ServerProcess,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    lobby = await Lobby.connect(server.url)
    try:
        table = (await lobby.create(2)).table
        await lobby.join(table, "someone")
    finally:
        await lobby.close()
    assert await _verify(server.url, table, "t-nosuchtable") == 1
    out = capsys.readouterr().out
    # (SPEC.md §4.5: not_started before the start, not_finished during the game)
    assert f"FAILED {table}: cannot download it: table/not_started" in out
    assert "FAILED t-nosuchtable: cannot download it: table/not_found" in out


def test_bots_pace_themselves_under_a_default_rate_limit(
    servers: Callable[..., ServerProcess],  # noqa: F811
) -> None:
    """Against a server that allows 10 messages a second per connection (the default), the
    default --rate of 9 a second keeps every command within the limit."""
    limited = servers("--commands-per-second", "10")
    status, report, err = bots(limited.url, "--tables", "2", "--players", "1", "--seed", "3")
    assert status == 0, (report, err)
    assert report["finished"] == report["verified"] == 2 and report["errors"] == 0
    assert report["rate"] == 9.0 and report["rejected"] == 0
    # Each seat sent at most 9 commands a second (the first at once).
    assert report["play_seconds"] >= (report["commands"] / 2 - 1) / 9 * 0.9


def test_bots_wait_for_room_when_the_server_caps_their_address(
    servers: Callable[..., ServerProcess],  # noqa: F811
) -> None:
    """Against a server that allows one address 4 connections, 3 tables of a seat and a
    spectator (9 connections while they are set up, with the lobby's) are refused with HTTP 429
    (before, those tables were lost): the bots wait as the server asks (Retry-After), open a
    refused table's connections again one table at a time, finish every game, and say once
    which server flag to raise for local load."""
    capped = servers("--max-connections-per-ip", "4")
    status, report, err = bots(
        capped.url,
        *("--tables", "3", "--players", "1", "--spectators", "1", "--rate", "0"),
        *("--seed", "5", "--timeout", "120"),
    )
    assert status == 0, (report, err)
    assert report["tables"] == report["finished"] == report["verified"] == 3
    assert report["errors"] == 0 and report["lost"] == 0
    assert report["busy"] > 0
    assert err.count("--max-connections-per-ip") == 1 and "HTTP 429" in err


def test_bots_exit_non_zero_when_tables_fail(server: ServerProcess) -> None:  # noqa: F811
    status, report, _ = bots(
        server.url, "--tables", "2", "--players", "4", "--rate", "0", "--timeout", "0.05"
    )  # (four seats: a solo game can end within 0.05 s on a fast day)
    assert status == 1
    assert report["errors"] == 2 and report["finished"] == 0 and report["verified"] == 0
    assert "did not finish in 0.05 s" in report["error_samples"][0]


def test_bots_play_cooperative_tables(server: ServerProcess) -> None:  # noqa: F811
    status, report, err = bots(
        server.url, *("--tables", "2", "--players", "3", "--mode", "coop", "--rate", "0")
    )
    assert status == 0, (report, err)
    assert report["tables"] == report["finished"] == report["verified"] == 2
    assert report["mode"] == "cooperative" and report["errors"] == 0 and report["lost"] == 0


async def test_bots_seat_server_bots_of_the_kind_asked_for(server: ServerProcess) -> None:  # noqa: F811
    options = BotOptions(
        server.url, tables=2, players=2, server_bots="easy", server_bot_seats=2, rate=0, seed=5
    )
    report, runs = await run_tables(options)
    assert ok(report), report
    assert report["server_bots"] == "easy" and report["server_bot_seats"] == 2
    lobby = await Lobby.connect(server.url)
    try:
        for run in runs:
            info = await lobby.table(run.table)
            assert info is not None and info.status == "over"
            assert [(p.seat, p.bot) for p in info.players] == [
                (0, None), (1, None), (2, "easy"), (3, "easy")
            ]  # fmt: skip
    finally:
        await lobby.close()
    # Only our seats' commands are timed and acknowledged to us (the bots played their own).
    assert {ack.seat for run in runs for ack in run.acks} == {0, 1}


def test_bots_refuse_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bots", "http://localhost:1/ws"]) == 2
    assert "ws://" in capsys.readouterr().err
    assert main(["bots", "ws://localhost:1/ws", "--mode", "coop", "--players", "1"]) == 2
    assert "--mode coop needs 2 to 4 --players" in capsys.readouterr().err
    bots_too = ["--players", "3", "--server-bots", "strong", "--server-bot-seats", "2"]
    assert main(["bots", "ws://localhost:1/ws", *bots_too]) == 2
    assert "--players and --server-bot-seats make 2 to 4 seats" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["bots", "ws://localhost:1/ws", "--players", "5"])


def test_percentile_is_nearest_rank() -> None:
    assert percentile([], 99) == 0.0
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == 50.0
    assert percentile(values, 99) == 99.0
    assert percentile(values, 100) == 100.0
    assert percentile([3.0, 1.0, 2.0], 50) == 2.0
