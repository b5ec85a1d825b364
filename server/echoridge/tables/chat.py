"""A live table's chat on one node: the lines kept, who may read them, delayed table lines for
the spectators, and the rate limits (SPEC.md §6.7).

Two channels: ``table`` (the seats say, everyone reads; spectators read a line said at table
version v once their delayed view has reached v) and ``spectators`` (the spectators say and
read; a seat session reads it only once it opts in with ``chat_options``).  Lines live in the
store (store/chat.py), outside the game log; every node serving the table follows them, so a
line said on one node reaches the sessions of every node.  A line said here is applied at once
when it is the next of its channel; the follower's copy is then skipped (and a line that is not
the next is left to the follower, which brings the ones before it first).

The rate limit is kept in the store with the line (store/chat.py: one script checks, appends
and counts), per seat and per spectators' client address (IPv6: its /64, as the connection caps
count it; net/gate.py), and per identity besides for a signed-in sender, so it holds across
reconnects, addresses, workers and nodes.  A line carries its signed-in sender's identity (a
seat's from the table's metadata, a spectator's from its session): the key by which a client
hides the lines of the players it blocks (SPEC.md §4.11).  A line must show
something (echoridge_protocol/text.py: a visible character, at most 4 marks on one).

Fan-out never awaits: each batch is one ``chat`` message per kind of reader, encoded once per
subprotocol (``Encoded``) and queued.  Logs never carry chat text: table, channel, the sender's
kind and the length only.
"""

from __future__ import annotations

import math
import secrets
import time
import weakref
from collections import deque
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from echoridge.logs import get_logger
from echoridge.store import StoreError, TableNotFound
from echoridge.store.chat import CHANNELS, MAXLEN, Rate, RateLimited, StoredLine
from echoridge.tables.errors import TableError
from echoridge.tables.viewers import SPECTATORS, Encoded
from echoridge_protocol import messages as m
from echoridge_protocol.text import JOINERS, marks_bounded, visible

if TYPE_CHECKING:
    from echoridge.tables.viewers import Sink

MAX_CHARS = 500  # after stripping
RATE = Rate(lines=5, seconds=10.0)  # per seat or spectators' address, and identity, per table
HISTORY_LINES = 50  # in a welcome, and when a seat opts in to the spectators' chat
SPECTATOR_NAME = "Spectator"
# The zero-width joiner and non-joiner are format characters (category Cf) that text needs:
# emoji sequences (👩‍💻) and scripts such as Persian; every other one is refused.
_WITHOUT_JOINERS = str.maketrans(dict.fromkeys(map(ord, JOINERS)))

log = get_logger("echoridge.chat")


def check_text(text: str) -> str:
    """The text as it will be said (stripped), or a ``TableError`` with the chat code."""
    text = text.strip()
    if not text:
        raise TableError("chat/empty")
    if len(text) > MAX_CHARS:
        raise TableError("chat/too_long", f"A chat line has at most {MAX_CHARS} characters.")
    if not text.translate(_WITHOUT_JOINERS).isprintable() or not marks_bounded(text):
        raise TableError("chat/bad_text")
    if not visible(text):  # only blank letters, joiners, marks
        raise TableError("chat/empty")
    return text


def wire(line: StoredLine) -> m.ChatLine:
    return m.ChatLine(
        seq=line.seq,
        channel=line.channel,  # type: ignore[arg-type]
        sender=line.sender,
        name=line.name,
        text=line.text,
        version=line.version,
        at=line.at,
        seat=line.seat,
        identity=line.identity,
    )


