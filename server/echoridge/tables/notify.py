"""Webhook delivery for play by notification (issue 12): events POSTed, signed, to one URL.

The path of an event
--------------------

``Notifier.submit(event)`` is called from game code and never awaits or raises.  It serialises the
event at once (so later changes to the mapping do not matter) and puts it on the notifier's queue,
or returns False: when the notifier holds ``queue_size`` events already (counted in ``dropped``),
when it is closed (``dropped`` too), or when the event cannot be sent at all: no usable ``"id"``,
or not JSON-serialisable (counted in ``failed``).  The bound counts every event the notifier
holds, waiting, being sent or waiting for a retry, so a receiver that is down costs at most
``queue_size`` events of memory.

``workers`` tasks (4) take events from the queue and POST each one (one attempt at a time per
task, so at most ``workers`` requests are in flight).  The answer decides:

* 2xx: sent (``sent``).
* a connection error, a timeout (``timeout`` seconds for the whole attempt), an answer that is
  not HTTP, 429 or 5xx: tried again later, up to ``attempts`` attempts in all (``retried`` counts
  the retries), then given up (``failed``).  The n-th retry comes after a delay drawn uniformly
  from [d/2, d] with d = min(max_delay, first_delay * 2**(n-1)); a ``Retry-After`` header
  (seconds, or an HTTP date) on the answer replaces that delay, capped at ``max_delay`` too.
  A retry is a timer that puts the event back on the queue: no worker sleeps, so a failing
  event never holds up the others.
* any other status (3xx, other 4xx: redirects are not followed): given up at once (``failed``).

Nothing a receiver sends or does (garbage, resets, stalls, huge answers: at most 64 KiB of an
answer's body is read) reaches the caller or stops a worker.  ``close()`` stops taking events,
gives up the events waiting for a retry, waits up to ``grace`` seconds (1) for the queue and the
requests in flight, then cancels what is left (given up too) and closes the HTTP client if the
notifier made it.  The notifier's own client ignores proxy environment variables; pass a
``client`` for a proxy or other transport settings (``timeout`` still applies per attempt).

Logging (``echoridge.tables.notify``): one line per outcome (sent, will be retried, given up) with
the event's ``id`` and ``type``, the ``status`` (or the ``error`` class), and the ``attempt``;
never the secret, a signature, the URL or the body.  The first event dropped while the queue is
full is logged as a warning, the rest of that run of drops at debug.

What the receiver gets
----------------------

Each attempt is ``POST <url>`` with the body ``json.dumps(event, separators=(",", ":"),
sort_keys=True)`` as UTF-8 (ASCII, as non-ASCII characters are escaped), and the headers::

    Content-Type: application/json
    User-Agent: echo-ridge
    X-EchoRidge-Delivery: <the event's "id": the same on every attempt of one event>
    X-EchoRidge-Timestamp: <unix time of this attempt, whole seconds, decimal>
    X-EchoRidge-Signature: sha256=<hex HMAC-SHA256, with the shared secret as key, of
                           the timestamp header's bytes + b"." + the body's bytes>

A receiver should check, before it trusts the body: the signature, computed over the raw body
bytes as received (not a re-serialisation), compared in constant time; that the timestamp is
within a few minutes of its own clock (a captured request cannot be replayed later, because the
timestamp is signed); and the delivery id, to drop a repeat (an attempt whose answer was lost is
sent again).  It should answer 2xx quickly, and 429/503 with ``Retry-After`` to slow the sender
down.  In Python::

    from echoridge.tables.notify import verify

    ok = verify(secret, headers["X-EchoRidge-Timestamp"], raw_body,
                headers["X-EchoRidge-Signature"], tolerance=300)

and elsewhere: ``"sha256=" + hex(hmac_sha256(secret, timestamp + "." + body))``.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import hashlib
import hmac
import json
import logging
import math
import random
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC
from types import TracebackType
from typing import Any, Final, Self
from urllib.parse import urlsplit

import httpx

from echoridge.logs import get_logger
from echoridge.tasks import cancel_and_wait

log = get_logger("echoridge.tables.notify")

WORKERS: Final = 4
CLOSE_GRACE: Final = 1.0  # seconds close() waits for the queue and the requests in flight
MAX_ANSWER_BYTES: Final = 64 * 1024  # of an answer's body read (so the connection can be reused)
DRAIN_SECONDS: Final = 1.0  # spent reading that, at most
USER_AGENT: Final = "echo-ridge"
SIGNATURE_PREFIX: Final = "sha256="

# A delivery id goes into a header: visible ASCII, no spaces, at most 200 characters.
_ID_RE: Final = re.compile(r"[\x21-\x7e]{1,200}")
_DIGITS_RE: Final = re.compile(r"[0-9]{1,20}")

# httpx logs every request with its full URL at INFO, and a webhook URL may hold a token (some
# services put one in the path): keep its records out of the server's log unless someone chose a
# level for them.
for _name in ("httpx", "httpcore"):
    if logging.getLogger(_name).level == logging.NOTSET:
        logging.getLogger(_name).setLevel(logging.WARNING)


# --- signatures --------------------------------------------------------------------------------


def sign(secret: bytes, timestamp: int | str, body: bytes) -> str:
    """The ``X-EchoRidge-Signature`` value: ``"sha256=" + hex(HMAC-SHA256(secret, ts.body))``.

    ``timestamp`` is the unix time in whole seconds (the ``X-EchoRidge-Timestamp`` value): the
    signed bytes are its decimal digits, ``b"."``, then the body."""
    mac = hmac.new(secret, f"{timestamp}.".encode("ascii") + body, hashlib.sha256)
    return SIGNATURE_PREFIX + mac.hexdigest()


def verify(
    secret: bytes,
    timestamp: int | str,
    body: bytes,
    signature: str,
    *,
    tolerance: float | None = None,
    now: float | None = None,
) -> bool:
    """Whether ``signature`` (the header's value) signs ``body`` at ``timestamp`` with ``secret``.

    ``timestamp`` may be the header's text as received.  With ``tolerance`` (seconds; 300 is a
    good choice), a timestamp further than that from ``now`` (default: the clock) is refused too,
    which is what stops a replay.  Never raises on malformed input: it is just not valid."""
    if isinstance(timestamp, bool):
        return False
    if isinstance(timestamp, str):
        if not _DIGITS_RE.fullmatch(timestamp):
            return False
    elif not isinstance(timestamp, int) or timestamp < 0:
        return False
    if not isinstance(signature, str) or not isinstance(body, bytes | bytearray):
        return False
    if tolerance is not None:
        clock = time.time() if now is None else now
        if abs(clock - int(timestamp)) > tolerance:
            return False
    expected = sign(secret, timestamp, bytes(body)).encode("ascii")
    return hmac.compare_digest(expected, signature.encode("utf-8", "replace"))


def encode(event: Mapping[str, Any]) -> bytes:
    """The body sent for ``event``: compact JSON with sorted keys, as UTF-8 bytes."""
    text = json.dumps(event, separators=(",", ":"), sort_keys=True, allow_nan=False)
    return text.encode("utf-8")


def retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` value (seconds or an HTTP date); None if unusable."""
    if value is None:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = when.timestamp() - (time.time() if now is None else now)
    if not math.isfinite(seconds):
        return None
    return max(0.0, seconds)


