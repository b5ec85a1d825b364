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


def expiry_words(expires_ms: int, now: float | None = None) -> str:
    """When a transfer code expires: ``14:32 (in 10 minutes)``, local time."""
    now = time.time() if now is None else now
    at = time.strftime("%H:%M", time.localtime(expires_ms / 1000))
    minutes = max(0, round((expires_ms / 1000 - now) / 60))
    return f"{at} (in {minutes} minute{'s' if minutes != 1 else ''})"


class AccountScreen(ModalScreen[None]):
    """The player's identity: rename, transfer code, blocked players."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.pop_screen", "Back")]

    def __init__(self, ctx: Context) -> None:
        super().__init__()
        self.ctx = ctx
        self.said = ""  # the last answer shown, plain (for tests)
        self.code_text = ""  # the transfer code's lines, plain (for tests)

    def compose(self) -> ComposeResult:
        with Vertical(id="account"):
            yield Static(id="account-who")
            yield Label("A new name (the games you played keep the old one)")
            with Horizontal(classes="row"):
                yield Input(placeholder="new name", max_length=32, id="rename")
                yield Button("Rename", id="do-rename")
            yield Label("Play as yourself on another device")
            yield Button("Show a transfer code", id="transfer")
            yield Static(id="transfer-code")
            yield Label("Players you block (their chat is hidden, their tables marked)")
            yield OptionList(id="blocked-list")
            yield Button("Unblock the chosen player", id="unblock")
            yield Static(id="account-said")
        yield Footer()

    def on_mount(self) -> None:
        self._who()
        self._list()
        self.query_one("#rename", Input).focus()

    def _who(self) -> None:
        me = self.ctx.me
        out = Text("You are ")
        out.append(me.handle if me else "nobody", style="bold")
        out.append(f" on {self.ctx.url}")
        if me is not None:
            out.append(f"  (player id {me.id})", style="dim")
        self.query_one("#account-who", Static).update(out)

    def _list(self) -> None:
        widget = self.query_one("#blocked-list", OptionList)
        widget.clear_options()
        if not self.ctx.blocked:
            widget.add_option(Option(Text("(nobody)", style="dim"), disabled=True))
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
            self.say("Type the new name first.", error=True)
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
            self.say(f"Not renamed: {exc}", error=True)
            return
        signin.keep(self.ctx, lobby)
        self.ctx.name = reply.identity.handle
        self.query_one("#rename", Input).value = ""
        self._who()
        self.say(f"You are {reply.identity.handle} from now on.")

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
            self.say(f"No transfer code: {exc}", error=True)
            return
        out = Text("Transfer code: ")
        out.append(reply.transfer_code, style="bold reverse")
        out.append("\nOn the other device, run:\n  ")
        out.append(f"echo-ridge play {self.ctx.url} --claim {reply.transfer_code}", style="bold")
        out.append(f"\nIt works once, until {expiry_words(reply.expires)}.")
        self.code_text = out.plain
        self.query_one("#transfer-code", Static).update(out)
        self.say("")

    @on(Button.Pressed, "#unblock")
    def _unblock_pressed(self) -> None:
        widget = self.query_one("#blocked-list", OptionList)
        index = widget.highlighted
        option = widget.get_option_at_index(index) if index is not None else None
        if option is None or option.id is None:
            self.say("Choose a player in the list first.", error=True)
            return
        self.run_worker(self._unblock(option.id), group="account", exclusive=True)

    async def _unblock(self, ident: str) -> None:
        lobby = self.ctx.lobby
        if lobby is None:
            return
        handle = self.ctx.blocked.get(ident, "that player")
        try:
            result = await lobby.unblock(ident)
        except Refused as exc:
            self.say(signin.refused_words(exc), error=True)
            return
        except (ClientError, TimeoutError) as exc:
            self.say(f"Not unblocked: {exc}", error=True)
            return
        if result.outcome != "accepted":
            self.say(signin.code_words(result.code or ""), error=True)
            return
        self.ctx.blocked.pop(ident, None)
        self._list()
        self.say(f"{handle} is no longer blocked.")
