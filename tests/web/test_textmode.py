"""The table for screen readers (issue 30), in Chromium against a real server: a whole game played
only through the text mode's command box (#/table/ID?mode=text) and what it says, read through the
accessibility tree (role locators and aria snapshots), never by clicking the page.

Rosa, the other seat, is the SDK's greedy bot (echoridge_client, in a thread of its own). Ann
joins in text mode by typing her name, and plays every turn by typed commands chosen from what the
page announced: "p" at a Force card moment, the highest risk of a Call for Backup or a Stakeout
when offered, else the action of the most hours (so the game ends soon), "1" for a decision.
Asserted: the announcements of a risk result, of Rosa's moves and of the end; the informative
commands (help, where, time track, officers, suspects, clocks, last moves, a block), an unknown
command, the sound cues and their switch (remembered), a refusal worded from its code; the
spectator's text mode in Spanish (#/watch/ID?mode=text, locale es-ES) saying the same game in
Spanish; axe with no critical or serious violation on both; screenshots.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright (the dev extra)")

from playwright.sync_api import Page, expect

from echoridge_client.lobby import Lobby
from echoridge_client.policies import GreedyPolicy
from echoridge_client.session import Seat
from tests.e2e.conftest import ServerProcess
from tests.web.a11y import assert_accessible
from tests.web.conftest import base_url

GAME_SECONDS = 90
# a risk's result as the log catalogue words it (logtext.en.json)
RISKED = re.compile(
    r"called for backup: risk \d, die [\d, ]+: (success|failure)"
    r"|stakeout on .+, risk \d: (success|failure)"
)
ISOLATES = re.compile("[\u2066-\u2069]")
PARTS = ("Your turn", "What happens", "The city", "Officers", "Time track", "Your case file", "Log")


async def _table_with_rosa(url: str) -> tuple[str, str]:
    """A table for two with Rosa (the SDK) in one seat: (table, Rosa's token)."""
    lobby = await Lobby.connect(url)
    try:
        created = await lobby.create(2)
        joined = await lobby.join(created.table, "Rosa")
        return created.table, joined.token
    finally:
        await lobby.close()


async def _rosa_plays(url: str, table: str, token: str) -> bool:
    """Starts the game once Ann sits, and plays Rosa's seat greedily to the end."""
    lobby = await Lobby.connect(url)
    try:
        for _ in range(200):
            info = await lobby.table(table)
            if info is not None and info.taken == 2:
                break
            await asyncio.sleep(0.05)
        await lobby.start(table, token)
    finally:
        await lobby.close()
    seat = await Seat.sit(url, table, token)
    try:
        await seat.play(GreedyPolicy(seed=7), timeout=GAME_SECONDS)
        return seat.over
    finally:
        await seat.close()


@pytest.fixture
def pool() -> Iterator[ThreadPoolExecutor]:
    executor = ThreadPoolExecutor(2)  # (sync Playwright's own loop runs in this thread)
    yield executor
    executor.shutdown(wait=False, cancel_futures=True)  # (a failed test: Rosa ends with the server)


def plain(text: str) -> str:
    return ISOLATES.sub("", " ".join(text.split()))


HEAR = """() => {
    const region = document.querySelector('#text-happenings');
    const heard = (p) => ({text: p.textContent, prompt: p.classList.contains('prompt')});
    window.heard = [...region.querySelectorAll('p')].map(heard);
    const observer = new MutationObserver((changes) => changes.forEach((c) =>
        c.addedNodes.forEach((n) => window.heard.push(heard(n)))));
    observer.observe(region, {childList: true});
}"""


def listen(page: Page) -> None:
    """From now on, everything the live region says is kept in order (as a screen reader
    hears it: each paragraph added), whatever it later drops."""
    page.get_by_role("log", name=re.compile("What happens|Lo que pasa")).wait_for()
    page.evaluate(HEAR)


def said(page: Page) -> list[str]:
    """Every paragraph the live region has said since listen(), in order."""
    return [plain(text) for text in page.evaluate("() => window.heard.map((h) => h.text)")]


def answer(page: Page) -> str:
    return plain(page.locator("#text-answer").inner_text())


def type_command(page: Page, line: str) -> str:
    """Types `line` in the command box, presses Enter, and returns the answer said."""
    box = page.get_by_role("combobox", name=re.compile("^(Command|Orden)"))
    box.fill(line)
    box.press("Enter")
    page.wait_for_function("() => document.querySelector('#game').dataset.busy === '0'")
    return answer(page)


def my_move(page: Page, since: int) -> tuple[str | None, int]:
    """The newest prompt the live region said after its first `since` paragraphs (what the
    seat may do now), once no command is on its way, and how many paragraphs were said by then;
    None once the game is over."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        heard = page.evaluate("() => window.heard.slice()")
        if any(plain(h["text"]) == "The game is over." for h in heard):
            return None, len(heard)
        busy = page.locator("#game[data-busy='0']").count() == 0
        if not busy and any(h["prompt"] for h in heard[since:]):
            last = max(i for i, h in enumerate(heard) if h["prompt"])
            first = last
            while first > since and heard[first - 1]["prompt"]:
                first -= 1
            return plain(" ".join(h["text"] for h in heard[first : last + 1])), len(heard)
        page.wait_for_timeout(30)
    raise AssertionError(f"no move offered in time: {heard[since - 3 :]} {answer(page)}")


RISK = re.compile(r"\((b|k) and a risk from (\d) to (\d)(, then n)?, ")
ACTION = re.compile(r"\(([a-z]+(?: n)?), (\d+) h\)")


def choose(page: Page, prompt: str, risked: bool) -> str:
    """The command for what was offered: go on at a Force card moment; a decision by its first
    line (resting the case when offered); a risk at its highest; before a risk was taken, on a
    day turn, a drive to a block with a mobster (read from the city: v); else the action of the
    most hours."""
    if "(p)" in prompt:
        return "p"
    if "Type a number to choose" in prompt or "choices in all" in prompt:
        rest = re.search(r"(\d+)\. Rest your case", prompt)
        return rest.group(1) if rest else "1"
    risks = RISK.findall(prompt)
    if risks:
        letter, _, high, night = risks[0]
        return f"{letter} {high}{' n' if night else ''}"
    if not risked and "(day): drive" in prompt:
        city = type_command(page, "v")
        for block in re.findall(r"(?:^|\. )([A-Z][A-Za-z' ]+): [a-z]+ mobster", city):
            if "Sending:" in type_command(page, f"d {block}"):
                return ""
    actions = ACTION.findall(prompt)
    assert actions, prompt
    return max(actions, key=lambda a: int(a[1]))[0]


def test_a_whole_game_in_text_mode_and_a_spectator_in_spanish(
    module_server: ServerProcess,
    browser: Any,
    people: Any,
    pool: ThreadPoolExecutor,
    screenshots: Path,
    request: pytest.FixtureRequest,
) -> None:
    url = module_server.url
    table, token = pool.submit(asyncio.run, _table_with_rosa(url)).result(timeout=20)
    ann = people(base_url(module_server), "Ann", viewport={"width": 1100, "height": 1000})
    page = ann.page
    ann.goto(f"/#/table/{table}?mode=text")
    name = page.get_by_label(re.compile("name", re.I))
    name.fill("Ann")
    name.press("Enter")
    rosa: Future[bool] = pool.submit(asyncio.run, _rosa_plays(url, table, token))
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Table {table}: text mode")
    for part in PARTS:
        expect(page.get_by_role("region", name=part, exact=True)).to_be_visible()
    board = page.get_by_role("link", name="Board view")
    expect(board).to_have_attribute("href", f"#/table/{table}")

    # the spectator, in Spanish, watches the same game in text mode
    bea_context = browser.new_context(locale="es-ES", viewport={"width": 1000, "height": 1000})
    request.addfinalizer(bea_context.close)
    bea = bea_context.new_page()
    bea.set_default_timeout(15_000)
    bea_errors: list[str] = []
    bea.on("pageerror", lambda exc: bea_errors.append(f"uncaught: {exc}"))
    bea.on("console", lambda m: m.type == "error" and bea_errors.append(m.text))
    bea.goto(f"{base_url(module_server)}/#/watch/{table}?mode=text")
    expect(bea.get_by_role("heading", level=1)).to_have_text(f"Mirando la mesa {table}: modo texto")

    listen(page)
    listen(bea)
    first, since = my_move(page, 0)
    assert first is not None
    # the informative commands, each answered in words
    assert "To read:" in type_command(page, "h")
    assert "Your car is on" in type_command(page, "w") and "Next to it:" in answer(page)
    assert type_command(page, "dónde").startswith("Turn ")  # (Spanish words work in English too)
    assert "The end zone is spaces 43 to 48" in type_command(page, "t")
    assert "You, seat P" in type_command(page, "o") and "Rosa, seat P" in answer(page)
    assert "possible murderers" in type_command(page, "s")
    assert type_command(page, "c")
    assert type_command(page, "l")
    assert "Row 3, column 3" in type_command(page, "v police hq")
    assert type_command(page, "zzz") == (
        "I do not know the command zzz. Type h for help, or m for what you may do now."
    )
    # a refusal is said from its code, in the page's words (never the server's English)
    refusal = "async () => (await import('/js/textmode.js')).refusal('rules/not_your_turn')"
    sentences = page.evaluate("async () => (await (await fetch('/errors.en.json')).json()).errors")
    assert page.evaluate(refusal) == f"Refused: {sentences['rules/not_your_turn']}"
    page.screenshot(path=str(screenshots / "textmode-seat.png"), full_page=True)
    assert_accessible(page, "the text mode (English)")

    commands: list[str] = []
    sounds_off_at = None
    deadline = time.monotonic() + GAME_SECONDS
    prompt: str | None = first
    while prompt is not None:
        assert time.monotonic() < deadline, "the game took too long"
        command = choose(page, prompt, any(RISKED.search(line) for line in said(page)))
        if command:
            commands.append(command)
            type_command(page, command)
        prompt, since = my_move(page, since)  # (after a drive: what is offered there)
        if len(commands) == 6 and sounds_off_at is None:
            played = page.evaluate("() => window.echoridge.page.sounds.played.slice()")
            assert "turn" in played, played
            assert type_command(page, "sound off") == "Sound cues off."
            assert not page.get_by_role("checkbox", name=re.compile("Sound cues")).is_checked()
            # counted once they are off (a cue may have played while the command was typed)
            sounds_off_at = len(page.evaluate("() => window.echoridge.page.sounds.played"))
            bea.screenshot(path=str(screenshots / "textmode-spectator-es.png"), full_page=True)
            assert_accessible(bea, "the spectator's text mode (Spanish)")
    assert rosa.result(timeout=30) is True
    lines = said(page)
    # the announcements: a risk result, another seat's move, the end
    assert any(RISKED.search(line) for line in lines), lines
    moved = re.compile(r"Rosa( drove |: |'s car| called | arrested | caught )")
    assert any(moved.match(line) for line in lines), lines
    assert any(re.match(r"Turn \d+ \((day|night)\): Rosa", line) for line in lines), lines
    assert "The game is over." in lines
    assert any(re.match(r"The murderer was S\d\d ", line) for line in lines), lines
    assert any(line.startswith("You accused ") for line in lines), lines
    # sounds off stays off (remembered), and no cue was played since
    assert page.evaluate("() => localStorage.getItem('echoridge.sound')") == "off"
    assert len(page.evaluate("() => window.echoridge.page.sounds.played")) == sounds_off_at
    page.screenshot(path=str(screenshots / "textmode-end.png"), full_page=True)
    # the spectator heard the same game in Spanish, and its end
    spoken = said(bea)
    assert any(re.match(r"Turno \d+ \((día|noche)\): Rosa", line) for line in spoken), spoken
    expect(bea.get_by_role("log", name="Lo que pasa")).to_contain_text("La partida ha terminado.")
    assert_accessible(page, "the text mode at the end (English)")
    # the board view offers the text mode first thing
    ann.goto(f"/#/table/{table}")
    switch = page.get_by_role("link", name="Text mode for screen readers")
    expect(switch).to_have_attribute("href", f"#/table/{table}?mode=text")
    bea_box = bea.get_by_role("combobox", name="Orden")
    bea_box.fill("w")
    bea_box.press("Enter")
    expect(bea.locator("#text-answer")).to_contain_text("Estás mirando: no tienes coche.")
    frases = bea.evaluate("async () => (await (await fetch('/errors.es.json')).json()).errors")
    assert bea.evaluate(refusal) == f"Rechazado: {frases['rules/not_your_turn']}"
    assert not bea_errors, bea_errors


def test_a_risk_only_the_night_shift_allows_is_offered_with_its_n(
    module_server: ServerProcess, people: Any
) -> None:
    """At night a Call for Backup is legal only with the Night Shift waiver: the offer says to
    add n (a CI run once typed "b 4", was told to add n, and waited for a move that never came)."""
    ann = people(base_url(module_server), "Ann")
    ann.goto("/")
    ann.page.wait_for_selector("#name")
    phrases = """async (legal) => (await import('/js/textmode-menu.js')).offerPhrases(
        {status: 'playing', you: {seat: 0, legal}, players: [{seat: 0}]})"""
    night = [{"type": "call_for_backup", "risk": r, "night_shift": True} for r in (1, 2, 3)]
    day = [{"type": "call_for_backup", "risk": r} for r in (1, 2, 3)]
    said = ann.page.evaluate(phrases, night)
    assert len(said) == 1 and RISK.search(f"{said[0]}") and "then n" in said[0], said
    assert "then n" not in ann.page.evaluate(phrases, day)[0]
    letter, low, high, then_n = RISK.findall(said[0])[0]
    assert (letter, low, high, bool(then_n)) == ("b", "1", "3", True)
