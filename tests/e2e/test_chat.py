"""Table chat on real servers and a real Redis (SPEC.md §6.7): seats chat on one node and across
two; spectators read table lines only once their delayed view has reached the line's version;
seats read the spectators' chat only after opting in; every limit and its code; the history in
a welcome after a reconnect and after a restart of the server; hostile text comes back
byte-identical; and no chat text ever reaches the server's log output."""

from __future__ import annotations

import asyncio
import contextlib
import re
import secrets
import unicodedata
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from echoridge_protocol import messages as m
from tests.conftest import RedisServer
from tests.e2e.conftest import ServerProcess, start_server
from tests.e2e.test_schema_frames import _validator
from tests.net.wsclient import CLIENT_NAME, Client, FrameLog, Mirror, Refused

TIMEOUT = 10.0
SPECTATOR_ID = re.compile(r"spectator:[0-9a-f]{16}")


class Chats(list[m.Chat]):
    """``Client.chats`` (where ``Client`` keeps every ``chat`` it reads, reading on), telling
    when it grows."""

    def __init__(self) -> None:
        super().__init__()
        self.grew = asyncio.Event()

    def append(self, chat: m.Chat) -> None:
        super().append(chat)
        self.grew.set()


@contextlib.asynccontextmanager
async def connect(url: str, subprotocol: str = m.SUBPROTOCOL_MSGPACK) -> AsyncIterator[Client]:
    async with Client.connect(url, subprotocol) as client:
        client.chats = Chats()
        yield client


async def next_chat(client: Client, timeout: float = TIMEOUT) -> m.Chat:
    """The next ``chat`` message this test has not looked at; other messages read meanwhile
    are kept for ``recv``.  (``Client._read`` reads on past a chat: it is stopped inside its
    ``recv``, which websockets lets cancel without losing a frame.)"""
    chats = client.chats
    assert isinstance(chats, Chats)
    seen = getattr(client, "chats_read", 0)
    async with asyncio.timeout(timeout):
        while len(chats) <= seen:
            chats.grew.clear()
            reader = asyncio.ensure_future(client._read())
            grew = asyncio.ensure_future(chats.grew.wait())
            await asyncio.wait({reader, grew}, return_when=asyncio.FIRST_COMPLETED)
            for task in (reader, grew):
                task.cancel()
            await asyncio.gather(reader, grew, return_exceptions=True)
            if reader.done() and not reader.cancelled() and reader.exception() is None:
                client._pending.append(reader.result())
    client.chats_read = seen + 1  # type: ignore[attr-defined]
    return chats[seen]


async def chat_until(client: Client, text: str, timeout: float = TIMEOUT) -> list[m.ChatLine]:
    """Every chat line read up to and including the first one saying ``text``."""
    lines: list[m.ChatLine] = []
    async with asyncio.timeout(timeout):
        while not lines or lines[-1].text != text:
            chat = await next_chat(client, timeout)
            for line in chat.lines:
                lines.append(line)
                if line.text == text:
                    break
    return lines


async def say(client: Client, text: str, channel: str = "table") -> m.Result:
    reply = await client.request(m.Say(id=client.next_id("s"), channel=channel, text=text))  # type: ignore[arg-type]
    assert isinstance(reply, m.Result), reply
    return reply


async def said(client: Client, text: str, channel: str = "table") -> None:
    result = await say(client, text, channel)
    assert result.outcome == "accepted", (result.code, result.message)


async def refused(client: Client, text: str, channel: str, code: str) -> None:
    result = await say(client, text, channel)
    assert (result.outcome, result.code) == ("rejected", code), result


async def watch(client: Client, table: str, name: str | None = None) -> m.Welcome:
    """A spectator's hello (with a display name, which ``Client.hello`` does not send)."""
    await client.send(
        m.Hello(protocol=m.PROTOCOL, client=CLIENT_NAME, table=table, spectate=True, name=name)
    )
    welcome = await client.expect(m.Welcome, TIMEOUT)
    client.mirror = Mirror.from_welcome(welcome)
    return welcome


async def new_table(
    url: str, names: tuple[str, ...] = ("Ana", "Ben"), delay: int = 0, start: bool = True
) -> tuple[str, list[str]]:
    async with Client.connect(url) as lobby:
        await lobby.hello()
        created = await lobby.create_table(len(names), spectator_delay=delay)
        table = created.table
        tokens = [(await lobby.join(table, name)).token for name in names]
        if start:
            await lobby.start(table, tokens[0])
    return table, tokens


