"""Table chat for a live session (SPEC.md §6.7): the lines this session may read, who is muted,
and the requests ``say`` and ``chat_options``.

``TableSession`` (session.py) mixes ``SessionChat`` in.  Lines come from the welcome (the
recent history) and from ``chat`` messages; a line is known by its channel and ``seq``, so one
that comes twice (a welcome after a reconnect) is kept once.  ``chat`` lists the lines kept,
oldest first, without those of muted senders; ``on_chat(session, lines)`` is told of each batch
of new lines that are not muted.  Mute is the client's: the server sends every line, and
``mute(sender)`` hides a sender's lines (their ``sender`` id is stable: ``seat:N``, or one
spectator's connection).  ``block(identities)`` hides the lines of the players the user blocks
(SPEC.md §4.11: ``Lobby.blocked()``), by the ``identity`` a signed-in sender's lines carry,
wherever they sit or watch.  A seat that reads the spectators' chat asks again after a
reconnect (the option belongs to a connection).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from echoridge_client.errors import ClientError
from echoridge_protocol import messages as m

if TYPE_CHECKING:
    from echoridge_client.connection import Connection

KEPT_LINES = 1000  # lines a session keeps (the oldest go first)

OnChat = Callable[[Any, list[m.ChatLine]], None]


class SessionChat:
    """The chat side of a table session."""

    connection: Connection | None
    error: BaseException | None

    def _chat_init(self) -> None:
        self.chat_name: str | None = None  # a spectator's display name (hello.name)
        self.on_chat: OnChat | None = None
        self._chat_lines: list[m.ChatLine] = []
        self._chat_seen: set[tuple[str, int]] = set()
        self._muted: set[str] = set()
        self._blocked: set[str] = set()  # identities
        self._chat_spectators = False  # this seat asked to read the spectators' chat

    # --- what the session reads -----------------------------------------------------------

    @property
    def chat(self) -> list[m.ChatLine]:
        """The lines kept, oldest first, without those of muted senders and blocked players."""
        return [line for line in self._chat_lines if self._shown(line)]

    def _shown(self, line: m.ChatLine) -> bool:
        return line.sender not in self._muted and line.identity not in self._blocked

    @property
    def muted(self) -> frozenset[str]:
        return frozenset(self._muted)

    def mute(self, sender: str) -> None:
        """Hide the lines of ``sender`` (a ``ChatLine.sender``), those kept and those to come."""
        self._muted.add(sender)

    def unmute(self, sender: str) -> None:
        self._muted.discard(sender)

    def block(self, identities: Iterable[str]) -> None:
        """Hide the lines of these players (identity ids) from now on: the players the user
        blocks (``Lobby.blocked()``); the list replaces the one before."""
        self._blocked = set(identities)

    def _chat_take(self, lines: Iterable[m.ChatLine]) -> list[m.ChatLine]:
        """Keep the lines not seen yet; the new ones that are not muted (for ``on_chat``)."""
        fresh = []
        for line in lines:
            known = (line.channel, line.seq)
            if known in self._chat_seen:
                continue
            self._chat_seen.add(known)
            self._chat_lines.append(line)
            fresh.append(line)
        if not fresh:
            return []
        self._chat_lines.sort(key=lambda line: (line.at, line.channel != "table", line.seq))
        if len(self._chat_lines) > KEPT_LINES:
            for line in self._chat_lines[:-KEPT_LINES]:
                self._chat_seen.discard((line.channel, line.seq))
            del self._chat_lines[:-KEPT_LINES]
        shown = [line for line in fresh if self._shown(line)]
        if shown and self.on_chat is not None:
            self.on_chat(self, shown)
        return shown

    def _chat_welcome(self, welcome: m.Welcome) -> None:
        self._chat_take(welcome.chat or ())

    def _chat_connected(self) -> None:
        """A new connection: a seat that read the spectators' chat asks again."""
        if self._chat_spectators:
            asyncio.get_running_loop().create_task(self._ask_again())

    async def _ask_again(self) -> None:
        with contextlib.suppress(ClientError, TimeoutError):
            await self._send_chat_options(True)

    # --- requests --------------------------------------------------------------------------

    async def say(self, text: str, channel: m.Channel = "table", timeout: float = 10.0) -> m.Result:
        """Say ``text`` (a seat on ``"table"``, a spectator on ``"spectators"``); the
        ``result`` (rejected with a ``chat/…`` code when the server refuses the line)."""
        return await self._chat_request(
            lambda c: m.Say(id=c.next_id("s"), channel=channel, text=text), timeout
        )

    async def chat_options(self, spectators: bool, timeout: float = 10.0) -> m.Result:
        """A seat reads the spectators' chat too (``True``) or no longer; kept over
        reconnects."""
        result = await self._send_chat_options(spectators, timeout)
        if result.outcome == "accepted":
            self._chat_spectators = spectators
        return result

    async def _send_chat_options(self, spectators: bool, timeout: float = 10.0) -> m.Result:
        return await self._chat_request(
            lambda c: m.ChatOptions(id=c.next_id("o"), spectators=spectators), timeout
        )

    async def _chat_request(
        self, make: Callable[[Connection], m.ClientMessage], timeout: float
    ) -> m.Result:
        if self.error is not None:
            raise self.error
        connection = self.connection
        if connection is None:
            raise ClientError("not connected")
        reply = await connection.request(make(connection), timeout=timeout)
        if not isinstance(reply, m.Result):
            raise ClientError(f"unexpected reply to a chat request: {reply.TYPE}")
        return reply
