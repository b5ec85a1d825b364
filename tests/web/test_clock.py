"""The decision clock in Chromium (SPEC.md §6.5): a `deadline` for the page's current version
shows whom the server will answer for and the seconds left, counting down; a new version ends
it. The message is put into the real server's stream by a websocket route (the server's own
deadlines are switched off in the browser tests: --decision-timeout 0)."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright (the dev extra)")

from playwright.sync_api import expect

from tests.e2e.conftest import ServerProcess
from tests.web.conftest import base_url
from tests.web.pilot import ACTIONS, play_turn
from tests.web.test_keepalive import Relay
from tests.web.test_play import create_table


def test_a_deadline_counts_down_until_the_table_moves_on(
    web_server: ServerProcess, people: Any
) -> None:
    eve = people(base_url(web_server), "Eve")
    relay = Relay()
    eve.page.route_web_socket(re.compile(r"/ws(\?|$)"), relay.handle)
    create_table(eve, "Eve", 2, bots="fill-normal")
    eve.page.click("#start-game")
    eve.wait_state(*ACTIONS, timeout=20)
    clock = eve.page.locator("[data-clock]")
    expect(clock).to_be_hidden()
    mirror = eve.synced_mirror()
    route = relay.seat_routes()[-1]["route"]
    table = eve.page.evaluate("() => window.echoridge.session.table")
    seat = mirror.view["you"]["seat"]
    at = int((time.time() + 30) * 1000)
    deadline = {"type": "deadline", "table": table, "version": mirror.version, "seats": [seat],
                "at": at}  # fmt: skip
    route.send(json.dumps(deadline))
    expect(clock).to_be_visible(timeout=5_000)
    first = clock.text_content() or ""
    assert re.match(r"You: (29|30) s left to answer", first), first
    expect(clock).not_to_have_text(first, timeout=5_000)  # it counts down
    stale = {**deadline, "version": mirror.version - 1}
    route.send(json.dumps(stale))  # an older version's deadline is over: not shown
    assert play_turn(eve, drove=False) is not None  # the table moves on: the clock goes
    expect(clock).to_be_hidden(timeout=5_000)