def no_chat_text_in(server: ServerProcess, *texts: str) -> None:
    output = server.output()
    assert "chat line" in output  # the canonical line is there, without its text
    for text in texts:
        assert text not in output


def invalid_chat(frames: FrameLog) -> list[str]:
    """What is wrong, by the JSON Schema, with each ``chat`` frame and each welcome's ``chat``
    (the rest of the frames is the business of test_schema_frames.py)."""
    chat, line = _validator("Chat"), _validator("ChatLine")
    out = []
    for data in frames.plain():
        if data.get("type") == "chat":
            out += [e.message for e in chat.iter_errors(data)]
        for item in data.get("chat", ()) if data.get("type") == "welcome" else ():
            out += [e.message for e in line.iter_errors(item)]
    return out


def marker() -> str:
    return f"m-{secrets.token_hex(6)}"


async def test_seats_chat_on_one_node_and_across_two(servers: Callable[..., ServerProcess]) -> None:
    a, b = servers(), servers()
    table, tokens = await new_table(a.url, ("Ana", "Ben", "Cy"))
    hi, back, far = marker(), marker(), marker()
    async with (
        connect(a.url) as ana,
        connect(a.url, m.SUBPROTOCOL_JSON) as ben,
        connect(b.url, m.SUBPROTOCOL_JSON) as cy,
    ):
        await ana.hello(table=table, token=tokens[0])
        await ben.hello(table=table, token=tokens[1])
        await cy.hello(table=table, token=tokens[2])
        await said(ana, hi)
        for reader in (ana, ben, cy):  # the same node, and the other one
            (line,) = await chat_until(reader, hi)
            assert (line.channel, line.sender, line.name) == ("table", "seat:0", "Ana")
            assert line.seat == 0
            assert line.seq >= 1 and line.version == 1 and line.at > 0
        await said(cy, back)  # said on node b
        for reader in (ana, ben, cy):
            (line,) = await chat_until(reader, back)
            assert (line.sender, line.name) == ("seat:2", "Cy")
        await said(ben, far)
        assert [line.text for line in await chat_until(cy, far)] == [far]
        assert invalid_chat(ben.frames) == [] and invalid_chat(cy.frames) == []
    no_chat_text_in(a, hi, back, far)
    no_chat_text_in(b, back)


async def test_spectators_read_table_lines_once_their_delayed_view_reaches_them(
    server: ServerProcess,
) -> None:
    table, tokens = await new_table(server.url, delay=1)  # started: version 1
    early, later = marker(), marker()
    async with connect(server.url) as ana, connect(server.url) as ben:
        await ana.hello(table=table, token=tokens[0])
        await ben.hello(table=table, token=tokens[1])
        async with connect(server.url) as watcher:
            welcome = await watch(watcher, table)
            assert welcome.version == 0 and not welcome.chat
            await said(ana, early)  # at version 1: the spectators' view is at 0
            await chat_until(ben, early)
            stands = marker()
            await said(watcher, stands, "spectators")  # the watcher's own line comes at once
            lines = await chat_until(watcher, stands)
            assert [line.text for line in lines] == [stands]  # not the table line before it
            mover = ana if ana.mirror and ana.mirror.legal else ben
            assert mover.mirror is not None
            result = await mover.command(mover.mirror.legal[0])
            assert result.outcome == "accepted" and result.version == 2
            # The spectators' view reaches version 1: its delta, then the line said at it.
            message = await next_chat(watcher)
            assert [line.text for line in message.lines] == [early]
            kinds = [(f["type"], f.get("version")) for f in watcher.frames.plain()]
            at = kinds.index(("chat", None), kinds.index(("chat", None)) + 1)  # the 2nd chat
            assert ("delta", 1) in kinds[:at] and ("delta", 2) not in kinds[:at]
            await said(ana, later)  # at version 2: the spectators are at 1
            await chat_until(ben, later)
        async with connect(server.url) as late:  # a new spectator at version 1
            welcome = await watch(late, table)
            assert welcome.version == 1
            texts = [line.text for line in welcome.chat or ()]
            assert early in texts and stands in texts and later not in texts


