"""A fast ``replace`` for the engine's frozen records, used on the hot path of ``evolve``.

``dataclasses.replace`` re-runs ``__init__`` (keyword handling, then one frozen ``__setattr__``
per field); ``evolve`` replaces the state for every event, so that cost sets the speed of a fold.
``fast_replace`` generates, once per class, a method that copies the slots through their
descriptors and then sets the changed fields.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any, TypeVar

T = TypeVar("T")


def fast_replace(cls: type[T]) -> type[T]:
    """Class decorator (outside @dataclass(frozen=True, slots=True)): adds ``obj.but(**changes)``,
    a copy with the given fields changed, like ``dataclasses.replace``.  An unknown field name
    raises AttributeError."""
    names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    scope: dict[str, Any] = {"NEW": object.__new__, "SET": object.__setattr__, "CLS": cls}
    body = ["def but(self, /, **changes):", "    new = NEW(CLS)"]
    for i, name in enumerate(names):
        scope[f"S{i}"] = cls.__dict__[name].__set__
        body.append(f"    S{i}(new, self.{name})")
    body += ["    for name, value in changes.items():", "        SET(new, name, value)"]
    body.append("    return new")
    exec("\n".join(body), scope)
    but: Callable[..., T] = scope["but"]
    but.__qualname__ = f"{cls.__qualname__}.but"
    but.__doc__ = "A copy with the given fields changed (like dataclasses.replace)."
    cls.but = but  # type: ignore[attr-defined]
    return cls
