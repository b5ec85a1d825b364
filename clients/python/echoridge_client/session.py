"""Live sessions at a table: a seat (plays) or a spectator (watches).

A session keeps a mirror of its view current by applying the server's deltas, checks every
reveal against its commitment as it arrives (``RevealError`` otherwise), and reconnects on its
own when the connection drops: it resumes from the version it holds (exactly the missing deltas)
or takes a fresh view.  ``Seat.act`` gives each command a unique id; a command whose result was
lost with the connection is sent again with the same id after the reconnect, and one refused
with ``server/unavailable`` (the server's store is away) is sent again with the same id after a
jittered backoff, so it is applied once (retry.py).  A reconnect refused that way is retried
too, and so is a connection the server refuses at the upgrade for now (HTTP 429 or 503,
``Busy``), after the server's ``Retry-After``; ``on_busy`` is told of each such refusal.

The session keeps the game log as this viewer may know it (SPEC.md §6.3): ``log`` is the
welcome's log, then every delta's entries appended in order; a fresh welcome (with a view)
starts it again, a resumed one keeps it and the missing deltas complete it, so a reconnect
loses no entry and doubles none.  ``on_log(session, entries, reset)`` is told of every new batch;
``entries()`` iterates over the log as it grows.  ``presence``: the latest ``presence`` message
(who is connected), when the server sends one; ``deadline``: the latest ``deadline`` (when the
server will answer owed decisions; over once ``version`` has passed its version); ``clocks``:
the latest ``clocks`` (every clock that runs: turn, decision, handover, SPEC.md §6.6).

A seat's own commands about the seat (SPEC.md §5.4: ``extend_time``, ``play_for_me``,
``take_back``, ``vote_handover``) are listed apart from the moves, in ``you.controls``
(``Seat.controls``); ``Seat.extend_time()``, ``play_for_me()``, ``take_back()`` and
``vote_handover(target)`` send them like any command.  ``Seat.play`` and the bot policies choose
only from ``you.legal``, never from the controls, and wait while the server plays the seat
(``played_by_server``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from echoridge_client.chat import SessionChat
from echoridge_client.connection import TIMEOUT, Connection, for_table, hello, welcome_of
from echoridge_client.errors import Busy, ClientError, Refused, RevealError
from echoridge_client.retry import RETRY_SECONDS, Backoff, busy_delay, retryable
from echoridge_client.reveals import Verifier
from echoridge_client.seatclocks import SeatCommands, SessionClocks
from echoridge_protocol import messages as m
from echoridge_protocol.delta import DeltaError, apply

RECONNECT_FIRST, RECONNECT_CAP = 0.05, 2.0  # seconds (jittered backoff, retry.py)
RECONNECT_ATTEMPTS = 1000
FINAL_CLOSES = {1000, 1008, 1009, 4000, 4001, 4004, 4009}  # do not reconnect after these
RESTART_CLOSES = {1001, 1012}  # the server drains: reconnect at once, to the next server
# a refused move that only means "not now": look at the new view (the table moved on, or the
# server plays this seat for the moment)
WAIT_CODES = {"command/stale_version", "command/played_by_server"}
RATE_LIMITED = "protocol/rate_limited"  # a command sent too fast: sent again after retry_in


class TableSession(SessionChat, SessionClocks):
    """What a seat and a spectator share: the mirror, the reader, reconnecting, the chat
    (chat.py: ``chat``, ``on_chat``, ``say``, ``chat_options``, ``mute``), the clocks
    (seatclocks.py: ``running``, ``played_by_server``, ``controls``)."""

    def __init__(
        self,
        urls: str | Sequence[str],
        table: str,
        *,
        token: str | None = None,
        subprotocol: str = m.SUBPROTOCOL_MSGPACK,
        verify: bool = True,
    ) -> None:
        self.urls = [urls] if isinstance(urls, str) else list(urls)
        self.table = table
        self.token = token
        self.subprotocol = subprotocol
        self.verifier = Verifier() if verify else None
        self.view: dict[str, Any] = {}
        self.version = -1
        self.epoch = -1
        self.connection: Connection | None = None
        self.changed = asyncio.Condition()
        self.deliveries = 0  # deltas applied
        self.reconnects = 0
        self.error: BaseException | None = None
        self._closing = False
        self._url_index = 0
        self._watch: asyncio.Task[None] | None = None
        self._welcomed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.on_update: Callable[[TableSession], None] | None = None
        self.on_busy: Callable[[Busy], None] | None = None  # the upgrade refused for now
        self.log: list[dict[str, Any]] = []  # the game log, oldest first
        self.log_whole = False  # the log came whole (a fresh welcome after the game)
        self.log_resets = 0  # fresh welcomes that started the log again
        self.on_log: Callable[[TableSession, list[dict[str, Any]], bool], None] | None = None
        self.presence: m.Presence | None = None
        self.deadline: m.Deadline | None = None  # the latest decision clock (SPEC.md §6.5)
        self.clocks: m.Clocks | None = None  # the clocks that run (SPEC.md §6.6)
        self.rematch_table: str | None = None  # the finished table's rematch (SPEC.md §4.6)
        self.identity_secret: str | None = None  # a spectator signed in (a seat is by its token)
        self._log_pending: tuple[list[dict[str, Any]], bool] | None = None
        self._chat_init()

    # --- opening, reconnecting, closing -----------------------------------------------------

    async def start(self, retry_for: float = RETRY_SECONDS, busy_for: float | None = None) -> None:
        """Connect (trying again for up to ``retry_for`` seconds while the server answers
        ``server/unavailable``, and for up to ``busy_for`` (default: ``retry_for``) while it
        refuses the upgrade for now: ``Busy``) and keep connected."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + retry_for
        busy_until = loop.time() + (retry_for if busy_for is None else busy_for)
        backoff = Backoff()
        while True:
            try:
                await self._connect(resume=False)
                break
            except Refused as exc:
                if not retryable(exc.code) or loop.time() > give_up:
                    raise
                delay = backoff.next()
            except Busy as exc:
                delay = busy_delay(exc, backoff)
                if loop.time() + delay > busy_until:
                    raise
                if self.on_busy is not None:
                    self.on_busy(exc)
            await asyncio.sleep(delay)
        self._watch = asyncio.create_task(self._keep_connected(), name="echoridge session")

    async def _connect(self, resume: bool) -> None:
        url = self.urls[self._url_index % len(self.urls)]
        self._welcomed = asyncio.get_running_loop().create_future()
        connection = await Connection.open(
            for_table(url, self.table), self.subprotocol, self._on_message
        )
        spectate = None if self.token else True
        point = m.Resume(self.epoch, self.version) if resume and self.version >= 0 else None
        try:
            await connection.send(
                hello(
                    table=self.table,
                    token=self.token,
                    spectate=spectate,
                    resume=point,
                    name=self.chat_name if spectate else None,
                    identity=self.identity_secret if spectate else None,
                )
            )
            async with asyncio.timeout(TIMEOUT):
                await self._welcomed
        except TimeoutError as exc:
            await connection.close()
            raise ClientError("no welcome") from exc
        except BaseException:
            await connection.close()
            raise
        self.connection = connection
        self._chat_connected()

    async def _keep_connected(self) -> None:
        while not self._closing:
            connection = self.connection
            assert connection is not None
            await connection.closed.wait()
            if self._closing or self.error is not None:
                return
            if connection.close_code in FINAL_CLOSES:
                self.error = ClientError(f"the server closed the session ({connection.close_code})")
                await self._notify()
                return
            now = connection.close_code in RESTART_CLOSES
            if now:
                self._url_index += 1  # (elsewhere: this server is going away)
            await self._reconnect(now)

    async def _reconnect(self, now: bool = False) -> None:
        """Connect again with ``resume``, after a jittered backoff (``now``: the first try at
        once, for a server that drains; after ``Busy``: the server's ``Retry-After``)."""
        backoff = Backoff(RECONNECT_FIRST, RECONNECT_CAP)
        busy: Busy | None = None
        for attempt in range(RECONNECT_ATTEMPTS):
            if busy is not None:
                await asyncio.sleep(busy_delay(busy, backoff))
                busy = None
            elif not (now and attempt == 0):
                await asyncio.sleep(backoff.next())
            if self._closing:
                return
            try:
                await self._connect(resume=True)
                self.reconnects += 1
                await self._after_reconnect()
                return
            except Refused as exc:
                if not retryable(exc.code):
                    self.error = exc
                    await self._notify()
                    return
            except Busy as exc:
                busy = exc
                if self.on_busy is not None:
                    self.on_busy(exc)
                self._url_index += 1  # (another server may have room)
            except ClientError:
                self._url_index += 1  # try the next server
        self.error = ClientError("could not reconnect")
        await self._notify()

    async def _after_reconnect(self) -> None:
        """Hook: a seat sends again the command whose result was lost."""

    async def close(self) -> None:
        self._closing = True
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watch
        if self.connection is not None:
            await self.connection.close()
        await self._notify()

    # --- the mirror -----------------------------------------------------------------------------

    def _take_welcome(self, welcome: m.Welcome) -> None:
        if welcome.view is not None:
            self.view = dict(welcome.view)
            self.log = [dict(e) for e in welcome.log or ()]
            self.log_whole = self.view.get("status") == "over"
            self.log_resets += 1
            self._log_pending = (list(self.log), True)
        elif not welcome.resumed:
            raise ClientError("a fresh welcome without a view")
        self.version = welcome.version if welcome.version is not None else 0
        self.epoch = welcome.epoch if welcome.epoch is not None else 0
        self._chat_welcome(welcome)
        self._check()

    async def _on_message(self, message: m.ServerMessage) -> None:
        try:
            await self._take(message)
        except RevealError as exc:
            if not self._welcomed.done():
                self._welcomed.set_exception(exc)
            await self._fail(exc)

    async def _take(self, message: m.ServerMessage) -> None:
        welcomed = self._welcomed
        if not welcomed.done():
            try:
                self._take_welcome(welcome_of(message))
                welcomed.set_result(None)
            except ClientError as exc:
                welcomed.set_exception(exc)
            await self._notify()
            return
        if isinstance(message, m.Delta):
            if message.epoch != self.epoch or message.version != self.version + 1:
                await self._drop("a delta out of order")
                return
            try:
                self.view = apply(self.view, message.ops)
            except DeltaError:
                await self._drop("a delta that does not apply")
                return
            self.version = message.version
            self.deliveries += 1
            if message.log:
                entries = [dict(e) for e in message.log]
                self.log.extend(entries)
                self._log_pending = (entries, False)
            self._check()
            await self._notify()
        elif isinstance(message, m.Presence):
            if message.table == self.table:
                self.presence = message
                await self._notify()
        elif isinstance(message, m.Deadline):
            if message.table == self.table:
                self.deadline = message
                await self._notify()
        elif isinstance(message, m.Clocks):
            if message.table == self.table:
                self.clocks = message
                await self._notify()
        elif isinstance(message, m.Chat):
            if message.table == self.table and self._chat_take(message.lines):
                await self._notify()
        elif isinstance(message, m.Rematch):
            if message.table == self.table:
                self.rematch_table = message.next
                await self._notify()
        elif isinstance(message, m.ServerBye) and message.code in FINAL_CLOSES - {1000}:
            self.error = ClientError(f"the server closed the session: {message.reason}")
            await self._notify()  # (a waiter must learn it: the close that follows will not say)

    def _check(self) -> None:
        if self.verifier is not None:
            self.verifier.check(self.view)

    async def _fail(self, error: BaseException) -> None:
        """Stop for good: the session cannot be trusted (or used) any more."""
        self.error = error
        self._closing = True
        await self._notify()
        if self.connection is not None:
            with contextlib.suppress(Exception):
                await self.connection.ws.close(1000, "client error")

    async def _drop(self, why: str) -> None:
        """Our copy is out of step: start again from a fresh view."""
        self.version = -1
        if self.connection is not None:
            await self.connection.ws.close(4011, why)

    async def _notify(self) -> None:
        pending, self._log_pending = self._log_pending, None
        if pending is not None and self.on_log is not None:
            self.on_log(self, *pending)
        async with self.changed:
            self.changed.notify_all()
        if self.on_update is not None:
            self.on_update(self)

    async def wait(self, predicate: Callable[[], bool], timeout: float | None = None) -> None:
        """Wait until ``predicate()`` holds (checked after every change)."""
        async with asyncio.timeout(timeout), self.changed:
            while not predicate():
                if self.error is not None:
                    raise self.error
                await self.changed.wait()
        if self.error is not None:
            raise self.error

    async def until_version(self, version: int, timeout: float | None = TIMEOUT) -> None:
        await self.wait(lambda: self.version >= version, timeout)

    async def entries(self, start: int = 0) -> AsyncIterator[dict[str, Any]]:
        """The log's entries from index ``start`` on, as they arrive, until the session closes
        (a fresh welcome that starts the log again starts this iteration again at 0).  Ends
        when the game is over and every entry has been given; raises the session's error."""
        index, resets = start, self.log_resets
        while True:
            async with self.changed:
                while index >= len(self.log) and resets == self.log_resets:
                    if self.error is not None:
                        raise self.error
                    if self._closing or self.over:
                        return
                    await self.changed.wait()
            if resets != self.log_resets:
                index, resets = 0, self.log_resets
            while index < len(self.log):
                index += 1
                yield self.log[index - 1]

    # --- what the view says ---------------------------------------------------------------------

    @property
    def status(self) -> str:
        return str(self.view.get("status", "new"))

    @property
    def over(self) -> bool:
        return self.status == "over"

    @property
    def you(self) -> dict[str, Any]:
        you = self.view.get("you")
        return you if isinstance(you, dict) else {}

    @property
    def legal(self) -> list[dict[str, Any]]:
        return list(self.you.get("legal") or [])

    @property
    def decision(self) -> dict[str, Any] | None:
        decision = self.you.get("decision")
        return decision if isinstance(decision, dict) else None


