"""A minimal websocket client for the end-to-end tests (the real SDK comes later).

    async with Client.connect(url, subprotocol="echoridge.v2.msgpack") as c:
        created = await c.create_table(seats=2)
        joined = await c.join(created.table, "Ann")
    async with Client.connect(url) as c:
        welcome = await c.hello(table=t, token=tok)   # c.mirror now follows the seat's view
        result = await c.command(c.mirror.legal[0])   # expected = the mirror's version
        await c.until_version(result.version)         # deltas read and applied

``recv`` reads the next message (messages that ``request`` skipped over first); every ``delta``
read off the socket is applied to ``c.mirror`` at once, whoever reads it.  Every raw frame is kept
in ``c.frames``, in the mirror's ``frames`` and in any ``FrameLog`` attached with ``record=`` or
``record_frames()``, so a test can scan everything a seat or spectator received — across
reconnections, when the same mirror or log is passed to the next connection:

    mirror = c.mirror
    async with Client.connect(url, mirror=mirror) as c2:
        await c2.hello(table=t, token=tok, resume=True)   # resume from mirror's epoch/version

Failures raise ``WsClientError`` (``Refused`` for an ``error`` reply, ``MirrorError`` for a delta
that does not follow or apply); a silent server raises ``TimeoutError``.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
from collections import deque
from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from typing import Any, TypeVar

import msgpack
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed
from websockets.typing import Subprotocol

from echoridge_protocol import codec
from echoridge_protocol import delta as deltas
from echoridge_protocol import messages as m

CLIENT_NAME = "echoridge-tests/0.1.0"
DEFAULT_TIMEOUT = 5.0

Frame = bytes | str
T = TypeVar("T", bound=m.ServerMessage)


class WsClientError(Exception):
    """The server did something a test did not expect."""


class Refused(WsClientError):
    """The server answered with an ``error``."""

    def __init__(self, error: m.ErrorMessage) -> None:
        super().__init__(f"{error.code}: {error.message}")
        self.error = error
        self.code = error.code


class MirrorError(WsClientError):
    """A delta that does not follow the mirror's epoch and version, or does not apply."""


def _short(message: object) -> str:
    text = repr(message)
    return text if len(text) <= 300 else text[:297] + "..."


# --- frames --------------------------------------------------------------------------------------


class FrameLog:
    """Raw frames, as received, for leak checks: ``contains``, ``plain`` and ``walk``."""

    def __init__(self, frames: Iterable[Frame] = ()) -> None:
        self.frames: list[Frame] = list(frames)

    def append(self, frame: Frame) -> None:
        self.frames.append(frame)

    def extend(self, frames: Iterable[Frame]) -> None:
        self.frames.extend(frames)

    def __len__(self) -> int:
        return len(self.frames)

    def __iter__(self) -> Iterator[Frame]:
        return iter(self.frames)

    def contains(self, needle: str | bytes) -> bool:
        """``needle`` occurs in some frame: a string as UTF-8 in binary frames and as is in text
        frames; bytes as is in binary frames and as lowercase hex in text frames."""
        return bool(self.find(needle))

    def find(self, needle: str | bytes) -> list[int]:
        """The indexes of the frames in which ``needle`` occurs (see ``contains``)."""
        if isinstance(needle, str):
            as_bytes, as_text = needle.encode(), needle
        else:
            as_bytes, as_text = needle, needle.hex()
        return [
            i
            for i, frame in enumerate(self.frames)
            if (as_text in frame if isinstance(frame, str) else as_bytes in frame)
        ]

    def plain(self) -> list[Any]:
        """Each frame as the plain value on the wire (msgpack or JSON), not checked."""
        return [
            json.loads(f) if isinstance(f, str) else msgpack.unpackb(f, raw=False) for f in self
        ]

    def walk(self) -> Iterator[tuple[int, tuple[str | int, ...], Any]]:
        """Every value of every frame, maps and lists included: ``(frame index, path, value)``;
        map keys are visited as values too (with the path of their map)."""
        for i, value in enumerate(self.plain()):
            yield from _walk(i, (), value)


def _walk(i: int, path: tuple[str | int, ...], value: Any) -> Iterator[tuple[int, Any, Any]]:
    yield i, path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield i, path, k
            yield from _walk(i, (*path, k), v)
    elif isinstance(value, list):
        for n, v in enumerate(value):
            yield from _walk(i, (*path, n), v)


# --- the mirror of a view ------------------------------------------------------------------------


