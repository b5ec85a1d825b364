"""SPEC.md sends a reader only to what is published beside it (SPEC.md §1), never into this
repository: a client is written from SPEC.md and the documents the server serves under
/protocol/, by someone who has neither the source nor the tests.

Outside a note "(Reference implementation: …)", which names the reference implementation's files
for the curious, SPEC.md may name no repository path (``docs/``, ``tests/``, ``clients/``,
``server/echoridge``, ``protocol/schema`` …), no Python module (``echoridge_protocol``, a
``.py`` file) and no document by its file name (``rules.md``, ``logtext.en.json``): a document
is named by its published URL, which must be one the server publishes.  The paths inside the
notes must exist, so the notes do not rot either."""

from __future__ import annotations

import re
from pathlib import Path

from echoridge.net.published import DOCUMENTS, EXAMPLES, PREFIX

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "protocol" / "SPEC.md"
NOTE = re.compile(r"\(Reference\s+implementation:")

# What names a file of the repository, a module, or a document by its file name.
REPOSITORY_PATH = re.compile(
    r"(?<![\w/.-])(?:docs|tests|clients|bench|deploy)/"
    r"|(?<![\w/.-])server/echoridge"
    r"|(?<![\w/.-])protocol/(?:schema|examples|echoridge_protocol|SPEC)"
    r"|\becho(?:ridge_protocol|ridge_client)\b"
)
FILE_NAME = re.compile(r"(?<![\w.-])/?[\w./-]*\w\.(?:py|md|json)\b")
SUBPROTOCOL = re.compile(r"echoridge\.v\d+\.json")  # a subprotocol's name, not a file
LEGACY_URLS = {"/logtext.en.json"}  # published before /protocol/ was: still served
EXAMPLES_URL = PREFIX + "examples/NAME"  # how SPEC.md names the examples' folder


def published_urls() -> set[str]:
    urls = {PREFIX + name for name in DOCUMENTS} | LEGACY_URLS | {EXAMPLES_URL}
    examples = ROOT / EXAMPLES
    if examples.is_dir():
        urls |= {
            f"{PREFIX}examples/{f.relative_to(examples).as_posix()}"
            for f in examples.rglob("*")
            if f.is_file()
        }
    return urls


def split_notes(text: str) -> tuple[str, list[str]]:
    """SPEC's text without its reference-implementation notes, and the notes."""
    outside, notes, at = [], [], 0
    while (found := NOTE.search(text, at)) is not None:
        start = found.start()
        depth, end = 0, start
        for end in range(start, len(text)):
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            if depth == 0:
                break
        assert depth == 0, f"an unclosed note at {text[start : start + 60]!r}"
        outside.append(text[at:start])
        notes.append(text[start : end + 1])
        at = end + 1
    outside.append(text[at:])
    return " ".join(outside), notes


def offending(text: str) -> list[str]:
    """What ``text`` names that a stranger does not have."""
    found = [m.group(0) for m in REPOSITORY_PATH.finditer(text)]
    for m in FILE_NAME.finditer(text):
        name = m.group(0)
        if name not in published_urls() and not SUBPROTOCOL.fullmatch(name):
            found.append(name)
    return found


def test_spec_names_only_published_documents_outside_its_notes() -> None:
    outside, _ = split_notes(SPEC.read_text(encoding="utf-8"))
    lines = [line for line in outside.splitlines() if offending(line)]
    assert lines == [], "\n".join(lines)


def test_every_published_url_spec_names_is_published() -> None:
    outside, _ = split_notes(SPEC.read_text(encoding="utf-8"))
    url = r"(?<![\w.-])/protocol/[\w./-]*\w|(?<![\w.-])/logtext\.en\.json"
    named = set(re.findall(url, outside))
    assert named, "SPEC names no published document"
    assert named - published_urls() == set()


def test_section_1_lists_every_published_document() -> None:
    spec = SPEC.read_text(encoding="utf-8")
    overview = spec[spec.index("## 1. Overview") : spec.index("## 2. Transport")]
    listed = set(re.findall(r"^\| `(/protocol/[^`]+)` \|", overview, re.M))
    assert listed == {PREFIX + name for name in DOCUMENTS} | {EXAMPLES_URL}


def test_the_notes_name_files_that_exist() -> None:
    _, notes = split_notes(SPEC.read_text(encoding="utf-8"))
    assert notes, "SPEC has no reference-implementation notes"
    paths = {
        path.rstrip(".")
        for note in notes
        for path in re.findall(r"(?<![\w/.-])(?:server|protocol|clients|docs|tests)/[\w./-]+", note)
    }
    missing = sorted(p for p in paths if not (ROOT / p).exists())
    assert missing == []


def test_the_checks_catch_what_they_are_for() -> None:
    for bad in (
        "the rules (rules.md) decide",
        "see docs/rulings.md 42",
        "in `engine/echoridge_rules/views.py`",
        "`tests/golden`",
        "`echoridge_protocol.delta`",
        "the schema, `protocol/schema/echoridge.v2.schema.json`",
        "`/protocol/rules2.md`",
        "views.py",
        "`docs/server.md`",
    ):
        assert offending(bad), bad
    for good in (
        "`server/unavailable` and `protocol/bad_field`, `server/…`",
        "`/protocol/rules.md` §16 and `/logtext.en.json`",
        "`echoridge.v2.json` and `echoridge.v2.msgpack`",
        "`application/json`, `text/markdown; charset=utf-8`, `.md` and `.json` files",
    ):
        assert offending(good) == [], good
    outside, notes = split_notes("a (Reference implementation: `x.py` (see `y.py`)) b")
    assert outside == "a   b" and notes == ["(Reference implementation: `x.py` (see `y.py`))"]
