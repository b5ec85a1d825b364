"""View deltas: ``diff(old, new) -> ops`` and ``apply(view, ops) -> view`` (SPEC.md, "Deltas").

A view is plain data: maps with string keys, lists, and the scalars None, bool, int, float, str and
bytes.  A delta is a list of ops, each a list (compact on the wire):

    ["set", path, value]     set the value at path: a map key (created if absent) or an existing
                             list index; the path [] replaces the whole view
    ["del", path]            delete an existing map key
    ["push", path, items]    append the list ``items`` to the list at path
    ["trim", path, length]   truncate the list at path to its first ``length`` items

A path is a list of steps from the root: a string selects a map key, an int a list index
(0 <= index < length; a bool is not an index).  Ops apply in order, each to the result of the
previous one.

``diff`` is strict about types, as msgpack and JSON are: ``True`` and ``1``, ``1`` and ``1.0``,
``0.0`` and ``-0.0``, ``"a"`` and ``b"a"`` all differ.  Equal values give no op; two maps are
compared key by key (``del`` for the keys only in ``old``, in ``old``'s order, then the keys of
``new`` in ``new``'s order: recurse into common keys, ``set`` the added ones); two lists are
compared index by index over their common prefix, then the rest of ``new`` is pushed or ``old``
is trimmed, unless that takes three ops or more and (by their msgpack size) setting the whole
list, or trimming it to the prefix it shares with ``new`` and pushing the rest, says the same in
fewer bytes (an item inserted or removed near the front shifts every later one); anything else
that differs is a ``set``.  A value of any other type is compared as an opaque leaf (same type
and ``==``).  Map key order is not part of a view: after ``apply`` a key added by ``set`` comes
last.

``apply`` never mutates its arguments: it copies each map and list on the way to a change (once
per call) and shares everything else, including with the ops' values.  ``diff``'s ops likewise
share subtrees with ``new``.  A malformed op, or a path that does not lead where the op needs,
raises ``DeltaError`` (code ``protocol/bad_delta``) and leaves the view untouched.
"""

from __future__ import annotations

import math
from typing import Any, Final

import msgpack

from echoridge_protocol.errors import ProtocolError

Op = list[Any]
"""One op: ``["set", path, value]``, ``["del", path]``, ``["push", path, items]`` or
``["trim", path, length]``."""

OP_NAMES: Final = ("set", "del", "push", "trim")

_MISSING: Final = object()


class DeltaError(ProtocolError):
    """A delta that is malformed or does not apply to the view it is given."""

    code = "protocol/bad_delta"


# --- diff -------------------------------------------------------------------------------------


def diff(old: Any, new: Any) -> list[Op]:
    """The ops that turn ``old`` into ``new``: ``apply(old, diff(old, new)) == new``."""
    ops: list[Op] = []
    if old is new:
        return ops
    t = type(old)
    if t is not type(new):
        ops.append(["set", [], new])
    elif t is dict:
        _diff_map(old, new, [], ops)
    elif t is list:
        _diff_list(old, new, [], ops)
    elif not _same_leaf(old, new):
        ops.append(["set", [], new])
    return ops


def diff_sections(
    old: Any,
    new: Any,
    memo: dict[tuple[str, int, int], list[Op]],
    used: list[tuple[str, int, int]] | None = None,
) -> list[Op]:
    """``diff(old, new)``, the same ops, with each top-level section's ops taken from ``memo``
    when the same pair of objects was diffed before: views of one version made through one
    ``ViewCache`` share their public sections, so fan-out diffs each of them once, not once
    per viewer.  ``memo`` must only live while the objects it names do (ids are its keys).
    ``used`` (when given) receives the memo's keys of the sections that changed, in order: two
    diffs with the same keys made the same ops (with none when ``old`` and ``new`` are not
    maps of the same keys)."""
    if type(old) is not dict or type(new) is not dict or old.keys() != new.keys():
        if used is not None:
            used.append(("", id(old), id(new)))
        return diff(old, new)
    ops: list[Op] = []
    for k, vb in new.items():
        va = old[k]
        if va is vb:
            continue
        key = (k, id(va), id(vb))
        part = memo.get(key)
        if part is None:
            part = memo[key] = diff({k: va}, {k: vb})
        if used is not None:
            used.append(key)
        ops.extend(part)
    return ops


