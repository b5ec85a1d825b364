"""The open connections of every worker of a host (``serve --workers N``), counted in memory they
share, so that ``--max-connections-per-ip`` and ``--max-connections`` are the host's caps, as an
operator reads them, and not each worker's.

The supervisor creates a file in the run's own directory (mode 0700, removed at the end) and
every worker maps it (``mmap``, shared: the page cache is the shared memory).  Layout: a 16-byte
random key, then one slot per worker of 32-bit counters: the worker's open connections, then
two rows of ``BUCKETS`` counters of its connections by client address (the gate's address key,
hashed with keyed BLAKE2b: a client cannot pick addresses that land on another's counters).

- **Writes**: each worker writes only its own slot (a counter is one aligned 4-byte store), on
  admission and when a connection closes.  No lock, no message, no system call.
- **Reads**: admission sums the slots.  A client address holds the smaller of its two rows'
  sums (a count-min sketch): never less than the truth, more only when both of its counters
  are shared with other addresses that together hold the cap, which with 2^15 counters a row
  and the host's connection cap takes a flood and luck.
- **A worker that dies** (even with kill -9) takes its connections with it, and its counts go
  too: the supervisor zeroes its slot when it sees it die, before it starts it again, and a
  worker zeroes its own slot when it starts.
- **Races**: the check and the increment are not one atomic step across workers, so handshakes
  admitted by different workers at the same instant may pass a cap by at most N - 1, for as
  long as those connections last.

Rejected: asking the supervisor over a socket for each handshake and close (exact, but a round
trip per connection, and the supervisor is a plain loop over its children, not a server); a
counter per address in the shared file (a table that readers probe while another process
rewrites it).
"""

from __future__ import annotations

import hashlib
import mmap
import os
import secrets
from pathlib import Path

KEY_BYTES = 16
ROWS = 2
BUCKETS = 1 << 15
SLOT = 1 + ROWS * BUCKETS  # counters per worker: open connections, then the rows
WORD = 4

Buckets = tuple[int, ...]


def size_of(workers: int) -> int:
    return KEY_BYTES + workers * SLOT * WORD


class HostCounts:
    """A process's view of the shared counts of ``workers`` workers at ``path``; ``index``:
    this worker's slot (None: the supervisor, which only clears)."""

    def __init__(self, path: str | Path, workers: int, index: int | None = None) -> None:
        self.workers = workers
        self.index = index
        fd = os.open(path, os.O_RDWR)
        try:
            self._map = mmap.mmap(fd, size_of(workers))
        finally:
            os.close(fd)
        self._key = bytes(self._map[:KEY_BYTES])
        self._words = memoryview(self._map)[KEY_BYTES:].cast("I")
        self.closed = False
        if index is not None:
            self.clear(index)

    @staticmethod
    def create(path: str | Path, workers: int) -> None:
        """The supervisor's part: the file, with a fresh key and every count 0."""
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "r+b") as file:
            file.write(secrets.token_bytes(KEY_BYTES))
            file.truncate(size_of(workers))

    def clear(self, index: int) -> None:
        """Forget worker ``index``'s connections (it died, or it is starting)."""
        if not self.closed:
            start = index * SLOT
            self._words[start : start + SLOT] = memoryview(bytes(SLOT * WORD)).cast("I")

    def buckets(self, address: str) -> Buckets:
        """The counters of a client address (the gate's address key), one per row."""
        digest = hashlib.blake2b(
            address.encode("utf-8", "surrogatepass"), key=self._key, digest_size=4 * ROWS
        ).digest()
        return tuple(
            int.from_bytes(digest[4 * r : 4 * r + 4], "little") % BUCKETS for r in range(ROWS)
        )

    def connections(self) -> int:
        """Open connections on the host."""
        words = self._words
        return sum(words[w * SLOT] for w in range(self.workers))

    def from_address(self, buckets: Buckets) -> int:
        """Open connections on the host from the address of ``buckets`` (at least)."""
        words = self._words
        return min(
            sum(words[w * SLOT + 1 + r * BUCKETS + b] for w in range(self.workers))
            for r, b in enumerate(buckets)
        )

    def add(self, buckets: Buckets, delta: int) -> None:
        """This worker admitted (+1) or lost (-1) a connection from ``buckets``' address."""
        if self.closed or self.index is None:
            return
        words = self._words
        base = self.index * SLOT
        words[base] = max(0, words[base] + delta)
        for r, b in enumerate(buckets):
            at = base + 1 + r * BUCKETS + b
            words[at] = max(0, words[at] + delta)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._words.release()
            self._map.close()
