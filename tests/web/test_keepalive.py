"""connection.js's keep-alive in Chromium (SPEC.md §2.4): a page cannot see websocket pings, so
after a quiet spell it sends `ping`; a server that answers keeps the connection, and one that
goes silent (here: a Playwright websocket route between the page and a real server that stops
passing the server's frames on) is treated as a dropped connection: the page reconnects with
`resume` and plays on. The spells are shortened with window.echoridgeKeepAlive."""

from __future__ import annotations

import json
import re
import threading
import time
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright (the dev extra)")

from playwright.sync_api import expect

from tests.e2e.conftest import ServerProcess
from tests.web.conftest import base_url
from tests.web.pilot import ACTIONS, play_turn
from tests.web.test_play import assert_page_shows, create_table

QUIET, GRACE = 1.0, 1.0


class Relay:
    """Every websocket of a page goes through here to the real server. ``silence()`` makes the
    server look dead to the seat's connection of the moment: its frames are dropped."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.routes: list[dict[str, Any]] = []

    def handle(self, route: Any) -> None:
        server = route.connect_to_server()
        record: dict[str, Any] = {"sent": [], "received": [], "silent": False, "route": route}
        with self.lock:
            self.routes.append(record)

        def from_page(message: Any) -> None:
            record["sent"].append(message)
            server.send(message)

        def from_server(message: Any) -> None:
            if record["silent"]:
                return
            record["received"].append(message)
            route.send(message)

        route.on_message(from_page)
        server.on_message(from_server)

    def seat_routes(self) -> list[dict[str, Any]]:
        with self.lock:
            return [r for r in self.routes if any('"token"' in str(m) for m in r["sent"][:1])]

    def silence(self) -> dict[str, Any]:
        route = self.seat_routes()[-1]
        route["silent"] = True
        return route


def types(messages: list[Any]) -> list[str]:
    return [json.loads(m).get("type") for m in messages if isinstance(m, str)]


def test_a_silent_server_leads_to_a_reconnect_with_resume(
    web_server: ServerProcess, people: Any
) -> None:
    dan = people(base_url(web_server), "Dan")
    relay = Relay()
    dan.context.add_init_script(f"window.echoridgeKeepAlive = {{quiet: {QUIET}, grace: {GRACE}}}")
    dan.page.route_web_socket(re.compile(r"/ws(\?|$)"), relay.handle)
    create_table(dan, "Dan", 2, bots="fill-normal")

    # Waiting room: nothing happens at the table, the page pings and the server's pongs keep
    # the connection.
    dan.page.wait_for_selector("#start-game")
    first = relay.seat_routes()[-1]
    dan.page.wait_for_timeout(int((QUIET + GRACE) * 3 * 1000))
    assert relay.seat_routes()[-1] is first, "a live connection was dropped"
    assert types(first["sent"]).count("ping") >= 2
    assert "pong" in types(first["received"])
    assert dan.game_attr("connection") == "live"

    dan.page.click("#start-game")
    dan.wait_state(*ACTIONS, timeout=20)
    assert play_turn(dan, drove=False) is not None
    before = dan.synced_mirror().version

    # The server goes silent for this connection: a ping, then after the grace a reconnect.
    dan.page.evaluate("""() => {
        window.connectionStates = [];
        const game = document.querySelector('#game');
        new MutationObserver(() => window.connectionStates.push(game.dataset.connection))
            .observe(game, {attributes: true, attributeFilter: ['data-connection']});
    }""")
    silent = relay.silence()
    start = time.monotonic()
    while relay.seat_routes()[-1] is silent:
        assert time.monotonic() - start < 10, "no reconnect after the server went silent"
        dan.page.wait_for_timeout(50)
    assert time.monotonic() - start >= QUIET + GRACE * 0.5  # not before the ping's grace
    expect(dan.page.locator("#game")).to_have_attribute("data-connection", "live", timeout=20_000)
    assert "reconnecting" in dan.page.evaluate("window.connectionStates")
    assert "ping" in types(silent["sent"])
    again = relay.seat_routes()[-1]
    assert again is not silent
    hello = json.loads(again["sent"][0])
    assert hello["type"] == "hello" and hello["resume"]["version"] >= before

    # and it plays on, its view the server's
    dan.wait_state(*ACTIONS, timeout=30)
    assert play_turn(dan, drove=True) is not None
    assert_page_shows(dan)
