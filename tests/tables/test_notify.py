"""Webhook delivery (tables/notify.py) against a real HTTP receiver on 127.0.0.1: signed bodies,
retries with backoff and Retry-After, giving up, a bounded queue that never blocks, and a close
that does not wait for a stalled receiver.  No mock of the network: the receiver below speaks
just enough HTTP/1.1 over asyncio streams."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from email.utils import formatdate
from typing import Any

import httpx
import pytest
import structlog

from echoridge.store.embedded import free_port
from echoridge.tables.notify import Notifier, encode, retry_after, sign, verify

SECRET = b"s3cret-for-tests"
FAST: dict[str, Any] = {"first_delay": 0.01, "max_delay": 0.05, "timeout": 2.0}


# --- a real receiver -------------------------------------------------------------------------


@dataclass
class Request:
    method: str
    target: str
    headers: dict[str, str]  # names in lower case
    body: bytes
    at: float  # loop time of arrival

    @property
    def id(self) -> str:
        return self.headers["x-echoridge-delivery"]

    def signed(self, secret: bytes = SECRET) -> bool:
        h = self.headers
        return verify(secret, h["x-echoridge-timestamp"], self.body, h["x-echoridge-signature"])


STALL = "stall"  # never answer (until the receiver stops)
DROP = "drop"  # close the connection without an answer
Reply = int | bytes | str  # a status, raw bytes to send, STALL or DROP
Answer = Sequence[Reply] | Callable[[Request], Reply]


def http(status: int, *headers: str, body: bytes = b"") -> bytes:
    lines = [f"HTTP/1.1 {status} Whatever", f"Content-Length: {len(body)}", *headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


class Receiver:
    """Records every request; answers with ``answer`` (in order, the last repeated, or by call)."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.requests: list[Request] = []
        self.release = asyncio.Event()
        self.tasks: set[asyncio.Task[Any]] = set()
        self.writers: set[asyncio.StreamWriter] = set()
        self.server: asyncio.Server | None = None
        self.port = 0

    async def start(self) -> None:
        self.server = await asyncio.start_server(self.serve, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def reply_for(self, request: Request) -> Reply:
        if callable(self.answer):
            return self.answer(request)
        return self.answer[min(len(self.requests), len(self.answer)) - 1]

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self.tasks.add(task)
        self.writers.add(writer)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                line, *fields = head.decode("latin-1").split("\r\n")
                method, target, _ = line.split(" ", 2)
                headers = {}
                for field in filter(None, fields):
                    name, _, value = field.partition(":")
                    headers[name.strip().lower()] = value.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                request = Request(method, target, headers, body, asyncio.get_running_loop().time())
                self.requests.append(request)
                reply = self.reply_for(request)
                if reply == STALL:
                    await self.release.wait()
                    return
                if reply == DROP:
                    return
                writer.write(http(reply) if isinstance(reply, int) else reply)  # type: ignore[arg-type]
                await writer.drain()
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            pass
        finally:
            writer.close()
            self.writers.discard(writer)
            self.tasks.discard(task)

    async def stop(self) -> None:
        self.release.set()
        if self.server is not None:
            self.server.close()
        for writer in list(self.writers):
            writer.close()
        if self.tasks:
            await asyncio.wait(self.tasks, timeout=2)
        if self.server is not None:
            await self.server.wait_closed()


@pytest.fixture
async def receiver() -> AsyncIterator[Callable[[Answer], Awaitable[Receiver]]]:
    started: list[Receiver] = []

    async def start(answer: Answer) -> Receiver:
        r = Receiver(answer)
        await r.start()
        started.append(r)
        return r

    yield start
    for r in started:
        await r.stop()


async def until(check: Callable[[], bool], timeout: float = 5.0) -> None:
    async with asyncio.timeout(timeout):
        while not check():
            await asyncio.sleep(0.005)


def event(n: int | str = 1, **fields: Any) -> dict[str, Any]:
    return {"id": f"d-{n}", "type": "your_turn", "table": "t-ridge", **fields}


# --- delivery ----------------------------------------------------------------------------------


async def test_delivery_carries_the_exact_body_and_a_valid_signature(receiver: Any) -> None:
    r = await receiver([204])
    ev = event(7, seat=2, clock={"left_ms": 5000}, note="naïve ☂")
    before = int(time.time())
    async with Notifier(r.url("/hooks/er?x=1"), SECRET, **FAST) as n:
        assert n.submit(ev) is True
        await until(lambda: n.sent == 1)
    after = int(time.time())

    assert (n.sent, n.failed, n.dropped, n.retried, n.pending) == (1, 0, 0, 0, 0)
    [req] = r.requests
    body = json.dumps(ev, separators=(",", ":"), sort_keys=True).encode("utf-8")
    assert req.body == body == encode(ev)
    assert json.loads(req.body) == ev
    assert (req.method, req.target) == ("POST", "/hooks/er?x=1")
    h = req.headers
    assert h["content-type"] == "application/json"
    assert h["user-agent"] == "echo-ridge"
    assert h["content-length"] == str(len(body))
    assert h["x-echoridge-delivery"] == "d-7"
    ts = int(h["x-echoridge-timestamp"])
    assert before <= ts <= after
    assert h["x-echoridge-signature"] == sign(SECRET, ts, body)
    assert h["x-echoridge-signature"].startswith("sha256=")
    assert len(h["x-echoridge-signature"]) == len("sha256=") + 64
    assert req.signed()
    assert verify(SECRET, ts, req.body, h["x-echoridge-signature"], tolerance=300)


async def test_server_errors_are_retried_with_the_same_delivery_id(receiver: Any) -> None:
    r = await receiver([500, 503, 200])
    async with Notifier(r.url(), SECRET, **FAST) as n:
        n.submit(event("retry"))
        await until(lambda: n.sent == 1)
    assert (n.sent, n.failed, n.retried) == (1, 0, 2)
    assert [q.id for q in r.requests] == ["d-retry"] * 3
    assert len({q.body for q in r.requests}) == 1
    assert all(q.signed() for q in r.requests)


async def test_a_client_error_is_given_up_at_once(receiver: Any) -> None:
    r = await receiver([400])
    async with Notifier(r.url(), SECRET, **FAST) as n:
        n.submit(event())
        await until(lambda: n.failed == 1)
        await asyncio.sleep(0.1)  # many retry delays: none comes
    assert (n.sent, n.failed, n.retried, n.pending) == (0, 1, 0, 0)
    assert len(r.requests) == 1


async def test_a_receiver_that_is_down_is_retried_then_given_up() -> None:
    url = f"http://127.0.0.1:{free_port()}/hook"  # nothing listens there
    async with Notifier(url, SECRET, attempts=4, **FAST) as n:
        n.submit(event())
        await until(lambda: n.failed == 1)
    assert (n.sent, n.failed, n.retried, n.pending) == (0, 1, 3, 0)


async def test_a_timeout_and_a_broken_answer_are_retried(receiver: Any) -> None:
    r = await receiver([STALL, b"this is not HTTP\r\n\r\n", DROP, 200])
    async with Notifier(r.url(), SECRET, first_delay=0.01, max_delay=0.05, timeout=0.3) as n:
        n.submit(event())
        await until(lambda: n.sent == 1)
    assert (n.sent, n.failed, n.retried) == (1, 0, 3)
    assert [q.id for q in r.requests] == ["d-1"] * 4


async def test_the_backoff_doubles_and_is_capped(receiver: Any) -> None:
    r = await receiver([500])
    async with Notifier(r.url(), SECRET, attempts=5, first_delay=0.08, max_delay=0.16) as n:
        n.submit(event())
        await until(lambda: n.failed == 1)
    assert (n.failed, n.retried) == (1, 4)
    gaps = [b.at - a.at for a, b in zip(r.requests, r.requests[1:], strict=False)]
    # delays drawn from [d/2, d] with d = 0.08, 0.16, 0.16 (capped), 0.16
    for gap, least in zip(gaps, [0.04, 0.08, 0.08, 0.08], strict=True):
        assert least - 0.005 <= gap < least * 2 + 0.5


async def test_retry_after_is_honoured(receiver: Any) -> None:
    r = await receiver([http(429, "Retry-After: 1"), 200])
    async with Notifier(r.url(), SECRET, first_delay=0.01, max_delay=30) as n:
        n.submit(event())
        await until(lambda: n.sent == 1)
    assert n.retried == 1
    first, second = r.requests
    assert 0.95 <= second.at - first.at < 2.5


async def test_retry_after_is_capped_by_max_delay(receiver: Any) -> None:
    r = await receiver([http(503, "Retry-After: 3600"), 200])
    async with Notifier(r.url(), SECRET, first_delay=0.01, max_delay=0.2) as n:
        n.submit(event())
        await until(lambda: n.sent == 1, timeout=3)
    first, second = r.requests
    assert 0.19 <= second.at - first.at < 1.5


def test_retry_after_values() -> None:
    now = time.time()
    assert retry_after("120") == 120
    assert retry_after(" 0 ") == 0
    assert retry_after("-5") == 0
    assert retry_after(None) is None
    assert retry_after("soon") is None
    assert retry_after("nan") is None
    later = retry_after(formatdate(now + 60, usegmt=True), now=now)
    assert later is not None and 58 <= later <= 61
    assert retry_after(formatdate(now - 60, usegmt=True), now=now) == 0


# --- never in the caller's way -----------------------------------------------------------------


async def test_submit_never_blocks_and_drops_when_full(receiver: Any) -> None:
    r = await receiver([STALL])
    n = Notifier(r.url(), SECRET, queue_size=3, timeout=5.0)
    await n.start()
    try:
        assert [n.submit(event(i)) for i in range(3)] == [True, True, True]
        await until(lambda: len(r.requests) == 3)  # all three in flight, held by the receiver
        # submit is a plain call that returns while the receiver holds every request: it
        # never waits on the network (no timed assertion: a loaded machine is slow anyway)
        assert not asyncio.iscoroutinefunction(n.submit)
        taken = [n.submit(event(i)) for i in range(3, 1003)]
        assert not any(taken) and len(r.requests) == 3
        assert (n.dropped, n.pending, n.sent, n.failed) == (1000, 3, 0, 0)
    finally:
        await n.close(grace=0.1)
    assert (n.failed, n.pending) == (3, 0)
    assert n.submit(event("late")) is False  # closed: refused, counted as dropped
    assert n.dropped == 1001


async def test_an_event_being_retried_does_not_hold_up_the_next(receiver: Any) -> None:
    r = await receiver(lambda req: 503 if req.id == "d-slow" else 200)
    # One worker, a long first delay: a retry that slept in the worker would hold d-fast up.
    async with Notifier(r.url(), SECRET, workers=1, first_delay=2.0, max_delay=2.0) as n:
        t0 = asyncio.get_running_loop().time()
        n.submit(event("slow"))
        n.submit(event("fast"))
        await until(lambda: n.sent == 1, timeout=1.0)
        assert asyncio.get_running_loop().time() - t0 < 0.9  # the retry waits >= 1 s
        assert [q.id for q in r.requests] == ["d-slow", "d-fast"]
        assert (n.retried, n.pending) == (1, 1)
    assert (n.sent, n.failed, n.pending) == (1, 1, 0)  # the waiting retry is given up at close


async def test_close_returns_promptly_with_a_stalled_receiver(receiver: Any) -> None:
    r = await receiver([STALL])
    n = Notifier(r.url(), SECRET, timeout=30.0)
    await n.start()
    for i in range(10):  # 4 in flight, 6 queued
        n.submit(event(i))
    await until(lambda: len(r.requests) == 4)
    t0 = time.perf_counter()
    async with asyncio.timeout(5):
        await n.close()  # the default grace: 1 s
    assert time.perf_counter() - t0 < 2.0
    assert (n.sent, n.failed, n.pending) == (0, 10, 0)
    assert n._client is not None and n._client.is_closed  # the client it made


async def test_a_given_client_is_used_and_left_open(receiver: Any) -> None:
    r = await receiver([200])
    async with httpx.AsyncClient() as client:
        async with Notifier(r.url(), SECRET, client=client, **FAST) as n:
            n.submit(event())
            await until(lambda: n.sent == 1)
        assert not client.is_closed
    assert r.requests[0].signed()


async def test_submit_refuses_unsendable_events_without_raising(receiver: Any) -> None:
    r = await receiver([200])
    async with Notifier(r.url(), SECRET, **FAST) as n:
        assert n.submit({"type": "your_turn"}) is False  # no id
        assert n.submit({"id": "bad id\r\nX-Evil: 1"}) is False
        assert n.submit({"id": "d-1", "when": object()}) is False  # not JSON
        assert n.submit({"id": "d-2", "score": float("nan")}) is False  # not valid JSON
        assert n.submit(None) is False  # type: ignore[arg-type]
        assert n.submit({"id": 42, "type": "your_turn"}) is True  # an int id is fine
        await until(lambda: n.sent == 1)
    assert (n.sent, n.failed, n.dropped) == (1, 5, 0)
    assert [q.id for q in r.requests] == ["42"]


def test_notifier_settings_are_checked() -> None:
    for url in ("ftp://example.org/", "not a url", "http:///path"):
        with pytest.raises(ValueError):
            Notifier(url, SECRET)
    with pytest.raises(ValueError):
        Notifier("http://127.0.0.1/", b"")
    with pytest.raises(ValueError):
        Notifier("http://127.0.0.1/", SECRET, attempts=0)
    with pytest.raises(ValueError):
        Notifier("http://127.0.0.1/", SECRET, first_delay=5, max_delay=1)


# --- signatures and logs -----------------------------------------------------------------------


def test_verify_rejects_tampering_and_the_wrong_secret() -> None:
    body = encode(event())
    ts = int(time.time())
    good = sign(SECRET, ts, body)
    assert verify(SECRET, ts, body, good)
    assert verify(SECRET, str(ts), body, good)  # the header's text
    assert not verify(SECRET, ts, body.replace(b"t-ridge", b"t-ridgf"), good)  # tampered body
    assert not verify(b"another secret", ts, body, good)  # wrong secret
    assert not verify(SECRET, ts + 1, body, good)  # the timestamp is signed: no replay as new
    assert not verify(SECRET, ts, body, good.removeprefix("sha256="))
    assert not verify(SECRET, ts, body, good.upper())
    assert not verify(SECRET, f"{ts}.", body, good)
    assert not verify(SECRET, "-1", body, good)
    assert not verify(SECRET, ts, body, "sha256=ünïcode")
    assert not verify(SECRET, ts, body, None)  # type: ignore[arg-type]
    # freshness, when asked for
    assert verify(SECRET, ts, body, good, tolerance=300, now=ts + 299)
    assert not verify(SECRET, ts, body, good, tolerance=300, now=ts + 301)
    # the documented recipe, for receivers in other languages
    import hashlib
    import hmac

    mac = hmac.new(SECRET, str(ts).encode() + b"." + body, hashlib.sha256).hexdigest()
    assert good == "sha256=" + mac


async def test_logs_carry_ids_and_types_never_secrets_signatures_or_bodies(receiver: Any) -> None:
    r = await receiver([500, 200, 400])
    marker = "table-name-that-must-not-be-logged"
    with structlog.testing.capture_logs() as logs:
        async with Notifier(r.url("/hook/token-in-url"), SECRET, **FAST) as n:
            n.submit(event("a", table=marker))
            await until(lambda: n.sent == 1)
            n.submit(event("b", table=marker))
            await until(lambda: n.failed == 1)
    outcomes = [(e["event"], e.get("id"), e.get("status"), e.get("attempt")) for e in logs]
    assert ("notification will be retried", "d-a", 500, 1) in outcomes
    assert ("notification sent", "d-a", 200, 2) in outcomes
    assert ("notification given up", "d-b", 400, 1) in outcomes
    assert all(e.get("type") == "your_turn" for e in logs if e.get("id"))
    text = repr(logs)
    for secret in [SECRET.decode(), marker, "token-in-url", r.requests[0].body.decode()]:
        assert secret not in text
    for q in r.requests:
        assert q.headers["x-echoridge-signature"].removeprefix("sha256=") not in text
    assert "token-in-url" not in repr(n) and SECRET.decode() not in repr(n)
