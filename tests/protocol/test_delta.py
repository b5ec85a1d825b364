"""View deltas: apply(old, diff(old, new)) == new, strictly typed, without mutating anything."""

from __future__ import annotations

import contextlib
import copy
import math
import statistics
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from echoridge.simulate import game_seed, play_random
from echoridge_protocol import DeltaError, ProtocolError, apply, diff
from echoridge_protocol.codes import ALL_CODES
from echoridge_rules import SPECTATOR, Seat, view

# --- helpers ------------------------------------------------------------------------------------


def same(a: Any, b: Any) -> bool:
    """Equal as msgpack and JSON see it: ``True != 1``, ``1 != 1.0``, ``0.0 != -0.0``."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float):
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    return bool(a == b)


def wire(obj: Any) -> Any:
    return msgpack.unpackb(msgpack.packb(obj), raw=False)


KEYS = st.sampled_from(["a", "b", "c", "d", ""])
# Small domains, so that independent draws often share structure and differ in details.
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 2),
    st.integers(-(2**63), 2**64 - 1),
    st.sampled_from([0.0, -0.0, 1.0, 0.5]),
    st.floats(allow_nan=False),
    st.text(max_size=3),
    st.binary(max_size=3),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=24,
)


@st.composite
def mutated(draw: st.DrawFn, value: Any) -> Any:
    """A copy of ``value`` with a few random changes, so old and new are realistically close."""
    if draw(st.integers(0, 5)) == 0:
        return draw(VALUES)
    if isinstance(value, dict):
        out = {k: draw(mutated(v)) if draw(st.booleans()) else v for k, v in value.items()}
        for k in draw(st.lists(KEYS, max_size=2)):
            if draw(st.booleans()):
                out.pop(k, None)
            else:
                out[k] = draw(VALUES)
        return out
    if isinstance(value, list):
        out_list = [draw(mutated(v)) if draw(st.booleans()) else v for v in value]
        cut = draw(st.integers(0, len(out_list)))
        return out_list[:cut] + draw(st.lists(VALUES, max_size=2))
    return value


@st.composite
def pairs(draw: st.DrawFn) -> tuple[Any, Any]:
    old = draw(VALUES)
    new = draw(st.one_of(VALUES, mutated(old)))
    return old, new


# --- the properties -----------------------------------------------------------------------------


@settings(max_examples=400)
@given(pairs())
def test_applying_the_diff_gives_the_new_view(pair: tuple[Any, Any]) -> None:
    old, new = pair
    old_before, new_before = copy.deepcopy(old), copy.deepcopy(new)
    ops = diff(old, new)
    assert same(apply(old, ops), new)
    assert same(old, old_before) and same(new, new_before)  # neither diff nor apply mutate


@given(VALUES)
def test_a_view_has_no_diff_with_itself_or_an_equal_copy(value: Any) -> None:
    assert diff(value, value) == []
    assert diff(value, copy.deepcopy(value)) == []


@given(pairs())
def test_apply_mutates_neither_the_view_nor_the_ops(pair: tuple[Any, Any]) -> None:
    old, new = pair
    ops = diff(old, new)
    old_before, ops_before = copy.deepcopy(old), copy.deepcopy(ops)
    result = apply(old, ops)
    assert same(old, old_before) and same(ops, ops_before)
    apply(result, [["set", [], None]])  # and the result is a value of its own
    assert same(old, old_before)


@given(pairs())
def test_ops_survive_a_msgpack_round_trip(pair: tuple[Any, Any]) -> None:
    old, new = pair
    ops = wire(diff(old, new))
    assert same(apply(wire(old), ops), new)


@given(pairs())
def test_diff_is_deterministic(pair: tuple[Any, Any]) -> None:
    old, new = pair
    assert diff(old, new) == diff(copy.deepcopy(old), copy.deepcopy(new))


def test_strict_types_bool_int_float_zero_str_bytes() -> None:
    for old, new in [
        (True, 1),
        (1, True),
        (0, False),
        (1, 1.0),
        (0.0, -0.0),
        ("a", b"a"),
        ([1], {"0": 1}),
        ({"x": [True]}, {"x": [1]}),
    ]:
        ops = diff(old, new)
        assert ops, (old, new)
        assert same(apply(old, ops), new)


def test_the_documented_example() -> None:
    old = {"a": 1, "b": [1, 2, 3], "c": {"x": True}, "e": []}
    new = {"d": b"\x00", "c": {"x": 1}, "b": [1, 5], "e": [[7]]}
    assert diff(old, new) == [
        ["del", ["a"]],
        ["set", ["d"], b"\x00"],
        ["set", ["c", "x"], 1],
        ["set", ["b", 1], 5],  # two ops about a list: never weighed against a whole-list set
        ["trim", ["b"], 2],
        ["push", ["e"], [[7]]],
    ]
    assert diff({"b": [1, 2, 3, 4]}, {"b": [2, 3, 4]}) == [["set", ["b"], [2, 3, 4]]]
    assert diff([1], [1, 2, 3]) == [["push", [], [2, 3]]]
    assert diff({"a": [1, 2]}, {"a": []}) == [["trim", ["a"], 0]]
    assert diff(1, {"a": 1}) == [["set", [], {"a": 1}]]


def test_a_list_whose_items_shift_is_cut_at_the_prefix_it_shares() -> None:
    """An item removed near the front shifts every later one: item by item that is an op per
    item; trimming to the shared prefix and pushing the rest says it in fewer bytes, and
    the prefix is compared strictly (``True`` is not ``1``)."""
    items = [{"seat": s, "space": 10 + s, "name": f"player {s}"} for s in range(6)]
    old, new = {"l": items}, {"l": items[:1] + items[2:]}
    ops = diff(old, new)
    assert ops == [["trim", ["l"], 1], ["push", ["l"], items[2:]]]
    assert apply(old, ops) == new
    assert len(msgpack.packb(ops)) < len(msgpack.packb(_item_by_item(old, new)))
    strict_old, strict_new = [True, [0] * 9, [1] * 9], [1, [1] * 9, [0] * 9]
    ops = diff(strict_old, strict_new)
    assert same(apply(strict_old, ops), strict_new)
    assert ops[0] in (["set", [], strict_new], ["trim", [], 0])


def _item_by_item(old: Any, new: Any) -> list[Any]:
    """The ops ``diff`` made before it weighed whole-list ops (index by index)."""
    pairs = enumerate(zip(old["l"], new["l"], strict=False))
    return [["set", ["l", i], b] for i, (a, b) in pairs if a != b] + [
        ["trim", ["l"], len(new["l"])]
    ]


def test_later_ops_change_a_value_set_by_an_earlier_one_without_touching_the_op() -> None:
    ops: list[Any] = [
        ["set", ["a"], {"x": [1]}],
        ["push", ["a", "x"], [2]],
        ["set", ["a", "x", 0], 9],
    ]
    ops_before = copy.deepcopy(ops)
    assert apply({}, ops) == {"a": {"x": [9, 2]}}
    assert ops == ops_before


def test_set_on_a_list_index_and_on_the_root() -> None:
    assert apply([1, [2, 3]], [["set", [1, 0], "x"]]) == [1, ["x", 3]]
    assert apply({"a": 1}, [["set", [], [1]], ["push", [], [2]], ["trim", [], 1]]) == [1]
    assert apply([1, 2], [["trim", [], 2]]) == [1, 2]  # trimming to the length is a no-op


# --- errors -------------------------------------------------------------------------------------

VIEW = {"a": {"b": [1, [2, 3]], "s": "x"}, "l": [{"k": 1}]}

BAD_DELTAS = {
    "not a list": ("set",),
    "op not a list": [("set", [], 1)],
    "empty op": [[]],
    "unknown op name": [["put", ["a"], 1]],
    "op name not a string": [[1, ["a"], 1]],
    "set without value": [["set", ["a"]]],
    "del with extra": [["del", ["a"], 1]],
    "path not a list": [["set", "a", 1]],
    "missing key on the way": [["set", ["x", "y"], 1]],
    "int step on a map": [["set", [0], 1]],
    "string step on a list": [["set", ["l", "0"], 1]],
    "bool step on a list": [["set", ["l", True], 1]],
    "step into a scalar": [["set", ["a", "s", "t"], 1]],
    "index out of range": [["set", ["l", 1], 1]],
    "negative index": [["set", ["l", -1], 1]],
    "del on a list": [["del", ["l", 0]]],
    "del a missing key": [["del", ["z"]]],
    "del the root": [["del", []]],
    "push onto a map": [["push", ["a"], [1]]],
    "push a non-list": [["push", ["l"], 1]],
    "push onto a missing key": [["push", ["z"], [1]]],
    "push onto the root map": [["push", [], [1]]],
    "trim longer than the list": [["trim", ["l"], 2]],
    "trim to a negative length": [["trim", ["l"], -1]],
    "trim to a bool": [["trim", ["l"], False]],
    "trim a string": [["trim", ["a", "s"], 0]],
    "good op then bad op": [["set", ["a", "s"], 2], ["set", ["a", "s", 0], 1]],
}


@pytest.mark.parametrize("ops", BAD_DELTAS.values(), ids=BAD_DELTAS.keys())
def test_bad_deltas_raise_delta_error_and_leave_the_view_alone(ops: Any) -> None:
    before = copy.deepcopy(VIEW)
    with pytest.raises(DeltaError) as info:
        apply(VIEW, ops)
    assert before == VIEW
    assert isinstance(info.value, ProtocolError)
    assert info.value.code == "protocol/bad_delta" and info.value.code in ALL_CODES


STEPS = st.one_of(KEYS, st.integers(-1, 4), st.booleans(), st.none(), st.lists(KEYS, max_size=1))
FUZZ_OPS = st.lists(
    st.one_of(
        st.tuples(st.sampled_from(["set", "push", "trim"]), st.lists(STEPS, max_size=3), VALUES),
        st.tuples(st.just("del"), st.lists(STEPS, max_size=3)),
        st.tuples(st.sampled_from(["set", "del", "push", "trim"]), st.lists(STEPS, max_size=3)),
        st.lists(VALUES, max_size=4).map(tuple),
        st.tuples(st.just("trim"), st.lists(STEPS, max_size=3), st.integers(-1, 5)),
    ).map(list),
    max_size=5,
)


@settings(max_examples=400)
@given(VALUES, FUZZ_OPS)
def test_any_delta_applies_or_raises_delta_error(value: Any, ops: list[Any]) -> None:
    before = copy.deepcopy(value)
    with contextlib.suppress(DeltaError):
        apply(value, ops)
    assert same(value, before)


def test_error_messages_say_which_op_and_step() -> None:
    with pytest.raises(DeltaError, match=r"op 1 .*step 1: no key 'zz'"):
        apply(VIEW, [["set", ["a", "s"], 2], ["set", ["a", "zz", 0], 1]])


# --- real views ---------------------------------------------------------------------------------


def delta_stats(viewer: Any, games: int = 3) -> dict[str, float]:
    ops_counts, sizes, fulls = [], [], []
    for g in range(games):
        prev = None
        for _, _, state in play_random(4, game_seed(11, g)):
            new = view(state, viewer)
            if prev is not None:
                ops = diff(prev, new)
                assert same(apply(prev, ops), new)
                assert same(apply(wire(prev), wire(ops)), new)
                ops_counts.append(len(ops))
                sizes.append(len(msgpack.packb(ops)))
                fulls.append(len(msgpack.packb(new)))
            prev = new
    return {
        "deltas": len(sizes),
        "ops_median": statistics.median(ops_counts),
        "ops_max": max(ops_counts),
        "bytes_median": statistics.median(sizes),
        "bytes_p90": statistics.quantiles(sizes, n=10)[-1],
        "bytes_max": max(sizes),
        "full_view_bytes_median": statistics.median(fulls),
    }


@pytest.mark.parametrize("viewer", [SPECTATOR, Seat(0), Seat(3)], ids=str)
def test_real_game_views_diff_and_apply(viewer: Any) -> None:
    stats = delta_stats(viewer)
    print(f"\ndelta stats for {viewer}: {stats}")  # shown with pytest -s or -rP
    # A delta is a small fraction of the view it updates.
    assert stats["bytes_median"] < stats["full_view_bytes_median"] / 4
