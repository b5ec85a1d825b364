"""The browser client's languages (clients/web/js/i18n.js, clients/web/locales/): the language
comes from ``navigator.languages`` and the header's switch is remembered across reloads."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

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
