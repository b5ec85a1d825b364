"""The end of a bot run: every finished table's transcript downloaded and checked (transcripts.py
verifies it; here also this run's seeds, the commitment given at creation, the versions the seats
saw and every command the server acknowledged), a few connections at a time."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from echoridge_client.botoptions import BotOptions, TableRun, subprotocol_of
from echoridge_client.botsessions import Pacer
from echoridge_client.errors import ClientError
from echoridge_client.lobby import Lobby
from echoridge_client.transcripts import fetch_transcript, unacknowledged, verify

CHECKERS = 8  # connections downloading and verifying transcripts


def check(run: TableRun, transcript: dict[str, Any], options: BotOptions) -> str | None:
    """Why the transcript does not verify, or None."""
    ok, what = verify(transcript, options.replay)
    if not ok:
        return what
    if transcript.get("server_seed_commit") != run.commit:
        return "the transcript's server seed commitment is not the one given at creation"
    seeds = transcript.get("client_seeds")
    # Our seats first, then the server's bots (``server_bots``: their seeds are the server's).
    if not isinstance(seeds, list) or len(seeds) != options.seats:
        return f"the transcript does not hold the client seeds of {options.seats} seats"
    if seeds[: len(run.seeds)] != [s.hex() for s in run.seeds]:
        return "the transcript's client seeds are not ours"
    entries = transcript.get("entries")
    if not isinstance(entries, list) or len(entries) != run.version:
        return f"the transcript does not hold the {run.version} versions the seats saw"
    run.lost = len(unacknowledged(transcript, run.acks))
    if run.lost:
        return f"{run.lost} acknowledged commands are not in it at their versions"
    return None


async def check_tables(runs: Sequence[TableRun], options: BotOptions) -> None:
    queue: asyncio.Queue[TableRun] = asyncio.Queue()
    for run in runs:
        if run.finished:
            queue.put_nowait(run)

    async def worker() -> None:
        lobby: Lobby | None = None
        pacer = Pacer(options.rate)
        try:
            while not queue.empty():
                run = queue.get_nowait()
                try:
                    if lobby is None:
                        lobby = await Lobby.connect(options.url, subprotocol_of(options, 0, 0))
                    transcript = await fetch_transcript(lobby, run.table, pacer)
                    problem = check(run, transcript, options)
                except (ClientError, TimeoutError, OSError) as exc:
                    problem = f"cannot download the transcript: {exc or type(exc).__name__}"
                    if lobby is not None:
                        await lobby.close()
                        lobby = None
                if problem is None:
                    run.verified = True
                else:
                    run.error = f"transcript: {problem}"
                await asyncio.sleep(0)  # let the other downloads go on between replays
        finally:
            if lobby is not None:
                await lobby.close()

    count = min(CHECKERS, max(1, queue.qsize()), options.concurrency or CHECKERS)
    await asyncio.gather(*(worker() for _ in range(count)))
