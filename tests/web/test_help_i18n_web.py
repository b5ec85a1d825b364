"""How to play and the guided tour in both languages (issue 30): their catalogue part
(clients/web/locales/<lang>/help.json) has every key in English and Spanish with the same ICU
arguments, and every key help.js and tour.js name; in Chromium with the browser's language
Spanish ("es-ES"), the dialog and each step of the tour show no common English word, link the
full rules in Spanish (the server publishes /protocol/rules.es.md), and axe finds nothing
critical or serious with either open; a screenshot of each (screenshots/es-help.png,
screenshots/es-tour.png). The English tour is tests/web/test_tour_web.py's.

One server for the module; the test plays one short game against normal bots.
"""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from echoridge_client.i18n import arguments

pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright (the dev extra)")

from playwright.sync_api import expect

from tests.e2e.conftest import ServerProcess
from tests.web.conftest import base_url
from tests.web.pilot import ACTIONS

WEB = Path(__file__).resolve().parents[2] / "clients" / "web"

#: Common English words no Spanish reader should meet in the dialog or the tour (the game's
#: proper names, "Echo Ridge" and the block names, aside).
ENGLISH = re.compile(
    r"\b(the|and|you|your|with|of|is|are|to|on|in|at|it|for|turn|turns|player|officer|officers|"
    r"action|actions|card|cards|block|blocks|board|rules|step|next|back|close|done|drive|"
    r"hours|night|day|murderer|suspect|suspects|clue|clues|keys|how|play|what|when|where)\b",
    re.IGNORECASE,
)


def catalogue(lang: str) -> dict[str, str]:
    data = json.loads((WEB / "locales" / lang / "help.json").read_text(encoding="utf-8"))
    return {k: v for k, v in data.items() if not k.startswith("_")}


def test_the_help_catalogue_is_whole_in_both_languages() -> None:
    en, es = catalogue("en"), catalogue("es")
    assert sorted(set(en) ^ set(es)) == []
    assert all(k.startswith(("help.", "tour.")) for k in en)
    for key in en:
        assert arguments(en[key]) == arguments(es[key]), key
    # every key the two modules name whole is there (the families built from ids are checked
    # in the browser: a missing key is a console error there)
    for module in ("help.js", "tour.js"):
        source = (WEB / "js" / module).read_text(encoding="utf-8")
        named = set(re.findall(r"""\bt\(["']((?:help|tour)\.[a-z_.]+)["']""", source))
        assert named and named <= set(en), (module, sorted(named - set(en)))
    assert es["help.rules.href"] == "/protocol/rules.es.md"
    assert en["help.rules.href"] == "/protocol/rules.md"


def english_in(text: str) -> list[str]:
    text = text.replace("Echo Ridge", "")
    return ENGLISH.findall(text)


def test_how_to_play_and_the_tour_in_spanish(
    module_server: ServerProcess, people: Any, screenshots: Path
) -> None:
    from tests.web.a11y import assert_accessible
    from tests.web.test_at_the_board import bots_game

    eva = people(base_url(module_server), "Eva", viewport={"width": 1366, "height": 900},
                 locale="es-ES")  # fmt: skip
    page = eva.page
    bots_game(eva, "Eva")
    eva.wait_state(*ACTIONS, timeout=30)
    page.wait_for_function("() => document.documentElement.lang === 'es'")
    expect(page.locator("#tour-offer")).to_contain_text("Enséñame un turno")
    expect(page.locator("#help-open")).to_have_text("Cómo se juega")
    page.click("#help-open")
    dialog = page.locator("dialog#help")
    expect(dialog).to_be_visible()
    expect(dialog.locator("#help-title")).to_have_text("Cómo se juega a Echo Ridge")
    words = dialog.inner_text()
    for said in ("Un turno", "Acciones", "Pedir refuerzos", "Llevar a custodia",
                 "La partida cooperativa", "Palabras del juego", "En el tablero", "Teclas",
                 "Juego limpio", "Indulto", "Marcador de Tiempo"):  # fmt: skip
        assert said in words, said
    assert english_in(words) == [], english_in(words)
    # the full rules, in Spanish, linked; the server publishes them there
    link = dialog.locator("#help-rules")
    expect(link).to_have_attribute("href", "/protocol/rules.es.md")
    with urllib.request.urlopen(base_url(module_server) + "/protocol/rules.es.md") as reply:
        assert reply.status == 200
        assert reply.read().decode("utf-8").startswith("# Echo Ridge — Cómo se juega")
    page.screenshot(path=str(screenshots / "es-help.png"))
    assert_accessible(page, "How to play in Spanish")
    with page.expect_popup() as opened:  # the link opens the rules beside the game
        link.click()
    rules = opened.value
    rules.wait_for_load_state()
    assert "Cómo se juega" in rules.content()
    rules.close()
    link.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshots / "es-help-rules.png"))

    # the tour, from How to play: every step in Spanish
    page.click("#tour-start")
    tour = page.locator("#tour")
    expect(tour).to_be_visible()
    expect(page.locator("#tour-offer")).to_have_count(0)  # taking the tour answers the offer
    steps = int(tour.locator("#tour-count").inner_text().split()[-1])
    assert steps == 6
    seen: list[str] = []
    for n in range(1, steps + 1):
        expect(tour.locator("#tour-count")).to_have_text(f"Paso {n} de {steps}")
        text = " ".join(tour.inner_text().split())
        assert english_in(text) == [], (n, english_in(text), text)
        seen.append(tour.get_attribute("data-step") or "")
        if n == 1:
            assert "Tu coche es el marcado P" in text
            expect(tour.locator("#tour-next")).to_have_text("Siguiente")
        if tour.get_attribute("data-step") == "force":
            assert "antes de conducir" in text and "Seguir" in text, text
        if n == 2:
            page.screenshot(path=str(screenshots / "es-tour.png"))
            assert_accessible(page, "the tour in Spanish")
        if n == steps:
            expect(tour.locator("#tour-next")).to_have_text("Hecho")
        tour.locator("#tour-next").click()
    assert seen == ["board", "actions", "force", "track", "moves", "accuse"]
    expect(page.locator("#tour")).to_have_count(0)