async def test_seats_read_the_spectators_chat_only_once_they_opt_in(
    server: ServerProcess,
) -> None:
    table, tokens = await new_table(server.url)
    quiet, loud, table_line = marker(), marker(), marker()
    async with (
        connect(server.url) as ana,
        connect(server.url) as fan,
        connect(server.url) as other,
    ):
        await ana.hello(table=table, token=tokens[0])
        await watch(fan, table, name="Fan")
        await watch(other, table)
        await said(fan, quiet, "spectators")
        (line,) = await chat_until(other, quiet)
        assert SPECTATOR_ID.fullmatch(line.sender) and line.name == "Fan" and line.seat is None
        await said(ana, table_line)  # the seat's next line: nothing from the stands before it
        assert [line.text for line in await chat_until(ana, table_line)] == [table_line]
        await said(other, loud, "spectators")
        fan_read = await chat_until(fan, loud)  # its own line, the table's, then this one
        assert [line.text for line in fan_read] == [quiet, table_line, loud]
        line2 = fan_read[-1]
        assert line2.name == "Spectator" and SPECTATOR_ID.fullmatch(line2.sender)
        assert line2.sender != line.sender
        opt = await ana.request(m.ChatOptions(id="o1", spectators=True))
        assert isinstance(opt, m.Result) and opt.outcome == "accepted"
        recent = await next_chat(ana)  # the spectators' recent lines
        assert [line.text for line in recent.lines] == [quiet, loud]
        again = marker()
        await said(fan, again, "spectators")
        (line3,) = await chat_until(ana, again)
        assert line3.sender == line.sender  # stable for one connection
        off = await ana.request(m.ChatOptions(id="o2", spectators=False))
        assert isinstance(off, m.Result) and off.outcome == "accepted"
        gone, mark = marker(), marker()
        await said(fan, gone, "spectators")
        await chat_until(other, gone)
        await said(ana, mark)
        assert [line.text for line in await chat_until(ana, mark)] == [mark]


async def test_every_limit_has_its_code(servers: Callable[..., ServerProcess]) -> None:
    server = servers()
    table, tokens = await new_table(server.url, start=False)  # chat before the game, too
    async with (
        connect(server.url) as ana,
        connect(server.url) as fan,
        connect(server.url) as lobby,
    ):
        await ana.hello(table=table, token=tokens[0])
        await watch(fan, table)
        await refused(ana, "x" * 501, "table", "chat/too_long")
        await refused(ana, "   \t ", "table", "chat/empty")
        for bad in ("ring\x07", "two\nlines", "rtl \u202eevil", "zero\u200bwidth", "\x1b[31m"):
            await refused(ana, bad, "table", "chat/bad_text")
        await refused(ana, "hi", "spectators", "chat/not_allowed")
        await refused(fan, "hi", "table", "chat/not_allowed")
        opt = await fan.request(m.ChatOptions(id="o", spectators=True))
        assert isinstance(opt, m.Result) and opt.code == "chat/not_allowed"
        await lobby.hello()
        error = await lobby.request(m.Say(id="l", channel="table", text="hi"))
        assert isinstance(error, m.ErrorMessage) and error.code == "protocol/wrong_session"
        await said(ana, "  " + "y" * 500 + "  ")  # 500 after stripping
        for i in range(4):
            await said(ana, f"line {i}")
        await refused(ana, "one too many", "table", "chat/rate_limited")
        for i in range(5):
            await said(fan, f"fan {i}", "spectators")
        await refused(fan, "fan again", "spectators", "chat/rate_limited")
    async with connect(server.url) as ana2:  # the same seat on a new connection
        await ana2.hello(table=table, token=tokens[0])
        await refused(ana2, "still too many", "table", "chat/rate_limited")
    async with connect(server.url) as ben:  # another seat is not held back
        await ben.hello(table=table, token=tokens[1])
        await said(ben, "ben here")
        await said(ben, "\U0001f469\u200d\U0001f4bb")  # an emoji joined by a zero-width joiner
        await said(ben, "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645")  # Persian, a non-joiner
    output = server.output()
    assert "chat/rate_limited" in output and "one too many" not in output


async def test_history_in_the_welcome_after_a_reconnect_and_a_restart(
    servers: Callable[..., ServerProcess],
) -> None:
    server = servers()
    table, tokens = await new_table(server.url)
    texts = [marker() for _ in range(3)]
    async with connect(server.url) as ana, connect(server.url) as fan:
        await ana.hello(table=table, token=tokens[0])
        await watch(fan, table, name="Fan")
        for text in texts:
            await said(ana, text)
        await said(fan, "from the stands", "spectators")
        await chat_until(fan, "from the stands")
    async with Client.connect(server.url, mirror=ana.mirror) as again:
        welcome = await again.hello(table=table, token=tokens[0], resume=True)
        assert welcome.resumed
        assert [line.text for line in welcome.chat or ()] == texts  # no spectators' lines
        assert [line.seq for line in welcome.chat or ()] == [1, 2, 3]
    port = server.port
    server.stop()
    restarted = servers("--port", str(port))
    async with connect(restarted.url) as ben, connect(restarted.url) as late:
        welcome = await ben.hello(table=table, token=tokens[1])
        assert [line.text for line in welcome.chat or ()] == texts
        welcome = await watch(late, table)
        assert [line.text for line in welcome.chat or ()] == [*texts, "from the stands"]
        await said(ben, "after the restart")
        (line,) = await chat_until(ben, "after the restart")
        assert line.seq == 4  # numbering goes on from what Redis kept