def _same_leaf(a: Any, b: Any) -> bool:
    """``a`` and ``b`` (of the same type, not maps or lists) are the same value on the wire."""
    if type(a) is float:
        if a == b:
            return a != 0.0 or math.copysign(1.0, a) == math.copysign(1.0, b)
        return a != a and b != b  # NaN is NaN
    return bool(a == b)


# The two walkers below inline the leaf comparison (the common case) to save a call per value;
# ``path`` is a stack shared by the whole walk, copied only into emitted ops.


def _diff_map(a: dict[str, Any], b: dict[str, Any], path: list[Any], ops: list[Op]) -> None:
    if a.keys() != b.keys():
        for k in a:
            if k not in b:
                ops.append(["del", [*path, k]])
    for k, vb in b.items():
        va = a.get(k, _MISSING)
        if va is vb:
            continue
        t = type(va)
        if t is not type(vb) or va is _MISSING:
            ops.append(["set", [*path, k], vb])
        elif t is dict:
            path.append(k)
            _diff_map(va, vb, path, ops)
            path.pop()
        elif t is list:
            path.append(k)
            _diff_list(va, vb, path, ops)
            path.pop()
        elif (va != vb) if t is not float else not _same_leaf(va, vb):
            ops.append(["set", [*path, k], vb])


def _diff_list(a: list[Any], b: list[Any], path: list[Any], ops: list[Op]) -> None:
    na, nb = len(a), len(b)
    start = len(ops)
    for i in range(min(na, nb)):
        va, vb = a[i], b[i]
        if va is vb:
            continue
        t = type(va)
        if t is not type(vb):
            ops.append(["set", [*path, i], vb])
        elif t is dict:
            path.append(i)
            _diff_map(va, vb, path, ops)
            path.pop()
        elif t is list:
            path.append(i)
            _diff_list(va, vb, path, ops)
            path.pop()
        elif (va != vb) if t is not float else not _same_leaf(va, vb):
            ops.append(["set", [*path, i], vb])
    if nb > na:
        ops.append(["push", [*path], b[na:]])
    elif na > nb:
        ops.append(["trim", [*path], nb])
    if len(ops) - start > 2:  # (weighing costs a few packb calls: not for one or two ops)
        _shorter_list_ops(a, b, path, ops, start)


def _shorter_list_ops(
    a: list[Any], b: list[Any], path: list[Any], ops: list[Op], start: int
) -> None:
    """Replace the ops from ``start`` (all of them about this list, item by item) with a
    ``set`` of the whole list, or a ``trim`` to the prefix the lists share and a ``push`` of the
    rest, when one of those is smaller."""
    first = ops[start][1]  # the first op's path: into the first item that differs, or this list
    prefix = first[len(path)] if len(first) > len(path) else min(len(a), len(b))
    tail: list[Op] = []
    if prefix < len(a):
        tail.append(["trim", [*path], prefix])
    if prefix < len(b):
        tail.append(["push", [*path], b[prefix:]])
    candidates = (ops[start:], [["set", [*path], b]], tail)
    try:
        sizes = [len(msgpack.packb(o)) for o in candidates]
    except (TypeError, ValueError, OverflowError):
        return  # a value msgpack cannot size: keep the ops item by item
    best = min(range(len(candidates)), key=sizes.__getitem__)  # a tie keeps the item ops
    if best:
        ops[start:] = candidates[best]


# --- apply ------------------------------------------------------------------------------------


