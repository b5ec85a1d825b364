"""A node keeps nothing of a table once the table's runner is gone (tables/node.py): no runner
and no reaper, whether the runner was reaped idle or the table closed before its start (by its
creator, or expired), so a node that serves tables for months holds only the live ones
(issue 24.12)."""

from __future__ import annotations

from echoridge.tables import Node, Settings


async def test_a_table_closed_before_its_start_leaves_no_reaper(node: Node) -> None:
    table, _, owner = await node.create(Settings(2, True, True, 0))
    await node.runner(table)  # (a session here opened it: its reaper is armed)
    assert table in node._reapers
    await node.close_table(table, owner)
    assert table not in node.runners
    assert table not in node._reapers  # (it used to stay, fired, for the life of the process)


async def test_a_reaped_runner_leaves_no_reaper(node: Node) -> None:
    table, _, _ = await node.create(Settings(2, True, True, 0))
    await node.runner(table)
    await node._reap(table)  # (what the reaper does once the runner is idle)
    assert table not in node.runners and table not in node._reapers
