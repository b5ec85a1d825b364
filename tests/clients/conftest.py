"""The client tests run in English whatever the machine's locale says (the terminal client
takes its language from LC_ALL / LC_MESSAGES / LANG): a test of another language sets it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from echoridge_terminal import i18n


@pytest.fixture(autouse=True)
def english(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    i18n.set_language("en")
    yield
    i18n.set_language("en")
