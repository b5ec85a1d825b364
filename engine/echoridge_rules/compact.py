"""The compact form of the engine's records, for the event log.

``pack`` turns a tagged record into ``[tag, field1, field2, ...]`` (fields in declaration order,
nested records packed the same way, enums as their values, tuples and frozensets as lists);
``unpack`` rebuilds it with a decoder compiled once per record class from its annotations, so a
rebuild spends its time in ``evolve``, not in decoding.  Unlike ``serial.from_plain`` it trusts
its input: it reads back what ``pack`` wrote, never data from a client.  A record packed before
a field was added at the end of its class (``StartGame.rules``, say) is shorter: its missing
fields take their defaults.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from dataclasses import fields, is_dataclass
from enum import Enum
from functools import cache
from typing import Any, Union, get_args, get_origin

from echoridge_rules.serial import record_class, tag_of, type_hints

Decoder = Callable[[Any], Any]


def pack(obj: Any) -> Any:
    if obj is None or type(obj) in (int, str, bool, bytes, float):
        return obj
    if isinstance(obj, Enum):
        return obj.value
    if isinstance(obj, tuple | list):
        return [pack(x) for x in obj]
    if isinstance(obj, frozenset | set):
        return sorted(pack(x) for x in obj)
    if is_dataclass(obj) and not isinstance(obj, type):
        return [tag_of(obj), *(pack(getattr(obj, f.name)) for f in fields(obj))]
    raise TypeError(f"cannot pack {type(obj).__name__}")


def unpack(data: list[Any]) -> Any:
    """Rebuild a tagged record from its packed form."""
    return _record_decoder(data[0])(data)


@cache
def _record_decoder(tag: str) -> Decoder:
    """A function ``[tag, f1, f2, ...] -> record``, generated once per class: it calls the
    class with each field as packed, or through that field's converter."""
    cls = record_class(tag)
    hints = type_hints(cls)
    scope: dict[str, Any] = {"CLS": cls}
    args = []
    for i, f in enumerate(fields(cls)):
        convert = _decoder(hints[f.name])
        if convert is None:
            args.append(f"data[{i + 1}]")
        else:
            scope[f"C{i}"] = convert
            args.append(f"C{i}(data[{i + 1}])")
    converters = [_decoder(hints[f.name]) for f in fields(cls)]

    def older(data: Any) -> Any:
        """A record packed before its last fields existed: those take their defaults."""
        values = zip(data[1:], converters, strict=False)
        return cls(*(x if convert is None else convert(x) for x, convert in values))

    scope["OLDER"] = older
    exec(
        f"def decode(data):\n    try:\n        return CLS({', '.join(args)})\n"
        "    except IndexError:\n        return OLDER(data)",
        scope,
    )  # (a try costs nothing until it catches)
    decode: Decoder = scope["decode"]
    return decode


def _decoder(hint: Any) -> Decoder | None:
    """How to rebuild a value of this type from its packed form; None when it is as packed."""
    origin = get_origin(hint)
    if hint in (int, str, bool, bytes, float, type(None), Any):
        return None
    if origin in (Union, types.UnionType):
        options = [o for o in get_args(hint) if o is not type(None)]
        if all(_decoder(o) is None for o in options):
            return None
        if all(isinstance(o, type) and is_dataclass(o) for o in options):
            return _nullable(unpack)
        if len(options) == 1:
            inner = _decoder(options[0])
            assert inner is not None
            return _nullable(inner)
        raise TypeError(f"cannot decode the union {hint}")
    if origin is tuple:
        args = get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            item = _decoder(args[0])
            if item is None:
                return tuple
            return lambda v: tuple(map(item, v))
        parts = [_decoder(a) for a in args]
        if all(p is None for p in parts):
            return tuple
        return lambda v: tuple(x if p is None else p(x) for x, p in zip(v, parts, strict=True))
    if origin is frozenset:
        inner = _decoder(get_args(hint)[0])
        return frozenset if inner is None else (lambda v: frozenset(map(inner, v)))
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint
    if isinstance(hint, type) and is_dataclass(hint):
        return unpack
    raise TypeError(f"cannot decode {hint!r}")


def _nullable(inner: Decoder) -> Decoder:
    return lambda v: None if v is None else inner(v)