class Spectator(TableSession):
    @classmethod
    async def watch(
        cls,
        urls: str | Sequence[str],
        table: str,
        *,
        subprotocol: str = m.SUBPROTOCOL_MSGPACK,
        verify: bool = True,
        name: str | None = None,
        identity: str | None = None,
    ) -> Spectator:
        """Watch ``table``; ``name``: the display name in the spectators' chat; ``identity``:
        an identity's secret, to watch (and chat) signed in (SPEC.md §4.9)."""
        spectator = cls(urls, table, subprotocol=subprotocol, verify=verify)
        spectator.chat_name = name
        spectator.identity_secret = identity
        await spectator.start()
        return spectator


class Seat(TableSession, SeatCommands):
    """A seat: its view, its legal commands, and ``act``; its seat commands (seatclocks.py:
    ``extend_time``, ``play_for_me``, ``take_back``, ``vote_handover``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._in_flight: tuple[m.SendCommand, asyncio.Future[m.Result]] | None = None
        self.commands = 0
        self.retries = 0  # commands sent again after server/unavailable or a rate refusal
        self._retry_in: int | None = None  # the last refusal's retry_in (ms)

    @classmethod
    async def sit(
        cls,
        urls: str | Sequence[str],
        table: str,
        token: str,
        *,
        subprotocol: str = m.SUBPROTOCOL_MSGPACK,
        verify: bool = True,
    ) -> Seat:
        seat = cls(urls, table, token=token, subprotocol=subprotocol, verify=verify)
        await seat.start()
        return seat

    async def act(
        self, command: dict[str, Any], timeout: float = 30.0, retry_for: float = RETRY_SECONDS
    ) -> m.Result:
        """Send a command (one of ``legal``) with the version the view is at.  Waits for its
        result (``timeout`` seconds an attempt) and for the view to reach the result's version.
        A stale version comes back as a rejected result with ``command/stale_version``: look at
        the new view and choose again.  ``server/unavailable`` is retried with the same id for
        up to ``retry_for`` seconds before it is returned, and so is a command refused for the
        connection's rate (``protocol/rate_limited``: it had no effect), after the ``retry_in``
        the server gave (SPEC.md §2.3)."""
        if self.error is not None:
            raise self.error
        if self.connection is None:
            raise ClientError("not connected")
        request = m.SendCommand(
            id=self.connection.next_id("c"), expected=self.version, command=command
        )
        loop = asyncio.get_running_loop()
        give_up = loop.time() + retry_for
        backoff = Backoff()
        while True:
            future: asyncio.Future[m.Result] = loop.create_future()
            self._in_flight = (request, future)
            try:
                await self._send_in_flight()
                async with asyncio.timeout(timeout):
                    result = await future
            finally:
                self._in_flight = None
            limited = result.code == RATE_LIMITED
            if not (retryable(result.code) or limited) or loop.time() > give_up:
                break
            self.retries += 1
            wait = backoff.next()
            if limited:  # (never sooner than the server said: the bucket is empty till then)
                wait = max(wait, (self._retry_in or 0) / 1000)
            await asyncio.sleep(wait)
            if self.error is not None:
                raise self.error
        self.commands += 1
        if result.version is not None and result.outcome in ("accepted", "duplicate"):
            await self.until_version(result.version, timeout)
        return result

    async def _send_in_flight(self) -> None:
        if self._in_flight is None or self.connection is None:
            return
        request, future = self._in_flight
        connection = self.connection
        try:
            reply = await connection.request(request, timeout=600)
        except Refused as exc:
            self._retry_in = exc.retry_in
            if not future.done():
                future.set_result(
                    m.Result(id=request.id, outcome="rejected", code=exc.code, message=exc.message)
                )
            return
        except ClientError:
            return  # the connection dropped: sent again after the reconnect
        if isinstance(reply, m.Result) and not future.done():
            future.set_result(reply)

    async def _fail(self, error: BaseException) -> None:
        if self._in_flight is not None and not self._in_flight[1].done():
            self._in_flight[1].set_exception(error)
        await super()._fail(error)

    async def _after_reconnect(self) -> None:
        if self._in_flight is not None:
            asyncio.get_running_loop().create_task(self._send_in_flight())

    def _moved_on(self, version: int) -> Callable[[], bool]:
        return lambda: self.version != version or self.over

    async def play(self, policy: Any, timeout: float | None = None) -> None:
        """Play with ``policy`` (``choose(view, legal) -> command``) until the game is over.
        The policy sees ``you.legal`` only (never ``you.controls``); while the server plays the
        seat (handed over, or a turn that timed out) it waits for the table to move on."""
        async with asyncio.timeout(timeout):
            while not self.over:
                legal = self.legal
                if not legal or self.played_by_server():
                    await self.wait(self._moved_on(self.version))
                    continue
                result = await self.act(policy.choose(self.view, legal))
                if result.outcome == "rejected" and result.code not in WAIT_CODES:
                    raise ClientError(f"the server refused a legal command: {result.code}")