@pytest.mark.parametrize("subprotocol", [m.SUBPROTOCOL_MSGPACK, m.SUBPROTOCOL_JSON])
async def test_hostile_text_comes_back_byte_identical(
    server: ServerProcess, subprotocol: str
) -> None:
    table, tokens = await new_table(server.url)
    hostile = [
        '<img src=x onerror="window.__pwned=1">',
        "<script>window.__pwned=1</script> & <b>bold</b> &amp; &#x3c;",
        '{"type": "welcome"} \\u0000 \\n %s %n {{7*7}} ${7*7}',
        "Ünïcödé — 漢字 مرحبا 👍🏽 \"quoted\" \\ back",
        "'; DROP TABLE chat; --",
    ]
    async with (
        connect(server.url, subprotocol) as ana,
        connect(server.url, subprotocol) as ben,
    ):
        await ana.hello(table=table, token=tokens[0])
        await ben.hello(table=table, token=tokens[1])
        for text in hostile:
            await said(ana, text)
            (line,) = await chat_until(ben, text)
            assert line.text.encode() == text.encode()
        if subprotocol == m.SUBPROTOCOL_JSON:
            assert invalid_chat(ben.frames) == []
    no_chat_text_in(server, *hostile)


# Lines that show nothing, or stack marks into a tower: refused (echoridge_protocol/text.py).
INVISIBLE = [
    ("\u200d", "chat/empty"),  # zero-width joiner only
    ("\u200c\u200d\u200c", "chat/empty"),
    ("\u3164", "chat/empty"),  # Hangul filler
    ("\u3164 \u3164\u3164", "chat/empty"),
    ("\u115f\u1160", "chat/empty"),  # Hangul choseong and jungseong fillers
    ("\uffa0", "chat/empty"),  # halfwidth Hangul filler
    ("\u2800\u2800\u2800", "chat/empty"),  # Braille blank
    ("\ufe0f", "chat/empty"),  # a variation selector alone
    ("\u0301\u0302", "chat/empty"),  # marks without a character
    ("\u180e", "chat/bad_text"),  # Mongolian vowel separator (a format character)
    ("\u0301" * 400, "chat/bad_text"),
    ("a" + "\u0301" * 400, "chat/bad_text"),  # "Zalgo"
    ("ok a" + "\u0301" * 5, "chat/bad_text"),
    ("a" + ("\u0301" * 4 + "\u200d") * 3, "chat/bad_text"),  # marks past invisible joiners
    ("a" + ("\u0301" * 4 + "\u3164") * 3, "chat/bad_text"),  # ... or past blank letters
]
# Real text that must pass: emoji sequences (joiners, variation selectors, skin tones, keycaps),
# and scripts that put 2 to 4 marks on a letter.
SHOWN = [
    "\U0001f469\u200d\U0001f4bb",  # woman technologist (ZWJ)
    "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466",  # family (3 ZWJ)
    "\U0001f3f3\ufe0f\u200d\U0001f308",  # rainbow flag (VS16, ZWJ)
    "\U0001f44d\U0001f3fd \U0001f469\U0001f3ff\u200d\U0001f52c",  # skin tones
    "1\ufe0f\u20e3 \u2764\ufe0f",  # keycap, red heart
    "Ti\u1ebfng Vi\u1ec7t c\u00f3 d\u1ea5u",  # Vietnamese (precomposed)
    unicodedata.normalize("NFD", "Ti\u1ebfng Vi\u1ec7t: \u1eb7c bi\u1ec7t"),  # decomposed: 2 marks
    "\u0928\u092e\u0938\u094d\u0924\u0947, \u091c\u093c\u0947\u0902",  # Hindi, 3 marks on one
    "\u0e2a\u0e27\u0e31\u0e2a\u0e14\u0e35\u0e04\u0e23\u0e31\u0e1a \u0e1c\u0e39\u0e49",  # Thai
    "\u05d1\u05bc\u05b0\u05e8\u05b5\u05d0\u05e9\u05c1\u05b4\u05d9\u05ea",  # pointed Hebrew
    "a\u0301\u0302\u0303\u0304 (four marks)",
    "\u3164 hi \u2800",  # blank letters beside visible text
]