class TableChat:
    """The chat of one ``TableRunner`` (it reads the runner's groups and versions).  It holds
    its runner weakly: the runner owns it, and a back reference would make the two a cycle
    that outlives the runner's reaping until a full collection (serve.py)."""

    def __init__(self, runner: Any) -> None:
        self.runner = weakref.proxy(runner)
        self.table: str = runner.table
        self.store = runner.node.storage.chat
        self.follower = runner.node.storage.chat_follower
        self.lines: dict[str, deque[StoredLine]] = {c: deque(maxlen=MAXLEN) for c in CHANNELS}
        self.last: dict[str, int] = dict.fromkeys(CHANNELS, 0)
        self.readers: set[Sink] = set()  # seat sessions that read the spectators' chat
        self.spectator_ids: dict[Sink, str] = {}
        self._handle: object | None = None

    # --- lifecycle (runner.open/close) ------------------------------------------------------

    async def open(self) -> None:
        """Load the lines kept and follow the table's chat.  A store that cannot be read now
        leaves the history empty (the game does not wait on chat); the follower fills in."""
        try:
            for channel, lines in (await self.store.recent(self.table)).items():
                self.lines[channel].extend(lines)
                if lines:
                    self.last[channel] = lines[-1].seq
        except StoreError:
            log.info("chat history unavailable", table=self.table)
        self._handle = self.follower.follow(self.table, self.last, self.received)

    def close(self) -> None:
        if self._handle is not None:
            self.follower.unfollow(self.table, self._handle)
            self._handle = None
        self.readers.clear()
        self.spectator_ids.clear()

    # --- sessions (viewers.attach/detach) ---------------------------------------------------

    def welcome(self, hello: m.Welcome, key: int, sink: Sink) -> m.Welcome:
        """``hello`` with the last lines this session may read at the welcome's version."""
        upto = hello.version if hello.version is not None else 0
        lines = self._readable(key, sink, upto)[-HISTORY_LINES:]
        return replace(hello, chat=tuple(wire(line) for line in lines) or None)

    def caught_up(self, sink: Sink, key: int, since: int, until: int) -> None:
        """A resumed spectator's deltas from ``since`` to ``until`` are queued: the table lines
        of those versions follow them."""
        if key != SPECTATORS or until <= since:
            return
        lines = [line for line in self.lines["table"] if since < line.version <= until]
        if lines:
            Encoded(self._message(lines)).send([sink])

    def detach(self, sink: Sink) -> None:
        self.readers.discard(sink)
        self.spectator_ids.pop(sink, None)

    def released(self, version: int) -> None:
        """The spectators' view has just reached ``version``: the table lines said at it."""
        group = self.runner.groups.get(SPECTATORS)
        if group is None or not group.sinks:
            return
        lines = [line for line in self.lines["table"] if line.version == version]
        if lines:
            Encoded(self._message(lines)).send(group.sinks)

    # --- requests (net/session.py) ----------------------------------------------------------

    async def say(
        self,
        sink: Sink,
        key: int,
        channel: str,
        text: str,
        name: str | None,
        address: str,
        identity: str | None = None,
    ) -> None:
        """Say ``text`` on ``channel`` for the session ``sink`` (a seat, or ``SPECTATORS``,
        whose client address, as the connection caps count it, is ``address``, signed in as
        ``identity`` if at all); refusals raise ``TableError`` with a ``chat/…`` code, a store
        away ``StoreError``."""
        kind = "spectator" if key == SPECTATORS else "seat"
        try:
            if channel != ("spectators" if key == SPECTATORS else "table"):
                raise TableError("chat/not_allowed")
            text = check_text(text)
            if key == SPECTATORS:
                sender = self.spectator_ids.setdefault(sink, f"spectator:{secrets.token_hex(8)}")
                said_as, who = name or SPECTATOR_NAME, f"addr:{address}"
            else:
                sender, said_as = f"seat:{key}", await self._seat_name(key)
                who, identity = sender, await self._seat_meta(key, "identity")
            try:
                line = await self.store.add(
                    self.table,
                    channel,
                    sender=sender,
                    name=said_as,
                    text=text,
                    version=self.runner.version,
                    at=int(time.time() * 1000),
                    seat=None if key == SPECTATORS else key,
                    identity=identity,
                    who=who,
                    rate=RATE,
                )
            except TableNotFound:  # (released meanwhile: tables/archiving.py)
                raise TableError("table/archived") from None
            except RateLimited as exc:
                raise TableError(
                    "chat/rate_limited",
                    f"At most {RATE.lines} chat lines every {RATE.seconds:g} seconds; "
                    f"wait {max(1, round(exc.wait))} s.",
                    retry_in=max(1, math.ceil(exc.wait * 1000)),
                ) from None
        except TableError as exc:
            log.info("chat refused", table=self.table, channel=channel, sender=kind, code=exc.code)
            raise
        log.info("chat line", table=self.table, channel=channel, sender=kind, length=len(text))
        if line.seq == self.last[channel] + 1:
            self.received([line])

    def options(self, sink: Sink, key: int, spectators: bool) -> None:
        """A seat session reads the spectators' chat from now on (with its recent lines), or
        no longer."""
        if key == SPECTATORS:
            raise TableError("chat/not_allowed", "Spectators read the spectators' chat already.")
        if not spectators:
            self.readers.discard(sink)
            return
        if sink not in self.readers:
            self.readers.add(sink)
            lines = list(self.lines["spectators"])[-HISTORY_LINES:]
            if lines:
                Encoded(self._message(lines)).send([sink])

    async def _seat_name(self, seat: int) -> str:
        return await self._seat_meta(seat, "name") or f"Seat {seat + 1}"

    async def _seat_meta(self, seat: int, field: str) -> str | None:
        """A seat's ``name`` or ``identity`` in the table's metadata (tables/lobby.py)."""
        meta = self.runner.meta
        if not meta.get(f"name:{seat}"):  # joined after this runner read the table's metadata
            meta = await self.runner.lobby.meta(self.table)
        return meta.get(f"{field}:{seat}") or None

    # --- lines arriving (this node's or the follower's) -------------------------------------

    def received(self, lines: list[StoredLine]) -> None:
        """New lines, in their channels' order: keep the ones not seen and send them on."""
        fresh: list[StoredLine] = []
        for line in lines:
            if line.seq <= self.last[line.channel]:
                continue  # seen already (said here, then read back)
            self.last[line.channel] = line.seq
            self.lines[line.channel].append(line)
            fresh.append(line)
        if not fresh or self.runner.closed:
            return
        try:
            self._fan_out(fresh)
        except Exception:  # never let a bad line stop the follower
            log.exception("chat fan-out failed", table=self.table)

    def _fan_out(self, lines: list[StoredLine]) -> None:
        table = [line for line in lines if line.channel == "table"]
        spectators = [line for line in lines if line.channel == "spectators"]
        seats: list[Sink] = []
        for key, group in self.runner.groups.items():
            if key == SPECTATORS:
                shown = [line for line in table if line.version <= group.version] + spectators
                self._send(shown, group.sinks)
            else:
                seats.extend(sink for sink in group.sinks if sink not in self.readers)
        self._send(table, seats)
        self._send(table + spectators, [sink for sink in self.readers])

    def _send(self, lines: list[StoredLine], sinks: Iterable[Sink]) -> None:
        sinks = list(sinks)
        if lines and sinks:
            Encoded(self._message(sorted(lines, key=_order))).send(sinks)

    def _message(self, lines: Iterable[StoredLine]) -> m.Chat:
        return m.Chat(table=self.table, lines=tuple(wire(line) for line in lines))

    def _readable(self, key: int, sink: Sink, upto: int) -> list[StoredLine]:
        """Every line kept that this session may read with its view at ``upto``, in order."""
        if key != SPECTATORS:
            lines = list(self.lines["table"])
            if sink in self.readers:
                lines += self.lines["spectators"]
        else:
            lines = [line for line in self.lines["table"] if line.version <= upto]
            lines += self.lines["spectators"]
        return sorted(lines, key=_order)


def _order(line: StoredLine) -> tuple[int, int, int]:
    return (line.at, CHANNELS.index(line.channel), line.seq)
