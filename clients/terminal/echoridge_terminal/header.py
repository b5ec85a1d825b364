"""``Header``: textual's header, whose title never stops the app.

textual's ``Header`` updates its title when the app's or its screen's title changes, and looks
its title widget up to do so; a change that comes while the header is being taken down (a
screen replaced) finds no title widget, raises ``NoMatches``, and the app stops with that
error (a fresh-clone CI run: "No nodes match 'HeaderTitle' on Header()" as the waiting room
opened). This header watches the same titles, and a change with no title widget to show it in
is let go."""

from __future__ import annotations

import contextlib

from textual.css.query import NoMatches
from textual.dom import NoScreen
from textual.events import Mount
from textual.widgets import Header as TextualHeader
from textual.widgets._header import HeaderTitle


class Header(TextualHeader):
    def _on_mount(self, event: Mount) -> None:
        # instead of textual's watchers, not beside them (this also skips Widget's own Mount
        # handler, which only turns on scrollbars that a header never has)
        event.prevent_default()

        async def set_title() -> None:
            with contextlib.suppress(NoScreen, NoMatches):
                self.query_one(HeaderTitle).update(self.format_title())

        for node in (self.app, self.screen):
            self.watch(node, "title", set_title)
            self.watch(node, "sub_title", set_title)
