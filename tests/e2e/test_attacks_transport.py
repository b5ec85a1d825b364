"""Attacks on the transport, on a real server, as an outsider would make them: foreign web
origins, too many connections, clients that stop reading, slowloris, oversized and fragmented
frames, compression, fuzzed frames in both subprotocols.  Bounded in count and time; 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.typing import Subprotocol

from echoridge_client.lobby import Lobby
from echoridge_client.policies import RandomPolicy
from echoridge_client.session import Seat
from echoridge_protocol import codec, codes
from echoridge_protocol import messages as m
from tests.e2e.conftest import ServerProcess
from tests.e2e.hostile import (
    log_lines,
    metrics,
    raw_upgrade,
    send_all,
    stuck_reader,
    upgrade,
    wait_for_metric,
)
from tests.net.wsclient import Client

BOTH = pytest.mark.parametrize("sub", [m.SUBPROTOCOL_MSGPACK, m.SUBPROTOCOL_JSON])
REFUSED = 'echoridge_connections_refused_total{reason="%s"}'
ABORTED = "echoridge_sessions_aborted_total"


# --- Origin ---------------------------------------------------------------------------------


async def test_a_page_of_another_origin_cannot_open_a_websocket(server: ServerProcess) -> None:
    answer = await upgrade(server, {"Origin": "https://evil.example"})
    assert answer.status == 403
    assert b"origin" in answer.body
    for origin in ("null", "http://127.0.0.1.evil.example", f"http://127.0.0.1:{server.port + 1}"):
        assert (await upgrade(server, {"Origin": origin})).status == 403, origin
    assert (await metrics(server))[REFUSED % "origin"] == 4
    assert log_lines(server, "handshake refused")


async def test_the_server_s_own_origin_and_programs_without_one_are_admitted(
    server: ServerProcess,
) -> None:
    own = f"http://127.0.0.1:{server.port}"
    assert (await upgrade(server, {"Origin": own})).status == 101  # the page served at /
    assert (await upgrade(server, {"Origin": own.upper().replace("HTTP", "http")})).status == 101
    assert (await upgrade(server)).status == 101  # no Origin: not a browser
    # Behind a TLS proxy that passes the Host it was reached at (the default ports elided).
    proxied = {"Host": "play.example.org", "Origin": "https://play.example.org"}
    assert (await upgrade(server, proxied)).status == 101
    on_port = {"Host": "play.example.org:8443", "Origin": "https://play.example.org:8443"}
    assert (await upgrade(server, on_port)).status == 101
    wrong_port = {"Host": "play.example.org:8443", "Origin": "https://play.example.org"}
    assert (await upgrade(server, wrong_port)).status == 403
    # X-Forwarded-Host is believed only from a trusted proxy (none here).
    forged = {"Host": "x.example", "X-Forwarded-Host": "evil.example", "Origin": "http://evil.example"}
    assert (await upgrade(server, forged)).status == 403


async def test_allowed_origins_adds_origins_and_a_star_admits_any(
    servers: Callable[..., ServerProcess],
) -> None:
    some = servers("--allowed-origins", "https://friends.example, http://localhost:3000")
    assert (await upgrade(some, {"Origin": "https://friends.example"})).status == 101
    assert (await upgrade(some, {"Origin": "http://localhost:3000"})).status == 101
    assert (await upgrade(some, {"Origin": "http://localhost:3001"})).status == 403
    every = servers("--allowed-origins", "*")
    assert (await upgrade(every, {"Origin": "https://anyone.example"})).status == 101
    behind = servers("--trusted-proxies", "127.0.0.0/8")
    forwarded = {"Host": "10.0.0.5:8765", "X-Forwarded-Host": "game.example"}
    assert (await upgrade(behind, {**forwarded, "Origin": "https://game.example"})).status == 101
    assert (await upgrade(behind, {**forwarded, "Origin": "https://evil.example"})).status == 403


def test_a_bad_allowed_origin_is_refused_at_start(servers: Callable[..., ServerProcess]) -> None:
    with pytest.raises(RuntimeError, match="allowed-origins"):
        servers("--allowed-origins", "evil.example")


# --- connection caps ------------------------------------------------------------------------


async def test_one_address_holds_at_most_its_cap_of_connections(
    servers: Callable[..., ServerProcess],
) -> None:
    server = servers("--max-connections-per-ip", "3")
    async with contextlib.AsyncExitStack() as held:
        for _ in range(3):
            answer, _ = await held.enter_async_context(raw_upgrade(server))
            assert answer.status == 101
        refused = await upgrade(server)
        assert refused.status == 429 and refused.headers.get("retry-after")
        # X-Forwarded-For is not believed from a peer that is not a trusted proxy
        assert (await upgrade(server, {"X-Forwarded-For": "203.0.113.9"})).status == 429
    # closed connections are counted out
    async with Client.connect(server.url) as client:
        await client.hello()
    assert (await metrics(server))[REFUSED % "per_ip"] == 2


async def test_behind_a_trusted_proxy_each_forwarded_client_has_its_own_cap(
    servers: Callable[..., ServerProcess],
) -> None:
    server = servers("--max-connections-per-ip", "2", "--trusted-proxies", "127.0.0.1")
    async with contextlib.AsyncExitStack() as held:
        for client in ("203.0.113.1", "203.0.113.1", "203.0.113.2"):
            # the rightmost address that is not a trusted proxy is the client
            headers = {"X-Forwarded-For": f"198.51.100.7, {client}, 127.0.0.1"}
            answer, _ = await held.enter_async_context(raw_upgrade(server, headers))
            assert answer.status == 101
        assert (await upgrade(server, {"X-Forwarded-For": "203.0.113.1"})).status == 429
        assert (await upgrade(server, {"X-Forwarded-For": "203.0.113.2"})).status == 101
        # IPv6 clients count by their /64
        six = ("2001:db8:1:2::a", "2001:db8:1:2::b", "2001:db8:1:2:ffff::1")
        statuses = [(await upgrade(server, {"X-Forwarded-For": a})).status for a in six]
        assert statuses == [101, 101, 101]  # (each upgrade above was closed before the next)
        async with contextlib.AsyncExitStack() as v6:
            for address in six[:2]:
                answer, _ = await v6.enter_async_context(
                    raw_upgrade(server, {"X-Forwarded-For": address})
                )
                assert answer.status == 101
            assert (await upgrade(server, {"X-Forwarded-For": six[2]})).status == 429


async def test_the_server_holds_at_most_its_cap_of_connections(
    servers: Callable[..., ServerProcess],
) -> None:
    server = servers("--max-connections", "4", "--max-connections-per-ip", "0")
    async with contextlib.AsyncExitStack() as held:
        for _ in range(4):
            answer, _ = await held.enter_async_context(raw_upgrade(server))
            assert answer.status == 101
        full = await upgrade(server)
        assert full.status == 503 and b"full" in full.body
        # plain HTTP still answers (the health check of a full server)
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert (await asyncio.wait_for(reader.read(), 5)).startswith(b"HTTP/1.1 200")
        writer.close()
        await writer.wait_closed()
    assert (await upgrade(server)).status == 101
    assert (await metrics(server))[REFUSED % "global"] == 1


# --- clients that stop reading ----------------------------------------------------------------


async def finished_solo_table(server: ServerProcess) -> str:
    """A finished one-seat game (played by a random bot through the SDK): its transcript is
    ~30 KB, the largest reply a lobby request gets."""
    lobby = await Lobby.connect(server.url)
    try:
        table = (await lobby.create(1)).table
        token = (await lobby.join(table, "solo")).token
        seat = await Seat.sit(server.url, table, token)
        try:
            await lobby.start(table, token)
            await seat.play(RandomPolicy(b"solo"), timeout=60)
        finally:
            await seat.close()
        await lobby.transcript(table)  # (waits until it is marked over)
    finally:
        await lobby.close()
    return table


async def test_a_client_that_stops_reading_is_cut_off_once_its_outbox_overflows(
    server: ServerProcess,
) -> None:
    table = await finished_solo_table(server)
    before = await metrics(server)
    async with stuck_reader(server) as ws:
        await ws.send(codec.encode(_hello(), m.SUBPROTOCOL_JSON))
        # ~6 MB of transcripts fill the socket buffers, then 700 small answers overflow the
        # outbox (512): the server closes with 4011, which it cannot send; it must give up.
        big = [m.GetTranscript(f"t{i}", table) for i in range(200)]
        small = [m.GetTranscript(f"s{i}", "t-nosuchtable") for i in range(700)]
        await send_all(ws, big + small)
        aborted = before.get(ABORTED, 0) + 1
        assert await wait_for_metric(server, ABORTED, aborted, 20) == aborted
        assert (await metrics(server)).get("echoridge_outbox_overflows_total", 0) >= 1
        assert await dropped(ws) == 1006  # no close frame: the connection was cut
    assert any("the close did not finish" in line for line in log_lines(server, "session aborted"))
    # and the server is fine
    async with Client.connect(server.url) as client:
        await client.hello()
        await client.list_tables()


async def test_a_client_that_stops_reading_is_cut_off_at_the_idle_timeout(
    servers: Callable[..., ServerProcess],
) -> None:
    server = servers("--idle-timeout", "2", "--ping-interval", "0.5")
    table = await finished_solo_table(server)
    async with stuck_reader(server) as ws:
        await ws.send(codec.encode(_hello(), m.SUBPROTOCOL_JSON))
        # ~9 MB: more than the socket buffers hold, fewer frames than the outbox's limit.
        await send_all(ws, [m.GetTranscript(f"t{i}", table) for i in range(300)])
        assert await wait_for_metric(server, ABORTED, 1, 20) == 1
        assert await dropped(ws) == 1006
    assert (await metrics(server)).get("echoridge_outbox_overflows_total") == 0
    assert log_lines(server, "session aborted")


# --- slowloris, frames, compression -----------------------------------------------------------


async def test_slowloris_connections_are_dropped_and_others_get_through(
    server: ServerProcess,
) -> None:
    """Twenty connections that send their upgrade request a byte at a time: the server ends
    each one when its handshake timeout runs out, and serves others meanwhile."""
    request = (
        f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nUpgrade: websocket\r\n"
    ).encode()
    streams = [await asyncio.open_connection("127.0.0.1", server.port) for _ in range(20)]

    async def dribble(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """True when the server closed the connection before the request was complete."""
        try:
            for byte in request:
                writer.write(bytes([byte]))
                await writer.drain()
                await asyncio.sleep(0.5)
                if reader.at_eof():
                    return True
            return False
        except (ConnectionError, OSError):
            return True
        finally:
            writer.close()

    dribblers = [asyncio.create_task(dribble(r, w)) for r, w in streams]
    async with Client.connect(server.url) as client:
        await client.hello()
        await client.create_table(2)
    async with asyncio.timeout(25):
        dropped = await asyncio.gather(*dribblers)
    assert all(dropped)


async def test_an_oversized_frame_closes_with_1009_and_fragments_are_reassembled(
    server: ServerProcess,
) -> None:
    async with Client.connect(server.url, max_size=None) as client:
        await client.hello()
        # one message in many small fragments is one message
        frame = codec.encode(m.ListTables(id="frag"), m.SUBPROTOCOL_MSGPACK)
        assert isinstance(frame, bytes)
        await client.ws.send([frame[i : i + 3] for i in range(0, len(frame), 3)])
        reply = await client.recv()
        assert isinstance(reply, m.Tables) and reply.id == "frag"
        # fragments adding up to more than the limit: 1009, as one frame would
        await client.ws.send([b"\x00" * 16_384 for _ in range(5)])
        assert await client.closed() == 1009
    async with Client.connect(server.url) as client:
        await client.hello()
        await client.send_raw(b"\x00" * 70_000)
        assert await client.closed() == 1009


async def test_a_text_frame_that_is_not_utf8_closes_with_1007_and_no_bye(
    server: ServerProcess,
) -> None:
    """SPEC.md §2.2, §7.2: the websocket layer fails the connection (RFC 6455 §8.1), before
    and after the hello; no error and no bye precede the close."""
    hello = b'{"type":"hello","protocol":"echoridge.v2","client":"x'
    for before_hello in (True, False):
        async with Client.connect(server.url, m.SUBPROTOCOL_JSON) as client:
            if not before_hello:
                await client.hello()
            bad = hello + b'\xff"}' if before_hello else b'{"type":"ping","id":"\xed\xa0\x80"}'
            await client.ws.send(bad, text=True)
            assert await client.closed() == 1007
            assert not any(isinstance(x, m.ErrorMessage | m.ServerBye) for x in client._pending)


async def test_compression_is_never_negotiated(server: ServerProcess) -> None:
    offered = {"Sec-WebSocket-Extensions": "permessage-deflate; client_max_window_bits"}
    answer = await upgrade(server, offered)
    assert answer.status == 101
    assert "sec-websocket-extensions" not in answer.headers
    async with connect(
        server.url, subprotocols=[Subprotocol(m.SUBPROTOCOL_JSON)], compression="deflate"
    ) as ws:
        assert not ws.protocol.extensions


async def test_no_subprotocol_we_speak_is_refused_400(server: ServerProcess) -> None:
    assert (await upgrade(server, subprotocol="chat.v2")).status == 400
    with pytest.raises(InvalidStatus):
        async with connect(server.url, subprotocols=[Subprotocol("echoridge.v9.json")]):
            pass


# --- fuzzed frames ----------------------------------------------------------------------------

SCALARS = st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats()
JSON_VALUES = st.recursive(
    SCALARS | st.text(max_size=40),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=12), inner, max_size=5)
    ),
    max_leaves=20,
)
MESSAGE_TYPES = st.sampled_from([*m.CLIENT_MESSAGES, "welcome", "delta", "", "x" * 70])


@st.composite
def fuzzed_frames(draw: st.DrawFn, sub: str) -> bytes | str:
    """Frames a hostile client might send: random bytes or text, and messages of a known type
    with random fields."""
    kind = draw(st.integers(0, 2))
    if kind == 0:
        return draw(st.binary(max_size=200)) if draw(st.booleans()) else draw(st.text(max_size=200))
    fields = draw(st.dictionaries(st.text(max_size=12), JSON_VALUES, max_size=6))
    if kind == 2:
        fields["type"] = draw(MESSAGE_TYPES)
    if sub == m.SUBPROTOCOL_JSON:
        return json.dumps(fields, allow_nan=True)
    import msgpack

    return bytes(msgpack.packb(fields))


@BOTH
async def test_fuzzed_frames_get_registered_error_codes_and_never_hurt_the_server(
    server: ServerProcess, sub: str
) -> None:
    frames: list[bytes | str] = []

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(fuzzed_frames(sub))
    def collect(frame: bytes | str) -> None:
        frames.append(frame)

    collect()
    rng = random.Random(4)
    rng.shuffle(frames)
    replies = 0
    for batch in range(0, len(frames), 15):  # (20 refused frames a minute close a connection)
        async with Client.connect(server.url, sub) as client:
            await client.hello()
            for frame in frames[batch : batch + 15]:
                await client.send_raw(frame)
            for message in await client.drain(quiet=0.3):
                replies += 1
                code = getattr(message, "code", None)
                if isinstance(message, m.ErrorMessage | m.Result) and code is not None:
                    assert code in codes.ALL_CODES, code
            if client.ws.close_code is None:  # the session still works after the garbage
                assert (await client.list_tables()).id
            else:  # a fuzzed bye (1000), or too many refusals (1008): never a failure (1011)
                assert client.ws.close_code in (1000, 1008), client.ws.close_code
    assert replies >= len(frames) // 2
    async with Client.connect(server.url) as client:
        await client.hello()
        await client.list_tables()
    assert "Traceback" not in server.output()


async def dropped(ws: ClientConnection) -> int | None:
    """Read everything the stuck client was sent until the connection ends; its close code
    (1006: it ended without a close frame)."""
    with contextlib.suppress(ConnectionClosed):
        async with asyncio.timeout(30):
            while True:
                await ws.recv()
    return ws.close_code


def _hello() -> m.Hello:
    return m.Hello(protocol=m.PROTOCOL, client="stuck/0")
