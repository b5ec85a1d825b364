"""Clocks, absence and handover for a live session (SPEC.md §5.4, §6.6).

``TableSession`` (session.py) mixes ``SessionClocks`` in: ``running(kind, seat)`` lists the
clocks of the latest ``clocks`` message (the newest replaces the ones before; it is not sent
again while the clocks stay the same), ``played_by_server(seat)`` says whether the server
plays a seat now (``players[i].auto``, or the rest of a turn whose clock ran out), and
``controls`` lists the seat commands of ``you.controls``.

``Seat`` mixes ``SeatCommands`` in: ``extend_time()`` ("more time"), ``play_for_me()``,
``take_back()``, ``vote_handover(target)`` and ``auto_pass(on)`` send the matching map of
``you.controls`` with ``Seat.act`` (a unique command id, the view's version, retries after
``server/unavailable``).  When the view does not list it (not allowed now, or the view is a
version behind) the map is sent all the same, with this seat, so that the server's refusal
says why: a rejected result (``rules/already_extended``, ``command/player_present``, ...),
never an exception.

These are not moves of the game: ``Seat.play`` and the bot policies choose only from
``you.legal``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from echoridge_client.errors import ClientError
from echoridge_protocol import messages as m

STALE_RETRIES = 5  # a seat command sent again at the new version after a stale refusal
STALE_WAIT = 2.0  # seconds to wait for the view to move on before sending it again


class SessionClocks:
    """What every session (seat or spectator) can say about the clocks and the seats."""

    view: dict[str, Any]
    version: int
    clocks: m.Clocks | None

    def _you(self) -> dict[str, Any]:
        you = self.view.get("you")
        return you if isinstance(you, dict) else {}

    @property
    def controls(self) -> list[dict[str, Any]]:
        """The seat commands this seat may send now (``you.controls``): not moves of the game."""
        return list(self._you().get("controls") or [])

    def running(self, kind: str | None = None, seat: int | None = None) -> list[m.RunningClock]:
        """The clocks that run now (the latest ``clocks`` message; none once the game is over),
        of that ``kind`` and ``seat``.  The server sends the message again only when the
        running clocks change, so an older version's message still holds."""
        clocks = self.clocks
        if clocks is None or self.view.get("status") == "over":
            return []
        return [
            c
            for c in clocks.clocks
            if (kind is None or c.kind == kind) and (seat is None or c.seat == seat)
        ]

    def played_by_server(self, seat: int | None = None) -> bool:
        """Whether the server plays ``seat`` (default: this session's) now: handed over
        (``players[i].auto``), or the rest of a turn whose clock ran out (``turn.timed_out``)."""
        if seat is None:
            seat = self._you().get("seat")
        players = self.view.get("players") or []
        if not isinstance(seat, int) or not 0 <= seat < len(players):
            return False
        if players[seat].get("auto"):
            return True
        turn = self.view.get("turn")
        return bool(isinstance(turn, dict) and turn.get("seat") == seat and turn.get("timed_out"))


class SeatCommands(SessionClocks):
    """A seat's own commands about its seat."""

    if TYPE_CHECKING:

        async def act(self, command: dict[str, Any], timeout: float = 30.0) -> m.Result: ...

        async def wait(self, predicate: Callable[[], bool], timeout: float | None = None) -> None:
            ...

    async def extend_time(self, timeout: float = 30.0) -> m.Result:
        """"More time": move up to one turn's time from the seat's bank to this turn."""
        return await self._control({"type": "extend_time"}, timeout)

    async def play_for_me(self, timeout: float = 30.0) -> m.Result:
        """Let the server play this seat until ``take_back``."""
        return await self._control({"type": "play_for_me"}, timeout)

    async def take_back(self, timeout: float = 30.0) -> m.Result:
        """Play the seat again after the server played it."""
        return await self._control({"type": "take_back"}, timeout)

    async def vote_handover(self, target: int, timeout: float = 30.0) -> m.Result:
        """Vote to let the server play ``target``, whose player is away (the server refuses
        one who is here with ``command/player_present``)."""
        return await self._control({"type": "vote_handover", "target": target}, timeout)

    async def auto_pass(self, on: bool, timeout: float = 30.0) -> m.Result:
        """"Pass when I have nothing to play" on or off (``you.auto_pass``; on as a seat
        starts): while on, the server answers a Force card window for the seat when
        ``proceed`` is all it could send."""
        return await self._control({"type": "auto_pass", "on": on}, timeout)

    async def _control(self, wanted: dict[str, Any], timeout: float) -> m.Result:
        listed = next(
            (c for c in self.controls if all(c.get(k) == v for k, v in wanted.items())), None
        )
        seat = self._you().get("seat")
        if listed is None and not isinstance(seat, int):
            raise ClientError("no seat to command: the game has not started")
        command = dict(listed) if listed is not None else {**wanted, "seat": seat}
        # A seat command does not depend on the board, only on the version it names: while
        # the table moves on (the server playing this seat, bots), send it again at the new
        # version rather than refuse the player's key press with a stale version.
        for _ in range(STALE_RETRIES):
            version = self.version
            result = await self.act(command, timeout)
            if result.outcome != "rejected" or result.code != "command/stale_version":
                return result
            with contextlib.suppress(TimeoutError):  # the view catches up, then again
                await self.wait(lambda v=version: self.version != v, STALE_WAIT)
        return result
