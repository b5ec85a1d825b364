"""Server logging: JSON lines, levels, the console renderer, stdlib records, and redaction."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
import structlog

from echoridge.logs import REDACTED, configure_logging, get_logger, redact, reset_logging
from echoridge_protocol.messages import Hello, Join, Joined


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    level = root.level
    yield
    reset_logging()
    root.setLevel(level)
    structlog.contextvars.clear_contextvars()


def lines(buf: io.StringIO) -> list[dict[str, Any]]:
    text = buf.getvalue()
    assert text.endswith("\n") or not text
    return [json.loads(line) for line in text.splitlines()]


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


# --- JSON lines --------------------------------------------------------------------------------


def test_one_json_object_per_line() -> None:
    buf = io.StringIO()
    configure_logging(json=True, stream=buf)
    log = get_logger("echoridge.net.test", node="n1")
    log.info("command handled", table="t-1", seat=0, command="drive", outcome="accepted",
             version=13, duration=0.002)
    log.warning("slow reader\nsecond line")
    out = lines(buf)
    assert len(out) == 2
    first = out[0]
    assert list(first)[:4] == ["timestamp", "level", "logger", "event"]
    assert first["level"] == "info"
    assert first["logger"] == "echoridge.net.test"
    assert first["event"] == "command handled"
    assert first["node"] == "n1"
    assert first["table"] == "t-1" and first["version"] == 13 and first["duration"] == 0.002
    stamp = datetime.fromisoformat(first["timestamp"])
    offset = stamp.utcoffset()
    assert offset is not None and offset.total_seconds() == 0
    assert out[1]["level"] == "warning"
    assert out[1]["event"] == "slow reader\nsecond line"


def test_levels() -> None:
    buf = io.StringIO()
    configure_logging(json=True, stream=buf, level="warning")
    log = get_logger("x")
    log.debug("d")
    log.info("i")
    log.warning("w")
    log.error("e")
    assert [line["event"] for line in lines(buf)] == ["w", "e"]

    buf = io.StringIO()
    configure_logging(json=True, stream=buf, level="DEBUG")
    get_logger("x").debug("d")
    assert [line["level"] for line in lines(buf)] == ["debug"]


def test_unknown_level() -> None:
    with pytest.raises(ValueError, match="unknown log level"):
        configure_logging(json=True, stream=io.StringIO(), level="chatty")


def test_exceptions_stay_on_one_line() -> None:
    buf = io.StringIO()
    configure_logging(json=True, stream=buf)
    try:
        raise RuntimeError("table crashed")
    except RuntimeError:
        get_logger("x").exception("table failed", table="t-1")
    [line] = lines(buf)
    assert line["level"] == "error"
    assert "RuntimeError: table crashed" in line["exception"]


def test_context_vars_are_merged() -> None:
    buf = io.StringIO()
    configure_logging(json=True, stream=buf)
    structlog.contextvars.bind_contextvars(conn="c-7", token="secret-in-context")
    get_logger("x").info("hello")
    [line] = lines(buf)
    assert line["conn"] == "c-7"
    assert line["token"] == REDACTED


# --- default renderer --------------------------------------------------------------------------


def test_default_is_json_when_not_a_terminal() -> None:
    buf = io.StringIO()
    configure_logging(stream=buf)
    get_logger("x").info("plain")
    assert lines(buf)[0]["event"] == "plain"


def test_default_is_the_console_renderer_on_a_terminal() -> None:
    buf = FakeTerminal()
    configure_logging(stream=buf)
    get_logger("echoridge.x").info("pretty", table="t-1", token="tok-123")
    text = buf.getvalue()
    assert text.count("\n") == 1
    assert "pretty" in text and "t-1" in text and "echoridge.x" in text
    assert "tok-123" not in text and REDACTED in text
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)


def test_console_when_asked() -> None:
    buf = io.StringIO()
    configure_logging(json=False, stream=buf)
    get_logger("x").info("pretty", n=1)
    assert "pretty" in buf.getvalue() and "n=1" in buf.getvalue()
    assert "\x1b[" not in buf.getvalue()  # no colours when the stream is not a terminal


# --- configuring twice -------------------------------------------------------------------------


def test_configure_twice_replaces_the_configuration() -> None:
    early = get_logger("early")  # made before any configuration, as module-level loggers are
    first, second = io.StringIO(), io.StringIO()
    configure_logging(json=True, stream=first)
    early.info("one")
    configure_logging(json=True, stream=second, level="debug")
    early.info("two")
    early.debug("three")
    logging.getLogger("lib").warning("stdlib")
    assert [line["event"] for line in lines(first)] == ["one"]
    assert [line["event"] for line in lines(second)] == ["two", "three", "stdlib"]
    ours = [h for h in logging.getLogger().handlers if h.get_name() == "echoridge.logs"]
    assert len(ours) == 1


def test_json_then_console() -> None:
    buf = io.StringIO()
    configure_logging(json=True, stream=buf)
    get_logger("x").info("as json")
    configure_logging(json=False, stream=buf)
    get_logger("x").info("as text")
    first, second = buf.getvalue().splitlines()
    assert json.loads(first)["event"] == "as json"
    assert "as text" in second and not second.startswith("{")


def test_reset_removes_the_stdlib_handler() -> None:
    configure_logging(json=True, stream=io.StringIO())
    reset_logging()
    assert not [h for h in logging.getLogger().handlers if h.get_name() == "echoridge.logs"]


# --- the standard library's logging ------------------------------------------------------------


def test_stdlib_records_are_rendered_the_same_way() -> None:
    buf = io.StringIO()
    configure_logging(json=True, stream=buf)
    logging.getLogger("websockets.server").warning("connection rejected (%d)", 400)
    logging.getLogger("asyncio").debug("below the level")
    [line] = lines(buf)
    assert list(line)[:4] == ["timestamp", "level", "logger", "event"]
    assert line["logger"] == "websockets.server"
    assert line["level"] == "warning"
    assert line["event"] == "connection rejected (400)"


def test_websockets_frame_dumps_are_dropped_even_at_debug() -> None:
    buf = io.StringIO()
    configure_logging(json=True, stream=buf, level="debug")
    logging.getLogger("websockets.server").debug('< TEXT \'{"token":"tok-9"}\'')
    logging.getLogger("websockets").debug("< BINARY ...")
    logging.getLogger("websocketsish").debug("kept")
    logging.getLogger("websockets.server").info("server listening")
    assert [line["event"] for line in lines(buf)] == ["kept", "server listening"]


# --- redaction ---------------------------------------------------------------------------------

SECRET_NAMES = [
    "token", "seed", "server_seed", "client_seed", "salt", "salts", "password",
    "seat_token", "game_seed", "token_salt", "Token", "SERVER_SEED",
]


@pytest.mark.parametrize("key", SECRET_NAMES)
def test_secret_keys_are_redacted(key: str) -> None:
    buf = io.StringIO()
    configure_logging(json=True, stream=buf)
    get_logger("x").info("event", **{key: "s3cr3t-value"})
    assert "s3cr3t-value" not in buf.getvalue()
    assert lines(buf)[0][key] == REDACTED


@pytest.mark.parametrize("key", ["tokens_seen", "seeded", "seat", "table", "seed_commit", "id"])
def test_other_keys_are_kept(key: str) -> None:
    buf = io.StringIO()
    configure_logging(json=True, stream=buf)
    get_logger("x").info("event", **{key: "visible"})
    assert lines(buf)[0][key] == "visible"


def test_bound_secrets_are_redacted() -> None:
    buf = io.StringIO()
    configure_logging(json=True, stream=buf)
    log = get_logger("x", token="bound-secret").bind(client_seed="ab" * 16, seat=2)
    log.info("joined")
    [line] = lines(buf)
    assert "bound-secret" not in buf.getvalue() and "ab" * 16 not in buf.getvalue()
    assert line["token"] == line["client_seed"] == REDACTED
    assert line["seat"] == 2


def test_bytes_and_nested_values_are_redacted() -> None:
    buf = io.StringIO()
    configure_logging(json=True, stream=buf)
    get_logger("x").info(
        "nested",
        raw=b"\x00secret-bytes",
        buf=bytearray(b"more"),
        data={"table": "t-1", "salts": ["aa", "bb"], "inner": [{"seat_token": "tk"}, b"x"]},
        pair=("ok", b"no"),
    )
    text = buf.getvalue()
    assert "secret-bytes" not in text and "tk" not in text and "aa" not in text
    [line] = lines(buf)
    assert line["raw"] == line["buf"] == REDACTED
    assert line["data"] == {
        "table": "t-1",
        "salts": REDACTED,
        "inner": [{"seat_token": REDACTED}, REDACTED],
    }
    assert line["pair"] == ["ok", REDACTED]


def test_protocol_messages_are_redacted() -> None:
    buf = io.StringIO()
    configure_logging(json=True, stream=buf)
    log = get_logger("x")
    log.info("in", message=Hello(protocol="echoridge.v2", client="c", table="t-1", token="tk-1"))
    log.info("in", message=Join(id="r1", table="t-1", name="Ann", client_seed=bytes(range(16))))
    log.info("out", message=Joined(id="r1", table="t-1", seat=0, token="tk-2"))
    text = buf.getvalue()
    assert "tk-1" not in text and "tk-2" not in text and bytes(range(16)).hex() not in text
    hello, join, joined = (line["message"] for line in lines(buf))
    assert hello["type"] == "hello" and hello["table"] == "t-1" and hello["token"] == REDACTED
    assert join["name"] == "Ann" and join["client_seed"] == REDACTED
    assert joined["seat"] == 0 and joined["token"] == REDACTED


def test_redact_leaves_the_caller_s_values_alone() -> None:
    data = {"token": "x", "list": [b"y"]}
    event = {"event": "e", "data": data, "n": 1}
    out = redact(None, "info", event)
    assert out["data"] == {"token": REDACTED, "list": [REDACTED]}
    assert data == {"token": "x", "list": [b"y"]}
