"""The terminal client's chat (SPEC.md §6.7): the lines the session reads, and an input line.

A seat says on the table's chat, a spectator on the spectators'.  Lines are written as plain
``rich.text.Text`` (never console markup), so what someone typed shows as typed.  Refusals
(too long, too fast, ...) are written into the log in the words of ``REFUSALS``.  The lines of
the players the user blocks (the app's ``Context.blocked``, SPEC.md §4.11) are never shown:
``refilter`` writes the log again after a block or an unblock.
"""

from __future__ import annotations

import time

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, RichLog

from echoridge_client.errors import ClientError
from echoridge_client.session import Seat, TableSession
from echoridge_protocol import messages as m
from echoridge_terminal.i18n import error_words, t

#: The refusals a chat line may get, worded short (``chat.refused``); others: ``error.<code>``.
REFUSALS = frozenset({
    "chat/empty", "chat/too_long", "chat/bad_text", "chat/rate_limited", "chat/not_allowed",
})  # fmt: skip


def line_text(line: m.ChatLine, channel: str) -> Text:
    """One line: time, [the other channel], name, text."""
    at = time.strftime("%H:%M", time.localtime(line.at / 1000))
    text = Text(f"{at} ", style="dim")
    if line.channel != channel:
        text.append(t("chat.channel", channel=str(line.channel)), style="dim")
    text.append(line.name, style="bold")
    text.append(": ")
    text.append(line.text)
    return text


class ChatPanel(Vertical):
    """The chat log and its input line (``#chat-log``, ``#chat-input``)."""

    def __init__(self, session: TableSession) -> None:
        super().__init__(id="chat")
        self.session = session
        self.channel: m.Channel = "table" if isinstance(session, Seat) else "spectators"
        self.lines: list[str] = []  # every line shown, for tests

    def compose(self) -> ComposeResult:
        yield RichLog(id="chat-log", wrap=True, max_lines=500)
        words = t("chat.placeholder", channel=str(self.channel))
        yield Input(placeholder=words, max_length=500, id="chat-input")

    def on_mount(self) -> None:
        ctx = getattr(self.app, "ctx", None)
        if ctx is not None:
            self.session.block(ctx.blocked)
        self.session.on_chat = self._said
        self._said(self.session, self.session.chat)

    def refilter(self) -> None:
        """Write the log again, without the lines of the players blocked now."""
        ctx = getattr(self.app, "ctx", None)
        if ctx is not None:
            self.session.block(ctx.blocked)
        self.query_one("#chat-log", RichLog).clear()
        self.lines = []
        self._said(self.session, self.session.chat)

    def _said(self, session: TableSession, lines: list[m.ChatLine]) -> None:
        if not self.is_attached:
            return
        log = self.query_one("#chat-log", RichLog)
        for line in lines:
            text = line_text(line, self.channel)
            log.write(text)
            self.lines.append(text.plain)

    def _note(self, words: str) -> None:
        self.query_one("#chat-log", RichLog).write(Text(words, style="italic red"))
        self.lines.append(words)

    @on(Input.Submitted, "#chat-input")
    async def _submit(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text:
            return
        try:
            result = await self.session.say(text, self.channel)
        except (ClientError, TimeoutError) as exc:
            self._note(t("chat.not_sent", reason=str(exc)))
            return
        if result.outcome == "accepted":
            event.input.value = ""
        else:
            code = str(result.code or "")
            reason = t("chat.refused", code=code) if code in REFUSALS else error_words(code)
            self._note(t("chat.not_sent", reason=reason))
