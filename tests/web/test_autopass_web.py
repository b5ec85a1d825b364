"""The seat setting "pass when I have nothing to play" in the browser (issue 25, SPEC.md §6.6):
a checkbox among the seat's controls shows ``you.auto_pass`` (on as a seat starts); unticking
it sends the ``auto_pass`` seat command the server offers, and the page then shows the server's
new value (and the seat's own log says so); ticking it turns it back on. A spectator has none.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright (the dev extra)")

from playwright.sync_api import expect

from tests.e2e.conftest import ServerProcess
from tests.web.conftest import base_url
from tests.web.pilot import ACTIONS, Person
from tests.web.test_at_the_board import bots_game


def auto_pass(person: Person) -> bool:
    view = person.synced_mirror().view
    assert view is not None
    return bool(view["you"]["auto_pass"])


def test_the_seat_turns_auto_pass_off_and_on(module_server: ServerProcess, people: Any) -> None:
    kim = people(base_url(module_server), "Kim")
    table = bots_game(kim, "Kim")
    kim.wait_state(*ACTIONS, "waiting", timeout=30)
    box = kim.page.locator("#auto-pass")
    expect(box).to_be_checked()
    assert auto_pass(kim)
    expect(kim.page.locator('label[for="auto-pass"]')).to_have_text(
        "Pass when I have nothing to play"
    )

    box.uncheck()
    kim.page.wait_for_function(
        "() => window.echoridge.session.view.you.auto_pass === false", timeout=15000
    )
    expect(box).not_to_be_checked()
    assert not auto_pass(kim)
    expect(kim.page.locator("#log")).to_contain_text("will answer every Force card window")

    box.check()
    kim.page.wait_for_function(
        "() => window.echoridge.session.view.you.auto_pass === true", timeout=15000
    )
    expect(box).to_be_checked()
    assert auto_pass(kim)

    # a spectator has no seat, so no such setting
    watcher = people(base_url(module_server), "Watcher")
    watcher.goto(f"/#/watch/{table}")
    expect(watcher.page.locator("#game")).to_have_attribute("data-state", "spectating")
    watcher.wait_version(1)
    expect(watcher.page.locator("#auto-pass")).to_have_count(0)
