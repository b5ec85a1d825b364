"""Table affinity for ``serve --workers N``: the connections of one table go to one worker.

Without it the kernel spreads connections over the workers' ``SO_REUSEPORT`` sockets at random,
so a table with four seats is run by every worker one of its seats landed on: each folds every
event, builds its own viewers' views, follows the others' appends through Redis and races them
for the next version.  Two workers then did more work than one, not less.

1. **The hint.** A client that connects for one table names it in the URL:
   ``/ws?table=ID`` (SPEC.md §2.1).  The hello still decides what the session is; a missing or
   wrong hint costs only speed.  ``/api/spectators/ID`` is routed the same way, so the count it
   gives is that of the worker that runs the table.
2. **The owner** of a table is worker ``crc32(ID) mod N`` (``owner_of``): the same in every
   process, and in any proxy that would route on the same hint.
3. **Routing.** Each worker accepts on its own socket of the group itself (``Router``), instead
   of letting the event loop's server accept.  It peeks at the request line (``MSG_PEEK``: the
   bytes stay in the kernel for the websocket handshake, which starts from the first byte
   wherever it runs) and either serves the connection here, or passes the socket to the owner
   over a unix datagram socket (``SCM_RIGHTS``, ``Handoff``) and closes its own copy.  The owner
   serves a socket it was passed as if it had accepted it, and never passes it on.
4. **Failure.** A worker that cannot pass a socket (the owner restarting, its queue full) serves
   it itself: every worker serves every table.  A request line that has not arrived within
   ``PEEK_TIMEOUT`` seconds (at most ``PEEK_BYTES`` are looked at) is served where it landed,
   and the websocket handshake's own timeout takes over.

The hand-off sockets live in a directory the supervisor creates for the run (mode 0700), one
``worker-I.sock`` per worker; a restarted worker binds its path again.
"""

from __future__ import annotations

import array
import asyncio
import contextlib
import os
import socket
import zlib
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from echoridge.logs import get_logger

log = get_logger("echoridge.net")

PEEK_BYTES = 4096  # the request line must fit in these (else: served here)
PEEK_TIMEOUT = 1.0  # seconds to wait for the request line
PEEK_AGAIN = 0.005  # seconds between two looks at a request line that came in part
ACCEPT_BATCH = 64  # connections accepted per wake-up of the loop
ACCEPT_PAUSE = 0.1  # seconds without accepting after accept failed (no descriptors left, ...)
BACKLOG = 1024  # pending connections per listening socket
HANDOFF_ENV = "ECHORIDGE_HANDOFF_DIR"  # set by the supervisor for its workers
SPECTATORS_PATH = "/api/spectators/"


def owner_of(table: str, workers: int) -> int:
    """The worker (0 .. workers-1) that serves ``table``."""
    return zlib.crc32(table.encode("utf-8", "surrogatepass")) % workers


def listeners(host: str, port: int) -> list[socket.socket]:
    """Listening ``SO_REUSEPORT`` sockets on every address ``host`` names (as the event loop's
    ``create_server`` would make them), for a ``Router``."""
    found = socket.getaddrinfo(host or None, port, 0, socket.SOCK_STREAM, 0, socket.AI_PASSIVE)
    out: list[socket.socket] = []
    try:
        for family, address in dict.fromkeys((f, a) for f, _, _, _, a in found):
            out.append(
                socket.create_server(address[:2], family=family, backlog=BACKLOG, reuse_port=True)
            )
    except OSError:
        for made in out:
            made.close()
        raise
    return out


def table_hint(head: bytes) -> str | None:
    """The table a request names in its request line (``GET /ws?table=ID HTTP/1.1``, or
    ``GET /api/spectators/ID``), or None."""
    line = head.split(b"\r\n", 1)[0]
    parts = line.split(b" ")
    if len(parts) != 3 or parts[0] != b"GET":
        return None
    split = urlsplit(parts[1].decode("latin-1"))
    if split.path.startswith(SPECTATORS_PATH):
        return split.path.removeprefix(SPECTATORS_PATH) or None
    values = parse_qs(split.query).get("table")
    return values[0] if values else None


class Handoff:
    """Worker ``index``'s end of the hand-off: an inbox bound at ``worker-INDEX.sock`` in
    ``directory`` and an unbound socket to send to the others' inboxes."""

    def __init__(self, directory: str, index: int) -> None:
        self.directory = Path(directory)
        self._path = path = self.path(index)
        with contextlib.suppress(FileNotFoundError):
            path.unlink()  # a previous life of this worker
        self.inbox = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.inbox.bind(str(path))
        self.inbox.setblocking(False)
        self.outbox = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.outbox.setblocking(False)

    def path(self, index: int) -> Path:
        return self.directory / f"worker-{index}.sock"

    def send(self, connection: socket.socket, owner: int) -> bool:
        """Pass ``connection`` to worker ``owner``; False if it cannot take it now."""
        try:
            rights = array.array("i", [connection.fileno()])  # (socket.send_fds drops address)
            self.outbox.sendmsg(
                [b"c"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, rights)], 0, str(self.path(owner))
            )
        except OSError:  # no such worker (restarting), its queue full, ...
            return False
        return True

    def receive(self) -> list[socket.socket]:
        """The connections passed to this worker since the last call."""
        out: list[socket.socket] = []
        while True:
            try:
                _, fds, _, _ = socket.recv_fds(self.inbox, 16, 4)
            except OSError:  # (BlockingIOError: nothing more to take now)
                return out
            for fd in fds:
                try:
                    connection = socket.socket(fileno=fd)
                except OSError:
                    os.close(fd)
                    continue
                connection.setblocking(False)
                out.append(connection)

    def close(self) -> None:
        self.inbox.close()
        self.outbox.close()
        with contextlib.suppress(OSError):
            self._path.unlink()


