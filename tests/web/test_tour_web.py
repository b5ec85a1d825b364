"""The tour "Walk me through a turn" (issue 25, a first game that teaches), in Chromium against a
server: the tour started from How to play and from the first game's offer points, step by step,
at the real parts of the table page (the board, the turn's controls, the Force hand, the time
track, what just happened, the suspect notebook for the accusation), each outlined, in the
viewport and not covered by the tour's card, with its words; Back, Next, keyboard, Esc (the focus
goes back); the offer comes once per browser; a spectator's tour leaves out the hand and the
notebook and says so; the phone (390×844) too; axe finds nothing serious with the tour open.

One server for the module; each test plays its own short game against normal bots.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright (the dev extra)")

from playwright.sync_api import Page, expect

from tests.e2e.conftest import ServerProcess
from tests.web.conftest import base_url
from tests.web.pilot import ACTIONS, Person
from tests.web.test_at_the_board import bots_game

# The steps in order: (the tour's step id, the part it must outline, words its text must hold).
STEPS = [
    ("board", ".board-panel", ["drive", "1 hour"]),
    ("actions", ".action-panel", ["one action", "hours", "greyed out", "reason"]),
    ("force", "#force-hand", ["Force card", "before the drive", "after the action"]),
    ("track", ".track-panel", ["48", "day", "night"]),
    ("moves", "#last-moves", ["last moves", "Log"]),
    ("accuse", ".notebook-wrap", ["suspect", "innocent"]),
]
PLAIN = ["version", "(1,", "seat ", "protocol", "command", "w1", "w3"]  # words a player never sees

# Where the outlined part is, and whether the tour's card covers it: its box, the part of it in
# the viewport, the card's box, whether the point near its top (and at its middle, when the card
# could fit beside it) hits the part itself.
GEOMETRY = """() => {
    const el = document.querySelector('.tour-highlight');
    const card = document.querySelector('#tour');
    if (!el || !card) return null;
    const r = el.getBoundingClientRect();
    const c = card.getBoundingClientRect();
    const vw = document.documentElement.clientWidth, vh = innerHeight;
    const top = Math.max(r.top, 0), bottom = Math.min(r.bottom, vh);
    const left = Math.max(r.left, 0), right = Math.min(r.right, vw);
    const ox = Math.max(0, Math.min(right, c.right) - Math.max(left, c.left));
    const oy = Math.max(0, Math.min(bottom, c.bottom) - Math.max(top, c.top));
    const at = (y) => { const hit = document.elementFromPoint((left + right) / 2, y);
        return !!hit && el.contains(hit); };
    return {top: r.top, bottom: r.bottom, height: r.height, seen: bottom - top,
            seenWidth: right - left, card: c.height, overlap: ox * oy, vh, vw,
            hitTop: at(top + 8),
            cardInView: c.top >= 0 && c.bottom <= vh && c.left >= 0 && c.right <= vw};
}"""


def assert_step(page: Page, step: str, selector: str, words: list[str]) -> dict[str, Any]:
    """The tour shows `step`: its part (`selector`) outlined, alone, in the viewport, not covered
    by the card (when there is room for both), its text holding `words` in plain words."""
    tour = page.locator("#tour")
    expect(tour).to_have_attribute("data-step", step)
    expect(tour).to_have_attribute("role", "dialog")
    expect(page.locator(".tour-highlight")).to_have_count(1)
    assert page.locator(".tour-highlight").evaluate(f"(el) => el.matches({selector!r})"), step
    text = " ".join(tour.locator("#tour-text").inner_text().split())
    for word in words:
        assert word.lower() in text.lower(), (step, word, text)
    for word in PLAIN:
        assert word not in text, (step, word, text)
    title = tour.locator("#tour-title").inner_text()
    assert title and tour.get_attribute("aria-labelledby") == "tour-title"
    g = page.evaluate(GEOMETRY)
    assert g is not None, step
    # in the viewport: its top, and at least as much of it as fits beside the card
    assert 0 <= g["top"] < g["vh"], (step, g)
    assert g["seen"] >= min(g["height"], g["vh"] - g["card"] - 36) - 1, (step, g)
    assert g["seenWidth"] > 100 and g["cardInView"], (step, g)
    assert g["hitTop"], (step, g)  # not covered where it starts
    # the card covers none of it, unless the part is too tall for both to fit one above the other
    fits = g["height"] + g["card"] + 36 <= g["vh"]
    assert g["overlap"] == 0 or not fits, (step, g)
    return dict(g)


def start_game(person: Person) -> None:
    bots_game(person, person.name)
    person.wait_state(*ACTIONS, "waiting", timeout=30)


def test_the_tour_points_at_each_part_of_a_turn(
    module_server: ServerProcess, people: Any, screenshots: Path
) -> None:
    from tests.web.a11y import assert_accessible

    ann = people(base_url(module_server), "Ann", viewport={"width": 1366, "height": 900})
    page = ann.page
    start_game(ann)
    ann.wait_state(*ACTIONS, timeout=30)
    expect(page.locator("#tour-offer")).to_be_visible()  # (a first game: the offer is there)
    page.click("#help-open")
    expect(page.locator("dialog#help")).to_be_visible()
    page.click("#tour-start")
    expect(page.locator("dialog#help")).to_be_hidden()
    tour = page.locator("#tour")
    expect(tour).to_be_visible()
    expect(tour.locator("#tour-title")).to_be_focused()
    expect(tour.locator("#tour-count")).to_have_text(f"Step 1 of {len(STEPS)}")
    expect(tour.locator("#tour-back")).to_be_disabled()
    expect(page.locator("#tour-offer")).to_have_count(0)  # taking the tour answers the offer
    # the keyboard: Tab reaches Next (Back is disabled), Enter goes on, the focus stays there
    page.keyboard.press("Tab")
    expect(tour.locator("#tour-next")).to_be_focused()
    for i, (step, selector, words) in enumerate(STEPS):
        assert_step(page, step, selector, words)
        expect(tour.locator("#tour-count")).to_have_text(f"Step {i + 1} of {len(STEPS)}")
        if step == "board":
            page.screenshot(path=str(screenshots / "tour-board.png"))
        if step == "actions":
            page.screenshot(path=str(screenshots / "tour-actions.png"))
            assert_accessible(page, "the table with the tour open")
        if i == 1:  # Back and forth
            tour.locator("#tour-back").click()
            assert_step(page, *STEPS[0])
            tour.locator("#tour-next").click()
            assert_step(page, step, selector, words)
            tour.locator("#tour-next").focus()
        if i < len(STEPS) - 1:
            page.keyboard.press("Enter")
            expect(tour.locator("#tour-next")).to_be_focused()
    expect(tour.locator("#tour-next")).to_have_text("Done")
    # Esc closes it: no card, no outline, the focus back on How to play
    page.keyboard.press("Escape")
    expect(page.locator("#tour")).to_have_count(0)
    expect(page.locator(".tour-highlight")).to_have_count(0)
    expect(page.locator("#help-open")).to_be_focused()

    # a spectator of the same table: no hand, no notebook; the tour says it leaves them out
    table = page.get_attribute("#game", "data-table")
    cleo = people(base_url(module_server), "Cleo", viewport={"width": 1366, "height": 900})
    cleo.goto(f"/#/watch/{table}")
    expect(cleo.page.locator("#game")).to_have_attribute("data-state", "spectating")
    cleo.wait_version(1)
    expect(cleo.page.locator("#tour-offer")).to_have_count(0)  # a spectator gets no offer
    cleo.page.click("#help-open")
    cleo.page.click("#tour-start")
    watched = [s for s in STEPS if s[0] not in ("force", "accuse")]
    ctour = cleo.page.locator("#tour")
    expect(ctour.locator("#tour-count")).to_have_text(f"Step 1 of {len(watched)}")
    expect(ctour.locator("#tour-note")).to_contain_text("Force cards")
    expect(ctour.locator("#tour-note")).to_contain_text("name the murderer")
    for step, selector, _ in watched:
        expect(ctour).to_have_attribute("data-step", step)
        assert cleo.page.locator(".tour-highlight").evaluate(f"(el) => el.matches({selector!r})")
        ctour.locator("#tour-next").click()
    expect(cleo.page.locator("#tour")).to_have_count(0)  # Done closed it


def test_the_first_game_offers_the_tour_once(module_server: ServerProcess, people: Any) -> None:
    bea = people(base_url(module_server), "Bea")
    page = bea.page
    # the lobby's How to play has no tour yet: it says where it is found
    bea.goto("/")
    page.click("#help-open")
    expect(page.locator("#tour-start")).to_be_hidden()
    expect(page.locator("#tour-later")).to_be_visible()
    page.keyboard.press("Escape")
    start_game(bea)
    offer = page.locator("#tour-offer")
    expect(offer).to_be_visible()
    expect(offer).to_contain_text("Walk me through a turn")
    assert page.evaluate("document.activeElement.closest('#tour-offer') === null")  # no focus taken
    offer.locator("#tour-offer-no").click()
    expect(offer).to_have_count(0)
    assert page.evaluate("localStorage.getItem('echoridge.tour.offered')") == "1"
    # not again: after a reload, nor at a new game
    page.reload()
    bea.wait_state(*ACTIONS, "waiting", timeout=30)
    page.wait_for_timeout(300)
    expect(page.locator("#tour-offer")).to_have_count(0)
    start_game(bea)
    page.wait_for_timeout(300)
    expect(page.locator("#tour-offer")).to_have_count(0)
    # the tour itself is still there, in How to play
    page.click("#help-open")
    expect(page.locator("#tour-start")).to_be_visible()


def test_the_tour_on_a_phone(module_server: ServerProcess, people: Any, screenshots: Path) -> None:
    kim = people(base_url(module_server), "Kim", viewport={"width": 390, "height": 844})
    page = kim.page
    start_game(kim)
    kim.wait_state(*ACTIONS, timeout=30)
    page.click("#tour-offer-yes")
    tour = page.locator("#tour")
    expect(tour).to_be_visible()
    for i, (step, selector, words) in enumerate(STEPS):
        g = assert_step(page, step, selector, words)
        assert g["cardInView"], g
        if step == "actions":
            page.screenshot(path=str(screenshots / "tour-phone.png"))
        if i < len(STEPS) - 1:
            tour.locator("#tour-next").click()
    tour.locator("#tour-close").click()
    expect(page.locator("#tour")).to_have_count(0)
    expect(page.locator("#help-open")).to_be_focused()
    # the offer, once answered, is gone
    expect(page.locator("#tour-offer")).to_have_count(0)
