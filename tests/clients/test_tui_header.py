"""The terminal client's ``Header`` (echoridge_terminal/header.py): a title that changes while
the header's title widget is gone (a screen being taken down) is let go; textual's own header
stops the app with NoMatches there (a fresh-clone CI run)."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.css.query import NoMatches
from textual.widgets import Header as TextualHeader
from textual.widgets._header import HeaderTitle

from echoridge_terminal.header import Header


class Titled(App[None]):
    def __init__(self, header: type[TextualHeader]) -> None:
        super().__init__()
        self.header = header

    def compose(self) -> ComposeResult:
        yield self.header()


async def retitled_without_its_title(header: type[TextualHeader]) -> Titled:
    app = Titled(header)
    async with app.run_test() as pilot:
        app.sub_title = "the lobby"
        await pilot.pause()
        assert "the lobby" in str(app.query_one(HeaderTitle).render())
        await app.query_one(HeaderTitle).remove()
        app.sub_title = "the waiting room"  # (as a screen is replaced)
        app.screen.sub_title = "table t-1"
        await pilot.pause()
    return app


async def test_a_title_with_no_title_widget_to_show_it_is_let_go() -> None:
    await retitled_without_its_title(Header)


async def test_textuals_header_stops_the_app_there() -> None:
    """(what the test above guards against: were textual's header fixed, this would fail, and
    header.py could go)"""
    with pytest.raises(NoMatches):
        await retitled_without_its_title(TextualHeader)