class Router:
    """Accepts on ``listeners`` (this worker's sockets of the ``SO_REUSEPORT`` group) and gives
    every connection to ``serve`` here or to its table's owner (see the module's docstring).
    ``on_handoff(sent)`` counts the connections passed on (True) and those whose owner could
    not take them (False)."""

    def __init__(
        self,
        listeners: list[socket.socket],
        handoff: Handoff,
        index: int,
        workers: int,
        serve: Callable[[socket.socket], None],
        on_handoff: Callable[[bool], None] | None = None,
    ) -> None:
        self.listeners = listeners
        self.handoff = handoff
        self.index = index
        self.workers = workers
        self.serve = serve
        self.on_handoff = on_handoff
        self.passed = 0  # connections passed to their table's owner
        self.kept = 0  # connections for another worker's table served here: it could not take them
        self._waiting: dict[int, tuple[socket.socket, asyncio.TimerHandle]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        self._loop = loop = asyncio.get_running_loop()
        for listener in self.listeners:
            listener.setblocking(False)
            loop.add_reader(listener.fileno(), self._accept, listener)
        loop.add_reader(self.handoff.inbox.fileno(), self._received)

    def stop(self) -> None:
        """Accept no more; the connections still being looked at are closed."""
        loop = self._loop
        if loop is None:
            return
        for listener in self.listeners:
            with contextlib.suppress(Exception):
                loop.remove_reader(listener.fileno())
            listener.close()
        with contextlib.suppress(Exception):
            loop.remove_reader(self.handoff.inbox.fileno())
        self.handoff.close()
        for fd, (connection, timer) in list(self._waiting.items()):
            timer.cancel()
            with contextlib.suppress(Exception):
                loop.remove_reader(fd)
            connection.close()
        self._waiting.clear()
        self._loop = None

    def _accept(self, listener: socket.socket) -> None:
        assert self._loop is not None
        deadline = self._loop.time() + PEEK_TIMEOUT
        for _ in range(ACCEPT_BATCH):
            try:
                connection, _ = listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:  # out of descriptors, say: pause, then try again
                log.warning("accept failed", error=type(exc).__name__, errno=exc.errno)
                self._loop.remove_reader(listener.fileno())
                self._loop.call_later(ACCEPT_PAUSE, self._resume, listener)
                return
            connection.setblocking(False)
            connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._look(connection, deadline)

    def _resume(self, listener: socket.socket) -> None:
        if self._loop is not None and listener.fileno() >= 0:
            self._loop.add_reader(listener.fileno(), self._accept, listener)

    def _look(self, connection: socket.socket, deadline: float) -> None:
        """Peek at the request line: route once it is whole (or the time is up)."""
        loop = self._loop
        if loop is None:
            connection.close()
            return
        try:
            head: bytes | None = connection.recv(PEEK_BYTES, socket.MSG_PEEK)
        except (BlockingIOError, InterruptedError):
            head = None
        except OSError:
            connection.close()
            return
        if head is not None and (b"\r\n" in head or len(head) >= PEEK_BYTES or not head):
            self._route(connection, head)
        elif loop.time() >= deadline:
            self._route(connection, head or b"")
        elif head:  # a part of the line: look again shortly (it stays readable meanwhile)
            loop.call_later(PEEK_AGAIN, self._look, connection, deadline)
        else:
            fd = connection.fileno()
            timer = loop.call_at(deadline, self._unwait, fd, deadline)
            self._waiting[fd] = (connection, timer)
            loop.add_reader(fd, self._unwait, fd, deadline)

    def _unwait(self, fd: int, deadline: float) -> None:
        waiting = self._waiting.pop(fd, None)
        if waiting is None or self._loop is None:
            return
        connection, timer = waiting
        timer.cancel()
        self._loop.remove_reader(fd)
        self._look(connection, deadline)

    def _route(self, connection: socket.socket, head: bytes) -> None:
        table = table_hint(head)
        if table is not None:
            owner = owner_of(table, self.workers)
            if owner != self.index:
                sent = self.handoff.send(connection, owner)
                if sent:
                    self.passed += 1
                else:
                    self.kept += 1
                if self.on_handoff is not None:
                    self.on_handoff(sent)
                if sent:
                    connection.close()  # the owner has its own descriptor of it
                    return
        self.serve(connection)

    def _received(self) -> None:
        for connection in self.handoff.receive():
            self.serve(connection)
