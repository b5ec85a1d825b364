"""The sessions of ``echo-ridge bots``: seats that pace their commands, think, time each command
from sending to its delta and keep what the server acknowledged; spectators that sample delta
sizes.  What they count goes into one ``Stats``, which also explains, once, why the server
refuses connections (HTTP 429 or 503) and which of its flags to raise for local load."""

from __future__ import annotations

import asyncio
import random
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from echoridge_client.errors import Busy
from echoridge_client.retry import RETRY_SECONDS
from echoridge_client.session import Seat, Spectator
from echoridge_protocol import codec
from echoridge_protocol import messages as m

SIZE_SAMPLE = 8  # every 8th delta of a session is re-encoded to measure frame sizes, from a
# random first one (always taking the first would weigh the big delta of the game's start 8x)


class Pacer:
    """At most ``rate`` sends a second (evenly spaced); ``rate`` 0: no pacing."""

    def __init__(self, rate: float) -> None:
        self.interval = 1.0 / rate if rate > 0 else 0.0
        self._next = 0.0

    async def wait(self) -> None:
        if not self.interval:
            return
        now = time.monotonic()
        at = max(self._next, now)
        self._next = at + self.interval
        if at > now:
            await asyncio.sleep(at - now)


@dataclass
class Stats:
    """What all the sessions of a run counted."""

    commands: int = 0  # commands answered (any outcome)
    accepted: int = 0
    stale: int = 0  # rejected with command/stale_version (another seat got in first)
    rejected: int = 0  # any other rejection
    paced_stale: int = 0  # the view moved on while a command waited for its turn to be sent
    retries: int = 0  # commands sent again after server/unavailable
    latencies: list[float] = field(default_factory=list)  # seconds, accepted commands
    deliveries: int = 0
    reconnects: int = 0
    connections: int = 0
    sizes: dict[str, list[int]] = field(default_factory=dict)  # subprotocol -> [frames, bytes]
    fallbacks: int = 0  # greedy policy choices that fell back to a safe command
    busy: int = 0  # connections the server refused for now (HTTP 429, 503), tried again
    hinted: set[int | str] = field(default_factory=set)  # statuses and codes explained
    limited: int = 0  # lobby requests the server asked to wait for (a rate limit), sent again

    def waited(self, code: str, ms: int) -> None:
        """A lobby request refused for a rate (``table/rate_limited``): counted, and explained
        once; the lobby sends it again after the ``retry_in`` the server asks."""
        self.limited += 1
        if code not in self.hinted:
            self.hinted.add(code)
            print(limit_hint(code), file=sys.stderr, flush=True)

    def refused(self, refusal: Busy) -> None:
        """A connection refused for now: counted, and each status explained once."""
        self.busy += 1
        if refusal.status not in self.hinted:
            self.hinted.add(refusal.status)
            print(busy_hint(refusal.status), file=sys.stderr, flush=True)

    def sample(self, subprotocol: str, message: m.Delta) -> None:
        tally = self.sizes.setdefault(subprotocol, [0, 0])
        tally[0] += 1
        tally[1] += len(codec.encode(message, subprotocol))


def busy_hint(status: int) -> str:
    """What a refusal of ``status`` means, and the reference server's flag that raises it."""
    if status == 429:
        why, flag = "too many connections from this address", "--max-connections-per-ip"
    else:
        why, flag = "the server is full", "--max-connections"
    return (
        f"echo-ridge bots: the server refuses connections with HTTP {status} ({why}); the "
        f"bots wait as it asks (Retry-After) and try again. For local load, start the server "
        f"with a higher {flag} (0: no cap)."
    )


def limit_hint(code: str) -> str:
    """What a rate refusal means, and the reference server's flag that lifts it."""
    flags = {"table/rate_limited": "--tables-per-minute-per-ip"}
    flag = flags.get(code)
    lift = f" For local load, start the server with {flag} 0 (no limit)." if flag else ""
    return (
        f"echo-ridge bots: the server refused a request with {code}; the bots wait as it asks "
        f"(retry_in) and send it again.{lift}"
    )


@dataclass(frozen=True)
class Ack:
    """A command the server acknowledged (accepted, or duplicate of one it had applied)."""

    seat: int
    version: int
    command: dict[str, Any]


class _Measured:
    """Shared by the seat and the spectator: samples the size of the deltas received."""

    stats: Stats
    _received: int
    _sample_at: int = 0  # set per session: random.randrange(SIZE_SAMPLE)

    def _measure(self, subprotocol: str, message: m.ServerMessage) -> None:
        if isinstance(message, m.Delta):
            self._received += 1
            if self._received % SIZE_SAMPLE == self._sample_at:
                self.stats.sample(subprotocol, message)


class BotSeat(_Measured, Seat):
    """A seat that paces its commands, times each from sending to its delta, and keeps every
    acknowledgement (``acks``) to check against the transcript afterwards."""

    def __init__(
        self, *args: Any, stats: Stats, rate: float, think: float = 0.0, seed: bytes = b"",
        seat: int = 0, **kwargs: Any,
    ) -> None:  # fmt: skip
        super().__init__(*args, **kwargs)
        self.stats = stats
        self.on_busy = stats.refused
        self.seat = seat
        self.acks: list[Ack] = []
        self.pacer = Pacer(rate)
        self.think = think
        self.thinking = random.Random(seed)  # think times: independent seats, Poisson arrivals
        self._received = 0
        self._sample_at = random.randrange(SIZE_SAMPLE)

    async def _on_message(self, message: m.ServerMessage) -> None:
        self._measure(self.subprotocol, message)
        await super()._on_message(message)

    async def act(
        self, command: dict[str, Any], timeout: float = 30.0, retry_for: float = RETRY_SECONDS
    ) -> m.Result:
        version = self.version
        if self.think:
            await asyncio.sleep(self.thinking.expovariate(1.0 / self.think))
        await self.pacer.wait()
        if self.version != version:
            # The command was chosen from a view that is no longer current: have the caller
            # choose again, as after a stale result (nothing was sent).
            self.stats.paced_stale += 1
            return m.Result(id="paced", outcome="rejected", version=self.version,
                            code="command/stale_version")  # fmt: skip
        started = time.perf_counter()
        retries = self.retries
        result = await super().act(command, timeout, retry_for)
        stats = self.stats
        stats.commands += 1
        stats.retries += self.retries - retries
        if result.outcome in ("accepted", "duplicate") and result.version is not None:
            self.acks.append(Ack(self.seat, result.version, command))
        if result.outcome == "accepted":
            stats.accepted += 1
            stats.latencies.append(time.perf_counter() - started)
        elif result.code == "command/stale_version":
            stats.stale += 1
        elif result.outcome == "rejected":
            stats.rejected += 1
        return result


class BotSpectator(_Measured, Spectator):
    def __init__(self, *args: Any, stats: Stats, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.stats = stats
        self.on_busy = stats.refused
        self._received = 0
        self._sample_at = random.randrange(SIZE_SAMPLE)

    async def _on_message(self, message: m.ServerMessage) -> None:
        self._measure(self.subprotocol, message)
        await super()._on_message(message)
