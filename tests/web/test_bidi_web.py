"""Right-to-left names and chat at the browser's table (issue 30): an Arabic player (سارا) and a
Persian one (مریم) sit at a table and say a line each; an English and a Spanish browser watch
it. Wherever such a name or line sits among the page's words it is isolated, so that it keeps
its own order and the sentence keeps its: the name alone in a <bdi> (or an element with `dir`),
or between the Unicode isolates FSI and PDI in a string (the log's lines, the prompt) and in
attributes (aria-label, title)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright (the dev extra)")

from playwright.sync_api import expect

from echoridge_client.lobby import Lobby
from echoridge_client.session import Seat
from tests.e2e.conftest import ServerProcess
from tests.web.conftest import base_url
from tests.web.pilot import Person
from tests.web.test_players_web import in_thread

SARA, MARYAM = "سارا", "مریم"
LINES = ["مرحبا بالجميع", "سلام به همه، ۱۲۳ بازی!"]
FSI, PDI = "\u2068", "\u2069"

# Every place in #game where a name or chat line of `inputs` occurs, and those not isolated:
# a text node inside a <bdi> or an element with `dir` that holds the input alone (give or take
# the isolates), or the input between FSI and PDI; an attribute only the latter.
ISOLATION = """(inputs) => {
  const FSI = "\\u2068", PDI = "\\u2069";
  const bare = (s) => s.replaceAll(FSI, "").replaceAll(PDI, "").trim();
  const found = [], bad = [];
  const wrapped = (s, where) => {
    for (const input of inputs) {
      for (let i = s.indexOf(input); i >= 0; i = s.indexOf(input, i + 1)) {
        found.push(where);
        if (s[i - 1] !== FSI || s[i + input.length] !== PDI) bad.push(`${where}: ${s}`);
      }
    }
  };
  const root = document.querySelector("#game");
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.nodeValue;
    if (!inputs.some((input) => text.includes(input))) continue;
    const own = node.parentElement.closest("bdi, [dir]");
    if (own && root.contains(own) && inputs.includes(bare(own.textContent))) {
      found.push(`<${own.tagName.toLowerCase()}> ${bare(own.textContent)}`);
    } else {
      wrapped(text, `text in <${node.parentElement.tagName.toLowerCase()}>`);
    }
  }
  for (const el of root.querySelectorAll("[aria-label], [title]")) {
    for (const name of ["aria-label", "title"]) {
      const value = el.getAttribute(name);
      if (value) wrapped(value, `${name} of <${el.tagName.toLowerCase()}>`);
    }
  }
  return { found, bad };
}"""


@pytest.fixture(scope="module")
def rtl_table(module_server: ServerProcess) -> Iterator[str]:
    """A started table of two seats, سارا and مریم, each of whom said a line in the chat."""
    url = module_server.url

    async def sit_and_say() -> str:
        lobby = await Lobby.connect(url)
        seats: list[Seat] = []
        try:
            table = (await lobby.create(2, public=True)).table
            tokens = [(await lobby.join(table, name)).token for name in (SARA, MARYAM)]
            assert (await lobby.start(table, tokens[0])).outcome == "accepted"
            seats += [await Seat.sit(url, table, token) for token in tokens]
            for seat, line in zip(seats, LINES, strict=True):
                assert (await seat.say(line)).outcome == "accepted"
            return table
        finally:
            for seat in seats:
                await seat.close()
            await lobby.close()

    yield in_thread(sit_and_say)


@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
def test_rtl_names_and_chat_are_isolated_in_the_sentences_around_them(
    module_server: ServerProcess, rtl_table: str, people: Any, screenshots: Path, locale: str
) -> None:
    viewer: Person = people(base_url(module_server), f"viewer-{locale}", locale=locale)
    page = viewer.page
    viewer.goto(f"/#/watch/{rtl_table}")
    expect(page.locator("#game")).to_have_attribute("data-state", "spectating")
    expect(page.locator("#chat-lines .chat-text")).to_have_text(LINES)
    expect(page.locator("#log li").first).to_be_visible()
    assert page.evaluate("document.documentElement.lang") == viewer.language

    # the places a name sits in a sentence: the prompt, the turn, the log, the chat (the
    # first turn is either's)
    isolated = (f"{FSI}{SARA}{PDI}", f"{FSI}{MARYAM}{PDI}")
    prompt = page.locator("#prompt").inner_text()
    if viewer.language == "es":
        assert prompt.startswith(tuple(f"Juega {name} (" for name in isolated)), prompt
    else:
        assert prompt.startswith(tuple(f"{name} is playing (" for name in isolated)), prompt
    expect(page.locator("#turn-pill bdi")).to_have_count(1)
    expect(page.locator("#chat-lines .chat-name")).to_have_text([SARA, MARYAM])
    assert page.locator("#chat-lines bdi.chat-name").count() == 2
    assert page.locator("#chat-lines .chat-text[dir='auto']").count() == 2
    expect(page.locator("#log li", has_text=re.compile(f"{SARA}|{MARYAM}")).first).to_be_visible()
    lines = page.locator("#log li").all_inner_texts()
    assert any(name in line for line in lines for name in isolated), lines

    report = page.evaluate(ISOLATION, [SARA, MARYAM, *LINES])
    assert not report["bad"], "\n".join(report["bad"])
    places = " | ".join(report["found"])
    assert len(report["found"]) >= 10, places
    for where in ("<bdi>", "text in <p>", "text in <li>", "aria-label of <section>"):
        assert where in places, places

    # the chat line, the name inside the words around it, for the eye
    page.locator(".topbar").screenshot(path=str(screenshots / f"bidi-{viewer.language}-top.png"))
    chat = page.locator("#chat")
    chat.scroll_into_view_if_needed()
    chat.screenshot(path=str(screenshots / f"bidi-{viewer.language}-chat.png"))
    page.locator(".action-panel").screenshot(
        path=str(screenshots / f"bidi-{viewer.language}-prompt.png")
    )
