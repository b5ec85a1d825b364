"""The seat setting "pass when I have nothing to play" (issue 25, SPEC.md §6.6, ruling 47) on
a real server: a seat that holds a Force card it cannot play in a W3/W4 window is passed by the
server after a short random pause while its ``auto_pass`` is on, and waits for its player once
it is off; the setting is the seat's own (nobody else's log learns it) and the game's
transcript verifies and replays."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from echoridge.transcript import replay
from echoridge_client.lobby import Lobby
from echoridge_client.policies import RandomPolicy
from echoridge_client.session import Seat, Spectator
from echoridge_protocol.verify import verify_transcript
from tests.e2e.conftest import ServerProcess, servers  # noqa: F401

DELAY = 0.2  # --auto-pass-delay: the server passes after 0.1 to 0.3 s


@pytest.fixture
def server(servers: Callable[..., ServerProcess]) -> ServerProcess:  # noqa: F811
    return servers("--bot-delay", "0.02", "--auto-pass-delay", str(DELAY))


def empty_window(seat: Seat) -> bool:
    """The seat's Force card window with nothing in it: ``proceed`` is all it may send."""
    turn = seat.view.get("turn") or {}
    legal = seat.legal
    return (
        turn.get("phase") in ("w3", "w4")
        and len(legal) == 1
        and legal[0]["type"] == "proceed"
        and not seat.played_by_server()
    )


async def play_a_game(server: ServerProcess, seed: int, off_from_start: bool) -> tuple[int, int]:
    """Ann (seat 0, random moves) against a greedy server bot, to the end; a spectator watches.
    Her ``auto_pass`` is on until the server has passed a window for her (or from the start
    with ``off_from_start``), then off.  The windows the server passed for her, and those it
    left to her while off (she waits, then answers), in that order."""
    lobby = await Lobby.connect(server.url)
    table = (await lobby.create(2)).table
    token = (await lobby.join(table, "Ann")).token
    await lobby.add_bot(table, token, "greedy")
    await lobby.start(table, token)
    ann = await Seat.sit(server.url, table, token)
    watcher = await Spectator.watch(server.url, table)
    policy = RandomPolicy(seed)  # (greedy plays its Force cards at once: few empty windows)
    passed = waited = 0
    try:
        assert ann.you["auto_pass"] is True  # on as every seat starts
        if off_from_start:
            assert (await ann.auto_pass(False)).outcome == "accepted"
        async with asyncio.timeout(120):
            while not ann.over:
                legal = ann.legal
                if not legal or ann.played_by_server():
                    await ann.wait(lambda v=ann.version: ann.version != v or ann.over)
                    continue
                if empty_window(ann) and ann.you["auto_pass"]:
                    version = ann.version
                    # Ann sends nothing: the server proceeds for her, soon
                    await ann.wait(lambda v=version: ann.version != v or ann.over, timeout=10)
                    passed += 1
                    result = await ann.auto_pass(False)
                    assert result.outcome == "accepted", result
                    assert ann.you["auto_pass"] is False
                    assert {"type": "auto_pass", "seat": 0, "on": True} in ann.controls
                    continue
                if empty_window(ann):
                    version = ann.version
                    await asyncio.sleep(5 * DELAY)  # the server leaves it to her now
                    assert ann.version == version and empty_window(ann)
                    waited += 1
                result = await ann.act(policy.choose(ann.view, legal))
                assert result.outcome in ("accepted", "rejected"), result
        mine = [e for e in ann.log if e["kind"] == "auto_pass_set"]
        turned_off = off_from_start or passed > 0
        assert mine == [{"kind": "auto_pass_set", "seat": 0, "on": False, "to": [0]}] * turned_off
        await watcher.wait(lambda: watcher.over, timeout=30)
        assert not [e for e in watcher.log if e["kind"] == "auto_pass_set"]  # Ann's own affair
        transcript = await lobby.transcript(table)
        assert verify_transcript(transcript).ok
        replay(transcript)  # the server's proceed is an ordinary command of Ann's: no clock
        return passed, waited
    finally:
        await ann.close()
        await watcher.close()
        await lobby.close()


async def test_the_server_passes_an_empty_window_while_auto_pass_is_on(
    server: ServerProcess,
) -> None:
    passed = waited = 0
    for game in range(8):  # an empty window comes in most games, not in every one
        p, w = await play_a_game(server, game, off_from_start=passed > 0)
        passed, waited = passed + p, waited + w
        if passed and waited:
            break
    assert passed == 1, "no W3/W4 window held only proceed for Ann in 8 games"
    assert waited >= 1, "no empty window came after Ann turned auto_pass off"
