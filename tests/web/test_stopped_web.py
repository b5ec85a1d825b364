"""A table rated with its bots, and a game the server's operator stops, in Chromium (issue 28).

Ann creates a table with the form's "Rated, with its bots as players" checked: the table is
listed with ``rate_bots``. She starts the game against a normal bot; the operator closes the
table through the admin API while it is played, and her page shows the end as it is: the game
was stopped, nobody wins (``result.decided_by`` ``stopped``), with the log's last line saying so.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright (the dev extra)")

from playwright.sync_api import expect

from echoridge.store.embedded import free_port
from echoridge_client.lobby import Lobby
from tests.e2e.conftest import ServerProcess
from tests.web.a11y import assert_accessible
from tests.web.conftest import SERVER_OPTIONS, base_url
from tests.web.pilot import ACTIONS
from tests.web.test_play import create_table

TOKEN = "adm-" + secrets.token_urlsafe(32)


async def _rate_bots(url: str, table: str) -> bool | None:
    lobby = await Lobby.connect(url)
    try:
        info = await lobby.table(table)
        return None if info is None else info.rate_bots
    finally:
        await lobby.close()


def test_a_rated_table_with_bots_and_a_game_the_operator_stops(
    servers: Callable[..., ServerProcess],
    people: Any,
    screenshots: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ECHORIDGE_ADMIN_TOKEN", TOKEN)  # (start_server passes it on)
    port = free_port()
    server = servers(*SERVER_OPTIONS, "--admin-port", str(port))
    ann = people(base_url(server), "Ann", viewport={"width": 1366, "height": 900})
    page = ann.page
    table = create_table(ann, "Ann", 2, bots="fill-normal", rate_bots=True)
    with ThreadPoolExecutor(1) as pool:  # (sync Playwright's own loop runs in this thread)
        assert pool.submit(asyncio.run, _rate_bots(server.url, table)).result() is True
    page.click("#start-game")
    ann.wait_state(*ACTIONS, timeout=20)

    stopped = httpx.post(
        f"http://127.0.0.1:{port}/admin/tables/{table}/close",
        headers={"authorization": f"Bearer {TOKEN}", "x-admin-name": "ops"},
        timeout=15,
        trust_env=False,
    )
    assert stopped.status_code == 200 and stopped.json()["status"] == "stopped", stopped.text
    ann.wait_state("over", timeout=20)
    view = ann.synced_mirror().view
    assert view is not None and view["result"]["decided_by"] == "stopped"
    panel = page.locator(".result")
    expect(panel).to_have_attribute("data-decided-by", "stopped")
    expect(panel.locator(".winners")).to_have_text(
        "The server's operator stopped this game before its end: nobody wins."
    )
    expect(panel).not_to_contain_text("everyone loses")
    expect(page.locator('#log li[data-kind="game_stopped"]')).to_contain_text(
        "The server's operator stopped the game before its end: nobody wins"
    )
    page.screenshot(path=str(screenshots / "stopped-game.png"), full_page=True)
    assert_accessible(page, "a game the operator stopped")
