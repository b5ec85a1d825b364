"""net/published.py: which file each URL under /protocol/ names, in a source checkout and in a
wheel's layout, and that nothing outside the published documents and the examples' folder can be
reached (the web client's path safety: tests/web/test_static.py); that the sdist and the server
image carry every published document; and that the Spanish rules (rules.es.md, issue 30) keep the
English rules' sections, tables, cross-references and house-rule marks, so an edit of one without
the other fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from echoridge.net.published import (
    DOCUMENT_TYPES,
    DOCUMENTS,
    PREFIX,
    Published,
    StaticFiles,
    find_published,
)

ROOT = Path(__file__).resolve().parents[2]


def test_a_checkout_serves_the_repository_files_themselves() -> None:
    published = find_published()
    for name, source in DOCUMENTS.items():
        assert published.resolve(PREFIX + name) == ROOT / source, name
        assert (ROOT / source).suffix in DOCUMENT_TYPES
    assert published.examples.root == (ROOT / "protocol" / "examples").resolve()


@pytest.fixture
def carried(tmp_path: Path) -> Published:
    """A wheel's layout (setup.py): the documents under their names, examples/ beside them."""
    folder = tmp_path / "published"
    (folder / "examples" / "games").mkdir(parents=True)
    for name in DOCUMENTS:
        (folder / name).write_text(name)
    (folder / "examples" / "transcript.json").write_text("{}")
    (folder / "examples" / "games" / "solo.md").write_text("# solo")
    (folder / "examples" / "notes.txt").write_text("not a published type")
    (folder / "examples" / ".hidden.json").write_text("{}")
    (tmp_path / "secret.json").write_text("outside")
    (folder / "examples" / "link.json").symlink_to(tmp_path / "secret.json")
    (folder / "stray.md").write_text("beside the documents, but not one of them")
    return Published.carried(folder)


def test_a_wheel_layout_serves_the_documents_and_the_examples(carried: Published) -> None:
    folder = carried.examples.root
    assert folder is not None
    for name in DOCUMENTS:
        file = carried.resolve(PREFIX + name)
        assert file is not None and file.read_text() == name
    assert carried.resolve("/protocol/examples/transcript.json") == folder / "transcript.json"
    assert carried.resolve("/protocol/examples/games/solo.md") == folder / "games" / "solo.md"


@pytest.mark.parametrize(
    "path",
    [
        "/protocol/",
        "/protocol",
        "/protocol/stray.md",  # a file in the folder that is not a published document
        "/protocol/SPEC.md/",
        "/protocol/spec.md",
        "/protocol/SPEC%2Emd",
        "/protocol/./SPEC.md",
        "/protocol/../protocol/SPEC.md",
        "/protocol//SPEC.md",
        "/protocol/examples",
        "/protocol/examples/",
        "/protocol/examples/nope.json",
        "/protocol/examples/notes.txt",
        "/protocol/examples/.hidden.json",
        "/protocol/examples/link.json",  # a symlink out of the folder
        "/protocol/examples/../SPEC.md",
        "/protocol/examples/%2e%2e/SPEC.md",
        "/protocol/examples/..%2f..%2fsecret.json",
        "/protocol/examples/games/../transcript.json",
        "/protocol/examples//transcript.json",
        "/protocol/examples/%00.json",
        "/protocol/examples/%ff.json",
        "/SPEC.md",
        "/rules.md",
    ],
)
def test_nothing_else_is_published(carried: Published, path: str) -> None:
    assert carried.resolve(path) is None, path


def test_no_examples_folder_publishes_no_examples(tmp_path: Path) -> None:
    published = Published.checkout(tmp_path)  # (nothing there at all)
    assert published.resolve("/protocol/examples/transcript.json") is None
    assert published.resolve("/protocol/SPEC.md") is None


def test_static_files_take_their_types_and_index() -> None:
    web = StaticFiles(ROOT / "clients" / "web")
    assert web.resolve("/") == (ROOT / "clients" / "web" / "index.html").resolve()
    docs = StaticFiles(ROOT / "docs", DOCUMENT_TYPES, index=None)
    assert docs.resolve("/") is None
    assert docs.resolve("/rules.md") == (ROOT / "docs" / "rules.md").resolve()
    assert web.resolve("/../docs/rules.md") is None


# --- what carries them: the sdist (MANIFEST.in) and the server image (deploy/Dockerfile) -------


def carried_by(sources: list[str], path: str) -> bool:
    """``path`` is one of ``sources`` (files or folders, repository-relative) or inside one."""
    return any(path == s or path.startswith(s + "/") for s in (s.strip("./") for s in sources))


