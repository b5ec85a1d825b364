"""Bot levels on one node and the session's redis-server (tables/botmoves.py, SPEC.md §4.4):
``handover_bot`` is kept in the table's metadata and plays the seats handed over, and a strong
bot whose search fails (a real process pool whose workers die at once) plays the normal
policy's move instead, so its table still finishes."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor

import pytest

from echoridge.tables import Node, Settings, TableError
from echoridge.tables.botmoves import StrongBots
from echoridge_rules import Status

GAME_SECONDS = 240


async def finished(node: Node, table: str) -> None:
    runner = await node.runner(table)
    async with asyncio.timeout(GAME_SECONDS):
        while runner.state.status is not Status.OVER:
            await asyncio.sleep(0.05)
            runner = await node.runner(table)


async def hand_over_all(node: Node, table: str, seats: int) -> None:
    """Every seat asks the server to play it (``play_for_me``)."""
    runner = await node.runner(table)
    for seat in range(seats):
        plain = {"type": "play_for_me", "seat": seat}
        async with asyncio.timeout(10):
            while True:  # (a bot may move meanwhile: again at the new version)
                outcome = await runner.submit(seat, f"self-{seat}", runner.version, plain)
                if outcome.outcome != "stale":
                    break
        assert outcome.outcome == "accepted", outcome


async def test_the_handover_level_is_kept_with_the_table_and_plays_the_seats_handed_over(
    node: Node,
) -> None:
    node.bot_delay = 0.0
    node.strong_bots = StrongBots(processes=0, budget=0.01)  # (in a thread: the test's own)
    table, _, _ = await node.create(Settings(2, True, True, 0, handover_bot="strong"))
    meta = await node.lobby.meta(table)
    assert meta["handover_bot"] == "strong"
    assert (await node.lobby.one(table)).handover_bot == "strong"
    _, token = await node.lobby.join(table, "Ana", b"\x01" * 16)
    await node.lobby.join(table, "Ben", b"\x02" * 16)
    await node.start(table, token)
    runner = await node.runner(table)
    assert [runner._bot_kind(seat) for seat in (0, 1)] == ["strong", "strong"]
    await hand_over_all(node, table, 2)
    await finished(node, table)
    assert node.strong_bots.searches > 0  # the seats were played by the strong bot
    view = (await node.runner(table)).state.players
    assert [p.bot for p in view] == ["", ""]  # (people's seats: handed over, not bots)
    # a rematch keeps the level
    new, _, _ = await node.rematch(table, token)
    assert (await node.lobby.meta(new))["handover_bot"] == "strong"


async def test_a_table_made_without_a_level_hands_over_to_the_normal_bot(node: Node) -> None:
    table, _, _ = await node.create(Settings(2, True, True, 0))
    assert (await node.lobby.meta(table))["handover_bot"] == "normal"
    _, token = await node.lobby.join(table, "Ana", b"\x01" * 16)
    await node.lobby.add_bot(table, token, "easy")
    await node.start(table, token)
    runner = await node.runner(table)
    assert [runner._bot_kind(seat) for seat in (0, 1)] == ["normal", "easy"]
    runner.meta.pop("handover_bot")  # a table made before levels
    assert runner._bot_kind(0) == "normal"


@pytest.mark.parametrize("level", ["expert", "random", "greedy", ""])
async def test_a_handover_level_that_is_not_a_level_is_refused(node: Node, level: str) -> None:
    with pytest.raises(TableError) as refused:
        await node.create(Settings(2, True, True, 0, handover_bot=level))
    assert refused.value.code == "protocol/bad_field"


def dying_pool(processes: int) -> Executor:
    """A real pool whose workers exit as they start: every search in it fails."""
    context = multiprocessing.get_context("fork")  # (the child only exits)
    return ProcessPoolExecutor(processes, mp_context=context, initializer=os._exit, initargs=(3,))


async def test_a_failing_pool_falls_back_to_the_normal_bot_and_the_table_finishes(
    node: Node,
) -> None:
    node.bot_delay = 0.0
    made: list[Executor] = []

    def factory(processes: int) -> Executor:
        made.append(dying_pool(processes))
        return made[-1]

    node.strong_bots = StrongBots(processes=1, budget=0.01, factory=factory)
    table, _, _ = await node.create(Settings(2, True, True, 0))
    _, token = await node.lobby.join(table, "Ana", b"\x01" * 16)
    await node.lobby.add_bot(table, token, "strong")
    await node.start(table, token)
    await hand_over_all(node, table, 1)  # seat 0: the normal bot; seat 1: the strong one
    await finished(node, table)
    bots = node.strong_bots
    assert bots.searches > 0 and bots.fallbacks == bots.searches
    # each broken pool was dropped for a new one (two searches may fail on one pool)
    assert 1 < len(made) <= bots.fallbacks
    assert bots._pool is None or bots._pool is made[-1]
    for pool in made:
        pool.shutdown(wait=True)


def test_a_second_failure_on_a_dropped_pool_keeps_its_replacement() -> None:
    made: list[Executor] = []

    def factory(processes: int) -> Executor:
        made.append(ThreadPoolExecutor(processes))
        return made[-1]

    bots = StrongBots(processes=1, budget=0.01, factory=factory)
    first = bots._executor()
    bots._discard(first)  # the first search to fail on it drops it
    second = bots._executor()
    bots._discard(first)  # a second search failing on the same old pool
    assert second is not None and bots._pool is second and len(made) == 2
    bots.close()
    assert bots._pool is None