# --- the notifier ------------------------------------------------------------------------------


@dataclass(eq=False)
class _Delivery:
    id: str
    type: str
    body: bytes = field(repr=False)
    attempt: int = 0  # attempts made
    timer: asyncio.TimerHandle | None = None  # while waiting for a retry
    done: bool = False


class Notifier:
    """Delivers events to one webhook ``url``, signed with ``secret`` (see the module's doc)."""

    def __init__(
        self,
        url: str,
        secret: bytes,
        *,
        attempts: int = 6,
        first_delay: float = 1.0,
        max_delay: float = 300.0,
        timeout: float = 10.0,
        queue_size: int = 1000,
        workers: int = WORKERS,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("the notification URL must be http:// or https:// with a host")
        if not isinstance(secret, bytes) or not secret:
            raise ValueError("the notification secret must be non-empty bytes")
        if attempts < 1 or queue_size < 1 or workers < 1:
            raise ValueError("attempts, queue_size and workers must be at least 1")
        if not (0 <= first_delay <= max_delay) or not timeout > 0:
            raise ValueError("need 0 <= first_delay <= max_delay and timeout > 0")
        self.url = url
        self._secret = secret
        self.attempts = attempts
        self.first_delay = first_delay
        self.max_delay = max_delay
        self.timeout = timeout
        self.queue_size = queue_size
        self.workers = workers
        self._client = client
        self._own_client = client is None
        # counters, for metrics
        self.sent = 0  # answered 2xx
        self.failed = 0  # given up (or refused by submit as unsendable)
        self.dropped = 0  # refused by submit: queue full, or closed
        self.retried = 0  # retries scheduled
        self._held = 0  # events held: queued, in flight or waiting for a retry
        self._queue: asyncio.Queue[_Delivery] = asyncio.Queue()
        self._waiting: set[_Delivery] = set()
        self._tasks: list[asyncio.Task[None]] = []
        self._dropping = False  # in a run of drops (logged once as a warning)
        self._abandoned = 0  # given up by close()
        self._closing = False
        self._closed = False
        self._random = random.Random()

    def __repr__(self) -> str:  # the URL and the secret stay out of reprs (and so tracebacks)
        host = urlsplit(self.url).hostname
        return f"<Notifier to {host} sent={self.sent} failed={self.failed} pending={self._held}>"

    @property
    def pending(self) -> int:
        """Events held now: queued, being sent, or waiting for a retry."""
        return self._held

    # --- life ----------------------------------------------------------------------------------

    async def start(self) -> None:
        """Start the workers (and make the HTTP client unless one was given)."""
        if self._closing:
            raise RuntimeError("the notifier is closed")
        if self._tasks:
            return
        if self._client is None:
            self._client = httpx.AsyncClient(
                timeout=httpx.Timeout(self.timeout),
                limits=httpx.Limits(
                    max_connections=self.workers, max_keepalive_connections=self.workers
                ),
                follow_redirects=False,
                trust_env=False,
            )
        self._tasks = [
            asyncio.create_task(self._work(), name=f"notify-{i}") for i in range(self.workers)
        ]
        log.info("notifier started", host=urlsplit(self.url).hostname, workers=self.workers)

    async def close(self, grace: float = CLOSE_GRACE) -> None:
        """Stop: refuse new events, wait up to ``grace`` s for those queued or in flight, cancel."""
        if self._closing:
            return
        self._closing = True
        for d in list(self._waiting):
            if d.timer is not None:
                d.timer.cancel()
            self._waiting.discard(d)
            self._abandon(d)
        try:
            if self._tasks:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(grace):
                        await self._queue.join()
                for task in self._tasks:
                    task.cancel()
                for task in self._tasks:
                    await cancel_and_wait(task)
            while not self._queue.empty():
                d = self._queue.get_nowait()
                self._queue.task_done()
                self._abandon(d)
        finally:
            self._tasks = []
            if self._own_client and self._client is not None:
                with contextlib.suppress(Exception):
                    await self._client.aclose()
            self._closed = True
        if self._abandoned:
            log.warning("notifications given up at close", count=self._abandoned)
        log.info(
            "notifier closed",
            sent=self.sent,
            failed=self.failed,
            dropped=self.dropped,
            retried=self.retried,
        )

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # --- submitting ----------------------------------------------------------------------------

    def submit(self, event: Mapping[str, Any]) -> bool:
        """Queue ``event`` for delivery; False if it was not taken.  Never awaits, never raises."""
        try:
            return self._submit(event)
        except Exception as exc:  # defence in depth: the caller's game goes on whatever happens
            with contextlib.suppress(Exception):
                self.failed += 1
                log.error("notification refused: notifier error", **_error(exc))
            return False

    def _submit(self, event: Mapping[str, Any]) -> bool:
        raw_id = event.get("id") if isinstance(event, Mapping) else None
        kind = _short(event.get("type")) if isinstance(event, Mapping) else ""
        if isinstance(raw_id, bool) or not isinstance(raw_id, str | int):
            raw_id = None
        delivery_id = str(raw_id) if raw_id is not None else ""
        if self._closing or self._held >= self.queue_size:
            self.dropped += 1
            level = logging.DEBUG if self._dropping else logging.WARNING
            self._dropping = True
            log.log(
                level,
                "notification dropped",
                id=_short(delivery_id),
                type=kind,
                reason="closed" if self._closing else "queue full",
                dropped=self.dropped,
            )
            return False
        if not _ID_RE.fullmatch(delivery_id):
            self.failed += 1
            log.error("notification refused: no usable id", type=kind)
            return False
        try:
            body = encode(event)
        except (TypeError, ValueError) as exc:
            self.failed += 1
            log.error(
                "notification refused: not JSON",
                id=delivery_id,
                type=kind,
                error=type(exc).__name__,
            )
            return False
        self._dropping = False
        self._held += 1
        self._queue.put_nowait(_Delivery(delivery_id, kind, body))
        return True

    # --- delivering ----------------------------------------------------------------------------

    async def _work(self) -> None:
        while True:
            d = await self._queue.get()
            try:
                await self._deliver(d)
            except asyncio.CancelledError:
                self._abandon(d)
                raise
            except Exception as exc:  # a bug here must not stop the worker
                if not d.done:
                    self._finish(d, "failed")
                    log.error(
                        "notification given up: notifier error",
                        id=d.id,
                        type=d.type,
                        attempt=d.attempt,
                        **_error(exc),
                    )
            finally:
                self._queue.task_done()

    async def _deliver(self, d: _Delivery) -> None:
        d.attempt += 1
        timestamp = int(time.time())
        headers = {
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            "X-EchoRidge-Delivery": d.id,
            "X-EchoRidge-Timestamp": str(timestamp),
            "X-EchoRidge-Signature": sign(self._secret, timestamp, d.body),
        }
        status: int | None = None
        wait: float | None = None
        error: str | None = None
        try:
            status, wait = await self._post(d.body, headers)
        except Exception as exc:  # connection errors, timeouts, broken answers: all retried
            error = type(exc).__name__

        if status is not None and 200 <= status < 300:
            self._finish(d, "sent")
            log.info("notification sent", id=d.id, type=d.type, status=status, attempt=d.attempt)
            return
        outcome: dict[str, Any] = {"status": status} if error is None else {"error": error}
        retryable = status is None or status == 429 or status >= 500
        if retryable and d.attempt < self.attempts and not self._closing:
            delay = min(wait, self.max_delay) if wait is not None else self._backoff(d.attempt)
            self.retried += 1
            d.timer = asyncio.get_running_loop().call_later(delay, self._due, d)
            self._waiting.add(d)
            log.warning(
                "notification will be retried",
                id=d.id,
                type=d.type,
                **outcome,
                attempt=d.attempt,
                delay=round(delay, 3),
            )
            return
        self._finish(d, "failed")
        if retryable:
            outcome["reason"] = "closing" if self._closing else "attempts used up"
        log.error("notification given up", id=d.id, type=d.type, **outcome, attempt=d.attempt)

    async def _post(self, body: bytes, headers: dict[str, str]) -> tuple[int, float | None]:
        """One POST: the status and the Retry-After delay (raises on no answer, or a late one)."""
        client = self._client
        assert client is not None
        request = client.build_request(
            "POST", self.url, content=body, headers=headers, timeout=self.timeout
        )
        async with asyncio.timeout(self.timeout):
            response = await client.send(request, stream=True)
        try:
            status = response.status_code
            wait = retry_after(response.headers.get("retry-after"))
            # Read a little of the body so the connection can be kept; an answer is the status.
            with contextlib.suppress(Exception):
                async with asyncio.timeout(DRAIN_SECONDS):
                    read = 0
                    async for chunk in response.aiter_raw():
                        read += len(chunk)
                        if read > MAX_ANSWER_BYTES:
                            break
        finally:
            with contextlib.suppress(Exception):
                await response.aclose()
        return status, wait

    def _backoff(self, attempts_made: int) -> float:
        ceiling = min(self.max_delay, self.first_delay * 2.0 ** min(attempts_made - 1, 64))
        return self._random.uniform(ceiling / 2, ceiling)

    def _due(self, d: _Delivery) -> None:
        """A retry's timer: back on the queue (which has no bound of its own: ``_held`` has)."""
        d.timer = None
        self._waiting.discard(d)
        if not d.done:
            self._queue.put_nowait(d)

    def _finish(self, d: _Delivery, outcome: str) -> None:
        if d.done:
            return
        d.done = True
        self._held -= 1
        if outcome == "sent":
            self.sent += 1
        else:
            self.failed += 1

    def _abandon(self, d: _Delivery) -> None:
        """Give ``d`` up because the notifier closes (one summary line at info or above)."""
        if d.done:
            return
        self._finish(d, "failed")
        self._abandoned += 1
        log.debug("notification given up at close", id=d.id, type=d.type, attempt=d.attempt)


def _error(exc: BaseException) -> dict[str, str]:
    """An unexpected error for a log line: its class and where it was raised, never a traceback
    (a renderer that shows a frame's locals would show the signature and the body)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    where = f"{tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}" if tb is not None else "?"
    return {"error": type(exc).__name__, "where": where}


def _short(value: Any, limit: int = 64) -> str:
    """A field for a log line: text, cut to ``limit`` characters."""
    text = value if isinstance(value, str) else "" if value is None else str(value)
    return text[:limit]