async def test_a_line_must_show_something(servers: Callable[..., ServerProcess]) -> None:
    """Invisible lines (joiners, fillers, blank Braille, marks alone) are ``chat/empty``, stacks
    of more than 4 marks ``chat/bad_text``; text in any script and emoji sequences pass and come
    back as said.  Names are held to the same rule (``protocol/bad_field``)."""
    server = servers()
    names = ("Ana", "Ben", "Cy", "Di")
    table, tokens = await new_table(server.url, names, start=False)
    async with contextlib.AsyncExitStack() as stack:
        seats = [await stack.enter_async_context(connect(server.url)) for _ in names]
        for seat, token in zip(seats, tokens, strict=True):
            await seat.hello(table=table, token=token)
        for text, code in INVISIBLE:
            await refused(seats[0], text, "table", code)
        for i, text in enumerate(SHOWN):  # (5 lines per seat in 10 s)
            await said(seats[i % len(seats)], text)
            (line,) = await chat_until(seats[0], text.strip())
            assert line.text == text.strip()
        lobby = await stack.enter_async_context(connect(server.url))
        await lobby.hello()
        other, _ = await new_table(server.url, ("Ed",), start=False)
        for blank in ("\u3164", "\u2800", "A" + "\u0301" * 5):
            join = m.Join(id=lobby.next_id("j"), table=other, name=blank, client_seed=bytes(16))
            error = await lobby.request(join)
            assert isinstance(error, m.ErrorMessage) and error.code == "protocol/bad_field"
        fan = await stack.enter_async_context(connect(server.url))
        await fan.send(m.Hello(protocol=m.PROTOCOL, client=CLIENT_NAME, table=table,
                               spectate=True, name="\u115f\u1160"))  # fmt: skip
        error = await fan.expect(m.ErrorMessage, TIMEOUT)
        assert error.code == "protocol/bad_field"


async def test_the_spectators_of_one_address_share_a_limit_across_connections(
    server: ServerProcess,
) -> None:
    """The spectators' limit is per client address (here 127.0.0.1) at a table, kept in Redis:
    closing a connection and opening another does not reset it (a churning client flushed the
    channel's history before).  Refused lines do not count; the seats are not held back."""
    table, tokens = await new_table(server.url)
    for i in range(3):  # 5 lines over 3 connections, then every new one is refused
        async with connect(server.url) as fan:
            await watch(fan, table)
            for _ in range(2 if i < 2 else 1):
                await said(fan, marker(), "spectators")
            if i == 2:
                await refused(fan, "one too many", "spectators", "chat/rate_limited")
    async with connect(server.url) as fan:
        await watch(fan, table, name="Other")
        await refused(fan, "and again", "spectators", "chat/rate_limited")
    async with connect(server.url) as ana:
        await ana.hello(table=table, token=tokens[0])
        await said(ana, "the seats say on")


async def test_say_while_redis_is_away_is_server_unavailable_and_does_not_count(
    start_redis: Callable[..., RedisServer], tmp_path: Path
) -> None:
    """The limit lives in Redis: with Redis away, ``say`` is answered ``server/unavailable``
    (as any request), the line refused so does not count once Redis is back, and the count
    holds on another node (before, each node kept its own)."""
    redis = start_redis("--appendfsync", "always")
    a = start_server(redis.url, tmp_path / "a.log")
    b = start_server(redis.url, tmp_path / "b.log")
    try:
        table, tokens = await new_table(a.url, start=False)
        async with connect(a.url) as ana:
            await ana.hello(table=table, token=tokens[0])
            await said(ana, "before")
            redis.kill()
            await refused(ana, "while away", "table", "server/unavailable")
            redis.restart()
            deadline = asyncio.get_running_loop().time() + 20
            while (await say(ana, "back")).outcome != "accepted":
                assert asyncio.get_running_loop().time() < deadline, "Redis did not come back"
                await asyncio.sleep(0.2)
        async with contextlib.AsyncExitStack() as stack:  # the same seat on another node
            while True:  # (b's first requests may find its connections to Redis broken)
                ana = await stack.enter_async_context(connect(b.url))
                try:
                    await ana.hello(table=table, token=tokens[0])
                    break
                except Refused as exc:
                    assert exc.code == "server/unavailable"
                    assert asyncio.get_running_loop().time() < deadline, "b did not recover"
                    await asyncio.sleep(0.2)
            for i in range(3):  # 5 in all: the refused lines did not count
                await said(ana, f"after {i}")
            await refused(ana, "sixth", "table", "chat/rate_limited")
    finally:
        a.stop()
        b.stop()