def apply(view: Any, ops: list[Op]) -> Any:
    """The view that ``ops`` make of ``view``; ``view`` and ``ops`` are left as they were."""
    if type(ops) is not list:
        raise DeltaError(f"a delta is a list of ops, not {type(ops).__name__}")
    owned: dict[int, Any] = {}  # id -> map or list made by this call, so safe to change
    for n, op in enumerate(ops):
        try:
            view = _apply_op(view, op, owned)
        except DeltaError as exc:
            raise DeltaError(f"op {n} {_show(op)}: {exc.message}") from None
    return view


def _apply_op(root: Any, op: Any, owned: dict[int, Any]) -> Any:
    if type(op) is not list or not op:
        raise DeltaError("an op is a non-empty list")
    name = op[0]
    if type(name) is not str or name not in OP_NAMES:
        raise DeltaError(f"unknown op {name!r}")
    if len(op) != (2 if name == "del" else 3):
        raise DeltaError(f"{name} takes {1 if name == 'del' else 2} arguments")
    path = op[1]
    if type(path) is not list:
        raise DeltaError("a path is a list")
    arg = op[2] if name != "del" else None
    if name == "push" and type(arg) is not list:
        raise DeltaError("push takes a list of items")
    if name == "trim" and (type(arg) is not int or arg < 0):
        raise DeltaError("trim takes a length >= 0")

    if not path:
        if name == "set":
            return arg
        if name == "del":
            raise DeltaError("cannot delete the whole view")
        return _list_op(root, name, arg, owned)

    root = _own(root, owned, 0)
    node = root
    for depth, step in enumerate(path[:-1]):
        child = _own(_get(node, step, depth), owned, depth + 1)
        node[step] = child
        node = child
    last = path[-1]
    depth = len(path) - 1
    if name == "set":
        if type(node) is dict:
            if type(last) is not str:
                raise DeltaError(f"step {depth}: a map key is a string")
            node[last] = arg
        else:
            _get(node, last, depth)  # checks the index exists
            node[last] = arg
    elif name == "del":
        if type(node) is not dict:
            raise DeltaError(f"step {depth}: del removes a map key, not a list item")
        _get(node, last, depth)
        del node[last]
    else:
        node[last] = _list_op(_get(node, last, depth), name, arg, owned)
    return root


def _get(node: Any, step: Any, depth: int) -> Any:
    """The child of map or list ``node`` at ``step``, which must exist."""
    t = type(node)
    if t is dict:
        if type(step) is not str:
            raise DeltaError(f"step {depth}: a map key is a string, not {step!r}")
        value = node.get(step, _MISSING)
        if value is _MISSING:
            raise DeltaError(f"step {depth}: no key {step!r}")
        return value
    if t is list:
        if type(step) is not int:
            raise DeltaError(f"step {depth}: a list index is an int, not {step!r}")
        if not 0 <= step < len(node):
            raise DeltaError(f"step {depth}: index {step} outside a list of {len(node)}")
        return node[step]
    raise DeltaError(f"step {depth}: {step!r} on a {t.__name__}, not a map or list")


def _own(node: Any, owned: dict[int, Any], depth: int) -> Any:
    """``node`` itself if this call made it, else a shallow copy that this call owns."""
    if id(node) in owned:
        return node
    if isinstance(node, dict):
        copy: Any = dict(node)
    elif isinstance(node, list):
        copy = list(node)
    else:
        raise DeltaError(f"step {depth}: a {type(node).__name__} has no children")
    owned[id(copy)] = copy
    return copy


def _list_op(target: Any, name: str, arg: Any, owned: dict[int, Any]) -> list[Any]:
    if not isinstance(target, list):
        raise DeltaError(f"{name} needs a list, not a {type(target).__name__}")
    if name == "push":
        result = [*target, *arg]
    elif arg > len(target):
        raise DeltaError(f"cannot trim a list of {len(target)} to {arg}")
    else:
        result = target[:arg]
    owned[id(result)] = result
    return result


def _show(op: Any) -> str:
    """A short form of a bad op for an error message (never the whole value)."""
    text = repr(op[:2]) if type(op) is list else repr(op)
    return text if len(text) <= 120 else text[:117] + "..."
