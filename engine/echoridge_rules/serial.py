"""Plain-data form of the engine's records, for storage, hashing and the wire.

``to_plain`` turns a tagged dataclass (a command, an event, a task, a decision, the state) into
maps, lists and scalars; ``from_plain`` turns it back, guided by the field annotations.  Every
class that may stand in a union carries an explicit lowercase wire tag, given with ``@tagged``.
"""

from __future__ import annotations

import hashlib
import json
import types
import typing
from dataclasses import fields, is_dataclass
from enum import Enum
from typing import Any, TypeVar, Union, get_args, get_origin

T = TypeVar("T")

_BY_TAG: dict[str, type] = {}
_TAG_OF: dict[type, str] = {}
_HINTS: dict[type, dict[str, Any]] = {}


def tagged(tag: str) -> typing.Callable[[type[T]], type[T]]:
    """Register a dataclass under a wire tag."""

    def register(cls: type[T]) -> type[T]:
        if tag in _BY_TAG and _BY_TAG[tag] is not cls:
            raise ValueError(f"duplicate wire tag {tag!r}")
        _BY_TAG[tag] = cls
        _TAG_OF[cls] = tag
        return cls

    return register


def tag_of(obj: object) -> str:
    return _TAG_OF[type(obj)]


def record_class(tag: str) -> type:
    """The record class registered under a wire tag (KeyError if none)."""
    return _BY_TAG[tag]


def type_hints(cls: type) -> dict[str, Any]:
    """A record class's resolved field annotations (cached)."""
    return _hints(cls)


def _hints(cls: type) -> dict[str, Any]:
    hints = _HINTS.get(cls)
    if hints is None:
        hints = typing.get_type_hints(cls)
        _HINTS[cls] = hints
    return hints


def to_plain(obj: Any) -> Any:
    t = type(obj)
    if t is str or t is int or t is bool or obj is None or t is bytes:
        return obj
    if t is tuple or t is list:
        return [to_plain(x) for x in obj]
    names = _FIELDS.get(t, _UNSEEN)
    if names is _UNSEEN:
        record = is_dataclass(obj) and not isinstance(obj, type)
        names = _FIELDS[t] = tuple(f.name for f in fields(obj)) if record else None
    if names is not None:
        out: dict[str, Any] = {}
        tag = _TAG_OF.get(t)
        if tag is not None:
            out["type"] = tag
        for name in names:
            out[name] = to_plain(getattr(obj, name))
        return out
    if isinstance(obj, Enum):
        return obj.value
    if isinstance(obj, bool | int | str | bytes):
        return obj
    if isinstance(obj, tuple | list):
        return [to_plain(x) for x in obj]
    if isinstance(obj, frozenset | set):
        return sorted((to_plain(x) for x in obj), key=_sort_key)
    if isinstance(obj, dict):
        return {str(k): to_plain(v) for k, v in obj.items()}
    raise TypeError(f"cannot make {type(obj).__name__} plain")


_FIELDS: dict[type, tuple[str, ...] | None] = {}  # a record class's field names; None: no record
_UNSEEN: Any = object()


def _sort_key(x: Any) -> str:
    return json.dumps(x, sort_keys=True)


def from_plain(hint: Any, data: Any) -> Any:
    """Rebuild a value of type ``hint`` from its plain form."""
    if hint is Any:
        return data
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        options = get_args(hint)
        if data is None and type(None) in options:
            return None
        if isinstance(data, dict) and "type" in data:
            return _from_tagged(data)
        for opt in options:
            if opt is type(None):
                continue
            try:
                return from_plain(opt, data)
            except (TypeError, ValueError, KeyError):
                continue
        raise ValueError(f"no member of {hint} matches {data!r}")
    if origin is tuple:
        args = get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(from_plain(args[0], x) for x in data)
        if len(args) != len(data):
            raise ValueError("tuple length mismatch")
        return tuple(from_plain(a, x) for a, x in zip(args, data, strict=True))
    if origin is frozenset:
        (arg,) = get_args(hint)
        return frozenset(from_plain(arg, x) for x in data)
    if origin is dict:
        k, v = get_args(hint)
        return {from_plain(k, a): from_plain(v, b) for a, b in data.items()}
    if isinstance(hint, type):
        if issubclass(hint, Enum):
            return hint(data)
        if is_dataclass(hint):
            if isinstance(data, dict) and "type" in data and hint not in _TAG_OF:
                return _from_tagged(data)
            return _build(hint, data)
        if hint is bool:
            if not isinstance(data, bool):
                raise TypeError("expected a boolean")
            return data
        if hint is int:
            if not isinstance(data, int) or isinstance(data, bool):
                raise TypeError("expected an integer")
            return data
        if hint is str:
            if not isinstance(data, str):
                raise TypeError("expected a string")
            return data
        if hint is bytes:
            if not isinstance(data, bytes):
                raise TypeError("expected bytes")
            return data
        if hint is type(None):
            if data is not None:
                raise TypeError("expected nil")
            return None
    raise TypeError(f"unsupported type {hint!r}")


def _from_tagged(data: dict[str, Any]) -> Any:
    cls = _BY_TAG.get(data["type"])
    if cls is None:
        raise ValueError(f"unknown type {data['type']!r}")
    return _build(cls, data)


def _build(cls: type, data: Any) -> Any:
    if not isinstance(data, dict):
        raise TypeError(f"expected a map for {cls.__name__}")
    tag = _TAG_OF.get(cls)
    if tag is not None and data.get("type", tag) != tag:
        raise ValueError(f"expected type {tag!r}")
    hints = _hints(cls)
    kwargs = {}
    for f in fields(cls):
        if f.name in data:
            kwargs[f.name] = from_plain(hints[f.name], data[f.name])
    return cls(**kwargs)


def conforms(obj: Any) -> bool:
    """Whether every field of a record holds a value of its annotated type (an int is not a
    bool, a tuple has its length): the guard for records built in code rather than decoded."""
    return is_dataclass(obj) and all(
        _is_a(_hints(type(obj))[f.name], getattr(obj, f.name)) for f in fields(obj)
    )


def _is_a(hint: Any, value: Any) -> bool:
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        return any(_is_a(opt, value) for opt in get_args(hint))
    if origin is tuple:
        if not isinstance(value, tuple):
            return False
        args = get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_is_a(args[0], v) for v in value)
        if len(args) != len(value):
            return False
        return all(_is_a(a, v) for a, v in zip(args, value, strict=True))
    if hint is type(None):
        return value is None
    if hint is int:
        return type(value) is int
    if hint is bool:
        return type(value) is bool
    if hint is str:
        return type(value) is str
    if isinstance(hint, type) and issubclass(hint, Enum):
        return isinstance(value, hint)
    if isinstance(hint, type) and is_dataclass(hint):
        return isinstance(value, hint) and conforms(value)
    return isinstance(value, hint) if isinstance(hint, type) else False


def _hex(value: Any) -> str:
    if isinstance(value, bytes):
        return value.hex()
    raise TypeError(f"cannot hash {type(value).__name__}")


def load(data: dict[str, Any]) -> Any:
    """Rebuild a tagged record (command, event, task, decision) from its plain form."""
    return _from_tagged(data)


def digest(obj: Any) -> str:
    """SHA-256 over the canonical JSON of a record's plain form."""
    text = json.dumps(to_plain(obj), sort_keys=True, separators=(",", ":"), default=_hex)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
