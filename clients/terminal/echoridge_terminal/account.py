"""Who the player is (F4 in the lobby of ``echo-ridge play``; SPEC.md §4.9, §4.11): their
handle, a new name (``rename_identity``: the games already played keep the old one), a transfer
code that moves the identity to another device (``new_transfer_code``: shown with the command
to type there and when it expires; the secret itself is never shown), and the players they
block, with a button to unblock one.  Refusals are worded by their code.
"""

from __future__ import annotations

import time
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from echoridge_client.errors import ClientError, Refused
from echoridge_terminal import signin
from echoridge_terminal.context import Context
from echoridge_terminal.i18n import isolate, t


def expiry_words(expires_ms: int, now: float | None = None) -> str:
    """When a transfer code expires: ``14:32 (in 10 minutes)``, local time."""
    now = time.time() if now is None else now
    at = time.strftime("%H:%M", time.localtime(expires_ms / 1000))
    minutes = max(0, round((expires_ms / 1000 - now) / 60))
    return t("account.expires", at=at, n=minutes)


def stylize(text: Text, part: str, style: str) -> None:
    """Style the first ``part`` of ``text`` (a value inside a translated sentence)."""
    at = text.plain.find(part) if part else -1
    if at >= 0:
        text.stylize(style, at, at + len(part))


class AccountScreen(ModalScreen[None]):
    """The player's identity: rename, transfer code, blocked players."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.pop_screen", t("key.back"))]

    def __init__(self, ctx: Context) -> None:
        super().__init__()
        self.ctx = ctx
        self.said = ""  # the last answer shown, plain (for tests)
        self.code_text = ""  # the transfer code's lines, plain (for tests)

    def compose(self) -> ComposeResult:
        with Vertical(id="account"):
            yield Static(id="account-who")
            yield Label(t("account.rename.label"))
            with Horizontal(classes="row"):
                yield Input(placeholder=t("account.rename.placeholder"), max_length=32,
                            id="rename")  # fmt: skip
                yield Button(t("account.rename"), id="do-rename")
            yield Label(t("account.device"))
            yield Button(t("account.transfer"), id="transfer")
            yield Static(id="transfer-code")
            yield Label(t("account.blocked"))
            yield OptionList(id="blocked-list")
            yield Button(t("account.unblock"), id="unblock")
            yield Static(id="account-said")
        yield Footer()

    def on_mount(self) -> None:
        self._who()
        self._list()
        self.query_one("#rename", Input).focus()

    def _who(self) -> None:
        me = self.ctx.me
        handle = isolate(me.handle) if me else ""
        out = Text(t("account.who", known="yes" if me else "no", name=handle, url=self.ctx.url))
        stylize(out, handle, "bold")
        if me is not None:
            out.append(t("account.id", id=me.id), style="dim")
        self.query_one("#account-who", Static).update(out)

    def _list(self) -> None:
        widget = self.query_one("#blocked-list", OptionList)
        widget.clear_options()
        if not self.ctx.blocked:
            widget.add_option(Option(Text(t("account.nobody"), style="dim"), disabled=True))
        for ident, handle in sorted(self.ctx.blocked.items(), key=lambda kv: kv[1].casefold()):
            widget.add_option(Option(Text(handle), id=ident))

    def say(self, words: str, error: bool = False) -> None:
        self.said = words
        style = "bold red" if error else "bold green"
        self.query_one("#account-said", Static).update(Text(words, style=style))

    @on(Button.Pressed, "#do-rename")
    @on(Input.Submitted, "#rename")
    def _rename_pressed(self) -> None:
        name = self.query_one("#rename", Input).value.strip()
        if not name:
            self.say(t("account.type_name"), error=True)
            return
        self.run_worker(self._rename(name), group="account", exclusive=True)

    async def _rename(self, name: str) -> None:
        lobby = self.ctx.lobby
        if lobby is None:
            return
        try:
            reply = await lobby.rename_identity(name)
        except Refused as exc:
            self.say(signin.refused_words(exc, name), error=True)
            return
        except (ClientError, TimeoutError) as exc:
            self.say(t("account.not_renamed", problem=str(exc)), error=True)
            return
        signin.keep(self.ctx, lobby)
        self.ctx.name = reply.identity.handle
        self.query_one("#rename", Input).value = ""
        self._who()
        self.say(t("account.renamed", name=isolate(reply.identity.handle)))

    @on(Button.Pressed, "#transfer")
    def _transfer_pressed(self) -> None:
        self.run_worker(self._transfer(), group="account", exclusive=True)

    async def _transfer(self) -> None:
        lobby = self.ctx.lobby
        if lobby is None:
            return
        try:
            reply = await lobby.transfer_code()
        except Refused as exc:
            self.say(signin.refused_words(exc), error=True)
            return
        except (ClientError, TimeoutError) as exc:
            self.say(t("account.no_code", problem=str(exc)), error=True)
            return
        code = reply.transfer_code
        command = f"echo-ridge play {self.ctx.url} --claim {code}"
        out = Text(t("account.code", code=code, command=command,
                     until=expiry_words(reply.expires)))  # fmt: skip
        stylize(out, code, "bold reverse")
        stylize(out, command, "bold")
        self.code_text = out.plain
        self.query_one("#transfer-code", Static).update(out)
        self.say("")

    @on(Button.Pressed, "#unblock")
    def _unblock_pressed(self) -> None:
        widget = self.query_one("#blocked-list", OptionList)
        index = widget.highlighted
        option = widget.get_option_at_index(index) if index is not None else None
        if option is None or option.id is None:
            self.say(t("account.choose"), error=True)
            return
        self.run_worker(self._unblock(option.id), group="account", exclusive=True)

    async def _unblock(self, ident: str) -> None:
        lobby = self.ctx.lobby
        if lobby is None:
            return
        handle = self.ctx.blocked.get(ident) or t("account.that_player")
        try:
            result = await lobby.unblock(ident)
        except Refused as exc:
            self.say(signin.refused_words(exc), error=True)
            return
        except (ClientError, TimeoutError) as exc:
            self.say(t("account.not_unblocked", problem=str(exc)), error=True)
            return
        if result.outcome != "accepted":
            self.say(signin.code_words(result.code or ""), error=True)
            return
        self.ctx.blocked.pop(ident, None)
        self._list()
        self.say(t("players.unblocked", name=isolate(handle)))