class Mirror:
    """A viewer's view kept current: started from a ``welcome``, advanced by its ``delta``s."""

    def __init__(
        self,
        table: str,
        epoch: int,
        version: int,
        view: dict[str, Any],
        *,
        frames: FrameLog | None = None,
    ) -> None:
        self.table = table
        self.epoch = epoch
        self.version = version
        self.view = view
        self.frames = frames if frames is not None else FrameLog()
        self.applied = 0  # deltas applied, over the mirror's life

    @classmethod
    def from_welcome(cls, welcome: m.Welcome, *, frames: FrameLog | None = None) -> Mirror:
        """The mirror of a fresh (not resumed) seat or spectator ``welcome``."""
        table, epoch, version, view = cls._fresh_parts(welcome)
        return cls(table, epoch, version, view, frames=frames)

    @staticmethod
    def _fresh_parts(welcome: m.Welcome) -> tuple[str, int, int, dict[str, Any]]:
        if welcome.resumed:
            raise MirrorError("a resumed welcome has no view to start from")
        if (
            welcome.table is None
            or welcome.epoch is None
            or welcome.version is None
            or welcome.view is None
        ):
            raise MirrorError(f"a {welcome.session} welcome without a view: {_short(welcome)}")
        return welcome.table, welcome.epoch, welcome.version, welcome.view

    def take(self, welcome: m.Welcome) -> None:
        """Follow a new ``welcome`` of the same table: a resumed one must name exactly this
        mirror's epoch and version (the view stands); a fresh one replaces everything."""
        if welcome.table != self.table:
            raise MirrorError(f"welcome for table {welcome.table}, mirror of {self.table}")
        if welcome.resumed:
            if (welcome.epoch, welcome.version) != (self.epoch, self.version):
                raise MirrorError(
                    f"resumed at epoch {welcome.epoch} version {welcome.version}, "
                    f"mirror at epoch {self.epoch} version {self.version}"
                )
            return
        _, self.epoch, self.version, self.view = self._fresh_parts(welcome)

    def apply(self, delta: m.Delta) -> None:
        """Apply the next ``delta``: same table and epoch, version one more than the mirror's."""
        if delta.table != self.table:
            raise MirrorError(f"delta for table {delta.table}, mirror of {self.table}")
        if delta.epoch != self.epoch:
            raise MirrorError(f"delta of epoch {delta.epoch}, mirror at epoch {self.epoch}")
        if delta.version != self.version + 1:
            raise MirrorError(
                f"delta to version {delta.version}, mirror at version {self.version}"
            )
        try:
            view = deltas.apply(self.view, delta.ops)
        except deltas.DeltaError as exc:
            raise MirrorError(f"delta to version {delta.version}: {exc.message}") from exc
        if not isinstance(view, dict):
            raise MirrorError(f"delta to version {delta.version} made the view not a map")
        self.view = view
        self.version = delta.version
        self.applied += 1

    def resume_point(self) -> m.Resume:
        """What to send as ``hello.resume`` to pick up from here."""
        return m.Resume(epoch=self.epoch, version=self.version)

    @property
    def you(self) -> dict[str, Any] | None:
        """The seat's own part of the view (``None`` for a spectator or before the start)."""
        you = self.view.get("you")
        return you if isinstance(you, dict) else None

    @property
    def legal(self) -> list[dict[str, Any]]:
        """``you.legal``: the commands the seat may send now (empty when there is no ``you``)."""
        you = self.you
        return list(you.get("legal") or []) if you is not None else []

    @property
    def decision(self) -> Any:
        """``you.decision``: the decision the seat owes, if any."""
        you = self.you
        return you.get("decision") if you is not None else None

    @property
    def status(self) -> Any:
        return self.view.get("status")


# --- the client ----------------------------------------------------------------------------------


