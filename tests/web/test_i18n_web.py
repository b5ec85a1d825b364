"""The browser client's languages (clients/web/js/i18n.js, clients/web/locales/): the language
comes from ``navigator.languages`` and the header's switch is remembered across reloads; the
error codes' sentences come from the server (/errors.<lang>.json: English is the protocol's
registry, Spanish the SDK's errors.es.json that the terminal client reads too)."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from echoridge_client import errortext
from echoridge_protocol.codes import ALL_CODES
from tests.e2e.conftest import ServerProcess
from tests.web.conftest import base_url


@pytest.fixture
def context(browser: Any) -> Iterator[Any]:
    made: list[Any] = []

    def make(locale: str) -> Any:
        ctx = browser.new_context(locale=locale, viewport={"width": 1280, "height": 900})
        made.append(ctx)
        return ctx

    yield make
    for ctx in made:
        ctx.close()


def test_the_language_comes_from_the_browser_and_the_switch_is_remembered(
    module_server: ServerProcess, context: Any
) -> None:
    page = context("es-ES").new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base_url(module_server) + "/#/")
    page.wait_for_function("() => document.documentElement.lang === 'es'")
    page.screenshot(path="screenshots/es-header.png")
    nav = page.get_by_role("navigation", name="Sitio")
    assert nav.get_by_role("link").all_inner_texts() == ["Sala", "Clasificación"]
    assert page.locator("#language").input_value() == "es"
    page.select_option("#language", "en")  # reloads in English, and stays so
    page.wait_for_function("() => document.documentElement.lang === 'en'")
    page.get_by_role("navigation", name="Site").get_by_role("link", name="Leaderboard").wait_for()
    page.reload()
    page.wait_for_function("() => document.documentElement.lang === 'en'")
    assert page.locator("#language").input_value() == "en"
    assert page.evaluate("localStorage.getItem('echoridge.lang')") == "en"
    assert errors == []

    english = context("en-US").new_page()
    english.goto(base_url(module_server) + "/#/leaderboard")
    english.wait_for_function("() => document.title === 'Echo Ridge — leaderboard'")
    mexican = context("es-MX").new_page()
    mexican.goto(base_url(module_server) + "/#/leaderboard")
    mexican.wait_for_function("() => document.title === 'Echo Ridge — clasificación'")


def test_the_server_publishes_the_error_sentences(module_server: ServerProcess) -> None:
    def get(path: str) -> dict[str, Any]:
        with urllib.request.urlopen(base_url(module_server) + path, timeout=10) as reply:
            assert reply.headers["Content-Type"].startswith("application/json")
            return dict(json.load(reply))

    assert get("/errors.en.json") == {"language": "en", "errors": ALL_CODES}
    spanish = get("/errors.es.json")
    assert spanish == {"language": "es", "errors": errortext.sentences("es")}
    assert spanish["errors"].keys() == ALL_CODES.keys()
    assert spanish["errors"]["table/full"] == "Todas las plazas de esa mesa están ocupadas."
