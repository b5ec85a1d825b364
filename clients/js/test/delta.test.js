// delta.js (SPEC.md §6.2): the four ops, copies never changes, and refusals.

import assert from "node:assert/strict";
import { test } from "node:test";

import { DeltaError, apply } from "../src/delta.js";

test("set, del, push and trim apply in order without changing the view given", () => {
  const view = { a: { b: [1, 2, 3] }, c: "x", keep: { deep: true } };
  const before = structuredClone(view);
  const after = apply(view, [
    ["set", ["c"], "y"],
    ["set", ["n"], 1],
    ["push", ["a", "b"], [4, 5]],
    ["trim", ["a", "b"], 2],
    ["set", ["a", "b", 0], 9],
    ["del", ["n"]],
  ]);
  assert.deepEqual(after, { a: { b: [9, 2] }, c: "y", keep: { deep: true } });
  assert.deepEqual(view, before);
  assert.equal(after.keep, view.keep); // shared, not copied
  assert.deepEqual(apply(view, [["set", [], 7]]), 7);
  assert.deepEqual(apply([1], [["push", [], [2]]]), [1, 2]);
});

test("a key such as __proto__ is an ordinary key", () => {
  const after = apply({}, [["set", ["__proto__"], { x: 1 }]]);
  assert.ok(Object.hasOwn(after, "__proto__"));
  assert.equal({}.x, undefined);
});

test("ops that do not apply are refused with protocol/bad_delta", () => {
  const view = { a: [1], m: {} };
  for (const ops of [
    [["del", []]], [["set", ["a", 1], 0]], [["set", ["a", true], 0]], [["del", ["a", 0]]],
    [["del", ["nope"]]], [["trim", ["a"], 2]], [["push", ["m"], [1]]], [["jump", []]], [[]], "x",
    [["set", ["m", 0], 1]], [["push", ["a"], 1]], [["trim", ["a"], -1]], [["set", ["a", 0, "x"], 1]],
  ]) {
    assert.throws(() => apply(view, ops), (e) => e instanceof DeltaError && e.code === "protocol/bad_delta", JSON.stringify(ops));
  }
  assert.deepEqual(view, { a: [1], m: {} });
});