class Client:
    """One websocket connection speaking protocol v2 (see the module docstring)."""

    def __init__(
        self,
        ws: ClientConnection,
        subprotocol: str,
        *,
        mirror: Mirror | None = None,
        record: FrameLog | Sequence[FrameLog] = (),
    ) -> None:
        self.ws = ws
        self.subprotocol = subprotocol
        self.frames = FrameLog()
        self.mirror = mirror
        self._logs: list[FrameLog] = [self.frames]
        for log in [record] if isinstance(record, FrameLog) else record:
            self.record_frames(log)
        self._pending: deque[m.ServerMessage] = deque()
        self._ids = itertools.count(1)
        self.presence: m.Presence | None = None
        self.presences: list[m.Presence] = []
        self.deadlines: list[m.Deadline] = []
        self.clocks: list[m.Clocks] = []
        self.chats: list[m.Chat] = []

    @classmethod
    @contextlib.asynccontextmanager
    async def connect(
        cls,
        url: str,
        subprotocol: str = m.SUBPROTOCOL_MSGPACK,
        *,
        mirror: Mirror | None = None,
        record: FrameLog | Sequence[FrameLog] = (),
        open_timeout: float = DEFAULT_TIMEOUT,
        **options: Any,
    ) -> AsyncIterator[Client]:
        """Open a connection offering ``subprotocol`` only; ``options`` go to websockets'
        ``connect`` (e.g. ``ping_interval=None``)."""
        options.setdefault("max_size", codec.SERVER_LIMITS.frame_bytes)
        options.setdefault("close_timeout", 2)
        async with ws_connect(
            url,
            subprotocols=[Subprotocol(subprotocol)],
            open_timeout=open_timeout,
            **options,
        ) as ws:
            if ws.subprotocol != subprotocol:
                raise WsClientError(f"asked for {subprotocol}, server chose {ws.subprotocol}")
            yield cls(ws, subprotocol, mirror=mirror, record=record)

    # --- frames and messages ---

    def record_frames(self, log: FrameLog | None = None) -> FrameLog:
        """Record every frame received from now on in ``log`` (a new one by default)."""
        log = FrameLog() if log is None else log
        if all(log is not other for other in self._logs):
            self._logs.append(log)
        return log

    def next_id(self, prefix: str = "r") -> str:
        """A request id not used before on this client."""
        return f"{prefix}-{next(self._ids)}"

    async def send(self, message: m.ClientMessage) -> None:
        await self.ws.send(codec.encode(message, self.subprotocol))

    async def send_raw(self, frame: bytes | str) -> None:
        """Send any frame, e.g. a malformed one (bytes: a binary frame, str: a text frame)."""
        await self.ws.send(frame)

    async def recv(self, timeout: float = DEFAULT_TIMEOUT) -> m.ServerMessage:
        """The next message: one skipped by ``request``/``until_version`` first, else the
        next frame, decoded (``ConnectionClosed`` when the connection ends)."""
        if self._pending:
            return self._pending.popleft()
        async with asyncio.timeout(timeout):
            return await self._read()

    async def expect(self, kind: type[T], timeout: float = DEFAULT_TIMEOUT) -> T:
        """The next message, which must be a ``kind``."""
        message = await self.recv(timeout)
        if not isinstance(message, kind):
            if isinstance(message, m.ErrorMessage):
                raise Refused(message)
            raise WsClientError(f"expected {kind.TYPE}, got {_short(message)}")
        return message

    async def _read(self) -> m.ServerMessage:
        """The next message but ``presence``, ``deadline``, ``clocks`` and ``chat``, which are
        only kept (``self.presence``, the latest; ``self.presences``, ``self.deadlines``,
        ``self.clocks``, ``self.chats``: all): they come whenever someone connects or leaves,
        a clock starts or stops, or someone says something."""
        while True:
            frame = await self.ws.recv()
            for log in self._logs:
                log.append(frame)
            mirror = self.mirror
            if mirror is not None and all(mirror.frames is not log for log in self._logs):
                mirror.frames.append(frame)
            message = codec.decode_server(frame, self.subprotocol)
            if isinstance(message, m.Presence):
                self.presence = message
                self.presences.append(message)
                continue
            if isinstance(message, m.Deadline):
                self.deadlines.append(message)
                continue
            if isinstance(message, m.Clocks):
                self.clocks.append(message)
                continue
            if isinstance(message, m.Chat):
                self.chats.append(message)
                continue
            if isinstance(message, m.Delta) and mirror is not None:
                mirror.apply(message)
            return message

    async def request(
        self, message: m.ClientMessage, timeout: float = DEFAULT_TIMEOUT
    ) -> m.ServerMessage:
        """Send a request and return the reply with its ``id`` (a ``result``, an ``error``, …);
        other messages meanwhile are kept for ``recv``."""
        rid = getattr(message, "id", None)
        if rid is None:
            raise TypeError(f"{message.TYPE} has no id to match a reply by")
        await self.send(message)
        async with asyncio.timeout(timeout):
            while True:
                reply = await self._read()
                if getattr(reply, "id", None) == rid:
                    return reply
                self._pending.append(reply)
                if isinstance(reply, m.ServerBye):
                    raise WsClientError(f"server said bye waiting for {rid}: {_short(reply)}")

    async def _reply(self, message: m.ClientMessage, kind: type[T], timeout: float) -> T:
        reply = await self.request(message, timeout)
        if isinstance(reply, m.ErrorMessage):
            raise Refused(reply)
        if not isinstance(reply, kind):
            raise WsClientError(f"expected {kind.TYPE} for {message.TYPE}, got {_short(reply)}")
        return reply

    # --- the handshake ---

    async def hello(
        self,
        *,
        table: str | None = None,
        token: str | None = None,
        spectate: bool | None = None,
        resume: m.Resume | bool | None = None,
        client: str = CLIENT_NAME,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> m.Welcome:
        """Send ``hello`` and return the ``welcome`` (``Refused`` on an ``error``).  A seat or
        spectator welcome starts ``self.mirror``, or updates the one passed to ``connect``;
        ``resume=True`` resumes from that mirror's epoch and version."""
        if resume is True:
            if self.mirror is None:
                raise WsClientError("resume=True needs a mirror (pass mirror= to connect)")
            resume = self.mirror.resume_point()
        await self.send(
            m.Hello(
                protocol=m.PROTOCOL,
                client=client,
                table=table,
                token=token,
                spectate=spectate,
                resume=resume or None,
            )
        )
        welcome = await self.expect(m.Welcome, timeout)
        if welcome.session != "lobby":
            if self.mirror is None:
                self.mirror = Mirror.from_welcome(welcome)
                self.mirror.frames.extend(self.frames)
            else:
                self.mirror.take(welcome)
        return welcome

    # --- lobby and play (thin helpers over request) ---

    async def list_tables(self, timeout: float = DEFAULT_TIMEOUT) -> m.Tables:
        return await self._reply(m.ListTables(id=self.next_id()), m.Tables, timeout)

    async def create_table(
        self,
        seats: int = 2,
        *,
        public: bool = True,
        spectators: bool = True,
        spectator_delay: int = 0,
        clock: m.Clock | None = None,
        mode: m.GameMode | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> m.Created:
        request = m.CreateTable(
            self.next_id(), seats, public, spectators, spectator_delay, clock, mode
        )
        return await self._reply(request, m.Created, timeout)

    async def join(
        self,
        table: str,
        name: str,
        client_seed: bytes | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> m.Joined:
        seed = os.urandom(16) if client_seed is None else client_seed
        request = m.Join(id=self.next_id(), table=table, name=name, client_seed=seed)
        return await self._reply(request, m.Joined, timeout)

    async def start(self, table: str, token: str, timeout: float = DEFAULT_TIMEOUT) -> m.Result:
        request = m.Start(id=self.next_id(), table=table, token=token)
        return await self._reply(request, m.Result, timeout)

    async def command(
        self,
        command: dict[str, Any],
        *,
        id: str | None = None,
        expected: int | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> m.Result:
        """Send a game command (``expected``: the mirror's version by default) and return its
        ``result`` (``Refused`` if the server answers with an ``error``)."""
        if expected is None:
            if self.mirror is None:
                raise WsClientError("command without expected needs a mirror (hello first)")
            expected = self.mirror.version
        request = m.SendCommand(id=id or self.next_id("c"), expected=expected, command=command)
        return await self._reply(request, m.Result, timeout)

    async def until_version(self, version: int, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Read until the mirror reaches ``version``; deltas are applied and dropped, other
        messages kept for ``recv``."""
        mirror = self.mirror
        if mirror is None:
            raise WsClientError("until_version needs a mirror (hello first)")
        async with asyncio.timeout(timeout):
            while mirror.version < version:
                message = await self._read()
                if not isinstance(message, m.Delta):
                    self._pending.append(message)
                    if isinstance(message, m.ServerBye):
                        raise WsClientError(f"server said bye: {_short(message)}")

    async def drain(self, quiet: float = 0.2) -> list[m.ServerMessage]:
        """Every message kept or arriving until ``quiet`` seconds pass without a frame (or the
        connection closes)."""
        out = list(self._pending)
        self._pending.clear()
        while True:
            try:
                async with asyncio.timeout(quiet):
                    out.append(await self._read())
            except (TimeoutError, ConnectionClosed):
                return out

    # --- closing ---

    async def closed(self, timeout: float = DEFAULT_TIMEOUT) -> int | None:
        """Read (and keep for ``recv``) until the server closes; the close code."""
        async with asyncio.timeout(timeout):
            with contextlib.suppress(ConnectionClosed):
                while True:
                    self._pending.append(await self._read())
            await self.ws.wait_closed()
        return self.ws.close_code

    async def bye(self, reason: str | None = None, timeout: float = DEFAULT_TIMEOUT) -> int | None:
        """Send ``bye`` and wait for the server to close; the close code (1000 expected)."""
        await self.send(m.ClientBye(reason=reason))
        return await self.closed(timeout)

    async def close(self, code: int = 1000, reason: str = "") -> None:
        await self.ws.close(code, reason)
