"""The browser's lobby lists the public tables newest first, a page at a time: "More tables"
shows the next page.  A server on a Redis of its own, so the listing holds only this test's
tables (made through the Python SDK, in a thread of its own: sync Playwright holds this
thread's event loop)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright (the dev extra)")

from playwright.sync_api import expect

from echoridge_client.lobby import Lobby
from tests.conftest import RedisServer
from tests.e2e.conftest import ServerProcess, start_server
from tests.web.conftest import SERVER_OPTIONS, base_url

TABLES = 53  # a page of 50 (the server's page size), and 3 more


@pytest.fixture
def lone_server(
    start_redis: Callable[..., RedisServer], tmp_path: Path
) -> Iterator[ServerProcess]:
    server = start_server(start_redis().url, tmp_path / "server.log", *SERVER_OPTIONS)
    yield server
    server.stop()


def make_tables(url: str, count: int) -> list[str]:
    """``count`` public tables, oldest first, made in a thread of their own."""
    made: list[str] = []

    async def make() -> None:
        lobby = await Lobby.connect(url)
        try:
            for _ in range(count):
                made.append((await lobby.create(2)).table)
        finally:
            await lobby.close()

    worker = threading.Thread(target=lambda: asyncio.run(make()))
    worker.start()
    worker.join(60)
    assert len(made) == count
    return made


def test_the_lobby_shows_the_newest_tables_first_and_more_on_request(
    lone_server: ServerProcess, people: Any
) -> None:
    made = make_tables(lone_server.url, TABLES)
    ann = people(base_url(lone_server), "Ann")
    ann.goto("/")
    rows = ann.page.locator("#tables tr[data-table]")
    expect(rows).to_have_count(50)
    more = ann.page.locator("#more-tables")
    expect(more).to_be_visible()
    shown = [rows.nth(i).get_attribute("data-table") for i in range(50)]
    assert shown == made[::-1][:50]  # newest first
    more.click()
    expect(rows).to_have_count(TABLES)
    expect(more).to_be_hidden()
    assert [rows.nth(i).get_attribute("data-table") for i in range(TABLES)] == made[::-1]
    ann.page.click("#refresh")  # a refresh keeps the pages shown
    expect(rows).to_have_count(TABLES)
