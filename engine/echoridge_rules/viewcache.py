"""``ViewCache``: what makes ``view()`` (views.py) cheap to call for every viewer of a table,
version after version: interned sections, memoised parts, the plain forms of legal
commands, and the public sections built once per state."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from echoridge_rules.commands import Command
from echoridge_rules.model import State
from echoridge_rules.serial import to_plain


class ViewCache:
    """Makes ``view`` cheap to call for every viewer of a table, version after version.

    The public sections of a view are built once per state and shared by every viewer; and each
    section (per viewer where it differs) is *interned*: when it equals what the same slot held
    last time, the earlier object is returned instead.  Views made through one cache therefore
    share every unchanged subtree with the views made before, so ``diff`` of two consecutive
    views skips those subtrees by identity (``old is new``).  Interning compares with Python's
    ``==``, which is the wire's equality here because a view holds no floats and each of its
    positions has one type (never ``1`` at one version and ``True`` at the next); so the views
    are exactly those made without a cache (tests/rules/test_view_cache.py checks it with the
    strict ``diff``).  Views are plain data that must never be mutated; a cache serves one
    table's sequence of states.
    """

    __slots__ = ("_plain", "_public", "_slots", "_state")

    def __init__(self) -> None:
        self._state: State | None = None
        self._public: dict[str, Any] = {}
        self._slots: dict[Any, Any] = {}
        self._plain: dict[int, dict[Command, dict[str, Any]]] = {}

    def legal(self, seat: int, commands: tuple[Command, ...]) -> list[dict[str, Any]]:
        """``[to_plain(c) for c in commands]``, reusing the plain form of the commands that were
        legal for ``seat`` last time (consecutive legal lists repeat a lot); only the latest
        list is kept, so the cache stays as small as the views."""
        before = self._plain.get(seat, {})
        plain = [before.get(c) or to_plain(c) for c in commands]
        self._plain[seat] = dict(zip(commands, plain, strict=True))
        return plain

    def intern(self, slot: Any, value: Any) -> Any:
        """``value``, or the equal object that ``slot`` held before."""
        held = self._slots.get(slot, _NOTHING)
        if held is not _NOTHING and type(held) is type(value) and held == value:
            return held
        self._slots[slot] = value
        return value

    def memo(self, slot: Any, key: Any, make: Any) -> Any:
        """``make()``, unless ``slot`` was last made from a key equal to ``key``."""
        held = self._slots.get(("memo", slot), _NOTHING)
        if held is not _NOTHING and held[0] == key:
            return held[1]
        value = make()
        self._slots[("memo", slot)] = (key, value)
        return value

    def public(
        self, state: State, make: Callable[[State, ViewCache], dict[str, Any]]
    ) -> dict[str, Any]:
        """The public sections of ``state`` (``make(state, self)``), once per state."""
        if state is not self._state:
            self._public = make(state, self)
            self._state = state
        return self._public


_NOTHING: Any = object()
