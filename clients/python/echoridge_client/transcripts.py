"""Finished games' transcripts for the bots and ``echo-ridge verify URL TABLE``: downloading
them, verifying them, and checking that every command the server acknowledged is in them.

Verification is the protocol checks (``echoridge_protocol.verify``), or a replay the caller
gives: the server's tools pass the engine's (``echoridge.transcript.replay``).  The SDK itself
never imports the server package.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Sequence
from typing import Any

from echoridge_client.botsessions import Ack, Pacer
from echoridge_client.errors import ClientError, Refused
from echoridge_client.lobby import Lobby
from echoridge_protocol import messages as m
from echoridge_protocol.verify import verify_transcript

NOT_FINISHED_WAIT = 10.0  # seconds to wait for a finished table to be marked over


async def fetch_transcript(
    lobby: Lobby, table: str, pacer: Pacer | None = None, wait: float = NOT_FINISHED_WAIT
) -> dict[str, Any]:
    """A finished table's transcript; waits up to ``wait`` seconds for a just-finished table to
    be marked over (the server does it right after the last command)."""
    deadline = time.monotonic() + wait
    while True:
        if pacer is not None:
            await pacer.wait()
        try:
            return await lobby.transcript(table)
        except Refused as exc:
            if exc.code != "table/not_finished" or time.monotonic() > deadline:
                raise
        await asyncio.sleep(0.1)


Replay = Callable[[dict[str, Any]], Any]  # a transcript -> a report (ok, counts, code, problem)


def verify(transcript: dict[str, Any], replay: Replay | None = None) -> tuple[bool, str]:
    """``replay`` (an engine replay) if given, else the protocol checks.  ``(ok, what)``: what
    was counted, or what failed."""
    report = (replay or verify_transcript)(transcript)
    if report.ok:
        return True, ", ".join(f"{v} {k}" for k, v in report.counts.items())
    return False, f"[{report.code}] {report.problem}"


def unacknowledged(transcript: dict[str, Any], acks: Sequence[Ack]) -> list[Ack]:
    """The acknowledged commands that the transcript does not hold at their version, from
    their seat (a command the server said it applied, and lost)."""
    entries = transcript.get("entries")
    by_version = {e.get("version"): e for e in entries} if isinstance(entries, list) else {}
    lost = []
    for ack in acks:
        entry = by_version.get(ack.version)
        if entry is None or entry.get("seat") != ack.seat or entry.get("command") != ack.command:
            lost.append(ack)
    return lost


async def download_transcripts(
    url: str, tables: Sequence[str], subprotocol: str = m.SUBPROTOCOL_MSGPACK
) -> list[dict[str, Any] | ClientError]:
    """Each table's transcript, or the error that kept it from being downloaded."""
    lobby = await Lobby.connect(url, subprotocol)
    out: list[dict[str, Any] | ClientError] = []
    pacer = Pacer(9.0)  # within a default server's rate limit
    try:
        for table in tables:
            try:
                out.append(await fetch_transcript(lobby, table, pacer, wait=0))
            except ClientError as exc:
                out.append(exc)
    finally:
        with contextlib.suppress(Exception):
            await lobby.close()
    return out