def test_the_sdist_and_the_image_carry_every_published_document() -> None:
    manifest = [
        line.split()
        for line in (ROOT / "MANIFEST.in").read_text().splitlines()
        if line.split() and not line.startswith("#")
    ]
    in_sdist = [p for words in manifest if words[0] in ("include", "graft") for p in words[1:]]
    copied = [
        source
        for line in (ROOT / "deploy" / "Dockerfile").read_text().splitlines()
        if line.startswith("COPY ") and "--from" not in line
        for source in line.split()[1:-1]
    ]
    for name, source in DOCUMENTS.items():
        assert carried_by(in_sdist, source), f"MANIFEST.in does not carry {source} ({name})"
        assert carried_by(copied, source), f"deploy/Dockerfile does not copy {source} ({name})"
    assert carried_by(["docs/rules.md"], "docs/rules.md")
    assert not carried_by(["docs/rules.md"], "docs/rules.es.md")
    assert carried_by(["./protocol"], "protocol/SPEC.md")


# --- the Spanish rules in step with the English ------------------------------------------------

RULES = ROOT / "docs" / "rules.md"
RULES_ES = ROOT / "docs" / "rules.es.md"
HEADING = re.compile(r"^(#{2,3}) (\d+(?:\.\d+)*)\.? ", re.M)
MARK = {"en": "(house rule", "es": "(regla de la casa"}


def sections(text: str) -> list[tuple[str, str]]:
    """(number, text) of each numbered section ("5", "5.10"), the part before §1 as ("", …);
    the text with its line breaks folded, so a mark split over two lines still counts."""
    cuts = [(m.start(), m.group(2)) for m in HEADING.finditer(text)]
    starts = [0, *(at for at, _ in cuts)]
    ends = [*(at for at, _ in cuts), len(text)]
    numbers = ["", *(n for _, n in cuts)]
    return [(n, " ".join(text[a:b].split())) for n, a, b in zip(numbers, starts, ends, strict=True)]


def differences(english: str, spanish: str) -> list[str]:
    """How the Spanish rules fail to follow the English: section numbers and levels, then, per
    section, house-rule marks, table rows and the § cross-references."""
    levels = [(len(h), n) for h, n in HEADING.findall(english)]
    if [(len(h), n) for h, n in HEADING.findall(spanish)] != levels:
        return ["the numbered headings (## 5. / ### 5.10) differ"]
    found = []
    for (number, en), (_, es) in zip(sections(english), sections(spanish), strict=True):
        where = f"§{number}" if number else "the introduction"
        if en.count(MARK["en"]) != es.count(MARK["es"]):
            found.append(
                f"{where}: house-rule marks: {en.count(MARK['en'])} in English, "
                f"{es.count(MARK['es'])} in Spanish"
            )
        if en.count("|---") != es.count("|---") or en.count(" | ") != es.count(" | "):
            found.append(f"{where}: the tables differ")
        refs = sorted(re.findall(r"§+[\d.–-]*\d", en))
        if sorted(re.findall(r"§+[\d.–-]*\d", es)) != refs:
            found.append(f"{where}: the § cross-references differ")
    return found


def test_the_spanish_rules_follow_the_english_section_by_section() -> None:
    english, spanish = RULES.read_text(encoding="utf-8"), RULES_ES.read_text(encoding="utf-8")
    assert len(HEADING.findall(english)) > 10  # (the parse finds the sections at all)
    assert " ".join(english.split()).count(MARK["en"]) > 0
    assert differences(english, spanish) == []


def test_the_step_check_catches_what_it_is_for() -> None:
    english, spanish = RULES.read_text(encoding="utf-8"), RULES_ES.read_text(encoding="utf-8")
    renumbered = spanish.replace("### 5.10 ", "### 5.9 ", 1)
    assert differences(english, renumbered) == ["the numbered headings (## 5. / ### 5.10) differ"]
    unmarked = spanish.replace(" (regla de la casa: sentido de la pila)", "", 1)
    assert differences(english, unmarked) == ["§4.2: house-rule marks: 1 in English, 0 in Spanish"]
    marked = english.replace("### 5.10 Rest Your Case", "### 5.10 Rest Your Case (house rule)")
    assert differences(marked, spanish) == ["§5.10: house-rule marks: 1 in English, 0 in Spanish"]
    row = "| Coffee Break | 1 | day or night | nothing |\n"
    assert differences(english.replace(row, row + row), spanish) == ["§5: the tables differ"]
    assert differences(english.replace("(required, §4.7)", "(required, §4.8)"), spanish) == [
        "§4.4: the § cross-references differ"
    ]
