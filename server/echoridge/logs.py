"""Logging for the server: structlog, one JSON object per line in production, with secrets redacted.

    configure_logging(json=None, level="info")   set up structlog (and route stdlib logging)
    get_logger(name, **context)                  a logger whose lines carry ``logger=name``
    reset_logging()                              back to structlog's defaults (for tests)
    redact(logger, method, event)                the redacting processor, usable on its own

Each line has ``timestamp`` (ISO 8601, UTC), ``level``, ``logger`` and ``event``, then the
bound and given keys.  JSON (one object per line) when ``json`` is true; the default is JSON when
the stream is not a terminal and structlog's console renderer when it is.

Secrets are never passed to a logger; ``redact`` is the defence in depth: a value under a key
named ``token``, ``seed``, ``server_seed``, ``client_seed``, ``salt``, ``salts`` or ``password``,
or ending in ``_token``, ``_seed`` or ``_salt`` (any case), and every bytes value, becomes
``"[redacted]"`` — in nested maps, lists and dataclasses (protocol messages) too.  Records of the
standard library's ``logging`` (websockets logs there) go through the same processors and
renderer, except websockets' debug records, which quote whole frames (tokens included).

``configure_logging`` may be called again: it replaces the previous configuration.  Loggers are
not cached, so every logger follows the latest configuration.
"""

from __future__ import annotations

import dataclasses
import logging
import sys
from collections.abc import Mapping
from typing import Any, Final, TextIO, cast

import structlog
from structlog.typing import EventDict, FilteringBoundLogger, Processor, WrappedLogger

REDACTED: Final = "[redacted]"
SECRET_KEYS: Final = frozenset(
    {"token", "seed", "server_seed", "client_seed", "salt", "salts", "password"}
)
SECRET_SUFFIXES: Final = ("_token", "_seed", "_salt")

LEVELS: Final = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "warn": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
}

_HANDLER_NAME: Final = "echoridge.logs"
_FIRST_KEYS: Final = ("timestamp", "level", "logger", "event")
_MAX_DEPTH: Final = 8


# --- redaction ---------------------------------------------------------------------------------


def is_secret_key(key: object) -> bool:
    """A key whose value is never logged."""
    if not isinstance(key, str):
        return False
    key = key.lower()
    return key in SECRET_KEYS or key.endswith(SECRET_SUFFIXES)


def _scrub(value: Any, depth: int = 0) -> Any:
    """``value`` with secrets replaced; the original is left as it was."""
    if isinstance(value, bytes | bytearray | memoryview):
        return REDACTED
    if depth >= _MAX_DEPTH:
        return value
    if isinstance(value, Mapping):
        return {k: REDACTED if is_secret_key(k) else _scrub(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_scrub(v, depth + 1) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {"type": getattr(value, "TYPE", type(value).__name__)}
        for f in dataclasses.fields(value):
            v = getattr(value, f.name)
            out[f.name] = REDACTED if is_secret_key(f.name) else _scrub(v, depth + 1)
        return out
    return value


def redact(logger: WrappedLogger, method: str, event: EventDict) -> EventDict:
    """The processor: every secret in the event replaced by ``"[redacted]"``."""
    for key, value in event.items():
        if is_secret_key(key):
            event[key] = REDACTED
        elif not isinstance(value, str | int | float | bool | type(None)):
            event[key] = _scrub(value)
    return event


# --- processors and output ---------------------------------------------------------------------


class _NamedWriteLogger(structlog.WriteLogger):
    """structlog's ``WriteLogger`` (one write and flush per line) that knows its name."""

    def __init__(self, file: TextIO, name: str | None) -> None:
        super().__init__(file)
        self.name = name


class _LoggerFactory:
    """Makes ``_NamedWriteLogger``s; ``get_logger(name)`` passes the name here."""

    def __init__(self, file: TextIO) -> None:
        self._file = file

    def __call__(self, *args: Any) -> _NamedWriteLogger:
        name = args[0] if args and isinstance(args[0], str) else None
        return _NamedWriteLogger(self._file, name)


def _add_logger_name(logger: WrappedLogger, method: str, event: EventDict) -> EventDict:
    """``logger``: the name given to ``get_logger``, or the stdlib record's logger name."""
    record = event.get("_record")
    name = record.name if record is not None else getattr(logger, "name", None)
    if name is not None:
        event.setdefault("logger", name)
    return event



def _order(logger: WrappedLogger, method: str, event: EventDict) -> EventDict:
    """timestamp, level, logger and event first, then the rest in the order given."""
    out: EventDict = {k: event.pop(k) for k in _FIRST_KEYS if k in event}
    out.update(event)
    return out


def _is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def _level(level: str) -> int:
    try:
        return LEVELS[level.lower()]
    except KeyError:
        raise ValueError(f"unknown log level {level!r} (one of {', '.join(LEVELS)})") from None


def configure_logging(
    json: bool | None = None, level: str = "info", *, stream: TextIO | None = None
) -> None:
    """Configure structlog (and the root stdlib logger) to write to ``stream`` (stderr)."""
    min_level = _level(level)
    if stream is None:
        stream = sys.stderr
    if json is None:
        json = not _is_tty(stream)
    timestamper = structlog.processors.TimeStamper(fmt="iso", utc=True)
    shared: list[Processor] = [
        _add_logger_name,
        structlog.processors.add_log_level,
        timestamper,
        redact,
    ]
    renderer: Processor
    if json:
        renderer = structlog.processors.JSONRenderer()
        tail: list[Processor] = [
            structlog.processors.StackInfoRenderer(),
            structlog.processors.format_exc_info,
            _order,
            renderer,
        ]
    else:
        renderer = structlog.dev.ConsoleRenderer(colors=_is_tty(stream))
        tail = [structlog.processors.StackInfoRenderer(), renderer]

    structlog.configure(
        processors=[structlog.contextvars.merge_contextvars, *shared, *tail],
        wrapper_class=structlog.make_filtering_bound_logger(min_level),
        context_class=dict,
        logger_factory=_LoggerFactory(stream),
        cache_logger_on_first_use=False,
    )

    handler = logging.StreamHandler(stream)
    handler.set_name(_HANDLER_NAME)
    handler.setLevel(min_level)
    handler.addFilter(_no_frame_dumps)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=shared,
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, *tail],
        )
    )
    root = logging.getLogger()
    _remove_handler(root)
    root.addHandler(handler)
    root.setLevel(min_level)


def _no_frame_dumps(record: logging.LogRecord) -> bool:
    """Drop the websockets library's debug records: they quote frames, which carry tokens."""
    return record.levelno >= logging.INFO or not (
        record.name == "websockets" or record.name.startswith("websockets.")
    )


def reset_logging() -> None:
    """Undo ``configure_logging``: structlog's defaults, and our stdlib handler removed."""
    structlog.reset_defaults()
    _remove_handler(logging.getLogger())


def _remove_handler(root: logging.Logger) -> None:
    for old in [h for h in root.handlers if h.get_name() == _HANDLER_NAME]:
        root.removeHandler(old)
        old.close()


def get_logger(name: str, **context: Any) -> FilteringBoundLogger:
    """A logger for ``name`` (e.g. ``"echoridge.net.server"``), with ``context`` bound."""
    return cast(FilteringBoundLogger, structlog.get_logger(name, **context))
