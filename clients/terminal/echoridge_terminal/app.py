"""``EchoRidgeApp``: the textual application behind ``echo-ridge play``, ``echo-ridge watch``
and ``echo-ridge replay``.

``play``: lobby -> waiting room -> game -> result, signed in with the player's identity for
the server (signin.py; ``guest``: without one; ``claim``: a transfer code to redeem first),
with the leaderboard and players' pages (ratings.py).  ``watch``: the game screen of a
spectator, read-only, then the result.  ``replay``: a finished game as a seat, a spectator or
everyone saw it, version by version (replayer.py).  Watching and replaying sign in with the
identity kept for the server, if any, so that its player may report and block there.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Static

from echoridge_client.errors import ClientError
from echoridge_client.session import Spectator
from echoridge_terminal import signin
from echoridge_terminal.context import Context
from echoridge_terminal.game import GameScreen
from echoridge_terminal.header import Header
from echoridge_terminal.i18n import set_language, t
from echoridge_terminal.idstore import IdentityStore
from echoridge_terminal.replayer import ReplayScreen, Viewer
from echoridge_terminal.screens import LobbyScreen

DEFAULT_URL = "ws://127.0.0.1:8765/ws"

CSS = """
#tables-box { width: 1fr; padding: 0 1; }
#tables { height: 1fr; }
#forms { width: 48; padding: 0 1; }
#forms Label { margin-top: 1; text-style: bold; }
#seats, #mode { layout: horizontal; height: auto; }
#lobby-status, #table-info, #seat-list { padding: 0 1; height: auto; }
#help-box { padding: 0 2; }
#waiting-buttons, #list-buttons, #bot-buttons { height: auto; }
#waiting-buttons Button, #list-buttons Button, #bot-buttons Button { margin: 0 1; }
#bot-label { padding: 1 1 0 1; }
#wait-log { height: 1fr; border: round $primary; }
#alert { height: auto; }
#board { width: 94; }
#last-move { margin-bottom: 1; }
#side { width: 1fr; min-width: 50; }
#prompt { height: auto; }
#menu { height: 1fr; min-height: 6; border: round $accent; }
#log { height: 1fr; min-height: 10; border: round $secondary; }
#you-box { height: 1fr; min-height: 6; border: round $primary; }
#chat { height: 9; }
#chat-log { height: 1fr; border: round $secondary; }
#result-box { align: center middle; }
#result { width: 100; height: auto; border: double $error; padding: 1 2; }
#result-help { width: 100; padding: 0 2; }
#alarm { width: 80%; height: auto; padding: 2 4; }
#replay-status, #replay-note { height: auto; }
#step { height: auto; max-height: 16; border: round $accent; }
AlertScreen { align: center middle; }
AccountScreen, PlayersDialog { align: center middle; }
#account, #players-dialog { width: 90; height: auto; max-height: 100%; border: thick $accent;
  background: $surface; padding: 0 1; }
#account Label, #players-dialog Label { margin-top: 1; text-style: bold; }
#account .row, #players-dialog .row { height: auto; }
#rename { width: 1fr; }
#blocked-list, #people { height: auto; max-height: 8; }
#transfer-code, #account-said, #dialog-said { height: auto; }
#board-status, #player-head { padding: 0 1; height: auto; }
#board-table, #games-table { height: 1fr; }
"""


class MessageScreen(Screen[None]):
    """A screen that only says something (a failed connection)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("q,escape", "app.quit", t("key.quit"))]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(Text(self.text, style="bold red"), id="message")
        yield Footer()


class EchoRidgeApp(App[None]):
    """Play (``table`` None: start in the lobby), watch ``table`` as a spectator, or replay the
    finished game at table ``replay`` as ``seat`` (None: a spectator; ``everyone``: every
    secret) saw it, from ``version``."""

    TITLE = "Echo Ridge"
    CSS = CSS
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+q", "quit", t("key.quit"))]

    def __init__(self, url: str = DEFAULT_URL, *, watch: str | None = None,
                 name: str | None = None, replay: str | None = None, seat: int | None = None,
                 everyone: bool = False, version: int | None = None, guest: bool = False,
                 claim: str | None = None, config_dir: Path | None = None,
                 lang: str | None = None) -> None:  # fmt: skip
        set_language(lang)  # None: the locale's (i18n.py)
        super().__init__()
        self.ctx = Context(url, guest=guest, claim=claim, store=IdentityStore(config_dir))
        if name:
            self.ctx.name = name[:32]
        self.watching = watch
        self.replaying = replay
        self.viewer = Viewer(seat=None if everyone else seat, everyone=everyone)
        self.replay_version = version

    async def on_mount(self) -> None:
        if self.replaying is not None:
            self.ctx.table = self.replaying
            await self.push_screen(
                ReplayScreen(self.ctx, self.replaying, self.viewer, self.replay_version)
            )
            return
        if self.watching is None:
            await self.push_screen(LobbyScreen(self.ctx))
            return
        try:
            lobby = await signin.sign_in(self.ctx, play=False)  # (for x: report, block)
            secret = lobby.secret if lobby.identity is not None else None
            spectator = await Spectator.watch(self.ctx.url, self.watching, identity=secret)
        except signin.Banned as exc:
            await self.push_screen(MessageScreen(exc.words))
            return
        except (ClientError, OSError, TimeoutError) as exc:
            await self.push_screen(
                MessageScreen(t(
                    "app.cannot_watch", table=self.watching, url=self.ctx.url, problem=str(exc)
                ))
            )
            return
        self.ctx.session, self.ctx.table = spectator, self.watching
        await self.push_screen(GameScreen(spectator, read_only=True))

    async def show_lobby(self) -> None:
        """Back to the lobby (from a waiting room left)."""
        await self.switch_screen(LobbyScreen(self.ctx))

    async def on_unmount(self) -> None:
        await self.ctx.close()


def play(
    url: str = DEFAULT_URL,
    name: str | None = None,
    *,
    guest: bool = False,
    claim: str | None = None,
    config_dir: Path | None = None,
    lang: str | None = None,
) -> int:
    """``guest``: play without an identity; ``claim``: a transfer code from another device;
    ``config_dir``: where the identities are kept (default: idstore.config_dir()); ``lang``:
    ``en`` or ``es`` (None: the locale's)."""
    EchoRidgeApp(
        url, name=name, guest=guest, claim=claim, config_dir=config_dir, lang=lang
    ).run()
    return 0


def watch(url: str, table: str, lang: str | None = None) -> int:
    EchoRidgeApp(url, watch=table, lang=lang).run()
    return 0


def replay(
    url: str,
    table: str,
    seat: int | None = None,
    everyone: bool = False,
    version: int | None = None,
    lang: str | None = None,
) -> int:
    EchoRidgeApp(
        url, replay=table, seat=seat, everyone=everyone, version=version, lang=lang
    ).run()
    return 0
