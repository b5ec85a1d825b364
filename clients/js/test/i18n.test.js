// i18n.js against the vectors the Python formatter is tested with too
// (tests/golden/messageformat.json): the same ICU subset, the same plural categories (CLDR, from
// Intl.PluralRules here and Babel there), the same errors.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { MessageError, formatMessage, messageArguments, pluralCategory } from "../src/i18n.js";

const VECTORS = JSON.parse(readFileSync(fileURLToPath(new URL("../../../tests/golden/messageformat.json", import.meta.url)), "utf8"));

test("every formatting vector", () => {
  assert.ok(VECTORS.format.length >= 20);
  for (const v of VECTORS.format) {
    const got = formatMessage(v.message, v.args, v.language || "en", v.raw || {});
    assert.equal(got, v.expect, `${v.message} with ${JSON.stringify(v.args)}`);
  }
});

test("every error vector throws MessageError", () => {
  for (const v of VECTORS.errors) {
    assert.throws(() => formatMessage(v.message, v.args || {}), MessageError, v.message);
  }
});

test("the arguments a message names", () => {
  for (const v of VECTORS.arguments) assert.deepEqual(messageArguments(v.message), v.expect, v.message);
});

test("Spanish plural categories are CLDR's", () => {
  assert.deepEqual([0, 1, 2, 1000000].map((n) => pluralCategory(n, "es")), ["other", "one", "other", "many"]);
  assert.equal(pluralCategory(1, "en"), "one");
  assert.equal(pluralCategory(1, "no-such-language-tag-at-all-xx"), "one");
});
