"""A table's mode (tables/lobby.py, tables/runner.py): kept in its meta at creation, refused with
a number of seats it is not played with, shown in the listing as the game's view names it, and
passed into the game's start."""

from __future__ import annotations

import pytest

from echoridge.store import keys
from echoridge.tables import Node, Settings
from echoridge.tables.errors import TableError
from echoridge.tables.tokens import token_hash
from echoridge_protocol import codec
from echoridge_protocol import messages as m
from tests.tables.test_runner import SUB, Viewer, welcome


def table_settings(seats: int, mode: str = "competitive") -> Settings:
    return Settings(seats, True, True, 0, mode=mode)


async def first_view(node: Node, table: str, seats: int) -> dict[str, object]:
    """Seat every player, start the table and return seat 0's first view (its welcome's)."""
    tokens = [(await node.lobby.join(table, f"p{i}", bytes([i + 1]) * 16))[1] for i in range(seats)]
    await node.start(table, tokens[0])
    viewer = Viewer(limit=100)
    await (await node.runner(table)).attach(viewer, 0, None, welcome, token_hash(tokens[0]))
    first = codec.decode_server(await viewer.outbox.get(), SUB)  # type: ignore[arg-type]
    assert isinstance(first, m.Welcome) and first.view is not None
    return first.view


@pytest.mark.parametrize(
    ("seats", "mode", "stored", "listed"),
    [
        (2, "cooperative", "cooperative", "cooperative"),
        (4, "cooperative", "cooperative", "cooperative"),
        (3, "competitive", "competitive", "competitive"),
        (1, "competitive", "competitive", "solo"),
        (1, "solo", "competitive", "solo"),  # solo is the competitive game of one seat
    ],
)
async def test_the_mode_is_kept_in_the_meta_and_listed(
    node: Node, seats: int, mode: str, stored: str, listed: str
) -> None:
    table, _, _ = await node.create(table_settings(seats, mode))
    assert (await node.lobby.meta(table))["mode"] == stored
    assert (await node.lobby.one(table)).mode == listed
    [info] = [t for t in (await node.lobby.list())[0] if t.table == table]
    assert info.mode == listed and info.seats == seats


@pytest.mark.parametrize(("seats", "mode"), [(1, "cooperative"), (2, "solo"), (4, "solo")])
async def test_a_mode_with_seats_it_is_not_played_with_is_refused(
    node: Node, seats: int, mode: str
) -> None:
    with pytest.raises(TableError) as refused:
        await node.create(table_settings(seats, mode))
    assert refused.value.code == "table/bad_mode"


@pytest.mark.parametrize("mode", ["coop", "", "Cooperative"])
async def test_an_unknown_mode_is_a_bad_field(node: Node, mode: str) -> None:
    with pytest.raises(TableError) as refused:
        await node.create(table_settings(2, mode))
    assert refused.value.code == "protocol/bad_field"


async def test_a_table_made_before_modes_is_competitive(node: Node) -> None:
    solo, _, _ = await node.create(table_settings(1))
    pair, _, _ = await node.create(table_settings(2))
    for table in (solo, pair):
        await node.storage.directory.redis.hdel(keys.meta(table), "mode")
    assert (await node.lobby.one(solo)).mode == "solo"
    assert (await node.lobby.one(pair)).mode == "competitive"
    assert (await first_view(node, pair, 2))["mode"] == "competitive"
    assert (await first_view(node, solo, 1))["mode"] == "solo"


@pytest.mark.parametrize("seats", [2, 3, 4])
async def test_a_started_cooperative_table_plays_the_cooperative_game(
    node: Node, seats: int
) -> None:
    table, _, _ = await node.create(table_settings(seats, "cooperative"))
    view = await first_view(node, table, seats)
    assert view["mode"] == "cooperative"
    assert view["coop"] is not None
    assert (await node.lobby.one(table)).mode == "cooperative"  # listed while it is played


async def test_a_competitive_table_plays_the_competitive_game(node: Node) -> None:
    table, _, _ = await node.create(table_settings(2))
    view = await first_view(node, table, 2)
    assert view["mode"] == "competitive" and view["coop"] is None
