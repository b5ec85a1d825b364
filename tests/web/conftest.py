"""Fixtures of the browser tests: Debian's Chromium driven by Playwright, real servers.

The browser is ``/usr/bin/chromium`` (Debian's ``chromium`` package; ``.ci/run`` installs it when
it is missing). Playwright's own browser download is never used. Without Chromium or Playwright
the browser tests are skipped with a message that says how to install them; the HTTP tests of
``test_static.py`` need neither.

Servers come from ``tests/e2e/conftest.py`` (``servers``): real ``echo-ridge serve`` processes
on the session's redis-server.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import RedisServer
from tests.e2e.conftest import ServerProcess, servers, start_server  # noqa: F401  (fixtures)

CHROMIUM = os.environ.get("ECHORIDGE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "screenshots"
# A server for browser tests: bots move quickly, owed decisions wait for the (slow) pages, and
# so do empty Force card windows (the tests check a page while nothing moves on its turn; the
# auto-pass itself is tested through the SDK, tests/clients/test_sdk_autopass.py).
SERVER_OPTIONS = ("--bot-delay", "0.05", "--decision-timeout", "0", "--auto-pass-delay", "600")


def base_url(server: ServerProcess) -> str:
    return f"http://127.0.0.1:{server.port}"


@pytest.fixture(scope="module")
def module_server(
    redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory, request: Any
) -> Iterator[ServerProcess]:
    """One server with SERVER_OPTIONS for a test module (its tests play their own tables)."""
    name = request.module.__name__.rsplit(".", 1)[-1]
    server = start_server(redis_server.url, tmp_path_factory.mktemp(name) / "server.log",
                          *SERVER_OPTIONS)  # fmt: skip
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium, for one test module: sync Playwright keeps an event loop running while it is
    open, so it must be closed before the asyncio tests of other modules run."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(
            f"browser tests need Chromium at {CHROMIUM}: install it with "
            "`apt-get install chromium` (Debian's package; `.ci/run` does this in CI)"
        )
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("browser tests need Playwright: pip install -e '.[dev]'")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


@pytest.fixture
def web_server(servers: Callable[..., ServerProcess]) -> ServerProcess:  # noqa: F811
    return servers(*SERVER_OPTIONS)


@pytest.fixture
def people(browser: Any) -> Iterator[Callable[..., Any]]:
    """Makes ``Person``s (one browser context each); after the test, every page must have
    run without an uncaught exception or console error, and all are closed."""
    from tests.web.pilot import Person

    made: list[Person] = []

    def make(base: str, name: str, **kwargs: Any) -> Person:
        person = Person(browser, base, name, **kwargs)
        made.append(person)
        return person

    yield make
    try:
        for person in made:
            person.check_errors()
    finally:
        for person in made:
            person.context.close()


@pytest.fixture(scope="session")
def screenshots() -> Path:
    SCREENSHOTS.mkdir(exist_ok=True)
    return SCREENSHOTS
